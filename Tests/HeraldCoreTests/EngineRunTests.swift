import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Run jobs in the engine, on a manual clock against a real spool; the runner's side (heraldd's
/// `CommandRunner`) is played by the test: `.startRun` effects are recorded and answered with
/// `.runStarted` and `.runEnded`.
struct EngineRunTests {
    let dir = TemporaryDirectory()
    let clock = ManualClock(ISO8601.parseInstant("2026-11-22T06:59:00Z")!)
    let logs = MemoryLogHandlerBox()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    func engine(_ config: HeraldConfig = HeraldConfig()) -> EngineDriver {
        EngineDriver(spool: spool, config: config, localZone: .utc, clock: clock, logger: logs.logger())
    }

    func at(_ text: String) -> Instant { ISO8601.parseInstant(text)! }

    func history(_ id: String) -> [HistoryRecord] {
        guard let text = try? String(contentsOfFile: spool.historyPath, encoding: .utf8) else { return [] }  // nothing recorded yet
        return text.split(separator: "\n").compactMap { HistoryRecord(jsonLine: $0) }.filter { $0.id == id }
    }

    func run(_ id: String, at time: String? = nil, every: String? = nil, notify: Job.RunCommand.Notify = .failure) -> Job {
        var job = Job(kind: .run, id: id, at: time.map(at), every: every, title: "backup")
        job.command = Job.RunCommand(argv: ["make", "backup"], directory: "/home/ada", umask: 0o022, environment: [.init(name: "PATH", value: "/usr/bin")], notify: notify)
        return job
    }

    func submit(_ jobs: Job...) throws {
        try spool.prepare()
        for job in jobs { try spool.submit(job) }
    }

    func end(_ id: String, run: Int = 1, occurrence: Instant, _ ending: RunEnd.Ending, notify: Job.RunCommand.Notify = .failure) -> RunEnd {
        var e = RunEnd(id: id, run: run, occurrence: occurrence, title: "backup", notify: notify, ending: ending,
                       started: occurrence + .seconds(1), ended: occurrence + .seconds(131), log: dir.path + "/spool/runs/\(id)/\(run).log")
        e.tail = "rsync: connection refused"
        return e
    }

    @Test func aDueRunIsHandedToTheRunnerAndMovesOnOnlyOnceMarkedStarted() throws {
        try submit(run("r", every: "*-*-* 07:00"))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        #expect(e.tick().isEmpty)  // no popup when it is due
        let start = try #require(e.runStarts.first)
        #expect(e.runStarts.count == 1)
        #expect(start.id == "r" && start.occurrence == at("2026-11-22T07:00:00Z") && start.title == "backup")
        #expect(start.command.argv == ["make", "backup"] && start.command.directory == "/home/ada")
        // Until the runner says the run is marked, the file stays at this occurrence: a restart
        // asks again, and the runner's mark keeps it from running twice.
        #expect(e.pendingJobs["r"]?.occurrence == at("2026-11-22T07:00:00Z"))
        e.send(.runStarted(id: "r", occurrence: start.occurrence, .started(run: 1)))
        #expect(e.pendingJobs["r"]?.occurrence == at("2026-11-23T07:00:00Z"))
        #expect(history("r").isEmpty)  // one line per run, at its end
        // It fails: one line with its exit status, duration and log, and a popup that says so.
        let shown = e.send(.runEnded(end("r", occurrence: start.occurrence, .exited(3))))
        let line = try #require(history("r").first)
        #expect(line.outcome == .failed && line.run?.exitStatus == 3 && line.run?.signal == nil)
        #expect(line.run?.duration == .seconds(130) && line.run?.log == dir.path + "/spool/runs/r/1.log")
        #expect(line.time == at("2026-11-22T07:00:01Z") && line.lateness == .seconds(1))  // how late it started
        #expect(line.note == "failed (exit 3) after 2 min 10 s")
        let popup = try #require(shown.first)
        #expect(popup.jobID == "@run:r")
        #expect(popup.summary == "backup failed (exit 3) after 2 min 10 s")
        #expect(popup.body == "rsync: connection refused")
        #expect(popup.actions == [.showOutput, .runAgain, .body])
        #expect(e.effects.contains(.spool(.runCollected(id: "r", run: 1))))
        // Its buttons: Show output opens the log; Run again asks the runner for run 1 once more.
        e.press(.showOutput, on: popup)
        #expect(e.opened == ["file://" + dir.path + "/spool/runs/r/1.log"])
        e.press(.runAgain, on: popup)
        #expect(e.runAgains.map(\.id) == ["r"] && e.runAgains.map(\.run) == [1])
        e.press(.runAgain, on: popup)  // the popup is done with
        #expect(e.runAgains.count == 1)
    }

