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
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Is heraldd running, what is pending, and are notifications getting through?",
            discussion: "Exit status: 0 when heraldd runs and notifications get through, 3 when heraldd is not running, 1 when notifications are failing.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func run() throws {
            let ctx = try CLIContext.load(global)
            let pid = SpoolLock.runningDaemon(ctx.spool)
            let status = (try? FileSystem.read(ctx.spool.statusPath, limit: 1 << 20)).flatMap(DaemonStatus.init(json:))
            // heraldd's table says how many and which is next; without heraldd, jobs/ is listed.
            let pending: (jobs: [PendingJob], total: Int)
            if pid != nil, let soonest = ctx.spool.soonestPending(1, defaultLead: ctx.config.lead, localZone: ctx.zone, now: ctx.now,
                                                                 loadDocuments: false) {
                pending = soonest
            } else {
                let all = try ctx.pendingJobs(loadDocuments: false)
                pending = (all, all.count)
            }
            let next = pending.jobs.first { $0.fireAt != nil }
            let waiting = ctx.spool.intakePending(defaultLead: ctx.config.lead, localZone: ctx.zone, now: ctx.now).count
            let failing = pid != nil && status?.lastError != nil
            let missed = ctx.spool.history(since: ctx.now - .minutes(24 * 60)).filter { $0.outcome == .missed }.count
            if json {
                var f: [(String, JSONWriter.Value)] = [
                    ("running", .bool(pid != nil)), ("pid", pid.map { .int(Int64($0)) } ?? .null),
                    ("version", status.map { .string($0.version) } ?? .null),
                    ("spool", .string(ctx.spool.root)), ("pending", .int(Int64(pending.total))),
                    ("nextDue", next?.fireAt.map { .string(ISO8601.format($0, in: ctx.zone)) } ?? .null),
                    ("nextID", next.map { .string($0.id) } ?? .null),
                    ("lastError", pid != nil ? status?.lastError.map { .string($0) } ?? .null : .null),
                    ("missedLast24h", .int(Int64(missed))),
                ]
                f.append(("notifier", status.map { .string($0.notifier) } ?? .null))
                let live = pid != nil ? status : nil
                f.append(("wakeFromSuspend", .object([
                    ("available", .bool(live?.wakeHolder != nil)), ("holder", live?.wakeHolder.map { .string($0) } ?? .null),
                    ("problem", live?.wakeProblem.map { .string($0) } ?? .null),
                    ("next", live?.wakeAt.map { .string(ISO8601.format($0, in: ctx.zone)) } ?? .null),
                ])))
                f.append(("server", live?.server.map { .string($0) } ?? .null))
                f.append(("doNotDisturb", .object([
                    ("on", .bool(live?.doNotDisturb != nil)), ("source", live?.doNotDisturb.map { .string($0) } ?? .null),
                    ("since", live?.doNotDisturbSince.map { .string(ISO8601.format($0, in: ctx.zone)) } ?? .null),
                    ("holdsPopups", .bool(live?.doNotDisturb != nil && live?.doNotDisturbFollowed == true)),
                ])))
                if let collection = ctx.config.syncCalendar {
                    let health = SyncHealth.read(collection, environment: ctx.environment, within: 2)
                    let v = health.verdict(now: ctx.now)
                    f.append(("sync", .object([("calendar", .string(collection)), ("exists", .bool(health.exists)), ("items", .int(Int64(health.items))),
                                               ("lastSync", health.lastSync.map { .string(ISO8601.format($0, in: ctx.zone)) } ?? .null),
                                               ("ok", .bool(v.ok))])))
                }
                if let live {
                    f.append(("calendars", .array(live.calendars.map { c in
                        .object([("source", .string(c.source)), ("items", .int(Int64(c.wanted))), ("planned", .int(Int64(c.planned))),
                                 ("share", .int(Int64(c.share))), ("skipped", .int(Int64(c.overShare))),
                                 ("waitingForRoom", .int(Int64(c.waitingForRoom))),
                                 ("unreadable", c.unreadable.map { .string($0) } ?? .null),
                                 ("notAnsweringSince", c.notAnsweringSince.map { .string(ISO8601.format($0, in: ctx.zone)) } ?? .null)])
                    })))
                }
                say(JSONWriter.render(.object(f), pretty: true))
            } else {
                if let pid {
                    var line = "heraldd: \(Style.paint("running", .green)) (pid \(pid)"
                    // status.json is a file in the spool: its strings are shown, not obeyed.
                    if let status {
                        line += TextSafety.visible(", version \(status.version), \(status.notifier) notifier, started \(RelativeTime.phrase(status.startedAt, now: ctx.now))")
                    }
                    sayStyled(line + ")")
                } else {
                    sayStyled("heraldd: \(Style.paint("not running", .red)) (start it with 'systemctl --user start heraldd' or 'heraldd')")
                }
                say("spool:   \(TextSafety.visible(ctx.spool.root))")
                var pendingLine = "pending: \(pending.total) job\(pending.total == 1 ? "" : "s")"
                if waiting > 0 { pendingLine += " (\(waiting) not yet taken in by heraldd)" }
                say(pendingLine)
                if let next, let due = next.fireAt { say("next:    \(TextSafety.visible(next.id)) at \(ctx.when(due))") }
                if missed > 0 { sayStyled("missed:  \(Style.paint(String(missed), .yellow)) in the last 24 h, too late to show (see 'herald history')") }
                if let collection = ctx.config.syncCalendar {
                    let v = SyncHealth.read(collection, environment: ctx.environment, within: 2).verdict(now: ctx.now)
                    sayStyled("sync:    " + (v.ok ? "" : Style.paint("attention", .yellow) + ": ") + TextSafety.visible(v.detail)
                              + (v.fix.map { " (\(TextSafety.visible($0)))" } ?? ""))
                }
                if pid != nil, let status {
                    for calendar in status.calendars {
                        let line = TextSafety.visible(calendar.line(shownAs: ctx.shortPath(calendar.source), now: ctx.now))
                        sayStyled("calendar: " + (calendar.needsAttention ? Style.paint("attention", .yellow) + ": " : "") + line)
                    }
                    if let error = status.lastError {
                        var line = "notifications: \(Style.paint("failing", .red)): \(TextSafety.visible(error))"
                        if let since = status.lastErrorAt { line += " (since \(RelativeTime.clock(since, zone: ctx.zone, now: ctx.now)))" }
                        if let retry = status.retryAt { line += "; retrying \(RelativeTime.phrase(retry, now: ctx.now))" }
                        sayStyled(line)
                    } else {
                        sayStyled("notifications: \(Style.paint("ok", .green))" + (status.server.map { " (\(TextSafety.visible($0)))" } ?? ""))
                    }
                    if let wake = status.wakeLine {
                        sayStyled("wake from suspend: " + (status.wakeHolder == nil ? Style.paint("unavailable", .yellow) + TextSafety.visible(String(wake.dropFirst("unavailable".count)))
                                                                                    + " (fix: \(DaemonStatus.wakeFix(helper: installedHelper("herald-wake").found ?? "/usr/lib/herald/herald-wake")))" : TextSafety.visible(wake)))
                    }
                    if let source = status.doNotDisturb {
                        var line = "do not disturb: \(Style.paint("on", .yellow)), from \(TextSafety.visible(source))"
                        if let since = status.doNotDisturbSince { line += " since \(RelativeTime.clock(since, zone: ctx.zone, now: ctx.now))" }
                        line += status.doNotDisturbFollowed ? "; popups that are not critical wait for it to end"
                                                            : "; not followed (quietWithDesktop: false)"
                        sayStyled(line)
                    }
                }
            }
            if pid == nil { throw ExitCode(3) }
            if failing { throw ExitCode(1) }
        }
    }
}
