#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CHeraldSys
/// The spool directory: the public maildir-style intake (`tmp/` → `new/`) and the daemon's
/// own state below it. Every state change is an atomic rename or an fsynced write-then-rename.
///
/// ```
/// tmp/        writers create files here, fsync them ...
/// new/        ... and rename them in: one job (*.json) or a batch (*.jsonl) per file
/// jobs/       pending jobs, named <id>@<next occurrence>[@<snoozed until>].json
/// done/       jobs whose last occurrence fired
/// cancelled/  jobs removed by `herald cancel`
/// failed/     files that are not valid jobs, each with a <name>.reason sidecar
/// habits/     one completion log per habit, <id>.jsonl
/// history.jsonl, status.json, heraldd.lock, quiet.json (`herald quiet`)
/// ```
public struct Spool: Sendable {
    public let root: String

    public init(root: String) {
        var r = root
        while r.count > 1, r.hasSuffix("/") { r.removeLast() }
        self.root = r
    }

    public var tmp: String { root + "/tmp" }
    public var new: String { root + "/new" }
    public var jobs: String { root + "/jobs" }
    public var done: String { root + "/done" }
    public var cancelled: String { root + "/cancelled" }
    public var failed: String { root + "/failed" }
    public var historyPath: String { root + "/history.jsonl" }
    public var statusPath: String { root + "/status.json" }
    public var lockPath: String { root + "/heraldd.lock" }
    /// The UIDs of the items this machine's `herald ... --sync` wrote, one a line: they keep
    /// their room in a synced calendar others write to (`CalendarReconciliation.Item.own`).
    public var ownSyncedPath: String { root + "/own-synced.txt" }
    /// The most UIDs `ownSyncedPath` keeps (the latest).
    public static let ownSyncedLimit = 10_000

    /// The UIDs this machine synced (nil when none were).
    public func ownSyncedUIDs() -> Set<String> {
        guard case .success(let bytes) = readChecked(ownSyncedPath, limit: 1 << 20) else { return [] }
        return Set(bytes.split(separator: UInt8(ascii: "\n")).suffix(Self.ownSyncedLimit).map { String(decoding: $0, as: UTF8.self) })
    }
    /// `herald quiet on|off`'s switch.
    public static let quietFile = "quiet.json"
    public var quietPath: String { root + "/" + Spool.quietFile }

    /// The do-not-disturb switch, if `herald quiet` ever set it (nil when missing or unreadable).
    public func quietSwitch() -> QuietSwitch? {
        guard let data = try? FileSystem.read(quietPath, limit: 64 << 10) else { return nil }
        return QuietSwitch(json: data)
    }

    static let directories = ["tmp", "new", "jobs", "done", "cancelled", "failed"]

    /// `$XDG_STATE_HOME/herald`, else `~/.local/state/herald`.
    public static func defaultRoot(environment: Environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/herald" }
        return (environment["HOME"] ?? "/tmp") + "/.local/state/herald"
    }

    /// Creates the spool and its directories (mode 0700) when missing.
    public func prepare() throws(FileSystemError) {
        try FileSystem.makeDirectory(root)
        for d in Self.directories { try FileSystem.makeDirectory(root + "/" + d) }
    }

    // MARK: writing into the intake (any program may do this)

    /// Writes `contents` into `new/` the maildir way: create in `tmp/`, fsync, rename into
    /// `new/` under `name` (or a variant of it when that name is taken). Like `at`, which
    /// writes its job with O_SYNC, the directory is not synced here: heraldd syncs `jobs/`
    /// when it takes the job in, and the file system commits the rename within seconds.
    ///
    /// - Returns: the path in `new/`.
    @discardableResult
    public func submit(_ contents: String, name: String) throws(FileSystemError) -> String {
        let ext = name.hasSuffix(".jsonl") ? ".jsonl" : ".json"
        let stem = name.hasSuffix(ext) ? String(name.dropLast(ext.count)) : name
        var candidate = new + "/" + stem + ext
        for _ in 0..<16 {
            do {
                try AtomicReplace.write(contents.utf8, to: candidate, options: .init(mode: 0o600, existing: .mustNotExist, staging: tmp))
                return candidate
            } catch where error.exists {
                candidate = new + "/" + stem + "." + String(UInt32.random(in: 0...UInt32.max), radix: 36) + ext
            }
        }
        throw FileSystemError(operation: "create", path: candidate, code: EEXIST)
    }

    /// Submits one job; its `id` must be set.
    @discardableResult
    public func submit(_ job: Job, zone: TimeZoneRules = .utc) throws(FileSystemError) -> String {
        try submit(job.encoded(zone: zone) + "\n", name: (job.id ?? "job") + ".json")
    }

    // MARK: reading files safely

    /// Opens and reads a file from a spool directory, refusing anything that is not a small
    /// regular file of ours: the checks are made on the open descriptor (no races).
    public func readChecked(_ path: String, limit: Int) -> Result<[UInt8], SpoolFileError> {
        readCheckedFile(path, limit: limit).map(\.bytes)
    }

