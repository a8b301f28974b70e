import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Alarms in the engine, on a manual clock against a real spool: Stop and Snooze, the ring's
/// end (unanswered, then snoozing itself `alarms.autoSnooze` times), quiet time, `herald ack`,
/// and the wake-from-suspend instant the engine asks heraldd to arm.
struct EngineAlarmTests {
    let dir = TemporaryDirectory()
    let clock = ManualClock(ISO8601.parseInstant("2026-11-22T06:59:00Z")!)
    let logs = MemoryLogHandlerBox()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    func engine(_ config: HeraldConfig = HeraldConfig()) -> EngineDriver {
        EngineDriver(spool: spool, config: config, localZone: .utc, clock: clock, logger: logs.logger())
    }

    func at(_ text: String) -> Instant { ISO8601.parseInstant(text)! }

    func outcomes(_ id: String) -> [String] {
        guard let text = try? String(contentsOfFile: spool.historyPath, encoding: .utf8) else { return [] }  // nothing fired yet
        return text.split(separator: "\n").compactMap { HistoryRecord(jsonLine: $0) }.filter { $0.id == id }
            .map { $0.outcome.rawValue + ($0.note.map { " " + $0 } ?? "") }
    }

    func submit(_ jobs: Job...) throws {
        try spool.prepare()
        for job in jobs { try spool.submit(job) }
    }

    func alarm(_ id: String, at time: String, title: String? = "Wake up") -> Job {
        Job(kind: .alarm, id: id, at: at(time), title: title)
    }

    @Test func anAlarmRingsCriticalWithStopAndSnoozeAndItsSound() throws {
        try submit(alarm("a", at: "2026-11-22T07:00:00Z"), alarm("b", at: "2026-11-22T07:00:00Z", title: nil))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        let shown = Dictionary(uniqueKeysWithValues: e.tick().map { ($0.jobID, $0) })
        let a = try #require(shown["a"])
        #expect(a.urgency == .critical)
        #expect(a.actions == [.stop, .snooze(nil), .body])
        #expect(a.actions.map(\.label) == ["Stop", "Snooze", "Acknowledge"])
        #expect(a.sound == .themed("alarm-clock-elapsed"))
        #expect(a.ringFor == .minutes(10))
        #expect(a.expiry == .never)
        #expect(a.summary == "Wake up")
        #expect(a.body == "Alarm · 07:00")
        #expect(shown["b"]?.summary == "Alarm")
    }

    @Test func stopEndsTheRingAndTheOneShot() throws {
        try submit(alarm("a", at: "2026-11-22T07:00:00Z"))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        let shown = try #require(e.tick().first)
        #expect(e.nextWakeup() == at("2026-11-22T07:09:00Z"))  // the wake ahead of the ring's end (07:10), then the end
        clock.set(at("2026-11-22T07:01:00Z"))
        e.press(.stop, on: shown)
        #expect(outcomes("a") == ["shown", "done"])
        #expect(e.nextWakeup() == nil)  // nothing rings, nothing is due
        clock.set(at("2026-11-22T07:30:00Z"))
        #expect(e.tick().isEmpty)
        #expect(e.pendingJobs["a"] == nil)
    }

    @Test func snoozeUsesTheAlarmsSnooze() throws {
        try submit(alarm("a", at: "2026-11-22T07:00:00Z"))
        var config = HeraldConfig()
        config.alarms.snooze = .minutes(7)
        let e = engine(config)
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        let shown = try #require(e.tick().first)
        e.press(.snooze(nil), on: shown)
        #expect(e.pendingJobs["a"] == JobFileName(id: "a", occurrence: at("2026-11-22T07:00:00Z"), snoozedUntil: at("2026-11-22T07:07:00Z")))
        clock.set(at("2026-11-22T07:07:00Z"))
        #expect(e.tick().map(\.jobID) == ["a"])
    }

