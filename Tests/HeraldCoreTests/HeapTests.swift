import Testing
@testable import HeraldCore
@testable import HeraldModel

/// The one heap (swift-collections' `Heap`) as its two users use it, checked against a sort.
struct HeapTests {
    /// A small deterministic generator, so a failure can be replayed.
    struct Steps {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// Lazy deletion: moved and removed jobs leave stale entries behind, which are skipped and
    /// compacted away; what comes out is always what a sorted list of the live jobs says.
    @Test(arguments: [1, 2, 3])
    func theDueIndexAgreesWithASortUnderMovesAndRemoves(seed: UInt64) {
        var steps = Steps(state: seed)
        var index = JobRecords()
        var model: [String: (due: Int64, order: Int)] = [:]
        var order = 0, now: Int64 = 0
        for _ in 0..<20_000 {
            let id = "j\(steps.next(400))"
            switch steps.next(10) {
            case 0..<6:
                order += 1
                let due = now + Int64(steps.next(50))
                index.schedule(id, at: Instant(seconds: due))
                model[id] = (due, order)
            case 6..<8:
                #expect(index.unschedule(id) == (model.removeValue(forKey: id) != nil))
            default:
                now += Int64(steps.next(5))
                let expected = model.filter { $0.value.due <= now }.sorted { ($0.value.due, $0.value.order) < ($1.value.due, $1.value.order) }
                let taken = index.takeDue(now: Instant(seconds: now))
                #expect(taken.map(\.id) == expected.map(\.key))
                #expect(taken.map(\.due) == expected.map { Instant(seconds: $0.value.due) })
                for (id, _) in expected { model[id] = nil }
            }
            #expect(index.scheduledCount == model.count)
        }
        #expect(index.nextDeadline() == model.values.map(\.due).min().map { Instant(seconds: $0) })
        #expect(index.sortedEntries().map(\.id) == model.sorted { ($0.value.due, $0.key) < ($1.value.due, $1.key) }.map(\.key))
    }

    /// Loading a spool adds many at once; they merge with what is already scheduled.
    @Test func aBatchMergesWithWhatIsScheduled() {
        var index = JobRecords()
        index.schedule("early", at: Instant(seconds: 5))
        index.schedule("moved", at: Instant(seconds: 1))
        index.schedule(contentsOf: (0..<1_000).map { (id: "b\($0)", due: Instant(seconds: Int64(1_000 - $0))) }
                                       + [(id: "moved", due: Instant(seconds: 2_000))])
        #expect(index.scheduledCount == 1_002)
        let first = index.takeDue(now: Instant(seconds: 5))
        #expect(first.map(\.id) == ["b999", "b998", "b997", "b996", "early", "b995"])
        #expect(index.takeDue(now: Instant(seconds: 1_999)).count == 995)
        #expect(index.next()?.id == "moved")
    }

    /// The bounded top n: ties by id, any n, including none and more than there are.
    @Test func soonestKeepsTheBestNWithTies() {
        var names = ShardedDictionary<String, JobFileName>()
        var steps = Steps(state: 9)
        for k in 0..<1_000 {
            let id = "t\(steps.next(1_000_000))-\(k)"
            names[id] = JobFileName(id: id, occurrence: Instant(seconds: Int64(steps.next(10))))
        }
        var records = JobRecords()
        names.forEach { id, name in records[id] = JobRecord(name: name) }
        let table = JobTable(records: records, count: names.count)
        let all = names.values.sorted { ($0.fireAt, $0.id) < ($1.fireAt, $1.id) }
        for n in [0, 1, 7, 100, 999, 1_000, 2_000] {
            let answer = table.soonest(n)
            #expect(answer.total == 1_000)
            #expect(answer.names == Array(all.prefix(n)))
        }
    }
}
