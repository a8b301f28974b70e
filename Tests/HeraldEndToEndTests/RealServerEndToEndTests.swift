import Foundation
import HeraldTestSupport
import Testing

/// A real desktop for a test: Xvfb, a private bus, the AT-SPI bus and a real notification
/// server, run by scripts/desktop/desktop.py, whose buttons are found through AT-SPI and
/// clicked with xdotool (a real mouse click on the X server).
final class RealDesktop {
    let environment: [String: String]
    /// Started with posix_spawn, whose children begin with no signal blocked: under Foundation's
    /// Process the script inherited a blocked SIGTERM, was killed instead, and left its X
    /// server and notification server running.
    private let serve: Spawned
    private let script: String

    /// - Parameter environment: more for the session's programs (`PULSE_SERVER`: where a server
    ///   that plays sounds itself plays them).
    init(server: String, directory: String, environment extra: [String: String] = [:], timeout: Double = 30) throws {
        script = Binaries.repositoryRoot + "/scripts/desktop/desktop.py"
        let envFile = directory + "/desktop.env"
        let serve = try Spawned.start("/usr/bin/python3", [script, "serve", "--server", server, "--env-file", envFile],
                                      environment: ["PATH": "/usr/bin:/bin", "HOME": directory].merging(extra) { _, new in new },
                                      outputPath: directory + "/desktop.log")
        self.serve = serve
        var env: [String: String] = [:]
        guard waitUntil(timeout: timeout, {
            guard let text = try? String(contentsOfFile: envFile, encoding: .utf8), !text.isEmpty else { return serve.poll() != nil }
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { env[String(parts[0])] = String(parts[1]) }
            }
            return true
        }), serve.poll() == nil, env["DBUS_SESSION_BUS_ADDRESS"] != nil else {
            serve.signal(SIGTERM)
            serve.wait()
            throw SetupError("the desktop session (\(server)) did not start: \((try? String(contentsOfFile: directory + "/desktop.log", encoding: .utf8)) ?? "")")
        }
        environment = env
    }

    /// Runs a desktop.py command in the session; its output, or an issue with its error.
    @discardableResult
    func run(_ arguments: String..., timeout: TimeInterval = 60) throws -> CommandResult {
        try runCommand("/usr/bin/python3", [script] + arguments, environment: environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a },
                       timeout: timeout)
    }

    func popups() throws -> Int { Int(try run("popups").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }

    /// Ends the session: desktop.py stops its servers and removes its files on SIGTERM.
    func stop() {
        serve.signal(SIGTERM)
        if waitUntil(timeout: 20, { serve.poll() != nil }) { return }
        serve.signal(SIGKILL)
        serve.wait()
    }
}

/// The popups on xfce4-notifyd, with real mouse clicks on its buttons.
@Suite(.serialized)
struct RealServerEndToEndTests {
    func outcomes(_ scene: Scene, _ id: String) -> [String] {
        scene.history().filter { $0.id == id }.map(\.outcome.rawValue)
    }

