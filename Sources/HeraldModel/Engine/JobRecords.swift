import HeapModule

/// The engine's one record per job (`JobRecord`), by id, and the one index of their due times.
///
/// Stored packed, because at a hundred thousand pending jobs every byte of a record is 100 kB
/// of heraldd's memory (BENCHMARKS.md, "Memory per pending job"): a record is its file name's
/// two times, its place in the due index and a few flags, beside the id it is filed under; the
/// parts only jobs on their way to the screen have (a firing, a popup, a document read ahead)
/// are one shared box. The due index is a heap keyed by due time (swift-collections' `Heap`)
/// whose entries are checked against the record: moving or removing a job is O(log n)
/// amortised, and stale entries are skipped when they surface and compacted away when they
/// outnumber the live ones.
///
/// A pure structure: it owns no timer and reads no clock. The engine asks what is due at `now`
/// and arms heraldd's one wall-clock timer for `nextDeadline()`.
struct JobRecords: Sendable {
    private var table = ShardedDictionary<String, Packed>()
    private var heap = Heap<Entry>()
    private var nextSequence: UInt64 = 0
    /// How many records are in the due index.
    private(set) var scheduledCount = 0
    /// How many records have a file in the spool (the pending jobs), and how many are one of
    /// a crowd overdue after a break, still being read: kept as records change, never by hand.
    private(set) var namedCount = 0
    private(set) var gatheredCount = 0

    init() {}

    /// A record as stored: 32 bytes, against 72 for a `JobRecord` and 32 more for a separate
    /// due index's own dictionary entry. Its due time is its entry's in the heap.
    struct Packed: Sendable {
        var occurrence: Int64 = 0
        /// When a snoozed occurrence fires; `Int64.min`: not snoozed.
        var snoozedUntil: Int64 = .min
        var busy: Busy?
        /// Its entry in the due index (the entry's sequence number, truncated); 0: not in it.
        var sequence: UInt32 = 0
        var flags: UInt8 = 0

        static let named: UInt8 = 1, filing: UInt8 = 2, gathered: UInt8 = 4

        var isEmpty: Bool { flags == 0 && busy == nil && sequence == 0 }
    }

    /// What only a job on its way to the screen (or held back) has. Immutable: a snapshot
    /// (`JobTable`) shares it.
    final class Busy: Sendable {
        let phase: JobRecord.Phase
        let popup: JobRecord.Popup?
        let readAhead: JobRecord.ReadAhead?
        init(phase: JobRecord.Phase, popup: JobRecord.Popup?, readAhead: JobRecord.ReadAhead?) {
            self.phase = phase; self.popup = popup; self.readAhead = readAhead
        }
    }

    /// Ordered by due time, then by when it was scheduled (so ties come out in that order).
    struct Entry: Sendable, Comparable {
        var due: Instant
        var id: String
        var sequence: UInt64

        static func < (a: Entry, b: Entry) -> Bool { a.due != b.due ? a.due < b.due : a.sequence < b.sequence }
        static func == (a: Entry, b: Entry) -> Bool { a.due == b.due && a.sequence == b.sequence }
    }

    // MARK: records

    var count: Int { table.count }
    var isEmpty: Bool { table.isEmpty }

    /// The record of `id`; setting one keeps its place in the due index, setting nil drops both.
    subscript(id: String) -> JobRecord? {
        get { table[id].map { Self.unpack($0, id: id) } }
        set {
            guard let newValue else {
                if let old = table.removeValue(forKey: id) {
                    if old.sequence != 0 { scheduledCount -= 1 }
                    count(old.flags, -1)
                }
                return
            }
            var packed = table[id] ?? Packed()
            count(packed.flags, -1)
            Self.pack(newValue, into: &packed)
            count(packed.flags, 1)
            table[id] = packed
        }
    }

    private mutating func count(_ flags: UInt8, _ sign: Int) {
        if flags & Packed.named != 0 { namedCount += sign }
        if flags & Packed.gathered != 0 { gatheredCount += sign }
    }

    @discardableResult
    mutating func removeValue(forKey id: String) -> JobRecord? {
        let old = self[id]
        self[id] = nil
        return old
    }

