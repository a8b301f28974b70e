/// A command run on time, as `at`, cron and `systemd-run --on-calendar` run one: its program
/// (or a script for `/bin/sh`), the directory, umask and environment it was made in, a
/// timeout, and when to tell the person how it went. It never shows a popup when it is due:
/// heraldd's `CommandRunner` runs it, and its end comes back as `.runEnded` (Engine+Running).
enum RunKind: JobKindRules {
    static let ownFields = ["command", "script", "directory", "umask", "environment", "timeout", "notify"]

    static let config = KindConfig(
        templates: [.init(name: "runEnded", defaults: .init(summary: Template(valid: "{title} {result}"), body: Template(valid: "{output}")),
                          placeholders: ["result", "output"])],
        popupClasses: [.init(popupClass: .run, expire: .serverDefault)])

    // MARK: fields

    static func decodeFields(_ o: [String: JSONValue], into job: inout Job) throws(JobError) {
        var run = Job.RunCommand()
        if let c = o["command"] {
            guard case .array(let list) = c, !list.isEmpty else {
                throw JobError("field 'command' is not a non-empty array of strings (the program and its arguments)", value: c.snippet())
            }
            guard list.count <= Job.RunCommand.maximumArguments else {
                throw JobError("field 'command' has \(list.count) strings; the most is \(Job.RunCommand.maximumArguments)")
            }
            var k = 0
            for element in list {  // not enumerated(): its generic type costs every `herald run` a lookup at start
                let s = try Job.string(element, "command[" + String(k) + "]")
                try noNUL(s, "command[" + String(k) + "]")
                run.argv.append(s)
                k += 1
            }
            guard !run.argv[0].isEmpty else { throw JobError("field 'command[0]' (the program) is empty") }
        }
        if let s = o["script"] {
            let text = try Job.string(s, "script")
            guard !text.trimmingSpaces.isEmpty else { throw JobError("field 'script' is empty") }
            try noNUL(text, "script")
            run.script = text
        }
        if let d = o["directory"] {
            let dir = try Job.string(d, "directory")
            guard dir.hasPrefix("/"), dir.utf8.count <= 4096 else {
                throw JobError("field 'directory' is not an absolute path of at most 4096 bytes", value: d.snippet())
            }
            try noNUL(dir, "directory")
            run.directory = dir
        }
        if let u = o["umask"] {
            let text = try Job.string(u, "umask")
            guard let mask = Job.RunCommand.parseUmask(text) else {
                throw JobError("field 'umask' is not an octal mode from 000 to 777", value: u.snippet())
            }
            run.umask = mask
        }
        if let e = o["environment"] {
            guard case .object(let vars) = e else { throw JobError("field 'environment' is not an object of strings", value: e.snippet()) }
            guard vars.count <= Job.RunCommand.maximumVariables else {
                throw JobError("field 'environment' has \(vars.count) variables; the most is \(Job.RunCommand.maximumVariables)")
            }
            for name in vars.keys.sorted() {
                guard Job.RunCommand.isVariableName(name) else {
                    throw JobError("field 'environment' holds a name that is not a variable name (letters, digits, _)", value: JSONValue.string(name).snippet())
                }
                let value = try Job.string(vars[name]!, "environment." + name)
                try noNUL(value, "environment." + name)
                run.environment.append(.init(name: name, value: value))
            }
        }
        if let t = o["timeout"] {
            let text = try Job.string(t, "timeout")
            let span: Span
            do { span = try TimeSpan.parse(text) } catch {
                throw JobError("field 'timeout' is not a time span", value: t.snippet(), detail: error.description)
            }
            guard Job.RunCommand.timeoutRange.contains(span) else {
                throw JobError("field 'timeout' is out of range: from 1s to 366 days", value: t.snippet())
            }
            run.timeout = span
        }
        if let n = o["notify"] {
            guard case .string(let s) = n, let notify = Job.RunCommand.Notify(rawValue: s) else {
                throw JobError("field 'notify' is not always, failure or never", value: n.snippet())
            }
            run.notify = notify
        }
        job.command = run
    }

