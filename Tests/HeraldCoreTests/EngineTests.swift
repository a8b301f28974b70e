import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// The daemon's logic against a real temporary spool, a manual clock and a recording notifier.
struct EngineTests {
    let dir = TemporaryDirectory()
    let clock = ManualClock(Instant(seconds: 1_795_352_700))
    let logs = MemoryLogHandlerBox()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    func makeEngine(_ config: HeraldConfig = HeraldConfig()) -> EngineDriver {
        EngineDriver(spool: spool, config: config, clock: clock, logger: logs.logger(level: .info))
    }

    /// What `body` showed, with `notifier` answering for the driver.
    @discardableResult
    func run(_ body: @autoclosure () throws -> [NotificationRequest], on driver: EngineDriver,
             notifier: RecordingNotifier) rethrows -> [NotificationRequest] {
        driver.notifier = notifier
        return try body()
    }

    func submit(_ job: Job) throws {
        try spool.prepare()
        try spool.submit(job)
    }

    func history() -> [HistoryRecord] {
        let text = (try? String(contentsOfFile: spool.historyPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { HistoryRecord(jsonLine: $0) }
    }

    @Test func firesAReminderWhenItIsDue() throws {
        let due = clock.now + .seconds(10)
        try submit(Job(kind: .reminder, id: "r1", at: due, text: "Stretch"))
        let engine = makeEngine()
        let notifier = RecordingNotifier()
        #expect(try run(try engine.start(), on: engine, notifier: notifier).isEmpty)
        #expect(files(in: spool.jobs) == ["r1@\(due.microseconds).json"])
        #expect(engine.nextWakeup() == due)
        clock.advance(by: .seconds(9))
        #expect(engine.tick().isEmpty)
        clock.set(due)
        let shown = run(engine.tick(), on: engine, notifier: notifier)
        #expect(shown.map(\.summary) == ["Stretch"])
        #expect(files(in: spool.jobs).isEmpty)
        #expect(files(in: spool.done) == ["r1@\(due.microseconds).json"])
        #expect(history().map(\.outcome) == [.shown])
        #expect(engine.nextWakeup() == nil)
    }

    @Test func aDeliveryFiresItsHeadsUpThenItsArrival() throws {
        var config = HeraldConfig()
        config.profile = .init(name: "Alice", address: "12 Elm St")
        let arrival = clock.now + .minutes(30)
        try submit(Job(kind: .delivery, id: "d1", at: arrival, items: [.init(name: "milk", quantity: 2)], lead: .minutes(15)))
        let engine = makeEngine(config)
        let notifier = RecordingNotifier()
        _ = try engine.start()
        #expect(engine.nextWakeup() == arrival - .minutes(15))
        clock.set(arrival - .minutes(15))
        #expect(run(engine.tick(), on: engine, notifier: notifier).map(\.summary) == ["Delivery in 15 min"])
        #expect(files(in: spool.jobs) == ["d1@\(arrival.microseconds).json"])
        clock.set(arrival)
        let arrivalPopup = run(engine.tick(), on: engine, notifier: notifier)
        #expect(arrivalPopup.map(\.body) == ["Alice, your order is arriving at 12 Elm St now.\n2 items: milk ×2"])
        #expect(files(in: spool.done) == ["d1@\(arrival.microseconds).json"])
        #expect(history().map(\.role) == [.headsUp, .headsUp, .arrival])
        #expect(history().map(\.outcome) == [.shown, .replaced, .shown])  // the arrival took the heads-up's place
    }

    @Test func aPastHeadsUpFiresAtOnceWithTheMinutesLeft() throws {
        try submit(Job(kind: .delivery, id: "d2", at: clock.now + .minutes(4), recipient: .init(name: "A", address: "B"), lead: .minutes(15)))
        let engine = makeEngine()
        let shown = try run(try engine.start(), on: engine, notifier: RecordingNotifier())
        #expect(shown.map(\.summary) == ["Delivery in 4 min"])
    }

    @Test func aHeadsUpAfterTheArrivalIsSkipped() throws {
        try submit(Job(kind: .delivery, id: "d3", at: clock.now - .minutes(1), recipient: .init(name: "A", address: "B"), lead: .minutes(15)))
        let engine = makeEngine()
        let shown = try run(try engine.start(), on: engine, notifier: RecordingNotifier())
        #expect(shown.map(\.summary) == ["Your delivery is here"])
        #expect(history().map(\.outcome) == [.skipped, .shown])
    }

    @Test func badFilesGoToFailedAndOthersStillFire() throws {
        try spool.prepare()
        dir.write("spool/new/broken.json", "{\"version\":1,")
        dir.write("spool/new/unknown.json", "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T10:00Z\",\"text\":\"x\",\"x\":1}")
        dir.write("spool/new/shared.json", Job(kind: .reminder, at: clock.now, text: "x").encoded(), mode: 0o666)
        try spool.submit(Job(kind: .reminder, id: "good", at: clock.now, text: "still fires"))
        let engine = makeEngine()
        let shown = try run(try engine.start(), on: engine, notifier: RecordingNotifier())
        #expect(shown.map(\.summary) == ["still fires"])
        #expect(files(in: spool.failed) == ["broken.json", "broken.json.reason", "shared.json", "shared.json.reason",
                                            "unknown.json", "unknown.json.reason"])
        let reason = try String(contentsOfFile: spool.failed + "/unknown.json.reason", encoding: .utf8)
        #expect(reason.hasSuffix("new/unknown.json: unknown field 'x'\n"))
        #expect(logs.lines.contains { $0.hasPrefix("warning: Bad job file moved to failed/") && $0.contains("file=new/shared.json") })
    }

