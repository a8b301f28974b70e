import Testing
@testable import HeraldCore

struct HeapTests {
    /// A deterministic shuffle, so a failure can be replayed.
    func scrambled(_ n: Int, seed: UInt64 = 7) -> [Int] {
        var values = Array(0..<n), state = seed
        for k in values.indices.reversed() where k > 0 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values.swapAt(k, Int((state >> 33) % UInt64(k + 1)))
        }
        return values
    }

    func drained(_ heap: Heap<Int>) -> [Int] {
        var heap = heap, out: [Int] = []
        while let next = heap.popMin() { out.append(next) }
        return out
    }

    @Test func popsInAscendingOrder() {
        var heap = Heap<Int>()
        for v in scrambled(1_000) { heap.insert(v) }
        #expect(heap.count == 1_000)
        #expect(heap.min == 0)
        #expect(drained(heap) == Array(0..<1_000))
    }

    @Test func buildsFromAnArrayAndTakesInABatch() {
        var heap = Heap(scrambled(500))
        heap.insert(contentsOf: scrambled(500, seed: 9).map { $0 + 500 })
        #expect(drained(heap) == Array(0..<1_000))
    }

    @Test func keepsDuplicates() {
        let heap = Heap([3, 1, 3, 2, 1, 3])
        #expect(drained(heap) == [1, 1, 2, 3, 3, 3])
    }

    @Test func anEmptyHeapHasNothingToGive() {
        var heap = Heap<Int>()
        #expect(heap.isEmpty)
        #expect(heap.min == nil)
        #expect(heap.popMin() == nil)
        heap.insert(4)
        #expect(heap.popMin() == 4)
        #expect(heap.popMin() == nil)
    }

    /// The bounded top-n pattern of `JobTable.soonest`: the worst kept is on top and replaced.
    @Test func replaceMinKeepsTheBestN() {
        var kept = Heap<Int>()
        for v in scrambled(10_000) {
            if kept.count < 10 { kept.insert(v) } else if v > kept.min! { kept.replaceMin(with: v) }
        }
        #expect(kept.unordered.sorted() == Array(9_990..<10_000))
        #expect(kept.replaceMin(with: 5) == 9_990)
        #expect(kept.min == 5)
    }

    @Test func removeAllKeepsHeapOrder() {
        var heap = Heap(scrambled(1_000))
        heap.removeAll { $0 % 3 == 0 }
        #expect(heap.count == 666)
        #expect(drained(heap) == (0..<1_000).filter { $0 % 3 != 0 })
    }
}
