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
            if let synced = try ctx.syncedTarget(id) {
                try ctx.rescheduleSynced(synced, to: time)
                say("Rescheduled \(synced.id): from \(ctx.when(time)) (synced; changed in \(synced.path))")
                return
            }
            let (name, job) = try ctx.takenIn(try ctx.findOne(id), doing: "reschedule")
            guard job.kind != .calendar else {
                throw CLIError.data("job '\(name.id)' is a calendar alarm: its times come from the calendar item; move the event or to-do in your calendar")
            }
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
            if let synced = try ctx.syncedTarget(id) { return try editSynced(synced, ctx) }
            let (name, job) = try ctx.takenIn(try ctx.findOne(id), doing: "edit")
            guard job.kind != .calendar else {
                throw CLIError.data("job '\(name.id)' is a calendar alarm: it is planned from the calendar item; edit the event or to-do in your calendar")
            }
            let zone = job.zone(localZone: ctx.zone)
            let original = JSONWriter.render(job.jsonValue(zone: zone), pretty: true) + "\n"
            let session = try EditSession(ctx, name: name.id + ".json", contents: Array(original.utf8), limit: Job.maximumFileSize)
            defer { session.close() }
            while true {
                try Self.runEditor(ctx.environment, path: session.path, id: name.id)
                let edited: String
                switch try session.readBack(id: name.id) {
                case .tooLarge(let size):
                    try Self.offerAgain(id: name.id, "the edited job is \(size) bytes; a job file holds at most \(Job.maximumFileSize / 1024) KiB")
                    continue
                case .bytes(let bytes): edited = String(decoding: bytes, as: UTF8.self)
                }
                if edited == original { say("No changes; job \(name.id) unchanged."); return }
                // The clock and the job as they are now, after the editor.
                let after = try CLIContext.load(global)
                do {
                    let updated = try Self.check(edited, id: name.id, after)
                    let keepState = updated.scheduleFields == job.scheduleFields
                    guard let current = try after.spool.findPending(name.id, defaultLead: after.config.lead, localZone: after.zone, now: after.now)
                        .first(where: { $0.id == name.id }), case .jobs(let state) = current.location else {
                        session.keep = true
                        throw CLIError.data("job \(name.id) finished or was cancelled while you edited it; nothing changed (your edit is in \(session.path))")
                    }
                    guard current.job == job else {
                        session.keep = true
                        throw CLIError.data("job \(name.id) was changed by someone else while you edited it; nothing changed (your edit is in \(session.path))")
                    }
                    let next = try after.replace(state, with: updated, keepState: keepState)
                    say("Updated \(name.id): next \(after.when(next.fireAt))")
                    return
                } catch let refusal as EditRefusal {
                    try Self.offerAgain(id: name.id, refusal.reason)
                }
            }
        }

        struct EditRefusal: Error { var reason: String }

        /// Says why an edit cannot be used and asks whether to edit again; throws when not.
        static func offerAgain(id: String, _ reason: String) throws {
            warn("job \(id): \(reason)")
            writeAll(2, "Edit again? [y/N] ")
            let answer = readLine()?.trimmingSpaces.lowercased() ?? ""
            guard answer == "y" || answer == "yes" else { throw CLIError.data("edit abandoned; job \(id) unchanged") }
        }

        /// Edits a synced job's calendar item in the editor: the text must read as a calendar
        /// with the same UID and no problem, else the edit is offered again; nothing changes
        /// until a good edit replaces the file in one step.
        func editSynced(_ target: SyncedTarget, _ ctx: CLIContext) throws {
            let (original, version) = try ctx.readSynced(target)
            let session = try EditSession(ctx, name: target.id + ".ics", contents: original, limit: ICalBudget.maximumFileSize)
            defer { session.close() }
            while true {
                try Self.runEditor(ctx.environment, path: session.path, id: target.id)
                let edited: [UInt8]
                switch try session.readBack(id: target.id) {
                case .tooLarge(let size):
                    try Self.offerAgain(id: target.id, "the edited item is \(size) bytes; a calendar file holds at most \(ICalBudget.maximumFileSize >> 20) MiB")
                    continue
                case .bytes(let bytes): edited = bytes
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
                    guard try ctx.replaceSyncedFile(target, with: String(decoding: edited, as: UTF8.self), unchangedSince: version) else {
                        session.keep = true
                        throw CLIError.data("\(target.path) changed while you edited it (a sync?); nothing changed (your edit is in \(session.path))")
                    }
                    say("Updated \(target.id) (synced; \(target.path))")
                    return
                }
                try Self.offerAgain(id: target.id, problem)
            }
        }

        /// The edited document, checked as heraldd would check it, with the same id.
        static func check(_ text: String, id: String, _ ctx: CLIContext) throws -> Job {
            var job: Job
            do { job = try Job.decode(Array(text.utf8), localZone: ctx.zone) } catch {
                throw EditRefusal(reason: error.description)
            }
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
        // Checked as heraldd reads it, size included: nothing it would refuse is put in place.
        do { _ = try job.checkedDocument(zone: job.zone(localZone: zone), localZone: zone, zones: ZoneFiles.lookup) } catch {
            throw CLIError.data("job '\(name.id)' cannot be written: \(error)")
        }
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

/// The file an editor works on: in a folder of its own (mkdtemp, mode 0700, so no other user
/// can put a link or a FIFO in its place), read back only as a regular file of this user's
/// (opened without waiting: an editor that leaves a FIFO does not hang herald), and the folder
/// removed afterwards, whatever the editor left in it, unless the edit is kept.
final class EditSession {
    let folder: String
    let path: String
    let limit: Int
    var keep = false

    enum ReadBack { case bytes([UInt8]), tooLarge(Int) }

    init(_ ctx: CLIContext, name: String, contents: [UInt8], limit: Int) throws {
        let base = ctx.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/herald-edit-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CLIError.failure("cannot make a folder for the edit in \(base): \(String(cString: strerror(errno)))")
        }
        folder = String(cString: made)
        path = folder + "/" + name
        self.limit = limit
        do { try AtomicReplace.write(contents, to: path, options: .init(mode: 0o600)) } catch {
            rmdir(folder)
            throw CLIError.failure("\(error)")
        }
    }

    /// What the editor saved: the bytes, or how large it is when over `limit`.
    func readBack(id: String) throws -> ReadBack {
        switch TrustedFile.open(path, rules: FileRules(maximumSize: limit, ownedByUser: true)) {
        case .success(let file):
            switch file.readAll() {
            case .success(let bytes): return .bytes(bytes)
            case .failure(let problem): throw CLIError.failure("cannot read \(path) back: it \(problem); job \(id) unchanged")
            }
        case .failure(.tooLarge(let size, _)): return .tooLarge(size)
        case .failure(let problem):
            throw CLIError.failure("the editor left \(path) as something else than a file of yours (it \(problem)); job \(id) unchanged")
        }
    }

    /// Removes the folder and whatever is in it (a FIFO, a swap file), unless the edit is kept.
    func close() {
        guard !keep else { return }
        Self.remove(folder, depth: 8)
    }

    /// Removes `path` and what is in it, never following a link, at most `depth` folders down.
    static func remove(_ path: String, depth: Int) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if st.st_mode & S_IFMT == S_IFDIR, depth > 0 {
            // A folder that cannot be listed is left as it is (and said), never taken for empty.
            let names: [String]
            do { names = try FileSystem.list(path) } catch {
                warn("cannot remove the edit's folder \(path): \(error)")
                return
            }
            for name in names { remove(path + "/" + name, depth: depth - 1) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
