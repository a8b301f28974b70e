import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import HeraldCore

/// `--sync` and `--local`: whether a new reminder, timer or delivery is stored as an item in
/// the synced collection (`sync.calendar`) or as a job file on this machine alone.
struct SyncOptions: ParsableArguments {
    @Flag(help: "Store it in your synced calendar (sync.calendar), so every machine and phone that syncs it alarms it.")
    var sync = false

    @Flag(help: "Keep it on this machine only (when sync.default is sync).")
    var local = false

    /// nil: the config decides (`sync.default`).
    func choice() throws -> Bool? {
        if sync && local { throw CLIError.usage("--sync and --local do not go together") }
        return sync ? true : local ? false : nil
    }
}

extension CLIContext {
    /// Puts a new job where it belongs: into the spool, or, synced, as an item into
    /// `sync.calendar`. Returns the collection when it was synced.
    func place(_ job: Job, sync: Bool?) throws -> String? {
        guard sync ?? config.syncByDefault else {
            try submit(job)
            return nil
        }
        guard let collection = config.syncCalendar else {
            throw CLIError.usage("--sync needs sync.calendar in the config: the vdir collection vdirsyncer syncs (see the README, \"On all your devices\")")
        }
        try writeSynced(job, to: collection)
        return collection
    }

    /// Writes `job` as its item into `collection`: checked as heraldd would check its job file,
    /// then written to a hidden file beside it, synced and renamed into place, so vdirsyncer
    /// and heraldd only ever see it whole.
    func writeSynced(_ job: Job, to collection: String) throws {
        guard let id = job.id else { throw CLIError.failure("the job has no id") }
        var checked: Job
        do { checked = try Job.decode(Array(job.encoded(zone: zone).utf8), localZone: zone) } catch {
            throw CLIError.data("the job is not valid: \(error)")
        }
        checked.resolveZones()
        let folder: SourceFolder
        do { folder = try SourceFolder(source: collection) } catch {
            throw CLIError.failure("sync.calendar '\(collection)' is not a folder: create it, or let 'vdirsyncer discover' and 'vdirsyncer sync' make it")
        }
        guard folder.singleFile == nil else {
            throw CLIError.failure("sync.calendar '\(collection)' is not a folder: create it, or let 'vdirsyncer discover' and 'vdirsyncer sync' make it")
        }
        let names = [SyncedItem.fileName(for: id)]
        if folder.version(of: names) != nil { throw CLIError.data("--id: a synced job '\(id)' exists already in '\(collection)'") }
        let text: String
        do {
            let schedule = try JobSchedule(checked, localZone: zone, defaultLead: config.lead)
            text = try SyncedItem.document(checked, schedule: schedule, now: now, maxRepeats: config.popups.maxRepeats, defaultLead: config.lead)
        } catch let error as SyncedItem.Refusal {
            throw CLIError.usage("--sync: \(error)")
        }
        try checkPlannable(text, path: folder.path(of: names))
        do { _ = try folder.replace(names, with: Array(text.utf8), create: true) } catch {
            throw error.exists ? CLIError.data("--id: a synced job '\(id)' exists already in '\(collection)'") : CLIError.failure("\(error)")
        }
        // Noted as this machine's own, so that no one else's items in the calendar take its room.
        do {
            try prepareSpool(adding: 0)
            try FileSystem.appendLine(SyncedItem.uid(for: id), to: spool.ownSyncedPath)
            var st = stat()
            if stat(spool.ownSyncedPath, &st) == 0, st.st_size > 512 << 10 {  // the latest are kept
                let latest = spool.ownSyncedUIDs().sorted().joined(separator: "\n") + "\n"
                try AtomicReplace.write(latest.utf8, to: spool.ownSyncedPath, options: .spool(staging: spool.tmp))
            }
        } catch {
            warn("note: \(error); the item is written, but not noted as yours in the spool")
        }
    }

