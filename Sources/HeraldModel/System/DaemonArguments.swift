/// heraldd's command line. Parsed by hand: heraldd has five options, and
/// swift-argument-parser would link all of FoundationEssentials into the daemon for them
/// (4.8 MB of the package; BENCHMARKS.md, "Installed size"). `herald` keeps the library.
public struct DaemonArguments: Equatable, Sendable {
    public enum Notifier: String, CaseIterable, Sendable { case libnotify, console }

    /// What the command line asks for.
    public enum Action: Equatable, Sendable { case run, probe, help, version }

    public var action: Action = .run
    public var spool: String?
    public var config: String?
    public var notifier: Notifier = .libnotify
    public var logLevel: HeraldConfig.LogLevel?

    public init() {}

    /// A usage error: the message names the argument and says what is wrong (exit 64).
    public struct UsageError: Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ text: String) { description = text }
    }

    /// Parses the arguments after the program name. `--name value` and `--name=value` both
    /// work; `--help` and `--version` win over everything after them.
    public static func parse(_ arguments: [String]) throws(UsageError) -> DaemonArguments {
        var parsed = DaemonArguments()
        var probe = false
        var i = 0
        func value(_ name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            i += 1
            guard i < arguments.count, !arguments[i].hasPrefix("--") else {
                throw UsageError("missing value for '\(name)'")
            }
            return arguments[i]
        }
        while i < arguments.count {
            let argument = arguments[i]
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inline = String(argument[argument.index(after: eq)...])
            }
            switch name {
            case "-h", "--help":
                parsed.action = .help
                return parsed
            case "--version":
                parsed.action = .version
                return parsed
            case "--spool":
                parsed.spool = try value(name, inline: inline)
            case "--config":
                parsed.config = try value(name, inline: inline)
            case "--notifier":
                let text = try value(name, inline: inline)
                guard let notifier = Notifier(rawValue: text) else {
                    throw UsageError("'\(text)' is not a notifier for '--notifier': use libnotify or console")
                }
                parsed.notifier = notifier
            case "--log-level":
                let text = try value(name, inline: inline)
                guard let level = HeraldConfig.LogLevel(rawValue: text) else {
                    let names = HeraldConfig.LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError("'\(text)' is not a log level: use \(names)")
                }
                parsed.logLevel = level
            case "--probe":
                guard inline == nil else { throw UsageError("'--probe' takes no value") }
                probe = true
            default:
                throw UsageError(argument.hasPrefix("-") ? "unknown option '\(argument)'" : "unexpected argument '\(argument)'")
            }
            i += 1
        }
        if probe { parsed.action = .probe }
        return parsed
    }

    /// `heraldd --help`.
    public static let help = """
        OVERVIEW: Herald's daemon: fires scheduled desktop notifications from the spool.

        Runs in the foreground and logs to stderr. Jobs are files in the spool (default
        $XDG_STATE_HOME/herald); `herald` writes them, and so may any program (see the
        README's "Job file format"). SIGTERM or SIGINT stop it cleanly; SIGHUP reloads
        the configuration, keeping the old one if the new one is bad. Usually started by
        systemd: systemctl --user enable --now heraldd.

        USAGE: heraldd [--spool <dir>] [--config <file>] [--notifier <notifier>] [--log-level <level>] [--probe]

        OPTIONS:
          --spool <dir>           The spool directory (overrides HERALD_SPOOL and the
                                  config).
          --config <file>         The configuration file (overrides HERALD_CONFIG).
          --notifier <notifier>   Where popups go: libnotify (the desktop, over D-Bus)
                                  or console (stdout). (values: libnotify, console;
                                  default: libnotify)
          --log-level <level>     trace, debug, info, notice, warning, error or
                                  critical (overrides the config).
          --probe                 Ask the session bus and the notification server about
                                  themselves, print one line of JSON and exit (0: a
                                  server answered, 1: none did). 'herald doctor' uses
                                  it.
          --version               Show the version.
          -h, --help              Show help information.

        See heraldd(1) and herald(1).

        """
}
