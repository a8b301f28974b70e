import Foundation
import HeraldTestSupport
import Testing

/// Herald on GNOME Shell 43, the desktop most Linux users run: the real shell under Xvfb with
/// its notification proxy, its banners found through AT-SPI and clicked with xdotool
/// (scripts/desktop/gnome.py). GNOME draws at most 3 buttons, keeps 3 notifications per app,
/// ignores expire_timeout, plays sounds itself and has its own Do Not Disturb.
@Suite(.serialized)
struct GnomeShellEndToEndTests {
    /// A GNOME Shell session, heraldd on its bus, and a null sink both of them play into.
    final class Session {
        let scene: Scene
        let desktop: RealDesktop
        let pulse: NullSinkRecorder

        init(config: String = "defaults:\n  snooze: 4s\n") throws {
            scene = try Scene(server: false)
            pulse = try NullSinkRecorder(directory: scene.directory)
            do {
                desktop = try RealDesktop(server: "gnome-shell", directory: scene.directory,
                                          environment: ["PULSE_SERVER": pulse.server], timeout: 90)
            } catch {
                pulse.stop()
                throw error
            }
            for (key, value) in desktop.environment { scene.extraEnvironment[key] = value }
            scene.extraEnvironment["PULSE_SERVER"] = pulse.server
            try scene.writeConfig(config)
            try scene.startDaemon()
        }

        func stop() {
            scene.daemon?.stop()
            desktop.stop()
            pulse.stop()
        }

        func outcomes(_ id: String) -> [String] { scene.history().filter { $0.id == id }.map(\.outcome.rawValue) }
        func notes(_ id: String) -> [String] { scene.history().filter { $0.id == id }.compactMap(\.note) }
        /// The notifications GNOME holds (banner and message list), from every app.
        func held() -> Int { (try? desktop.popups()) ?? -1 }
    }

