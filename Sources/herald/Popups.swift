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

extension Herald {
    struct Ack: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ack",
            abstract: "Acknowledge a repeating reminder from the command line: its popup goes and stops coming back.",
            discussion: """
                The same as pressing Done on the popup of a reminder or timer made with \
                --repeat (useful where the notification server draws no buttons). The job moves \
                on to its next occurrence, or finishes; the history records it as done.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The job id (or a unique prefix).")
        var id: String

        func run() throws {
            let ctx = try CLIContext.load(global)
            let p = try ctx.findOne(id)
            guard case .jobs(let name) = p.location, let job = p.job else {
                throw CLIError.data("job '\(p.id)' has not fired yet: nothing to acknowledge (cancel it with 'herald cancel')")
            }
            if let answer = try ctx.askDaemon(.ack(id: p.id)) {  // heraldd decides, writes and closes the popup
                guard case .acknowledged(let next) = answer else { throw CLIError.failure("heraldd answered something else") }
                return say("Acknowledged \(name.id)" + (next.map { ": next \(ctx.when($0.occurrence))" } ?? ": finished"))
            }
            // No heraldd: the same decision, applied here.
            let schedule: JobSchedule
            do { schedule = try JobSchedule(job, localZone: ctx.zone, defaultLead: ctx.config.lead) } catch { throw CLIError.data("job '\(p.id)': \(error)") }
            guard let step = JobDecision.acknowledge(name, job: job, schedule: schedule, now: ctx.now) else {
                throw CLIError.data("job '\(p.id)' is not waiting to repeat: nothing to acknowledge (only reminders with --repeat and ringing or snoozed alarms wait for one)")
            }
            var next: Instant? = nil
            do {
                switch step {
                case .move(let to):
                    try FileSystem.move(ctx.spool.path(of: name), to: ctx.spool.path(of: to))
                    next = to.occurrence
                case .finish:
                    try ctx.spool.finish(name)
                }
            } catch {
                throw CLIError.failure(error.isNotFound ? "job '\(name.id)' just changed (it fired?); try again" : "\(error)")
            }
            try? FileSystem.appendLine(JobDecision.ackRecord(name, job: job, schedule: schedule, now: ctx.now).jsonLine, to: ctx.spool.historyPath)
            say("Acknowledged \(name.id)" + (next.map { ": next \(ctx.when($0))" } ?? ": finished"))
        }
    }

    struct Quiet: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "quiet",
            abstract: "Do not disturb: hold popups back now, and show them as one summary afterwards.",
            discussion: """
                While quiet (switched on here, or inside the config's quietHours such as \
                "22:00-07:00"), popups that are not critical are held, never lost, and shown \
                when the quiet time ends as one summary popup ("3 reminders while you were \
                away: ..."); each is still recorded in the history. Critical ones show at once. \
                The desktop's own do-not-disturb (GNOME, KDE Plasma, swaync, dunst) counts too, \
                unless the config says quietWithDesktop: false; heraldd reads it, and this \
                command shows it.

                Examples:
                  herald quiet on --for 2h
                  herald quiet off
                  herald quiet           (the same as 'herald quiet status')
                """)

        enum Action: String, ExpressibleByArgument, CaseIterable {
            case on, off, status
        }

        @OptionGroup var global: GlobalOptions

        @Argument(help: "on, off or status (default: status).")
        var action: Action = .status

        @Option(name: .customLong("for"), help: ArgumentHelp("With 'on': end by itself after this span, e.g. 2h.", valueName: "span"))
        var duration: String?

        @Flag(help: "With 'status': print JSON for scripts.")
        var json = false

        func run() throws {
            if duration != nil && action != .on { throw CLIError.usage("--for goes with 'herald quiet on'") }
            let span = try duration.map { try parseSpan($0, option: "--for") }
            if let span, span <= .zero { throw CLIError.usage("--for: '\(duration!)' must be longer than 0") }
            let ctx = try CLIContext.load(global)
            switch action {
            case .on:
                try write(QuietSwitch(since: ctx.now, until: span.map { ctx.fromNow($0) }), ctx)
                say("Quiet " + (span.map { "until \(ctx.when(ctx.fromNow($0)))" } ?? "until 'herald quiet off'")
                    + ": popups are held and shown as one summary afterwards; critical ones still show"
                    + (ctx.config.alarms.ringsWhenQuiet ? ", and alarms ring." : " (alarms wait too: alarms.duringQuiet is hold)."))
            case .off:
                if let current = ctx.spool.quietSwitch(), current.contains(ctx.now) {
                    try write(QuietSwitch(since: current.since, until: ctx.now), ctx)
                }
                var line = "Quiet off."
                if let hours = ctx.config.quietHours, hours.contains(ctx.now, zone: ctx.zone) {
                    line += " (Quiet hours \(hours) go on until \(RelativeTime.clock(hours.end(containing: ctx.now, zone: ctx.zone)!, zone: ctx.zone, now: ctx.now)).)"
                }
                say(line)
            case .status:
                status(ctx)
            }
        }

        func write(_ manual: QuietSwitch, _ ctx: CLIContext) throws {
            do {
                try ctx.spool.prepare()
                try AtomicReplace.write(manual.json.utf8, to: ctx.spool.quietPath, options: .spool(staging: ctx.spool.tmp))
            } catch { throw CLIError.failure("\(error)") }
        }

        func status(_ ctx: CLIContext) {
            // The desktop's do-not-disturb, as the running heraldd last read it.
            let daemon = SpoolLock.runningDaemon(ctx.spool) == nil ? nil
                : (try? FileSystem.read(ctx.spool.statusPath, limit: 1 << 20)).flatMap(DaemonStatus.init(json:))
            let desktop = daemon?.doNotDisturb.map { DesktopQuiet(since: daemon?.doNotDisturbSince ?? ctx.now, source: $0) }
            let state = QuietState(hours: ctx.config.quietHours, manual: ctx.spool.quietSwitch(),
                                   desktop: ctx.config.quietWithDesktop ? desktop : nil)
            let quiet = state.isQuiet(at: ctx.now, zone: ctx.zone)
            let end = state.end(containing: ctx.now, zone: ctx.zone)
            if json {
                var f: [(String, JSONWriter.Value)] = [("quiet", .bool(quiet))]
                if case .some(let e) = end { f.append(("until", e.map { .string(ISO8601.format($0, in: ctx.zone)) } ?? .null)) }
                f.append(("quietHours", ctx.config.quietHours.map { .string($0.description) } ?? .null))
                let manualOn = state.manual.map { $0.contains(ctx.now) } ?? false
                f.append(("switchedOn", .bool(manualOn)))
                f.append(("desktop", desktop.map { .string($0.source) } ?? .null))
                say(JSONWriter.render(.object(f), pretty: true))
                return
            }
            if quiet {
                let until: String
                if case .some(let e?) = end { until = "until " + ctx.when(e) }
                else if state.desktopContains(ctx.now) { until = "while the desktop's do-not-disturb is on" }
                else { until = "until 'herald quiet off'" }
                say("Quiet \(until): popups that are not critical are held for a summary.")
            } else {
                say("Not quiet: popups show as they come due.")
            }
            say("Quiet hours: " + (ctx.config.quietHours.map { "\($0) (quietHours in the config)" } ?? "none (set quietHours: \"22:00-07:00\" in the config)"))
            if let desktop {
                say(TextSafety.visible("The desktop's do-not-disturb: on (\(desktop.source))")
                    + (ctx.config.quietWithDesktop ? "" : "; not followed (quietWithDesktop: false)"))
            }
        }
    }
}
