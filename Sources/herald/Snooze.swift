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
    struct Snooze: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snooze",
            abstract: "Show a job's popup again later (or put off one that has not fired yet).",
            discussion: """
                For a job that has already fired (a finished reminder, or a recurring job's \
                latest occurrence), its last popup shows again SPAN from now. A job that has \
                not fired yet fires SPAN later than planned. The default SPAN is the config's \
                defaults.snooze (10m). Instead of a span, a time may be given as for --at \
                ('tomorrow 9am', 'teatime'; see 'herald when'). Snoozes are kept in the spool \
                and survive restarts.

                Examples:
                  herald snooze k7f3 20m
                  herald snooze k7f3 "tomorrow 9am"
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The job id (or a unique prefix).")
        var id: String

        @Argument(help: "How long: a span such as 10m, or until when: 'tomorrow 9am' (default: the config's defaults.snooze).")
        var span: [String] = []

        func run() throws {
            let ctx = try CLIContext.load(global)
            let given = try span.isEmpty ? nil : Self.length(span.joined(separator: " "), ctx)
            let found = try ctx.spool.findPending(id, defaultLead: ctx.config.lead, localZone: ctx.zone, now: ctx.now)
            if found.count > 1 { throw CLIError.data("'\(id)' matches \(found.count) jobs: \(found.prefix(5).map(\.id).joined(separator: ", "))") }
            // What was shown last: a bounded read from the end of the history (heraldd prefers
            // its popup's occurrence); a finished job's own last state.
            let jobID: String, pending: JobFileName?, finished: JobFileName?, lastShown: Instant?
            if let p = found.first {
                guard case .jobs(let name) = p.location else {
                    throw CLIError.data("job '\(p.id)' has not been taken in by heraldd yet; start heraldd first")
                }
                (jobID, pending, finished, lastShown) = (p.id, name, nil, ctx.spool.lastShownOccurrence(of: p.id))
            } else if let done = ctx.finishedJob(self.id) {
                (jobID, pending, finished, lastShown) = (done.id, nil, done, done.occurrence)
            } else {
                throw CLIError.data("no pending or fired job '\(self.id)' (see 'herald list')")
            }
            // Without a span, the job's kind says how long (an alarm's alarms.snooze).
            let job = found.first?.job ?? finished.flatMap { done in
                (try? FileSystem.read(ctx.spool.done + "/" + done.description, limit: Job.maximumFileSize))
                    .flatMap { try? Job.decode($0, localZone: ctx.zone) }
            }
            let (length, until) = given ?? (job?.defaultSnooze(ctx.config) ?? ctx.config.snooze, nil)
            let target: JobFileName
            if let answer = try ctx.askDaemon(.snooze(id: jobID, length: length, until: until, lastShown: lastShown, finished: finished)) {
                guard case .snoozed(let t) = answer else { throw CLIError.failure("heraldd answered something else") }
                target = t
            } else {
                // No heraldd: the same decision, applied here.
                do { target = try JobDecision.snooze(id: jobID, pending: pending, lastShown: lastShown, now: ctx.fromNow(.zero), length: length, until: until) } catch {
                    throw error.cliError
                }
                let document = pending.map { ctx.spool.loadJob($0, localZone: ctx.zone) } ?? finished.map { ctx.spool.loadFinishedJob($0, localZone: ctx.zone) }
                let from = pending.map { ctx.spool.path(of: $0) } ?? (ctx.spool.done + "/" + finished!.description)
                do { try FileSystem.move(from, to: ctx.spool.path(of: target)) } catch {
                    throw CLIError.failure(error.isNotFound ? "job '\(target.id)' just changed (it fired?); try again" : "\(error)")
                }
                if case .success(let job)? = document, let schedule = try? JobSchedule(job, localZone: ctx.zone, defaultLead: ctx.config.lead),
                   let line = JobDecision.snoozeRecord(target, lastShown: lastShown, job: job, schedule: schedule, now: ctx.fromNow(.zero)) {
                    try? FileSystem.appendLine(line.jsonLine, to: ctx.spool.historyPath)
                }
            }
            say("Snoozed \(target.id): shows again \(ctx.when(target.fireAt))")
        }
    }
}

extension Herald.Snooze {
    /// A span (`20m`), else a time phrase (`tomorrow 9am`): how long, and until when for a phrase.
    static func length(_ text: String, _ ctx: CLIContext) throws -> (Span, Instant?) {
        if let span = try? TimeSpan.parse(text) {
            guard span > .zero else { throw CLIError.usage("SPAN: '\(text)' must be longer than 0") }
            guard span <= Job.snoozeRange.upperBound else { throw CLIError.usage("SPAN: '\(text)' is longer than 366 days") }
            return (span, nil)
        }
        let until: TimePhrase.Meaning
        do { until = try TimePhrase.parse(text, now: ctx.now, zone: ctx.zone) } catch {
            throw CLIError.usage("SPAN: '\(text)' is neither a span (10m, 1h 30min) nor a time: \(error.reason)")
        }
        guard until.instant > ctx.now else { throw CLIError.usage("SPAN: '\(text)' is not after now") }
        return (until.instant - ctx.fromNow(.zero), until.instant)
    }
}

extension CLIContext {
    /// A finished job in done/: by exact id, else a unique prefix; its latest state.
    func finishedJob(_ query: String) -> JobFileName? {
        let names = ((try? FileSystem.list(spool.done)) ?? []).compactMap(JobFileName.init(parsing:))
        let exact = names.filter { $0.id == query }
        let matches = exact.isEmpty ? names.filter { $0.id.hasPrefix(query) } : exact
        guard Set(matches.map(\.id)).count == 1 else { return nil }
        return matches.max { $0.occurrence < $1.occurrence }
    }
}