    /// Visits every record, in no particular order.
    func forEach(_ body: (String, JobRecord) -> Void) {
        table.forEach { id, packed in body(id, Self.unpack(packed, id: id)) }
    }

    /// Starts noting which records change (for comparing with a listing taken meanwhile); a
    /// job moving in the due index alone is not a change.
    mutating func recordChanges() { table.recordChanges() }
    mutating func takeChanges() -> Set<String> { table.takeChanges() }

    static func unpack(_ p: Packed, id: String) -> JobRecord {
        var record = JobRecord(name: nil)
        if p.flags & Packed.named != 0 {
            record.name = JobFileName(id: id, occurrence: Instant(microseconds: p.occurrence),
                                      snoozedUntil: p.snoozedUntil == .min ? nil : Instant(microseconds: p.snoozedUntil))
        }
        if let busy = p.busy {
            record.phase = busy.phase
            record.popup = busy.popup
            record.readAhead = busy.readAhead
        } else if p.flags & Packed.filing != 0 {
            record.phase = .filing
        }
        record.gathered = p.flags & Packed.gathered != 0
        return record
    }

    static func pack(_ r: JobRecord, into p: inout Packed) {
        var flags: UInt8 = 0
        if let name = r.name {
            flags |= Packed.named
            p.occurrence = name.occurrence.microseconds
            // `Int64.min` as a snooze time would read as "not snoozed": it saturates one up.
            p.snoozedUntil = name.snoozedUntil.map { max($0.microseconds, .min + 1) } ?? .min
        }
        if r.gathered { flags |= Packed.gathered }
        switch r.phase {
        case .idle where r.popup == nil && r.readAhead == nil: p.busy = nil
        case .filing where r.popup == nil && r.readAhead == nil: p.busy = nil; flags |= Packed.filing
        default: p.busy = Busy(phase: r.phase, popup: r.popup, readAhead: r.readAhead)
        }
        p.flags = flags
    }

    // MARK: the due index

    /// Whether `id` is in the index.
    func isScheduled(_ id: String) -> Bool { table[id].map { $0.sequence != 0 } ?? false }

    /// Puts `id` in the index at `due`, or moves it there (a record is made if it has none).
    mutating func schedule(_ id: String, at due: Instant) {
        let sequence = takeSequence()
        mark(id, sequence)
        heap.insert(Entry(due: due, id: id, sequence: sequence))
        compactIfNeeded()
    }

    /// Puts many jobs in the index at once in O(n): for loading a spool.
    mutating func schedule(contentsOf entries: [(id: String, due: Instant)]) {
        var added: [Entry] = []
        added.reserveCapacity(entries.count)
        for (id, due) in entries {
            let sequence = takeSequence()
            mark(id, sequence)
            added.append(Entry(due: due, id: id, sequence: sequence))
        }
        heap.insert(contentsOf: added)
    }

    /// Loads a listing of `jobs/` into empty records, one lookup per name (heraldd's start,
    /// 100,000 names). Two names of one job keep the later occurrence; the others are returned.
    mutating func load(_ names: [JobFileName]) -> [JobFileName] {
        precondition(table.isEmpty, "load fills empty records")
        table.reserveCapacity(names.count)
        var dropped: [JobFileName] = []
        for name in names {
            var packed = Packed()
            Self.pack(JobRecord(name: name), into: &packed)
            guard let old = table.exchange(name.id, packed), let other = Self.unpack(old, id: name.id).name else {
                namedCount += 1
                continue
            }
            // Two states of one job can only come from outside interference: keep the later one.
            if other.occurrence >= name.occurrence {
                table.exchange(name.id, old)
                dropped.append(name)
            } else {
                dropped.append(other)
            }
        }
        return dropped
    }

