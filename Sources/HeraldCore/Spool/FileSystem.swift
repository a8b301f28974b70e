#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FileSystemError {
    /// From a failed call's `errno`.
    public init(operation: String, path: String, code: Int32) {
        self.init(operation: operation, path: path, code: code, reason: String(cString: strerror(code)), isNotFound: code == ENOENT)
    }
    public var exists: Bool { code == EEXIST }
}

/// The small set of POSIX calls the spool is built from. Every helper states its guarantee.
public enum FileSystem {
    static func fail(_ op: String, _ path: String) -> FileSystemError {
        FileSystemError(operation: op, path: path, code: errno)
    }

    /// Creates `path` as a directory with mode 0700 if missing (parents too, also 0700).
    public static func makeDirectory(_ path: String) throws(FileSystemError) {
        if mkdir(path, 0o700) == 0 { _ = chmod(path, 0o700); return }
        if errno == EEXIST { return }
        if errno == ENOENT {
            let parent = parentDirectory(of: path)
            if !parent.isEmpty, parent != path {
                try makeDirectory(parent)
                if mkdir(path, 0o700) == 0 || errno == EEXIST { _ = chmod(path, 0o700); return }
            }
        }
        throw fail("create directory", path)
    }

    /// fsyncs the directory holding `path`, making a rename into it durable.
    public static func syncDirectoryOf(_ path: String) throws(FileSystemError) {
        let dir = parentDirectory(of: path)
        guard let folder = Descriptor.open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY) else { throw fail("open directory", dir) }
        guard fsync(folder.raw) == 0 else { throw fail("sync directory", dir) }
    }

    /// Renames atomically; fails with ENOENT if `from` is gone (someone else moved it first).
    public static func move(_ from: String, to: String) throws(FileSystemError) {
        guard rename(from, to) == 0 else { throw fail("rename", from) }
    }

    /// Renames without replacing an existing `to` (renameat2 RENAME_NOREPLACE semantics via link+unlink
    /// is not atomic for directories, so this checks first; good enough for quarantine names).
    public static func moveNoReplace(_ from: String, to: String) throws(FileSystemError) {
        var st = stat()
        if lstat(to, &st) == 0 { errno = EEXIST; throw fail("rename", to) }
        try move(from, to: to)
    }

    /// The names in a directory, without `.` and `..`.
    public static func list(_ path: String) throws(FileSystemError) -> [String] {
        guard let dir = opendir(path) else { throw fail("list", path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Calls `body` with each entry's name as bytes, without `.` and `..` (no String made: a
    /// listing of `jobs/` parses 100,000 names at heraldd's start).
    public static func forEachName(_ path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(FileSystemError) {
        guard let dir = opendir(path) else { throw fail("list", path) }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: UInt8.self, capacity: 256) { bytes in
                    let name = UnsafeBufferPointer(start: bytes, count: strlen(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self)))
                    if name.count == 1 && name[0] == 0x2E || name.count == 2 && name[0] == 0x2E && name[1] == 0x2E { return }
                    body(name)
                }
            }
        }
    }

    /// How many entries a directory holds, without `.` and `..`, and without any name that
    /// starts with a dot unless `hidden` (no strings built: a short command counts jobs/).
    public static func count(_ path: String, hidden: Bool = true) throws(FileSystemError) -> Int {
        guard let dir = opendir(path) else { throw fail("list", path) }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let (c0, c1, c2) = (entry.pointee.d_name.0, entry.pointee.d_name.1, entry.pointee.d_name.2)
            if c0 == 0x2E {  // "."
                if c1 == 0 || (c1 == 0x2E && c2 == 0) || !hidden { continue }
            }
            count += 1
        }
        return count
    }

    /// The whole file; for files Herald itself wrote (or system files, with `followLinks`).
    public static func read(_ path: String, limit: Int = 16 << 20, followLinks: Bool = false) throws(FileSystemError) -> [UInt8] {
        guard let file = Descriptor.open(path, O_RDONLY | (followLinks ? 0 : O_NOFOLLOW)) else { throw fail("open", path) }
        return try readAll(file.raw, path: path, limit: limit)
    }

    /// Reads to the end, or until more than `limit` bytes have come (the caller decides what
    /// too long means). The buffer is sized from fstat and never zero-filled: for the few small
    /// files a short command reads, zeroing cost more than the reads (BENCHMARKS.md, "Why the
    /// code is as it is").
    /// `size` is the file's size when the caller already knows it from fstat.
    public static func readAll(_ fd: Int32, path: String, limit: Int, size known: Int? = nil) throws(FileSystemError) -> [UInt8] {
        var st = stat()
        let size = known ?? (fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : 0)
        // One byte more than the file holds, so the read that meets the end needs no growth.
        var capacity = max(min(size, limit) + 1, 64)
        var buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
        defer { buffer.deallocate() }
        var count = 0
        while count <= limit {
            if count == capacity {
                let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 1)
                grown.copyMemory(from: buffer, byteCount: count)
                buffer.deallocate()
                buffer = grown
                capacity *= 2
            }
            let n = Glibc.read(fd, buffer + count, capacity - count)
            if n < 0 { if errno == EINTR { continue }; throw fail("read", path) }
            if n == 0 { break }
            count += n
        }
        return Array(UnsafeRawBufferPointer(start: buffer, count: count))
    }

    /// Appends one line to `path` (creating it 0600) with O_APPEND, so concurrent appends of
    /// whole lines do not interleave.
    public static func appendLine(_ line: String, to path: String) throws(FileSystemError) {
        // The shared lock keeps out a rewrite (history pruning holds the exclusive one); a file
        // replaced while this waited for it is opened again, so the line lands in the new one.
        for _ in 0..<8 {
            guard let file = Descriptor.open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK) else { throw fail("open", path) }
            var mine = stat(), current = stat()
            // A FIFO or device in its place is never written to (or waited on).
            guard fstat(file.raw, &mine) == 0, mine.st_mode & S_IFMT == S_IFREG else {
                throw FileSystemError(operation: "append to", path: path, code: EINVAL)
            }
            guard flock(file.raw, LOCK_SH) == 0 else { throw fail("lock", path) }
            guard fstat(file.raw, &mine) == 0, lstat(path, &current) == 0, mine.st_ino == current.st_ino else { continue }
            // One write(2) of the whole line: O_APPEND makes it land whole at the end.
            let bytes = Array((line + "\n").utf8)
            let n = bytes.withUnsafeBytes { write(file.raw, $0.baseAddress!, $0.count) }
            guard n == bytes.count else {
                let error = fail("append to", path)
                // A write cut short (a full disk) ends mid-line: the next append starts a line of its own.
                if n > 0 { _ = write(file.raw, "\n", 1) }
                throw error
            }
            return
        }
        throw FileSystemError(operation: "append to", path: path, code: EAGAIN)
    }

    /// How much `forEachLine` reads at a time, and the longest line it hands over whole.
    static let lineChunk = 256 << 10

    /// What `forEachLine` hands over: a whole line, or a piece of a line longer than `lineChunk`.
    enum LinePiece { case line, part, lastPart }

    /// Calls `body` with each line of `fd` from `start` (its start by default) to `end` (its
    /// end by default), without the newline, reading a chunk at a time. A line longer than
    /// `lineChunk` comes in pieces, so memory stays bounded whatever the file holds.
    static func forEachLine(_ fd: Int32, from start: Int = 0, to end: Int? = nil, _ body: (ArraySlice<UInt8>, LinePiece) -> Void) {
        var chunk = [UInt8](repeating: 0, count: lineChunk)
        var carry: [UInt8] = []
        var offset = off_t(start)
        var inLongLine = false
        while true {
            let want = end.map { min(lineChunk, max(0, $0 - Int(offset))) } ?? lineChunk
            guard want > 0 else { break }
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            offset += off_t(n)
            var start = 0
            let bytes = chunk[0..<n]
            while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                if carry.isEmpty {
                    body(bytes[start..<newline], inLongLine ? .lastPart : .line)
                } else {
                    carry.append(contentsOf: bytes[start..<newline])
                    body(carry[...], inLongLine ? .lastPart : .line)
                    carry.removeAll(keepingCapacity: true)
                }
                inLongLine = false
                start = newline + 1
            }
            carry.append(contentsOf: bytes[start...])
            if carry.count >= lineChunk {
                body(carry[...], .part)
                carry.removeAll(keepingCapacity: true)
                inLongLine = true
            }
        }
        if !carry.isEmpty { body(carry[...], inLongLine ? .lastPart : .line) }
    }

    /// Whether `path` exists (itself, or with `followLinks` what it points to).
    public static func exists(_ path: String, followLinks: Bool = false) -> Bool {
        var st = stat()
        return (followLinks ? stat(path, &st) : lstat(path, &st)) == 0
    }

    public static func remove(_ path: String) { unlink(path) }
}

