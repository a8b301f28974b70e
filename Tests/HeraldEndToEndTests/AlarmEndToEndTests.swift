import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// A private system bus with python-dbusmock's logind on it: inhibitor locks and PrepareForSleep.
final class LogindMock {
    let bus: SessionBus
    private let child: Child
    let environment: [String: String]

    init(directory: String) throws {
        let dir = directory + "/system-bus"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        bus = try SessionBus(directory: dir)
        environment = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"]
        child = try Child("/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "logind"], environment: environment,
                          directory: dir, name: "logind")
        guard try control("wait").status == 0 else { throw SetupError("the logind mock did not start: \(child.log)") }
    }

    @discardableResult
    func control(_ arguments: String...) throws -> CommandResult {
        try runCommand("/usr/bin/python3", [Binaries.supportDirectory + "/logindctl.py"] + arguments, environment: environment)
    }

    /// The inhibitor locks held now: [what, who, why, mode].
    func inhibitors() throws -> [[String]] {
        let r = try control("inhibitors")
        guard r.status == 0 else { throw SetupError("ListInhibitors failed: \(r.stderr)") }
        return try JSONDecoder().decode([[String]].self, from: Data(r.stdout.utf8))
    }

    func stop() {
        child.stop()
        bus.stop()
    }
}

/// The wake-from-suspend timers a process holds: each `CLOCK_REALTIME_ALARM` (clock 8) timerfd's
/// remaining time, read from /proc/PID/fdinfo as the kernel shows it.
func wakeTimers(of pid: Int32) -> [Double] {
    guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return [] }  // the process is gone
    return fds.compactMap { fd -> Double? in
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) == "anon_inode:[timerfd]",
              let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8),
              info.contains("clockid: 8"),
              let line = info.split(separator: "\n").first(where: { $0.hasPrefix("it_value:") }) else { return nil }
        let numbers = line.split(whereSeparator: { !"0123456789".contains($0) }).compactMap { Double($0) }
        guard numbers.count == 2 else { return nil }
        return numbers[0] + numbers[1] / 1e9
    }
}

@Suite(.serialized)
struct AlarmEndToEndTests {
    /// The job id `herald alarm` printed ("Alarm ID: ...").
    func jobID(_ result: CommandResult) throws -> String {
        let words = result.stdout.split(separator: " ")
        guard words.count > 1, words[0] == "Alarm" else { throw SetupError("no alarm id in: \(result.stdout) \(result.stderr)") }
        return String(words[1].dropLast())  // "ID:"
    }

    /// heraldd without CAP_WAKE_ALARM (setpriv drops it from the bounding set before exec).
    func startWithoutCapability(_ scene: Scene) throws -> Child {
        let child = try Child("/usr/bin/setpriv", ["--bounding-set", "-wake_alarm", Binaries.heraldd], environment: scene.environment,
                              directory: scene.directory, name: "heraldd-nocap")
        scene.daemon = child
        guard waitUntil(timeout: 15, { child.log.contains("info: Ready") || !child.isRunning }), child.isRunning else {
            throw SetupError("heraldd did not become ready: \(child.log)")
        }
        return child
    }