    /// Refuses an item heraldd's calendar planner would skip (over an item's budgets even read
    /// over its shortest window): what `--sync` accepts is what every machine alarms.
    func checkPlannable(_ text: String, path: String) throws {
        let file: ICalendarFile
        do { file = try ICalendarFile(path: path, bytes: Array(text.utf8)) } catch { throw CLIError.data("--sync: the item cannot be read back: \(error)") }
        let planned = file.plannedAlarms(from: now - .seconds(86_400), to: now + CalendarPlanner.horizon, now: now, localZone: zone)
        if let problem = planned.problems.first {
            throw CLIError.usage("--sync: heraldd could not plan this item (\(problem.message)); keep it on this machine with --local")
        }
    }

    /// " (synced to ~/.calendars/personal)" for a line that says what was scheduled.
    func syncedNote(_ collection: String?) -> String {
        guard let collection else { return "" }
        return " (synced to \(shortPath(collection)))"
    }

    /// A path under the home folder as `~/...`.
    func shortPath(_ path: String) -> String {
        let home = environment["HOME"] ?? ""
        return !home.isEmpty && path.hasPrefix(home + "/") ? "~" + path.dropFirst(home.count) : path
    }
}

/// A job stored as an item of the synced collection: its file (reached from the collection's
/// folder, never by its path string) and UID, and the calendar job heraldd planned from it, if any.
struct SyncedTarget {
    var folder: SourceFolder
    var names: [String]
    var uid: String
    var pending: PendingJob?
    var path: String { folder.path(of: names) }
    /// The id the user sees: the job id `--sync` printed.
    var id: String { SyncedItem.jobID(ofUID: uid) ?? uid }
}

extension CLIContext {
    /// The synced item `query` names: a job id `--sync` printed (its `herald-ID.ics` in
    /// `sync.calendar`), or a pending calendar job planned from that collection. Nil when it
    /// names neither (it is then looked for as any job is). A job of this machine with exactly
    /// that id is the one meant: an item in a calendar others write to never shadows it (a
    /// note says the item was left alone).
    func syncedTarget(_ query: String) throws(FileSystemError) -> SyncedTarget? {
        guard let collection = config.syncCalendar, let folder = try? SourceFolder(source: collection), folder.singleFile == nil else { return nil }
        let found = try spool.findPending(query, defaultLead: config.lead, localZone: zone, now: now)
        let names = [SyncedItem.fileName(for: query)]
        let itemThere = SyncedItem.jobID(ofUID: SyncedItem.uid(for: query)) == query && folder.version(of: names) != nil
        if let local = found.first(where: { $0.id == query && !CalendarPlanner.isCalendarJobID($0.id) }) {
            if itemThere {
                warn("note: '\(query)' is the job \(local.id) of this machine; the synced item \(folder.path(of: names)) of that name is left alone")
            }
            return nil
        }
        if itemThere {
            let uid = SyncedItem.uid(for: query)
            // heraldd's job for it has the id the calendar sync derives from source, file and UID.
            let planned = CalendarPlanner.jobID(source: collection, file: folder.path(of: names), uid: uid)
            let pending = try spool.findPending(planned, defaultLead: config.lead, localZone: zone, now: now).first { $0.id == planned }
            return SyncedTarget(folder: folder, names: names, uid: uid, pending: pending)
        }
        guard found.count == 1, let p = found.first, let link = p.job?.calendar, let itemNames = folder.names(of: link.file) else { return nil }
        return SyncedTarget(folder: folder, names: itemNames, uid: link.uid, pending: p)
    }

    /// Removes a synced item from the collection (vdirsyncer then deletes it on the server, and
    /// so on every device), after its calendar job here is cancelled. Only a regular file of
    /// this user's, reached from the collection's folder, is removed.
    func cancelSynced(_ target: SyncedTarget) throws {
        if let pending = target.pending {
            if case .jobs = pending.location, let answer = try askDaemon(.cancel(id: pending.id)) {
                guard case .cancelled = answer else { throw CLIError.failure("heraldd answered something else") }
            } else {
                try cancel(pending)
            }
        }
        do { try target.folder.remove(target.names) } catch where error.isNotFound {
            return
        } catch { throw CLIError.failure("\(error)") }
    }

