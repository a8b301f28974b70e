import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// A small import right behind big ones, as heraldd's intake runs it: the engine decides about
/// each part read, the filing queue orders what it files, and a large batch's reader waits for
/// room. Time is passed in (a manual clock); the filing queue is driven by hand.
@Suite struct FilingOrderTests {
    let t0 = ISO8601.parseInstant("2026-11-22T08:00:00Z")!

    func candidate(_ id: String, _ at: Instant) -> IntakeCandidate {
        IntakeCandidate(id: id, kind: .reminder, first: at, line: Array("{}\n".utf8))
    }

    func plans(_ effects: [EngineEffect]) -> [FilingPlan] {
        effects.compactMap { if case .file(let plan) = $0 { return plan } else { return nil } }
    }

    func filed(_ plan: FilingPlan) -> EngineEvent {
        var result = FilingResult()
        result.filed = plan.writes.map(\.name)
        result.batch = plan.batch
        result.isLastPart = plan.isLastPart
        return .filed(result)
    }

    /// Three imports of three parts each (jobs an hour away), then 40 reminders due 1–3 s
    /// later: the small import is read while the big readers wait for room, its jobs are
    /// scheduled at once, and it is filed before any remaining part of the big ones.
    @Test func aSmallImportIsScheduledAndFiledBeforeTheRestOfBigOnes() throws {
        var engine = Engine(config: HeraldConfig(), logLevel: .critical)
        _ = engine.handle(.started(jobs: [], strays: []), now: t0)
        let queue = FilingQueue()
        var bigParts: [[BatchPart]] = []
        for b in 0..<3 {
            bigParts.append((0..<3).map { p in
                let ids = (0..<100).map { "big\(b)-\(p)-\($0)" }
                return BatchPart(file: ".filing-big\(b).jsonl", candidates: ids.map { candidate($0, t0 + .minutes(60)) },
                                 total: 300, isFirst: p == 0, isLast: p == 2)
            })
        }
        // Each big reader hands its first part over; then the filing queue is full for them.
        for b in 0..<3 {
            #expect(!queue.wouldWait(.large), "a big part waited with \(b) parts queued")
            for plan in plans(engine.handle(.intakeRead([.batch(bigParts[b][0])]), now: t0)) { queue.add(plan) }
        }
        #expect(queue.wouldWait(.large))

        // The small import comes in now: it does not wait, and its jobs are scheduled.
        #expect(!queue.wouldWait(.small))
        let smallIDs = (0..<40).map { "small\($0)" }
        let small = BatchPart(file: ".filing-small.jsonl",
                              candidates: smallIDs.enumerated().map { candidate($1, t0 + .milliseconds(Int64(1000 + 50 * $0))) },
                              total: 40, isFirst: true, isLast: true)
        let smallPlans = plans(engine.handle(.intakeRead([.batch(small)]), now: t0 + .milliseconds(10)))
        #expect(smallPlans.count == 1)
        for plan in smallPlans { queue.add(plan) }
        #expect(engine.nextWakeup() == t0 + .seconds(1), "the small import's first job is what heraldd wakes for")

        // The filer takes the small import first, before any big part still waiting.
        let first = try #require(queue.takeFirst())
        #expect(first.batch == ".filing-small.jsonl" && first.writes.count == 40)
        let removal = plans(engine.handle(filed(first), now: t0 + .milliseconds(60)))
        #expect(removal.map(\.removeBatch) == [".filing-small.jsonl"])
        for plan in removal { queue.add(plan) }
        #expect(try #require(queue.takeFirst()).removeBatch == ".filing-small.jsonl", "the small batch leaves new/ next")
        queue.done(first)

        // Then the big ones, and their readers get room again one part at a time.
        var left: [String] = []
        while let plan = queue.takeFirst() {
            left.append(plan.batch ?? "")
            queue.done(plan)
        }
        #expect(left.sorted() == [".filing-big0.jsonl", ".filing-big1.jsonl", ".filing-big2.jsonl"])
        #expect(!queue.wouldWait(.large))

        // The small import's jobs come due on time: the first at t0 + 1 s is asked for then.
        let due = engine.handle(.timerFired, now: t0 + .seconds(1))
        #expect(due.contains { if case .load(let request) = $0 { return request.id == "small0" } else { return false } }
                || due.contains { if case .show(let n) = $0 { return n.jobID == "small0" } else { return false } },
                "nothing done for small0 at its time: \(due)")
    }
}