    @Test func aRunStartedBeforeIsNotRunAgainAndOneStillGoingSkipsThisTime() throws {
        try submit(run("r", every: "*:0/10"))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        e.tick()
        e.send(.runStarted(id: "r", occurrence: at("2026-11-22T07:00:00Z"), .alreadyStarted(run: 4)))
        #expect(e.pendingJobs["r"]?.occurrence == at("2026-11-22T07:10:00Z"))
        #expect(history("r").isEmpty)
        clock.set(at("2026-11-22T07:10:00Z"))
        e.tick()
        #expect(e.runStarts.count == 2)
        e.send(.runStarted(id: "r", occurrence: at("2026-11-22T07:10:00Z"), .stillRunning(run: 4)))
        #expect(history("r").map(\.outcome) == [.skipped])
        #expect(history("r").first?.note == "skipped (still running: run 4)")
        #expect(e.pendingJobs["r"]?.occurrence == at("2026-11-22T07:20:00Z"))
        clock.set(at("2026-11-22T07:20:00Z"))
        e.tick()
        let refused = e.send(.runStarted(id: "r", occurrence: at("2026-11-22T07:20:00Z"), .refused("herald-runner is not installed")))
        #expect(history("r").last?.outcome == .failed && history("r").last?.note == "not run: herald-runner is not installed")
        // Said in a popup too, as a run that could not start: there is no output, and no run to run again.
        let popup = try #require(refused.first)
        #expect(popup.jobID == "@run:r" && popup.summary == "backup could not start")
        #expect(popup.body == "herald-runner is not installed")
        #expect(popup.actions == [.body])
        // A one-shot moves to done/ once started.
        try submit(run("once", at: "2026-11-22T07:30:00Z"))
        e.intake(names: try FileSystem.list(spool.new))
        clock.set(at("2026-11-22T07:30:00Z"))
        e.tick()
        e.send(.runStarted(id: "once", occurrence: at("2026-11-22T07:30:00Z"), .started(run: 1)))
        #expect(e.pendingJobs["once"] == nil)
        #expect(try FileSystem.list(spool.done).contains { $0.hasPrefix("once@") })
    }

    /// Quiet time holds a popup that came due while heraldd was down into the summary, however
    /// late; a command too late (past `catchUp.grace`) is missed whatever the hour, as at night.
    @Test func aRunTooLateIsMissedInQuietTimeToo() throws {
        try submit(run("night", at: "2026-11-22T02:00:00Z"))
        var config = HeraldConfig()
        config.quietHours = QuietHours(start: 22 * 60, end: 7 * 60)
        let e = engine(config)
        clock.set(at("2026-11-22T05:00:00Z"))  // three hours late, still quiet
        try e.start()
        #expect(e.runStarts.isEmpty)
        #expect(history("night").map(\.outcome) == [.missed])
    }

    /// `herald cancel` in the moment a run is being started: the job is cancelled at once, and
    /// the run is stopped as soon as the runner says it started (it cannot be recalled before).
    @Test func aCancelWhileARunIsBeingStartedStopsItOnceStarted() throws {
        try submit(run("r", every: "*:0/10"))
        let e = engine()
        try e.start()
        clock.set(at("2026-11-22T07:00:00Z"))
        e.tick()
        #expect(e.runStarts.count == 1)
        guard case .cancelled? = e.request(.cancel(id: "r")) else { Issue.record("not cancelled"); return }
        #expect(e.runStops.isEmpty)
        e.send(.runStarted(id: "r", occurrence: at("2026-11-22T07:00:00Z"), .started(run: 1)))
        #expect(e.runStops.map(\.id) == ["r"] && e.runStops.map(\.run) == [1])
        #expect(e.pendingJobs["r"] == nil)
        #expect(try FileSystem.list(spool.cancelled).contains { $0.hasPrefix("r@") })
        #expect(try FileSystem.list(spool.jobs).isEmpty && FileSystem.list(spool.done).isEmpty)
        #expect(history("r").isEmpty)  // the run's end writes its line
        // Its end comes as any run's does: "was cancelled before it started" when the runner saw it first.
        var end = end("r", occurrence: at("2026-11-22T07:00:00Z"), .notStarted("cancelled before it started"))
        end.cancelled = true
        #expect(end.phrase == "was cancelled before it started" && end.note == "was cancelled before it started")
        // The next time is not the cancelled job's: nothing more starts.
        clock.set(at("2026-11-22T07:10:00Z"))
        e.tick()
        #expect(e.runStarts.count == 1)
    }

