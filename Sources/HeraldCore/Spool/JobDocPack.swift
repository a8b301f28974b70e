#if canImport(Glibc)
import Glibc
#endif

/// `index/docs.pack`: a copy of every pending job's document in one file, so `herald list`
/// reads one file instead of one per job (100,000 opens cost about a second on the machine
/// in BENCHMARKS.md). It is derived data; the spool stays the truth.
///
/// Each record holds a job id, the inode of the job file it was read from, and the document.
/// A job file's document never changes (a replacement is a new file, so a new inode), so a
/// record is good for the file in `jobs/` with that id and inode. Every writer appends a
/// file's record *before* the file appears in `jobs/`, and a reader takes the last record of
/// an (id, inode): an inode freed and reused for a later document of the same id has its own,
/// later record. A record missing (the pack deleted, a torn tail) only means that job's file
/// is read instead; heraldd rebuilds a missing pack from `jobs/` when it starts.
public struct JobDocPack: Sendable {
    public let spool: Spool

    public init(spool: Spool) { self.spool = spool }

    public var directory: String { spool.root + "/index" }
    public var path: String { directory + "/docs.pack" }
    /// Appenders hold it shared, a rewrite exclusive (only while it swaps the file).
    var lockPath: String { directory + "/docs.lock" }

    public struct Record: Sendable {
        public var id: String
        public var inode: UInt64
        public var document: [UInt8]
        public init(id: String, inode: UInt64, document: [UInt8]) {
            self.id = id; self.inode = inode; self.document = document
        }
    }

    public struct Key: Hashable, Sendable {
        public var id: String
        public var inode: UInt64
        public init(id: String, inode: UInt64) { self.id = id; self.inode = inode }
    }

    static let magic: UInt32 = 0x4B50_4448  // "HDPK" little-endian
    static let headerSize = 24

    // MARK: writing

