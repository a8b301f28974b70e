import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import HeraldCore

/// `--spool` and `--config`, on every subcommand.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The spool directory (default: $HERALD_SPOOL, the config's 'spool', or $XDG_STATE_HOME/herald).",
                               valueName: "dir"))
    var spool: String?

    @Option(help: ArgumentHelp("The configuration file (default: $HERALD_CONFIG or ~/.config/herald/config.yaml).",
                               valueName: "file"))
    var config: String?
}

/// What every command needs: the configuration, the spool, the local zone and "now".
struct CLIContext {
    let config: HeraldConfig
    let spool: Spool
    let zone: TimeZoneRules
    let now: Instant
    let environment: Environment

    static func load(_ options: GlobalOptions) throws -> CLIContext {
        try load(spool: options.spool, config: options.config)
    }

    static func load(spool: String?, config configPath: String?) throws -> CLIContext {
        let environment = Environment.current()
        let resolved = Resolution.resolve(spool: spool, config: configPath, environment: environment)
        if let error = resolved.configError { throw CLIError.data(error.description) }
        return CLIContext(config: resolved.config, spool: resolved.spool, zone: TimeZoneRules.local(environment: environment),
                          now: SystemClock().now, environment: environment)
    }

    /// Writes a job into the spool's intake, checked first as heraldd's intake will check it
    /// (its size once written out included): what herald accepts, heraldd shows.
    func submit(_ job: Job) throws {
        let document = try checkedDocument(job)
        try prepareSpool(adding: 1)
        do { try spool.submit(document, name: (job.id ?? "job") + ".json") } catch { throw CLIError.failure("\(error)") }
    }

    /// The job file `job` is written as, or the reason heraldd would refuse it (exit 65).
    func checkedDocument(_ job: Job) throws -> String {
        do { return try job.checkedDocument(zone: zone, localZone: zone, zones: ZoneFiles.lookup) } catch {
            throw CLIError.data("job '\(job.id ?? "?")' cannot be written: \(error)")
        }
    }

    /// Makes sure the spool exists, is safe, and has room for `count` more jobs.
    func prepareSpool(adding count: Int) throws {
        do {
            if try !spool.checkPermissions() {  // the usual case checks each directory once
                try spool.prepare()
                try spool.checkPermissions()
            }
        } catch {
            throw CLIError.failure("\(error)")
        }
        let held = pendingCountCheaply()
        if held + count > config.maxJobs {
            throw CLIError.failure("the spool holds \(held) jobs and its limit is \(config.maxJobs) (limits.jobs in the config): cancel some, or raise the limit")
        }
    }

    /// Jobs pending now, without reading every job: the count heraldd last wrote into
    /// status.json (it writes it at most a second late, and when it stops; jobs cancelled since
    /// only lower the true count) plus the intake. Counted from jobs/ when heraldd never ran.
    func pendingCountCheaply() -> Int {
        let intake = (try? FileSystem.count(spool.new, hidden: false)) ?? 0
        if let bytes = try? FileSystem.read(spool.statusPath, limit: 1 << 20), let pending = DaemonStatus.pendingCount(json: bytes) {
            return pending + intake
        }
        return ((try? FileSystem.count(spool.jobs)) ?? 0) + intake
    }

    /// Every pending job, next due first.
    func pendingJobs(loadDocuments: Bool = true) throws(FileSystemError) -> [PendingJob] {
        try spool.listPending(defaultLead: config.lead, localZone: zone, now: now, loadDocuments: loadDocuments)
    }

    /// "14:05 (in 14 min)".
    func when(_ t: Instant) -> String {
        RelativeTime.clock(t, zone: zone, now: now) + " (" + RelativeTime.phrase(t, now: now) + ")"
    }

    /// Parses a calendar expression given to `option`, refusing it with exit 65.
    func calendar(_ text: String, option: String) throws -> CalendarEvent {
        do { return try CalendarEvent.parse(text, localZone: zone) } catch {
            throw CLIError.data((option.isEmpty ? "" : option + ": ") + "'\(text)' is not a calendar expression: \(error)")
        }
    }