    static func noNUL(_ s: String, _ field: String) throws(JobError) {
        if s.utf8.contains(0) { throw JobError("field '\(field)' holds a NUL character, which a program cannot be given") }
    }

    static func encodeFields(_ job: Job) -> [(String, JSONWriter.Value)] {
        guard let run = job.command else { return [] }
        var f: [(String, JSONWriter.Value)] = []
        if !run.argv.isEmpty { f.append(("command", .array(run.argv.map { .string($0) }))) }
        if let script = run.script { f.append(("script", .string(script))) }
        if let dir = run.directory { f.append(("directory", .string(dir))) }
        if let mask = run.umask { f.append(("umask", .string(Job.RunCommand.formatUmask(mask)))) }
        if !run.environment.isEmpty { f.append(("environment", .object(run.environment.map { ($0.name, .string($0.value)) }))) }
        if let t = run.timeout { f.append(("timeout", .string(TimeSpan.format(t)))) }
        if run.notify != .failure { f.append(("notify", .string(run.notify.rawValue))) }
        return f
    }

    static func validate(_ job: Job) throws(JobError) {
        guard let run = job.command, run.argv.isEmpty != (run.script == nil) else {
            throw JobError("a run job needs 'command' (the program and its arguments) or 'script' (for /bin/sh), not both")
        }
        guard job.at != nil || !job.every.isEmpty else { throw JobError("a run job needs 'at' or 'every'") }
        guard job.warn.isEmpty else { throw JobError("'warn' does not apply to a run job") }
        guard job.repeat == nil else { throw JobError("'repeat' does not apply to a run job") }
        guard job.calendar == nil else { throw JobError("a calendar item never runs a command") }
    }

    static func role(of instant: Instant, job: Job, isWarning: () -> Bool) -> OccurrenceRole { .run }

    static func largeFields(of job: Job) -> [(String, String?)] {
        guard let c = job.command else { return [] }
        return [("script", c.script), ("command", c.argv.isEmpty ? nil : c.argv.joined(separator: " ")),
                ("environment", c.environment.isEmpty ? nil : c.environment.map { $0.name + "=" + $0.value }.joined(separator: "\n"))]
    }

    /// Only its end shows a popup (`Engine+Running`); the template below is that one's.
    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String]) {
        (config.templates["runEnded"], ["title": occurrence.job.command?.label(title: occurrence.job.title) ?? "command", "result": "", "output": ""])
    }

    static func popupClass(of occurrence: DueOccurrence) -> HeraldConfig.PopupClass { .run }

    static func summary(_ job: Job, config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String {
        "run " + (job.command?.label(title: job.title) ?? "") + (job.every.isEmpty ? "" : " (every " + job.every.joined(separator: "; ") + ")")
    }
}

extension HeraldConfig.PopupClass {
    public static let run = Self("run")
}

extension Job {
    /// A run job's command and the circumstances it was made in (`herald run`).
    public struct RunCommand: Sendable, Equatable {
        /// When its end shows a popup.
        public enum Notify: String, Sendable, CaseIterable {
            case always, failure, never
        }
        /// The program and its arguments; empty for a script.
        public var argv: [String] = []
        /// A script for `/bin/sh` (`herald run < backup.sh`).
        public var script: String?
        /// The working directory (nil: the home directory when it runs).
        public var directory: String?
        /// The umask (nil: 022).
        public var umask: UInt32?
        /// The environment it runs with, sorted by name, without the session's variables
        /// (`sessionVariables`, taken from heraldd when it runs) and those at drops.
        public var environment: [Variable] = []
        /// One variable. A struct, not a tuple: the CLI builds these at every `herald run`, where a
        /// tuple type's run-time metadata costs start-up time (BENCHMARKS.md, "One of each").
        public struct Variable: Sendable, Equatable {
            public var name: String
            public var value: String
            public init(name: String, value: String) { self.name = name; self.value = value }
        }
        /// How long it may run before it is ended (SIGTERM, then SIGKILL 10 s later).
        public var timeout: Span?
        public var notify: Notify = .failure

