import CHeraldSys
import Dispatch
import Foundation
import HeraldCore
import HeraldNotify
import Logging

/// The daemon's shell around `Engine`: one serial queue, one wall-clock `DispatchSourceTimer`
/// armed for the engine's next wake-up, inotify on the spool, the notifier, signals.
///
/// Everything runs on serial Dispatch queues, never on libdispatch's global concurrent queues
/// or Swift's global executor (which sits on them): on Linux, the first job on those starts a
/// thread-pool monitor that wakes the process every second for good. Idle, heraldd sleeps.
final class Daemon: @unchecked Sendable {
    struct Settings {
        var spool: Spool
        var config: HeraldConfig
        var configPath: String
        var configExplicit: Bool
        var environment: Environment
        var notifierName: String
    }

    private let queue = DispatchQueue(label: "herald.scheduler", qos: .userInteractive)
    private let engine: Engine
    private let notifier: any Notifier
    private let settings: Settings
    private let logger: Logger
    private let lock: SpoolLock
    private let levelBox: LogLevelBox
    private let startedAt: Instant
    // Queue-confined state.
    private var timer: DispatchSourceTimer?
    private var armedFor: Instant?
    private var watcher: SpoolWatcher?
    private var clockWatcher: ClockChangeWatcher?
    private var zoneWatcher: LocaltimeWatcher?
    private var watchdog: DispatchSourceTimer?
    private var maintenance: DispatchSourceTimer?
    private var signalSources: [any DispatchSourceSignal] = []
    private var statusDue = false
    private let background = DispatchQueue(label: "herald.maintenance", qos: .utility)
    /// Writes status.json, in order, off the scheduler's queue (see `writeStatus`).
    private let statusWriter = DispatchQueue(label: "herald.status", qos: .utility)
    private var writtenStatus: DaemonStatus?
    private let systemd: ServiceNotifier
    private var sentServiceStatus = ""
    private var serviceStatusSentAt = DispatchTime(uptimeNanoseconds: 0)
    private var serviceStatusDue = false

    init(settings: Settings, notifier: any Notifier, lock: SpoolLock, logger: Logger, levelBox: LogLevelBox) {
        self.settings = settings
        self.notifier = notifier
        self.lock = lock
        self.logger = logger
        self.levelBox = levelBox
        self.startedAt = SystemClock().now
        self.engine = Engine(spool: settings.spool, config: settings.config,
                             localZone: TimeZoneRules.local(environment: settings.environment), clock: SystemClock(), logger: logger)
        self.systemd = ServiceNotifier(environment: settings.environment)
    }