    /// The item's file as it is now, and its version (for a replace that loses to a sync).
    func readSynced(_ target: SyncedTarget) throws -> (bytes: [UInt8], version: String) {
        guard let version = target.folder.version(of: target.names) else { throw CLIError.data("'\(target.path)' is gone") }
        switch target.folder.open(target.names, rules: SourceFolder.writable).flatMap({ $0.readAll() }) {
        case .success(let bytes): return (bytes, version)
        case .failure(let problem): throw CLIError.failure("'\(target.path)' \(problem.description)")
        }
    }

    /// Moves a one-time synced item to `time`, in its file (heraldd plans it again from there).
    func rescheduleSynced(_ target: SyncedTarget, to time: Instant) throws {
        for _ in 0..<CalendarWriteBack.attempts {
            let (bytes, version) = try readSynced(target)
            let changed: (lines: [String], crlf: Bool)
            do { changed = try SyncedItem.rescheduled(bytes, path: target.path, uid: target.uid, to: time, now: now, zones: ZoneFiles.lookup) } catch {
                throw CLIError.data("\(error)")
            }
            let text = changed.lines.joined(separator: changed.crlf ? "\r\n" : "\n") + (changed.crlf ? "\r\n" : "\n")
            if try replaceSyncedFile(target, with: text, unchangedSince: version) { return }
        }
        throw CLIError.failure("'\(target.path)' kept changing while herald wrote to it (a sync?); try again")
    }

    /// Writes a synced item's new text in place of the old (`SourceFolder.replace`: beside it,
    /// keeping its mode, synced, renamed); false when the file changed since `version`.
    func replaceSyncedFile(_ target: SyncedTarget, with text: String, unchangedSince version: String) throws -> Bool {
        do { return try target.folder.replace(target.names, with: Array(text.utf8), unchangedSince: version) == .replaced } catch {
            throw CLIError.failure("\(error)")
        }
    }
}

/// Whether the synced collection is there and a sync wrote to it lately: for `herald status`
/// and `herald doctor`. vdirsyncer keeps a status file per pair and collection; the newest of
/// them says when a sync last ran (its status_path from vdirsyncer's config, else its default).
struct SyncHealth {
    var collection: String
    var exists: Bool
    var items: Int
    /// When vdirsyncer last wrote its status, if it ever did.
    var lastSync: Instant?
    var statusPath: String

    /// A sync within this long counts as recent.
    static let recent = Span.seconds(24 * 3600)

    /// Whether the collection answered (nil: it is on a mount that does not, within 2 s).
    var answered = true

    /// `read`, given at most `seconds`, in a process of its own (`herald --sync-health-probe`):
    /// a collection on a hung mount must not hang `herald status` and `herald doctor`, which
    /// are what a person runs to find out, and a thread waiting on such a mount can keep its
    /// process from ending even by SIGKILL.
    static func read(_ collection: String, environment: Environment, within seconds: Double) -> SyncHealth {
        let output = try? ChildProcess.collect("/proc/self/exe", [probeFlag, collection], limit: 64 << 10,
                                               timeout: Int(seconds * 1000), abandon: true)
        if let output, !output.timedOut, let health = SyncHealth(probeLine: output.standardOutput, collection: collection, environment: environment) {
            return health
        }
        var stuck = SyncHealth(collection: collection, exists: true, items: 0, lastSync: nil, statusPath: statusDirectory(environment))
        stuck.answered = false
        return stuck
    }

    static let probeFlag = "--sync-health-probe"

    /// The probe's answer: exists, items and the last sync (µs, or -).
    var probeLine: String { "\(exists ? 1 : 0) \(items) \(lastSync.map { String($0.microseconds) } ?? "-")" }

