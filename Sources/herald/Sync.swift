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
        var st = stat()
        guard stat(collection, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            throw CLIError.failure("sync.calendar '\(collection)' is not a folder: create it, or let 'vdirsyncer discover' and 'vdirsyncer sync' make it")
        }
        let final = collection + "/" + SyncedItem.fileName(for: id)
        if FileSystem.exists(final) { throw CLIError.data("--id: a synced job '\(id)' exists already in '\(collection)'") }
        let text: String
        do {
            let schedule = try JobSchedule(checked, localZone: zone, defaultLead: config.lead)
            text = try SyncedItem.document(checked, schedule: schedule, now: now, maxRepeats: config.popups.maxRepeats, defaultLead: config.lead)
        } catch let error as SyncedItem.Refusal {
            throw CLIError.usage("--sync: \(error)")
        }
        let tmp = collection + "/." + SyncedItem.fileName(for: id) + "." + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        do {
            try FileSystem.writeAtomically(Array(text.utf8), tmpPath: tmp, finalPath: final, syncDirectory: true)
        } catch {
            FileSystem.remove(tmp)
            throw CLIError.failure("\(error)")
        }
    }

    /// " (synced to ~/.calendars/personal)" for a line that says what was scheduled.
    func syncedNote(_ collection: String?) -> String {
        guard let collection else { return "" }
        let home = environment["HOME"] ?? ""
        let shown = !home.isEmpty && collection.hasPrefix(home + "/") ? "~" + collection.dropFirst(home.count) : Substring(collection)
        return " (synced to \(shown))"
    }
}

/// A job stored as an item of the synced collection: its file and UID, and the calendar job
/// heraldd planned from it, if any.
struct SyncedTarget {
    var path: String
    var uid: String
    var pending: PendingJob?
    /// The id the user sees: the job id `--sync` printed.
    var id: String { SyncedItem.jobID(ofUID: uid) ?? uid }
}

extension CLIContext {
    /// The synced item `query` names: a job id `--sync` printed (its `herald-ID.ics` in
    /// `sync.calendar`), or a pending calendar job planned from that collection. Nil when it
    /// names neither (it is then looked for as any job is).
    func syncedTarget(_ query: String) -> SyncedTarget? {
        guard let collection = config.syncCalendar else { return nil }
        let inCollection: (PendingJob) -> Bool = { p in
            guard let link = p.job?.calendar else { return false }
            return link.file.hasPrefix(collection + "/")
        }
        if Job.isValidID(query), FileSystem.exists(collection + "/" + SyncedItem.fileName(for: query)) {
            let path = collection + "/" + SyncedItem.fileName(for: query)
            let uid = SyncedItem.uid(for: query)
            // heraldd's job for it has the id the calendar sync derives from source, file and UID.
            let planned = CalendarPlanner.jobID(source: collection, file: path, uid: uid)
            let pending = spool.findPending(planned, defaultLead: config.lead, localZone: zone, now: now).first { $0.id == planned }
            return SyncedTarget(path: path, uid: uid, pending: pending)
        }
        let found = spool.findPending(query, defaultLead: config.lead, localZone: zone, now: now)
        guard found.count == 1, let p = found.first, inCollection(p), let link = p.job?.calendar else { return nil }
        return SyncedTarget(path: link.file, uid: link.uid, pending: p)
    }

    /// Removes a synced item from the collection (vdirsyncer then deletes it on the server, and
    /// so on every device), after its calendar job here is cancelled.
    func cancelSynced(_ target: SyncedTarget) throws {
        if let pending = target.pending {
            if case .jobs = pending.location, let answer = try askDaemon(.cancel(id: pending.id)) {
                guard case .cancelled = answer else { throw CLIError.failure("heraldd answered something else") }
            } else {
                try cancel(pending)
            }
        }
        guard unlink(target.path) == 0 || errno == ENOENT else {
            throw CLIError.failure("cannot remove '\(target.path)': \(String(cString: strerror(errno)))")
        }
        do { try FileSystem.syncDirectoryOf(target.path) } catch { throw CLIError.failure("\(error)") }
    }

    /// Moves a one-time synced item to `time`, in its file (heraldd plans it again from there).
    func rescheduleSynced(_ target: SyncedTarget, to time: Instant) throws {
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(target.path, limit: ICalBudget.maximumFileSize) } catch { throw CLIError.failure("\(error)") }
        let changed: (lines: [String], crlf: Bool)
        do { changed = try SyncedItem.rescheduled(bytes, path: target.path, uid: target.uid, to: time, now: now, zones: ZoneFiles.lookup) } catch {
            throw CLIError.data("\(error)")
        }
        try replaceSyncedFile(target.path, with: changed.lines.joined(separator: changed.crlf ? "\r\n" : "\n") + (changed.crlf ? "\r\n" : "\n"))
    }

    /// Writes a synced item's new text beside it and renames it over the old one, keeping its mode.
    func replaceSyncedFile(_ path: String, with text: String) throws {
        let tmp = parentDirectory(of: path) + "/." + (path.split(separator: "/").last.map(String.init) ?? "item") + "."
            + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        do { try FileSystem.writeAtomically(Array(text.utf8), tmpPath: tmp, finalPath: path, syncDirectory: true) } catch {
            FileSystem.remove(tmp)
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