    /// Appends records in one write(2), under the shared lock. Failures are ignored: a missing
    /// record only makes `herald list` read that job's file.
    public func append(_ records: [Record]) {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.reduce(0) { $0 + Self.headerSize + $1.id.utf8.count + $1.document.count })
        for r in records { Self.encode(r, into: &bytes) }
        withLock(LOCK_SH) {
            Descriptor.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW)?.writeAll(bytes)
        }
    }

    static func encode(_ r: Record, into bytes: inout [UInt8]) {
        let id = Array(r.id.utf8)
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
        func put64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
        put32(magic)
        put32(UInt32(id.count))
        put32(UInt32(r.document.count))
        put64(r.inode)
        put32(checksum(id, r.document, r.inode))
        bytes.append(contentsOf: id)
        bytes.append(contentsOf: r.document)
    }

    static func checksum(_ id: some Collection<UInt8>, _ doc: some Collection<UInt8>, _ inode: UInt64) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for b in id { h = (h ^ UInt32(b)) &* 16_777_619 }
        for b in doc { h = (h ^ UInt32(b)) &* 16_777_619 }
        var i = inode
        for _ in 0..<8 { h = (h ^ UInt32(i & 0xFF)) &* 16_777_619; i >>= 8 }
        return h
    }

    // MARK: reading

    /// The pack's contents: each (id, inode)'s last document. Nil when there is no pack.
    public func read() -> Contents? {
        guard let bytes = try? FileSystem.read(path, limit: Int(Int32.max)) else { return nil }
        return Contents(bytes: bytes)
    }

    public struct Contents: Sendable {
        public let bytes: [UInt8]
        var ranges: [Key: Range<Int>] = [:]
        /// Where the last whole record ends (a torn record after it is ignored).
        public private(set) var validEnd = 0
        public private(set) var recordCount = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            JobDocPack.walk(bytes) { id, inode, doc, end in
                ranges[Key(id: String(decoding: id, as: UTF8.self), inode: inode)] = doc
                validEnd = end
                recordCount += 1
            }
        }

        public var count: Int { ranges.count }

        public func document(id: String, inode: UInt64) -> ArraySlice<UInt8>? {
            ranges[Key(id: id, inode: inode)].map { bytes[$0] }
        }
    }

    /// Calls `body` with each whole record (id bytes, inode, document range, end offset); stops
    /// at the first one that is torn or damaged.
    static func walk(_ bytes: [UInt8], from start: Int = 0,
                     _ body: (ArraySlice<UInt8>, UInt64, Range<Int>, Int) -> Void) {
        var at = start
        while let r = record(in: bytes, at: at) {
            body(bytes[r.id], r.inode, r.doc, r.doc.upperBound)
            at = r.doc.upperBound
        }
    }

    /// The record at `at` in `bytes` (its id's and document's ranges and its inode), checked
    /// whole: magic, lengths within bounds and within `bytes`, checksum. Nil when torn or damaged.
    static func record(in bytes: [UInt8], at: Int) -> (id: Range<Int>, inode: UInt64, doc: Range<Int>)? {
        guard at >= 0, at + headerSize <= bytes.count else { return nil }
        let (magic, idLength, docLength, inode, sum) = bytes.withUnsafeBytes { raw in
            (UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)),
             Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))),
             Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self))),
             UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 12, as: UInt64.self)),
             UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 20, as: UInt32.self)))
        }
        let idStart = at + headerSize, docStart = idStart + idLength, end = docStart + docLength
        guard magic == Self.magic, idLength <= 255, docLength <= Job.maximumFileSize, end <= bytes.count else { return nil }
        guard checksum(bytes[idStart..<docStart], bytes[docStart..<end], inode) == sum else { return nil }
        return (idStart..<docStart, inode, docStart..<end)
    }

    // MARK: rebuilding (heraldd)

    /// Whether the pack should be rewritten: missing, or mostly records of jobs that have gone.
    public func needsRewrite(pendingJobs: Int) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0 else { return true }
        return Int(st.st_size) > 4096 + 2 * pendingJobs * 512
    }

    /// Rewrites the pack to hold exactly one record per job in `jobs/`: records of jobs that
    /// have gone are dropped, jobs without one are read from their files. Appends made while it
    /// works are carried over (the exclusive lock is held only to copy those and swap the file).
    /// The old pack is read a chunk at a time, twice (where each live job's last record is,
    /// then those records), never whole: with 100,000 pending jobs and a pack grown stale it
    /// is over 100 MB, and heraldd does this at start.
    ///
    /// - Returns: how many records the new pack holds, and how many job files were read.
    @discardableResult
    public func rewrite() -> (records: Int, read: Int)? {
        FileSystem.makeDirectoryQuietly(directory)
        // Each pending job's key, and where its last record in the old pack starts (-1: none).
        var last: [Key: Int] = [:]
        do {
            guard let listing = try? FileSystem.listWithInodes(spool.jobs) else { return nil }
            last.reserveCapacity(listing.count)
            for entry in listing {
                if let name = JobFileName(parsing: entry.name) { last[Key(id: name.id, inode: entry.inode)] = -1 }
            }
        }
        let old = Descriptor.open(path, O_RDONLY | O_NOFOLLOW)
        var oldEnd = 0
        if let old {
            oldEnd = Self.walk(old, from: 0) { id, inode, _, offset in
                let key = Key(id: String(decoding: id, as: UTF8.self), inode: inode)
                if last[key] != nil { last[key] = offset }
            }
        }
        // Written as it goes (a megabyte at a time), not built whole: with a million jobs the
        // pack is over 100 MB.
        // Not fsynced: the pack is a cache of the job files (a lost one costs a read of each).
        guard let out = try? AtomicReplace.stage(path, options: .init(mode: 0o600, sync: false)) else { return nil }
        var buffer: [UInt8] = []
        var ok = true
        func flush(_ force: Bool) {
            guard force || buffer.count >= 1 << 20 else { return }
            ok = ok && (try? out.write(buffer)) != nil
            buffer.removeAll(keepingCapacity: true)
        }
        var kept = 0
        if let old {
            _ = Self.walk(old, from: 0, upTo: oldEnd) { id, inode, record, offset in
                guard let at = last[Key(id: String(decoding: id, as: UTF8.self), inode: inode)], at == offset else { return }
                buffer.append(contentsOf: record)
                kept += 1
                flush(false)
            }
        }
        // Jobs without a record: read while open, as an appender would (jobs/ is listed again
        // rather than every name kept meanwhile).
        var readCount = 0
        for entry in (try? FileSystem.listWithInodes(spool.jobs)) ?? [] {
            guard let name = JobFileName(parsing: entry.name), last[Key(id: name.id, inode: entry.inode)] == -1 else { continue }
            guard case .success(let file) = TrustedFile.open(spool.jobs + "/" + entry.name, rules: .jobFile),
                  case .success(let doc) = file.readAll() else { continue }
            Self.encode(Record(id: name.id, inode: UInt64(file.status.st_ino), document: doc), into: &buffer)
            readCount += 1
            flush(false)
        }
        last = [:]
        let locked = withLock(LOCK_EX) {
            // What was appended since the old pack was read comes after, in order.
            if let now = Descriptor.open(path, O_RDONLY | O_NOFOLLOW) {
                _ = Self.walk(now, from: oldEnd) { _, _, record, _ in
                    buffer.append(contentsOf: record)
                    flush(false)
                }
            }
            flush(true)
            ok = ok && (try? out.commit()) == .replaced
        }
        if !locked { out.discard(); return nil }
        return ok ? (kept + readCount, readCount) : nil
    }

    /// Calls `body` with each whole record of the pack open as `fd` from offset `start` (up to
    /// `end`, or the end of the file), read a megabyte at a time: its id bytes, inode, whole
    /// bytes (header and all) and offset. Stops at the first record that is torn or damaged.
    ///
    /// - Returns: the offset after the last whole record.
    static func walk(_ file: Descriptor, from start: Int, upTo end: Int = .max,
                     _ body: (ArraySlice<UInt8>, UInt64, ArraySlice<UInt8>, Int) -> Void) -> Int {
        let chunk = 1 << 20
        var window: [UInt8] = []   // the file's bytes from `base` on
        var base = start
        var at = 0                 // the next record's place in `window`
        var atEnd = false
        while true {
            // A record is whole in the window, or more is read (the largest is under 65 KiB).
            if window.count - at < headerSize + 255 + Job.maximumFileSize && !atEnd {
                window.removeFirst(at)
                base += at
                at = 0
                let want = min(chunk, end - base - window.count)
                if want <= 0 {
                    atEnd = true
                } else {
                    let old = window.count
                    window.append(contentsOf: repeatElement(0, count: want))
                    let n = window.withUnsafeMutableBytes { pread(file.raw, $0.baseAddress! + old, want, off_t(base + old)) }
                    if n < 0 && errno == EINTR { window.removeLast(want); continue }
                    window.removeLast(want - max(n, 0))
                    if n <= 0 { atEnd = true }
                }
            }
            let consumed: Int? = record(in: window, at: at).map { r in
                body(window[r.id], r.inode, window[at..<r.doc.upperBound], base + at)
                return r.doc.upperBound - at
            }
            if let consumed {
                at += consumed
            } else if atEnd || window.count - at >= headerSize + 255 + Job.maximumFileSize {
                return base + at  // torn or damaged (or the end)
            }
        }
    }

    // MARK: lock

    /// Runs `body` holding the lock; false (and `body` not run) when it cannot be taken.
    @discardableResult
    private func withLock(_ operation: Int32, _ body: () -> Void) -> Bool {
        FileSystem.makeDirectoryQuietly(directory)
        guard let lock = Descriptor.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW) else { return false }
        while flock(lock.raw, operation) != 0 { if errno != EINTR { return false } }
        body()
        lock.close()  // the lock is let go here, after body, not whenever the object goes
        return true
    }
}

extension FileSystem {
    /// The names in a directory with their inode numbers (from the listing itself, no stat).
    public static func listWithInodes(_ path: String) throws(FileSystemError) -> [(name: String, inode: UInt64)] {
        guard let dir = opendir(path) else { throw fail("list", path) }
        defer { closedir(dir) }
        var entries: [(name: String, inode: UInt64)] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { entries.append((name, UInt64(entry.pointee.d_ino))) }
        }
        return entries
    }

    /// `mkdir(path, 0700)`, ignoring failure (the caller's next open reports it).
    static func makeDirectoryQuietly(_ path: String) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { return }
    }
}
