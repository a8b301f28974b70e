import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Buttons, outcomes, repeats, replacement, quiet time and summaries in the engine, on a
/// manual clock against a real spool.
struct EnginePopupTests {
    let dir = TemporaryDirectory()
    let clock = ManualClock(ISO8601.parseInstant("2026-11-22T08:59:00Z")!)
    let logs = MemoryLogHandlerBox()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    func engine(_ config: HeraldConfig = HeraldConfig()) -> EngineDriver {
        EngineDriver(spool: spool, config: config, localZone: .utc, clock: clock, logger: logs.logger())
    }

    func at(_ text: String) -> Instant { ISO8601.parseInstant(text)! }

    func history() -> [HistoryRecord] {
        let text = (try? String(contentsOfFile: spool.historyPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { HistoryRecord(jsonLine: $0) }
    }

    func outcomes(_ id: String) -> [String] {
        history().filter { $0.id == id }.map { $0.outcome.rawValue + ($0.note.map { " " + $0 } ?? "") }
    }

    func submit(_ jobs: Job...) throws {
        try spool.prepare()
        for job in jobs { try spool.submit(job) }
    }

    func reminder(_ id: String, at time: String, urgency: Job.Urgency? = nil, repeat span: Span? = nil) -> Job {
        Job(kind: .reminder, id: id, at: at(time), text: "Reminder \(id)", urgency: urgency, repeat: span)
    }

    // MARK: buttons, expiry, sound

    @Test func eachKindGetsItsButtonsExpiryAndSound() throws {
        try submit(reminder("r", at: "2026-11-22T09:00:00Z"),
                   Job(kind: .reminder, id: "t", at: at("2026-11-22T09:00:00Z"), title: "Tea", text: "5 minutes are up",
                       tags: [Job.timerTag]),
                   Job(kind: .delivery, id: "d", at: at("2026-11-22T09:10:00Z"), recipient: .init(name: "Ann", address: "Elm St"),
                       lead: .minutes(10), url: "https://track.example/42"),
                   Job(kind: .reminder, id: "c", at: at("2026-11-22T09:00:00Z"), text: "Critical", urgency: .critical,
                       sound: "none"))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        let shown = Dictionary(uniqueKeysWithValues: e.tick().map { ($0.jobID, $0) })
        #expect(shown.keys.sorted() == ["c", "d", "r", "t"])
        #expect(shown["r"]?.actions == [.done, .snooze(nil), .snooze(.minutes(5)), .snooze(.minutes(60)), .body])
        #expect(shown["r"]?.actions.map(\.label) == ["Done", "Snooze", "5 min", "1 h", "Acknowledge"])
        #expect(shown["r"]?.expiry == .never)
        #expect(shown["r"]?.sound == nil)
        #expect(shown["t"]?.expiry == .never)
        #expect(shown["t"]?.sound == .themed("alarm-clock-elapsed"))
        #expect(shown["d"]?.actions == [.gotIt, .track, .body])
        #expect(shown["d"]?.expiry == .serverDefault)  // the heads-up
        #expect(shown["c"]?.expiry == .never)
        #expect(shown["c"]?.sound == nil)  // the job's own "none"
    }

    @Test func theConfigDecidesExpiryAndSoundPerClass() throws {
        try submit(reminder("r", at: "2026-11-22T09:00:00Z"),
                   Job(kind: .reminder, id: "c", at: at("2026-11-22T09:00:00Z"), text: "Critical", urgency: .critical))
        var config = HeraldConfig()
        config.popups.expire[.reminder] = .after(.seconds(30))
        config.popups.sound[.reminder] = .file("/usr/share/sounds/freedesktop/stereo/bell.oga")
        config.popups.snoozeChoices = []
        let e = engine(config)
        try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        let shown = Dictionary(uniqueKeysWithValues: e.tick().map { ($0.jobID, $0) })
        #expect(shown["r"]?.expiry == .after(.seconds(30)))
        #expect(shown["r"]?.expiry.milliseconds == 30_000)
        #expect(shown["r"]?.sound == .file("/usr/share/sounds/freedesktop/stereo/bell.oga"))
        #expect(shown["r"]?.actions == [.done, .snooze(nil), .body])
        #expect(shown["c"]?.expiry == .never)  // critical never expires
    }

    // MARK: outcomes

    @Test func aSnoozeChoiceBringsThePopupBackAndIsRecorded() throws {
        try submit(reminder("r", at: "2026-11-22T09:00:00Z"))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        let popup = try #require(e.tick().first)
        clock.set(at("2026-11-22T09:00:10Z"))
        #expect(e.press(.snooze(.minutes(5)), on: popup).isEmpty)
        #expect(e.nextWakeup() == at("2026-11-22T09:05:10Z"))
        #expect(outcomes("r") == ["shown", "snoozed until 2026-11-22T09:05:10Z"])
        clock.set(at("2026-11-22T09:05:10Z"))
        #expect(e.tick().map(\.jobID) == ["r"])
        clock.set(at("2026-11-22T09:05:20Z"))
        e.closedByServer(popup, .closedByHerald)  // Herald's own closing (after a button) says nothing
        e.closedByServer(popup, .expired)
        #expect(outcomes("r") == ["shown", "snoozed until 2026-11-22T09:05:10Z", "shown", "expired"])
    }

    @Test func doneGotItAndTheBodyClickAreRecordedAsDone() throws {
        try submit(reminder("r", at: "2026-11-22T09:00:00Z"),
                   Job(kind: .delivery, id: "d", at: at("2026-11-22T09:00:00Z"), recipient: .init(name: "Ann", address: "Elm"),
                       lead: .zero, url: "https://track.example/42"),
                   Job(kind: .habit, id: "h", every: "*-*-* 09:00", title: "Water"))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        let shown = Dictionary(uniqueKeysWithValues: e.tick().map { ($0.jobID, $0) })
        e.press(.body, on: shown["r"]!)
        e.press(.track, on: shown["d"]!)
        e.press(.body, on: shown["h"]!)
        #expect(outcomes("r") == ["shown", "done"])
        #expect(outcomes("d") == ["shown", "done tracked"])
        #expect(outcomes("h") == ["shown", "dismissed"])  // a body click does not mark a habit's day
        #expect(e.opened == ["https://track.example/42"])
        #expect(!FileManager.default.fileExists(atPath: spool.root + "/habits/h.jsonl"))
    }

    // MARK: repeat until acknowledged

    @Test func aRepeatingReminderComesBackInPlaceUntilDone() throws {
        try submit(reminder("pills", at: "2026-11-22T09:00:00Z", repeat: .minutes(1)))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        #expect(e.tick().map(\.jobID) == ["pills"])
        #expect(e.pendingJobs["pills"]?.snoozedUntil == at("2026-11-22T09:01:00Z"))
        clock.set(at("2026-11-22T09:01:00Z"))
        let again = try #require(e.tick().first)
        #expect(again.occurrence == at("2026-11-22T09:00:00Z"))
        #expect(outcomes("pills") == ["shown", "replaced", "shown"])
        clock.set(at("2026-11-22T09:01:30Z"))
        e.press(.done, on: again)
        #expect(e.pendingJobs["pills"] == nil)
        #expect(e.nextWakeup() == nil)
        #expect(outcomes("pills") == ["shown", "replaced", "shown", "done"])
        #expect(try spool.jobFiles().jobs.isEmpty)
    }

    @Test func dismissingStopsTheRepeatsAndExpiryDoesNot() throws {
        try submit(reminder("a", at: "2026-11-22T09:00:00Z", repeat: .minutes(1)),
                   reminder("b", at: "2026-11-22T09:00:00Z", repeat: .minutes(1)))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        let shown = Dictionary(uniqueKeysWithValues: e.tick().map { ($0.jobID, $0) })
        clock.set(at("2026-11-22T09:00:20Z"))
        e.closedByServer(shown["a"]!, .dismissed)
        e.closedByServer(shown["b"]!, .expired)
        #expect(e.pendingJobs["a"] == nil)
        #expect(e.pendingJobs["b"]?.snoozedUntil == at("2026-11-22T09:01:00Z"))
        clock.set(at("2026-11-22T09:01:00Z"))
        #expect(e.tick().map(\.jobID) == ["b"])
        #expect(outcomes("a") == ["shown", "dismissed"])
        #expect(outcomes("b") == ["shown", "expired", "shown"])
    }

    @Test func repeatsStopAtMaxRepeats() throws {
        try submit(reminder("r", at: "2026-11-22T09:00:00Z", repeat: .minutes(1)))
        var config = HeraldConfig()
        config.popups.maxRepeats = 2
        let e = engine(config)
        try e.start()
        var shownAt: [Instant] = []
        for minute in 0..<5 {
            clock.set(at("2026-11-22T09:00:00Z") + .minutes(Int64(minute)))
            if !e.tick().isEmpty { shownAt.append(clock.now) }
        }
        #expect(shownAt == [at("2026-11-22T09:00:00Z"), at("2026-11-22T09:01:00Z"), at("2026-11-22T09:02:00Z")])
        #expect(e.pendingJobs["r"] == nil)
    }

    @Test func aRecurringRepeatingReminderGoesOnToItsNextOccurrence() throws {
        try submit(Job(kind: .reminder, id: "r", every: "*-*-* 09:00", text: "Pills", repeat: .minutes(10)))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        let popup = try #require(e.tick().first)
        e.press(.done, on: popup)
        #expect(e.pendingJobs["r"] == JobFileName(id: "r", occurrence: at("2026-11-23T09:00:00Z")))
    }

    // MARK: replace in place

    @Test func aDeliveryArrivalReplacesItsHeadsUp() throws {
        try submit(Job(kind: .delivery, id: "d", at: at("2026-11-22T09:10:00Z"), recipient: .init(name: "Ann", address: "Elm"),
                       lead: .minutes(10)))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        #expect(e.tick().map(\.jobID) == ["d"])
        clock.set(at("2026-11-22T09:10:00Z"))
        #expect(e.tick().map(\.jobID) == ["d"])
        #expect(history().map { "\($0.role!.rawValue) \($0.outcome.rawValue)" } == ["heads-up shown", "heads-up replaced", "arrival shown"])
    }

    @Test func aPopupHandledFromTheCommandLineIsClosed() throws {
        try submit(reminder("r", at: "2026-11-22T09:00:00Z", repeat: .minutes(5)))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        _ = e.tick()
        let waiting = try #require(e.pendingJobs["r"])
        // `herald ack` moves the job on (here: to done/, so it is only removed from jobs/).
        try FileSystem.move(spool.path(of: waiting), to: spool.done + "/" + waiting.description)
        e.jobsChanged(removed: [waiting.description])
        #expect(e.closed == ["r"])
    }

    // MARK: quiet time and summaries

    @Test func quietHoursHoldPopupsForOneSummaryAndLetCriticalOnesThrough() throws {
        try submit(reminder("r1", at: "2026-11-22T22:10:00Z"), reminder("r2", at: "2026-11-22T23:00:00Z"),
                   reminder("r3", at: "2026-11-23T01:00:00Z"), reminder("r4", at: "2026-11-23T03:00:00Z"),
                   reminder("r5", at: "2026-11-23T06:59:00Z"),
                   reminder("alarm", at: "2026-11-23T02:00:00Z", urgency: .critical))
        var config = HeraldConfig()
        config.quietHours = QuietHours(parsing: "22:00-07:00")
        let e = engine(config)
        clock.set(at("2026-11-22T21:00:00Z"))
        try e.start()
        var during: [String] = []
        for t in ["2026-11-22T22:10:00Z", "2026-11-22T23:00:00Z", "2026-11-23T01:00:00Z", "2026-11-23T02:00:00Z",
                  "2026-11-23T03:00:00Z", "2026-11-23T06:59:00Z"] {
            clock.set(at(t))
            during += e.tick().map(\.jobID)
        }
        #expect(during == ["alarm"])  // the critical one, on time
        #expect(e.nextWakeup() == at("2026-11-23T07:00:00Z"))
        clock.set(at("2026-11-23T07:00:00Z"))
        let after = e.tick()
        #expect(after.count == 1)
        let summary = try #require(after.first)
        #expect(summary.jobID == PopupSubject.summaryKey)
        #expect(summary.summary == "5 reminders while you were away")
        #expect(summary.body.split(separator: "\n").count == 5)
        #expect(summary.body.hasPrefix("2026-11-22 22:10  Reminder r1\n"))
        let lines = history().filter { $0.id.hasPrefix("r") }
        #expect(lines.count == 5)
        #expect(lines.allSatisfy { $0.outcome == .shown && $0.note == "in a summary" })
        #expect(try spool.jobFiles().jobs.isEmpty)
    }

    @Test func aRestartDuringQuietTimeHoldsThemAgain() throws {
        try submit(reminder("r1", at: "2026-11-22T23:00:00Z"), reminder("r2", at: "2026-11-23T01:00:00Z"))
        var config = HeraldConfig()
        config.quietHours = QuietHours(parsing: "22:00-07:00")
        do {
            let e = engine(config)
            clock.set(at("2026-11-22T21:00:00Z"))
            try e.start()
            clock.set(at("2026-11-23T01:00:00Z"))
            #expect(e.tick().isEmpty)
        }
        clock.set(at("2026-11-23T05:00:00Z"))  // heraldd restarted: 6 h after the first, past the grace
        let e = engine(config)
        #expect(try e.start().isEmpty)
        clock.set(at("2026-11-23T07:00:00Z"))
        #expect(e.tick().map(\.summary) == ["2 reminders while you were away"])
        #expect(history().filter { $0.outcome == .missed }.isEmpty)
    }

    @Test func theQuietSwitchHoldsUntilItIsTurnedOff() throws {
        try submit(reminder("r1", at: "2026-11-22T09:00:00Z"))
        let e = engine()
        try e.start()
        e.quietSwitched(QuietSwitch(since: at("2026-11-22T08:59:00Z"), until: nil))
        clock.set(at("2026-11-22T09:00:00Z"))
        #expect(e.tick().isEmpty)
        #expect(e.nextWakeup() == nil)
        clock.set(at("2026-11-22T09:30:00Z"))
        let shown = e.quietSwitched(QuietSwitch(since: at("2026-11-22T08:59:00Z"), until: at("2026-11-22T09:30:00Z")))
        #expect(shown.map(\.summary) == ["1 reminder while you were away"])
    }

    @Test func aCrowdAfterABreakBecomesOneSummary() throws {
        try submit(reminder("a", at: "2026-11-22T09:00:00Z"), reminder("b", at: "2026-11-22T09:01:00Z"),
                   reminder("c", at: "2026-11-22T09:02:00Z"), reminder("d", at: "2026-11-22T09:03:00Z"))
        try engine().start()  // taken in at 08:59
        clock.set(at("2026-11-22T09:10:00Z"))  // heraldd was down while all four came due
        let e = engine()
        let shown = try e.start()
        #expect(shown.map(\.summary) == ["4 reminders while you were away"])
        #expect(history().map(\.note) == Array(repeating: "in a summary", count: 4))
    }

    @Test func aFewOverduePopupsStillShowOneByOne() throws {
        try submit(reminder("a", at: "2026-11-22T09:00:00Z"), reminder("b", at: "2026-11-22T09:01:00Z"),
                   reminder("c", at: "2026-11-22T09:02:00Z"))
        try engine().start()
        clock.set(at("2026-11-22T09:10:00Z"))
        let e = engine()
        #expect(try e.start().map(\.jobID) == ["a", "b", "c"])
    }

    @Test func aFailedSummaryIsShownAtTheRetry() throws {
        try submit(reminder("a", at: "2026-11-22T09:00:00Z"))
        let e = engine()
        try e.start()
        e.quietSwitched(QuietSwitch(since: at("2026-11-22T08:59:00Z"), until: at("2026-11-22T09:05:00Z")))
        clock.set(at("2026-11-22T09:00:00Z"))
        #expect(e.tick().isEmpty)
        e.notifier.failure = NotifierError(.noServer, detail: "gone")
        clock.set(at("2026-11-22T09:05:00Z"))
        #expect(e.tick().isEmpty)
        e.notifier.failure = nil
        clock.set(try #require(e.nextWakeup()))
        #expect(e.tick().map(\.summary) == ["1 reminder while you were away"])
        #expect(history().map(\.outcome) == [.shown])
    }
}

/// Quiet windows read on the local clock.
struct QuietHoursTests {
    func at(_ text: String) -> Instant { ISO8601.parseInstant(text)! }

    @Test func parsesAndRefuses() {
        #expect(QuietHours(parsing: "22:00-07:00") == QuietHours(start: 22 * 60, end: 7 * 60))
        #expect(QuietHours(parsing: " 9:30 - 12:00 ")?.description == "09:30-12:00")
        for bad in ["", "22:00", "22-07", "22:00-22:00", "24:00-07:00", "22:60-07:00", "22:00-07:00-08:00", "aa:bb-07:00"] {
            #expect(QuietHours(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func windowsOverMidnightAndAcrossADSTChange() throws {
        let q = try #require(QuietHours(parsing: "22:00-07:00"))
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        #expect(q.contains(at("2026-11-22T21:30:00Z"), zone: berlin))  // 22:30 local
        #expect(!q.contains(at("2026-11-22T20:59:00Z"), zone: berlin))  // 21:59 local
        #expect(q.end(containing: at("2026-11-22T21:30:00Z"), zone: berlin) == at("2026-11-23T06:00:00Z"))
        // The night the clocks go back (2026-10-25): 07:00 is 06:00Z.
        #expect(q.end(containing: at("2026-10-24T22:00:00Z"), zone: berlin) == at("2026-10-25T06:00:00Z"))
        #expect(q.end(containing: at("2026-11-22T12:00:00Z"), zone: berlin) == nil)
        let day = try #require(QuietHours(parsing: "12:00-13:00"))
        #expect(day.contains(at("2026-11-22T12:30:00Z"), zone: .utc))
        #expect(!day.contains(at("2026-11-22T13:00:00Z"), zone: .utc))
    }

    @Test func theSwitchAndTheHoursChain() throws {
        let q = QuietState(hours: QuietHours(parsing: "22:00-07:00"),
                           manual: QuietSwitch(since: at("2026-11-22T20:00:00Z"), until: at("2026-11-22T23:00:00Z")))
        #expect(q.end(containing: at("2026-11-22T21:00:00Z"), zone: .utc) == .some(at("2026-11-23T07:00:00Z")))
        let open = QuietState(manual: QuietSwitch(since: at("2026-11-22T20:00:00Z"), until: nil))
        #expect(open.end(containing: at("2026-11-22T21:00:00Z"), zone: .utc) == .some(nil))
        #expect(QuietState().end(containing: at("2026-11-22T21:00:00Z"), zone: .utc) == nil)
        let json = QuietSwitch(since: at("2026-11-22T20:00:00Z"), until: nil).json
        #expect(QuietSwitch(json: Array(json.utf8)) == QuietSwitch(since: at("2026-11-22T20:00:00Z"), until: nil))
    }
}
