/// A snapshot of the engine's pending jobs (id → file name) that heraldd answers the CLI's
/// questions from (`SpoolQuery`) off the scheduler's queue. Taking it is cheap: the table's 64
/// parts are shared until the engine next changes one, which then copies that part alone.
public struct JobTable: Sendable {
    let records: ShardedDictionary<String, JobRecord>
    public let count: Int

    /// The jobs `query` names: the one with that id, or else every id that starts with it
    /// (`total` of them; at most `limit` returned, in id order).
    public func find(_ query: String, limit: Int) -> SpoolQuery.Answer {
        if let exact = records[query]?.name { return SpoolQuery.Answer(total: 1, names: [exact]) }
        var found: [JobFileName] = []
        records.forEach { id, record in if let name = record.name, id.hasPrefix(query) { found.append(name) } }
        found.sort { $0.id < $1.id }
        return SpoolQuery.Answer(total: found.count, names: Array(found.prefix(limit)))
    }

    /// The `n` jobs that fire soonest, in order (ties by id), as `herald list` sorts them.
    public func soonest(_ n: Int) -> SpoolQuery.Answer {
        guard n > 0 else { return SpoolQuery.Answer(total: count, names: []) }
        // A max-heap of the best n so far: its top is the one to beat.
        var heap: [JobFileName] = []
        heap.reserveCapacity(min(n, count))
        func later(_ a: JobFileName, _ b: JobFileName) -> Bool { (a.fireAt, a.id) > (b.fireAt, b.id) }
        records.forEach { _, record in
            guard let name = record.name else { return }
            if heap.count < n {
                heap.append(name)
                var i = heap.count - 1
                while i > 0, later(heap[i], heap[(i - 1) / 2]) { heap.swapAt(i, (i - 1) / 2); i = (i - 1) / 2 }
            } else if later(heap[0], name) {
                heap[0] = name
                var i = 0
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var m = i
                    if l < heap.count, later(heap[l], heap[m]) { m = l }
                    if r < heap.count, later(heap[r], heap[m]) { m = r }
                    if m == i { break }
                    heap.swapAt(i, m)
                    i = m
                }
            }
        }
        heap.sort { later($1, $0) }
        return SpoolQuery.Answer(total: count, names: heap)
    }
}

extension Engine {
    /// The pending jobs as the engine knows them now.
    public var jobTable: JobTable { JobTable(records: records, count: pending) }
}