    /// Starts, then serves until SIGTERM or SIGINT (a clean stop, status 0); SIGHUP reloads
    /// the configuration. Never returns.
    func run() -> Never {
        // Signals are taken over before Ready: SIGHUP's default action would end the process.
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { [unowned self] in
                if sig == SIGHUP {
                    reloadConfig()
                } else {
                    stopOnQueue()
                    logger.info("Stopped")
                    exit(0)
                }
            }
            source.resume()
            signalSources.append(source)
        }
        queue.async {
            do { try self.startOnQueue() } catch {
                self.logger.critical("Stopped on an error", metadata: ["error": "\(error)"])
                exit(1)
            }
        }
        dispatchMain()
    }

    // MARK: queue only

    private func startOnQueue() throws {
        let timer = DispatchSource.makeTimerSource(flags: [], queue: queue)
        timer.setEventHandler { [unowned self] in self.apply(self.engine.tick()) }
        timer.resume()
        self.timer = timer
        watcher = try SpoolWatcher(spool: settings.spool, queue: queue) { [unowned self] changes in
            var effects: [Engine.Effect] = []
            if changes.overflowed {
                logger.notice("inotify queue overflowed; rescanning the spool")
                effects += engine.rescan()
            } else {
                if !changes.intake.isEmpty {
                    let before = engine.pendingCount
                    effects += engine.intake(names: changes.intake)
                    if engine.pendingCount - before >= 1000 { releaseFreedMemory() }
                }
                if !changes.jobsRemoved.isEmpty || !changes.jobsAdded.isEmpty {
                    effects += engine.jobsChanged(removed: changes.jobsRemoved, added: changes.jobsAdded)
                }
            }
            apply(effects)
        }
        notifier.onAction { [weak self] action in
            guard let self else { return }
            self.queue.async { self.apply(self.engine.actionInvoked(action)) }
        }
        if let libnotify = notifier as? LibNotifyNotifier {
            libnotify.onBusEvents(serverAppeared: { [weak self] in
                guard let self else { return }
                self.queue.async {
                    self.logger.notice("A notification server took the name on the bus")
                    self.apply(self.engine.serverAppeared())
                }
            }, busLost: { [weak self] why in
                // Everything is on disk; systemd (Restart=on-failure) starts us again.
                self?.logger.critical("Lost the session bus; exiting so that heraldd is restarted", metadata: ["error": "\(why)"])
                self?.systemd.send("STOPPING=1")
                exit(69)
            })
        }
        clockWatcher = try ClockChangeWatcher(queue: queue) { [unowned self] in apply(engine.clockChanged()) }
        let localtime = settings.environment["HERALD_LOCALTIME"] ?? "/etc/localtime"
        zoneWatcher = try? LocaltimeWatcher(path: localtime, queue: queue) { [unowned self] in localtimeChanged(localtime) }
        let effects = try engine.start()
        releaseFreedMemory()
        systemd.send("READY=1\nSTATUS=\(serviceStatus())\nMAINPID=\(getpid())")
        logger.info("Ready", metadata: ["notifier": "\(settings.notifierName)", "jobs.pending": "\(engine.pendingCount)",
                                        "version": "\(HeraldVersion.string)"])
        apply(effects)
        startWatchdog()
        startMaintenance()
    }

    private func stopOnQueue() {
        systemd.send("STOPPING=1")
        for source in [watchdog, maintenance, timer] { source?.cancel() }
        watcher?.cancel()
        clockWatcher?.cancel()
        zoneWatcher?.cancel()
        writeStatus(force: true, running: false)
    }

    /// WATCHDOG=1 every half of WatchdogSec, sent from the scheduler's queue: if that queue
    /// is stuck, the pings stop and systemd restarts heraldd.
    private func startWatchdog() {
        guard let interval = systemd.watchdogInterval else { return }
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now(), repeating: .microseconds(Int(interval / 2)), leeway: .microseconds(Int(interval / 20)))
        source.setEventHandler { [unowned self] in systemd.send("WATCHDOG=1") }
        source.resume()
        watchdog = source
    }

    /// Prunes old records now and once a day, off the scheduler's queue.
    private func startMaintenance() {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(wallDeadline: .now(), repeating: .seconds(86_400), leeway: .seconds(60))
        source.setEventHandler { [unowned self] in
            let (spool, retention, now) = (settings.spool, engine.config.retention, SystemClock().now)
            background.async { [logger] in
                let report = spool.prune(olderThan: retention, now: now)
                if report.files > 0 || report.historyLines > 0 {
                    logger.info("Pruned old records", metadata: ["files": "\(report.files)", "history.lines": "\(report.historyLines)"])
                }
            }
        }
        source.resume()
        maintenance = source
    }

    /// /etc/localtime changed: re-read the zone and reschedule local-time recurrences.
    private func localtimeChanged(_ path: String) {
        var environment = settings.environment
        if environment["TZ"] != nil { return }  // TZ wins over /etc/localtime
        environment["TZ"] = nil
        let zone = TimeZoneRules.local(environment: environment, localtime: path)
        guard zone != engine.localZone else { return }
        let spool = settings.spool
        background.async { [weak self] in
            guard let self else { return }
            let jobs = spool.localZoneRecurrences(localZone: zone)
            self.queue.async { self.apply(self.engine.localZoneChanged(to: zone, jobs: jobs)) }
        }
    }

    /// Carries out the engine's effects, then re-arms the timer and refreshes status.json.
    private func apply(_ effects: [Engine.Effect]) {
        for effect in effects {
            switch effect {
            case .show(let request):
                notifier.show(request) { [weak self] result in
                    guard let self else { return }
                    self.queue.async { self.apply(self.engine.showFinished(request.jobID, result: result)) }
                }
            }
        }
        rearm()
        writeStatus()
        sendServiceStatus()
    }

    /// Tells systemd the status line when it changed, at most once a second (a burst of a
    /// thousand popups sends a few messages, not a thousand).
    private func sendServiceStatus(deferred: Bool = false) {
        guard systemd.isActive, deferred || !serviceStatusDue else { return }
        serviceStatusDue = false
        let text = serviceStatus()
        guard text != sentServiceStatus else { return }
        let next = serviceStatusSentAt + .seconds(1)
        if !deferred && next > .now() {
            serviceStatusDue = true
            queue.asyncAfter(deadline: next) { [weak self] in self?.sendServiceStatus(deferred: true) }
            return
        }
        sentServiceStatus = text
        serviceStatusSentAt = .now()
        systemd.send("STATUS=" + text)
    }

    /// Hands memory freed after a big load (the spool listing at start, a large batch) back
    /// to the system: malloc keeps it otherwise, and the daemon's resident size would stay at
    /// its peak for good.
    private func releaseFreedMemory() {
        herald_release_free_memory()
    }

    /// The one-line status systemd shows: "3 jobs pending, next 2026-11-22T14:05:00Z".
    private func serviceStatus() -> String {
        var text = "\(engine.pendingCount) job\(engine.pendingCount == 1 ? "" : "s") pending"
        if let next = engine.nextDue() { text += ", next \(next)" }
        if let error = engine.lastError { text += "; notifications failing: \(error.kind.rawValue)" }
        return text
    }

    private func rearm() {
        let wake = engine.nextWakeup()
        guard wake != armedFor else { return }
        armedFor = wake
        if let wake {
            let spec = timespec(tv_sec: Int(wake.seconds), tv_nsec: Int(wake.microsecondOfSecond) * 1000)
            timer?.schedule(wallDeadline: DispatchWallTime(timespec: spec), repeating: .never, leeway: .nanoseconds(0))
        } else {
            timer?.schedule(wallDeadline: .distantFuture, repeating: .never, leeway: .seconds(1))
        }
    }

    /// Writes status.json now when what it says about notifications changed, and the
    /// pending count at most once a second (the CLI reads it to enforce limits.jobs).
    private func writeStatus(force: Bool = false, running: Bool = true) {
        var status = DaemonStatus(pid: running ? getpid() : 0, version: HeraldVersion.string, startedAt: startedAt,
                                  notifier: settings.notifierName, pending: engine.pendingCount)
        if let error = engine.lastError {
            status.lastError = error.description
            status.lastErrorAt = engine.lastErrorAt
            status.retryAt = engine.retryAt
        }
        guard force || status != writtenStatus else { return }
        if !force, var previous = writtenStatus {
            previous.pending = status.pending
            if previous == status {  // only the count moved: batch it
                if !statusDue {
                    statusDue = true
                    queue.asyncAfter(wallDeadline: .now() + 1) { [weak self] in
                        self?.statusDue = false
                        self?.writeStatus(force: true)
                    }
                }
                return
            }
        }
        writtenStatus = status
        // Renamed into place but not fsynced: status.json is advice, rewritten as things
        // change. And written on a queue of its own: replacing the file frees the old one's
        // blocks, which ext4 mounted with `discard` discards there and then (a few ms, tens
        // on a busy disk); on the scheduler's queue that held up whatever popup was due
        // (seen once a second in perf's sched_switch stacks during the benchmark's lateness
        // phase: blkdev_issue_discard <- ext4_evict_inode <- rename). The last write, as
        // heraldd stops, is waited for.
        let (bytes, tmp, path) = (Array(status.json.utf8), settings.spool.tmp + "/.status.\(getpid())", settings.spool.statusPath)
        let write: @Sendable () -> Void = { [logger] in
            do { try FileSystem.writeUnsynced(bytes, tmpPath: tmp, finalPath: path) } catch {
                logger.error("Cannot write status.json", metadata: ["error": "\(error)"])
            }
        }
        if running { statusWriter.async(execute: write) } else { statusWriter.sync(execute: write) }
    }

    // MARK: reload

    private func reloadConfig() {
        logger.info("SIGHUP: reloading the configuration", metadata: ["config": "\(settings.configPath)"])
        systemd.send("RELOADING=1")
        defer { systemd.send("READY=1") }
        do {
            let config = try ConfigLoader.load(path: settings.configPath, explicit: settings.configExplicit,
                                               environment: settings.environment)
            engine.reload(config: config)
            levelBox.level = Logger.Level(config.logLevel)
            logger.info("Configuration reloaded")
            apply([])
        } catch {
            logger.error("Configuration not reloaded; keeping the old one", metadata: ["error": "\(error)"])
        }
    }
}

/// The system's wall clock (CLOCK_REALTIME), in microseconds.
struct SystemClock: WallClock {
    var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(microseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }
}

/// The log level, shared by every logger so SIGHUP can change it.
final class LogLevelBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _level: Logger.Level
    init(_ level: Logger.Level) { _level = level }
    var level: Logger.Level {
        get { lock.lock(); defer { lock.unlock() }; return _level }
        set { lock.lock(); _level = newValue; lock.unlock() }
    }
}

extension Logger.Level {
    init(_ level: HeraldConfig.LogLevel) {
        self = Logger.Level(rawValue: level.rawValue) ?? .info
    }
}
