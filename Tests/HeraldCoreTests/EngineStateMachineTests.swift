import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// The engine alone, as a state machine: events in, effects out. No disk, no clock but `now`.
struct EngineStateMachineTests {
    let t0 = ISO8601.parseInstant("2026-11-22T08:00:00Z")!

    /// Its log lines (effects too) are left out: these tests compare whole lists of effects.
    func engine(_ config: HeraldConfig = HeraldConfig()) -> Engine { Engine(config: config, logLevel: .critical) }
    func name(_ id: String, _ at: Instant, snoozed: Instant? = nil) -> JobFileName {
        JobFileName(id: id, occurrence: at, snoozedUntil: snoozed)
    }
    func reminder(_ id: String, at: Instant? = nil, every: String? = nil) -> LoadedJob {
        LoadedJob(job: Job(kind: .reminder, id: id, at: at, every: every, text: id))
    }
    func candidate(_ id: String, _ at: Instant) -> IntakeCandidate {
        IntakeCandidate(id: id, kind: .reminder, first: at, line: Array("{}\n".utf8))
    }
    func history(_ effects: [EngineEffect]) -> [HistoryRecord.Outcome] {
        effects.compactMap { if case .spool(.appendHistory(let r)) = $0 { return r.outcome } else { return nil } }
    }

