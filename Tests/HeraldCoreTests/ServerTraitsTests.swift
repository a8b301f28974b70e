import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// The table of server traits, the button choice it makes, and the engine's answers to a
/// server that keeps few popups per app and to the desktop's do-not-disturb.
struct ServerTraitsTests {
    let dir = TemporaryDirectory()
    let clock = ManualClock(ISO8601.parseInstant("2026-11-22T08:59:00Z")!)
    let logs = MemoryLogHandlerBox()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    func at(_ text: String) -> Instant { ISO8601.parseInstant(text)! }

    func engine(_ config: HeraldConfig = HeraldConfig()) -> EngineDriver {
        EngineDriver(spool: spool, config: config, localZone: .utc, clock: clock, logger: logs.logger())
    }

    func history() -> [HistoryRecord] {
        let text = (try? String(contentsOfFile: spool.historyPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { HistoryRecord(jsonLine: $0) }
    }

    func submit(_ jobs: Job...) throws {
        try spool.prepare()
        for job in jobs { try spool.submit(job) }
    }

    func reminder(_ id: String, at time: String, urgency: Job.Urgency? = nil, repeat span: Span? = nil) -> Job {
        Job(kind: .reminder, id: id, at: at(time), text: "Reminder \(id)", urgency: urgency, repeat: span)
    }

    static let gnome = ServerTraits.of(name: "gnome-shell", vendor: "GNOME", version: "43.9",
                                       capabilities: ["actions", "body", "body-markup", "persistence", "sound"])

    // MARK: the table

    @Test func eachServerIsKnownByItsName() {
        #expect(Self.gnome.maximumButtons == 3 && Self.gnome.perAppLimit == 3 && Self.gnome.playsSound)
        #expect(Self.gnome.doNotDisturb == .gnomeShowBanners)
        #expect(Self.gnome.label == "GNOME Shell 43.9")
        let plasma = ServerTraits.of(name: "Plasma", vendor: "KDE", version: "5.27.5", capabilities: ["actions", "body"])
        #expect(plasma.maximumButtons == nil && plasma.perAppLimit == nil && !plasma.playsSound)
        #expect(plasma.refusesRepeatWithin == .seconds(1) && plasma.doNotDisturb == .plasmaInhibited)
        #expect(ServerTraits.of(name: "SwayNotificationCenter", version: "0.7.3", capabilities: []).doNotDisturb == .swayncDnd)
        #expect(ServerTraits.of(name: "dunst", version: "1.9.0", capabilities: []).doNotDisturb == .dunstPaused)
        #expect(ServerTraits.of(name: "Xfce Notify Daemon", version: "0.7.3", capabilities: []).drawsDefaultAction)
        #expect(!ServerTraits.of(name: "Xfce Notify Daemon", version: "0.8.2", capabilities: []).drawsDefaultAction)
        // Unknown servers get the spec: every button, no limits; sound from the capability.
        // Whatever owns the name may say anything: its label is cut short.
        let long = ServerTraits.of(name: String(repeating: "x", count: 100_000), version: String(repeating: "9", count: 1000), capabilities: [])
        #expect(long.label.count == 80 + 1 + 40)
        let marks = ServerTraits.of(name: "Z" + String(repeating: "\u{301}", count: 100_000), version: "1", capabilities: [])
        #expect(marks.label.unicodeScalars.count == 80 + 2)
        let other = ServerTraits.of(name: "Some Server", version: "1.0", capabilities: ["actions", "sound"])
        #expect(other.maximumButtons == nil && other.perAppLimit == nil && other.playsSound && other.doNotDisturb == nil)
        // notification-daemon and mate list `sound` and play nothing: Herald plays.
        #expect(!ServerTraits.of(name: "Notification Daemon", vendor: "MATE", version: "1.26.0", capabilities: ["sound"]).playsSound)
    }

    // MARK: buttons

    @Test func aServerWithThreeButtonsGetsTheFirstThreeAndTheBodySaysTheRest() {
        let request = NotificationRequest(jobID: "dentist", summary: "Dentist", body: "Bring the card", category: "x-herald.reminder",
                                          actions: [.done, .snooze(nil), .snooze(.minutes(5)), .snooze(.minutes(60)), .body])
        let fitted = request.fitted(maximumButtons: Self.gnome.maximumButtons)
        #expect(fitted.actions == [.done, .snooze(nil), .snooze(.minutes(5)), .body])
        #expect(fitted.body == "Bring the card\n1 h: herald snooze dentist 1h")
        #expect(request.fitted(maximumButtons: nil) == request)
        #expect(request.fitted(maximumButtons: 4) == request)
        // A habit's buttons name the habit commands; an empty body gets only the lines.
        let habit = NotificationRequest(jobID: "water", summary: "Water", body: "", category: "x-herald.habit",
                                        actions: [.add(1), .done, .snooze(nil)])
        let one = habit.fitted(maximumButtons: 1)
        #expect(one.actions == [.add(1)])
        #expect(one.body == "Done: herald habit done water\nSnooze: herald snooze water")
    }

    // MARK: a few popups per app

    @Test func aServerThatKeepsThreePerAppNeverGetsAFourthButOneSummary() throws {
        try submit(reminder("a", at: "2026-11-22T09:00:00Z", repeat: .minutes(5)), reminder("b", at: "2026-11-22T09:01:00Z", repeat: .minutes(5)),
                   reminder("c", at: "2026-11-22T09:02:00Z", repeat: .minutes(5)), reminder("d", at: "2026-11-22T09:03:00Z", repeat: .minutes(5)),
                   reminder("e", at: "2026-11-22T09:04:00Z", repeat: .minutes(5)))
        let e = engine()
        try e.start()
        _ = e.send(.serverDescribed(Self.gnome))
        var shown: [NotificationRequest] = []
        for minute in 0...4 {
            clock.set(at("2026-11-22T09:0\(minute):00Z"))
            shown += e.tick()
        }
        // Two on their own, then one summary replaced in place as it grows.
        #expect(shown.map(\.jobID) == ["a", "b", PopupSubject.summaryKey, PopupSubject.summaryKey, PopupSubject.summaryKey])
        #expect(shown.last?.summary == "3 more reminders")
        #expect(shown.last?.body.split(separator: "\n").count == 3)
        // Each is recorded.
        #expect(history().filter { $0.note == "in a summary" }.map(\.id) == ["c", "d", "e"])
        // The repeats replace their own popups, or the summary (one line a job): still three.
        var later: [NotificationRequest] = []
        for minute in 5...9 {
            clock.set(at("2026-11-22T09:0\(minute):00Z"))
            later += e.tick()
        }
        #expect(later.map(\.jobID) == ["a", "b", PopupSubject.summaryKey, PopupSubject.summaryKey, PopupSubject.summaryKey])
        #expect(later.last?.body.split(separator: "\n").count == 3)
        // A click on the summary acknowledges the repeating reminders in it; they stop.
        let summary = try #require(later.last)
        _ = e.press(.body, on: summary)
        #expect(e.engine.summary.lines.isEmpty)
        #expect(["c", "d", "e"].allSatisfy { id in self.history().contains { $0.id == id && $0.outcome == .done && $0.note == "the summary" } })
        var after: [String] = []
        for minute in 10...14 {
            clock.set(at("2026-11-22T09:\(minute):00Z"))
            after += e.tick().map(\.jobID)
        }
        #expect(after == ["a", "b"])
    }

    @Test func aPopupClosedForRoomIsNotUnseenNorAcknowledged() throws {
        try submit(reminder("a", at: "2026-11-22T09:00:00Z", repeat: .minutes(5)))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T09:00:00Z"))
        let popup = try #require(e.tick().first)
        _ = e.closedByServer(popup, .forRoom)
        #expect(history().map(\.outcome) == [.shown, .replaced])
        #expect(history().last?.note == "closed by the server for room")
        clock.set(at("2026-11-22T09:05:00Z"))
        #expect(e.tick().map(\.jobID) == ["a"])  // still repeating: not acknowledged
    }

    // MARK: the desktop's do-not-disturb

    @Test func theDesktopsDoNotDisturbHoldsPopupsAndReleasesThemAsASummary() throws {
        try submit(reminder("r1", at: "2026-11-22T09:00:00Z"), reminder("r2", at: "2026-11-22T09:05:00Z"),
                   reminder("alarm", at: "2026-11-22T09:06:00Z", urgency: .critical))
        let e = engine()
        try e.start()
        _ = e.send(.desktopQuietChanged(DesktopQuiet(since: at("2026-11-22T08:59:00Z"), source: "KDE Plasma 5.27.5: Plasma's Inhibited property")))
        #expect(e.engine.desktopQuiet?.source.hasPrefix("KDE Plasma") == true)
        var during: [String] = []
        for t in ["2026-11-22T09:00:00Z", "2026-11-22T09:05:00Z", "2026-11-22T09:06:00Z"] {
            clock.set(at(t))
            during += e.tick().map(\.jobID)
        }
        #expect(during == ["alarm"])  // critical passes
        #expect(e.nextWakeup() == nil)  // its end is not known ahead
        clock.set(at("2026-11-22T09:30:00Z"))
        let after = e.send(.desktopQuietChanged(nil))
        #expect(after.map(\.summary) == ["2 reminders while you were away"])
        #expect(history().filter { $0.note == "in a summary" }.map(\.id) == ["r1", "r2"])
    }

    @Test func quietWithDesktopOffShowsPopupsDuringTheDesktopsDoNotDisturb() throws {
        try submit(reminder("r1", at: "2026-11-22T09:00:00Z"))
        var config = HeraldConfig()
        config.quietWithDesktop = false
        let e = engine(config)
        try e.start()
        _ = e.send(.desktopQuietChanged(DesktopQuiet(since: at("2026-11-22T08:59:00Z"), source: "GNOME")))
        clock.set(at("2026-11-22T09:00:00Z"))
        #expect(e.tick().map(\.jobID) == ["r1"])
        #expect(e.engine.desktopQuiet != nil)  // still known, for status
    }

    @Test func theDesktopsStateIsAQuietStateWithNoKnownEnd() {
        let q = QuietState(desktop: DesktopQuiet(since: at("2026-11-22T09:00:00Z"), source: "x"))
        #expect(!q.isQuiet(at: at("2026-11-22T08:59:59Z"), zone: .utc))
        #expect(q.isQuiet(at: at("2026-11-22T09:00:00Z"), zone: .utc))
        #expect(q.end(containing: at("2026-11-22T10:00:00Z"), zone: .utc) == .some(nil))
    }

    @Test func theStatusCarriesTheServerAndTheDoNotDisturbState() throws {
        var status = DaemonStatus(pid: 42, version: "0.2.0", startedAt: at("2026-11-22T09:00:00Z"), notifier: "libnotify")
        status.server = "KDE Plasma 5.27.5"
        status.doNotDisturb = "KDE Plasma 5.27.5: Plasma's Inhibited property"
        status.doNotDisturbSince = at("2026-11-22T09:10:00Z")
        status.doNotDisturbFollowed = false
        let back = try #require(DaemonStatus(json: Array(status.json.utf8)))
        #expect(back == status)
    }
}
