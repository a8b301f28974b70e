import Dispatch
import Glibc
import HeraldCore
import Logging

/// Starts run jobs' commands and collects their ends (README, "Running commands"). On its own
/// serial queue, so a slow disk never holds the scheduler.
///
/// Exactly once: each start first writes the run's spec (`RunFiles.writeSpec`, fsynced with its
/// name) and only then spawns `herald-runner`; a start for an occurrence that already has a
/// spec spawns nothing (`alreadyStarted`). A run's end is read from its files when its
/// runner's lock comes free, by a thread that waits on that lock, so a run started by an
/// earlier heraldd is collected by this one (`recover`).
///
/// The runner goes as a transient systemd user unit when a user manager answers
/// (`systemd-run --user`: its own cgroup and journal, and it outlives heraldd's restarts);
/// else as heraldd's grandchild in a session of its own (`--detach`), holding the run's lock
/// that heraldd took before the spawn, so nobody can find the run unlocked in between.
final class CommandRunner: @unchecked Sendable {
    private let queue = DispatchQueue(label: "herald.runs", qos: .userInitiated)
    private let files: RunFiles
    private let logger: Logger
    private let environment: Environment
    private let post: @Sendable (EngineEvent) -> Void
    /// herald-runner's path, or why there is none.
    private let runner: Result<String, RunnerMissing>
    private let systemdRun: String?
    /// The runs this heraldd started before `recover` looked at runs/ ("id/run", queue-confined):
    /// their ends are reported by their own waiters, not a second time by `recover`. Not kept
    /// after it (nothing else looks for runs twice).
    private var watched = Set<String>()
    private var recovered = false

    struct RunnerMissing: Error { var reason: String }

    init(spool: Spool, environment: Environment, logger: Logger, post: @escaping @Sendable (EngineEvent) -> Void) {
        self.files = RunFiles(spool: spool)
        self.logger = logger
        self.environment = environment
        self.post = post
        let (found, candidates) = installedHelper("herald-runner")
        runner = found.map { .success($0) }
            ?? .failure(RunnerMissing(reason: "herald-runner is not installed beside heraldd (looked in \(candidates.prefix(2).joined(separator: ", ")))"))
        systemdRun = Self.userManager(environment)
    }