        public init(argv: [String] = [], script: String? = nil, directory: String? = nil, umask: UInt32? = nil,
                    environment: [Variable] = [], timeout: Span? = nil, notify: Notify = .failure) {
            self.argv = argv; self.script = script; self.directory = directory; self.umask = umask
            self.environment = environment; self.timeout = timeout; self.notify = notify
        }

        public static let maximumArguments = 4096
        public static let maximumVariables = 4096
        public static let timeoutRange = Span.seconds(1)...Job.longestSpan
        /// How long an ended command's group has after SIGTERM before SIGKILL.
        public static let killAfter = Span.seconds(10)

        /// What runs: the program and arguments, or `/bin/sh -c SCRIPT`.
        public var arguments: [String] { script.map { ["/bin/sh", "-c", $0] } ?? argv }

        /// How a popup and a listing name it: the job's title, else the program's name with
        /// its arguments (a script: its first line), at most 60 characters.
        public func label(title: String?) -> String {
            if let t = title?.trimmingSpaces, !t.isEmpty { return t }
            // Built by hand: split/joined/count cost the CLI run-time type lookups at every start.
            var text = ""
            if let script {
                for line in script.split(separator: "\n") {
                    let l = String(line).trimmingSpaces
                    if !l.isEmpty && !l.hasPrefix("#") { text = l; break }
                }
                if text.isEmpty { text = "script" }
            } else {
                var program = Substring(argv[0])
                if let slash = program.lastIndex(of: "/") { program = program[program.index(after: slash)...] }
                text = String(program)
                for a in argv.dropFirst() { text += " " + a }
            }
            text = text.trimmingSpaces
            guard text.utf8.count > 60 else { return text }
            var cut = ""
            for scalar in text.unicodeScalars {
                guard cut.utf8.count + String(scalar).utf8.count <= 59 else { break }
                cut.unicodeScalars.append(scalar)
            }
            return cut + "…"
        }

        /// Variables a job keeps from where it was made. As at: not `TERM` or `DISPLAY`, nor
        /// the shell's own `_`; nor (unlike at) `SHLVL`, `PWD`, `OLDPWD`, which describe the
        /// shell it was typed in. The session's variables (`sessionVariables`) are not kept
        /// either: they are taken from heraldd when it runs, so a job made in an old session
        /// reaches today's display and bus.
        public static func keeps(_ name: String) -> Bool {
            isVariableName(name) && !dropped.contains(name) && !sessionVariables.contains(name)
        }

        static let dropped: Set<String> = ["TERM", "_", "SHLVL", "PWD", "OLDPWD", "COLUMNS", "LINES"]
        /// The desktop session's variables: from heraldd's environment at run time.
        public static let sessionVariables: [String] = [
            "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_SESSION_ID",
            "XDG_SESSION_TYPE", "XDG_SESSION_CLASS", "XDG_SESSION_DESKTOP", "XDG_CURRENT_DESKTOP", "XDG_SEAT", "XDG_VTNR",
            "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",
        ]

        public static func isVariableName(_ name: String) -> Bool {
            let u = Array(name.utf8)
            guard let first = u.first, u.count <= 256, first == UInt8(ascii: "_") || (first | 0x20) >= 97 && (first | 0x20) <= 122 else { return false }
            return u.allSatisfy { $0 == UInt8(ascii: "_") || ($0 >= 48 && $0 <= 57) || (($0 | 0x20) >= 97 && ($0 | 0x20) <= 122) }
        }

        public static func parseUmask(_ text: String) -> UInt32? {
            let u = Array(text.utf8)
            guard !u.isEmpty, u.count <= 4, u.allSatisfy({ $0 >= 48 && $0 <= 55 }) else { return nil }
            let mask = u.reduce(UInt32(0)) { $0 * 8 + UInt32($1 - 48) }
            return mask <= 0o777 ? mask : nil
        }

        public static func formatUmask(_ mask: UInt32) -> String {
            var digits: [UInt8] = [48, 48, 48, 48]
            var m = mask & 0o7777
            for k in stride(from: 3, through: 0, by: -1) { digits[k] = 48 + UInt8(m & 7); m >>= 3 }
            return String(decoding: digits, as: UTF8.self)
        }
    }
}
