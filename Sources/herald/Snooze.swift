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
            let (length, until) = try span.isEmpty ? (ctx.config.snooze, nil) : Self.length(span.joined(separator: " "), ctx)
            let found = ctx.spool.findPending(id, defaultLead: ctx.config.lead, localZone: ctx.zone, now: ctx.now)
            if found.count > 1 { throw CLIError.data("'\(id)' matches \(found.count) jobs: \(found.prefix(5).map(\.id).joined(separator: ", "))") }
            let from: String
            let target: JobFileName?
            if let p = found.first {
                guard case .jobs(let name) = p.location else {
                    throw CLIError.data("job '\(p.id)' has not been taken in by heraldd yet; start heraldd first")
                }
                target = JobFileName.snoozed(id: p.id, pending: name, lastShown: ctx.lastShownOccurrence(of: p.id),
                                             now: ctx.fromNow(.zero), length: length)
                from = ctx.spool.path(of: name)
            } else if let done = ctx.finishedJob(id) {
                target = JobFileName.snoozed(id: done.id, pending: nil, lastShown: done.occurrence, now: ctx.fromNow(.zero), length: length)
                from = ctx.spool.done + "/" + done.description
            } else {
                throw CLIError.data("no pending or fired job '\(id)' (see 'herald list')")
            }
            guard var target else { throw CLIError.data("job '\(id)' has nothing to snooze") }
            if let until {
                guard until > target.occurrence else {
                    throw CLIError.usage("'\(span.joined(separator: " "))' is before the job's own time \(ctx.when(target.occurrence)): use 'herald reschedule' to move it earlier")
                }
                target.snoozedUntil = until
            }
            do { try FileSystem.move(from, to: ctx.spool.path(of: target)) } catch {
                throw CLIError.failure(error.isNotFound ? "job '\(target.id)' just changed (it fired?); try again" : "\(error)")
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
    /// The occurrence of `id` most recently shown, from history.jsonl.
    func lastShownOccurrence(of id: String) -> Instant? {
        guard let data = FileManager.default.contents(atPath: spool.historyPath) else { return nil }
        var last: Instant? = nil
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.contains("\"\(id)\"") {
            if let record = HistoryRecord(jsonLine: line), record.id == id, record.outcome == .shown { last = record.due }
        }
        return last
    }

    /// A finished job in done/: by exact id, else a unique prefix; its latest state.
    func finishedJob(_ query: String) -> JobFileName? {
        let names = ((try? FileSystem.list(spool.done)) ?? []).compactMap(JobFileName.init(parsing:))
        let exact = names.filter { $0.id == query }
        let matches = exact.isEmpty ? names.filter { $0.id.hasPrefix(query) } : exact
        guard Set(matches.map(\.id)).count == 1 else { return nil }
        return matches.max { $0.occurrence < $1.occurrence }
    }
}