    @Test func aFailedShowKeepsTheJobAndRetriesWithBackoff() throws {
        try submit(Job(kind: .reminder, id: "r2", at: clock.now, text: "Retry me"))
        let engine = makeEngine()
        let notifier = RecordingNotifier()
        notifier.failure = NotifierError(.noServer, detail: "org.freedesktop.DBus.Error.ServiceUnknown")
        #expect(try run(try engine.start(), on: engine, notifier: notifier).isEmpty)
        #expect(files(in: spool.jobs).count == 1)
        #expect(engine.isBlocked)
        #expect(engine.lastError?.kind == .noServer)
        #expect(engine.nextWakeup() == clock.now + .seconds(1))
        clock.advance(by: .seconds(1))
        #expect(run(engine.tick(), on: engine, notifier: notifier).isEmpty)
        #expect(engine.nextWakeup() == clock.now + .seconds(2))
        notifier.failure = nil
        clock.advance(by: .seconds(2))
        #expect(run(engine.tick(), on: engine, notifier: notifier).map(\.summary) == ["Retry me"])
        #expect(engine.lastError == nil)
        #expect(files(in: spool.jobs).isEmpty)
        #expect(history().count == 1)
    }

    @Test func aCancelledJobNeverFires() throws {
        let due = clock.now + .seconds(5)
        try submit(Job(kind: .reminder, id: "c1", at: due, text: "Never"))
        let engine = makeEngine()
        _ = try engine.start()
        let name = try #require(spool.jobFiles().jobs.first)
        try spool.cancel(name)
        _ = engine.jobsChanged(removed: [name.description], added: [])
        clock.set(due + .seconds(1))
        #expect(engine.tick().isEmpty)
        #expect(engine.nextWakeup() == nil)
        #expect(files(in: spool.cancelled) == [name.description])
    }

    @Test func itsOwnRenamesAreNotMistakenForCancels() throws {
        let arrival = clock.now + .minutes(20)
        try submit(Job(kind: .delivery, id: "d4", at: arrival, recipient: .init(name: "A", address: "B"), lead: .minutes(15)))
        let engine = makeEngine()
        _ = try engine.start()
        clock.set(arrival - .minutes(15))
        run(engine.tick(), on: engine, notifier: RecordingNotifier())
        // inotify reports the engine's own rename afterwards:
        _ = engine.jobsChanged(removed: ["d4@\((arrival - .minutes(15)).microseconds).json"], added: ["d4@\(arrival.microseconds).json"])
        #expect(engine.nextWakeup() == arrival)
    }

