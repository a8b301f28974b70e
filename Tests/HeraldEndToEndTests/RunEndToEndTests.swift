import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// `herald run`: real commands run by a real heraldd through herald-runner, their ends in the
/// history and on a dbusmock notification server.
@Suite(.serialized)
struct RunEndToEndTests {
    /// The job id `herald run` printed ("Run ID: ...").
    func jobID(_ result: CommandResult) throws -> String {
        let words = result.stdout.split(separator: " ")
        guard words.count > 1, words[0] == "Run" else { throw SetupError("no run id in: \(result.stdout) \(result.stderr)") }
        return String(words[1].dropLast())
    }

    func runs(_ scene: Scene, _ id: String) -> RunFiles { RunFiles(spool: Spool(root: scene.spoolPath)) }

    /// Whether exactly one run of job `id` is going (its runner holds its lock).
    func runningOnce(_ scene: Scene, _ id: String) -> Bool {
        (try? runs(scene, id).live(id).count == 1) == true
    }

    /// The run records of job `id` in the history.
    func ends(_ scene: Scene, _ id: String) -> [HistoryRecord] { scene.history().filter { $0.id == id && $0.kind == .run } }

    @Test func outputIsCutAtTheLimitAndTheEndIsToldWithItsButtons() throws {
        let scene = try Scene()
        try scene.writeConfig("commands:\n  maxOutput: 1k\n")
        let opener = scene.directory + "/opener.sh"
        try "#!/bin/sh\necho \"$1\" > \(scene.directory)/opened\n".write(toFile: opener, atomically: true, encoding: .utf8)
        chmod(opener, 0o755)
        scene.extraEnvironment["HERALD_OPENER"] = opener
        try scene.startDaemon()
        let made = try scene.herald("run", "--in", "1s", "--label", "backup", "--", "/bin/sh", "-c",
                                    "echo starting; head -c 5000 /dev/zero | tr '\\000' x; echo; echo last line; exit 3")
        #expect(made.status == 0, "\(made.stderr)")
        let id = try jobID(made)
        #expect(waitUntil { ends(scene, id).count == 1 })
        let end = try #require(ends(scene, id).first)
        #expect(end.outcome == .failed)
        #expect(end.run?.exitStatus == 3 && end.run?.signal == nil)
        #expect(end.note?.hasPrefix("failed (exit 3) after") == true, "\(end.note ?? "")")
        #expect(end.note?.contains("output cut") == true)
        let log = try #require(end.run?.log)
        #expect(log == scene.spoolPath + "/runs/\(id)/1.log")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.hasPrefix("starting\nxxxx"))
        // The head and the end, with what was left out between: the last lines are the command's own.
        #expect(text.contains("\n[herald: output cut: 3996 bytes of 5020 left out here; the last 256 follow]\n"), "\(text.suffix(400))")
        #expect(text.hasSuffix("xxxx\nlast line\n"))
        #expect(text.utf8.count <= 1024 + 100)
        // The popup: what failed, how, the last lines, Show output and Run again.
        let popup = try #require(scene.server!.waitForNotifications(1).first)
        #expect(popup.summary.hasPrefix("backup failed (exit 3) after "))
        #expect(popup.body.hasSuffix("last line"), "\(popup.body)")
        #expect(popup.actions.contains("show-output") && popup.actions.contains("run-again"))
        #expect(popup.hints["category"] == .string("x-herald.run.failed"))
        // Run again on the first popup, Show output on the second (a server closes a popup on a button).
        try scene.server!.press("run-again", onNotification: 1)
        #expect(waitUntil { ends(scene, id).count == 2 })
        #expect(try runs(scene, id).runs(of: id) == [1, 2])
        #expect(ends(scene, id).last?.run?.exitStatus == 3)
        _ = try scene.server!.waitForNotifications(2)
        try scene.server!.press("show-output", onNotification: 2)
        #expect(waitUntil { FileManager.default.fileExists(atPath: scene.directory + "/opened") })
        #expect(try String(contentsOfFile: scene.directory + "/opened", encoding: .utf8) == "file://" + scene.spoolPath + "/runs/\(id)/2.log\n")
        // A run that succeeds says nothing by default (--notify failure).
        let quiet = try jobID(try scene.herald("run", "--in", "1s", "--", "/bin/true"))
        #expect(waitUntil { ends(scene, quiet).count == 1 })
        #expect(ends(scene, quiet).first?.outcome == .ran && ends(scene, quiet).first?.run?.exitStatus == 0)
        let history = try scene.herald("history", "--json")
        #expect(history.stdout.contains("\"exitStatus\" : 3") || history.stdout.contains("\"exitStatus\": 3"), "\(history.stdout.prefix(600))")
        #expect(try scene.server!.notifications().count == 2)  // the failure, then its run again
    }

