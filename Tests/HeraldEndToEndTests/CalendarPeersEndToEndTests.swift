import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// Calendar alarms across two machines with the real peers (scripts/oracles/caldav-peers.sh): a Radicale
/// CalDAV server on loopback, vdirsyncer syncing a "laptop" and a "desktop" vdir through it, and
/// khal writing the events. Each machine is a scene of its own (bus, notification server, heraldd).
@Suite(.serialized)
struct CalendarPeersEndToEndTests {
    final class Peers {
        let directory: String
        let script = Binaries.repositoryRoot + "/scripts/oracles/caldav-peers.sh"

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-peers-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var started = false
            var last = ""
            for _ in 0..<5 where !started {
                let r = try run("start", String(Int.random(in: 20_000...29_999)))
                started = r.status == 0
                last = r.stderr
            }
            guard started else { throw SetupError("Radicale did not start: \(last)") }
        }

        deinit {
            _ = try? run("stop")
            try? FileManager.default.removeItem(atPath: directory)
        }

        @discardableResult
        func run(_ arguments: String...) throws -> CommandResult {
            try runCommand("/bin/bash", [script] + arguments,
                           environment: ["PEERS_DIR": directory, "PEERS_TZ": "Europe/Berlin", "PATH": "/usr/bin:/bin", "HOME": directory])
        }

        func sync(_ side: String) throws {
            let r = try run("sync", side)
            guard r.status == 0 else { throw SetupError("vdirsyncer sync \(side) failed: \(r.stderr) \(r.stdout)") }
        }

