#if canImport(Glibc)
import Glibc
#endif
import CHeraldSys

/// The runs of run jobs, under `runs/<id>/`, one number per run:
///
/// ```
/// N.spec     what runs (written by heraldd, fsynced, before anything is spawned: the mark
///            that this occurrence was started; read by herald-runner)
/// N.lock     flock'ed by herald-runner for as long as it lives
/// N.running  the runner's pid and the instant it forked the command
/// N.log      the command's output, cut at commands.maxOutput
/// N.result   how it ended (written by the runner, atomically)
/// N.ended    its end is in the history (heraldd); only the newest `keptRuns` such runs stay
/// N.cancel   a stop asked for before the runner started the command (`requestStop`)
/// ```
///
/// The runner owns a live run; heraldd's `CommandRunner` starts runs and collects their ends;
/// the spool worker marks them collected. The CLI only reads, and stops a run by signalling
/// its runner.
public struct RunFiles: Sendable {
    public let spool: Spool
    public init(spool: Spool) { self.spool = spool }

    public var root: String { spool.root + "/runs" }
    /// A job's runs folder: its id (never `.` or `..`: no id starts with a dot).
    public func directory(_ id: String) -> String { root + "/" + id }
    public func path(_ id: String, _ run: Int, _ suffix: String) -> String { directory(id) + "/" + String(run) + "." + suffix }

    /// Ended runs kept per job (their logs); older ones are removed when a run is collected.
    public static let keptRuns = 20
    /// The largest spec the runner reads.
    public static let maximumSpec = 1 << 20