    @Test func aTimeoutASignalAndACancelAreRecordedWithTheSignal() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let slow = try jobID(try scene.herald("run", "--in", "1s", "--timeout", "1s", "--label", "slow", "--", "/bin/sleep", "60"))
        let killed = try jobID(try scene.herald("run", "--in", "1s", "--label", "self", "--", "/bin/sh", "-c", "kill -9 $$"))
        let cancelled = try jobID(try scene.herald("run", "--in", "1s", "--label", "long", "--", "/bin/sleep", "60"))
        #expect(waitUntil { runningOnce(scene, cancelled) })
        #expect(try scene.herald("list").stdout.contains("running for"))
        let cancel = try scene.herald("cancel", cancelled)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.contains("Stopping the running command of \(cancelled)"))
        #expect(waitUntil(timeout: 20) { [slow, killed, cancelled].allSatisfy { ends(scene, $0).count == 1 } })
        let s = try #require(ends(scene, slow).first), k = try #require(ends(scene, killed).first), c = try #require(ends(scene, cancelled).first)
        #expect(s.run?.signal == 15 && s.note?.hasPrefix("timed out after 1 s") == true, "\(s.note ?? "")")
        #expect(k.run?.signal == 9 && k.note?.hasPrefix("was killed by signal 9 (SIGKILL)") == true, "\(k.note ?? "")")
        #expect(c.run?.signal == 15 && c.note?.hasPrefix("was cancelled after") == true, "\(c.note ?? "")")
        #expect([s, k, c].allSatisfy { $0.outcome == .failed && $0.run?.exitStatus == nil })
        let popups = try scene.server!.waitForNotifications(3)
        #expect(Set(popups.map(\.summary).map { $0.components(separatedBy: " after").first! })
                == ["slow timed out", "self was killed by signal 9 (SIGKILL)", "long was cancelled"], "\(popups.map(\.summary))")
    }

    @Test func anEveryJobWhosePreviousRunIsGoingSkipsAndCancelEndsBoth() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let made = try scene.herald("run", "--every", "*:*:0/1", "--notify", "never", "--", "/bin/sleep", "60")
        #expect(made.status == 0, "\(made.stderr)")
        let id = try jobID(made)
        #expect(waitUntil(timeout: 20) { ends(scene, id).filter { $0.outcome == .skipped }.count >= 2 && scene.history().filter { $0.id == id }.count >= 2 })
        let skipped = scene.history().filter { $0.id == id && $0.outcome == .skipped }
        #expect(skipped.allSatisfy { $0.note == "skipped (still running: run 1)" }, "\(skipped.map { $0.note ?? "" })")
        #expect(try runs(scene, id).runs(of: id) == [1])
        let cancel = try scene.herald("cancel", id)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.contains("Stopping the running command") && cancel.stdout.contains("Cancelled \(id)"), "\(cancel.stdout)")
        #expect(waitUntil { ends(scene, id).contains { $0.run?.signal == 15 } })
        #expect(scene.files("cancelled").contains { $0.hasPrefix(id + "@") })
        #expect(try runs(scene, id).runs(of: id) == [1])
    }

    /// heraldd killed while a command runs: the command goes on, the next heraldd collects its
    /// end, and it is never started again for that occurrence.
    @Test func killedWhileItRunsTheNextHeralddCollectsItAndRunsNothingTwice() throws {
        let scene = try Scene()
        var daemon = try scene.startDaemon()
        let counter = scene.directory + "/count"
        let gate = scene.directory + "/gate"
        let made = try scene.herald("run", "--in", "1s", "--notify", "always", "--label", "counted", "--", "/bin/sh", "-c",
                                    "echo $$ >> \(counter); while [ ! -e \(gate) ]; do sleep 0.05; done; echo done")
        let id = try jobID(made)
        #expect(waitUntil { runningOnce(scene, id) })
        daemon.stop(SIGKILL)
        daemon = try scene.startDaemon()
        #expect(waitUntil { daemon.log.contains("Commands from before this start") })
        FileManager.default.createFile(atPath: gate, contents: nil)
        #expect(waitUntil { ends(scene, id).count == 1 })
        #expect(ends(scene, id).first?.outcome == .ran)
        #expect(try String(contentsOfFile: counter, encoding: .utf8).split(separator: "\n").count == 1)
        #expect(try runs(scene, id).runs(of: id) == [1])
        // A heraldd stopped while the command ends (SIGSTOP, then killed) leaves its end to the next.
        let second = try jobID(try scene.herald("run", "--in", "1s", "--notify", "never", "--", "/bin/sh", "-c", "while [ ! -e \(gate)2 ]; do sleep 0.05; done"))
        #expect(waitUntil { runningOnce(scene, second) })
        daemon.signal(SIGSTOP)
        FileManager.default.createFile(atPath: gate + "2", contents: nil)
        #expect(waitUntil { FileManager.default.fileExists(atPath: runs(scene, second).path(second, 1, "result")) })
        daemon.stop(SIGKILL)
        #expect(ends(scene, second).isEmpty)
        daemon = try scene.startDaemon()
        #expect(waitUntil { ends(scene, second).count == 1 })
        #expect(ends(scene, second).first?.outcome == .ran)
        // Once collected, a third heraldd reports it no more.
        #expect(waitUntil { FileManager.default.fileExists(atPath: runs(scene, second).path(second, 1, "ended")) })
        daemon.stop(SIGTERM)
        daemon = try scene.startDaemon()
        let job = try jobID(try scene.herald("run", "--in", "1s", "--notify", "never", "--", "/bin/true"))
        #expect(waitUntil { ends(scene, job).count == 1 })
        #expect(ends(scene, second).count == 1 && ends(scene, id).count == 1)
    }

    /// heraldd killed between marking a run started and starting it: the next one neither runs
    /// it nor loses it: "not known to have run", with a popup.
    @Test func aRunMarkedStartedButNeverSeenIsNotRunAgainAndSaysSo() throws {
        let scene = try Scene()
        var daemon = try scene.startDaemon()
        let counter = scene.directory + "/count"
        let id = try jobID(try scene.herald("run", "--in", "1h", "--", "/bin/sh", "-c", "echo ran >> \(counter)"))
        #expect(waitUntil { scene.files("jobs").contains { $0.hasPrefix(id + "@") } })
        daemon.stop(SIGKILL)
        // The state a kill leaves after the spec is durable and before anything was spawned,
        // with the job due now: its file at that occurrence, the spec for it.
        let old = try #require(scene.files("jobs").first { $0.hasPrefix(id + "@") })
        let due = Instant(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000) - 1_000_000)
        try FileManager.default.moveItem(atPath: scene.spoolPath + "/jobs/" + old, toPath: scene.spoolPath + "/jobs/\(id)@\(due.microseconds).json")
        let files = runs(scene, id)
        try files.writeSpec(RunFiles.Spec(occurrence: due, title: "marked", notify: .failure, timeout: nil, maxOutput: 1024, directory: "/",
                                          umask: 0o022, arguments: ["/bin/sh", "-c", "echo ran >> \(counter)"], environment: ["PATH=/usr/bin:/bin"]),
                           id: id, run: 1)
        let restarted = Instant(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
        daemon = try scene.startDaemon()
        #expect(waitUntil { ends(scene, id).count == 1 }, "\(daemon.log)")
        let end = try #require(ends(scene, id).first)
        #expect(end.outcome == .unknown)
        // Dated when heraldd decided, not 1970: the start's prune would take such a line away.
        #expect(end.time >= restarted, "\(end.time)")
        #expect(end.note?.hasPrefix("is not known to have run") == true, "\(end.note ?? "")")
        let popup = try #require(scene.server!.waitForNotifications(1).first)
        #expect(popup.summary == "marked is not known to have run")
        #expect(waitUntil { !scene.files("jobs").contains("\(id)@\(due.microseconds).json") })
        #expect(daemon.log.contains("not run again"))
        #expect(!FileManager.default.fileExists(atPath: counter))
        #expect(try files.runs(of: id) == [1])
        // heraldd claimed the run before saying so: a runner that comes only now (a systemd
        // unit started late) finds it decided and runs nothing.
        #expect(files.result(id, 1)?.unknown == true)
        let late = try runCommand(Binaries.directory + "/herald-runner", [files.directory(id), "1"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(late.status == 3, "\(late.stderr)")
        #expect(!FileManager.default.fileExists(atPath: counter))
    }

    /// `herald list` and heraldd look at a run's lock by taking it shared for an instant: a
    /// runner that finds it so tries again (for up to 200 ms) instead of giving the run up, and
    /// one that finds it held all that time gives up without running anything.
    @Test func aLookAtARunsLockNeverCostsTheRun() throws {
        let scene = try Scene()
        let files = runs(scene, "look")
        let counter = scene.directory + "/ran"
        for run in 1...2 {
            try files.writeSpec(RunFiles.Spec(occurrence: .epoch, title: "look", notify: .never, timeout: nil, maxOutput: 1024, directory: "/", umask: 0o022,
                                              arguments: ["/bin/sh", "-c", "echo \(run) >> \(counter)"], environment: ["PATH=/usr/bin:/bin"]),
                                id: "look", run: run)
        }
        let look = try #require(Descriptor.open(files.path("look", 1, "lock"), O_RDWR | O_CREAT, mode: 0o600))
        #expect(flock(look.raw, LOCK_SH | LOCK_NB) == 0)
        let runner = try Spawned.start(Binaries.directory + "/herald-runner", [files.directory("look"), "1"], environment: ["PATH": "/usr/bin:/bin"],
                                       outputPath: scene.directory + "/runner.out")
        // Let go once the runner is seen waiting to try again.
        #expect(waitUntil(timeout: 5) { (try? String(contentsOfFile: "/proc/\(runner.pid)/wchan", encoding: .utf8)) == "hrtimer_nanosleep" })
        #expect(flock(look.raw, LOCK_UN) == 0)
        #expect(runner.wait() == 0)
        #expect(files.result("look", 1)?.exitStatus == 0)
        // Held throughout (a runner of its own would hold it): run 2 is not run, and says why.
        let held = try #require(Descriptor.open(files.path("look", 2, "lock"), O_RDWR | O_CREAT, mode: 0o600))
        #expect(flock(held.raw, LOCK_EX | LOCK_NB) == 0)
        let second = try Spawned.start(Binaries.directory + "/herald-runner", [files.directory("look"), "2"], environment: ["PATH": "/usr/bin:/bin"],
                                       outputPath: scene.directory + "/runner2.out")
        #expect(second.wait() == 3)
        withExtendedLifetime(held) {}
        #expect(try String(contentsOfFile: counter, encoding: .utf8) == "1\n")
        #expect(try String(contentsOfFile: scene.directory + "/runner2.out", encoding: .utf8).contains("already another runner's"))
    }

    /// A stop asked for before the runner started the command (`herald cancel` while heraldd
    /// was starting it) is seen by the runner: nothing runs, and the end says so.
    @Test func aRunCancelledBeforeItsCommandStartsRunsNothing() throws {
        let scene = try Scene()
        let files = runs(scene, "c")
        let counter = scene.directory + "/ran"
        try files.writeSpec(RunFiles.Spec(occurrence: .epoch, title: "c", notify: .failure, timeout: nil, maxOutput: 1024, directory: "/", umask: 0o022,
                                          arguments: ["/bin/sh", "-c", "echo ran > \(counter)"], environment: ["PATH=/usr/bin:/bin"]), id: "c", run: 1)
        try files.requestStop("c", 1)  // no runner yet: the marker alone
        let runner = try Spawned.start(Binaries.directory + "/herald-runner", [files.directory("c"), "1"], environment: ["PATH": "/usr/bin:/bin"],
                                       outputPath: scene.directory + "/runner.out")
        #expect(runner.wait() == 0)
        #expect(!FileManager.default.fileExists(atPath: counter))
        let end = files.end("c", 1)
        #expect(end.cancelled && end.phrase == "was cancelled before it started", "\(end)")
        #expect(end.outcome == .failed)
    }

    /// A job id that starts with "." is refused, for every kind: its file in new/ would be
    /// hidden, and heraldd leaves hidden names there alone (the job would never be taken in),
    /// and "." and ".." would make runs/ itself, or the spool, a run's folder.
    @Test func anIdThatStartsWithADotIsRefused() throws {
        let scene = try Scene()
        for id in ["..", ".", ".hidden"] {
            let r = try runCommand(Binaries.herald, ["run", "--in", "1s", "--id", id, "--", "/bin/echo", "dot"], environment: scene.environment)
            #expect(r.status == 64 && r.stderr == "herald: --id: '\(id)' is not a valid id: use 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'\n", "\(r.stderr)")
        }
        #expect(scene.files("new").isEmpty)
        let line = "{\"version\":1,\"kind\":\"run\",\"id\":\".x\",\"at\":\"2030-01-01T00:00:00Z\",\"command\":[\"/bin/true\"]}"
        let imported = try scene.herald("import", "-", stdin: line)
        #expect(imported.status != 0 && imported.stderr.contains("field 'id' is not a valid id"), "\(imported.stderr)")
        #expect(scene.files("new").isEmpty)
    }

    /// A run whose runner could not start leaves nothing behind (whatever the failing runner
    /// wrote), so the job's next run takes the number and runs.
    @Test func aWithdrawnRunLeavesNothingThatBlocksTheNext() throws {
        let scene = try Scene()
        let files = runs(scene, "w")
        try files.writeSpec(RunFiles.Spec(occurrence: .epoch, title: "w", notify: .failure, timeout: nil, maxOutput: 1024, directory: "/",
                                          umask: 0o022, arguments: ["/bin/true"], environment: []), id: "w", run: 1)
        for suffix in ["result", "running", "log", "lock", "ended"] {
            #expect(FileManager.default.createFile(atPath: files.path("w", 1, suffix), contents: Data("x".utf8)))
        }
        files.withdraw("w", 1)
        #expect(try FileSystem.list(files.directory("w")).isEmpty)
        // A spec that is there but cannot be read is "cannot tell", never "not started".
        try "not a folder".write(toFile: files.directory("r"), atomically: true, encoding: .utf8)
        #expect(throws: FileSystemError.self) { try files.occurrence("r", 1) }
        #expect(try files.occurrence("w", 1) == nil)
    }

    /// The job keeps what at keeps: compared with at's own job file for the same shell (a plain
    /// copy of at under faketime, as the time-phrase oracle runs it).
    @Test func theEnvironmentDirectoryAndUmaskAreAtsAndTheSessionIsHeralddsOwn() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let work = scene.directory + "/work dir"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let at = try TimePhraseOracleTests.plainAt(in: scene.directory)
        // The shell the user typed in: their variables, a terminal, an old session's display and bus.
        let typed: [String: String] = scene.environment.merging([
            "FOO": "a b$c'\"d", "EMPTY": "", "TERM": "xterm-256color", "DISPLAY": ":99", "SHLVL": "3", "OLDPWD": "/", "PWD": work,
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/old/session", "XAUTHORITY": "/old/xauth", "_": "/usr/bin/herald",
        ]) { _, new in new }
        let probe = "env; echo umask=$(umask); echo pwd=$(pwd)"
        let made = try runCommand("/bin/sh", ["-c", "umask 027; exec \"$0\" run --in 1s --notify never -- /bin/sh -c '\(probe)'", Binaries.herald],
                                  environment: typed, directory: work)
        #expect(made.status == 0, "\(made.stderr)")
        let id = try jobID(made)
        let atMade = try runCommand("/bin/sh", ["-c", "umask 027; echo true | /usr/bin/faketime '2026-12-01 10:00:00' \"$0\" now + 1 hour", at],
                                    environment: typed, directory: work)
        let atJob = try #require(atMade.stderr.split(separator: "\n").first { $0.hasPrefix("job ") }?.split(separator: " ")[1])
        defer { _ = try? runCommand("/usr/bin/atrm", [String(atJob)], environment: ["PATH": "/usr/bin:/bin"]) }
        let atFile = try runCommand(at, ["-c", String(atJob)], environment: ["PATH": "/usr/bin:/bin"]).stdout
        // at's exports, unquoted by the shell itself.
        var atVars: [String: String] = [:]
        for line in atFile.split(separator: "\n") where line.hasSuffix("; export " + (line.split(separator: "=").first ?? "")) {
            let name = String(line.split(separator: "=", maxSplits: 1)[0])
            let value = try runCommand("/bin/sh", ["-c", String(line) + "; printf %s \"$" + name + "\""], environment: [:]).stdout
            atVars[name] = value
        }
        #expect(atVars["FOO"] == "a b$c'\"d" && atVars["TERM"] == nil, "\(atVars)")
        #expect(waitUntil { ends(scene, id).count == 1 })
        let log = try String(contentsOfFile: runs(scene, id).path(id, 1, "log"), encoding: .utf8)
        var ran: [String: String] = [:]
        for line in log.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { ran[String(parts[0])] = String(parts[1]) }
        }
        let session = Set(Job.RunCommand.sessionVariables)
        // Each variable at keeps is there with at's value, but SHLVL, PWD and OLDPWD (the shell's
        // own) and the session's, which come from heraldd.
        // faketime's own variables are the oracle's instrument, not the user's.
        let instrument: Set<String> = ["LD_PRELOAD", "FAKETIME", "FAKETIME_SHARED"]
        for (name, value) in atVars where !["SHLVL", "PWD", "OLDPWD"].contains(name) && !session.contains(name) && !instrument.contains(name) {
            #expect(ran[name] == value, "\(name): at \(value), herald \(ran[name] ?? "(none)")")
        }
        // Nothing more, but what the shell sets itself and the session's.
        let extra = Set(ran.keys).subtracting(atVars.keys).subtracting(instrument).subtracting(["PWD", "SHLVL", "_", "umask", "pwd"]).subtracting(session)
        #expect(extra.isEmpty, "\(extra)")
        #expect(ran["TERM"] == nil && ran["OLDPWD"] == nil && ran["DISPLAY"] == nil && ran["XAUTHORITY"] == nil)
        #expect(ran["DBUS_SESSION_BUS_ADDRESS"] == scene.bus.address)
        #expect(atFile.contains("umask 27") && ran["umask"] == "0027", "\(ran["umask"] ?? "")")
        let cd = try #require(atFile.split(separator: "\n").first { $0.hasPrefix("cd ") && $0.hasSuffix(" || {") })
        let atDirectory = try runCommand("/bin/sh", ["-c", "printf %s " + cd.dropFirst(3).dropLast(5)], environment: [:]).stdout
        #expect(atDirectory == work && ran["pwd"] == work, "\(atDirectory)")
    }

    /// A script on standard input runs with /bin/sh, as at's do; what cannot be a job is refused
    /// with the reason and nothing written.
    @Test func aScriptOnStandardInputAndWhatIsRefused() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let made = try scene.herald("run", "--in", "1s", "--notify", "always", stdin: "# nightly\necho from the script\nexit 0\n")
        #expect(made.status == 0, "\(made.stderr)")
        let id = try jobID(made)
        #expect(waitUntil { ends(scene, id).count == 1 })
        #expect(ends(scene, id).first?.outcome == .ran && ends(scene, id).first?.title == "echo from the script")
        #expect(try String(contentsOfFile: runs(scene, id).path(id, 1, "log"), encoding: .utf8) == "from the script\n")
        let popup = try #require(scene.server!.waitForNotifications(1).first)
        #expect(popup.summary.hasPrefix("echo from the script finished after"), "\(popup.summary)")
        #expect(popup.body == "from the script")
        let before = scene.files("new") + scene.files("jobs")
        for (args, stdin, message) in [
            (["run", "--in", "1m", "--sync", "--", "/bin/true"], nil, "a command is never synced"),
            (["run", "--in", "1m", "--timeout", "0s", "--", "/bin/true"], nil, "--timeout: '0s' is out of range"),
            (["run", "--in", "1m", "--notify", "sometimes", "--", "/bin/true"], nil, "--notify: 'sometimes' is not always, failure or never"),
            (["run", "--in", "1m"], "", "the script on standard input is empty"),
            (["run", "--in", "1m"], String(repeating: "x", count: 70_000), "more than 64 KiB"),
            (["run", "--at", "2001-01-01 10:00", "--", "/bin/true"], nil, "is in the past"),
        ] as [([String], String?, String)] {
            let r = try runCommand(Binaries.herald, args, environment: scene.environment, stdin: stdin)
            #expect(r.status != 0 && r.stderr.contains(message), "\(args): \(r.status) \(r.stderr)")
        }
        // An environment too big for a job file: refused, naming it.
        let big = try runCommand(Binaries.herald, ["run", "--in", "1m", "--", "/bin/true"],
                                 environment: scene.environment.merging(["BIG": String(repeating: "a", count: 70_000)]) { _, new in new })
        #expect(big.status == 65 && big.stderr.contains("(its environment takes"), "\(big.stderr)")
        #expect(scene.files("new") + scene.files("jobs") == before)
    }

    /// `commands: off` refuses every run: the command, a job file in new/, and doctor says so.
    @Test func commandsOffRefusesEveryRun() throws {
        let scene = try Scene()
        try scene.writeConfig("commands: off\n")
        try scene.startDaemon()
        let r = try scene.herald("run", "--in", "1m", "--", "/bin/true")
        #expect(r.status == 64 && r.stderr.contains("commands are off in the config"), "\(r.status) \(r.stderr)")
        let job = #"{"version":1,"kind":"run","id":"handmade","at":"2030-01-01T10:00:00Z","command":["/bin/true"]}"#
        try (job + "\n").write(toFile: scene.spoolPath + "/tmp/handmade.json", atomically: false, encoding: .utf8)
        try FileManager.default.moveItem(atPath: scene.spoolPath + "/tmp/handmade.json", toPath: scene.spoolPath + "/new/handmade.json")
        #expect(waitUntil { scene.files("failed").contains("handmade.json.reason") })
        #expect(scene.read("failed/handmade.json.reason").contains("commands are off"))
        let doctor = try scene.herald("doctor")
        #expect(doctor.stdout.contains("commands") && doctor.stdout.contains("off (commands: off in the config)"), "\(doctor.stdout)")
    }

    /// What an attack on the first version found, each now refused or survived: a FIFO and a
    /// planted `N.running` in runs/, a run due while heraldd was down (its end reported twice),
    /// a runner killed under its command, a taken --id, bytes that are not UTF-8, escape
    /// sequences in the output, and `herald import` of a run job with commands off.
    @Test func whatTheAttackFoundIsRefusedOrSurvived() throws {
        let scene = try Scene()
        var daemon = try scene.startDaemon()
        // A FIFO where a spec, a lock and a log would be: nothing waits on it.
        let planted = scene.spoolPath + "/runs/planted"
        try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: true)
        for name in ["1.spec", "1.lock", "1.log", "1.result", "1.running"] { #expect(mkfifo(planted + "/" + name, 0o600) == 0) }
        // A planted N.running naming a process that is no runner, its lock held.
        let victim = try Child("/bin/sleep", ["60"], environment: [:], directory: scene.directory, name: "victim")
        let fake = scene.spoolPath + "/runs/fake"
        try FileManager.default.createDirectory(atPath: fake, withIntermediateDirectories: true)
        try "herald-run-spec 1\0occurrence=1\0".write(toFile: fake + "/1.spec", atomically: true, encoding: .utf8)
        try "pid=\(victim.pid)\nstart=1\n".write(toFile: fake + "/1.running", atomically: true, encoding: .utf8)
        // Its lock held (by this test process: a child holding it would hold the test's pipes too).
        let lock = try #require(Descriptor.open(fake + "/1.lock", O_RDWR | O_CREAT))
        #expect(flock(lock.raw, LOCK_EX) == 0)
        #expect(waitUntil { RunFiles(spool: Spool(root: scene.spoolPath)).isLive("fake", 1) })
        daemon.stop(SIGKILL)
        // Due while heraldd is down: run once, its end reported once.
        let due = try jobID(try scene.herald("run", "--in", "1s", "--notify", "always", "--label", "overdue", "--", "/bin/sh", "-c",
                                             "printf '\\033[31mRED\\033[0m \\033]0;title\\007 \\342\\200\\256gpj.exe\\n'; exit 1"))
        // Its time passes while heraldd is down (the job's `at`, from its file in new/).
        let file = try #require(scene.files("new").first)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(scene.read("new/" + file).utf8)) as? [String: Any])
        let dueAt = try #require((document["at"] as? String).flatMap { ISO8601.parseInstant($0) })
        #expect(waitUntil { Int64(Date().timeIntervalSince1970 * 1_000_000) > dueAt.microseconds + 200_000 })
        daemon = try scene.startDaemon()
        #expect(waitUntil { ends(scene, due).count == 1 })
        #expect(waitUntil { (try? scene.server!.notifications())?.contains { $0.summary.hasPrefix("overdue") } == true })
        let popup = try #require(try scene.server!.notifications().first { $0.summary.hasPrefix("overdue") })
        #expect(popup.body == "RED  gpj.exe", "\(popup.body.unicodeScalars.map { String($0.value, radix: 16) })")
        let quick = try jobID(try scene.herald("run", "--in", "1s", "--notify", "never", "--", "/bin/true"))
        #expect(waitUntil { ends(scene, quick).count == 1 })
        #expect(ends(scene, due).count == 1)
        let list = try runCommand(Binaries.herald, ["list"], environment: scene.environment, timeout: 10)
        #expect(list.status == 0, "\(list.stderr)")
        let cancel = try runCommand(Binaries.herald, ["cancel", "fake"], environment: scene.environment, timeout: 10)
        #expect(cancel.status != 0 && victim.isRunning, "\(cancel.stdout) \(cancel.stderr)")
        lock.close()
        victim.stop()
        // A runner killed under its command takes the command with it.
        let orphan = try jobID(try scene.herald("run", "--in", "1s", "--notify", "never", "--", "/bin/sleep", "60"))
        let runs = RunFiles(spool: Spool(root: scene.spoolPath))
        #expect(waitUntil { runs.running(orphan, 1) != nil && runs.isLive(orphan, 1) })
        let runner = try #require(runs.running(orphan, 1)?.pid)
        let sleeper = try runCommand("/usr/bin/pgrep", ["-P", String(runner)], environment: ["PATH": "/usr/bin:/bin"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!sleeper.isEmpty)
        kill(runner, SIGKILL)
        #expect(waitUntil { kill(Int32(sleeper) ?? 0, 0) != 0 })
        #expect(waitUntil { ends(scene, orphan).first?.note?.hasPrefix("ended without a result") == true })
        // A taken id, bytes that are not UTF-8: refused, nothing written.
        #expect(try scene.herald("run", "--in", "1h", "--id", "taken", "--", "/bin/true").status == 0)
        #expect(waitUntil { scene.files("jobs").contains { $0.hasPrefix("taken@") } })
        let again = try scene.herald("run", "--in", "1h", "--id", "taken", "--", "/bin/true")
        #expect(again.status == 64 && again.stderr.contains("a job 'taken' is pending already"), "\(again.stderr)")
        let bytes = try runCommand("/bin/sh", ["-c", "exec \"$0\" run --in 1h -- /usr/bin/printf \"$(printf '\\377\\376')\"", Binaries.herald], environment: scene.environment)
        #expect(bytes.status == 64 && bytes.stderr.contains("is not UTF-8 text"), "\(bytes.stderr)")
        let env = try runCommand("/bin/sh", ["-c", "BADV=\"$(printf 'a\\377b')\" exec \"$0\" run --in 1h --id envbad -- /usr/bin/env", Binaries.herald],
                                 environment: scene.environment)
        #expect(env.status == 0 && env.stderr.contains("$BADV is not UTF-8 text; the job does not keep it"), "\(env.stderr)")
        #expect(waitUntil { scene.files("jobs").contains { $0.hasPrefix("envbad@") } })
        let envJob = try #require(scene.files("jobs").first { $0.hasPrefix("envbad@") })
        #expect(!scene.read("jobs/" + envJob).contains("BADV"))
        let label = try scene.herald("run", "--in", "1h", "--label", "a\u{1b}[31mb", "--", "/bin/true")
        #expect(label.status == 64 && label.stderr.contains("holds a control character"))
        // With commands off, herald import refuses a run job too.
        try scene.writeConfig("commands: off\n")
        let imported = try scene.herald("import", "-", stdin: #"{"version":1,"kind":"run","at":"2030-01-01T10:00:00Z","command":["/bin/true"]}"# + "\n")
        #expect(imported.status == 65 && imported.stderr.contains("commands are off"), "\(imported.stderr)")
    }

    /// A calendar item that asks to run something (ACTION:PROCEDURE, X-HERALD-COMMAND,
    /// X-HERALD-KIND:run) runs nothing: reported, ignored; its display alarm still fires.
    @Test func aCalendarItemNeverRunsACommand() throws {
        let scene = try Scene()
        let dir = scene.directory + "/cal"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let marker = scene.directory + "/pwned"
        let f = DateFormatter()
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        f.timeZone = TimeZone(identifier: "UTC")
        let soon = f.string(from: Date().addingTimeInterval(3))
        let ics = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:evil-1\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:\(soon)\r
            SUMMARY:Standup\r
            X-HERALD-KIND:run\r
            X-HERALD-COMMAND:touch \(marker)\r
            BEGIN:VALARM\r
            ACTION:PROCEDURE\r
            ATTACH:file:///usr/bin/touch\r
            TRIGGER;VALUE=DATE-TIME:\(soon)\r
            END:VALARM\r
            BEGIN:VALARM\r
            ACTION:DISPLAY\r
            DESCRIPTION:Standup\r
            TRIGGER;VALUE=DATE-TIME:\(soon)\r
            END:VALARM\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        try ics.write(toFile: dir + "/evil.ics", atomically: true, encoding: .utf8)
        try scene.writeConfig("calendars:\n  sources: \(dir)\n")
        let daemon = try scene.startDaemon()
        let popup = try #require(scene.server!.waitForNotifications(1).first)
        #expect(popup.summary.contains("Standup"))
        #expect(daemon.log.contains("ACTION:PROCEDURE asks to run a program"), "\(daemon.log)")
        #expect(daemon.log.contains("X-HERALD-COMMAND asks to run a program"))
        #expect(!FileManager.default.fileExists(atPath: marker))
        #expect(!FileManager.default.fileExists(atPath: scene.spoolPath + "/runs"))
        #expect(scene.history().allSatisfy { $0.kind != .run })
    }

    /// Where a systemd user manager answers, a run is a transient unit. None runs on this
    /// machine (no systemd as PID 1), so systemd-run is a stand-in that records its command line
    /// and runs what follows `--`; the line is checked against the real systemd-run's parser.
    @Test func withAUserManagerARunIsATransientUnit() throws {
        let scene = try Scene()
        let runtime = scene.directory + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime + "/systemd", withIntermediateDirectories: true)
        let bound = try runCommand("/usr/bin/python3", ["-c", "import socket; socket.socket(socket.AF_UNIX).bind('\(runtime)/systemd/private')"], environment: [:])
        #expect(bound.status == 0, "\(bound.stderr)")
        let bin = scene.directory + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try """
            #!/bin/sh
            printf '%s\\n' "$@" > \(scene.directory)/systemd-run.args
            while [ "$1" != "--" ]; do shift; done
            shift
            exec "$@"

            """.write(toFile: bin + "/systemd-run", atomically: true, encoding: .utf8)
        chmod(bin + "/systemd-run", 0o755)
        scene.extraEnvironment["XDG_RUNTIME_DIR"] = runtime
        scene.extraEnvironment["PATH"] = bin + ":/usr/bin:/bin"
        try scene.startDaemon()
        let id = try jobID(try scene.herald("run", "--in", "1s", "--notify", "never", "--", "/bin/echo", "unit"))
        #expect(waitUntil { ends(scene, id).count == 1 })
        #expect(ends(scene, id).first?.outcome == .ran)
        let args = try String(contentsOfFile: scene.directory + "/systemd-run.args", encoding: .utf8).split(separator: "\n").map(String.init)
        let runner = try #require(args.count > 9 ? args[9] : nil)
        #expect(runner.hasSuffix("/herald-runner") && FileManager.default.isExecutableFile(atPath: runner))
        #expect(args == ["--user", "--collect", "--quiet", "--wait", "--unit=herald-run-\(id)-1", "--description=Herald run \(id)-1",
                         "--property=KillMode=mixed", "--property=TimeoutStopSec=15", "--", runner, scene.spoolPath + "/runs/\(id)", "1"], "\(args)")
        // The real systemd-run takes every option (it stops only for want of a manager to ask).
        let real = try runCommand("/usr/bin/systemd-run", args, environment: ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": scene.directory + "/none"])
        #expect(real.status != 0 && !real.stderr.contains("nrecognized") && !real.stderr.contains("nvalid"), "\(real.stderr)")
        #expect(real.stderr.contains("Failed to connect to bus") || real.stderr.contains("Failed to create bus connection"), "\(real.stderr)")
        #expect(try String(contentsOfFile: runs(scene, id).path(id, 1, "log"), encoding: .utf8) == "unit\n")
        // A systemd-run that fails without running the unit: the run could not start (and, its
        // result written, a runner that came later would run nothing).
        try "#!/bin/sh\necho 'Failed to start transient service unit' >&2\nexit 1\n".write(toFile: bin + "/systemd-run", atomically: true, encoding: .utf8)
        chmod(bin + "/systemd-run", 0o755)
        let failing = try jobID(try scene.herald("run", "--in", "1s", "--notify", "never", "--", "/bin/echo", "never"))
        #expect(waitUntil { ends(scene, failing).count == 1 })
        let end = try #require(ends(scene, failing).first)
        #expect(end.outcome == .failed && end.note?.hasPrefix("could not start; systemd-run failed") == true, "\(end.note ?? "")")
        #expect(runs(scene, failing).result(failing, 1)?.error?.hasPrefix("systemd-run failed") == true)
    }
}