    /// `systemd-run`, when a systemd user manager listens (`$XDG_RUNTIME_DIR/systemd/private`)
    /// and `HERALD_RUN_VIA` does not say `child`.
    static func userManager(_ environment: Environment) -> String? {
        if environment["HERALD_RUN_VIA"] == "child" { return nil }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        var st = stat()
        guard stat(runtime + "/systemd/private", &st) == 0, st.st_mode & S_IFMT == S_IFSOCK else { return nil }
        for dir in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") where access(dir + "/systemd-run", X_OK) == 0 {
            return dir + "/systemd-run"
        }
        return nil
    }

    /// How runs start here, for the log and `herald status`.
    var way: String { systemdRun != nil ? "systemd-run --user" : "child process" }

    // MARK: starting

    /// Starts an occurrence of a run job, at most once; answers `.runStarted`.
    func start(_ start: RunStart, maxOutput: Int) {
        queue.async { [self] in
            let runs: [Int], live: [Int]
            do throws(FileSystemError) { (runs, live) = (try files.runs(of: start.id), try files.live(start.id)) } catch {
                return answer(start, .refused("cannot read its runs (\(error)), so it cannot be told whether it ran already"))
            }
            // Newest first: a restart finds its own occurrence at the end.
            for run in runs.reversed() {
                let occurrence: Instant?
                do throws(FileSystemError) { occurrence = try files.occurrence(start.id, run) } catch {
                    return answer(start, .refused("cannot read the spec of its run \(run) (\(error)), so it cannot be told whether it ran already"))
                }
                if occurrence == start.occurrence { return answer(start, .alreadyStarted(run: run)) }
            }
            if let busy = live.last { return answer(start, .stillRunning(run: busy)) }
            launch(id: start.id, after: runs.last ?? 0, spec: spec(for: start, maxOutput: maxOutput), occurrence: start.occurrence)
        }
    }

    /// A popup's Run again: run `run` once more, as its spec says, unless one is going.
    func runAgain(id: String, run: Int, at now: Instant) {
        queue.async { [self] in
            guard var spec = files.readSpec(id, run) else {
                return post(.runStarted(id: id, occurrence: now, .refused("run \(run) of job '\(id)' is gone (runs are kept \(RunFiles.keptRuns) at a time)")))
            }
            let runs: [Int], live: [Int]
            do throws(FileSystemError) { (runs, live) = (try files.runs(of: id), try files.live(id)) } catch {
                return post(.runStarted(id: id, occurrence: now, .refused("cannot read its runs: \(error)")))
            }
            if let busy = live.last { return post(.runStarted(id: id, occurrence: now, .refused("run \(busy) is still going"))) }
            spec.occurrence = now
            launch(id: id, after: runs.last ?? 0, spec: spec, occurrence: now)
        }
    }

    /// Ends run `run` of job `id` as a cancel does, started or not (`RunFiles.requestStop`).
    func stop(id: String, run: Int) {
        queue.async { [self] in
            do throws(FileSystemError) { try files.requestStop(id, run) } catch {
                logger.error("Cannot stop a cancelled command", metadata: ["job.id": "\(id)", "run": "\(run)", "error": "\(error)"])
            }
        }
    }

    private func answer(_ start: RunStart, _ outcome: RunStartOutcome) {
        post(.runStarted(id: start.id, occurrence: start.occurrence, outcome))
    }

    /// The spec of a due occurrence: the job's command as it was made, with today's session.
    func spec(for start: RunStart, maxOutput: Int) -> RunFiles.Spec {
        let c = start.command
        var env: [String: String] = [:]
        if c.environment.isEmpty {
            // A job written by hand, without an environment: a login's basics.
            for name in ["HOME", "USER", "LOGNAME", "SHELL", "PATH", "LANG"] { if let v = environment[name] { env[name] = v } }
            if env["PATH"] == nil { env["PATH"] = "/usr/local/bin:/usr/bin:/bin" }
        } else {
            for v in c.environment { env[v.name] = v.value }
        }
        for name in Job.RunCommand.sessionVariables { env[name] = environment[name] }
        return RunFiles.Spec(occurrence: start.occurrence, title: start.title, notify: c.notify, timeout: c.timeout,
                             maxOutput: maxOutput, directory: c.directory ?? environment["HOME"] ?? "/",
                             umask: c.umask ?? 0o022, arguments: c.arguments,
                             environment: env.keys.sorted().map { $0 + "=" + env[$0]! })
    }

    /// Marks run `after + 1` started (its spec, durable), then spawns its runner.
    private func launch(id: String, after last: Int, spec: RunFiles.Spec, occurrence: Instant) {
        let run = last + 1
        let refuse = { (why: String) in self.post(.runStarted(id: id, occurrence: occurrence, .refused(why))) }
        let program: String
        switch runner {
        case .success(let p): program = p
        case .failure(let missing): return refuse(missing.reason)
        }
        do throws(FileSystemError) { try files.writeSpec(spec, id: id, run: run) } catch {
            logger.error("Cannot mark a command started; it is not run", metadata: ["job.id": "\(id)", "error": "\(error)"])
            return refuse("cannot write its run's files: \(error)")
        }
        if let systemdRun {
            // systemd-run waits with the unit (--wait) on a thread of its own; the runner takes
            // the run's lock itself.
            let unit = "herald-run-\(id)-\(run)"
            let arguments = Self.systemdRunArguments(unit: unit, runner: program, directory: files.directory(id), run: run)
            post(.runStarted(id: id, occurrence: occurrence, .started(run: run)))
            if !recovered { watched.insert(id + "/" + String(run)) }
            let started = DetachedThread.start(name: "herald.run") { [self] in
                do throws(SpawnError) {
                    let status = try ChildProcess.Command(systemdRun, arguments, environment: childEnvironment(), input: .null).start().wait()
                    if status != .exited(0) {
                        logger.notice("systemd-run ended the unit with a failure", metadata: ["job.id": "\(id)", "status": "\(status)"])
                    }
                    // systemd-run said no (the unit never ran the runner): the run could not start,
                    // and never will. Not when it was signalled: heraldd is stopping, and the unit,
                    // which outlives it, may yet run.
                    if case .exited(let code) = status, code != 0 {
                        files.claimUnstarted(id, run, reason: "systemd-run failed (exit \(code))", unknown: false, now: SystemClock().now)
                    }
                } catch {
                    logger.error("Cannot start systemd-run", metadata: ["job.id": "\(id)", "error": "\(error.reason)"])
                    files.claimUnstarted(id, run, reason: "cannot start systemd-run: \(error.reason)", unknown: false, now: SystemClock().now)
                }
                files.waitUntilEnded(id, run)
                post(.runEnded(files.end(id, run)))
            }
            if !started { logger.error("No thread to wait for a command", metadata: ["job.id": "\(id)"]) }
            return
        }
        // Locked before the spawn and handed over as descriptor 3: the run is never unlocked
        // while its runner lives, so the waiter below (and a later heraldd) cannot mistake it.
        let lockPath = files.path(id, run, "lock")
        guard let lock = Descriptor.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600) else {
            let reason = String(cString: strerror(errno))
            files.withdraw(id, run)
            return refuse("cannot open \(lockPath): \(reason)")
        }
        switch RunFiles.lockExclusively(lock.raw) {
        case .held: break
        case .busy:
            files.withdraw(id, run)
            return refuse("cannot lock \(lockPath): another process holds it")
        case .failed(let code):
            files.withdraw(id, run)
            return refuse("cannot lock \(lockPath): \(String(cString: strerror(code)))")
        }
        do throws(SpawnError) {
            let child = try ChildProcess.Command(program, ["--lock-fd", "3", "--detach", files.directory(id), String(run)],
                                               environment: childEnvironment(), input: .null, passing: lock.raw).start()
            // The first runner only forks the one that stays (reparented: nothing to reap later).
            let status = child.wait()
            guard status == .exited(0) else {
                files.withdraw(id, run)
                return refuse("herald-runner failed to start (\(status))")
            }
        } catch {
            files.withdraw(id, run)
            return refuse("cannot start herald-runner: \(error.reason)")
        }
        lock.close()
        post(.runStarted(id: id, occurrence: occurrence, .started(run: run)))
        watch(id, run)
    }

    /// The systemd-run command line of a run: a transient service that is collected when it
    /// ends, stopped the runner's way (SIGTERM to it, which ends the command's group).
    static func systemdRunArguments(unit: String, runner: String, directory: String, run: Int) -> [String] {
        ["--user", "--collect", "--quiet", "--wait", "--unit=" + unit, "--description=Herald run " + unit.dropFirst(11),
         "--property=KillMode=mixed", "--property=TimeoutStopSec=\(Job.RunCommand.killAfter.microseconds / 1_000_000 + 5)",
         "--", runner, directory, String(run)]
    }

    /// heraldd's environment without what only heraldd should see (systemd's socket).
    private func childEnvironment() -> [String: String] {
        var env = environment.dictionary(withPrefix: "")
        env.removeValue(forKey: "NOTIFY_SOCKET")
        env.removeValue(forKey: "WATCHDOG_USEC")
        env.removeValue(forKey: "WATCHDOG_PID")
        return env
    }

    /// Waits (a thread of its own, blocked on the run's lock) for run `run` to end, then tells
    /// the engine; once per run.
    private func watch(_ id: String, _ run: Int) {
        if !recovered { watched.insert(id + "/" + String(run)) }
        let started = DetachedThread.start(name: "herald.run") { [files, post] in
            files.waitUntilEnded(id, run)
            post(.runEnded(files.end(id, run)))
        }
        if !started { logger.error("No thread to wait for a command; its end is collected at the next start", metadata: ["job.id": "\(id)"]) }
    }

    // MARK: after a restart

    /// Runs not yet collected when heraldd starts: those still going are waited for; those
    /// ended are reported, with a result or without (`noResult`, `unknown`).
    func recover() {
        queue.async { [self] in
            var waiting = 0, ended = 0
            let ids: [String]
            do throws(FileSystemError) { ids = try files.jobIDs() } catch {
                logger.error("Cannot read runs/; commands started before this start are not collected", metadata: ["error": "\(error)"])
                ids = []
            }
            for id in ids {
                let runs: [Int]
                do throws(FileSystemError) { runs = try files.runs(of: id) } catch {
                    logger.error("Cannot read a job's runs; they are not collected", metadata: ["job.id": "\(id)", "error": "\(error)"])
                    continue
                }
                // Runs this heraldd started itself (due before READY) are waited for already.
                for run in runs where !FileSystem.exists(files.path(id, run, "ended")) && !watched.contains(id + "/" + String(run)) {
                    // One marked but never started is claimed first, so that a runner still on
                    // its way (a systemd unit not yet started) finds it taken and never runs it.
                    if !files.isLive(id, run),
                       case .failed(let why) = files.claimUnstarted(id, run, reason: "heraldd stopped between marking it started and starting it", unknown: true, now: SystemClock().now) {
                        // Reported only once it is sure no runner will start it: the next start looks again.
                        logger.error("Cannot settle a command from before this start; it is looked at again at the next start",
                                     metadata: ["job.id": "\(id)", "run": "\(run)", "error": "\(why)"])
                        continue
                    }
                    if files.isLive(id, run) {
                        waiting += 1
                        watch(id, run)
                    } else {
                        ended += 1
                        post(.runEnded(files.end(id, run)))
                    }
                }
            }
            recovered = true
            watched = []
            if waiting + ended > 0 {
                logger.notice("Commands from before this start", metadata: ["running": "\(waiting)", "ended": "\(ended)"])
            }
        }
    }
}