    /// The numbers of job `id`'s runs (those with a spec), ascending; none when it has no
    /// folder. Any other failure is thrown: a start must never take "cannot tell" for "none".
    public func runs(of id: String) throws(FileSystemError) -> [Int] {
        let names: [String]
        do { names = try FileSystem.list(directory(id)) } catch where error.isNotFound { return [] }
        return names.compactMap { name -> Int? in
            guard name.hasSuffix(".spec") else { return nil }
            let digits = name.dropLast(5)
            guard !digits.isEmpty, digits.count <= 9, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), digits.first != "0" else { return nil }
            return Int(digits)
        }.sorted()
    }

    /// The ids that have a runs folder (none without runs/).
    public func jobIDs() throws(FileSystemError) -> [String] {
        let names: [String]
        do { names = try FileSystem.list(root) } catch where error.isNotFound { return [] }
        return names.filter { Job.isValidID($0) }.sorted()
    }

    // MARK: the spec

    public struct Spec: Sendable, Equatable {
        public var occurrence: Instant
        public var title: String
        public var notify: Job.RunCommand.Notify
        public var timeout: Span?
        public var killAfter: Span
        public var maxOutput: Int
        public var directory: String
        public var umask: UInt32
        public var arguments: [String]
        /// `NAME=VALUE`, as the program gets them.
        public var environment: [String]

        public init(occurrence: Instant, title: String, notify: Job.RunCommand.Notify, timeout: Span?, killAfter: Span = Job.RunCommand.killAfter,
                    maxOutput: Int, directory: String, umask: UInt32, arguments: [String], environment: [String]) {
            self.occurrence = occurrence; self.title = title; self.notify = notify; self.timeout = timeout
            self.killAfter = killAfter; self.maxOutput = maxOutput; self.directory = directory; self.umask = umask
            self.arguments = arguments; self.environment = environment
        }

        /// NUL-terminated strings, in the order herald-runner reads them.
        public var bytes: [UInt8] {
            var fields = ["herald-run-spec 1", "occurrence=\(occurrence.microseconds)",
                          "title=" + TextSafety.stripControls(title, keepNewlines: false), "notify=" + notify.rawValue,
                          "timeout=\(timeout.map { max(1, $0.microseconds / 1_000_000) } ?? 0)",
                          "kill-after=\(killAfter.microseconds / 1_000_000)", "max-output=\(maxOutput)",
                          "cwd=" + directory, "umask=" + String(umask, radix: 8), "argc=\(arguments.count)"]
            fields += arguments
            fields.append("envc=\(environment.count)")
            fields += environment
            var out: [UInt8] = []
            for f in fields { out += Array(f.utf8); out.append(0) }
            return out
        }

        /// Reads a spec back; nil when it is not one.
        public init?(bytes: [UInt8]) {
            var fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard fields.last == "" else { return nil }
            fields.removeLast()
            var k = 0
            func next(_ key: String) -> String? {
                guard k < fields.count, fields[k].hasPrefix(key + "=") else { return nil }
                defer { k += 1 }
                return String(fields[k].dropFirst(key.count + 1))
            }
            guard fields.first == "herald-run-spec 1" else { return nil }
            k = 1
            guard let o = next("occurrence").flatMap({ Int64($0) }), let title = next("title"),
                  let notify = next("notify").flatMap(Job.RunCommand.Notify.init(rawValue:)),
                  let timeout = next("timeout").flatMap({ Int64($0) }), timeout >= 0, timeout < 1 << 40,
                  let kill = next("kill-after").flatMap({ Int64($0) }), kill >= 0, kill < 1 << 40,
                  let max = next("max-output").flatMap({ Int($0) }), let cwd = next("cwd"),
                  let mask = next("umask").flatMap({ UInt32($0, radix: 8) }),
                  let argc = next("argc").flatMap({ Int($0) }), argc >= 1, k + argc < fields.count else { return nil }
            let args = Array(fields[k..<(k + argc)])
            k += argc
            guard let envc = next("envc").flatMap({ Int($0) }), envc >= 0, k + envc == fields.count else { return nil }
            self.init(occurrence: Instant(microseconds: o), title: title, notify: notify,
                      timeout: timeout == 0 ? nil : .seconds(timeout), killAfter: .seconds(kill), maxOutput: max,
                      directory: cwd, umask: mask, arguments: args, environment: Array(fields[k...]))
        }
    }

    /// Writes run `run`'s spec, new (never over another), and makes it durable with its name:
    /// from here on the occurrence counts as started.
    public func writeSpec(_ spec: Spec, id: String, run: Int) throws(FileSystemError) {
        if !FileSystem.exists(directory(id)) {
            let firstRun = !FileSystem.exists(root)
            try FileSystem.makeDirectory(directory(id))
            // The new folders' names are durable too: the job's in runs/, and runs/ in the spool.
            try FileSystem.syncDirectoryOf(directory(id))
            if firstRun { try FileSystem.syncDirectoryOf(root) }
        }
        let p = path(id, run, "spec")
        guard let file = Descriptor.open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600) else { throw FileSystem.fail("create", p) }
        guard file.writeAll(spec.bytes), fsync(file.raw) == 0 else {
            let error = FileSystem.fail("write", p)
            unlink(p)
            throw error
        }
        try FileSystem.syncDirectoryOf(p)
    }

    public func readSpec(_ id: String, _ run: Int) -> Spec? {
        guard let bytes = Self.readRegular(path(id, run, "spec"), limit: Self.maximumSpec) else { return nil }
        return Spec(bytes: bytes)
    }

    /// Removes the files of a run that was never spawned (its runner could not be started),
    /// whatever a runner that failed wrote: the number is used again by the next run.
    public func withdraw(_ id: String, _ run: Int) {
        for suffix in Self.suffixes { unlink(path(id, run, suffix)) }
        _ = try? FileSystem.syncDirectoryOf(path(id, run, "spec"))
    }

    /// Every file a run may have.
    static let suffixes = ["log", "result", "running", "lock", "spec", "ended", "cancel"]

    /// The occurrence a spec was written for, read from its first bytes; nil when it has no
    /// spec or the spec names none. A spec that is there but cannot be read (EMFILE, EIO) is
    /// thrown: a start must never take "cannot tell" for "not started".
    public func occurrence(_ id: String, _ run: Int) throws(FileSystemError) -> Instant? {
        let p = path(id, run, "spec")
        guard let file = Descriptor.open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else {
            if errno == ENOENT || errno == ELOOP { return nil }  // no spec, or a link (never one of ours)
            throw FileSystem.fail("open", p)
        }
        var st = stat()
        guard fstat(file.raw, &st) == 0 else { throw FileSystem.fail("stat", p) }
        guard st.st_mode & S_IFMT == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { read(file.raw, $0.baseAddress!, $0.count) }
        if n < 0 { throw FileSystem.fail("read", p) }
        guard n > 0 else { return nil }
        let fields = buffer[0..<n].split(separator: 0, omittingEmptySubsequences: false)
        guard fields.count > 2, fields[1].starts(with: Array("occurrence=".utf8)),
              let o = Int64(String(decoding: fields[1].dropFirst(11), as: UTF8.self)) else { return nil }
        return Instant(microseconds: o)
    }

    public enum Claim: Equatable, Sendable {
        /// Its result now says why it never ran; no runner will run it.
        case claimed
        /// A runner holds it, or it started: its end is its runner's to write.
        case taken
        /// Its files could not be used: nothing can be told yet (left for a later look).
        case failed(String)
    }

    /// Makes sure a run that no runner started never starts: takes its lock (a runner that
    /// comes later finds it taken, or finds the result) and, if nothing shows that it started,
    /// writes its result saying why. `now` is its end: the time its history line gets (a
    /// line dated 1970 would be pruned as soon as it was written).
    @discardableResult
    public func claimUnstarted(_ id: String, _ run: Int, reason: String, unknown: Bool, now: Instant) -> Claim {
        let lockPath = path(id, run, "lock")
        guard let lock = Descriptor.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, mode: 0o600) else {
            return .failed("cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        return withExtendedLifetime(lock) {  // the lock is held until the result is written
            switch Self.lockExclusively(lock.raw) {
            case .held: break
            case .busy: return .taken
            case .failed(let code): return .failed("cannot lock \(lockPath): \(String(cString: strerror(code)))")
            }
            guard !FileSystem.exists(path(id, run, "running")), !FileSystem.exists(path(id, run, "result")) else { return .taken }
            let line = TextSafety.stripControls(reason, keepNewlines: false)
            let text = "exit=\nsignal=0\nstart=0\nend=\(now.microseconds)\nbytes=0\ncut=0\ntimedout=0\ncancelled=0\nerror=\(line)\nunknown=\(unknown ? 1 : 0)\n"
            do throws(FileSystemError) {
                try AtomicReplace.write(text.utf8, to: path(id, run, "result"), options: .spool())
            } catch {
                return .failed("\(error)")
            }
            return .claimed
        }
    }

    public enum Locking: Equatable, Sendable { case held, busy, failed(Int32) }

    /// Takes a run's lock for good. `isLive` (and `herald list`) look at a lock by taking it
    /// shared for an instant: a lock found busy is tried again for up to 200 ms, so such a
    /// look never passes for a runner (a runner holds it for the whole run).
    public static func lockExclusively(_ fd: Int32) -> Locking {
        var tries = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else { return .failed(code) }
            tries += 1
            if tries > 200 { return .busy }
            usleep(1000)
        }
        return .held
    }

    // MARK: a live run

    /// Whether run `run`'s runner holds its lock (it is alive).
    public func isLive(_ id: String, _ run: Int) -> Bool {
        guard let file = Self.openRegular(path(id, run, "lock")) else { return false }
        if flock(file.raw, LOCK_SH | LOCK_NB) == 0 { return false }
        return errno == EWOULDBLOCK
    }

    /// Blocks until run `run`'s runner is gone (its lock free). For a thread of its own.
    public func waitUntilEnded(_ id: String, _ run: Int) {
        guard let file = Self.openRegular(path(id, run, "lock")) else { return }
        while flock(file.raw, LOCK_SH) != 0 && errno == EINTR {}
    }

    /// What `N.running` says: the runner's pid and when it forked the command.
    public func running(_ id: String, _ run: Int) -> (pid: Int32, start: Instant)? {
        guard let text = Self.readRegular(path(id, run, "running"), limit: 4096) else { return nil }
        let values = Self.keyValues(text)
        guard let pid = values["pid"].flatMap({ Int32($0) }), pid > 1, let start = values["start"].flatMap({ Int64($0) }) else { return nil }
        return (pid, Instant(microseconds: start))
    }

    /// Ends job `id`'s live runs the way a timeout does (its runner sends SIGTERM to the
    /// command's group, SIGKILL 10 s later). Returns the runs signalled.
    @discardableResult
    public func stop(_ id: String) throws(FileSystemError) -> [Int] {
        var stopped: [Int] = []
        for run in try runs(of: id) where !FileSystem.exists(path(id, run, "ended")) && isLive(id, run) {
            guard let r = running(id, run), isRunner(r.pid, id: id, run: run) else { continue }
            if kill(r.pid, SIGTERM) == 0 { stopped.append(run) }
        }
        return stopped
    }

    /// Ends run `run` as a cancel does, whether or not its runner has started the command:
    /// `N.cancel` first, which a runner looks for once its `N.running` is written, then SIGTERM
    /// to a runner whose `N.running` is there. One of the two always sees the other.
    public func requestStop(_ id: String, _ run: Int) throws(FileSystemError) {
        let marker = path(id, run, "cancel")
        guard Descriptor.open(marker, O_WRONLY | O_CREAT | O_NOFOLLOW, mode: 0o600) != nil else { throw FileSystem.fail("create", marker) }
        guard let r = running(id, run), isRunner(r.pid, id: id, run: run) else { return }
        kill(r.pid, SIGTERM)
    }

    /// Whether process `pid` is herald-runner for this run (its command line ends in the run's
    /// directory and number): a stale or planted `N.running` never gets another process signalled.
    func isRunner(_ pid: Int32, id: String, run: Int) -> Bool {
        guard let bytes = Self.readRegular("/proc/\(pid)/cmdline", limit: 64 << 10) else { return false }
        let args = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }.dropLast()
        guard args.count >= 3, args.first.map({ $0 == "herald-runner" || $0.hasSuffix("/herald-runner") }) == true else { return false }
        return Array(args.suffix(2)) == [directory(id), String(run)]
    }

    /// The runs of job `id` that are going now.
    public func live(_ id: String) throws(FileSystemError) -> [Int] {
        try runs(of: id).filter { !FileSystem.exists(path(id, $0, "ended")) && isLive(id, $0) }
    }

    // MARK: the end

    /// `N.result` as the runner wrote it.
    public struct Result: Sendable, Equatable {
        public var exitStatus: Int?
        public var signal: Int?
        public var start: Instant?
        public var end: Instant?
        public var bytes: Int64
        public var cut: Bool
        public var timedOut: Bool
        public var cancelled: Bool
        public var error: String?
        /// Written by heraldd (`claimUnstarted`) for a run found marked but never started.
        public var unknown = false
    }

    public func result(_ id: String, _ run: Int) -> Result? {
        guard let text = Self.readRegular(path(id, run, "result"), limit: 8192) else { return nil }
        let v = Self.keyValues(text)
        guard v["cut"] != nil else { return nil }
        // 0 is "never": a claimed run did not start (a result of an older heraldd has end=0 too).
        func instant(_ k: String) -> Instant? { v[k].flatMap { Int64($0) }.flatMap { $0 > 0 ? Instant(microseconds: $0) : nil } }
        let signal = v["signal"].flatMap { Int($0) } ?? 0
        let error = v["error"] ?? ""
        return Result(exitStatus: v["exit"].flatMap { Int($0) }, signal: signal == 0 ? nil : signal, start: instant("start"), end: instant("end"),
                      bytes: v["bytes"].flatMap { Int64($0) } ?? 0, cut: v["cut"] == "1", timedOut: v["timedout"] == "1",
                      cancelled: v["cancelled"] == "1", error: error.isEmpty ? nil : error, unknown: v["unknown"] == "1")
    }

    /// How run `run` ended, as far as its files tell: its result, else its start without an
    /// end, else nothing provable. The popup gets the log's last lines.
    public func end(_ id: String, _ run: Int) -> RunEnd {
        let spec = readSpec(id, run)
        let log = path(id, run, "log")
        var occurrence = spec?.occurrence
        if occurrence == nil { do throws(FileSystemError) { occurrence = try self.occurrence(id, run) } catch { occurrence = nil } }
        var end = RunEnd(id: id, run: run, occurrence: occurrence ?? .epoch, title: spec?.title ?? id,
                         notify: spec?.notify ?? .failure, ending: .unknown, log: log)
        if let r = result(id, run) {
            if let e = r.error {
                end.ending = r.unknown ? .unknown : .notStarted(e)
            } else if let s = r.signal {
                end.ending = .signalled(s)
            } else {
                end.ending = .exited(r.exitStatus ?? 0)
            }
            end.started = r.start
            end.ended = r.end
            end.timedOut = r.timedOut
            end.cancelled = r.cancelled
            end.cut = r.cut
        } else if let r = running(id, run) {
            end.ending = .noResult
            end.started = r.start
        }
        end.tail = tail(log)
        return end
    }

    /// The last `lines` lines of a log, at most `bytes` of them, control characters removed.
    public func tail(_ log: String, lines: Int = 5, bytes: Int = 600) -> String {
        guard let file = Self.openRegular(log) else { return "" }
        var st = stat()
        guard fstat(file.raw, &st) == 0 else { return "" }
        let size = Int(st.st_size)
        let want = min(size, bytes * 2)
        var buffer = [UInt8](repeating: 0, count: want)
        let n = buffer.withUnsafeMutableBytes { pread(file.raw, $0.baseAddress!, want, off_t(size - want)) }
        guard n > 0 else { return "" }
        let text = String(decoding: buffer[0..<n], as: UTF8.self)
        var kept = text.split(separator: "\n", omittingEmptySubsequences: true).suffix(lines).joined(separator: "\n")
        if kept.utf8.count > bytes { kept = "…" + String(kept.suffix(bytes / 2)) }
        return TextSafety.plainText(kept)
    }

    /// Marks run `run` collected (its end is in the history) and removes the files of ended
    /// runs older than the newest `keptRuns`.
    public func collected(_ id: String, _ run: Int) throws(FileSystemError) {
        let marker = path(id, run, "ended")
        guard let file = Descriptor.open(marker, O_WRONLY | O_CREAT | O_NOFOLLOW, mode: 0o600) else { throw FileSystem.fail("create", marker) }
        file.close()
        // Durable before the next start reads it: else a crash reports the run's end once more.
        try FileSystem.syncDirectoryOf(marker)
        let ended = try runs(of: id).filter { FileSystem.exists(path(id, $0, "ended")) }
        for old in ended.dropLast(Self.keptRuns) {
            for suffix in Self.suffixes { unlink(path(id, old, suffix)) }
        }
    }

    /// Opens one of a run's files for reading: a regular file only, never through a link, and
    /// never waiting (a FIFO planted in runs/ would otherwise hold the runner's queue for good).
    static func openRegular(_ path: String) -> Descriptor? {
        guard let file = Descriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return nil }
        var st = stat()
        guard fstat(file.raw, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return file
    }

    /// A run's small file, read whole (nil: missing, not a regular file, or past `limit`).
    static func readRegular(_ path: String, limit: Int) -> [UInt8]? {
        guard let file = openRegular(path) else { return nil }
        return try? FileSystem.readAll(file.raw, path: path, limit: limit)
    }

    static func keyValues(_ bytes: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let eq = line.firstIndex(of: UInt8(ascii: "=")) else { continue }
            out[String(decoding: line[line.startIndex..<eq], as: UTF8.self)] = String(decoding: line[(eq + 1)...], as: UTF8.self)
        }
        return out
    }
}
