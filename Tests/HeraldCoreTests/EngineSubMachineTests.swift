import Foundation
import Testing
@testable import HeraldModel

/// The engine's sub-machines on their own, each owning its state: the summary popup, batch
/// intake, and the job records' own counts. Time is passed in (a manual clock).
@Suite struct EngineSubMachineTests {
    static let t0 = Instant(seconds: 1_800_000_000)

    static func firing(_ id: String, at t: Instant, title: String? = nil) -> Firing {
        var job = Job(kind: .reminder, id: id, at: t)
        job.title = title ?? id
        let schedule = try! JobSchedule(job, localZone: .utc)
        return Firing(name: JobFileName(id: id, occurrence: t), job: job, schedule: schedule, due: t)
    }

    // MARK: the summary

    /// Held jobs wait until nothing is gathered and it is not quiet; then one summary goes out,
    /// its lines kept once it is shown and merged into the next one's.
    @Test func theSummaryGoesOutOnceNothingIsGatheredAndItIsNotQuiet() throws {
        var summary = Summary()
        #expect(!summary.isReady(gathering: 0, quiet: false))
        summary.hold("a", reason: .away, quietEnds: Self.t0 + .seconds(60))
        summary.hold("b", reason: .crowd, quietEnds: Self.t0 + .seconds(60))
        #expect(summary.reason == .away, "the first held decides the heading")
        #expect(summary.wakeup == Self.t0 + .seconds(60))
        #expect(!summary.isReady(gathering: 1, quiet: false) && !summary.isReady(gathering: 0, quiet: true))
        #expect(summary.isReady(gathering: 0, quiet: false))
        summary.queue()
        #expect(!summary.isReady(gathering: 0, quiet: false) && summary.wakeup == nil)
        let sent = summary.send([Self.firing("a", at: Self.t0), Self.firing("b", at: Self.t0)], title: { $0.job.title ?? "" })
        let lines = try #require(sent)
        #expect(lines.map(\.id) == ["a", "b"] && summary.held.isEmpty && summary.inPopup == ["a", "b"])
        #expect(summary.takeSent() == ["a", "b"] && summary.inPopup.isEmpty)
        summary.shown(repeats: [Self.firing("b", at: Self.t0)])
        #expect(summary.lines.map(\.id) == ["a", "b"] && summary.repeating.keys.sorted() == ["b"] && !summary.isQueued)
        // The next summary replaces it in place: its lines are there too, a job once.
        summary.hold("b", reason: .away, quietEnds: nil)
        summary.hold("c", reason: .away, quietEnds: nil)
        summary.queue()
        let again = summary.send([Self.firing("b", at: Self.t0 + .seconds(300)), Self.firing("c", at: Self.t0)], title: { $0.job.title ?? "" })
        let next = try #require(again)
        #expect(next.map(\.id) == ["a", "b", "c"] && next[1].due == Self.t0 + .seconds(300))
        #expect(summary.ended().map(\.name.id) == ["b"] && summary.lines.isEmpty && summary.repeating.isEmpty)
    }

    /// A summary that cannot be shown holds its jobs again, ahead of those held since.
    @Test func aSummaryThatFailsIsHeldAgainFirst() {
        var summary = Summary()
        summary.hold("a", reason: .away, quietEnds: nil)
        summary.queue()
        _ = summary.send([Self.firing("a", at: Self.t0)], title: { _ in "" })
        summary.hold("z", reason: .away, quietEnds: nil)
        summary.failed(heldAgain: summary.takeSent())
        #expect(summary.held == ["a", "z"])
        // Nothing left to send: it is no longer queued.
        var empty = Summary()
        empty.hold("x", reason: .away, quietEnds: nil)
        empty.queue()
        #expect(empty.send([], title: { _ in "" }) == nil && !empty.isQueued && empty.held.isEmpty)
    }

    // MARK: batch intake

    static func part(_ file: String, total: Int, first: Bool, last: Bool, resumed: Bool = false) -> BatchPart {
        BatchPart(file: file, candidates: [], total: total, isFirst: first, isLast: last, resumed: resumed)
    }

    /// The first part decides for the whole batch; a refused batch's later parts are passed
    /// over; a batch read twice while filed is taken once; one finished releases those waiting.
    @Test func aBatchIsDecidedByItsFirstPart() throws {
        var intake = BatchIntake()
        #expect(intake.decide(Self.part("big", total: 10, first: true, last: false), fits: { $0 <= 5 }) == .refuse)
        #expect(intake.decide(Self.part("big", total: 10, first: false, last: true), fits: { _ in true }) == .ignore)
        #expect(intake.counts(of: "big") == nil)
        // A resumed batch was admitted before: it is not asked again.
        #expect(intake.decide(Self.part("resumed", total: 10, first: true, last: false, resumed: true), fits: { _ in false }) == .take)
        #expect(intake.decide(Self.part("ok", total: 3, first: true, last: false), fits: { $0 <= 5 }) == .take)
        intake.count("ok", added: 2, skipped: 1)
        #expect(intake.decide(Self.part("ok", total: 3, first: true, last: true), fits: { _ in true }) == .ignore, "read again while filed")
        #expect(intake.decide(Self.part("ok", total: 3, first: false, last: true), fits: { _ in true }) == .take)
        intake.wait("ok")
        intake.count("ok", failed: 0)
        let done = intake.finish("ok")
        let finished = try #require(done)
        #expect(finished.counts.added == 2 && finished.counts.skipped == 1 && finished.waiting == ["ok"])
        #expect(intake.finish("ok") == nil)
    }

    // MARK: the records' counts

    /// The pending and gathered counts follow the records: nobody keeps them by hand.
    @Test func theRecordsCountTheirPendingAndGatheredJobs() {
        var records = JobRecords()
        let dropped = records.load([JobFileName(id: "a", occurrence: Self.t0), JobFileName(id: "b", occurrence: Self.t0),
                                    JobFileName(id: "a", occurrence: Self.t0 + .seconds(1))])
        #expect(dropped.count == 1 && records.namedCount == 2)
        var b = records["b"]!
        b.gathered = true
        records["b"] = b
        #expect(records.gatheredCount == 1)
        b.name = nil
        b.gathered = false
        b.phase = .loading(due: Self.t0)
        records["b"] = b
        #expect(records.namedCount == 1 && records.gatheredCount == 0)
        records["b"] = nil
        records["c"] = JobRecord(name: JobFileName(id: "c", occurrence: Self.t0))
        #expect(records.namedCount == 2 && records.count == 2)
    }
}