    /// With the capability (root here), heraldd holds the wake timer itself: armed for the
    /// alarm's time less alarms.wakeAhead, moved by a Snooze, disarmed by a cancel, armed again
    /// after a restart (from the document pack, before the alarm is due).
    @Test func theWakeTimerFollowsTheAlarmThroughSnoozeCancelAndRestart() throws {
        let scene = try Scene()
        try scene.writeConfig("alarms:\n  wakeAhead: 60s\n  ringFor: 5m\n")
        var daemon = try scene.startDaemon()
        let alarm = try scene.herald("alarm", "--in", "10m", "Tea")
        #expect(alarm.status == 0, "\(alarm.stderr)")
        #expect(!alarm.stderr.contains("will not wake"))
        let id = try jobID(alarm)
        // 10 min less the 60 s ahead: 540 s, less the moments since.
        #expect(waitUntil { wakeTimers(of: daemon.pid).contains { $0 > 530 && $0 <= 540 } }, "\(wakeTimers(of: daemon.pid))")
        #expect(waitUntil { scene.status()?.wakeHolder == "heraldd" && scene.status()?.wakeAt != nil })
        let status = try scene.herald("status")
        #expect(status.stdout.contains("wake from suspend: available (heraldd holds CAP_WAKE_ALARM"), "\(status.stdout)")
        #expect(try scene.herald("cancel", id).status == 0)
        #expect(waitUntil { wakeTimers(of: daemon.pid) == [0] }, "\(wakeTimers(of: daemon.pid))")

        // It rings; Snooze puts it (and the wake) 10 min off.
        #expect(try scene.herald("alarm", "--in", "1s", "Ring").status == 0)
        let shown = try #require(scene.server!.waitForNotifications(1).first)
        #expect(shown.actions.contains("stop") && shown.actions.contains("snooze"))
        #expect(shown.hints["urgency"] == .int(2))
        // While it rings its file waits at the ring's end (5 min, less the 60 s ahead).
        #expect(waitUntil { wakeTimers(of: daemon.pid).contains { $0 > 230 && $0 <= 240 } }, "\(wakeTimers(of: daemon.pid))")
        let calls = try scene.server!.notifications().count
        try scene.server!.press("snooze", onNotification: calls)
        #expect(waitUntil { wakeTimers(of: daemon.pid).contains { $0 > 530 && $0 <= 540 } }, "\(wakeTimers(of: daemon.pid))")

        // A new heraldd finds the snoozed alarm in the spool and arms the timer again.
        daemon.stop(SIGTERM)
        daemon = try scene.startDaemon()
        #expect(waitUntil { wakeTimers(of: daemon.pid).contains { $0 > 520 && $0 <= 540 } }, "\(wakeTimers(of: daemon.pid))")
    }

    /// Without the capability and without the helper: status and doctor say so with the fix,
    /// `herald alarm` warns once, and the alarm still rings once the machine is awake.
    @Test func withoutTheCapabilityStatusDoctorAndTheAlarmSaySo() throws {
        let scene = try Scene()
        let daemon = try startWithoutCapability(scene)
        #expect(waitUntil { scene.status()?.wakeProblem != nil })
        #expect(wakeTimers(of: daemon.pid).isEmpty)
        let status = try scene.herald("status")
        #expect(status.stdout.contains("wake from suspend: unavailable: heraldd lacks CAP_WAKE_ALARM,"), "\(status.stdout)")
        #expect(status.stdout.contains("setcap cap_wake_alarm+ep"))
        var doctor = try scene.herald("doctor")
        #expect(doctor.stdout.contains("wake from suspend") && doctor.stdout.contains("no pending alarm needs it"), "\(doctor.stdout)")
        let alarm = try scene.herald("alarm", "--in", "10m", "Tea")
        #expect(alarm.status == 0)
        #expect(alarm.stderr.contains("this alarm will not wake a sleeping machine"), "\(alarm.stderr)")
        #expect(alarm.stderr.components(separatedBy: "will not wake").count == 2)  // once
        #expect(waitUntil { scene.status()?.wakeAt != nil })
        doctor = try scene.herald("doctor")
        #expect(doctor.status != 0)
        #expect(doctor.stdout.contains("will not happen"), "\(doctor.stdout)")
        #expect(try scene.herald("alarm", "--in", "1s", "Still rings").status == 0)
        let shown = try scene.server!.waitForNotifications(1)
        #expect(shown.first?.summary == "Still rings")
    }