    static func read(_ collection: String, environment: Environment) -> SyncHealth {
        var st = stat()
        let exists = stat(collection, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
        let items = exists ? ((try? FileSystem.list(collection)) ?? []).filter { $0.hasSuffix(".ics") && !$0.hasPrefix(".") }.count : 0
        let status = statusDirectory(environment)
        return SyncHealth(collection: collection, exists: exists, items: items, lastSync: newest(under: status, depth: 2), statusPath: status)
    }

    /// vdirsyncer's `status_path` (its config in $VDIRSYNCER_CONFIG, ~/.vdirsyncer/config or
    /// $XDG_CONFIG_HOME/vdirsyncer/config), else `$XDG_DATA_HOME/vdirsyncer/status`.
    static func statusDirectory(_ environment: Environment) -> String {
        let home = environment["HOME"] ?? ""
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let configs = [environment["VDIRSYNCER_CONFIG"], home + "/.vdirsyncer/config", configHome + "/vdirsyncer/config"].compactMap { $0 }
        for config in configs {
            guard let bytes = try? FileSystem.read(config, limit: 1 << 20, followLinks: true) else { continue }
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
                guard parts.count == 2, parts[0] == "status_path" else { continue }
                var path = parts[1]
                if path.count >= 2, path.hasPrefix("\""), path.hasSuffix("\"") { path = String(path.dropFirst().dropLast()) }
                if path == "~" || path.hasPrefix("~/") { path = home + path.dropFirst() }
                while path.count > 1, path.hasSuffix("/") { path.removeLast() }
                return path
            }
            break
        }
        return dataHome + "/vdirsyncer/status"
    }

    /// The latest modification time of the files in `dir` and its folders `depth` deep.
    static func newest(under dir: String, depth: Int) -> Instant? {
        guard let names = try? FileSystem.list(dir) else { return nil }
        var best: Instant?
        for name in names {
            var st = stat()
            let path = dir + "/" + name
            guard lstat(path, &st) == 0 else { continue }
            if st.st_mode & S_IFMT == S_IFDIR {
                if depth > 0, let t = newest(under: path, depth: depth - 1) { best = max(best ?? t, t) }
            } else if st.st_mode & S_IFMT == S_IFREG {
                let t = Instant(microseconds: Int64(st.st_mtim.tv_sec) * 1_000_000 + Int64(st.st_mtim.tv_nsec / 1000))
                best = max(best ?? t, t)
            }
        }
        return best
    }

    /// One line: whether it is fine, what it is, and what to do when it is not.
    func verdict(now: Instant) -> (ok: Bool, detail: String, fix: String?) {
        guard answered else {
            return (false, "\(collection) does not answer (a hung mount?)", "check the folder's mount; heraldd keeps its jobs meanwhile")
        }
        guard exists else {
            return (false, "\(collection) does not exist", "create it, or let 'vdirsyncer discover' and 'vdirsyncer sync' make it (sync.calendar names a collection of a vdirsyncer filesystem storage)")
        }
        let count = "\(items) item\(items == 1 ? "" : "s")"
        guard let lastSync else {
            return (false, "\(collection), \(count); vdirsyncer has never synced (no status in \(statusPath))",
                    "vdirsyncer discover && vdirsyncer sync, then keep it syncing: systemctl --user enable --now vdirsyncer.timer")
        }
        let ago = RelativeTime.phrase(lastSync, now: now)
        guard now - lastSync <= Self.recent else {
            return (false, "\(collection), \(count); the last vdirsyncer sync was \(ago)",
                    "vdirsyncer sync, and keep it syncing: systemctl --user enable --now vdirsyncer.timer")
        }
        return (true, "\(collection), \(count); last vdirsyncer sync \(ago)", nil)
    }
}

extension SyncHealth {
    init?(probeLine bytes: [UInt8], collection: String, environment: Environment) {
        let f = String(decoding: bytes, as: UTF8.self).trimmingSpaces.split(separator: " ").map(String.init)
        guard f.count == 3, let items = Int(f[1]), f[0] == "0" || f[0] == "1" else { return nil }
        self.init(collection: collection, exists: f[0] == "1", items: items,
                  lastSync: f[2] == "-" ? nil : Int64(f[2]).map { Instant(microseconds: $0) }, statusPath: SyncHealth.statusDirectory(environment))
    }
}