    @Test func onXfce4NotifydSnoozeDoneStayingAndReplacingWork() throws {
        let scene = try Scene(server: false)
        let desktop = try RealDesktop(server: "xfce4-notifyd", directory: scene.directory)
        defer { desktop.stop() }
        for (key, value) in desktop.environment { scene.extraEnvironment[key] = value }
        try scene.writeConfig("defaults:\n  snooze: 4s\nprofile:\n  name: Zoë\n  address: 3 Elm & Oak <B>\n")
        try scene.startDaemon()

        // A reminder: its buttons are drawn with their labels, and it stays past the server's 10 s.
        try scene.herald("remind", "--in", "1s", "--id", "dentist", "--title", "Dentist & <Co>", "Zoë's check-up")
        #expect(try desktop.run("wait-popups", "1", "--timeout", "15").status == 0)
        let buttons = try desktop.run("buttons").stdout
        for label in ["\"Done\"", "\"Snooze\"", "\"5 min\"", "\"1 h\""] { #expect(buttons.contains(label), "\(buttons)") }
        #expect(!buttons.contains("Acknowledge"), "\(buttons)")  // 0.7 would draw the body-click action as a button
        let texts = try desktop.run("texts").stdout
        #expect(texts.contains("Dentist & <Co>") && texts.contains("Zoë's check-up"), "\(texts)")
        let appeared = Date()
        #expect(!waitUntil(timeout: 15, pollMilliseconds: 500) { (try? desktop.popups()) != 1 })  // never gone in 15 s
        #expect(Date().timeIntervalSince(appeared) >= 15)
        #expect(try desktop.popups() == 1)

        // Snooze: a real click closes it; it comes back after the snooze span (4 s).
        #expect(try desktop.run("click", "Snooze").status == 0)
        #expect(try desktop.run("wait-popups", "0", "--timeout", "10").status == 0)
        #expect(waitUntil { self.outcomes(scene, "dentist") == ["shown", "snoozed"] })
        #expect(try desktop.run("wait-popups", "1", "--timeout", "15").status == 0)
        #expect(outcomes(scene, "dentist") == ["shown", "snoozed", "shown"])

        // Done ends it.
        #expect(try desktop.run("click", "Done").status == 0)
        #expect(try desktop.run("wait-popups", "0", "--timeout", "10").status == 0)
        #expect(waitUntil { self.outcomes(scene, "dentist") == ["shown", "snoozed", "shown", "done"] })
        #expect(scene.files("jobs").isEmpty)

        // A delivery: its arrival replaces the heads-up, leaving exactly one popup.
        try scene.herald("deliver", "--in", "4s", "--lead", "2s", "--id", "parcel")
        #expect(try desktop.run("wait-popups", "1", "--timeout", "15").status == 0)
        #expect(waitUntil(timeout: 15) { self.outcomes(scene, "parcel") == ["shown", "replaced", "shown"] })
        #expect(try desktop.popups() == 1)
        let arrival = try desktop.run("texts").stdout
        #expect(arrival.contains("Your delivery is here") && arrival.contains("3 Elm & Oak <B>"), "\(arrival)")
        #expect(!arrival.contains("Delivery in"), "\(arrival)")
    }

    /// An alarm on xfce4-notifyd: Stop and Snooze drawn and clicked for real, and it stays past
    /// the server's 10 s until one is.
    @Test func onXfce4NotifydAnAlarmStaysUntilStopOrSnooze() throws {
        let scene = try Scene(server: false)
        let desktop = try RealDesktop(server: "xfce4-notifyd", directory: scene.directory)
        defer { desktop.stop() }
        for (key, value) in desktop.environment { scene.extraEnvironment[key] = value }
        try scene.writeConfig("alarms:\n  snooze: 4s\n")
        try scene.startDaemon()
        try scene.herald("alarm", "--in", "1s", "--id", "wake", "Wake up")
        #expect(try desktop.run("wait-popups", "1", "--timeout", "15").status == 0)
        let buttons = try desktop.run("buttons").stdout
        for label in ["\"Stop\"", "\"Snooze\""] { #expect(buttons.contains(label), "\(buttons)") }
        #expect(!waitUntil(timeout: 13, pollMilliseconds: 500) { (try? desktop.popups()) != 1 })  // past the server's 10 s
        #expect(try desktop.run("click", "Snooze").status == 0)
        #expect(try desktop.run("wait-popups", "0", "--timeout", "10").status == 0)
        #expect(waitUntil { self.outcomes(scene, "wake") == ["shown", "snoozed"] })
        #expect(try desktop.run("wait-popups", "1", "--timeout", "15").status == 0)
        #expect(try desktop.run("click", "Stop").status == 0)
        #expect(try desktop.run("wait-popups", "0", "--timeout", "10").status == 0)
        #expect(waitUntil { self.outcomes(scene, "wake") == ["shown", "snoozed", "shown", "done"] })
        #expect(scene.files("jobs").isEmpty)
    }
}
