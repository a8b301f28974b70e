import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Recurring reminders, habits, buttons and snoozes in the engine, on a manual clock.
struct EngineRecurringTests {
    let dir = TemporaryDirectory()
    let clock = ManualClock(ISO8601.parseInstant("2026-11-22T08:59:00Z")!)
    let logs = MemoryLogHandlerBox()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    func engine(_ config: HeraldConfig = HeraldConfig()) -> EngineDriver {
        EngineDriver(spool: spool, config: config, localZone: .utc, clock: clock, logger: logs.logger())
    }

    func at(_ text: String) -> Instant { ISO8601.parseInstant(text)! }

    /// Shows each requested popup successfully; returns what was shown.
    @discardableResult
    func show(_ shown: [NotificationRequest], _ driver: EngineDriver) -> [NotificationRequest] { shown }

    func history() -> [HistoryRecord] {
        let text = (try? String(contentsOfFile: spool.historyPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { HistoryRecord(jsonLine: $0) }
    }

    func submit(_ job: Job) throws {
        try spool.prepare()
        try spool.submit(job)
    }

    @Test func aRecurringReminderKeepsToItsSchedule() throws {
        try submit(Job(kind: .reminder, id: "stand", every: "*-*-* 09,15:00", text: "Stand up"))
        let e = engine()
        _ = try e.start()
        #expect(e.nextWakeup() == at("2026-11-22T09:00:00Z"))
        clock.set(at("2026-11-22T09:00:00.002Z"))
        #expect(show(e.tick(), e).map(\.summary) == ["Stand up"])
        #expect(e.nextWakeup() == at("2026-11-22T15:00:00Z"))
        #expect(try spool.jobFiles().jobs.map(\.description) == ["stand@\(at("2026-11-22T15:00:00Z").microseconds).json"])
    }

    /// Occurrences missed while the daemon was down give one late popup, then the schedule goes on.
    @Test func missedOccurrencesGiveOneCatchUp() throws {
        try submit(Job(kind: .reminder, id: "hourly", every: "hourly", text: "Water the plants"))
        do {
            let e = engine()
            _ = try e.start()
            #expect(e.nextWakeup() == at("2026-11-22T09:00:00Z"))
        }
        clock.set(at("2026-11-22T13:20:00Z"))  // down for four occurrences
        var config = HeraldConfig()
        config.catchUpGrace = .minutes(6 * 60)
        let e = engine(config)
        let shown = show(try e.start(), e)
        #expect(shown.map(\.summary) == ["Water the plants"])
        #expect(shown.first?.body == "(late by 4 h 20 min)")
        #expect(e.nextWakeup() == at("2026-11-22T14:00:00Z"))
    }

    @Test func aHabitIsNotRemindedOnADayAlreadyDone() throws {
        try submit(Job(kind: .habit, id: "water", every: "*-*-* 09..17:00", title: "Drink water", icon: "water"))
        let e = engine()
        _ = try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        let first = show(e.tick(), e)
        #expect(first.map(\.summary) == ["Drink water"])
        #expect(first.first?.actions == [.done, .snooze(nil), .body])
        #expect(first.first?.icon == "water")
        #expect(first.first?.body == "Start a streak today · done not yet · strength 0%")
        // Done from the popup: today's completion, and no more reminders today.
        #expect(e.actionInvoked(NotificationAction(jobID: "water", occurrence: at("2026-11-22T09:00:00Z"), action: .done)).isEmpty)
        #expect(HabitLog(spool: spool, id: "water").read().days == [LocalDate(parsing: "2026-11-22")!])
        clock.set(at("2026-11-22T10:00:00Z"))
        #expect(show(e.tick(), e).isEmpty)
        // One skip for the day, then straight on to tomorrow's first reminder.
        #expect(e.nextWakeup() == at("2026-11-23T09:00:00Z"))
        #expect(history().filter { $0.outcome == .skipped }.count == 1)
        clock.set(at("2026-11-23T09:00:00Z"))
        #expect(show(e.tick(), e).first?.body == "Day 2 in a row · done once · strength 5%")
    }

    @Test func snoozeShowsItAgainAndSurvivesARestart() throws {
        var config = HeraldConfig()
        config.snooze = .minutes(10)
        try submit(Job(kind: .habit, id: "stretch", every: "*-*-* 09:00", title: "Stretch"))
        do {
            let e = engine(config)
            _ = try e.start()
            clock.set(at("2026-11-22T09:00:00Z"))
            #expect(show(e.tick(), e).count == 1)
            _ = e.actionInvoked(NotificationAction(jobID: "stretch", occurrence: at("2026-11-22T09:00:00Z"), action: .snooze(nil)))
            #expect(e.nextWakeup() == at("2026-11-22T09:10:00Z"))
        }
        let name = try #require(spool.jobFiles().jobs.first)
        #expect(name.snoozedUntil == at("2026-11-22T09:10:00Z"))
        let restarted = engine(config)
        #expect(try restarted.start().isEmpty)
        clock.set(at("2026-11-22T09:10:00Z"))
        #expect(show(restarted.tick(), restarted).map(\.summary) == ["Stretch"])
        // After the snoozed popup the habit goes back to its schedule.
        #expect(restarted.nextWakeup() == at("2026-11-23T09:00:00Z"))
    }

    @Test func aFinishedReminderCanBeSnoozedBackFromDone() throws {
        try submit(Job(kind: .reminder, id: "tea", at: at("2026-11-22T09:00:00Z"), text: "Tea"))
        let e = engine()
        _ = try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        show(e.tick(), e)
        #expect(files(in: spool.done).count == 1)
        _ = e.actionInvoked(NotificationAction(jobID: "tea", occurrence: at("2026-11-22T09:00:00Z"), action: .snooze(nil)))
        #expect(files(in: spool.done).isEmpty)
        clock.set(at("2026-11-22T09:10:00Z"))
        #expect(show(e.tick(), e).map(\.summary) == ["Tea"])
        #expect(files(in: spool.done).count == 1)
    }

    @Test func aCorruptHabitLogIsReportedAndTheHabitStillFires() throws {
        try submit(Job(kind: .habit, id: "read", every: "*-*-* 09:00", title: "Read"))
        try FileSystem.makeDirectory(spool.habitsDirectory)
        try FileSystem.appendLine("garbage", to: spool.habitsDirectory + "/read.jsonl")
        let e = engine()
        _ = try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        #expect(show(e.tick(), e).map(\.summary) == ["Read"])
        #expect(logs.lines.contains { $0.hasPrefix("warning: Habit log has unreadable lines") && $0.contains("file=habits/read.jsonl") })
    }

    @Test func anExpressionThatNeverElapsesIsRefused() throws {
        try submit(Job(kind: .reminder, id: "old", every: "2020-01-01 10:00", text: "Long ago"))
        let e = engine()
        _ = try e.start()
        #expect(e.pendingCount == 0)
        let reason = try String(contentsOfFile: spool.failed + "/old.json.reason", encoding: .utf8)
        #expect(reason.contains("field 'every' never elapses after now (\"2020-01-01 10:00\")"))
    }
}
