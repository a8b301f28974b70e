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
        try writeSynced(job, to: collection, replacing: false)
        return collection
    }

    /// Writes `job` as its item into `collection`: checked as heraldd would check its job file,
    /// then written to a hidden file beside it, synced and renamed into place, so vdirsyncer
    /// and heraldd only ever see it whole.
    func writeSynced(_ job: Job, to collection: String, replacing: Bool) throws {
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
        if !replacing, FileSystem.exists(final) { throw CLIError.data("--id: a synced job '\(id)' exists already in '\(collection)'") }
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
