#if canImport(Glibc)
import Glibc
#endif
/// Why the spool itself cannot be trusted.
public struct SpoolPermissionError: Error, Equatable, CustomStringConvertible {
    public var description: String
}

extension Spool {
    /// Refuses a spool (or one of its directories) that is a symlink, not a directory, owned
    /// by someone else, or writable by group or others: anyone who can write there can make
    /// Herald show anything.
    ///
    /// - Returns: whether every spool directory exists (false: call `prepare` first).
    @discardableResult
    public func checkPermissions() throws(SpoolPermissionError) -> Bool {
        var complete = true
        let user = geteuid()
        for dir in [root] + Self.directories.map({ root + "/" + $0 }) {
            var st = stat()
            let inside = dir != root
            guard (inside ? lstat(dir, &st) : stat(dir, &st)) == 0 else {
                complete = false
                continue
            }
            if st.st_mode & S_IFMT != S_IFDIR {
                throw SpoolPermissionError(description: "spool directory '\(dir)' is not a directory")
            }
            if st.st_uid != user {
                throw SpoolPermissionError(description: "spool directory '\(dir)' is owned by uid \(st.st_uid), not by this user (uid \(user))")
            }
            if st.st_mode & 0o022 != 0 {
                let mode = String(st.st_mode & 0o7777, radix: 8)
                throw SpoolPermissionError(description: "spool directory '\(dir)' is writable by group or others (mode 0\(mode)): run chmod 700 '\(dir)'")
            }
        }
        return complete
    }

