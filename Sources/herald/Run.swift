import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import HeraldCore

extension Herald {
    struct RunCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run a program on time, as at and cron do, and say how it went.",
            discussion: """
                Give the program and its arguments after --, or a script on standard input \
                (run by /bin/sh), as at takes one. The job keeps what at keeps, so it runs as \
                if typed then: this directory, this umask and this environment (not TERM, \
                SHLVL, PWD, OLDPWD or _; the desktop session's variables, such as DISPLAY and \
                DBUS_SESSION_BUS_ADDRESS, are taken from heraldd when it runs).

                Its standard output and error go to one file, runs/ID/N.log in the spool (cut at \
                commands.maxOutput, default 1 MiB). When it ends, a popup says how it went \
                (--notify: failure by default) with its last lines, Show output and Run again; \
                'herald history' has its exit status, signal, duration and log. A run is marked \
                started on disk before it is started, so a restart of heraldd never runs it \
                twice. 'herald cancel ID' ends a running one (SIGTERM to its process group, \
                SIGKILL 10 s later), as --timeout does. A --every job whose previous run is \
                still going skips that time ("skipped (still running)").

                Commands are never synced and never come from a calendar; 'commands: off' in \
                the config refuses them all.

                Examples:
                  herald run --at 17:00 -- make -C ~/src/site backup
                  herald run --at 'tomorrow 3am' --timeout 2h < backup.sh
                  herald run --every 'Mon..Fri 09:00' --notify always -- ~/bin/fetch-mail
                  echo 'rsync -a ~/photos nas:' | herald run --in 10m --label Photos
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var when: WhenOptions

        @Option(help: ArgumentHelp("Run on a calendar schedule: 'daily', 'Mon..Fri 09:00', '*:0/15'. Give it again for more times.", valueName: "expression"))
        var every: [String] = []

        @Option(help: ArgumentHelp("End it after this long: SIGTERM to its process group, SIGKILL 10 s later (default: no limit).", valueName: "span"))
        var timeout: String?

        @Option(help: ArgumentHelp("When a popup tells how it ended: always, failure (default) or never.", valueName: "when"))
        var notify: String?

        @Option(help: ArgumentHelp("What popups and listings call it (default: the program and its arguments).", valueName: "text"))
        var label: String?

        @Option(help: ArgumentHelp("The job's id (default: a random one).", valueName: "id"))
        var id: String?

        @OptionGroup var waking: WakeOption

        @Flag(help: "Refused: a command is never put in a synced calendar (any device or person with the calendar could run programs here).")
        var sync = false

        @Argument(parsing: .postTerminator, help: ArgumentHelp("The program and its arguments, after --.", valueName: "program"))
        var program: [String] = []

        /// What was asked, as the fast path would have read it.
        func request() -> RunRequest {
            RunRequest(spool: global.spool, config: global.config, at: when.at, inSpan: when.inSpan, every: every, timeout: timeout,
                       notify: notify, label: label, id: id, wake: waking.value, sync: sync, program: program)
        }

        func run() throws { try request().run() }
    }
}

/// Everything `herald run` was asked, whichever parser read the command line (ArgumentParser,
/// or `FastPath.run` for plain invocations: a command queued from a script should cost what
/// `at` costs, and ArgumentParser alone costs more; BENCHMARKS.md, "Issue 43").
struct RunRequest: Equatable {
    var spool: String?
    var config: String?
    var at: String?
    var inSpan: String?
    var every: [String]
    var timeout: String?
    var notify: String?
    var label: String?
    var id: String?
    var wake: Bool? = nil
    var sync = false
    var program: [String]

    func run() throws {
        if sync {
            throw CLIError.usage("--sync: a command is never synced: whoever can write to the synced calendar could then run programs on this machine. Nothing written")
        }
        // A job file holds text: an argument that is not UTF-8 would run as something else.
        for k in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[k], String(validatingCString: raw) != nil else {
                throw CLIError.usage("argument \(k) is not UTF-8 text, which a job file cannot hold; nothing written")
            }
        }
        if let label, label.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }) {
            throw CLIError.usage("--label: '\(TextSafety.visible(label))' holds a control character; nothing written")
        }
        let ctx = try CLIContext.load(spool: spool, config: config)
        guard ctx.config.commands.enabled else {
            throw CLIError.usage("commands are off in the config ('commands: off'); nothing written")
        }
        let jobID = try PopupOptions.jobID(id, ctx)
        var command = Job.RunCommand()
        if program.isEmpty {
            command.script = try Self.readScript()
        } else {
            guard !program[0].isEmpty else { throw CLIError.usage("PROGRAM is empty") }
            if let bad = program.first(where: { $0.utf8.contains(0) }) { throw CLIError.usage("'\(TextSafety.visible(bad))' holds a NUL character") }
            command.argv = program
        }
        if let timeout {
            let span = try parseSpan(timeout, option: "--timeout")
            guard Job.RunCommand.timeoutRange.contains(span) else { throw CLIError.usage("--timeout: '\(timeout)' is out of range: from 1s to 366 days") }
            command.timeout = span
        }
        if let notify {
            guard let n = Job.RunCommand.Notify(rawValue: notify) else { throw CLIError.usage("--notify: '\(notify)' is not always, failure or never") }
            command.notify = n
        }
        command.directory = try Self.workingDirectory()
        let mask = umask(0o022)
        umask(mask)
        command.umask = UInt32(mask)
        command.environment = Self.keptEnvironment()
        let title = label.map { $0.trimmingSpaces }.flatMap { $0.isEmpty ? nil : $0 }
        var job = Job(kind: .run, id: jobID, title: title)
        job.command = command
        job.wake = wake
        let name = command.label(title: title)
        if !every.isEmpty {
            if inSpan != nil { throw CLIError.usage("--in does not go with --every: use --at to say when the schedule starts") }
            let calendars = try every.map { try ctx.calendar($0, option: "--every") }
            job.at = try at.map { _ in try WhenOptions.resolve(at: at, inSpan: nil, ctx) }
            job.every = every
            job.resolveZones()
            guard let first = try JobSchedule(job, localZone: ctx.zone).first(now: ctx.now) else {
                throw CLIError.data("--every: '\(every.joined(separator: "', '"))' never elapses after now")
            }
            try submit(job, ctx)
            say("Run \(jobID): \(name), \(calendars.map(\.description).joined(separator: "; ")), first \(ctx.when(first))")
            return
        }
        let due = try WhenOptions.resolve(at: at, inSpan: inSpan, ctx)
        guard due > ctx.now else { throw CLIError.usage("--at: \(ISO8601.format(due, in: ctx.zone)) is in the past") }
        job.at = due
        job.timezone = ctx.zone.identifierForJobs
        try submit(job, ctx)
        say("Run \(jobID): \(name), \(ctx.when(due))")
    }

    /// Writes the job (refused past 64 KiB, naming what takes the room: `Job.checkedDocument`).
    func submit(_ job: Job, _ ctx: CLIContext) throws {
        try ctx.place(job, sync: false)
    }

    /// A script from standard input, as at reads one: text, at most what a job file holds.
    static func readScript() throws -> String {
        if isatty(0) == 1 {
            throw CLIError.usage("say what to run: 'herald run --at TIME -- PROGRAM [ARG...]', or a script on standard input ('herald run --at TIME < script.sh')")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if n < 0 { if errno == EINTR { continue }; throw CLIError.failure("cannot read the script from standard input: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            bytes += buffer[0..<n]
            if bytes.count > Job.maximumFileSize { throw CLIError.data("the script on standard input is more than \(Job.maximumFileSize / 1024) KiB, the most a job holds; nothing written") }
        }
        guard !bytes.contains(0) else { throw CLIError.data("the script on standard input holds a NUL byte: it is not a text for /bin/sh; nothing written") }
        let text = String(decoding: bytes, as: UTF8.self)
        guard Array(text.utf8) == bytes else { throw CLIError.data("the script on standard input is not UTF-8 text; nothing written") }
        guard !text.trimmingSpaces.isEmpty else { throw CLIError.usage("the script on standard input is empty: say what to run after --, or pipe a script in") }
        return text
    }

    /// The working directory, as at keeps it (refused, as at does, when it cannot be named).
    static func workingDirectory() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4097)
        guard getcwd(&buffer, buffer.count) != nil else {
            throw CLIError.failure("cannot tell the working directory (\(String(cString: strerror(errno)))); nothing written")
        }
        return String(cString: buffer)
    }

    /// This environment without what `Job.RunCommand.keeps` drops, read from `environ`
    /// itself: a variable that is not UTF-8 text is left out with a note (a job file holds
    /// text; decoded, it would be another value).
    static func keptEnvironment() -> [Job.RunCommand.Variable] {
        var env: [String: String] = [:]
        var k = 0
        while let entry = environ[k] {
            k += 1
            guard let text = String(validatingCString: entry) else {
                var name = ""
                var p = entry
                while p.pointee != 0 && p.pointee != 61 { name.unicodeScalars.append(Unicode.Scalar(UInt8(bitPattern: p.pointee))); p += 1 }
                if Job.RunCommand.keeps(name) { warn("note: $\(TextSafety.visible(name)) is not UTF-8 text; the job does not keep it") }
                continue
            }
            guard let eq = text.firstIndex(of: "=") else { continue }
            let name = String(text[..<eq])
            if env[name] == nil { env[name] = String(text[text.index(after: eq)...]) }
        }
        return env.keys.sorted().filter { Job.RunCommand.keeps($0) }.map { .init(name: $0, value: env[$0]!) }
    }
}
