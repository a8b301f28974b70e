import Glibc
import HeraldCore
import HeraldNotify
import Logging

@main
struct Heraldd {
    static func main() {
        // One calendar source's reader, started by heraldd itself (CalendarSourceProcess).
        if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "--calendar-reader" {
            exit(CalendarReaderMain.run(Array(CommandLine.arguments.dropFirst(2))))
        }
        // A popup's icon file, checked in a process of its own (LibNotifyNotifier.checkIcon).
        if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--check-icon" {
            _ = Descriptor.writeAll(to: 1, Array(((PopupIcon.problem(CommandLine.arguments[2]) ?? "ok") + "\n").utf8))
            exit(0)
        }
        let arguments: DaemonArguments
        do throws(DaemonArguments.UsageError) {
            arguments = try DaemonArguments.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            _ = Descriptor.writeAll(to: 2, Array("""
                heraldd: \(TextSafety.visible(error.description))
                Usage: heraldd [--spool <dir>] [--config <file>] [--notifier <notifier>] [--log-level <level>] [--probe]
                  See 'heraldd --help' for more information.

                """.utf8))
            exit(64)
        }
        let environment = Environment.current()
        switch arguments.action {
        case .help:
            _ = Descriptor.writeAll(to: 1, Array(DaemonArguments.help.utf8))
        case .version:
            _ = Descriptor.writeAll(to: 1, Array((HeraldVersion.string + "\n").utf8))
        case .probe:
            let answer = ServerProbe.run(busAddress: environment["DBUS_SESSION_BUS_ADDRESS"] ?? "")
            _ = Descriptor.writeAll(to: 1, Array((answer.json + "\n").utf8))
            exit(answer.serverAnswered ? 0 : 1)
        case .run:
            run(arguments, environment: environment)
        }
    }

    static func run(_ arguments: DaemonArguments, environment: Environment) {
        let resolved = Resolution.resolve(spool: arguments.spool, config: arguments.config, environment: environment)
        if let error = resolved.configError { Self.fail("\(error)", code: 78) }
        let loaded = resolved.config
        let level = Logger.Level(arguments.logLevel ?? loaded.logLevel)
        let levelBox = LogLevelBox(level)
        LoggingSystem.bootstrap { label in
            LevelFollowingHandler(inner: StderrLogHandler(label: "heraldd", level: level, environment: environment), box: levelBox)
        }
        let logger = Logger(label: "heraldd")
        let spool = resolved.spool
        do { try spool.prepare() } catch { Self.fail("\(error)", code: 73) }
        for (dir, mode) in spool.tightenPermissions() {
            logger.warning("Spool directory was open to other users; made it 0700", metadata: ["path": "\(dir)", "mode.was": "0\(String(mode, radix: 8))"])
        }
        do { try spool.checkPermissions() } catch { Self.fail("\(error)", code: 77) }
        let lock: SpoolLock
        switch SpoolLock.acquire(spool) {
        case .success(let l): lock = l
        case .failure(let e): Self.fail("\(e) ('\(spool.root)')", code: 75)
        }
        let chosen: any Notifier
        switch arguments.notifier {
        case .console: chosen = ConsoleNotifier(zone: TimeZoneRules.local(environment: environment), clock: SystemClock())
        case .libnotify: chosen = LibNotifyNotifier(logger: logger)
        }
        let settings = Daemon.Settings(spool: spool, config: loaded, configPath: resolved.configPath,
                                       configExplicit: resolved.configExplicit, environment: environment,
                                       notifierName: arguments.notifier.rawValue)
        let daemon = Daemon(settings: settings, notifier: chosen, lock: lock, logger: logger, levelBox: levelBox)
        daemon.run()
    }

    static func fail(_ message: String, code: Int32) -> Never {
        _ = Descriptor.writeAll(to: 2, Array("heraldd: \(TextSafety.visible(message))\n".utf8))  // may quote the config
        exit(code)
    }
}

/// Wraps a handler so its level follows `LogLevelBox` (changed on SIGHUP).
struct LevelFollowingHandler: LogHandler {
    var inner: StderrLogHandler
    let box: LogLevelBox
    var logLevel: Logger.Level {
        get { box.level }
        set { box.level = newValue }
    }
    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }
    func log(event: LogEvent) { inner.log(event: event) }
}
