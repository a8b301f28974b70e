/// A binary min-heap: the one heap of Herald. The scheduler's due-time index (with lazy
/// deletion) and `JobTable.soonest` (the best n kept, the worst on top) are both built on it.
///
/// O(log n) `insert` and `popMin`, O(1) `min`, O(n) to build from an array or to take in a
/// batch. Ties come out in no particular order: an element that must be stable orders itself
/// (the scheduler's entries compare their sequence numbers last).
public struct Heap<Element: Comparable> {
    /// The elements in heap order: the smallest first, the rest in no useful order.
    public private(set) var unordered: [Element]

    public init() { unordered = [] }

    /// A heap of `elements`, in O(n).
    public init(_ elements: [Element]) {
        unordered = elements
        heapify()
    }

    public var count: Int { unordered.count }
    public var isEmpty: Bool { unordered.isEmpty }

    /// The smallest element.
    public var min: Element? { unordered.first }

    public mutating func reserveCapacity(_ n: Int) { unordered.reserveCapacity(n) }

    /// Adds `element`: O(log n).
    public mutating func insert(_ element: Element) {
        unordered.append(element)
        siftUp(unordered.count - 1)
    }

    /// Adds many elements: O(n + k), the whole heap rebuilt, which beats k insertions when the
    /// batch is large (a spool loaded at start).
    public mutating func insert(contentsOf elements: [Element]) {
        unordered.append(contentsOf: elements)
        heapify()
    }

    /// Removes and returns the smallest element: O(log n).
    @discardableResult
    public mutating func popMin() -> Element? {
        guard let last = unordered.popLast() else { return nil }
        guard !unordered.isEmpty else { return last }
        let top = unordered[0]
        unordered[0] = last
        siftDown(0)
        return top
    }

    /// Puts `element` in place of the smallest, which it returns: one O(log n) step instead of
    /// a pop and an insert (keeping the best n: the worst kept is on top).
    @discardableResult
    public mutating func replaceMin(with element: Element) -> Element {
        precondition(!unordered.isEmpty, "replaceMin on an empty heap")
        let top = unordered[0]
        unordered[0] = element
        siftDown(0)
        return top
    }

    /// Removes every element `shouldBeRemoved` accepts: O(n).
    public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        try unordered.removeAll(where: shouldBeRemoved)
        heapify()
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard unordered[i] < unordered[parent] else { return }
            unordered.swapAt(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        let n = unordered.count
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < n, unordered[l] < unordered[m] { m = l }
            if r < n, unordered[r] < unordered[m] { m = r }
            if m == i { return }
            unordered.swapAt(i, m)
            i = m
        }
    }

    private mutating func heapify() {
        guard unordered.count > 1 else { return }
        for i in stride(from: unordered.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }
}

extension Heap: Sendable where Element: Sendable {}