/// The directory part of `path` ("" for a bare name, "/" for a top-level entry).
public func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
}

extension FileSystem {
    /// Writes `data` to `tmpPath` unsynced and returns its inode; `linkStaged` then links it into
    /// place. A link makes IN_CREATE, not IN_MOVED_TO: heraldd's watch on `jobs/` is not woken
    /// once per job by its own batch filing (100,000 events overflow inotify's queue). Two steps,
    /// so that the document's pack record can go in between (see `JobDocPack`).
    public static func writeStaged(_ data: [UInt8], tmpPath: String) throws(FileSystemError) -> UInt64 {
        unlink(tmpPath)
        guard let file = Descriptor.open(tmpPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW) else { throw fail("create", tmpPath) }
        var st = stat()
        guard file.writeAll(data), fstat(file.raw, &st) == 0 else { let e = fail("write", tmpPath); unlink(tmpPath); throw e }
        return UInt64(st.st_ino)
    }

    /// Links a staged file into place as `finalPath`, then removes `tmpPath`. An existing
    /// `finalPath` is left as it is (it holds the same job state).
    public static func linkStaged(_ tmpPath: String, finalPath: String) throws(FileSystemError) {
        defer { unlink(tmpPath) }
        guard link(tmpPath, finalPath) == 0 || errno == EEXIST else { throw fail("link into place", finalPath) }
    }

    /// Flushes written data to disk, then the directory holding `path` (sync(2) + fsync):
    /// one flush for many files written unsynced (`writeStaged`).
    public static func syncFileSystem(of path: String) {
        sync()
        if let folder = Descriptor.open(path, O_RDONLY | O_DIRECTORY) { _ = fsync(folder.raw) }
    }
}