    @Test func notifySaysWhichEndsShowAPopup() throws {
        let e = engine()
        try spool.prepare()
        try e.start()
        let o = at("2026-11-22T06:00:00Z")
        #expect(e.send(.runEnded(end("a", occurrence: o, .exited(0), notify: .failure))).isEmpty)
        #expect(e.send(.runEnded(end("b", occurrence: o, .exited(0), notify: .always))).first?.summary == "backup finished after 2 min 10 s")
        #expect(e.send(.runEnded(end("c", occurrence: o, .exited(1), notify: .never))).isEmpty)
        var timedOut = end("d", occurrence: o, .signalled(15))
        timedOut.timedOut = true
        #expect(e.send(.runEnded(timedOut)).first?.summary == "backup timed out after 2 min 10 s")
        var cancelled = end("e", occurrence: o, .signalled(15))
        cancelled.cancelled = true
        #expect(e.send(.runEnded(cancelled)).first?.summary == "backup was cancelled after 2 min 10 s")
        let notStarted = e.send(.runEnded(end("f", occurrence: o, .notStarted("cannot run make: No such file or directory"))))
        #expect(notStarted.first?.summary == "backup could not start" && notStarted.first?.body == "cannot run make: No such file or directory")
        #expect(notStarted.first?.actions == [.runAgain, .body])
        let unknown = e.send(.runEnded(end("g", occurrence: o, .unknown)))
        #expect(unknown.first?.summary == "backup is not known to have run")
        #expect(unknown.first?.actions == [.runAgain, .body])
        #expect(history("g").first?.outcome == .unknown)
        #expect(e.send(.runEnded(end("h", occurrence: o, .signalled(9)))).first?.summary == "backup was killed by signal 9 (SIGKILL) after 2 min 10 s")
        #expect(history("a").first?.outcome == .ran && history("c").first?.outcome == .failed)
    }

    /// A run job never waits for the notification server: while popups wait for it to come
    /// back, a run job known as one goes straight to the runner.
    @Test func runsDoNotWaitForTheNotificationServer() throws {
        var reminder = Job(kind: .reminder, id: "rem", at: at("2026-11-22T07:00:00Z"), text: "Tea")
        reminder.resolveZones()
        try submit(reminder, run("r", at: "2026-11-22T07:01:00Z"))
        let e = engine()
        try e.start()
        e.notifier.failure = NotifierError(.noServer, detail: "gone")
        clock.set(at("2026-11-22T07:00:00Z"))
        e.tick()
        #expect(e.isBlocked)
        clock.set(at("2026-11-22T07:01:00Z"))
        e.tick()
        #expect(e.runStarts.map(\.id) == ["r"])
        e.send(.runStarted(id: "r", occurrence: at("2026-11-22T07:01:00Z"), .started(run: 1)))
        #expect(e.pendingJobs["r"] == nil)
        #expect(e.pendingJobs["rem"] != nil)  // still waiting for the server
    }

    @Test func withCommandsOffADueRunIsSkipped() throws {
        try submit(run("r", every: "*-*-* 07:00"))
        let e = engine()
        try e.start()
        var off = HeraldConfig()
        off.commands.enabled = false
        e.send(.configReloaded(off))
        clock.set(at("2026-11-22T07:00:00Z"))
        e.tick()
        #expect(e.runStarts.isEmpty)
        #expect(history("r").map(\.outcome) == [.skipped] && history("r").first?.note == "commands are off in the config")
        #expect(e.pendingJobs["r"]?.occurrence == at("2026-11-23T07:00:00Z"))
    }
}

/// The run job's fields in the job format, the run spec herald-runner reads, and `commands.*`.
struct RunJobFormatTests {
    func decode(_ json: String) throws -> Job { try Job.decode(Array(json.utf8), zones: { _ in nil }) }

