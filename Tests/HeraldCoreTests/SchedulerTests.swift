import Testing
@testable import HeraldCore
@testable import HeraldModel

struct SchedulerTests {
    let t0 = Instant(seconds: 1_000)

    @Test func firesJobsThatAreDueInOrder() {
        var s = Scheduler()
        s.schedule("c", at: t0 + .seconds(3))
        s.schedule("a", at: t0 + .seconds(1))
        s.schedule("b", at: t0 + .seconds(2))
        #expect(s.nextDeadline() == t0 + .seconds(1))
        #expect(s.takeDue(now: t0).isEmpty)
        #expect(s.takeDue(now: t0 + .seconds(2)).map(\.id) == ["a", "b"])
        #expect(s.nextDeadline() == t0 + .seconds(3))
        #expect(s.count == 1)
    }

    @Test func tiesFireInTheOrderScheduled() {
        var s = Scheduler()
        for id in ["x", "y", "z", "w"] { s.schedule(id, at: t0) }
        #expect(s.takeDue(now: t0).map(\.id) == ["x", "y", "z", "w"])
    }

    @Test func movingAJobReplacesItsDueTime() {
        var s = Scheduler()
        s.schedule("a", at: t0 + .seconds(1))
        s.schedule("a", at: t0 + .seconds(10))
        #expect(s.count == 1)
        #expect(s.takeDue(now: t0 + .seconds(5)).isEmpty)
        #expect(s.nextDeadline() == t0 + .seconds(10))
        #expect(s.takeDue(now: t0 + .seconds(10)).map(\.due) == [t0 + .seconds(10)])
    }

    @Test func removedJobsNeverFire() {
        var s = Scheduler()
        s.schedule("a", at: t0)
        s.schedule("b", at: t0 + .seconds(1))
        let removed = s.remove("a")
        let removedAgain = s.remove("a")
        #expect(removed)
        #expect(!removedAgain)
        #expect(s.nextDeadline() == t0 + .seconds(1))
        #expect(s.takeDue(now: t0 + .seconds(9)).map(\.id) == ["b"])
        #expect(s.nextDeadline() == nil)
    }

    /// Many moves leave stale heap entries behind; they must neither fire nor pile up.
    @Test func staleEntriesAreCompacted() {
        var s = Scheduler()
        for round in 0..<50 { for k in 0..<100 { s.schedule("j\(k)", at: t0 + .seconds(Int64(round * 100 + k))) } }
        #expect(s.count == 100)
        let due = s.takeDue(now: t0 + .seconds(1_000_000))
        #expect(due.count == 100)
        #expect(Set(due.map(\.id)).count == 100)
        #expect(due.allSatisfy { $0.due >= t0 + .seconds(4900) })
    }

    @Test func bulkLoadMatchesOneByOne() {
        var bulk = Scheduler()
        var single = Scheduler()
        var rng = SystemRandomNumberGenerator()
        let entries = (0..<2000).map { ("id\($0)", t0 + .seconds(Int64.random(in: 0..<500, using: &rng))) }
        bulk.schedule(contentsOf: entries)
        for (id, due) in entries { single.schedule(id, at: due) }
        let a = bulk.takeDue(now: t0 + .seconds(600)).map(\.due)
        let b = single.takeDue(now: t0 + .seconds(600)).map(\.due)
        #expect(a == b)
        #expect(a == a.sorted())
        #expect(a.count == 2000)
    }
}

struct OutboxTests {
    let now = Instant(seconds: 5_000)
    func item(_ id: String) -> Outbox.Item { .init(id: id, due: now) }

    /// By default one popup at a time: each is recorded before the next is shown.
    @Test func showsOneAtATimeByDefault() {
        var o = Outbox()
        #expect(o.enqueue([item("a"), item("b")]) == [.show(item("a"))])
        #expect(o.shown("a") == [.show(item("b"))])
    }

    @Test func sendsUpToTheWindowWhileHealthy() {
        var policy = Outbox.Policy()
        policy.window = 2
        var o = Outbox(policy: policy)
        #expect(o.enqueue([item("a"), item("b"), item("c")]) == [.show(item("a")), .show(item("b"))])
        #expect(o.shown("a") == [.show(item("c"))])
        #expect(o.pendingCount == 2)
    }

    @Test func aFailureBlocksAndBacksOffUpTo30Seconds() {
        var o = Outbox()
        _ = o.enqueue([item("a"), item("b")])
        #expect(o.failed("a", now: now) == [.armRetry(now + .seconds(1))])
        #expect(o.failed("b", now: now) == [])  // already blocked
        #expect(o.isBlocked)
        #expect(o.retry(now: now) == [])  // too early
        var t = now + .seconds(1)
        var delays: [Int64] = []
        for _ in 0..<7 {
            let probe = o.retry(now: t)
            #expect(probe == [.show(item("a"))])  // one probe, the earliest item
            guard case .armRetry(let next)? = o.failed("a", now: t).first else { Issue.record("no retry armed"); return }
            delays.append((next - t).microseconds / 1_000_000)
            t = next
        }
        #expect(delays == [2, 4, 8, 16, 30, 30, 30])
    }

    @Test func aSuccessfulProbeUnblocksEverything() {
        var policy = Outbox.Policy()
        policy.window = 4
        var o = Outbox(policy: policy)
        _ = o.enqueue([item("a"), item("b"), item("c")])
        _ = o.failed("a", now: now)
        _ = o.failed("b", now: now)
        _ = o.failed("c", now: now)
        #expect(o.retry(now: now + .seconds(1)) == [.show(item("a"))])
        #expect(o.shown("a") == [.show(item("b")), .show(item("c"))])
        #expect(!o.isBlocked)
    }

    @Test func aServerAppearingRetriesAtOnce() {
        var o = Outbox()
        _ = o.enqueue([item("a")])
        _ = o.failed("a", now: now)
        #expect(o.serverAppeared() == [.show(item("a"))])
    }

    @Test func cancelledItemsLeaveTheQueue() {
        var o = Outbox()
        _ = o.enqueue([item("a"), item("b")])
        _ = o.failed("a", now: now)
        _ = o.failed("b", now: now)
        let removed = o.remove("a")
        #expect(removed)
        #expect(o.retry(now: now + .seconds(1)) == [.show(item("b"))])
    }
}
