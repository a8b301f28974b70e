import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// Herald's own jobs on every device (issue 30), with real peers on loopback: Radicale, a
/// "laptop" and a "desktop" (a vdir each, synced by vdirsyncer, each with its own heraldd and
/// notification server), and a "phone", a CalDAV client (python3-caldav) talking to Radicale
/// directly, doing what tasks.org and Thunderbird do to an item.
@Suite(.serialized)
struct SyncEndToEndTests {
    typealias Peers = CalendarPeersEndToEndTests.Peers

    /// The phone's client (scripts/oracles/caldav-phone.py).
    func phone(_ peers: Peers, _ arguments: String...) throws -> CommandResult {
        let port = try String(contentsOfFile: peers.directory + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let r = try runCommand("/usr/bin/python3", [Binaries.repositoryRoot + "/scripts/oracles/caldav-phone.py",
                                                    "http://127.0.0.1:\(port)/herald/calendar/"] + arguments,
                               environment: ["PATH": "/usr/bin:/bin", "HOME": peers.directory])
        #expect(r.status == 0, "phone \(arguments): \(r.stderr)")
        return r
    }

    /// A machine whose synced calendar is its vdir.
    func machine(_ peers: Peers, _ side: String, extra: String = "") throws -> Scene {
        let scene = try Scene()
        try scene.writeConfig("sync:\n  calendar: \(peers.vdir(side))\npopups:\n  snoozeChoices: 15s\n" + extra)
        try scene.startDaemon()
        return scene
    }

    /// The job id `herald ... --sync` printed ("Reminder ID: ...").
    func jobID(_ output: String) -> String {
        String(output.split(separator: " ")[1].dropLast())
    }

    func shown(_ scene: Scene, _ text: String) -> [HistoryRecord] {
        scene.history().filter { $0.outcome == .shown && ($0.title ?? "").hasPrefix(text) }
    }

    @Test func aReminderMadeOnTheLaptopRingsOnTheDesktopAndThePhoneAndDoneOnThePhoneEndsItEverywhere() throws {
        let peers = try Peers()
        let laptop = try machine(peers, "laptop")
        let desktop = try machine(peers, "desktop")

        // On the laptop: a reminder, synced, with a warning 25 s ahead of it.
        let made = try laptop.herald("remind", "--sync", "--in", "40s", "--warn", "25s", "Water the plants")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.hasSuffix("(synced to \(peers.vdir("laptop")))\n"), "\(made.stdout)")
        let id = jobID(made.stdout)
        let created = SystemClock().now
        let file = peers.vdir("laptop") + "/herald-\(id).ics"
        #expect(FileManager.default.fileExists(atPath: file))
        #expect(laptop.files("new").isEmpty, "a synced job is no job file")
        try peers.sync("laptop")
        try peers.sync("desktop")

        // The phone sees a to-do due then, with an alarm at it and one 25 s before.
        let onPhone = try phone(peers, "get", "herald-\(id)").stdout
        #expect(onPhone.contains("BEGIN:VTODO") && onPhone.contains("SUMMARY:Water the plants"))
        // (Radicale writes PT0S as P0D.)
        #expect((onPhone.contains("TRIGGER;RELATED=END:PT0S") || onPhone.contains("TRIGGER;RELATED=END:P0D"))
                && onPhone.contains("TRIGGER;RELATED=END:-PT25S"), "\(onPhone)")
        // todoman reads the synced to-do from the desktop's vdir.
        // (todoman 4's configuration is Python.)
        let todoConfig = peers.directory + "/todoman.py"
        try "path = \"\(peers.vdir("desktop"))\"\ndate_format = \"%Y-%m-%d\"\ntime_format = \"%H:%M\"\n"
            .write(toFile: todoConfig, atomically: true, encoding: .utf8)
        let todo = try runCommand("/usr/bin/todoman", ["--config", todoConfig, "--porcelain", "list"], environment: ["PATH": "/usr/bin:/bin", "HOME": peers.directory])
        #expect(todo.status == 0 && todo.stdout.contains("Water the plants"), "todoman: \(todo.stdout) \(todo.stderr)")

        // Both machines show the warning, once each, on time; `herald list` marks it synced.
        let warning = created + .seconds(15)
        #expect(waitUntil(timeout: 30) { !shown(desktop, "Water the plants").isEmpty && !shown(laptop, "Water the plants").isEmpty })
        for scene in [laptop, desktop] {
            let record = try #require(shown(scene, "Water the plants").first)
            #expect(abs((record.due - warning).microseconds) < 1_500_000, "due \(record.due), made \(created)")
            #expect(record.time - record.due < .seconds(1), "late by \(record.time - record.due)")
        }
        let listed = try desktop.herald("list").stdout
        #expect(listed.contains("reminder (synced)"), "\(listed)")
        let server = try #require(desktop.server)
        #expect(try server.notifications().first?.actions.prefix(2) == ["done", "Done"])

