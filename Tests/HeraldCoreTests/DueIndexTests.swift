import Testing
@testable import HeraldCore
@testable import HeraldModel

struct DueIndexTests {
    let t0 = Instant(seconds: 1_000)

    @Test func firesJobsThatAreDueInOrder() {
        var s = JobRecords()
        s.schedule("c", at: t0 + .seconds(3))
        s.schedule("a", at: t0 + .seconds(1))
        s.schedule("b", at: t0 + .seconds(2))
        #expect(s.nextDeadline() == t0 + .seconds(1))
        #expect(s.takeDue(now: t0).isEmpty)
        #expect(s.takeDue(now: t0 + .seconds(2)).map(\.id) == ["a", "b"])
        #expect(s.nextDeadline() == t0 + .seconds(3))
        #expect(s.scheduledCount == 1)
    }

    /// A spool's listing loaded at start: every job in the index at its firing time (a
    /// snoozed one at its snooze), the later of two names of one job kept, the other returned.
    @Test func aListingLoadsIntoTheIndexKeepingTheLaterOfTwoNames() {
        var s = JobRecords()
        var names: [JobFileName] = []
        for k in 0..<10_000 {  // over the size that reserves room up front
            names.append(JobFileName(id: "j\(k)", occurrence: t0 + .seconds(Int64((k * 7919) % 10_000))))
        }
        names.append(JobFileName(id: "j5", occurrence: t0 - .seconds(5)))                       // earlier: dropped
        names.append(JobFileName(id: "j6", occurrence: t0 + .seconds(20_000)))                  // later: kept
        names.append(JobFileName(id: "z", occurrence: t0, snoozedUntil: t0 + .seconds(30_000)))
        let dropped = s.load(names)
        #expect(Set(dropped) == [names[10_000], names[6]])
        s.scheduleAllNamed()
        #expect(s.count == 10_001)
        #expect(s.scheduledCount == 10_001)
        #expect(s["j6"]?.name == names[10_001])
        #expect(s["j5"]?.name == names[5])
        let due = s.takeDue(now: t0 + .seconds(40_000))
        #expect(due.count == 10_001)
        #expect(due.map(\.due) == due.map(\.due).sorted())
        #expect(due.last?.id == "z" && due.last?.due == t0 + .seconds(30_000))
        #expect(due.first { $0.id == "j6" }?.due == t0 + .seconds(20_000))
    }

    @Test func twoNamesOfOneJobAtStartKeepTheLaterAndQuarantineTheOther() {
        var e = Engine(config: HeraldConfig(), logLevel: .critical)
        let early = JobFileName(id: "a", occurrence: t0), late = JobFileName(id: "a", occurrence: t0 + .seconds(60))
        for order in [[late, early], [early, late]] {
            let effects = e.handle(.started(jobs: order, strays: []), now: t0 - .minutes(1))
            #expect(effects.contains(.spool(.quarantine(name: early.description, reason: "a second copy of job 'a'"))))
            #expect(!effects.contains { if case .spool(.quarantine(late.description, _)) = $0 { true } else { false } })
            #expect(e.currentNames["a"] == late)
        }
    }

    @Test func tiesFireInTheOrderScheduled() {
        var s = JobRecords()
        for id in ["x", "y", "z", "w"] { s.schedule(id, at: t0) }
        #expect(s.takeDue(now: t0).map(\.id) == ["x", "y", "z", "w"])
    }

    @Test func movingAJobReplacesItsDueTime() {
        var s = JobRecords()
        s.schedule("a", at: t0 + .seconds(1))
        s.schedule("a", at: t0 + .seconds(10))
        #expect(s.scheduledCount == 1)
        #expect(s.takeDue(now: t0 + .seconds(5)).isEmpty)
        #expect(s.nextDeadline() == t0 + .seconds(10))
        #expect(s.takeDue(now: t0 + .seconds(10)).map(\.due) == [t0 + .seconds(10)])
    }

    @Test func removedJobsNeverFire() {
        var s = JobRecords()
        s.schedule("a", at: t0)
        s.schedule("b", at: t0 + .seconds(1))
        let removed = s.unschedule("a")
        let removedAgain = s.unschedule("a")
        #expect(removed)
        #expect(!removedAgain)
        #expect(s.nextDeadline() == t0 + .seconds(1))
        #expect(s.takeDue(now: t0 + .seconds(9)).map(\.id) == ["b"])
        #expect(s.nextDeadline() == nil)
    }