    @Test func startingArmsTheTimerForTheEarliestJobAndAsksForNew() {
        var e = engine()
        let effects = e.handle(.started(jobs: [name("b", t0 + .minutes(5)), name("a", t0 + .minutes(2))], strays: []), now: t0)
        #expect(effects == [.readIntake(IntakeRequest(names: nil, localZone: .utc, defaultLead: .minutes(15))),
                            .load(LoadRequest(name: name("a", t0 + .minutes(2)), purpose: .readAhead)),
                            .armTimer(t0 + .minutes(2))])
        #expect(e.pendingCount == 2)
    }

    @Test func aDueJobIsReadThenShownThenRecorded() throws {
        var e = engine()
        let a = name("a", t0 + .minutes(2))
        _ = e.handle(.started(jobs: [a], strays: []), now: t0)
        #expect(e.handle(.timerFired, now: t0 + .minutes(1)).isEmpty)  // early: nothing
        let due = t0 + .minutes(2)
        #expect(e.handle(.timerFired, now: due) == [.load(LoadRequest(name: a, purpose: .fire(due: due))), .armTimer(nil)])
        let show = e.handle(.loaded(LoadRequest(name: a, purpose: .fire(due: due)), .success(reminder("a", at: due))), now: due)
        guard case .show(let request)? = show.first else { Issue.record("no popup: \(show)"); return }
        #expect(request.summary == "a" && request.jobID == "a")
        let recorded = e.handle(.shown(jobID: "a", .success(())), now: due + .milliseconds(1))
        #expect(history(recorded) == [.shown])
        #expect(recorded.last == .spool(.finish(a)))
        #expect(e.pendingCount == 0)
    }

    /// The engine asks for a rename and moves on; inotify reports it later, and that is not a
    /// change by someone else.
    @Test func itsOwnRenameReportedLateIsNotMistakenForAnotherWriter() {
        var e = engine()
        let first = name("r", t0 + .minutes(1))
        _ = e.handle(.started(jobs: [first], strays: []), now: t0)
        let due = t0 + .minutes(1)
        _ = e.handle(.timerFired, now: due)
        _ = e.handle(.loaded(LoadRequest(name: first, purpose: .fire(due: due)), .success(reminder("r", every: "*-*-* 08:01"))), now: due)
        let next = name("r", t0 + .minutes(1) + .minutes(24 * 60))
        let recorded = e.handle(.shown(jobID: "r", .success(())), now: due)
        #expect(recorded.contains(.spool(.advance(from: first, to: next))))
        #expect(e.handle(.jobsChanged([.removed(first.description), .added(next.description)]), now: due).isEmpty)
        #expect(e.currentNames["r"] == next)
        #expect(e.nextWakeup() == next.fireAt)
    }

    /// The CLI cancelled the job between the engine's decision and the rename.
    @Test func aRenameThatFindsTheFileGoneForgetsTheJob() {
        var e = engine()
        let first = name("r", t0)
        let next = name("r", t0 + .minutes(60))
        _ = e.handle(.started(jobs: [first], strays: []), now: t0)
        _ = e.handle(.loaded(LoadRequest(name: first, purpose: .fire(due: t0)), .success(reminder("r", every: "hourly"))), now: t0)
        _ = e.handle(.shown(jobID: "r", .success(())), now: t0)
        #expect(e.currentNames["r"] == next)
        let effects = e.handle(.operationFailed(.advance(from: first, to: next), FileSystemError(operation: "rename", path: "x", code: ENOENT)), now: t0)
        #expect(effects == [.armTimer(nil)])
        #expect(e.pendingCount == 0)
    }

    @Test func aJobCancelledWhileItsFileIsReadIsNotShown() {
        var e = engine()
        let a = name("a", t0)
        _ = e.handle(.started(jobs: [a], strays: []), now: t0)
        _ = e.handle(.jobsChanged([.removed(a.description)]), now: t0)
        let effects = e.handle(.loaded(LoadRequest(name: a, purpose: .fire(due: t0)), .success(reminder("a", at: t0))), now: t0)
        #expect(!effects.contains { if case .show = $0 { return true } else { return false } })
        #expect(e.pendingCount == 0)
    }

    /// A batch is filed in parts; each part's jobs are scheduled as soon as they are accepted
    /// (read and checked), and the batch leaves new/ only after every part is filed.
    @Test func aBatchIsScheduledPartByPartAndRemovedWhenWhole() {
        var e = engine()
        _ = e.handle(.started(jobs: [], strays: []), now: t0)
        let part1 = [candidate("b1", t0 + .seconds(1)), candidate("b2", t0 + .seconds(2))]
        let part2 = [candidate("b3", t0 + .seconds(3))]
        let filing1 = e.handle(.intakeRead([.batch(BatchPart(file: ".filing-x.jsonl", candidates: part1, total: 3, isFirst: true, isLast: false))]), now: t0)
        guard case .file(let plan1)? = filing1.first else { Issue.record("no filing: \(filing1)"); return }
        #expect(plan1.writes.map(\.name.id) == ["b1", "b2"] && plan1.batch == ".filing-x.jsonl" && !plan1.isLastPart)
        #expect(e.pendingCount == 2 && e.nextWakeup() == t0 + .seconds(1))  // accepted, not yet on disk: scheduled
        var result = FilingResult()
        result.filed = plan1.writes.map(\.name)
        result.batch = ".filing-x.jsonl"
        #expect(e.handle(.filed(result), now: t0).filter { if case .armTimer = $0 { true } else { false } }.isEmpty)
        #expect(e.nextWakeup() == t0 + .seconds(1))
        guard case .file(let plan2)? = e.handle(.intakeRead([.batch(BatchPart(file: ".filing-x.jsonl", candidates: part2, total: 3, isFirst: false, isLast: true))]), now: t0).first
        else { Issue.record("no filing for part 2"); return }
        var last = FilingResult()
        last.filed = plan2.writes.map(\.name)
        last.batch = ".filing-x.jsonl"
        last.isLastPart = true
        guard case .file(let removal)? = e.handle(.filed(last), now: t0).first else { Issue.record("batch not removed"); return }
        #expect(removal.removeBatch == ".filing-x.jsonl" && removal.writes.isEmpty)
        #expect(e.pendingCount == 3)
    }

    @Test func aBatchPastTheLimitIsRefusedWhole() {
        var config = HeraldConfig()
        config.maxJobs = 2
        var e = engine(config)
        _ = e.handle(.started(jobs: [], strays: []), now: t0)
        let effects = e.handle(.intakeRead([.batch(BatchPart(file: ".filing-big.jsonl", candidates: [candidate("a", t0), candidate("b", t0)], total: 3, isFirst: true, isLast: false))]), now: t0)
        #expect(history(effects) == [.failed])
        guard case .file(let plan)? = effects.last else { Issue.record("no refusal: \(effects)"); return }
        #expect(plan.refusals.map(\.file) == [".filing-big.jsonl"] && plan.writes.isEmpty)
        #expect(e.handle(.intakeRead([.batch(BatchPart(file: ".filing-big.jsonl", candidates: [candidate("c", t0)], total: 3, isFirst: false, isLast: true))]),
                         now: t0).isEmpty)
        #expect(e.pendingCount == 0)
    }

    /// The job due next is read ahead, so at its time the popup goes out in the same step;
    /// a habit is read again when due (its log may change meanwhile).
    @Test func theJobDueNextIsReadAheadAndShownWithoutWaiting() {
        var e = engine()
        let a = name("a", t0 + .minutes(2))
        #expect(e.handle(.started(jobs: [a], strays: []), now: t0).contains(.load(LoadRequest(name: a, purpose: .readAhead))))
        #expect(e.handle(.loaded(LoadRequest(name: a, purpose: .readAhead), .success(reminder("a", at: a.fireAt))), now: t0).isEmpty)
        guard case .show(let request)? = e.handle(.timerFired, now: a.fireAt).first else { Issue.record("not shown at once"); return }
        #expect(request.jobID == "a")

        var h = engine()
        let habit = name("h", t0 + .minutes(2))
        _ = h.handle(.started(jobs: [habit], strays: []), now: t0)
        let log = HabitLog.Contents(days: [], problems: [])
        _ = h.handle(.loaded(LoadRequest(name: habit, purpose: .readAhead),
                             .success(LoadedJob(job: Job(kind: .habit, every: "hourly", title: "Water"), habitLog: log))), now: t0)
        #expect(h.handle(.timerFired, now: habit.fireAt).first == .load(LoadRequest(name: habit, purpose: .fire(due: habit.fireAt))))
    }

    @Test func aSnoozeButtonMovesTheJobAndRearmsTheTimer() {
        var config = HeraldConfig()
        config.snooze = .minutes(10)
        var e = engine(config)
        let next = name("h", t0 + .minutes(60))
        _ = e.handle(.started(jobs: [next], strays: []), now: t0)
        let effects = e.handle(.popup(.action(NotificationAction(jobID: "h", occurrence: t0, action: .snooze(nil)))), now: t0)
        let snoozed = name("h", t0, snoozed: t0 + .minutes(10))
        #expect(effects == [.spool(.advance(from: next, to: snoozed)), .load(LoadRequest(name: snoozed, purpose: .readAhead)),
                            .armTimer(t0 + .minutes(10))])
    }

    @Test func aFailingServerHoldsPopupsAndRetriesWithBackoff() {
        var e = engine()
        let a = name("a", t0)
        _ = e.handle(.started(jobs: [a], strays: []), now: t0)
        _ = e.handle(.loaded(LoadRequest(name: a, purpose: .fire(due: t0)), .success(reminder("a", at: t0))), now: t0)
        let failed = e.handle(.shown(jobID: "a", .failure(NotifierError(.noServer, detail: ""))), now: t0)
        #expect(failed == [.armTimer(t0 + .seconds(1))])
        #expect(e.isBlocked && e.lastError?.kind == .noServer)
        #expect(e.handle(.timerFired, now: t0 + .seconds(1)).first == .load(LoadRequest(name: a, purpose: .fire(due: t0))))
    }

    /// Set back an hour just before a job is due: nothing fires until the wall clock gets there.
    @Test func aClockSetBackFiresNothingEarly() {
        var e = engine()
        _ = e.handle(.started(jobs: [name("a", t0 + .seconds(10))], strays: []), now: t0)
        #expect(e.handle(.clockChanged, now: t0 - .minutes(60)).isEmpty)
        #expect(e.nextWakeup() == t0 + .seconds(10))
    }

    // MARK: races with other writers and with late reports

    /// After an overflow, jobs/ is listed on the spool queue while the engine moves on: a job
    /// that fired and moved since the listing was asked for is not forgotten, nor its old name
    /// taken back.
    @Test func aListingTakenBeforeARenameDoesNotUndoIt() {
        var e = engine()
        let first = name("r", t0 + .minutes(60)), next = name("r", t0 + .minutes(120))
        _ = e.handle(.started(jobs: [first], strays: []), now: t0)
        #expect(e.handle(.watchOverflowed, now: t0).contains(.listJobs))
        _ = e.handle(.loaded(LoadRequest(name: first, purpose: .readAhead), .success(reminder("r", every: "hourly"))), now: t0)
        #expect(e.handle(.timerFired, now: first.fireAt).first.map { if case .show = $0 { true } else { false } } == true)
        _ = e.handle(.shown(jobID: "r", .success(())), now: first.fireAt)
        #expect(e.currentNames["r"] == next)
        _ = e.handle(.jobsListed([first]), now: first.fireAt)  // listed before the rename landed
        #expect(e.currentNames["r"] == next && e.nextWakeup() == next.fireAt)
        #expect(e.handle(.jobsChanged([.removed(first.description), .added(next.description)]), now: first.fireAt).isEmpty)
    }

    /// `herald snooze` renamed a job that had landed in jobs/ before the engine heard it was filed.
    @Test func aJobSnoozedBeforeItsFilingIsReportedKeepsTheSnooze() {
        var e = engine()
        _ = e.handle(.started(jobs: [], strays: []), now: t0)
        _ = e.handle(.intakeRead([.single(file: "x.json", candidate("x", t0 + .minutes(5)))]), now: t0)
        let filed = name("x", t0 + .minutes(5)), snoozed = name("x", t0 + .minutes(5), snoozed: t0 + .minutes(30))
        _ = e.handle(.jobsChanged([.added(filed.description), .removed(filed.description), .added(snoozed.description)]), now: t0)
        var result = FilingResult()
        result.filed = [filed]
        _ = e.handle(.filed(result), now: t0)
        #expect(e.currentNames["x"] == snoozed && e.nextWakeup() == snoozed.fireAt)
    }

    /// A file of new/ read twice (two events name it) is taken once: the second reading is
    /// neither accepted nor refused, and the file is looked at again once the first is filed.
    @Test func aFileReadTwiceIsTakenOnceAndLookedAtAgainWhenFiled() {
        var e = engine()
        _ = e.handle(.started(jobs: [], strays: []), now: t0)
        let x = candidate("x", t0 + .minutes(5))
        // Twice in one reading: one move, no refusal, no failed line.
        let both = e.handle(.intakeRead([.single(file: "x.json", x), .single(file: "x.json", x)]), now: t0)
        guard case .file(let plan)? = both.first(where: { if case .file = $0 { true } else { false } }) else { Issue.record("not filed"); return }
        #expect(plan.moves.map(\.file) == ["x.json"] && plan.refusals.isEmpty)
        #expect(!history(both).contains(.failed))
        // Again in a later reading, before the move is done: nothing.
        let again = e.handle(.intakeRead([.single(file: "x.json", x)]), now: t0)
        #expect(!again.contains { if case .file = $0 { true } else { false } } && !history(again).contains(.failed))
        #expect(e.pendingCount == 1)
        var result = FilingResult()
        result.filed = [name("x", t0 + .minutes(5))]
        result.settledFiles = ["x.json"]
        let done = e.handle(.filed(result), now: t0)
        #expect(done.contains { if case .readIntake(let r) = $0 { r.names == ["x.json"] } else { false } })
        // Once filed, a new file of that name is read as any other (here: its id is taken).
        let later = e.handle(.intakeRead([.single(file: "x.json", x)]), now: t0)
        #expect(history(later) == [.failed])
    }

    /// A reading that reaches the engine after the first one's move was done (its request went
    /// on reading other files) read the file that is the job's now: it decides nothing. A file
    /// put under that name since (another inode) is read as any other.
    @Test func aReadingOfAFileAlreadyMovedDecidesNothing() {
        var e = engine()
        _ = e.handle(.started(jobs: [], strays: []), now: t0)
        var x = candidate("x", t0 + .minutes(5))
        x.inode = 7
        guard case .file(let plan)? = e.handle(.intakeRead([.single(file: "x.json", x)]), now: t0).first(where: { if case .file = $0 { true } else { false } }) else {
            Issue.record("not filed"); return
        }
        #expect(plan.moves.map(\.inode) == [7])
        var result = FilingResult()
        result.filed = [name("x", t0 + .minutes(5))]
        result.settledFiles = ["x.json"]
        #expect(!e.handle(.filed(result), now: t0).contains { if case .readIntake = $0 { true } else { false } })
        let stale = e.handle(.intakeRead([.single(file: "x.json", x)]), now: t0)
        #expect(stale.isEmpty || !stale.contains { if case .file = $0 { true } else { false } })
        #expect(!history(stale).contains(.failed))
        x.inode = 8
        #expect(history(e.handle(.intakeRead([.single(file: "x.json", x)]), now: t0)) == [.failed])
    }

    /// A file whose move failed (the disk, say) is still in new/: its next reading is decided
    /// on, not taken for a late reading of a file already moved.
    @Test func aFileWhoseMoveFailedIsReadAgainAtItsNextEvent() {
        var e = engine()
        _ = e.handle(.started(jobs: [], strays: []), now: t0)
        var x = candidate("x", t0 + .minutes(5))
        x.inode = 7
        _ = e.handle(.intakeRead([.single(file: "x.json", x)]), now: t0)
        var result = FilingResult()
        result.failed = [name("x", t0 + .minutes(5))]
        result.settledFiles = ["x.json"]
        _ = e.handle(.filed(result), now: t0)
        #expect(e.pendingCount == 0)
        let next = e.handle(.intakeRead([.single(file: "x.json", x)]), now: t0)
        #expect(next.contains { if case .file(let plan) = $0 { plan.moves.map(\.file) == ["x.json"] } else { false } })
        #expect(e.pendingCount == 1)
    }

    /// A claimed batch seen twice at start (by the first read and by inotify) is filed once.
    @Test func aBatchReadTwiceWhileFilingIsFiledOnce() {
        var e = engine()
        _ = e.handle(.started(jobs: [], strays: []), now: t0)
        let part = BatchPart(file: ".filing-x.jsonl", candidates: [candidate("a", t0 + .minutes(1))], total: 1, isFirst: true, isLast: true)
        guard case .file(let plan)? = e.handle(.intakeRead([.batch(part)]), now: t0).first else { Issue.record("not filed"); return }
        #expect(plan.writes.count == 1)
        #expect(!e.handle(.intakeRead([.batch(part)]), now: t0).contains { if case .file = $0 { return true } else { return false } })
        #expect(e.pendingCount == 1)
    }

    /// A batch claimed before a restart was admitted then: it is not measured against the
    /// limit again (its filed jobs already count), and a batch waiting for its name is read
    /// once the one before is done.
    @Test func aResumedBatchIsNotRefusedForItsOwnJobsAndAWaitingOneFollows() {
        var config = HeraldConfig()
        config.maxJobs = 3
        var e = engine(config)
        let a = name("a", t0 + .minutes(1)), b = name("b", t0 + .minutes(2))
        _ = e.handle(.started(jobs: [a, b], strays: []), now: t0)
        _ = e.handle(.intakeRead([.waiting(file: "x.jsonl")]), now: t0)
        let part = BatchPart(file: ".filing-x.jsonl", candidates: [candidate("a", a.fireAt), candidate("b", b.fireAt), candidate("c", t0)],
                             total: 3, isFirst: true, isLast: true, resumed: true)
        guard case .file(let plan)? = e.handle(.intakeRead([.batch(part)]), now: t0).first else { Issue.record("refused"); return }
        #expect(plan.writes.map(\.name.id) == ["c"] && plan.refusals.isEmpty)
        var filed = FilingResult()
        filed.filed = plan.writes.map(\.name)
        filed.batch = part.file
        filed.isLastPart = true
        guard case .file(let removal)? = e.handle(.filed(filed), now: t0).first else { Issue.record("not removed"); return }
        var removed = FilingResult()
        removed.removedBatch = removal.removeBatch
        #expect(e.handle(.filed(removed), now: t0).contains(.readIntake(IntakeRequest(names: ["x.jsonl"], localZone: .utc,
                                                                                       defaultLead: .minutes(15)))))
    }

    // MARK: a job's record, phase by phase

    /// Answers each `.fire` read the engine asks for with a one-shot reminder due then, until
    /// it asks for none; returns the effects of the last answer.
    /// Answers every document read asked for (the outbox hands out several at once), and the
    /// reads those answers ask for; the effects of the answers, in order. Reads ahead too when
    /// `readsAhead`, as the daemon does.
    func answerLoads(_ e: inout Engine, _ effects: [EngineEffect], now: Instant, readsAhead: Bool = false) -> [EngineEffect] {
        func fireLoads(_ effects: [EngineEffect]) -> [LoadRequest] {
            effects.compactMap { if case .load(let r) = $0, readsAhead || r.purpose != .readAhead { r } else { nil } }
        }
        var waiting = fireLoads(effects)
        guard !waiting.isEmpty else { return effects }
        var answered: [EngineEffect] = []
        while !waiting.isEmpty {
            let request = waiting.removeFirst()
            let last = e.handle(.loaded(request, .success(reminder(request.id, at: request.name.occurrence))), now: now)
            answered += last
            waiting += fireLoads(last)
        }
        return answered
    }

    /// Filing → due while filing → filed: it fires the moment its file is in jobs/, and not
    /// before (its document is read from there).
    @Test func aJobDueWhileItIsFiledFiresOnceFiled() {
        var e = engine()
        _ = e.handle(.started(jobs: [], strays: []), now: t0)
        let due = t0 + .seconds(1)
        let part = BatchPart(file: ".filing-x.jsonl", candidates: [candidate("late", t0 + .minutes(9)), candidate("soon", due)],
                             total: 2, isFirst: true, isLast: true)
        guard case .file(let plan)? = e.handle(.intakeRead([.batch(part)]), now: t0).first else { Issue.record("not filed"); return }
        #expect(e.nextWakeup() == due)
        let early = e.handle(.timerFired, now: due + .seconds(2))
        #expect(!early.contains { if case .load = $0 { true } else { false } })  // not in jobs/ yet
        var result = FilingResult()
        result.filed = plan.writes.map(\.name)
        result.batch = part.file
        let filed = e.handle(.filed(result), now: due + .seconds(3))
        #expect(filed.contains(.load(LoadRequest(name: name("soon", due), purpose: .fire(due: due)))))
        #expect(!filed.contains { if case .load(let r) = $0 { r.id == "late" && r.purpose != .readAhead } else { false } })
    }

    /// Filing → the file could not be written: the job is forgotten, never fired.
    @Test func aJobThatCannotBeFiledIsForgotten() {
        var e = engine()
        _ = e.handle(.started(jobs: [], strays: []), now: t0)
        _ = e.handle(.intakeRead([.single(file: "x.json", candidate("x", t0 + .minutes(1)))]), now: t0)
        #expect(e.pendingCount == 1 && e.nextWakeup() == t0 + .minutes(1))
        var result = FilingResult()
        result.failed = [name("x", t0 + .minutes(1))]
        _ = e.handle(.filed(result), now: t0)
        #expect(e.pendingCount == 0 && e.nextWakeup() == nil)
        #expect(e.handle(.timerFired, now: t0 + .minutes(2)).isEmpty)
    }

    /// Idle → loading → showing → idle with a popup on screen; a server that goes away takes the
    /// popup with it, so a button from the old one ends nothing and a close from it is ignored.
    @Test func aServerGoneForgetsEveryPopup() {
        var e = engine()
        let a = name("a", t0)
        _ = e.handle(.started(jobs: [a], strays: []), now: t0)
        _ = e.handle(.loaded(LoadRequest(name: a, purpose: .fire(due: t0)), .success(reminder("a", every: "hourly"))), now: t0)
        _ = e.handle(.shown(jobID: "a", .success(())), now: t0)
        _ = e.handle(.serverGone, now: t0 + .seconds(5))
        #expect(history(e.handle(.popup(.closed(jobID: "a", occurrence: t0, .dismissed)), now: t0 + .seconds(6))).isEmpty)
        #expect(history(e.handle(.popup(.action(NotificationAction(jobID: "a", occurrence: t0, action: .gotIt))), now: t0 + .seconds(7))).isEmpty)
        #expect(e.currentNames["a"] == name("a", t0 + .minutes(60)))
    }

    /// A burst due at one instant: the outbox's window of popups handed out, the documents of
    /// the next jobs waiting their turn read ahead, so each answer hands out the next with no
    /// read in between; one whose turn comes while its read ahead is under way is served by
    /// that read.
    @Test func aBurstReadsAheadAndShowsEachAsSoonAsTheOneBefore() {
        var e = engine()
        let window = Outbox.Policy().window
        func isShow(_ effect: EngineEffect, of id: String) -> Bool { if case .show(let n) = effect { n.jobID == id } else { false } }
        func isFireLoad(_ effect: EngineEffect) -> Bool { if case .load(let r) = effect, case .fire = r.purpose { true } else { false } }
        let started = e.handle(.started(jobs: (0..<(window + Engine.readAheadDepth + 8)).map { name("j\($0)", t0) }, strays: []), now: t0)
        let loads = started.compactMap { effect -> LoadRequest? in if case .load(let r) = effect { r } else { nil } }
        let fires = loads.filter { if case .fire = $0.purpose { true } else { false } }
        let ahead = loads.filter { if case .readAhead = $0.purpose { true } else { false } }
        #expect(fires.count == window)
        #expect(ahead.count == Engine.readAheadDepth)
        guard fires.count == window, ahead.count > 2 else { return }
        // Every read ahead answered but the first waiting job's, whose turn comes next.
        for r in ahead.dropFirst() { _ = e.handle(.loaded(r, .success(reminder(r.id, at: t0))), now: t0) }
        for fire in fires {
            #expect(e.handle(.loaded(fire, .success(reminder(fire.id, at: t0))), now: t0).contains { isShow($0, of: fire.id) })
        }
        let turn = e.handle(.shown(jobID: fires[0].id, .success(())), now: t0)
        let forTurn = LoadRequest(name: ahead[0].name, purpose: .fire(due: t0))
        #expect(turn.contains(.load(forTurn)))
        #expect(e.handle(.loaded(ahead[0], .success(reminder(ahead[0].id, at: t0))), now: t0).contains { isShow($0, of: ahead[0].id) })
        #expect(!e.handle(.loaded(forTurn, .success(reminder(ahead[0].id, at: t0))), now: t0).contains { isShow($0, of: ahead[0].id) })
        // The rest go out one per answer, each straight from its read ahead.
        var inFlight = fires.dropFirst().map(\.id) + [ahead[0].id]
        for r in ahead.dropFirst() {
            let effects = e.handle(.shown(jobID: inFlight.removeFirst(), .success(())), now: t0)
            #expect(effects.contains { isShow($0, of: r.id) })
            #expect(!effects.contains(where: isFireLoad))
            inFlight.append(r.id)
        }
    }

    /// A burst on a server that keeps three popups per app (GNOME Shell): popups handed out
    /// together count as on screen, so two are shown and the rest wait for one summary, as
    /// when popups went out one at a time; none is pushed off screen unseen.
    @Test func aBurstOnAServerThatKeepsThreeLeavesRoomForTheSummary() {
        var e = engine()
        _ = e.handle(.serverDescribed(ServerTraits(label: "GNOME Shell", perAppLimit: 3)), now: t0)
        let started = e.handle(.started(jobs: (0..<8).map { name("j\($0)", t0) }, strays: []), now: t0)
        var shown: [String] = []
        var effects = answerLoads(&e, started, now: t0, readsAhead: true)
        for _ in 0..<20 {
            let requests = effects.compactMap { if case .show(let r) = $0 { r } else { nil } }
            guard !requests.isEmpty else { break }
            effects = []
            for request in requests {
                shown.append(request.jobID)
                effects += answerLoads(&e, e.handle(.shown(jobID: request.jobID, .success(())), now: t0), now: t0, readsAhead: true)
            }
        }
        #expect(shown.count == 3, "\(shown)")
        #expect(shown.last == PopupSubject.summaryKey)
        #expect(e.pendingCount == 0, "left: \(e.currentNames)")
    }

    /// Idle → held (a crowd overdue after a break) → summarised → the server fails → held
    /// again → summarised and recorded once the server is back. Each job is recorded once.
    @Test func aCrowdAfterABreakIsHeldSummarisedAndHeldAgainOnFailure() {
        var e = engine()
        let names = ["a", "b", "c", "d"].map { name($0, t0 - .seconds(30)) }
        let started = e.handle(.started(jobs: names, strays: []), now: t0)
        // The outbox's window handed out; the others' documents are read ahead.
        let handed = min(Outbox.Policy().window, 4)
        #expect(started.filter { if case .load(let r) = $0, case .fire = r.purpose { true } else { false } }.count == handed)
        #expect(started.filter { if case .load(let r) = $0, case .readAhead = r.purpose { true } else { false } }.count == 4 - handed)
        let effects = answerLoads(&e, started, now: t0)
        guard case .show(let summary)? = effects.first(where: { if case .show = $0 { true } else { false } }) else {
            Issue.record("no summary: \(effects)"); return
        }
        #expect(summary.jobID == PopupSubject.summaryKey)
        #expect(e.handle(.shown(jobID: summary.jobID, .failure(NotifierError(.noServer, detail: ""))), now: t0).contains(.armTimer(t0 + .seconds(1))))
        #expect(e.pendingCount == 4)
        let again = e.handle(.timerFired, now: t0 + .seconds(1))
        guard case .show(let retried)? = again.first else { Issue.record("not retried: \(again)"); return }
        #expect(retried.jobID == PopupSubject.summaryKey)
        let recorded = e.handle(.shown(jobID: retried.jobID, .success(())), now: t0 + .seconds(1))
        #expect(history(recorded) == [.shown, .shown, .shown, .shown])
        #expect(e.pendingCount == 0)
    }

    /// Held for the summary, then snoozed from the CLI: the snooze wins, and the summary
    /// leaves the job out.
    @Test func aHeldJobChangedFromOutsideLeavesTheSummary() {
        var e = engine()
        _ = e.handle(.quietSwitched(QuietSwitch(since: t0 - .minutes(1), until: t0 + .minutes(10))), now: t0)
        let a = name("a", t0), b = name("b", t0)
        _ = answerLoads(&e, e.handle(.started(jobs: [a, b], strays: []), now: t0), now: t0)
        #expect(e.nextWakeup() == t0 + .minutes(10))
        let snoozed = name("a", t0, snoozed: t0 + .minutes(60))
        _ = e.handle(.jobsChanged([.removed(a.description), .added(snoozed.description)]), now: t0 + .minutes(1))
        let end = e.handle(.timerFired, now: t0 + .minutes(10))
        guard case .show(let summary)? = end.first else { Issue.record("no summary: \(end)"); return }
        #expect(summary.jobID == PopupSubject.summaryKey)
        let recorded = e.handle(.shown(jobID: summary.jobID, .success(())), now: t0 + .minutes(10))
        #expect(history(recorded) == [.shown])  // b only
        #expect(e.currentNames == ["a": snoozed])
    }

    /// A finished one-shot's popup stays known (its record outlives its file): Snooze on it
    /// brings the job back from done/.
    @Test func aFinishedOneShotsPopupCanStillSnooze() {
        var e = engine()
        let a = name("a", t0)
        _ = e.handle(.started(jobs: [a], strays: []), now: t0)
        _ = e.handle(.loaded(LoadRequest(name: a, purpose: .fire(due: t0)), .success(reminder("a", at: t0))), now: t0)
        #expect(e.handle(.shown(jobID: "a", .success(())), now: t0).contains(.spool(.finish(a))))
        #expect(e.pendingCount == 0)
        let snoozed = e.handle(.popup(.action(NotificationAction(jobID: "a", occurrence: t0, action: .snooze(.minutes(5))))), now: t0 + .seconds(10))
        #expect(history(snoozed) == [.snoozed])
        #expect(snoozed.contains(.spool(.restore(from: a, to: name("a", t0, snoozed: t0 + .seconds(10) + .minutes(5))))))
        #expect(e.pendingCount == 1)
    }

    // MARK: the notification server goes away

    func isShow(_ effect: EngineEffect) -> Bool { if case .show = effect { return true } else { return false } }

    /// A new server numbers its popups afresh: the old popups' closings and buttons are not
    /// heard, and a repeat is a new popup, not a replacement.
    @Test func aServerThatWentAwayTookItsPopupsWithIt() {
        var e = engine()
        let a = name("a", t0)
        let job = LoadedJob(job: Job(kind: .reminder, id: "a", at: t0, text: "a", repeat: .minutes(1)))
        _ = e.handle(.started(jobs: [a], strays: []), now: t0)
        _ = e.handle(.loaded(LoadRequest(name: a, purpose: .fire(due: t0)), .success(job)), now: t0)
        #expect(history(e.handle(.shown(jobID: "a", .success(())), now: t0)) == [.shown])
        #expect(e.handle(.serverGone, now: t0 + .seconds(10)).isEmpty)
        #expect(e.handle(.popup(.closed(jobID: "a", occurrence: t0, .dismissed)), now: t0 + .seconds(20)).isEmpty)
        #expect(history(e.handle(.popup(.action(NotificationAction(jobID: "a", occurrence: t0, action: .done))), now: t0 + .seconds(20))).isEmpty)
        _ = e.handle(.serverAppeared, now: t0 + .seconds(30))
        let again = name("a", t0, snoozed: t0 + .minutes(1))
        #expect(e.currentNames["a"] == again)  // still repeating: nothing acknowledged it
        _ = e.handle(.timerFired, now: again.fireAt)
        _ = e.handle(.loaded(LoadRequest(name: again, purpose: .fire(due: again.fireAt)), .success(job)), now: again.fireAt)
        #expect(history(e.handle(.shown(jobID: "a", .success(())), now: again.fireAt)) == [.shown])  // not "replaced"
        let closed = e.handle(.popup(.closed(jobID: "a", occurrence: t0, .dismissed)), now: again.fireAt + .seconds(5))
        #expect(history(closed) == [.dismissed])  // the new popup is heard
    }

    /// A popup on its way when the server goes is shown by the next one: recorded, and on screen.
    @Test func aPopupBeingShownWhenTheServerGoesIsStillRecorded() {
        var e = engine()
        let a = name("a", t0)
        _ = e.handle(.started(jobs: [a], strays: []), now: t0)
        #expect(e.handle(.loaded(LoadRequest(name: a, purpose: .fire(due: t0)), .success(reminder("a", at: t0))), now: t0).contains(where: isShow))
        _ = e.handle(.serverGone, now: t0)
        _ = e.handle(.serverAppeared, now: t0)
        #expect(history(e.handle(.shown(jobID: "a", .success(())), now: t0)) == [.shown])
        #expect(history(e.handle(.popup(.closed(jobID: "a", occurrence: t0, .expired)), now: t0 + .seconds(5))) == [.expired])
    }

    /// A server started by a popup (D-Bus activation) says it took the name after showing it:
    /// that popup is its own and stays known.
    @Test func aServerAppearingKeepsThePopupsItAlreadyShows() {
        var e = engine()
        let a = name("a", t0)
        _ = e.handle(.started(jobs: [a], strays: []), now: t0)
        _ = e.handle(.loaded(LoadRequest(name: a, purpose: .fire(due: t0)), .success(reminder("a", at: t0))), now: t0)
        _ = e.handle(.shown(jobID: "a", .success(())), now: t0)
        _ = e.handle(.serverAppeared, now: t0)
        #expect(history(e.handle(.popup(.closed(jobID: "a", occurrence: t0, .dismissed)), now: t0 + .seconds(5))) == [.dismissed])
    }

    /// "+1" pressed just before the server went: the amount is recorded, but the popup it would
    /// have redrawn is gone, so none is shown.
    @Test func aPlusOneWhosePopupWentWithTheServerIsRecordedNotShown() throws {
        var e = engine()
        let h = name("h", t0)
        var water = Job(kind: .habit, id: "h", every: "*-*-* 08:00", text: "Water")
        water.target = HabitTarget(amount: 8, unit: "glasses")
        let habit = LoadedJob(job: water, habitLog: .init())
        _ = e.handle(.started(jobs: [h], strays: []), now: t0)
        #expect(e.handle(.loaded(LoadRequest(name: h, purpose: .fire(due: t0)), .success(habit)), now: t0).contains(where: isShow))
        _ = e.handle(.shown(jobID: "h", .success(())), now: t0)
        let pending = try #require(e.currentNames["h"])
        let press = e.handle(.popup(.action(NotificationAction(jobID: "h", occurrence: t0, action: .add(1)))), now: t0 + .seconds(5))
        let read = LoadRequest(name: pending, purpose: .action(.add(1), occurrence: t0))
        #expect(press.first == .load(read))
        _ = e.handle(.serverGone, now: t0 + .seconds(5))
        let added = e.handle(.loaded(read, .success(habit)), now: t0 + .seconds(5))
        #expect(added.contains { if case .spool(.appendHabitLog(id: "h", _)) = $0 { return true } else { return false } })
        #expect(!added.contains(where: isShow))
    }
}