    /// Puts every record with a file name in the index at its firing time, in O(n): for
    /// loading a spool. The heap is built in place from one array (no list of all jobs beside
    /// it), and each record learns its entry as it is visited (no lookup per job).
    mutating func scheduleAllNamed() {
        var added = ContiguousArray<Entry>()
        added.reserveCapacity(table.count - scheduledCount)
        var next = nextSequence
        var newlyScheduled = 0
        table.updateEachQuietly { id, p in
            guard p.flags & Packed.named != 0, p.sequence == 0 else { return }
            let fireAt = p.snoozedUntil == .min ? p.occurrence : p.snoozedUntil
            let sequence = Self.advance(&next)
            p.sequence = UInt32(truncatingIfNeeded: sequence)
            newlyScheduled += 1
            added.append(Entry(due: Instant(microseconds: fireAt), id: id, sequence: sequence))
        }
        nextSequence = next
        scheduledCount += newlyScheduled
        if heap.isEmpty {
            heap = Heap(consume added)
        } else {
            heap.insert(contentsOf: added)
        }
    }

    /// Takes `id` out of the index. Returns whether it was in it.
    @discardableResult
    mutating func unschedule(_ id: String) -> Bool {
        guard table[id]?.sequence ?? 0 != 0 else { return false }
        table.updateQuietly(id, default: Packed()) { $0.sequence = 0 }
        scheduledCount -= 1
        if table[id]?.isEmpty == true { table.removeValueQuietly(forKey: id) }
        compactIfNeeded()
        return true
    }

    /// The earliest due time, or nil when nothing is in the index.
    mutating func nextDeadline() -> Instant? {
        dropStaleTop()
        return heap.min?.due
    }

    /// The earliest due time without changing the heap (for a query on a shared copy): O(1)
    /// unless the top entry is stale, which after any event's `nextDeadline()` it is not.
    func peekDeadline() -> Instant? {
        guard let top = heap.min else { return nil }
        if !isStale(top) { return top.due }
        return heap.unordered.lazy.filter { !self.isStale($0) }.map(\.due).min()
    }

    /// The job due first and when, or nil when nothing is in the index.
    mutating func next() -> (id: String, due: Instant)? {
        dropStaleTop()
        return heap.min.map { ($0.id, $0.due) }
    }

    /// Takes every job due at or before `now` out of the index, earliest first (ties in the
    /// order they were scheduled).
    mutating func takeDue(now: Instant) -> [(id: String, due: Instant)] {
        var due: [(id: String, due: Instant)] = []
        while true {
            dropStaleTop()
            guard let top = heap.min, top.due <= now else { break }
            _ = heap.popMin()
            unschedule(top.id)
            due.append((top.id, top.due))
        }
        return due
    }

    /// Every job in the index, earliest first. O(n log n); for listings and tests.
    func sortedEntries() -> [(id: String, due: Instant)] {
        heap.unordered.filter { !isStale($0) }.map { ($0.id, $0.due) }.sorted { ($0.due, $0.id) < ($1.due, $1.id) }
    }

    /// The shards, for a snapshot (`JobTable`).
    var packed: ShardedDictionary<String, Packed> { table }

    /// Makes `sequence` the record's live heap entry (a record is made if it has none).
    private mutating func mark(_ id: String, _ sequence: UInt64) {
        table.updateQuietly(id, default: Packed()) { p in
            if p.sequence == 0 { scheduledCount += 1 }
            p.sequence = UInt32(truncatingIfNeeded: sequence)
        }
    }

    private mutating func takeSequence() -> UInt64 { Self.advance(&nextSequence) }

    private static func advance(_ sequence: inout UInt64) -> UInt64 {
        sequence += 1
        // 0 in the record means "not in the index".
        if UInt32(truncatingIfNeeded: sequence) == 0 { sequence += 1 }
        return sequence
    }

    /// An entry is live while its record still carries its sequence number. The record keeps
    /// 32 bits of it: a stale entry is dropped or compacted away long before 2^32 more jobs
    /// are scheduled (the heap never holds more than twice the live entries, plus 64).
    private func isStale(_ e: Entry) -> Bool {
        table[e.id]?.sequence != UInt32(truncatingIfNeeded: e.sequence)
    }

    private mutating func dropStaleTop() {
        while let top = heap.min, isStale(top) { _ = heap.popMin() }
    }

    private mutating func compactIfNeeded() {
        guard heap.count > 64, heap.count > 2 * scheduledCount else { return }
        let live = table
        heap.removeAll { live[$0.id]?.sequence != UInt32(truncatingIfNeeded: $0.sequence) }
    }
}
