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
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List pending jobs, next due first.",
            discussion: """
                A snoozed job (or a repeating reminder waiting to show again) is listed at the \
                time it shows again, marked "snoozed".
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Only snoozed jobs (and repeating reminders waiting to show again).")
        var snoozed = false

        @Option(name: [.customShort("n"), .long], help: ArgumentHelp("Only the first N jobs (the N due soonest).", valueName: "N"))
        var limit: Int?

        @Flag(help: "Only the job due next (the same as -n 1).")
        var next = false

        @Flag(help: "Print JSON (an array of jobs) for scripts.")
        var json = false

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("-n: \(limit) is not a number of jobs: use 1 or more") }
            if next && limit != nil { throw ValidationError("use either --next or -n, not both") }
        }

        func run() throws {
            let ctx = try CLIContext.load(global)
            let first = next ? 1 : limit
            var jobs: [PendingJob]
            // The first few come from heraldd's table (no listing of jobs/), when it runs.
            if let first, !snoozed, let soonest = ctx.spool.soonestPending(first, defaultLead: ctx.config.lead, localZone: ctx.zone, now: ctx.now) {
                jobs = soonest.jobs
            } else {
                jobs = try ctx.pendingJobs()
                if snoozed { jobs = jobs.filter { $0.snoozedUntil != nil } }
                if let first { jobs = Array(jobs.prefix(first)) }
            }
            // Commands going now (a one-shot's is no longer pending): listed first, as running.
            let running = snoozed ? [] : try ctx.runningCommands()
            if json {
                say(JSONWriter.render(.array(running.map { r in
                    .object([("id", .string(r.id)), ("kind", .string("run")), ("running", .bool(true)), ("run", .int(Int64(r.run))),
                             ("since", .string(ISO8601.format(r.since, in: ctx.zone))), ("title", .string(r.title)), ("log", .string(r.log))])
                } + jobs.map { ctx.jsonValue(of: $0) }), pretty: true))
                return
            }
            guard !jobs.isEmpty || !running.isEmpty else { say(snoozed ? "No snoozed jobs." : "No pending jobs."); return }
            var rows = [["ID", "DUE", "", "KIND", "WHAT"]]
            for r in running {
                rows.append([r.id, RelativeTime.clock(r.since, zone: ctx.zone, now: ctx.now),
                             "running for " + TimeSpan.humanize(ctx.now - r.since), "run", TextSafety.visible(r.title, whitespace: .spaces)])
            }
            for p in jobs {
                let due = p.fireAt.map { RelativeTime.clock($0, zone: ctx.zone, now: ctx.now) } ?? "-"
                let rel = (p.fireAt.map { RelativeTime.phrase($0, now: ctx.now) } ?? "") + (p.snoozedUntil != nil ? ", snoozed" : "")
                rows.append([p.id, due, rel, ctx.kindLabel(p), ctx.summary(of: p)])
            }
            sayStyled(Table.render(rows, header: true) { _, column, _ in column == 2 ? .cyan : nil })
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one pending job: its schedule and its job file.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The job id (or a unique prefix of it).")
        var id: String

        func run() throws {
            let ctx = try CLIContext.load(global)
            let synced = try ctx.syncedTarget(id)
            if let synced, synced.pending == nil {
                // Synced, and not (yet) planned by heraldd here: the item itself.
                say("id:       \(TextSafety.visible(synced.id))")
                say("synced:   \(TextSafety.visible(synced.path))  (heraldd has not planned it here yet)")
                if let bytes = try? ctx.readSynced(synced).bytes {
                    say("")
                    say(TextSafety.visible(String(decoding: bytes, as: UTF8.self), whitespace: .kept))
                }
                return
            }
            let running = try ctx.runningCommands().filter { $0.id == id }
            for r in running {
                say("running:  \(TextSafety.visible(r.title)) since \(ISO8601.format(r.since, in: ctx.zone)) (run \(r.run), pid \(r.pid))")
                say("output:   \(TextSafety.visible(r.log))")
            }
            if !running.isEmpty, (try? ctx.findOne(id)) == nil { return }  // a one-shot: no longer pending
            let p = try ctx.findOne(synced?.pending?.id ?? id)
            // One field per line: a newline from the file is shown as ^J, not obeyed.
            say("id:       \(TextSafety.visible(p.id))")
            if let job = p.job { say("kind:     \(job.kind.rawValue)") }
            if let link = p.job?.calendar, let kind = link.heraldKind {
                say("synced:   \(kind) \(TextSafety.visible(SyncedItem.jobID(ofUID: link.uid) ?? link.uid)), in \(TextSafety.visible(link.file))")
            }
            if let fire = p.fireAt {
                let role = p.job.map { " (\($0.role(of: p.occurrence ?? fire, localZone: ctx.zone).rawValue))" } ?? ""
                say("next:     \(ISO8601.format(fire, in: ctx.zone)), \(RelativeTime.phrase(fire, now: ctx.now))\(role)")
            }
            if case .jobs(let name) = p.location, let snoozed = name.snoozedUntil {
                say("snoozed:  until \(ISO8601.format(snoozed, in: ctx.zone))")
            }
            say("file:     \(TextSafety.visible(ctx.spool.root + "/" + p.path))\(p.isWaitingForDaemon ? "  (not yet taken in by heraldd)" : "")")
            if let problem = p.problem { say("problem:  \(TextSafety.visible(problem))") }
            if let job = p.job {
                say("")
                say(JSONWriter.render(job.jsonValue(zone: job.timezone.flatMap { try? TimeZoneRules.named($0) } ?? ctx.zone),
                                      pretty: true))
            }
        }
    }
}

extension PendingJob {
    /// The occurrence the next firing is for (differs from `fireAt` when snoozed).
    var occurrence: Instant? {
        if case .jobs(let name) = location { return name.occurrence }
        return fireAt
    }

    /// When a snoozed (or repeating) job shows again.
    var snoozedUntil: Instant? {
        if case .jobs(let name) = location { return name.snoozedUntil }
        return nil
    }

    var isWaitingForDaemon: Bool {
        if case .jobs = location { return false }
        return true
    }
}

extension CLIContext {
    /// The run jobs' commands going now, oldest first. A runs/ that cannot be read is said
    /// (exit 74), never shown as nothing running.
    func runningCommands() throws -> [(id: String, run: Int, since: Instant, pid: Int32, title: String, log: String)] {
        let runs = RunFiles(spool: spool)
        var out: [(id: String, run: Int, since: Instant, pid: Int32, title: String, log: String)] = []
        for id in try runs.jobIDs() {
            for run in try runs.live(id) {
                guard let r = runs.running(id, run) else { continue }
                out.append((id, run, r.start, r.pid, runs.readSpec(id, run)?.title ?? id, runs.path(id, run, "log")))
            }
        }
        return out.sorted { $0.since < $1.since }
    }

    /// The one pending job `query` names; refuses unknown and ambiguous ids.
    func findOne(_ query: String) throws -> PendingJob {
        let (found, total) = try spool.findPendingCounted(query, defaultLead: config.lead, localZone: zone, now: now)
        switch found.count {
        case 0: throw CLIError.data("no pending job '\(query)' (see 'herald list')")
        case 1: return found[0]
        default:
            throw CLIError.data("'\(query)' matches \(total) jobs: \(found.prefix(5).map(\.id).joined(separator: ", "))")
        }
    }

    func kindLabel(_ p: PendingJob) -> String {
        guard let job = p.job else { return "?" }
        // One of Herald's synced jobs, planned from the synced calendar: its own kind, marked.
        if let kind = job.calendar?.heraldKind { return kind + " (synced)" }
        guard let occurrence = p.occurrence else { return job.kind.rawValue }
        return job.role(of: occurrence, localZone: zone).label
    }

    /// One line about what the job says.
    func summary(of p: PendingJob) -> String {
        guard let job = p.job else { return p.problem.map { "(unreadable: \($0))" } ?? "" }
        return job.summary(config: config, zone: zone, now: now)
    }

    func jsonValue(of p: PendingJob) -> JSONWriter.Value {
        var f: [(String, JSONWriter.Value)] = [("id", .string(p.id))]
        f.append(("due", p.fireAt.map { .string(ISO8601.format($0, in: zone)) } ?? .null))
        if case .jobs(let name) = p.location, let until = name.snoozedUntil {
            f.append(("occurrence", .string(ISO8601.format(name.occurrence, in: zone))))
            f.append(("snoozedUntil", .string(ISO8601.format(until, in: zone))))
        }
        if let job = p.job, let occ = p.occurrence { f.append(("role", .string(job.role(of: occ, localZone: zone).rawValue))) }
        f.append(("state", .string(p.isWaitingForDaemon ? "intake" : "scheduled")))
        if let link = p.job?.calendar, let kind = link.heraldKind {
            f.append(("synced", .object([("calendar", .string(parentDirectory(of: link.file))), ("kind", .string(kind)),
                                         ("id", SyncedItem.jobID(ofUID: link.uid).map { .string($0) } ?? .null)])))
        }
        if let problem = p.problem { f.append(("problem", .string(problem))) }
        f.append(("job", p.job.map { $0.jsonValue(zone: zone) } ?? .null))
        return .object(f)
    }
}