        /// khal creates an event starting at the next whole minute at least `lead` seconds away,
        /// with an alarm `alarmIn` seconds from now (khal takes minutes for times, seconds for alarms).
        func newEvent(on side: String, _ summary: String, alarmIn: Int64, location: String) throws -> (file: String, alarm: Instant) {
            let now = SystemClock().now.seconds
            let start = ((now + alarmIn + 60) / 60 + 1) * 60
            let alarm = now + alarmIn
            let zone = try TimeZoneRules.named("Europe/Berlin")
            func text(_ t: Int64) -> String {
                let c = zone.civil(Instant(seconds: t))
                return String(format: "%04d-%02d-%02d %02d:%02d", c.year, c.month, c.day, c.hour, c.minute)
            }
            let r = try run("new", side, text(start), text(start + 1800), summary, "\(start - alarm)s", location)
            guard r.status == 0 else { throw SetupError("khal new failed: \(r.stderr)") }
            return (r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), Instant(seconds: alarm))
        }

        func vdir(_ side: String) -> String { directory + "/" + side + "/cal" }
    }

    func machine(_ peers: Peers, _ side: String, extra: String = "") throws -> Scene {
        let scene = try Scene()
        try scene.writeConfig("calendars:\n  sources: \(peers.vdir(side))\n  writeBack: all\n" + extra)
        return scene
    }

    @Test func aDismissOnTheLaptopReachesTheDesktopAndTheDesktopsAlarmReachesTheLaptop() throws {
        let peers = try Peers()
        let laptop = try machine(peers, "laptop")
        try laptop.startDaemon()

        // khal on the laptop; heraldd sees the file khal writes and shows the alarm on time.
        let dentist = try peers.newEvent(on: "laptop", "Dentist", alarmIn: 12, location: "Elm Street Clinic")
        try peers.sync("laptop")
        let server = try #require(laptop.server)
        let shown = try #require(try server.waitForNotifications(1, timeout: 30).first)
        #expect(shown.summary.hasPrefix("Dentist at "), "\(shown.summary)")
        #expect(shown.body == "Elm Street Clinic")
        #expect(shown.actions.prefix(4) == ["dismiss", "Dismiss", "snooze", "Snooze"])
        let record = try #require(laptop.history().first { $0.outcome == .shown })
        #expect(record.kind == .calendar && record.due == dentist.alarm)
        #expect(record.time - dentist.alarm < .seconds(1), "late by \(record.time - dentist.alarm)")

        // Dismiss: written into the item as RFC 9074's ACKNOWLEDGED (with a UID for the VALARM).
        try server.press("dismiss", onNotification: 1)
        #expect(waitUntil(timeout: 10) { ((try? String(contentsOfFile: dentist.file, encoding: .utf8)) ?? "").contains("ACKNOWLEDGED:") })
        let written = try String(contentsOfFile: dentist.file, encoding: .utf8)
        #expect(written.contains("\r\nUID:herald-"), "the VALARM gains a UID, lines keep khal's CRLF")
        #expect(written.contains("TRIGGER:-PT"), "the trigger line is kept")
        try peers.sync("laptop")
        try peers.sync("desktop")
        let desktopCopy = try #require(try FileManager.default.contentsOfDirectory(atPath: peers.vdir("desktop")).first { $0.hasSuffix(".ics") })
        #expect(try String(contentsOfFile: peers.vdir("desktop") + "/" + desktopCopy, encoding: .utf8).contains("ACKNOWLEDGED:"))

        // The desktop starts after the sync: a missed alarm of its own (Standup, a minute ago,
        // not acknowledged) is caught up; the Dentist alarm, handled on the laptop, is not shown.
        let now = SystemClock().now.seconds
        let zone = try TimeZoneRules.named("Europe/Berlin")
        let past = zone.civil(Instant(seconds: (now / 60 + 3) * 60))
        let standupStart = String(format: "%04d-%02d-%02d %02d:%02d", past.year, past.month, past.day, past.hour, past.minute)
        let standupEnd = zone.civil(Instant(seconds: (now / 60 + 4) * 60))
        let r = try peers.run("new", "desktop", standupStart, String(format: "%04d-%02d-%02d %02d:%02d", standupEnd.year, standupEnd.month,
                                                                   standupEnd.day, standupEnd.hour, standupEnd.minute), "Standup", "10m", "Room 4")
        #expect(r.status == 0, "\(r.stderr)")
        let desktop = try machine(peers, "desktop")
        try desktop.startDaemon()
        let desktopServer = try #require(desktop.server)
        let caught = try desktopServer.waitForNotifications(1, timeout: 20)
        #expect(caught.map(\.summary).contains { $0.hasPrefix("Standup ") }, "\(caught.map(\.summary))")
        // Both items were planned in the same pass; the list and the history agree that only Standup came.
        #expect(waitUntil(timeout: 5) { desktop.history().contains { $0.title == "Standup" } })
        #expect(!desktop.history().contains { $0.title == "Dentist" })
        #expect(try desktopServer.notifications().allSatisfy { !$0.summary.hasPrefix("Dentist") })
        let listed = try desktop.herald("list", "--json").stdout
        #expect(!listed.contains("Dentist"))

        // An alarm added on the desktop reaches the laptop's running heraldd after a sync, on time.
        // khal and two syncs (three Python programs) come before the laptop can know of it.
        let review = try peers.newEvent(on: "desktop", "Review", alarmIn: 25, location: "Online")
        try peers.sync("desktop")
        try peers.sync("laptop")
        // (The desktop's Standup, missed a few minutes ago, comes over too and is caught up.)
        #expect(waitUntil(timeout: 30) { laptop.history().contains { $0.title == "Review" && $0.outcome == .shown } })
        #expect(try server.notifications().contains { $0.summary.hasPrefix("Review at ") })
        #expect(try server.notifications().filter { $0.summary.hasPrefix("Dentist") }.count == 1)
        let reviewRecord = try #require(laptop.history().first { $0.title == "Review" && $0.outcome == .shown })
        #expect(reviewRecord.due == review.alarm)
        #expect(reviewRecord.time - review.alarm < .seconds(1), "late by \(reviewRecord.time - review.alarm)")
    }

    @Test func aSnoozeOnTheLaptopIsARelatedAlarmThatTheDesktopShows() throws {
        let peers = try Peers()
        let laptop = try machine(peers, "laptop", extra: "popups:\n  snoozeChoices: 15s\n")
        try laptop.startDaemon()
        let call = try peers.newEvent(on: "laptop", "Call Anna", alarmIn: 8, location: "Phone")
        let server = try #require(laptop.server)
        _ = try server.waitForNotifications(1, timeout: 30)
        // Snooze for 15 s (the config's choice, sent as snooze-SECONDS).
        try server.press("snooze-15", onNotification: 1)
        #expect(waitUntil(timeout: 10) { ((try? String(contentsOfFile: call.file, encoding: .utf8)) ?? "").contains("RELTYPE=SNOOZE") })
        let text = try String(contentsOfFile: call.file, encoding: .utf8)
        #expect(text.contains("ACKNOWLEDGED:"))
        #expect(text.contains("TRIGGER;VALUE=DATE-TIME:"))
        // The laptop shows it again once, at the snooze's end (its own snooze and the item's agree).
        let again = try server.waitForNotifications(2, timeout: 30)
        #expect(again.count == 2)
        #expect(!(try server.waitForNotifications(3, timeout: 3).count >= 3), "shown a third time")
        try peers.sync("laptop")
        try peers.sync("desktop")
        // The desktop reads the snooze alarm from the item: its preview lists it, not the acknowledged original.
        let desktop = try machine(peers, "desktop")
        let alarms = try desktop.herald("calendar", "alarms", peers.vdir("desktop"), "--from", ISO8601.format(call.alarm - .seconds(60), offsetSeconds: 0, zulu: true), "--json")
        #expect(alarms.status == 0, "\(alarms.stderr)")
        let list = try JSONSerialization.jsonObject(with: Data(alarms.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(list.count == 1, "\(alarms.stdout)")
        #expect((list.first?["at"] as? String).flatMap(ISO8601.parseInstant).map { $0 > call.alarm } == true)
    }
}