    @Test func aRestartResumesFromTheSpool() throws {
        let arrival = clock.now + .minutes(20)
        try submit(Job(kind: .delivery, id: "d5", at: arrival, recipient: .init(name: "A", address: "B"), lead: .minutes(15)))
        do {
            let engine = makeEngine()
            _ = try engine.start()
            clock.set(arrival - .minutes(15))
            run(engine.tick(), on: engine, notifier: RecordingNotifier())
        }
        let restarted = makeEngine()
        #expect(try run(try restarted.start(), on: restarted, notifier: RecordingNotifier()).isEmpty)
        #expect(restarted.pendingCount == 1)
        #expect(restarted.nextWakeup() == arrival)
    }

    @Test func aBatchIsTakenInWhole() throws {
        try spool.prepare()
        let lines = (1...3).map { Job(kind: .reminder, id: "b\($0)", at: clock.now + .seconds(Int64($0)), text: "n\($0)").encoded() }
        try spool.submit(lines.joined(separator: "\n") + "\n", name: "import.jsonl")
        try spool.submit(lines[0] + "\n{\"version\":1}\n", name: "bad.jsonl")
        let engine = makeEngine()
        _ = try engine.start()
        #expect(engine.pendingCount == 3)
        #expect(files(in: spool.new).isEmpty)
        #expect(files(in: spool.failed) == ["bad.jsonl", "bad.jsonl.reason"])
        let reason = try String(contentsOfFile: spool.failed + "/bad.jsonl.reason", encoding: .utf8)
        #expect(reason.contains("line 2: missing field 'kind'"))
        clock.advance(by: .seconds(3))
        #expect(run(engine.tick(), on: engine, notifier: RecordingNotifier()).map(\.summary) == ["n1", "n2", "n3"])
    }

    /// A writer's umask may leave a job readable by others; once taken in it is the user's alone.
    @Test func jobFilesAreTakenInAsPrivateFiles() throws {
        try spool.prepare()
        let engine = makeEngine()
        _ = try engine.start()
        for (id, mode) in [("open", 0o644), ("private", 0o600), ("readonly", 0o400)] {
            let text = Job(kind: .reminder, id: id, at: clock.now + .minutes(5), text: id).encoded()
            dir.write("spool/new/\(id).json", text, mode: mode)
        }
        _ = engine.intake(names: files(in: spool.new))
        #expect(engine.pendingCount == 3)
        let modes = files(in: spool.jobs).map { mode(of: spool.jobs + "/" + $0) }
        #expect(modes == [0o600, 0o600, 0o600])
    }

    @Test func aDuplicateIDIsRefused() throws {
        try submit(Job(kind: .reminder, id: "same", at: clock.now + .seconds(60), text: "first"))
        let engine = makeEngine()
        _ = try engine.start()
        try spool.submit(Job(kind: .reminder, id: "same", at: clock.now + .seconds(60), text: "second"))
        _ = engine.intake(names: files(in: spool.new))
        #expect(engine.pendingCount == 1)
        #expect(files(in: spool.failed).count == 2)
    }

    @Test func infoLogsCarryNoPersonalData() throws {
        try spool.prepare()
        try spool.submit(Job(kind: .delivery, id: "p1", at: clock.now + .minutes(1), title: "Secret Title",
                             recipient: .init(name: "Zoë Private", address: "7 Hidden Lane"), lead: .minutes(15)))
        dir.write("spool/new/bad.json", "{\"version\":1,\"kind\":\"delivery\",\"at\":\"2026-11-22T10:00Z\",\"recipient\":\"Zoë Private\"}")
        let engine = makeEngine()
        try run(try engine.start(), on: engine, notifier: RecordingNotifier())
        clock.advance(by: .minutes(1))
        run(engine.tick(), on: engine, notifier: RecordingNotifier())
        #expect(logs.lines.count >= 4)
        for line in logs.lines {
            #expect(!line.contains("Zoë") && !line.contains("Hidden") && !line.contains("Secret"), "\(line)")
        }
    }
}