    /// The Debian 12 way: heraldd lacks the capability, the herald-wake helper has it (here as
    /// root) and holds the timer for it over its socket.
    @Test func theHelperHoldsTheTimerForAHeralddWithoutTheCapability() throws {
        let scene = try Scene()
        let socket = scene.directory + "/wake.sock"
        let helper = try Child(Binaries.directory + "/herald-wake", ["--socket", socket], environment: ["PATH": "/usr/bin:/bin"],
                               directory: scene.directory, name: "herald-wake")
        defer { helper.stop() }
        #expect(waitUntil { helper.log.contains("herald-wake: ready") }, "\(helper.log)")
        // It keeps CAP_WAKE_ALARM (bit 35) and nothing else.
        let caps = try String(contentsOfFile: "/proc/\(helper.pid)/status", encoding: .utf8)
        #expect(caps.contains("CapEff:\t0000000800000000"), "\(caps)")
        scene.extraEnvironment["HERALD_WAKE_SOCKET"] = socket
        let daemon = try startWithoutCapability(scene)
        let id = try jobID(try scene.herald("alarm", "--in", "10m", "Tea"))
        #expect(waitUntil { wakeTimers(of: helper.pid).contains { $0 > 530 && $0 <= 540 } }, "\(wakeTimers(of: helper.pid))")
        #expect(wakeTimers(of: daemon.pid).isEmpty)
        #expect(waitUntil { scene.status()?.wakeHolder == "herald-wake" })
        // The helper restarts (and loses its timer): heraldd sees it go and arms the new one.
        helper.stop(SIGTERM)
        let again = try Child(Binaries.directory + "/herald-wake", ["--socket", socket], environment: ["PATH": "/usr/bin:/bin"],
                              directory: scene.directory, name: "herald-wake-again")
        defer { again.stop() }
        #expect(waitUntil(timeout: 15) { wakeTimers(of: again.pid).contains { $0 > 500 && $0 <= 540 } }, "\(wakeTimers(of: again.pid))")
        #expect(waitUntil { scene.status()?.wakeHolder == "herald-wake" })
        #expect(try scene.herald("cancel", id).status == 0)
        #expect(waitUntil { wakeTimers(of: again.pid) == [0] })
    }

    /// `herald ack` and `herald cancel` stop a ringing one-shot alarm (its file waits in the
    /// ringing state, so the CLI finds it), and heraldd killed while one rings rings it again.
    @Test func ackAndCancelStopARingingAlarmAndAKillDoesNotLoseIt() throws {
        let scene = try Scene()
        try scene.writeConfig("alarms:\n  ringFor: 3s\n  autoSnooze: 0\n")
        var daemon = try scene.startDaemon()
        let a = try jobID(try scene.herald("alarm", "--in", "1s", "One"))
        _ = try scene.server!.waitForNotifications(1)
        let ack = try scene.herald("ack", a)
        #expect(ack.status == 0, "\(ack.stderr)")
        #expect(waitUntil { scene.history().filter { $0.id == a }.map(\.outcome) == [.shown, .done] })
        #expect(try scene.server!.closed().count == 1)
        let b = try jobID(try scene.herald("alarm", "--in", "1s", "Two"))
        _ = try scene.server!.waitForNotifications(2)
        #expect(try scene.herald("cancel", b).status == 0)
        #expect(try waitUntil { try scene.server!.closed().count == 2 })
        #expect(scene.files("jobs").isEmpty)
        let c = try jobID(try scene.herald("alarm", "--in", "1s", "Three"))
        _ = try scene.server!.waitForNotifications(3)
        daemon.stop(SIGKILL)
        daemon = try scene.startDaemon()
        // Its file waited at the ring's end: it rings again then, and is recorded each time.
        _ = try scene.server!.waitForNotifications(4)
        #expect(waitUntil { scene.history().filter { $0.id == c && $0.outcome == .shown }.count == 2 })
    }

    /// While it rings, heraldd holds logind's idle block lock; Stop lets it go, and the ring's
    /// end (alarms.ringFor) does too: unanswered, snoozed once, then it gives up.
    @Test func aRingingAlarmHoldsAnIdleInhibitorUntilItEnds() throws {
        let scene = try Scene()
        let logind = try LogindMock(directory: scene.directory)
        defer { logind.stop() }
        scene.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = logind.bus.address
        try scene.writeConfig("alarms:\n  ringFor: 2s\n  snooze: 1s\n  autoSnooze: 1\n")
        try scene.startDaemon()
        let id = try jobID(try scene.herald("alarm", "--in", "1s", "Wake up"))
        _ = try scene.server!.waitForNotifications(1)
        #expect(waitUntil { (try? logind.inhibitors()) == [["idle", "Herald", "An alarm is ringing", "block"]] })
        // Unanswered for 2 s: closed, the lock let go, back 1 s later ringing again.
        #expect(waitUntil { scene.history().contains { $0.id == id && $0.outcome == .unanswered } })
        #expect(try scene.server!.closed().count >= 1)
        _ = try scene.server!.waitForNotifications(2)
        #expect(waitUntil { (try? logind.inhibitors())?.count == 1 })
        // The second ring runs out too: it gives up, and nothing holds the screen on.
        #expect(waitUntil { scene.history().filter { $0.id == id && $0.outcome == .unanswered }.count == 2 })
        #expect(waitUntil { (try? logind.inhibitors()) == [] })
        #expect(scene.history().last { $0.id == id }?.note?.contains("no more") == true)

        // Stop: the lock goes at once.
        #expect(try scene.herald("alarm", "--in", "1s", "Second").status == 0)
        let calls = try scene.server!.waitForNotifications(3)
        #expect(waitUntil { (try? logind.inhibitors())?.count == 1 })
        try scene.server!.press("stop", onNotification: calls.count)
        #expect(waitUntil { (try? logind.inhibitors()) == [] })
        #expect(waitUntil { scene.history().contains { $0.outcome == .done } })
    }

