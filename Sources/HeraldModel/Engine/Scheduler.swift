import HeapModule

/// The due-time index of all pending jobs: a heap keyed by due time (swift-collections'
/// `Heap`), with the clock passed in.
///
/// A pure state machine in the style of hummingbird's: it owns no timer. Callers tell it what
/// changed (`schedule`, `remove`) and ask what is due at `now` and when the next deadline is;
/// the daemon arms its one wall-clock timer for that deadline.
///
/// Moving or removing a job is O(log n) amortised: the heap may hold stale entries, which are
/// skipped when they surface and compacted away when they outnumber the live ones.
public struct Scheduler: Sendable {
    /// Ordered by due time, then by when it was scheduled (so ties come out in that order).
    struct Entry: Sendable, Comparable {
        var due: Instant
        var id: String
        var sequence: UInt64

        static func < (a: Entry, b: Entry) -> Bool { a.due != b.due ? a.due < b.due : a.sequence < b.sequence }
        static func == (a: Entry, b: Entry) -> Bool { a.due == b.due && a.sequence == b.sequence }
    }

    private var heap = Heap<Entry>()
    private var current = ShardedDictionary<String, (due: Instant, sequence: UInt64)>()
    private var nextSequence: UInt64 = 0

    public init() {}

    /// The number of jobs with a due time.
    public var count: Int { current.count }
    public var isEmpty: Bool { current.isEmpty }

    /// The due time of `id`, if it is scheduled.
    public func due(of id: String) -> Instant? { current[id]?.due }

    /// Adds `id` at `due`, or moves it there if it was already scheduled.
    public mutating func schedule(_ id: String, at due: Instant) {
        nextSequence += 1
        current[id] = (due, nextSequence)
        heap.insert(Entry(due: due, id: id, sequence: nextSequence))
        compactIfNeeded()
    }

    /// Adds many jobs at once in O(n): for loading a spool.
    public mutating func schedule(contentsOf entries: [(id: String, due: Instant)]) {
        var added: [Entry] = []
        added.reserveCapacity(entries.count)
        for (id, due) in entries {
            nextSequence += 1
            current[id] = (due, nextSequence)
            added.append(Entry(due: due, id: id, sequence: nextSequence))
        }
        heap.insert(contentsOf: added)
    }

    /// Forgets `id`. Returns whether it was scheduled.
    @discardableResult
    public mutating func remove(_ id: String) -> Bool {
        guard current.removeValue(forKey: id) != nil else { return false }
        compactIfNeeded()
        return true
    }

    /// The earliest due time, or nil when nothing is scheduled.
    public mutating func nextDeadline() -> Instant? {
        dropStaleTop()
        return heap.min?.due
    }

    /// The job due first and when, or nil when nothing is scheduled.
    public mutating func next() -> (id: String, due: Instant)? {
        dropStaleTop()
        return heap.min.map { ($0.id, $0.due) }
    }

    /// Removes and returns every job due at or before `now`, earliest first (ties in the
    /// order they were scheduled).
    public mutating func takeDue(now: Instant) -> [(id: String, due: Instant)] {
        var due: [(id: String, due: Instant)] = []
        while true {
            dropStaleTop()
            guard let top = heap.min, top.due <= now else { break }
            _ = heap.popMin()
            current.removeValue(forKey: top.id)
            due.append((top.id, top.due))
        }
        return due
    }

    /// All scheduled jobs, earliest first. O(n log n); for listings and tests.
    public func sortedEntries() -> [(id: String, due: Instant)] {
        current.pairs.map { ($0.key, $0.value.due) }.sorted { ($0.due, $0.id) < ($1.due, $1.id) }
    }

    // MARK: heap

    private func isStale(_ e: Entry) -> Bool { current[e.id]?.sequence != e.sequence }

    private mutating func dropStaleTop() {
        while let top = heap.min, isStale(top) { _ = heap.popMin() }
    }

    private mutating func compactIfNeeded() {
        guard heap.count > 64, heap.count > 2 * current.count else { return }
        let live = current
        heap.removeAll { live[$0.id]?.sequence != $0.sequence }
    }
}