    @Test func anUnansweredAlarmSnoozesItselfThenGivesUp() throws {
        try submit(alarm("a", at: "2026-11-22T07:00:00Z"))
        var config = HeraldConfig()
        config.alarms.ringFor = .minutes(2)
        config.alarms.snooze = .minutes(5)
        config.alarms.autoSnooze = 2
        let e = engine(config)
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        #expect(e.tick().map(\.jobID) == ["a"])
        // 07:02 the ring ends: closed, unanswered, back at 07:07 (twice), then it gives up.
        clock.set(at("2026-11-22T07:02:00Z"))
        #expect(e.tick().isEmpty)
        #expect(e.closed == ["a"])
        #expect(e.pendingJobs["a"]?.snoozedUntil == at("2026-11-22T07:07:00Z"))
        clock.set(at("2026-11-22T07:07:00Z"))
        #expect(e.tick().map(\.jobID) == ["a"])
        clock.set(at("2026-11-22T07:09:00Z"))
        e.tick()
        #expect(e.pendingJobs["a"]?.snoozedUntil == at("2026-11-22T07:14:00Z"))
        clock.set(at("2026-11-22T07:14:00Z"))
        #expect(e.tick().map(\.jobID) == ["a"])
        clock.set(at("2026-11-22T07:16:00Z"))
        e.tick()
        #expect(e.closed == ["a", "a", "a"])
        #expect(e.pendingJobs["a"] == nil)
        let lines = outcomes("a")
        #expect(lines.count == 6)
        #expect(lines[1].hasPrefix("unanswered rang for 2 min; snoozed itself (1 of 2); until"))
        #expect(lines[3].hasPrefix("unanswered rang for 2 min; snoozed itself (2 of 2); until"))
        #expect(lines[5] == "unanswered rang for 2 min; snoozed itself 2 times, no more")
        #expect(e.nextWakeup() == nil)
    }

    @Test func aRecurringAlarmGoesOnAfterItGaveUp() throws {
        var job = alarm("w", at: "2026-11-22T07:00:00Z")
        job.at = nil
        job.every = ["*-*-* 07:00:00"]
        try submit(job)
        var config = HeraldConfig()
        config.alarms.autoSnooze = 0
        let e = engine(config)
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        #expect(e.tick().map(\.jobID) == ["w"])
        clock.set(at("2026-11-22T07:10:00Z"))
        e.tick()
        #expect(e.pendingJobs["w"] == JobFileName(id: "w", occurrence: at("2026-11-23T07:00:00Z")))
        #expect(outcomes("w").last == "unanswered rang for 10 min; snoozed itself 0 times, no more")
    }

    @Test func quietTimeDoesNotHoldAnAlarmUnlessTheConfigSaysSo() throws {
        try submit(alarm("a", at: "2026-11-22T07:00:00Z"),
                   Job(kind: .reminder, id: "r", at: at("2026-11-22T07:00:00Z"), text: "Not now"))
        var config = HeraldConfig()
        config.quietHours = QuietHours(parsing: "22:00-08:00")
        let e = engine(config)
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        #expect(e.tick().map(\.jobID) == ["a"])  // the reminder waits for the summary
        try submit(alarm("b", at: "2026-11-22T07:30:00Z"))
        config.alarms.ringsWhenQuiet = false
        let held = engine(config)
        try held.start()
        clock.set(at("2026-11-22T07:30:00Z"))
        #expect(!held.tick().contains { $0.jobID == "b" })
    }

    @Test func herladAckStopsARingingAlarm() throws {
        try submit(alarm("a", at: "2026-11-22T07:00:00Z"))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        #expect(e.tick().map(\.jobID) == ["a"])
        #expect(e.request(.ack(id: "a")) == .acknowledged(next: nil))
        #expect(e.closed == ["a"])
        #expect(outcomes("a") == ["shown", "done herald ack"])
        clock.set(at("2026-11-22T07:10:00Z"))
        e.tick()
        #expect(outcomes("a").count == 2)  // no ring end comes after
    }

    @Test func theWakeInstantIsTheNextWakingJobLessWakeAhead() throws {
        var quietReminder = Job(kind: .reminder, id: "r", at: at("2026-11-22T06:59:30Z"), text: "Not waking")
        quietReminder.wake = false
        var waking = Job(kind: .reminder, id: "w", at: at("2026-11-22T09:00:00Z"), text: "Waking reminder")
        waking.wake = true
        try submit(alarm("a", at: "2026-11-22T08:00:00Z"), quietReminder, waking)
        var config = HeraldConfig()
        config.alarms.wakeAhead = .seconds(90)
        let e = engine(config)
        try e.start()
        #expect(e.wakeArmed == at("2026-11-22T07:58:30Z"))
        clock.set(at("2026-11-22T08:00:00Z"))
        let shown = try #require(e.tick().first { $0.jobID == "a" })
        #expect(e.wakeArmed == at("2026-11-22T08:08:30Z"))  // it rings until 08:10: its file waits there
        e.press(.snooze(.minutes(20)), on: shown)  // the snoozed alarm comes back first
        #expect(e.wakeArmed == at("2026-11-22T08:18:30Z"))
        #expect(e.request(.cancel(id: "a")) != nil)
        #expect(e.wakeArmed == at("2026-11-22T08:58:30Z"))
        #expect(e.request(.cancel(id: "w")) != nil)
        #expect(e.wakeArmed == nil)
    }

