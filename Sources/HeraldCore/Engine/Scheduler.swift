/// The due-time index of all pending jobs: a min-heap keyed by due time, with the clock passed in.
///
/// A pure state machine in the style of hummingbird's: it owns no timer. Callers tell it what
/// changed (`schedule`, `remove`) and ask what is due at `now` and when the next deadline is;
/// the daemon arms its one wall-clock timer for that deadline.
///
/// Moving or removing a job is O(log n) amortised: the heap may hold stale entries, which are
/// skipped when they surface and compacted away when they outnumber the live ones.
public struct Scheduler: Sendable {
    struct Entry: Sendable {
        var due: Instant
        var id: String
        var sequence: UInt64
    }

    private var heap: [Entry] = []
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
        push(Entry(due: due, id: id, sequence: nextSequence))
        compactIfNeeded()
    }

    /// Adds many jobs at once in O(n): for loading a spool.
    public mutating func schedule(contentsOf entries: [(id: String, due: Instant)]) {
        for (id, due) in entries {
            nextSequence += 1
            current[id] = (due, nextSequence)
            heap.append(Entry(due: due, id: id, sequence: nextSequence))
        }
        heapify()
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
        return heap.first?.due
    }

    /// The job due first and when, or nil when nothing is scheduled.
    public mutating func next() -> (id: String, due: Instant)? {
        dropStaleTop()
        return heap.first.map { ($0.id, $0.due) }
    }

    /// Removes and returns every job due at or before `now`, earliest first (ties in the
    /// order they were scheduled).
    public mutating func takeDue(now: Instant) -> [(id: String, due: Instant)] {
        var due: [(id: String, due: Instant)] = []
        while true {
            dropStaleTop()
            guard let top = heap.first, top.due <= now else { break }
            popTop()
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
        while let top = heap.first, isStale(top) { popTop() }
    }

    private mutating func compactIfNeeded() {
        guard heap.count > 64, heap.count > 2 * current.count else { return }
        let live = current
        heap.removeAll { live[$0.id]?.sequence != $0.sequence }
        heapify()
    }

    private static func less(_ a: Entry, _ b: Entry) -> Bool {
        a.due != b.due ? a.due < b.due : a.sequence < b.sequence
    }

    private mutating func push(_ e: Entry) {
        heap.append(e)
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.less(heap[i], heap[parent]) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        let n = heap.count
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < n, Self.less(heap[l], heap[m]) { m = l }
            if r < n, Self.less(heap[r], heap[m]) { m = r }
            if m == i { return }
            heap.swapAt(i, m)
            i = m
        }
    }

    private mutating func heapify() {
        guard heap.count > 1 else { return }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }
}