    /// PrepareForSleep(false): heraldd re-evaluates at once. Frozen over the due time (as a
    /// machine asleep), it shows what fell due within 100 ms of being let go.
    @Test func resumingShowsWhatFellDueWithinAHundredMilliseconds() throws {
        let scene = try Scene()
        let logind = try LogindMock(directory: scene.directory)
        defer { logind.stop() }
        scene.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = logind.bus.address
        let daemon = try scene.startDaemon()
        #expect(try scene.herald("remind", "--in", "2s", "Fell due asleep").status == 0)
        #expect(waitUntil { scene.files("jobs").count == 1 })
        daemon.signal(SIGSTOP)
        let due = Date().addingTimeInterval(2)
        #expect(waitUntil(timeout: 10) { Date() > due.addingTimeInterval(1) })
        try logind.control("sleep", "true")
        try logind.control("sleep", "false")
        let resumed = Instant(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
        daemon.signal(SIGCONT)
        #expect(waitUntil { scene.history().contains { $0.outcome == .shown } })
        let shown = try #require(scene.history().first { $0.outcome == .shown })
        #expect((shown.time - resumed).microseconds < 100_000, "shown \(shown.time - resumed) after the resume")
        #expect(waitUntil { daemon.logged("Resumed from sleep") }, "\(daemon.log)")
        #expect(daemon.logged("The machine is going to sleep"))
    }

    /// Quiet hours hold a reminder for the summary, never an alarm.
    @Test func quietHoursDoNotHoldAnAlarm() throws {
        let scene = try Scene()
        try scene.writeConfig("quietHours: \"00:00-23:59\"\n")
        let daemon = try scene.startDaemon()
        #expect(try scene.herald("remind", "--in", "1s", "Held").status == 0)
        #expect(try scene.herald("alarm", "--in", "1s", "Rings anyway").status == 0)
        let shown = try scene.server!.waitForNotifications(1)
        #expect(shown.map(\.summary) == ["Rings anyway"])
        #expect(waitUntil { daemon.logged("Popup held for a summary") })
        #expect(try scene.server!.notifications().map(\.summary) == ["Rings anyway"])
    }

    /// The sound plays again and again while it rings (each play a new stream on the null
    /// sink), and stops with Stop: nothing plays after the popup is gone.
    @Test func theSoundRepeatsUntilStopAndIsSilentAfter() throws {
        let scene = try Scene()
        let pulse = try NullSinkRecorder(directory: scene.directory)
        defer { pulse.stop() }
        scene.extraEnvironment["PULSE_SERVER"] = pulse.server
        try scene.startDaemon()
        try pulse.countStreams()
        #expect(try scene.herald("alarm", "--in", "1s", "--sound", "bell", "Loud").status == 0)
        let calls = try scene.server!.waitForNotifications(1)
        #expect(calls.first?.hints["suppress-sound"] != nil)
        #expect(waitUntil(timeout: 20) { pulse.newStreams >= 3 }, "\(pulse.newStreams) streams")
        try scene.server!.press("stop", onNotification: calls.count)
        #expect(waitUntil(timeout: 10) { !pulse.isPlaying("Herald") })
        let after = pulse.newStreams
        // Longer than the bell and the 1 s between plays: a loop left running would show.
        #expect(!waitUntil(timeout: 4) { pulse.newStreams > after }, "a stream began after Stop")
    }
}
