import Dispatch
import Foundation
import HeraldCore
import Logging
import ServiceLifecycle
import UnixSignals

/// The daemon's shell around `Engine`: one serial queue, one wall-clock `DispatchSourceTimer`
/// armed for the engine's next wake-up, inotify on the spool, the notifier, SIGHUP reloads.
final class Daemon: Service, @unchecked Sendable {
    struct Settings {
        var spool: Spool
        var config: HeraldConfig
        var configPath: String
        var configExplicit: Bool
        var environment: [String: String]
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
    private var writtenStatus: DaemonStatus?
    private let systemd: ServiceNotifier
    private var sentServiceStatus = ""

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

    func run() async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, Error>) in
            queue.async {
                do { try self.startOnQueue(); done.resume() } catch { done.resume(throwing: error) }
            }
        }
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        for await _ in hangups.cancelOnGracefulShutdown() {
            await reloadConfig()
        }
        queue.sync { self.stopOnQueue() }
        logger.info("Stopped")
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
                if !changes.intake.isEmpty { effects += engine.intake(names: changes.intake) }
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
        let effects = try engine.start()
        systemd.send("READY=1\nSTATUS=\(serviceStatus())\nMAINPID=\(getpid())")
        logger.info("Ready", metadata: ["notifier": "\(settings.notifierName)", "jobs.pending": "\(engine.pendingCount)",
                                        "version": "\(HeraldVersion.string)"])
        apply(effects)
    }

    private func stopOnQueue() {
        systemd.send("STOPPING=1")
        watcher?.cancel()
        timer?.cancel()
        writeStatus(force: true, running: false)
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
        if systemd.isActive {
            let text = serviceStatus()
            if text != sentServiceStatus {
                sentServiceStatus = text
                systemd.send("STATUS=" + text)
            }
        }
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

    private func writeStatus(force: Bool = false, running: Bool = true) {
        var status = DaemonStatus(pid: running ? getpid() : 0, version: HeraldVersion.string, startedAt: startedAt,
                                  notifier: settings.notifierName)
        if let error = engine.lastError {
            status.lastError = error.description
            status.lastErrorAt = engine.lastErrorAt
            status.retryAt = engine.retryAt
        }
        guard force || status != writtenStatus else { return }
        writtenStatus = status
        let tmp = settings.spool.tmp + "/.status.\(getpid())"
        do {
            try FileSystem.writeAtomically(Array(status.json.utf8), tmpPath: tmp, finalPath: settings.spool.statusPath)
        } catch {
            logger.error("Cannot write status.json", metadata: ["error": "\(error)"])
        }
    }

    // MARK: reload

    private func reloadConfig() async {
        logger.info("SIGHUP: reloading the configuration", metadata: ["config": "\(settings.configPath)"])
        do {
            let config = try await ConfigLoader.load(path: settings.configPath, explicit: settings.configExplicit,
                                                     environment: settings.environment)
            queue.async {
                self.engine.reload(config: config)
                self.levelBox.level = Logger.Level(config.logLevel)
                self.logger.info("Configuration reloaded")
            }
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