    /// `now + span`, to the millisecond.
    func fromNow(_ span: Span) -> Instant {
        Instant(microseconds: ((now + span).microseconds + 500) / 1000 * 1000)
    }

    /// A new random job id.
    func newID() -> String {
        var rng = SystemRandomNumberGenerator()
        return JobID.random(using: &rng)
    }
}

/// `--at TIME` / `--in SPAN`, exactly one of them.
struct WhenOptions: ParsableArguments {
    @Option(help: ArgumentHelp("When, as you would say it: 'tomorrow 9am', 'fri 17:00', 'noon', 'now + 15 min', 'in 2 hours', 'Jul 31 10am', ISO-8601 or HH:MM (see 'herald when').",
                               valueName: "time"))
    var at: String?

    @Option(name: .customLong("in"), help: ArgumentHelp("When, from now: a span such as 15m or 1h 30min.", valueName: "span"))
    var inSpan: String?

    /// The instant meant (not before the current minute).
    func resolve(_ ctx: CLIContext) throws -> Instant { try Self.resolve(at: at, inSpan: inSpan, ctx) }

    static func resolve(at: String?, inSpan: String?, _ ctx: CLIContext) throws -> Instant {
        switch (at, inSpan) {
        case (nil, nil): throw CLIError.usage("say when: --at TIME or --in SPAN")
        case (_?, _?): throw CLIError.usage("use either --at or --in, not both")
        case (let text?, nil):
            let instant = try ctx.phrase(text, option: "--at").instant
            guard instant <= Job.latestInstant else { throw CLIError.usage("--at: '\(text)' is after 9999-12-30, the latest time a job may have") }
            return instant
        case (nil, let text?):
            let span = try parseSpan(text, option: "--in")
            guard span > .zero else { throw CLIError.usage("--in: '\(text)' is not after now: use a span above 0") }
            guard Job.inRange.contains(span) else { throw CLIError.usage("--in: '\(text)' is more than 100 years ahead") }
            return ctx.fromNow(span)
        }
    }
}

extension CLIContext {
    /// `--from` on `next` and `when`: an ISO-8601 time (a bare date is its midnight), else now.
    func from(_ text: String?) throws -> Instant {
        guard let text else { return now }
        guard let t = TimeInput.parse(text, now: now, zone: zone) else {
            throw CLIError.usage("--from: '\(text)' is not a time: use ISO-8601 (2026-11-22T14:05 or 2026-11-22)")
        }
        return t
    }

    /// Reads a time phrase given to `option`, refusing it with exit 64 and the reason.
    func phrase(_ text: String, option: String, from base: Instant? = nil) throws -> TimePhrase.Meaning {
        do { return try TimePhrase.parse(text, now: base ?? now, zone: zone) } catch {
            throw CLIError.usage((option.isEmpty ? "" : option + ": ") + error.reason)
        }
    }
}

/// Parses a systemd-style span for an option, refusing with the option's name.
func parseSpan(_ text: String, option: String) throws -> Span {
    do { return try TimeSpan.parse(text) } catch {
        throw CLIError.usage("\(option): '\(text)' is not a time span: \(error)")
    }
}

extension Job.Urgency: ExpressibleByArgument {}

/// Writes a line to stdout (nothing at all for empty text when `emptyMeansNothing`), made
/// visible (`TextSafety.visible`, newlines and tabs kept): lines quote titles, names and file
/// names, and no control character in them may reach the terminal.
func say(_ text: String, emptyMeansNothing: Bool = false) {
    if emptyMeansNothing && text.isEmpty { return }
    writeAll(1, TextSafety.visible(text, whitespace: .kept) + "\n")
}

/// Writes a line holding Herald's own colours (`Style.paint`) to stdout as it is: every value
/// from a file in it must be made visible already (`Table.render` does for its cells).
func sayStyled(_ text: String) {
    writeAll(1, text + "\n")
}

/// Writes "herald: text" to stderr, made visible: warnings quote calendar lines and file names.
func warn(_ text: String) {
    writeAll(2, "herald: \(TextSafety.visible(text))\n")
}

/// Writes all of `text` to a file descriptor.
func writeAll(_ fd: Int32, _ text: String) {
    Descriptor.writeAll(to: fd, text.utf8)
}