    /// Three buttons of four: Done, Snooze and 5 min are drawn, the body names the command for
    /// "1 h"; a real click on Snooze brings it back 4 s later, one on Done ends it, each once
    /// (GNOME emits ActionInvoked twice).
    @Test func theFirstThreeButtonsAreDrawnAndClickingSnoozeAndDoneWorks() throws {
        let s = try Session()
        defer { s.stop() }
        try s.scene.herald("remind", "--in", "1s", "--id", "dentist", "--title", "Dentist & <Co>", "Zoë's check-up")
        #expect(try s.desktop.run("wait-popups", "1", "--timeout", "20").status == 0)
        let buttons = try s.desktop.run("buttons").stdout
        for label in ["\"Done\"", "\"Snooze\"", "\"5 min\""] { #expect(buttons.contains(label), "\(buttons)") }
        #expect(!buttons.contains("\"1 h\""), "\(buttons)")
        let texts = try s.desktop.run("texts").stdout
        #expect(texts.contains("Dentist & <Co>") && texts.contains("Zoë's check-up"), "\(texts)")
        #expect(texts.contains("1 h: herald snooze dentist 1h"), "\(texts)")

        #expect(try s.desktop.run("click", "Snooze").status == 0)
        #expect(waitUntil { s.outcomes("dentist") == ["shown", "snoozed"] })
        #expect(waitUntil(timeout: 15) { s.outcomes("dentist") == ["shown", "snoozed", "shown"] })
        #expect(try s.desktop.run("click", "Done").status == 0)
        #expect(waitUntil { s.outcomes("dentist") == ["shown", "snoozed", "shown", "done"] })
        // Done closed it: GNOME holds nothing of Herald's any more.
        #expect(try s.desktop.run("wait-popups", "0", "--timeout", "10").status == 0)
        #expect(!waitUntil(timeout: 3) { s.outcomes("dentist").count > 4 })  // the second ActionInvoked did nothing
        #expect(s.scene.files("jobs").isEmpty)
    }

    /// Five reminders repeating every 3 s: GNOME keeps 3 per app and would close the oldest
    /// for each new one. Herald never has more than 3 there: two on their own (repeating in
    /// place) and one summary of the other three, each recorded; none closed unseen.
    @Test func fiveRepeatingRemindersNeverThrash() throws {
        let s = try Session()
        defer { s.stop() }
        for k in 0..<5 {
            try s.scene.herald("remind", "--in", "\(k + 1)s", "--repeat", "3s", "--id", "r\(k)", "Reminder \(k)")
        }
        // Watched until every reminder has repeated at least once (the last, r4, is shown in
        // the summary a second time), counting what GNOME holds at each look.
        let ids = (0..<5).map { "r\($0)" }
        var most = 0
        #expect(waitUntil(timeout: 25, pollMilliseconds: 200) {
            most = max(most, s.held())
            return s.notes("r4").filter { $0 == "in a summary" }.count >= 2 && s.outcomes("r0").filter { $0 == "replaced" }.count >= 2
        })
        #expect(most == 3, "at most \(most) held")
        #expect(ids.filter { s.notes($0).contains("in a summary") } == ["r2", "r3", "r4"])
        // Nothing was pushed out: no popup closed for room, none taken for unseen.
        #expect(ids.allSatisfy { !s.outcomes($0).contains("expired") && !s.notes($0).contains("closed by the server for room") })
        let texts = try s.desktop.run("texts").stdout  // the banner, then the message list
        #expect(texts.contains("3 more reminders"), "\(texts)")
    }

    /// GNOME lists `sound` and plays `sound-name` itself: a timer's ring is one stream on the
    /// null sink, GNOME's, and heraldd plays nothing.
    @Test func theSoundIsHeardOnce() throws {
        let s = try Session()
        defer { s.stop() }
        try s.pulse.record()
        try s.pulse.countStreams()
        try s.scene.herald("timer", "1s", "Eggs")
        #expect(waitUntil(timeout: 15) { s.scene.history().first?.outcome.rawValue == "shown" })
        #expect(waitUntil(timeout: 10) { s.pulse.newStreams >= 1 })
        var heralddPlayed = false
        #expect(!waitUntil(timeout: 6) {
            heralddPlayed = heralddPlayed || s.pulse.isPlaying("Herald")
            return s.pulse.newStreams > 1
        })
        #expect(!heralddPlayed)
        #expect(s.pulse.newStreams == 1)
        let rms = try s.pulse.stopAndMeasure()
        #expect(rms > 0.01, "RMS amplitude \(rms)")
    }

    /// GNOME removes a known app's notifications when the name that sent them goes; since 3.36
    /// that name is its notification proxy's, not heraldd's: a heraldd restart (with the
    /// desktop-entry hint, as everywhere) leaves the popup where it was.
    @Test func aHeralddRestartKeepsThePopupOnScreen() throws {
        let s = try Session()
        defer { s.stop() }
        try s.scene.herald("remind", "--in", "1s", "--id", "kept", "Still here")
        #expect(try s.desktop.run("wait-popups", "1", "--timeout", "20").status == 0)
        s.scene.daemon?.stop()
        try s.scene.startDaemon()
        #expect(!waitUntil(timeout: 5) { s.held() != 1 })
        #expect(try s.desktop.run("texts").stdout.contains("Still here"))
    }

    /// GNOME's Do Not Disturb (show-banners off) holds a reminder; `herald status` says where
    /// it came from; switched off, the reminder comes as one summary.
    @Test func doNotDisturbHoldsAReminderUntilItEnds() throws {
        let s = try Session()
        defer { s.stop() }
        #expect(try s.desktop.run("dnd", "on").status == 0)
        #expect(waitUntil { s.scene.status()?.doNotDisturb?.contains("GNOME Shell") == true })
        let status = try s.scene.herald("status").stdout
        #expect(status.contains("do not disturb: on, from GNOME Shell"), "\(status)")
        try s.scene.herald("remind", "--in", "1s", "--id", "hush", "Hush")
        #expect(!waitUntil(timeout: 4) { !s.outcomes("hush").isEmpty })
        #expect(try s.desktop.run("dnd", "off").status == 0)
        #expect(waitUntil(timeout: 10) { s.notes("hush") == ["in a summary"] })
        #expect(s.scene.status()?.doNotDisturb == nil)
    }

    /// An alarm on GNOME: Stop and Snooze drawn and clicked for real, the banner kept until one
    /// is (a critical notification), and GNOME's Do Not Disturb does not hold it.
    @Test func anAlarmStaysUntilStopOrSnoozeIsClickedEvenInDoNotDisturb() throws {
        let s = try Session(config: "alarms:\n  snooze: 4s\n")
        defer { s.stop() }
        #expect(try s.desktop.run("dnd", "on").status == 0)
        #expect(waitUntil { s.scene.status()?.doNotDisturb?.contains("GNOME Shell") == true })
        try s.scene.herald("alarm", "--in", "1s", "--id", "wake", "Wake up")
        #expect(try s.desktop.run("wait-popups", "1", "--timeout", "20").status == 0)
        let buttons = try s.desktop.run("buttons").stdout
        for label in ["\"Stop\"", "\"Snooze\""] { #expect(buttons.contains(label), "\(buttons)") }
        #expect(!waitUntil(timeout: 12, pollMilliseconds: 500) { s.held() != 1 })  // stays
        #expect(try s.desktop.run("click", "Snooze").status == 0)
        #expect(waitUntil { s.outcomes("wake") == ["shown", "snoozed"] })
        #expect(waitUntil(timeout: 15) { s.outcomes("wake") == ["shown", "snoozed", "shown"] })
        #expect(try s.desktop.run("click", "Stop").status == 0)
        #expect(waitUntil { s.outcomes("wake") == ["shown", "snoozed", "shown", "done"] })
        #expect(try s.desktop.run("wait-popups", "0", "--timeout", "10").status == 0)
        #expect(s.scene.files("jobs").isEmpty)
    }
}