    /// `readChecked`, with the file's permission bits and inode number as its descriptor showed them.
    ///
    /// With `whenComplete`, a file some process still has open for writing (created in `new/`
    /// in place, not yet closed) is `.beingWritten`: a read lease, which the kernel refuses
    /// while the file has a writer, tells.
    public func readCheckedFile(_ path: String, limit: Int,
                                whenComplete: Bool = false) -> Result<(bytes: [UInt8], mode: mode_t, inode: ino_t), SpoolFileError> {
        openChecked(path, limit: limit, whenComplete: whenComplete).flatMap { file in
            file.readAll().map { ($0, file.status.st_mode & 0o7777, file.status.st_ino) }
        }
    }

    /// `readCheckedFile`'s checks (TrustedFile's, for a file of ours), leaving the file open
    /// for the caller to read.
    public func openChecked(_ path: String, limit: Int, whenComplete: Bool = false) -> Result<TrustedFile, SpoolFileError> {
        TrustedFile.open(path, rules: .spoolFile(limit: limit)).flatMap { file in
            whenComplete && herald_has_writer(file.descriptor.raw) != 0 ? .failure(.beingWritten) : .success(file)
        }
    }

    // MARK: pending jobs

    /// The pending jobs in `jobs/`, and the names there that are not job files.
    public func jobFiles() throws(FileSystemError) -> (jobs: [JobFileName], strays: [String]) {
        var jobs: [JobFileName] = []
        var strays: [String] = []
        try FileSystem.forEachName(self.jobs) { name in
            if let parsed = JobFileName(utf8: name) { jobs.append(parsed) } else { strays.append(String(decoding: name, as: UTF8.self)) }
        }
        return (jobs, strays)
    }

    public func path(of name: JobFileName) -> String { jobs + "/" + name.description }

    /// Reads and decodes a pending job's document.
    public func loadJob(_ name: JobFileName, localZone: TimeZoneRules = .utc) -> Result<Job, SpoolFileError> {
        readChecked(path(of: name), limit: Job.maximumFileSize).flatMap { bytes in
            do throws(JobError) { return .success(try Job.decode(bytes, localZone: localZone)) } catch {
                return .failure(.invalid(error))
            }
        }
    }

    /// Reads and checks a finished job's document in `done/`.
    public func loadFinishedJob(_ name: JobFileName, localZone: TimeZoneRules = .utc) -> Result<Job, SpoolFileError> {
        readChecked(done + "/" + name.description, limit: Job.maximumFileSize).flatMap { bytes in
            do throws(JobError) { return .success(try Job.decode(bytes, localZone: localZone)) } catch {
                return .failure(.invalid(error))
            }
        }
    }

    /// Moves a pending job to its next state (an atomic rename within `jobs/`).
    public func advance(_ from: JobFileName, to: JobFileName) throws(FileSystemError) {
        try FileSystem.move(path(of: from), to: path(of: to))
    }

    /// Moves a job whose last occurrence fired to `done/`.
    public func finish(_ name: JobFileName) throws(FileSystemError) {
        try FileSystem.move(path(of: name), to: done + "/" + name.description)
    }

    /// Moves a pending job to `cancelled/`.
    public func cancel(_ name: JobFileName) throws(FileSystemError) {
        try FileSystem.move(path(of: name), to: cancelled + "/" + name.description)
    }

    /// Removes a job derived from a calendar that no longer holds its alarms (or has no room
    /// for them): the calendar is the user's data, the job only a copy of it, so nothing is kept.
    public func withdraw(_ name: JobFileName) {
        FileSystem.remove(path(of: name))
    }

    /// Moves a file out of `dir` into `failed/` and writes `<name>.reason` beside it.
    /// Never deletes: a name already taken in `failed/` gets a numeric suffix.
    ///
    /// - Returns: the file's new path.
    @discardableResult
    public func quarantine(directory dir: String, name: String, as shownName: String? = nil, reason: String,
                           now: Instant) throws(FileSystemError) -> String {
        let base = shownName ?? name
        var target = base
        var n = 0
        while FileSystem.exists(failed + "/" + target) || FileSystem.exists(failed + "/" + target + ".reason") {
            n += 1
            target = base + "." + String(n)
        }
        try FileSystem.move(dir + "/" + name, to: failed + "/" + target)
        // Made visible: `cat failed/*.reason` must not send a job's escape sequences to a terminal.
        let line = ISO8601.format(now, offsetSeconds: 0, zulu: true) + " " + TextSafety.visible(relative(dir) + "/" + base + ": " + reason) + "\n"
        try AtomicReplace.write(line.utf8, to: failed + "/" + target + ".reason", options: .spool(staging: tmp))
        return failed + "/" + target
    }

    /// A spool path relative to the root, for messages: `new/abc.json`.
    public func relative(_ path: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}

extension FileRules {
    /// A file of the spool's: the user's alone (another user could change a job), at most `limit` bytes.
    public static func spoolFile(limit: Int) -> FileRules { FileRules(maximumSize: limit, ownedByUser: true, privateToUser: true) }

    /// A job file in jobs/ or done/.
    public static let jobFile = spoolFile(limit: Job.maximumFileSize)
}
