#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SystemPackage

extension CalendarWriteBack {
    /// `apply(to:localZone:zones:newUID:)` with the system's zone database.
    public func apply(to bytes: [UInt8], localZone: TimeZoneRules, newUID: () -> String) throws(Failure) -> (lines: [String], crlf: Bool)? {
        try apply(to: bytes, localZone: localZone, zones: ZoneFiles.lookup, newUID: newUID)
    }

    /// How often a write-back starts over when a sync changed the file while it was written.
    public static let attempts = 5

    /// Reads the file, applies the change and puts the result in place atomically (a hidden
    /// temporary file beside it, fsynced, renamed over it, keeping its mode). Returns false
    /// when there was nothing to change. The file itself is never a symlink that is followed,
    /// and the temporary file is new (O_EXCL, a random name) and given its mode on the descriptor.
    ///
    /// A file changed meanwhile (a sync run, an editor) wins: the change is applied again to
    /// what it holds now, up to `attempts` times. `beforeRename` lets a test change it then.
    public func perform(localZone: TimeZoneRules, beforeRename: () -> Void = {}) throws(Failure) -> Bool {
        for _ in 0..<Self.attempts {
            if let written = try attempt(localZone: localZone, beforeRename: beforeRename) { return written }
        }
        throw Failure(description: "'\(file)' kept changing while Herald wrote to it (\(Self.attempts) tries); not written")
    }

    /// One read, change and rename; nil when the file changed before the rename (nothing written).
    private func attempt(localZone: TimeZoneRules, beforeRename: () -> Void) throws(Failure) -> Bool? {
        var st = stat()
        guard lstat(file, &st) == 0 else { throw Failure(description: "cannot read '\(file)': \(String(cString: strerror(errno)))") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "'\(file)' is not a regular file; not written") }
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(file, limit: CalendarFiles.maximumFileSize, followLinks: false) } catch {
            throw Failure(description: error.description)
        }
        var rng = SystemRandomNumberGenerator()
        guard let (lines, crlf) = try apply(to: bytes, localZone: localZone, zones: ZoneFiles.lookup, newUID: { "herald-" + JobID.random(using: &rng) }) else { return false }
        let end = crlf ? "\r\n" : "\n"
        let text = lines.joined(separator: end) + end
        let dir = parentDirectory(of: file)
        let base = file.split(separator: "/").last.map(String.init) ?? "item.ics"
        let tmp = (dir.isEmpty ? "." : dir) + "/.herald-" + base + "." + JobID.random(using: &rng) + ".tmp"
        do {
            try FileSystem.writeFile(Array(text.utf8), at: tmp, options: [.exclusiveCreate, .noFollow], sync: true,
                                     mode: st.st_mode & 0o777)
        } catch { throw Failure(description: error.description) }
        beforeRename()
        // Changed since it was read (a sync run, an editor): it wins; the caller applies the change again.
        var now = stat()
        guard stat(file, &now) == 0, now.st_ino == st.st_ino, now.st_size == st.st_size, now.st_mtim.tv_sec == st.st_mtim.tv_sec,
              now.st_mtim.tv_nsec == st.st_mtim.tv_nsec else {
            unlink(tmp)
            return nil
        }
        guard rename(tmp, file) == 0 else {
            let message = String(cString: strerror(errno))
            unlink(tmp)
            throw Failure(description: "cannot replace '\(file)': \(message)")
        }
        return true
    }
}
