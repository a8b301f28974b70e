import Foundation
import HeraldTestSupport
import Testing

/// Buttons, outcomes, repeats, replacement, expiry, quiet time and the CLI commands for them,
/// with the real binaries on a private bus against python-dbusmock's notification server
/// (button presses and closings are emitted from the server's side).
@Suite(.serialized)
struct PopupEndToEndTests {
    func outcomes(_ scene: Scene, _ id: String) -> [String] {
        scene.history().filter { $0.id == id }.map(\.outcome.rawValue)
    }

    @Test func aReminderHasItsButtonsStaysOnScreenAndASnoozeChoiceBringsItBack() throws {
        let scene = try Scene()
        try scene.startDaemon()
        #expect(try scene.herald("remind", "--in", "1s", "--id", "tea", "Tea & <cake>").status == 0)
        let server = try #require(scene.server)
        let first = try #require(server.waitForNotifications(1).first)
        #expect(first.actions == ["done", "Done", "snooze", "Snooze", "snooze-300", "5 min", "snooze-3600", "1 h",
                                  "default", "Acknowledge"])
        #expect(first.timeout == 0)  // never expires
        #expect(first.hints["sound-name"] == nil)  // reminders are silent by default
        try server.press("snooze-300", onNotification: 1)
        #expect(waitUntil { (try? server.closed()) == [1] })  // the button closes it
        #expect(waitUntil { self.outcomes(scene, "tea") == ["shown", "snoozed"] })
        let listed = try scene.herald("list", "--snoozed")
        #expect(listed.stdout.contains("tea") && listed.stdout.contains("in 5 min, snoozed"), "\(listed.stdout)")
        let history = try scene.herald("history")
        #expect(history.stdout.contains("snoozed until "), "\(history.stdout)")
        #expect(try scene.herald("list", "--snoozed", "--json").stdout.contains("\"snoozedUntil\""))
    }

    @Test func aTimerRingsAndRepeatsInPlaceUntilDismissed() throws {
        let scene = try Scene()
        try scene.writeConfig("popups:\n  maxRepeats: 5\n")
        try scene.startDaemon()
        // Repeats 5 s apart: the user's close (two mockctl runs once the repeat is seen) comes
        // before the next repeat with seconds to spare on a busy machine.
        #expect(try scene.herald("timer", "1s", "--repeat", "5s", "Eggs").status == 0)
        let server = try #require(scene.server)
        let shown = try server.waitForNotifications(2, timeout: 20)
        #expect(shown[0].summary == "Eggs")
        // The server lists no `sound`: heraldd plays the ring and tells the server not to.
        #expect(shown[0].hints["sound-name"] == nil && shown[0].hints["suppress-sound"] != nil)
        #expect(shown[0].timeout == 0)
        #expect(shown[0].replaces == 0)
        #expect(shown[1].replaces == 1)  // the repeat replaced the first popup in place
        try server.close(1, reason: 2)  // the user closed it
        let id = try #require(scene.history().first?.id)
        #expect(waitUntil { self.outcomes(scene, id).last == "dismissed" })
        #expect(waitUntil { scene.files("jobs").isEmpty })
        let count = try server.notifications().count
        // No more repeats: a marker due after the next repeat would have been is the next popup.
        try scene.herald("remind", "--in", "6s", "--id", "marker", "Marker")
        #expect(try server.waitForNotifications(count + 1, timeout: 20).dropFirst(count).map(\.summary) == ["Marker"])
        #expect(outcomes(scene, id) == ["shown", "replaced", "shown", "dismissed"])
    }

    @Test func ackFromTheCommandLineStopsTheRepeatsAndClosesThePopup() throws {
        let scene = try Scene()
        try scene.startDaemon()
        #expect(try scene.herald("remind", "--in", "1s", "--repeat", "1h", "--id", "pills", "Pills").status == 0)
        let server = try #require(scene.server)
        _ = try server.waitForNotifications(1)
        #expect(waitUntil { scene.files("jobs").first?.split(separator: "@").count == 3 })  // waiting to repeat
        let ack = try scene.herald("ack", "pills")
        #expect(ack.status == 0, "\(ack.stderr)")
        #expect(ack.stdout == "Acknowledged pills: finished\n")
        #expect(waitUntil { (try? server.closed()) == [1] })
        #expect(scene.files("jobs").isEmpty)
        #expect(outcomes(scene, "pills") == ["shown", "done"])
        let again = try scene.herald("ack", "pills")
        #expect(again.status == 65)
        #expect(again.stderr.contains("no pending job 'pills'"))
    }

    @Test func aDeliveryArrivalReplacesItsHeadsUpAndTrackOpensTheURL() throws {
        let scene = try Scene()
        let opener = scene.directory + "/opener.sh"
        try "#!/bin/sh\necho \"$1\" > \(scene.directory)/opened\n".write(toFile: opener, atomically: true, encoding: .utf8)
        chmod(opener, 0o755)
        scene.extraEnvironment["HERALD_OPENER"] = opener
        try scene.startDaemon()
        #expect(try scene.herald("deliver", "--in", "3s", "--lead", "2s", "--name", "Ann", "--address", "Elm St",
                                 "--url", "https://track.example/42?a=1&b=2").status == 0)
        let server = try #require(scene.server)
        let both = try server.waitForNotifications(2)
        #expect(both[0].actions == ["got-it", "Got it", "track", "Track", "default", "Acknowledge"])
        #expect(both[0].timeout == -1)  // a heads-up: the server's default
        #expect(both[1].timeout == 0)   // the arrival stays
        #expect(both[1].replaces == 1)
        try server.press("track", onNotification: 1)
        #expect(waitUntil { (try? String(contentsOfFile: scene.directory + "/opened", encoding: .utf8)) == "https://track.example/42?a=1&b=2\n" })
        let id = try #require(scene.history().first?.id)
        #expect(waitUntil { self.outcomes(scene, id) == ["shown", "replaced", "shown", "done"] })
        let refused = try scene.herald("deliver", "--in", "1h", "--name", "Ann", "--address", "Elm", "--url", "file:///etc/passwd")
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--url: 'file:///etc/passwd' is not an http or https URL"))
    }

    @Test func anExpiredPopupIsRecordedAndTheConfigSetsExpiry() throws {
        let scene = try Scene()
        try scene.writeConfig("popups:\n  expire:\n    reminder: 30s\n")
        try scene.startDaemon()
        try scene.herald("remind", "--in", "1s", "--id", "r", "Water")
        let server = try #require(scene.server)
        let shown = try #require(server.waitForNotifications(1).first)
        #expect(shown.timeout == 30_000)
        try server.close(1, reason: 1)
        #expect(waitUntil { self.outcomes(scene, "r") == ["shown", "expired"] })
        #expect(try scene.herald("history").stdout.contains("expired"))
    }

    @Test func quietTimeHoldsPopupsForOneSummaryAndLetsCriticalOnesThrough() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let on = try scene.herald("quiet", "on")
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stdout.hasPrefix("Quiet until 'herald quiet off'"))
        #expect(try scene.herald("quiet", "status").stdout.hasPrefix("Quiet until 'herald quiet off'"))
        for k in 1...5 { try scene.herald("remind", "--in", "1s", "--id", "r\(k)", "Reminder \(k)") }
        try scene.herald("remind", "--in", "2s", "--id", "alarm", "--urgency", "critical", "Critical")
        let server = try #require(scene.server)
        #expect(try server.waitForNotifications(1).map(\.summary) == ["Critical"])  // on time, alone
        #expect(waitUntil { scene.daemon!.log.components(separatedBy: "Popup held for a summary").count == 6 })
        #expect(try server.notifications().count == 1)
        #expect(try scene.herald("quiet", "off").stdout.hasPrefix("Quiet off."))
        let all = try server.waitForNotifications(2)
        #expect(all.count == 2)
        #expect(all[1].summary == "5 reminders while you were away")
        #expect(all[1].body.split(separator: "\n").count == 5)
        #expect(waitUntil { scene.history().filter { $0.id.hasPrefix("r") && $0.note == "in a summary" }.count == 5 })
        #expect(try scene.herald("quiet", "status").stdout.hasPrefix("Not quiet"))
        let bad = try scene.herald("quiet", "off", "--for", "1h")
        #expect(bad.status == 64)
    }

    /// `count` reminders due at one instant `ahead` seconds from now, as one import.
    func burst(_ scene: Scene, _ count: Int, prefix: String, ahead: Double = 2) throws {
        let at = ISO8601DateFormatter().string(from: Date().addingTimeInterval(ahead))
        let lines = (0..<count).map { "{\"version\":1,\"kind\":\"reminder\",\"id\":\"\(prefix)\($0)\",\"at\":\"\(at)\",\"text\":\"\(prefix)-\($0)\"}" }
        let imported = try scene.herald("import", "-", stdin: lines.joined(separator: "\n") + "\n")
        try #require(imported.status == 0, "\(imported.stderr)")
    }

    /// Starts `pairserver.py` (a server that answers a Notify only once a second waits too, or
    /// after 1 s; with `close`, closing each popup before it answers) and heraldd.
    func pairScene(_ mode: [String] = []) throws -> (Scene, Child, String) {
        let scene = try Scene(server: false)
        let log = scene.directory + "/pairs.jsonl"
        let server = try Child("/usr/bin/python3", [Binaries.supportDirectory + "/pairserver.py", log, "1000"] + mode,
                               environment: scene.environment, directory: scene.directory, name: "pairserver")
        try #require(waitUntil { server.output.contains("ready") }, "\(server.log)")
        try scene.startDaemon()
        return (scene, server, log)
    }

    struct PairCall: Decodable { var summary: String; var waiting: Int }

    /// The Notify calls `pairserver.py` logged, once there are `count`.
    func pairCalls(_ log: String, _ count: Int) throws -> [PairCall] {
        var calls: [PairCall] = []
        _ = try waitUntil(timeout: 20) {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            calls = try text.split(separator: "\n").map { try JSONDecoder().decode(PairCall.self, from: Data($0.utf8)) }
            return calls.count >= count
        }
        return calls
    }

    /// A burst's popups go out two at a time: a server that answers a Notify only once a second
    /// is waiting (or after 1 s) gets a second before it answers the first, and each popup once.
    @Test func aBurstHasTwoShowsOnTheWireAtOnce() throws {
        let (scene, server, log) = try pairScene()
        defer { server.stop() }
        try burst(scene, 9, prefix: "p")
        let calls = try pairCalls(log, 9)
        #expect(calls.map(\.summary).sorted() == (0..<9).map { "p-\($0)" }.sorted(), "\(scene.daemon?.log ?? "")")
        // The first goes alone (it learns what the server is); after it, two are on the wire.
        #expect(calls.first?.waiting == 1)
        #expect(calls.map(\.waiting).max() == 2, "\(calls.map(\.waiting))")
        #expect(waitUntil { (0..<9).allSatisfy { self.outcomes(scene, "p\($0)") == ["shown"] } })
    }

    /// A server may close a popup before its show's answer reaches heraldd (here the signal goes
    /// out before the answer, while a second show is on the wire): each closing is still heard
    /// and recorded, whichever of libnotify and heraldd hears it first.
    @Test func aPopupClosedBeforeItsShowIsAnsweredIsRecordedClosed() throws {
        let (scene, server, log) = try pairScene(["close"])
        defer { server.stop() }
        try burst(scene, 9, prefix: "c")
        let calls = try pairCalls(log, 9)
        #expect(calls.map(\.waiting).max() == 2, "\(calls.map(\.waiting))")
        let ids = (0..<9).map { "c\($0)" }
        #expect(waitUntil(timeout: 15) { ids.allSatisfy { self.outcomes(scene, $0) == ["shown", "expired"] } },
                "\(ids.map { self.outcomes(scene, $0) })")
    }
}