/// A batch heraldd had begun to file when it stopped.
struct ResumedBatchTests {
    let dir = TemporaryDirectory()
    let clock = ManualClock(Instant(seconds: 1_795_352_700))
    let logs = MemoryLogHandlerBox()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    /// Killed while filing: the jobs already filed stay, the one that fired and finished does
    /// not come back, the rest are filed, and the batch goes.
    @Test func aHalfFiledBatchIsFinishedWithoutShowingAnythingTwice() throws {
        try spool.prepare()
        let lines = (1...3).map { Job(kind: .reminder, id: "b\($0)", at: clock.now + .seconds(Int64($0)), text: "n\($0)").encoded() }
        dir.write("spool/new/.filing-import.jsonl", lines.joined(separator: "\n") + "\n")
        dir.write("spool/done/b1@\((clock.now + .seconds(1)).microseconds).json", lines[0])  // fired before the stop
        dir.write("spool/jobs/b2@\((clock.now + .seconds(2)).microseconds).json", lines[1])  // filed before the stop
        let driver = EngineDriver(spool: spool, clock: clock, logger: logs.logger())
        try driver.start()
        #expect(files(in: spool.new).isEmpty)
        #expect(Set(driver.pendingJobs.keys) == ["b2", "b3"])
        clock.advance(by: .seconds(3))
        #expect(driver.tick().map(\.summary) == ["n2", "n3"])
    }

    @Test func aNewBatchIsHiddenWhileItIsFiled() throws {
        try spool.prepare()
        try spool.submit(Job(kind: .reminder, id: "x1", at: clock.now + .seconds(60), text: "x").encoded() + "\n", name: "x.jsonl")
        let driver = EngineDriver(spool: spool, clock: clock, logger: logs.logger())
        try driver.start()
        let batches = driver.effects.compactMap { if case .file(let plan) = $0 { return plan.batch } else { return nil } }
        #expect(batches == [".filing-x.jsonl"])
        #expect(files(in: spool.new).isEmpty && driver.pendingCount == 1)
    }

    /// Only what left jobs/ after the claim is skipped: an old finished job with the same id
    /// (done/ keeps them for a month), and a job cancelled during the filing, are told apart.
    @Test func aResumedBatchSkipsOnlyWhatSettledSinceItsClaim() throws {
        try spool.prepare()
        let lines = (1...3).map { Job(kind: .reminder, id: "c\($0)", at: clock.now + .seconds(Int64($0)), text: "n\($0)").encoded() }
        dir.write("spool/done/c1@1.json", lines[0])  // a month-old job that had the same id
        // The claim must come at a later tick of the file system's clock than that old file's
        // change time (what the reader compares; a rename into place sets it after the mtime).
        #expect(waitUntilFileTimeMovesPast(changeTime(spool.done + "/c1@1.json"), in: dir.path))
        dir.write("spool/new/.filing-b.jsonl", lines.joined(separator: "\n") + "\n")
        dir.write("spool/cancelled/c2@\((clock.now + .seconds(2)).microseconds).json", lines[1])  // cancelled while filing
        let driver = EngineDriver(spool: spool, clock: clock, logger: logs.logger())
        try driver.start()
        #expect(Set(driver.pendingJobs.keys) == ["c1", "c3"])
    }
}

/// A file's change time (ctime), as (seconds, nanoseconds).
func changeTime(_ path: String) -> (Int, Int) {
    var st = stat()
    guard lstat(path, &st) == 0 else { return (Int.max, 0) }
    return (st.st_ctim.tv_sec, st.st_ctim.tv_nsec)
}

/// Writes probe files until one gets a change time later than `time` (the kernel's file
/// clock moves in ticks of a few milliseconds).
func waitUntilFileTimeMovesPast(_ time: (Int, Int), in directory: String) -> Bool {
    let probe = directory + "/.tick"
    for _ in 0..<10_000 {
        FileManager.default.createFile(atPath: probe, contents: Data())
        if changeTime(probe) > time { return true }
    }
    return false
}