    /// Makes the spool and its directories 0700 where others may read or search them but not
    /// write (a spool made 0755 before Herald ran shows job ids and times to every user). One
    /// that others could write is left for `checkPermissions` to refuse with the command that
    /// fixes it: what someone else may have put there is for the user to look at first. Only
    /// directories of this user that are not symlinks are changed.
    ///
    /// - Returns: the directories changed, with their old modes.
    @discardableResult
    public func tightenPermissions() -> [(path: String, mode: mode_t)] {
        var changed: [(path: String, mode: mode_t)] = []
        for dir in [root] + Self.directories.map({ root + "/" + $0 }) {
            guard let folder = Descriptor.open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) else { continue }
            var st = stat()
            guard fstat(folder.raw, &st) == 0, st.st_uid == geteuid(), st.st_mode & 0o077 != 0, st.st_mode & 0o022 == 0 else { continue }
            if fchmod(folder.raw, 0o700) == 0 { changed.append((dir, st.st_mode & 0o7777)) }
        }
        return changed
    }

    /// What `prune` removed.
    public struct PruneReport: Equatable, Sendable {
        public var files = 0
        public var historyLines = 0
    }

    /// Removes done, cancelled and failed files (with their `.reason`) and history lines
    /// older than `retention`, and writers' leftovers in `tmp/` older than 36 hours (the
    /// maildir rule). Ages come from the inode change time: when the file got there.
    public func prune(olderThan retention: Span, now: Instant) -> PruneReport {
        var report = PruneReport()
        let cutoff = now - retention
        func removeOld(in dir: String, before: Instant) {
            for name in (try? FileSystem.list(dir)) ?? [] {
                var st = stat()
                let path = dir + "/" + name
                guard lstat(path, &st) == 0, st.st_mode & S_IFMT != S_IFDIR else { continue }
                let changed = Instant(microseconds: Int64(st.st_ctim.tv_sec) * 1_000_000 + Int64(st.st_ctim.tv_nsec) / 1000)
                if changed < before, unlink(path) == 0 { report.files += 1 }
            }
        }
        for dir in [done, cancelled, failed] { removeOld(in: dir, before: cutoff) }
        removeOld(in: tmp, before: now - Span.minutes(36 * 60))
        report.historyLines = pruneHistory(before: cutoff)
        return report
    }

    /// Rewrites history.jsonl without lines older than `cutoff` (write-then-rename), streaming:
    /// it never holds more than a chunk and one line. It holds the file's exclusive lock
    /// throughout, and every appender (`FileSystem.appendLine`) takes the shared one and checks
    /// it still has the file in place, so no line appended meanwhile is lost.
    func pruneHistory(before cutoff: Instant) -> Int {
        guard let history = Descriptor.open(historyPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return 0 }
        let fd = history.raw
        defer { history.close() }  // and with it the lock
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, flock(fd, LOCK_EX) == 0 else { return 0 }
        func isOld(_ line: ArraySlice<UInt8>) -> Bool {
            HistoryRecord(jsonLine: Substring(decoding: line, as: UTF8.self)).map { $0.time < cutoff } ?? false
        }
        var dropped = 0
        FileSystem.forEachLine(fd) { line, piece in if piece == .line, isOld(line) { dropped += 1 } }
        guard dropped > 0 else { return 0 }
        guard let out = try? AtomicReplace.stage(historyPath, options: .init(mode: 0o600, syncDirectory: true, staging: tmp)) else { return 0 }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(FileSystem.lineChunk)
        var ok = true
        func flush() {
            if ok && !buffer.isEmpty { ok = (try? out.write(buffer)) != nil }
            buffer.removeAll(keepingCapacity: true)
        }
        FileSystem.forEachLine(fd) { bytes, piece in
            if piece == .line, isOld(bytes) { return }
            buffer.append(contentsOf: bytes)
            if piece != .part { buffer.append(UInt8(ascii: "\n")) }
            if buffer.count >= FileSystem.lineChunk { flush() }
        }
        flush()
        guard ok, (try? out.commit()) == .replaced else { return 0 }
        return dropped
    }

    /// The history, oldest first; lines cut short by a crash are skipped.
    public func history() -> [HistoryRecord] {
        guard let bytes = try? FileSystem.read(historyPath, limit: 1 << 30) else { return [] }
        return bytes.split(separator: UInt8(ascii: "\n")).compactMap { HistoryRecord(jsonLine: Substring(decoding: $0, as: UTF8.self)) }
    }

    /// The records from `since` on, read from the end of the file backwards (a year of
    /// history is megabytes; `herald status` wants the last day). Records are appended in
    /// time order, give or take the moments between a popup and its record: an hour's margin.
    public func history(since: Instant) -> [HistoryRecord] {
        guard let history = Descriptor.open(historyPath, O_RDONLY | O_NOFOLLOW) else { return [] }
        let fd = history.raw
        defer { withExtendedLifetime(history) {} }  // open while fd is read
        var st = stat()
        guard fstat(fd, &st) == 0 else { return [] }
        var end = Int(st.st_size)
        var tail: [UInt8] = []
        let chunk = 256 * 1024
        while end > 0 {
            let start = max(0, end - chunk)
            var part = [UInt8](repeating: 0, count: end - start)
            let n = part.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, off_t(start)) }
            guard n == end - start else { return [] }
            tail = part + tail
            end = start
            // The first whole line of what is read so far: old enough to stop?
            guard start > 0, let newline = tail.firstIndex(of: UInt8(ascii: "\n")) else { continue }
            let rest = tail[(newline + 1)...]
            if let line = rest.split(separator: UInt8(ascii: "\n")).first,
               let record = HistoryRecord(jsonLine: Substring(decoding: line, as: UTF8.self)),
               record.time < since - .minutes(60) {
                tail = Array(rest)
                break
            }
        }
        return tail.split(separator: UInt8(ascii: "\n")).compactMap { HistoryRecord(jsonLine: Substring(decoding: $0, as: UTF8.self)) }
            .filter { $0.time >= since }
    }

    /// Recurring jobs that follow the local zone (no `timezone` of their own), for
    /// rescheduling after the zone changed. Reads every pending job: run it off the
    /// scheduler's queue.
    public func localZoneRecurrences(localZone: TimeZoneRules) -> [(name: JobFileName, job: Job)] {
        guard let names = try? jobFiles().jobs else { return [] }
        return names.compactMap { name in
            guard case .success(let job) = loadJob(name, localZone: localZone), !job.every.isEmpty, job.timezone == nil else { return nil }
            return (name, job)
        }
    }
}
