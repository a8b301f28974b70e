import HeapModule

/// A snapshot of the engine's pending jobs (id → file name) that heraldd answers the CLI's
/// questions from (`SpoolQuery`) off the scheduler's queue. Taking it is cheap: the table's 64
/// parts are shared until the engine next changes one, which then copies that part alone.
public struct JobTable: Sendable {
    let records: ShardedDictionary<String, JobRecords.Packed>
    public let count: Int

    init(records: JobRecords, count: Int) {
        self.records = records.packed
        self.count = count
    }

    /// How many jobs a question matched, and the first of their names.
    public struct Answer: Equatable, Sendable {
        public var total: Int
        public var names: [JobFileName]
        public init(total: Int, names: [JobFileName]) { self.total = total; self.names = names }
    }

    /// The jobs `query` names: the one with that id, or else every id that starts with it
    /// (`total` of them; at most `limit` returned, in id order).
    public func find(_ query: String, limit: Int) -> Answer {
        if let exact = records[query].flatMap({ JobRecords.unpack($0, id: query).name }) { return Answer(total: 1, names: [exact]) }
        var found: [JobFileName] = []
        records.forEach { id, packed in
            if id.hasPrefix(query), let name = JobRecords.unpack(packed, id: id).name { found.append(name) }
        }
        found.sort { $0.id < $1.id }
        return Answer(total: found.count, names: Array(found.prefix(limit)))
    }

    /// The `n` jobs that fire soonest, in order (ties by id), as `herald list` sorts them.
    public func soonest(_ n: Int) -> Answer {
        guard n > 0 else { return Answer(total: count, names: []) }
        // The best n so far; the latest of them (the heap's max) is the one to beat.
        var kept = Heap<ByFiring>()
        kept.reserveCapacity(min(n, count))
        records.forEach { id, packed in
            guard let name = JobRecords.unpack(packed, id: id).name else { return }
            if kept.count < n {
                kept.insert(ByFiring(name: name))
            } else if ByFiring(name: name) < kept.max! {
                kept.replaceMax(with: ByFiring(name: name))
            }
        }
        let soonest = kept.unordered.sorted().map(\.name)
        return Answer(total: count, names: soonest)
    }
}

extension Engine {
    /// The pending jobs as the engine knows them now.
    public var jobTable: JobTable { JobTable(records: records, count: records.namedCount) }
}

/// A job file name ordered as `herald list` sorts: by firing time, ties by id.
private struct ByFiring: Comparable {
    var name: JobFileName
    static func < (a: ByFiring, b: ByFiring) -> Bool { (a.name.fireAt, a.name.id) < (b.name.fireAt, b.name.id) }
    static func == (a: ByFiring, b: ByFiring) -> Bool { (a.name.fireAt, a.name.id) == (b.name.fireAt, b.name.id) }
}