    /// Many moves leave stale heap entries behind; they must neither fire nor pile up.
    @Test func staleEntriesAreCompacted() {
        var s = JobRecords()
        for round in 0..<50 { for k in 0..<100 { s.schedule("j\(k)", at: t0 + .seconds(Int64(round * 100 + k))) } }
        #expect(s.scheduledCount == 100)
        let due = s.takeDue(now: t0 + .seconds(1_000_000))
        #expect(due.count == 100)
        #expect(Set(due.map(\.id)).count == 100)
        #expect(due.allSatisfy { $0.due >= t0 + .seconds(4900) })
    }

    @Test func bulkLoadMatchesOneByOne() {
        var bulk = JobRecords()
        var single = JobRecords()
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

    /// A record goes in packed and comes out as it went in, whatever its phase; changing it
    /// keeps its place in the due index, removing it takes it out.
    @Test func recordsComeBackAsStoredAndKeepTheirPlace() throws {
        var records = JobRecords()
        let name = JobFileName(id: "a", occurrence: t0, snoozedUntil: t0 + .seconds(60))
        let job = Job(kind: .reminder, at: t0, text: "tea")
        let firing = Firing(name: name, job: job, schedule: try JobSchedule(job, localZone: .utc), due: t0)
        let phases: [JobRecord.Phase] = [.idle, .filing, .loading(due: t0), .showing(firing), .held(firing), .summarised(firing)]
        for phase in phases {
            for popup in [nil, JobRecord.Popup.onScreen(firing), .refreshing(firing)] {
                var r = JobRecord(name: name, phase: phase)
                r.popup = popup
                r.gathered = popup == nil
                records["a"] = r
                let back = try #require(records["a"])
                #expect(back.name == name && back.gathered == r.gathered)
                #expect("\(back.phase)" == "\(phase)" && "\(String(describing: back.popup))" == "\(String(describing: popup))")
            }
        }
        // The far ends of time survive, and "not snoozed" stays apart from a snooze at the start of time.
        for edge in [Int64.min, Int64.min + 1, 0, Int64.max] {
            let n = JobFileName(id: "b", occurrence: Instant(microseconds: edge), snoozedUntil: Instant(microseconds: edge))
            records["b"] = JobRecord(name: n)
            #expect(records["b"]?.name?.occurrence == n.occurrence)
            #expect(records["b"]?.name?.snoozedUntil != nil)
        }
        records["b"] = JobRecord(name: JobFileName(id: "b", occurrence: t0))
        #expect(records["b"]?.name?.snoozedUntil == nil)

        records.schedule("a", at: t0 + .seconds(5))
        records["a"] = JobRecord(name: JobFileName(id: "a", occurrence: t0 + .seconds(9)))
        #expect(records.isScheduled("a") && records.scheduledCount == 1)
        #expect(records.sortedEntries().map(\.due) == [t0 + .seconds(5)])
        records["a"] = nil
        #expect(!records.isScheduled("a") && records.scheduledCount == 0)
        #expect(records.takeDue(now: t0 + .seconds(100)).isEmpty)
        #expect(records.count == 1)  // "b"
    }

    /// What a pending job costs (BENCHMARKS.md, "Memory per pending job"): a record of 32
    /// bytes beside its id, and nothing boxed while it waits.
    @Test func aWaitingJobIsThirtyTwoBytesAndUnboxed() {
        #expect(MemoryLayout<JobRecords.Packed>.stride == 32)
        var records = JobRecords()
        records["a"] = JobRecord(name: JobFileName(id: "a", occurrence: t0), phase: .filing)
        records.schedule("a", at: t0)
        #expect(records.packed["a"]?.busy == nil)
        #expect(records["a"]?.isFiling == true)
    }

    /// Loading a spool puts every job with a file in the index at its firing time (a snoozed
    /// one at its snooze), beside what is there already.
    @Test func everyNamedRecordGoesInAtItsFiringTime() {
        var records = JobRecords()
        records.schedule("early", at: t0)
        records["early"] = JobRecord(name: JobFileName(id: "early", occurrence: t0))
        for k in 0..<300 {
            let occurrence = t0 + .seconds(Int64(300 - k))
            records["j\(k)"] = JobRecord(name: JobFileName(id: "j\(k)", occurrence: occurrence, snoozedUntil: k % 3 == 0 ? occurrence + .seconds(1_000) : nil))
        }
        records["gone"] = JobRecord(name: nil, phase: .loading(due: t0))  // no file: not due again
        records.scheduleAllNamed()
        #expect(records.scheduledCount == 301)
        let due = records.takeDue(now: t0 + .seconds(10_000))
        #expect(due.count == 301 && due.first?.id == "early")
        #expect(due.map(\.due) == due.map(\.due).sorted())
        for (id, at) in due where id != "early" { #expect(records[id]?.name?.fireAt == at) }
    }

    /// A job taken out of the index is not due when it surfaces, and a job put back is due once.
    @Test func takenOutAndPutBackFiresOnce() {
        var records = JobRecords()
        for k in 0..<200 { records.schedule("j\(k)", at: t0 + .seconds(Int64(k))) }
        for k in 0..<200 where k % 2 == 0 { records.unschedule("j\(k)") }
        for k in 0..<200 where k % 4 == 0 { records.schedule("j\(k)", at: t0 + .seconds(Int64(k))) }
        let due = records.takeDue(now: t0 + .seconds(1_000)).map(\.id)
        #expect(due.count == 150 && Set(due).count == 150)
        #expect(records.nextDeadline() == nil && records.peekDeadline() == nil)
    }
}

struct OutboxTests {
    let now = Instant(seconds: 5_000)
    func item(_ id: String) -> Outbox.Item { .init(.job(id), due: now) }

    /// By default a window of 32 is handed to the notifier (which sends them one at a time):
    /// the next are ready when a reply comes. The window is the most a crash can repeat.
    @Test func handsOutTheWindowByDefault() {
        var o = Outbox()
        let window = Outbox.Policy().window
        #expect(window == 32)
        let items = (0..<(window + 2)).map { item("j\($0)") }
        #expect(o.enqueue(items) == items.prefix(window).map { .show($0) })
        #expect(o.shown(.job("j0")) == [.show(items[window])])
        #expect(o.shown(.job("j2")) == [.show(items[window + 1])])
        #expect(o.pendingCount == window)
    }

    /// The summary goes out alone: after everything handed out before it is answered, and
    /// nothing goes with it.
    @Test func theSummaryGoesOutAlone() {
        var o = Outbox()
        let summary = Outbox.Item(.summary, due: now)
        #expect(o.enqueue([item("a"), summary, item("b")]) == [.show(item("a"))])
        #expect(o.shown(.job("a")) == [.show(summary)])
        #expect(o.shown(.summary) == [.show(item("b"))])
    }

    @Test func aWindowOfOneShowsOneAtATime() {
        var policy = Outbox.Policy()
        policy.window = 1
        var o = Outbox(policy: policy)
        #expect(o.enqueue([item("a"), item("b")]) == [.show(item("a"))])
        #expect(o.shown(.job("a")) == [.show(item("b"))])
    }

    @Test func sendsUpToTheWindowWhileHealthy() {
        var policy = Outbox.Policy()
        policy.window = 2
        var o = Outbox(policy: policy)
        #expect(o.enqueue([item("a"), item("b"), item("c")]) == [.show(item("a")), .show(item("b"))])
        #expect(o.shown(.job("a")) == [.show(item("c"))])
        #expect(o.pendingCount == 2)
    }

    @Test func aFailureBlocksAndBacksOffUpTo30Seconds() {
        var o = Outbox()
        _ = o.enqueue([item("a"), item("b")])
        #expect(o.failed(.job("a"), now: now) == [.armRetry(now + .seconds(1))])
        #expect(o.failed(.job("b"), now: now) == [])  // already blocked
        #expect(o.isBlocked)
        #expect(o.retry(now: now) == [])  // too early
        var t = now + .seconds(1)
        var delays: [Int64] = []
        for _ in 0..<7 {
            let probe = o.retry(now: t)
            #expect(probe == [.show(item("a"))])  // one probe, the earliest item
            guard case .armRetry(let next)? = o.failed(.job("a"), now: t).first else { Issue.record("no retry armed"); return }
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
        _ = o.failed(.job("a"), now: now)
        _ = o.failed(.job("b"), now: now)
        _ = o.failed(.job("c"), now: now)
        #expect(o.retry(now: now + .seconds(1)) == [.show(item("a"))])
        #expect(o.shown(.job("a")) == [.show(item("b")), .show(item("c"))])
        #expect(!o.isBlocked)
    }

    @Test func aServerAppearingRetriesAtOnce() {
        var o = Outbox()
        _ = o.enqueue([item("a")])
        _ = o.failed(.job("a"), now: now)
        #expect(o.serverAppeared() == [.show(item("a"))])
    }

    @Test func cancelledItemsLeaveTheQueue() {
        var o = Outbox()
        _ = o.enqueue([item("a"), item("b")])
        _ = o.failed(.job("a"), now: now)
        _ = o.failed(.job("b"), now: now)
        let removed = o.remove(.job("a"))
        #expect(removed)
        #expect(o.retry(now: now + .seconds(1)) == [.show(item("b"))])
    }
}
