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
    struct Reschedule: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reschedule",
            abstract: "Move a pending job to another time (same id; warnings and repeats start over).",
            discussion: """
                A one-shot job (reminder, timer, delivery) moves to the new time, with its \
                warnings and heads-up counted from there (a warning whose time has passed is \
                shown at once, the latest only). A recurring job or habit starts its schedule \
                again from the new time: its first occurrence is the first at or after it.

                Examples:
                  herald reschedule k3x9 --at 'tomorrow 9am'
                  herald reschedule k3x9 --in 2h
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var when: WhenOptions

        @Argument(help: "The job id (or a unique prefix).")
        var id: String

        func run() throws {
            let ctx = try CLIContext.load(global)
            let time = try when.resolve(ctx)
            guard time > ctx.now else { throw CLIError.usage("\(ISO8601.format(time, in: ctx.zone)) is in the past: say a later time") }
            if let synced = ctx.syncedTarget(id) {
                try ctx.rescheduleSynced(synced, to: time)
                say("Rescheduled \(synced.id): from \(ctx.when(time)) (synced; changed in \(synced.path))")
                return
            }
            let (name, job) = try ctx.takenIn(try ctx.findOne(id), doing: "reschedule")
            var moved = job
            moved.at = time
            let next = try ctx.replace(name, with: moved, keepState: false)
            var line = "Rescheduled \(name.id): "
            if job.every.isEmpty {
                line += job.kind == .delivery ? "arrives \(ctx.when(time))" : ctx.when(time)
                if next.occurrence < time { line += ", first warning \(ctx.when(next.occurrence))" }
            } else {
                line += "from \(ctx.when(time)), next \(ctx.when(next.fireAt))"
            }
            say(line)
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Edit a pending job's file in your editor ($VISUAL, $EDITOR, else vi).",
            discussion: """
                As with 'crontab -e', the job is checked when you save and quit: a bad edit is \
                refused with the reason and you are asked whether to edit it again; the job \
                stays as it was until a good edit replaces it in one step. Quitting without \
                saving, or an editor that fails, changes nothing. A change to when the job fires \
                (at, every, warn, lead, timezone) starts its schedule over from now; a change to \
                its text keeps its place (and a snooze).

                The file is the job document (see the README's "Job file format"); its id stays. \
                A synced job (made with --sync) is its calendar item: you edit the .ics text \
                (its DUE or DTSTART, SUMMARY, alarms), checked as heraldd reads calendars, and \
                the item keeps its UID.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The job id (or a unique prefix).")
        var id: String

        func run() throws {
            let ctx = try CLIContext.load(global)
            if let synced = ctx.syncedTarget(id) { return try editSynced(synced, ctx) }
            let (name, job) = try ctx.takenIn(try ctx.findOne(id), doing: "edit")
            let zone = job.zone(localZone: ctx.zone)
            let original = JSONWriter.render(job.jsonValue(zone: zone), pretty: true) + "\n"
            let dir = ctx.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            let path = dir + "/herald-edit-\(name.id)-\(getpid()).json"
            unlink(path)
            do { try FileSystem.writeAtomically(Array(original.utf8), tmpPath: path + ".tmp", finalPath: path) } catch {
                throw CLIError.failure("\(error)")
            }
            var keep = false
            defer { if !keep { unlink(path) } }
            while true {
                try Self.runEditor(ctx.environment, path: path, id: name.id)
                guard let edited = try? String(decoding: FileSystem.read(path, limit: Job.maximumFileSize + 1), as: UTF8.self) else {
                    throw CLIError.failure("cannot read \(path) back; job \(name.id) unchanged")
                }
                if edited == original { say("No changes; job \(name.id) unchanged."); return }
                // The clock and the job as they are now, after the editor.
                let after = try CLIContext.load(global)
                do {
                    let updated = try Self.check(edited, id: name.id, after)
                    let keepState = updated.scheduleFields == job.scheduleFields
                    guard let current = after.spool.findPending(name.id, defaultLead: after.config.lead, localZone: after.zone, now: after.now)
                        .first(where: { $0.id == name.id }), case .jobs(let state) = current.location else {
                        keep = true
                        throw CLIError.data("job \(name.id) finished or was cancelled while you edited it; nothing changed (your edit is in \(path))")
                    }
                    guard current.job == job else {
                        keep = true
                        throw CLIError.data("job \(name.id) was changed by someone else while you edited it; nothing changed (your edit is in \(path))")
                    }
                    let next = try after.replace(state, with: updated, keepState: keepState)
                    say("Updated \(name.id): next \(after.when(next.fireAt))")
                    return
                } catch let refusal as EditRefusal {
                    warn("job \(name.id): \(refusal.reason)")
                    writeAll(2, "Edit again? [y/N] ")
                    let answer = readLine()?.trimmingSpaces.lowercased() ?? ""
                    guard answer == "y" || answer == "yes" else {
                        throw CLIError.data("edit abandoned; job \(name.id) unchanged")
                    }
                }
            }
        }

        struct EditRefusal: Error { var reason: String }

        /// Edits a synced job's calendar item in the editor: the text must read as a calendar
        /// with the same UID and no problem, else the edit is offered again; nothing changes
        /// until a good edit replaces the file in one step.
        func editSynced(_ target: SyncedTarget, _ ctx: CLIContext) throws {
            let original: [UInt8]
            do { original = try FileSystem.read(target.path, limit: ICalBudget.maximumFileSize) } catch { throw CLIError.failure("\(error)") }
            let dir = ctx.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            let path = dir + "/herald-edit-\(target.id)-\(getpid()).ics"
            unlink(path)
            do { try FileSystem.writeAtomically(original, tmpPath: path + ".tmp", finalPath: path) } catch { throw CLIError.failure("\(error)") }
            var keep = false
            defer { if !keep { unlink(path) } }
            while true {
                try Self.runEditor(ctx.environment, path: path, id: target.id)
                guard let edited = try? FileSystem.read(path, limit: ICalBudget.maximumFileSize) else {
                    throw CLIError.failure("cannot read \(path) back; job \(target.id) unchanged")
                }
                if edited == original { say("No changes; job \(target.id) unchanged."); return }
                let problem: String?
                do {
                    let file = try ICalendarFile(path: target.path, bytes: edited, zones: ZoneFiles.lookup)
                    if !file.items.contains(where: { $0.uid == target.uid }) {
                        problem = "the item's UID '\(target.uid)' is gone (it must stay)"
                    } else if let first = file.problems.first {
                        problem = "line \(first.line): \(first.message)"
                    } else {
                        problem = nil
                    }
                } catch {
                    problem = "\(error)"
                }
                guard let problem else {
                    guard (try? FileSystem.read(target.path, limit: ICalBudget.maximumFileSize)) == original else {
                        keep = true
                        throw CLIError.data("\(target.path) changed while you edited it (a sync?); nothing changed (your edit is in \(path))")
                    }
                    try ctx.replaceSyncedFile(target.path, with: String(decoding: edited, as: UTF8.self))
                    say("Updated \(target.id) (synced; \(target.path))")
                    return
                }
                warn("job \(target.id): \(problem)")
                writeAll(2, "Edit again? [y/N] ")
                let answer = readLine()?.trimmingSpaces.lowercased() ?? ""
                guard answer == "y" || answer == "yes" else { throw CLIError.data("edit abandoned; job \(target.id) unchanged") }
            }
        }

        /// The edited document, checked as heraldd would check it, with the same id.
        static func check(_ text: String, id: String, _ ctx: CLIContext) throws -> Job {
            var job: Job
            do { job = try Job.decode(Array(text.utf8), localZone: ctx.zone) } catch {
                throw EditRefusal(reason: error.description)
            }
            guard text.utf8.count <= Job.maximumFileSize else { throw EditRefusal(reason: "the job is larger than 64 KiB") }
            if let newID = job.id, newID != id { throw EditRefusal(reason: "the id cannot change ('\(newID)' instead of '\(id)')") }
            job.id = id
            let schedule: JobSchedule
            do { schedule = try JobSchedule(job, localZone: ctx.zone, defaultLead: ctx.config.lead) } catch {
                throw EditRefusal(reason: error.description)
            }
            guard schedule.first(now: ctx.now) != nil else { throw EditRefusal(reason: "it never fires after now") }
            if job.every.isEmpty, let at = job.at, at <= ctx.now {
                throw EditRefusal(reason: "'at' \(ISO8601.format(at, in: ctx.zone)) is in the past")
            }
            return job
        }

        /// Runs the editor on `path` with the terminal, as git and crontab do (`sh -c '$EDITOR "$1"'`).
        static func runEditor(_ environment: Environment, path: String, id: String) throws {
            let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.trimmingSpaces.isEmpty } ?? "vi"
            // As system(3) does: Ctrl-C and Ctrl-\ go to the editor, not to herald, which must
            // live to clean up; the editor gets their default actions back (ChildProcess resets
            // every ignored signal in the child).
            let oldInt = signal(SIGINT, SIG_IGN), oldQuit = signal(SIGQUIT, SIG_IGN)
            defer { signal(SIGINT, oldInt); signal(SIGQUIT, oldQuit) }
            let status: ProcessStatus
            do throws(SpawnError) { status = try ChildProcess.run("/bin/sh", ["-c", editor + " \"$1\"", "sh", path], environment: environment.dictionary()) } catch {
                throw CLIError.failure("cannot start the editor '\(editor)': \(error.reason)")
            }
            // Killed itself, or (through sh, which reports 128 + the signal) the editor it ran.
            var signal: Int32 = 0
            if case .killed(let s) = status { signal = s }
            if case .exited(let code) = status, (129...159).contains(code) { signal = code - 128 }
            if signal != 0 {
                throw CLIError.failure("the editor '\(editor)' was killed (signal \(signal)); job \(id) unchanged")
            }
            let code = status.code
            if code != 0 { throw CLIError.failure("the editor '\(editor)' failed (exit \(code)); job \(id) unchanged") }
        }
    }
}

