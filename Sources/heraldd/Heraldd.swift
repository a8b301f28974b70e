import ArgumentParser
import Foundation
import HeraldCore
import HeraldNotify
import Logging

@main
struct Heraldd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heraldd",
        abstract: "Herald's daemon: fires scheduled desktop notifications from the spool.",
        discussion: """
            Runs in the foreground and logs to stderr. Jobs are files in the spool \
            (default $XDG_STATE_HOME/herald); `herald` writes them, and so may any program \
            (see the README's "Job file format"). SIGTERM or SIGINT stop it cleanly; SIGHUP \
            reloads the configuration, keeping the old one if the new one is bad.
            """,
        version: HeraldVersion.string)

    enum NotifierChoice: String, ExpressibleByArgument, CaseIterable {
        case libnotify, console
    }

    @Option(help: ArgumentHelp("The spool directory (overrides HERALD_SPOOL and the config).", valueName: "dir"))
    var spool: String?

    @Option(help: ArgumentHelp("The configuration file (overrides HERALD_CONFIG).", valueName: "file"))
    var config: String?

    @Option(help: "Where popups go: libnotify (the desktop, over D-Bus) or console (stdout).")
    var notifier: NotifierChoice = .libnotify

    @Option(name: .customLong("log-level"),
            help: ArgumentHelp("trace, debug, info, notice, warning, error or critical (overrides the config).",
                               valueName: "level"))
    var logLevel: String?

    @Flag(help: "Ask the session bus and the notification server about themselves, print one line of JSON and exit (0: a server answered, 1: none did). 'herald doctor' uses it.")
    var probe = false

    func validate() throws {
        if let logLevel, HeraldConfig.LogLevel(rawValue: logLevel) == nil {
            throw ValidationError("'\(logLevel)' is not a log level: use \(HeraldConfig.LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let environment = Environment.current()
        if probe {
            let answer = ServerProbe.run(busAddress: environment["DBUS_SESSION_BUS_ADDRESS"] ?? "")
            print(answer.json)
            throw ExitCode(answer.serverAnswered ? 0 : 1)
        }
        let resolved = Resolution.resolve(spool: spool, config: config, environment: environment)
        if let error = resolved.configError { Self.fail("\(error)", code: 78) }
        let loaded = resolved.config
        let level = Logger.Level(logLevel.flatMap(HeraldConfig.LogLevel.init(rawValue:)) ?? loaded.logLevel)
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
        switch notifier {
        case .console: chosen = ConsoleNotifier(zone: TimeZoneRules.local(environment: environment), clock: SystemClock())
        case .libnotify: chosen = LibNotifyNotifier(logger: logger)
        }
        let settings = Daemon.Settings(spool: spool, config: loaded, configPath: resolved.configPath,
                                       configExplicit: resolved.configExplicit, environment: environment,
                                       notifierName: notifier.rawValue)
        let daemon = Daemon(settings: settings, notifier: chosen, lock: lock, logger: logger, levelBox: levelBox)
        daemon.run()
    }

    static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("heraldd: \(TextSafety.visible(message))\n".utf8))  // may quote the config
        Foundation.exit(code)
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