        // The phone completes it; after a sync neither machine shows its main alarm.
        _ = try phone(peers, "complete", "herald-\(id)")
        try peers.sync("desktop")
        try peers.sync("laptop")
        #expect(((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").contains("STATUS:COMPLETED"))
        let due = created + .seconds(40)
        #expect(waitUntil(timeout: 60) { SystemClock().now > due + .seconds(3) })
        for scene in [laptop, desktop] {
            #expect(shown(scene, "Water the plants").count == 1, "\(scene.history().map { "\($0.outcome) \($0.due)" })")
        }
    }

    @Test func thunderbirdsAcknowledgementFromThePhoneIsHonoured() throws {
        let peers = try Peers()
        let laptop = try machine(peers, "laptop")
        let made = try laptop.herald("remind", "--sync", "--in", "30s", "Stretch")
        let id = jobID(made.stdout)
        let due = try #require(ISO8601.parseInstant(try phoneDue(peers, laptop, id)))
        try peers.sync("laptop")
        // Dismissed in Thunderbird (on the phone's account): acknowledged through the alarm's time.
        _ = try phone(peers, "lastack", "herald-\(id)", CalendarWriteBackUTC.format(due + .seconds(1)))
        try peers.sync("laptop")
        let desktop = try machine(peers, "desktop")
        try peers.sync("desktop")
        #expect(waitUntil(timeout: 60) { SystemClock().now > due + .seconds(3) })
        #expect(shown(laptop, "Stretch").isEmpty && shown(desktop, "Stretch").isEmpty)
        #expect(try laptop.server!.notifications().isEmpty && desktop.server!.notifications().isEmpty)
    }

    /// The to-do's DUE as the laptop wrote it (UTC).
    func phoneDue(_ peers: Peers, _ laptop: Scene, _ id: String) throws -> String {
        let text = try String(contentsOfFile: peers.vdir("laptop") + "/herald-\(id).ics", encoding: .utf8)
        let line = try #require(text.split(separator: "\r\n").first { $0.hasPrefix("DUE:") })
        let v = Array(line.dropFirst(4))
        return "\(String(v[0..<4]))-\(String(v[4..<6]))-\(String(v[6..<8]))T\(String(v[9..<11])):\(String(v[11..<13])):\(String(v[13..<15]))Z"
    }

    @Test func aDismissAndASnoozeOnTheLaptopReachTheDesktopAndThePhone() throws {
        let peers = try Peers()
        let laptop = try machine(peers, "laptop")
        let desktop = try machine(peers, "desktop")
        let dentist = jobID(try laptop.herald("remind", "--sync", "--in", "12s", "Dentist").stdout)
        let call = jobID(try laptop.herald("remind", "--sync", "--in", "14s", "Call Anna").stdout)
        try peers.sync("laptop")
        try peers.sync("desktop")
        let server = try #require(laptop.server)
        let both = try server.waitForNotifications(2, timeout: 30)
        #expect(Set(both.map { $0.summary.components(separatedBy: " due ").first ?? "" }) == ["Dentist", "Call Anna"], "\(both.map(\.summary))")
        let dentistPopup = try #require(both.firstIndex { $0.summary.hasPrefix("Dentist") }) + 1
        let callPopup = try #require(both.firstIndex { $0.summary.hasPrefix("Call Anna") }) + 1
        // Dismiss (a click on the popup) and Snooze 15 s, on the laptop.
        try server.press("default", onNotification: dentistPopup)
        try server.press("snooze-15", onNotification: callPopup)
        let dentistFile = peers.vdir("laptop") + "/herald-\(dentist).ics", callFile = peers.vdir("laptop") + "/herald-\(call).ics"
        #expect(waitUntil(timeout: 10) {
            ((try? String(contentsOfFile: dentistFile, encoding: .utf8)) ?? "").contains("ACKNOWLEDGED:")
                && ((try? String(contentsOfFile: callFile, encoding: .utf8)) ?? "").contains("X-MOZ-SNOOZE-TIME:")
        })
        try peers.sync("laptop")
        try peers.sync("desktop")
        // The phone reads both conventions.
        let d = try phone(peers, "get", "herald-\(dentist)").stdout
        #expect(d.contains("ACKNOWLEDGED:") && d.contains("X-MOZ-LASTACK:"), "\(d)")
        let c = try phone(peers, "get", "herald-\(call)").stdout
        #expect(c.contains("X-MOZ-SNOOZE-TIME:") && c.contains("RELATED-TO;RELTYPE=SNOOZE:"), "\(c)")
        // The desktop shows the snoozed call again at the snooze's end, as the laptop does.
        #expect(waitUntil(timeout: 40) { shown(desktop, "Call Anna").count == 2 && shown(laptop, "Call Anna").count == 2 },
                "\(desktop.history().map { "\($0.title ?? "") \($0.outcome) \($0.due)" })")
        let again = try #require(shown(desktop, "Call Anna").last)
        // (The laptop's history notes the occurrence it showed again; the desktop's, the snooze alarm.)
        let snoozeEnd = try #require(shown(laptop, "Call Anna").last?.time)
        let seen = "desktop \(shown(desktop, "Call Anna").map { "\($0.due)@\($0.time)" }), laptop \(shown(laptop, "Call Anna").map { "\($0.due)@\($0.time)" })"
        // (The item's TRIGGER is in whole seconds.)
        #expect(abs((again.due - snoozeEnd).microseconds) < 1_000_000, "\(seen)")
        #expect(shown(desktop, "Dentist").count == 1 && shown(laptop, "Dentist").count == 1)
    }

    @Test func aDeliveryIsAnEventAtTheAddressAndCancelRemovesItEverywhere() throws {
        let peers = try Peers()
        let laptop = try machine(peers, "laptop", extra: "profile:\n  name: Alice Smith\n  address: 12 Elm St\n")
        // (vdirsyncer refuses to sync a collection that was emptied: another item keeps it from that.)
        #expect(try laptop.herald("remind", "--sync", "--in", "5h", "Pick up the parcel").status == 0)
        let made = try laptop.herald("deliver", "--sync", "--in", "2h", "--item", "apple", "--item", "milk x2")
        #expect(made.status == 0, "\(made.stderr)")
        let id = jobID(made.stdout)
        try peers.sync("laptop")
        let event = try phone(peers, "get", "herald-\(id)").stdout
        #expect(event.contains("BEGIN:VEVENT") && event.contains("LOCATION:12 Elm St") && event.contains("SUMMARY:Delivery: 3 items"), "\(event)")
        #expect(event.contains("DESCRIPTION:For Alice Smith\\napple\\nmilk ×2"), "\(event)")
        // The laptop's heraldd planned it; `herald show ID` names the synced item.
        #expect(waitUntil(timeout: 10) { ((try? laptop.herald("list", "--json").stdout) ?? "").contains("\"synced\"") })
        let show = try laptop.herald("show", id)
        #expect(show.status == 0 && show.stdout.contains("synced:   delivery \(id)"), "\(show.stdout) \(show.stderr)")
        // Rescheduled: its DTSTART moves; cancelled: the item is gone from the vdir, then the server.
        #expect(try laptop.herald("reschedule", id, "--in", "3h").status == 0)
        try peers.sync("laptop")
        #expect(try phone(peers, "get", "herald-\(id)").stdout != event)
        let cancel = try laptop.herald("cancel", id)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(!FileManager.default.fileExists(atPath: peers.vdir("laptop") + "/herald-\(id).ics"))
        try peers.sync("laptop")
        let port = try String(contentsOfFile: peers.directory + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let gone = try runCommand("/usr/bin/python3", [Binaries.repositoryRoot + "/scripts/oracles/caldav-phone.py",
                                                       "http://127.0.0.1:\(port)/herald/calendar/", "get", "herald-\(id)"],
                                  environment: ["PATH": "/usr/bin:/bin", "HOME": peers.directory])
        #expect(gone.status != 0 && gone.stderr.contains("no item"))
        #expect(waitUntil(timeout: 10) { !((try? laptop.herald("list", "--json").stdout) ?? "\"\(id)\"").contains("\"\(id)\"") })
        #expect(try laptop.herald("list", "--json").stdout.contains("\"synced\""), "the other synced item is still listed")
    }

    @Test func withoutASyncConfigSyncIsRefusedAndNothingChanges() throws {
        let scene = try Scene(server: false)
        let r = try scene.herald("remind", "--sync", "--in", "1h", "x")
        #expect(r.status == 64)
        #expect(r.stderr == "herald: --sync needs sync.calendar in the config: the vdir collection vdirsyncer syncs (see the README, \"On all your devices\")\n")
        #expect(scene.files("new").isEmpty)
        let doctor = try scene.herald("doctor", "--json")
        #expect(!doctor.stdout.contains("synced calendar"))
        let both = try scene.herald("remind", "--sync", "--local", "--in", "1h", "x")
        #expect(both.status == 64 && both.stderr.contains("--sync and --local do not go together"))
    }
}

/// `20261126T120000Z`, as calendars write UTC times.
enum CalendarWriteBackUTC {
    static func format(_ t: Instant) -> String {
        let c = TimeZoneRules.utc.civil(t)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year, c.month, c.day, c.hour, c.minute, c.second)
    }
}