extension Job {
    /// What decides when a job fires: a change to any of these starts its schedule over.
    var scheduleFields: [String] {
        [kind.rawValue, at.map { "\($0.microseconds)" } ?? "", every.joined(separator: "\n"), timezone ?? "",
         lead.map { "\($0.microseconds)" } ?? "", warn.map { "\($0.microseconds)" }.joined(separator: ",")]
    }
}

extension CLIContext {
    /// The job's state and document, once heraldd has taken it in.
    func takenIn(_ p: PendingJob, doing verb: String) throws -> (JobFileName, Job) {
        guard case .jobs(let name) = p.location else {
            throw CLIError.data("job '\(p.id)' has not been taken in by heraldd yet; start heraldd first, or \(verb) its file in \(spool.root)/\(p.path)")
        }
        guard let job = p.job else { throw CLIError.data("job '\(p.id)' cannot be read: \(p.problem ?? "unknown problem")") }
        return (name, job)
    }

    /// Puts `job` in place of the pending `name`: at the same state when `keepState`, else at its
    /// first firing from now. Returns the new state.
    func replace(_ name: JobFileName, with job: Job, keepState: Bool) throws -> JobFileName {
        let schedule: JobSchedule
        do { schedule = try JobSchedule(job, localZone: zone, defaultLead: config.lead) } catch { throw CLIError.data("job '\(name.id)': \(error)") }
        guard let first = schedule.first(now: now) else { throw CLIError.data("job '\(name.id)' would never fire after now") }
        let next = keepState ? name : JobFileName(id: name.id, occurrence: first)
        do { try spool.replace(name, with: job, zone: job.zone(localZone: zone), next: next) } catch {
            switch error {
            case .changed: throw CLIError.failure("job '\(name.id)' just changed (it fired?); nothing changed, try again")
            case .firedDuringChange:
                throw CLIError.failure("job '\(name.id)' fired while it was being changed: the new version is in place, but its next time was set from the old one; see 'herald show \(name.id)'")
            case .failed(let e): throw CLIError.failure("\(e)")
            }
        }
        return next
    }
}
