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
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "What fired, when and how late, how each popup ended, and what was missed or failed; newest first.",
            discussion: """
                Outcomes: shown (the server took the popup), skipped (nothing to show: a habit \
                already done that day, a heads-up after its arrival), missed (came due while \
                heraldd was down or the machine asleep, longer ago than catchUp.grace), failed \
                (the job file turned out unreadable and went to failed/). Records are kept for \
                limits.retention (30 days).

                ENDED says how a shown popup ended: done (Done, Got it, a click on it, or \
                'herald ack'), snoozed (until when), dismissed (closed by you), expired (closed \
                by the server when its time ran out), replaced (by the job's next popup, in \
                place). Empty while it is still on screen. --json lists every record, endings too.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("Only what happened within this span before now, e.g. 1d.", valueName: "span"))
        var since: String?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func run() throws {
            let span = try since.map { try parseSpan($0, option: "--since") }
            let ctx = try CLIContext.load(global)
            var records = ctx.spool.history().reversed() as [HistoryRecord]
            if let span { records = records.filter { $0.time >= ctx.now - span } }
            if json {
                say(JSONWriter.render(.array(records.map { r in
                    var f: [(String, JSONWriter.Value)] = [
                        ("time", .string(ISO8601.format(r.time, in: ctx.zone))), ("id", .string(r.id)),
                        ("outcome", .string(r.outcome.rawValue)), ("due", .string(ISO8601.format(r.due, in: ctx.zone))),
                        ("lateMs", .int(r.lateness.microseconds / 1000)),
                    ]
                    if let kind = r.kind { f.append(("kind", .string(kind.rawValue))) }
                    if let role = r.role { f.append(("role", .string(role.rawValue))) }
                    if let title = r.title { f.append(("title", .string(title))) }
                    if let note = r.note { f.append(("note", .string(note))) }
                    if let run = r.run {
                        // A run's end: exit status or signal, how long it ran, its output's file.
                        f.append(("exitStatus", run.exitStatus.map { .int(Int64($0)) } ?? .null))
                        f.append(("signal", run.signal.map { .int(Int64($0)) } ?? .null))
                        f.append(("duration", run.duration.map { .number(Double($0.microseconds / 1000) / 1000) } ?? .null))
                        if let log = run.log { f.append(("log", .string(log))) }
                    }
                    return .object(f)
                }), pretty: true))
                return
            }
            let endings = Self.endings(records)
            records = records.filter { !$0.outcome.isEnding }
            guard !records.isEmpty else { say("Nothing in the history" + (since.map { " for the last \($0)" } ?? "") + "."); return }
            var rows = [["WHEN", "", "ID", "KIND", "OUTCOME", "ENDED", "LATE", "WHAT"]]
            for r in records {
                let late = r.lateness >= .seconds(1) ? TimeSpan.humanize(r.lateness) : r.outcome == .shown || r.outcome == .ran ? "on time" : ""
                var ended = ""
                if r.outcome == .shown, let end = endings[EndKey(id: r.id, due: r.due, shownAt: r.time)] {
                    ended = end.outcome.rawValue
                    if end.outcome == .snoozed, let note = end.note, let until = ISO8601.parseInstant(String(note.dropFirst(6))) {
                        ended += " until " + RelativeTime.clock(until, zone: ctx.zone, now: ctx.now)
                    }
                }
                rows.append([RelativeTime.clock(r.time, zone: ctx.zone, now: ctx.now), RelativeTime.phrase(r.time, now: ctx.now), r.id,
                             r.role?.label ?? "-",
                             r.outcome.rawValue, ended, late, [r.title, r.note].compactMap { $0 }.joined(separator: ": ")])
            }
            sayStyled(Table.render(rows, header: true) { _, column, cell in
                guard column == 4 else { return column == 1 || column == 5 ? .dim : nil }
                switch HistoryRecord.Outcome(rawValue: cell) {
                case .shown?: return .green
                case .missed?: return .yellow
                case .failed?: return .red
                default: return .dim
                }
            })
        }

        struct EndKey: Hashable {
            var id: String
            var due: Instant
            var shownAt: Instant
        }

        /// How each shown popup ended: the first ending for the same occurrence after it was
        /// shown, before it was shown again. `records` is newest first.
        static func endings(_ records: [HistoryRecord]) -> [EndKey: HistoryRecord] {
            var result: [EndKey: HistoryRecord] = [:]
            var pending: [String: HistoryRecord] = [:]  // "id due" → the oldest ending seen after it
            for r in records {
                let key = r.id + " " + String(r.due.microseconds)
                if r.outcome.isEnding {
                    pending[key] = r  // walking back in time: the last one kept is the earliest
                } else if r.outcome == .shown, let end = pending.removeValue(forKey: key) {
                    result[EndKey(id: r.id, due: r.due, shownAt: r.time)] = end
                }
            }
            return result
        }
    }
}