    @Test func wakersFoundAfterStartAreArmed() throws {
        var config = HeraldConfig()
        config.alarms.wakeKinds = [.alarm, .habit]
        try submit(Job(kind: .reminder, id: "r", at: at("2026-11-22T09:00:00Z"), text: "Plain"))
        let e = engine(config)
        try e.start()
        #expect(e.wakeArmed == nil)
        e.send(.wakersFound([(id: "r", kind: .reminder, wake: true), (id: "gone", kind: .alarm, wake: nil)]))
        #expect(e.wakeArmed == at("2026-11-22T08:59:00Z"))
    }

    @Test func theDocumentPackNamesTheWakingJobs() throws {
        var waking = Job(kind: .reminder, id: "w", at: at("2026-11-22T09:00:00Z"), text: "Waking")
        waking.wake = true
        var notWaking = alarm("q", at: "2026-11-22T09:00:00Z")
        notWaking.wake = false
        try submit(alarm("a", at: "2026-11-22T08:00:00Z"), waking, notWaking,
                   Job(kind: .reminder, id: "r", at: at("2026-11-22T09:00:00Z"), text: "wake the alarm clock"))
        let e = engine()
        try e.start()
        let found = try #require(JobDocPack(spool: spool).wakeFields(kinds: [.alarm]))
        let byID = Dictionary(uniqueKeysWithValues: found.map { ($0.id, $0) })
        #expect(byID.keys.sorted() == ["a", "q", "w"])
        #expect(byID["q"]?.wake == false && byID["w"]?.wake == true && byID["a"]?.wake == nil)
    }

    /// heraldd stopped while an alarm rang: its file waits at the ring's end, so the next
    /// heraldd rings it again then (nothing in done/, nothing lost).
    @Test func aRestartWhileItRingsRingsItAgainAtTheRingsEnd() throws {
        try submit(alarm("a", at: "2026-11-22T07:00:00Z"))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        #expect(e.tick().map(\.jobID) == ["a"])
        #expect(e.pendingJobs["a"] == JobFileName(id: "a", occurrence: at("2026-11-22T07:00:00Z"), snoozedUntil: at("2026-11-22T07:10:00Z")))
        #expect(files(in: spool.done).isEmpty)
        let again = engine()
        try again.start()
        clock.set(at("2026-11-22T07:10:00Z"))
        #expect(again.tick().map(\.jobID) == ["a"])
    }

    /// A damaged record costs only itself: the alarm filed after it is still found, and one
    /// whose kind is written with an escape is read too.
    @Test func theDocumentPackIsReadPastADamagedRecord() throws {
        try submit(Job(kind: .reminder, id: "r", at: at("2026-11-22T09:00:00Z"), text: "Plain"))
        let e = engine()
        try e.start()
        let pack = JobDocPack(spool: spool)
        let torn = FileHandle(forWritingAtPath: pack.path)!
        torn.seekToEndOfFile()
        torn.write(Data([0x48, 0x44, 0x50, 0x4B, 0x05, 0x00, 0x00]))  // a record's magic, then nothing whole
        try torn.close()
        try spool.prepare()
        _ = try spool.submit(#"{"version":1,"kind":"\u0061larm","id":"late","at":"2026-11-22T10:00:00Z"}"#, name: "late.json")
        e.send(.intakeAppeared(["late.json"]))
        let found = try #require(pack.wakeFields(kinds: [.alarm]))
        #expect(found.map(\.id) == ["late"])
    }

    /// A waking job held overdue (quiet time) does not stand in for the next one: the later
    /// alarm's wake is armed; and once the wake-ahead instant has passed, the engine arms the
    /// alarm's own time (a machine suspended in between still wakes).
    @Test func anOverdueWakingJobDoesNotBlockTheNextWake() throws {
        var held = Job(kind: .reminder, id: "r", at: at("2026-11-22T07:00:00Z"), text: "Held by quiet time")
        held.wake = true
        var config = HeraldConfig()
        config.quietHours = QuietHours(parsing: "06:00-08:00")
        config.alarms.ringsWhenQuiet = false
        try submit(held, alarm("a", at: "2026-11-22T09:00:00Z"))
        let e = engine(config)
        try e.start()
        clock.set(at("2026-11-22T07:00:01Z"))
        #expect(!e.tick().contains { $0.jobID == "r" })  // held for the summary, its file still at 07:00
        #expect(e.wakeArmed == at("2026-11-22T08:59:00Z"))
        #expect(e.nextWakeup() == at("2026-11-22T08:00:00Z"))  // the quiet time's end comes first
        clock.set(at("2026-11-22T08:59:00Z"))
        e.tick()
        #expect(e.wakeArmed == at("2026-11-22T09:00:00Z"))
    }
}