    @Test func aRunJobReadsWritesAndRefusesWhatCannotRun() throws {
        let job = try decode(#"{"version":1,"kind":"run","at":"2026-12-01T17:00:00Z","command":["make","-C","/src","backup"],"directory":"/home/a","umask":"027","environment":{"PATH":"/usr/bin","FOO":"a b"},"timeout":"2h","notify":"always"}"#)
        let c = try #require(job.command)
        #expect(c.argv == ["make", "-C", "/src", "backup"] && c.directory == "/home/a" && c.umask == 0o027)
        #expect(c.environment.map { $0.name + "=" + $0.value } == ["FOO=a b", "PATH=/usr/bin"])
        #expect(c.timeout == .minutes(120) && c.notify == .always)
        #expect(c.label(title: nil) == "make -C /src backup")
        #expect(try decode(job.encoded()) == job)
        let script = try decode(##"{"version":1,"kind":"run","every":"daily","script":"# nightly\nrsync -a ~/photos nas:\n"}"##)
        #expect(script.command?.arguments == ["/bin/sh", "-c", "# nightly\nrsync -a ~/photos nas:\n"])
        #expect(script.command?.label(title: nil) == "rsync -a ~/photos nas:")
        for (json, reason) in [
            (#""command":["a"],"script":"b""#, "not both"),
            (#""command":[]"#, "not a non-empty array"),
            (#""command":["a\u0000b"]"#, "NUL character"),
            (#""script":"x","environment":{"A":"x\u0000"}"#, "NUL character"),
            (#""command":[""]"#, "(the program) is empty"),
            (#""command":["a"],"umask":"0800""#, "not an octal mode"),
            (#""command":["a"],"directory":"relative""#, "not an absolute path"),
            (#""command":["a"],"environment":{"A-B":"x"}"#, "not a variable name"),
            (#""command":["a"],"timeout":"0s""#, "out of range"),
            (#""command":["a"],"notify":"sometimes""#, "always, failure or never"),
            (#""command":["a"],"warn":["5m"]"#, "'warn' does not apply"),
            (#""command":["a"],"repeat":"5m""#, "field 'repeat' is only for reminders"),
        ] {
            #expect(throws: JobError.self) { try decode(#"{"version":1,"kind":"run","at":"2026-12-01T17:00:00Z","# + json + "}") }
            do { _ = try decode(#"{"version":1,"kind":"run","at":"2026-12-01T17:00:00Z","# + json + "}") } catch {
                #expect("\(error)".contains(reason), "\(json): \(error)")
            }
        }
        // Another kind's job may not carry them.
        #expect(throws: JobError.self) { try decode(#"{"version":1,"kind":"reminder","at":"2026-12-01T17:00:00Z","text":"x","command":["a"]}"#) }
    }

    @Test func theEnvironmentKeepsWhatAtKeepsLessTheShellsAndTheSessions() {
        for kept in ["PATH", "HOME", "FOO", "LANG", "_private"] { #expect(Job.RunCommand.keeps(kept), "\(kept)") }
        for dropped in ["TERM", "_", "SHLVL", "PWD", "OLDPWD", "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS",
                        "XDG_RUNTIME_DIR", "SSH_AUTH_SOCK", "BASH_FUNC_f%%", "1X", ""] {
            #expect(!Job.RunCommand.keeps(dropped), "\(dropped)")
        }
    }

    @Test func aSpecReadsBackAndAnyOtherBytesAreNoSpec() throws {
        let spec = RunFiles.Spec(occurrence: Instant(microseconds: 1_764_000_000_000_000), title: "backup", notify: .always, timeout: .minutes(30),
                                 maxOutput: 1 << 20, directory: "/home/a b", umask: 0o027, arguments: ["make", "", "x\ny"],
                                 environment: ["A=1", "B="])
        #expect(RunFiles.Spec(bytes: spec.bytes) == spec)
        var bytes = spec.bytes
        bytes.removeLast()
        #expect(RunFiles.Spec(bytes: bytes) == nil)  // cut short
        #expect(RunFiles.Spec(bytes: Array("herald-run-spec 1\0occurrence=1\0".utf8)) == nil)
        #expect(RunFiles.Spec(bytes: spec.bytes + Array("more\0".utf8)) == nil)
    }

    @Test func commandsIsOnOffOrAMappingAndMaxOutputIsBounded() throws {
        let dir = TemporaryDirectory()
        func load(_ yaml: String) throws -> HeraldConfig {
            dir.write("c.yaml", yaml)
            return try ConfigLoader.load(path: dir.path + "/c.yaml", explicit: true, environment: [:])
        }
        #expect(try load("commands: off\n").commands.enabled == false)
        #expect(try load("commands:\n  enabled: off\n  maxOutput: 64k\n").commands == {
            var c = HeraldConfig.Commands(); c.enabled = false; c.maxOutput = 65536; return c }())
        #expect(try load("commands:\n  maxOutput: 2M\n").commands.enabled)
        #expect(throws: ConfigError.self) { try load("commands: sometimes\n") }
        #expect(throws: ConfigError.self) { try load("commands:\n  maxOutput: 2T\n") }
        #expect(throws: ConfigError.self) { try load("commands:\n  maxOutput: 100\n") }
        #expect(throws: ConfigError.self) { try load("commands:\n  maxOutput: 99999999999999999999k\n") }
    }
}
