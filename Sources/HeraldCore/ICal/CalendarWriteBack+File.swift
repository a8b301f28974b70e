#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension CalendarWriteBack {
    /// `apply(to:localZone:zones:newUID:)` with the system's zone database.
    public func apply(to bytes: [UInt8], localZone: TimeZoneRules, newUID: () -> String) throws(Failure) -> (lines: [String], crlf: Bool)? {
        try apply(to: bytes, localZone: localZone, zones: ZoneFiles.lookup, newUID: newUID)
    }

    /// How often a write-back starts over when a sync changed the file while it was written.
    public static let attempts = 5

    /// Reads the file, applies the change and puts the result in place atomically
    /// (`SourceFolder.replace`: a hidden temporary file beside it, fsynced, renamed over it,
    /// keeping its mode). Returns false when there was nothing to change. The file is reached
    /// from `folder` by plain names (never through a link or `..`), and must be a regular file
    /// of this user's.
    ///
    /// A file changed meanwhile (a sync run, an editor) wins: the change is applied again to
    /// what it holds now, up to `attempts` times. `beforeRename` lets a test change it then.
    public func write(in folder: SourceFolder, localZone: TimeZoneRules, beforeRename: () -> Void = {}) throws(Failure) -> Bool {
        guard let names = folder.names(of: file) else {
            throw Failure(description: "'\(file)' is not an item file of the calendar '\(folder.source)'; not written")
        }
        for _ in 0..<Self.attempts {
            if let written = try attempt(folder, names, localZone: localZone, beforeRename: beforeRename) { return written }
        }
        throw Failure(description: "'\(file)' kept changing while Herald wrote to it (\(Self.attempts) tries); not written")
    }

    /// One read, change and rename; nil when the file changed before the rename (nothing written).
    private func attempt(_ folder: SourceFolder, _ names: [String], localZone: TimeZoneRules, beforeRename: () -> Void) throws(Failure) -> Bool? {
        guard let version = folder.version(of: names) else { throw Failure(description: "cannot read '\(file)': it is gone") }
        let bytes: [UInt8]
        switch folder.open(names, rules: SourceFolder.writable).flatMap({ $0.readAll() }) {
        case .success(let b): bytes = b
        case .failure(let problem): throw Failure(description: "'\(file)' \(problem.description); not written")
        }
        var rng = SystemRandomNumberGenerator()
        guard let (lines, crlf) = try apply(to: bytes, localZone: localZone, zones: ZoneFiles.lookup, newUID: { "herald-" + JobID.random(using: &rng) }) else { return false }
        let end = crlf ? "\r\n" : "\n"
        beforeRename()
        do {
            switch try folder.replace(names, with: Array((lines.joined(separator: end) + end).utf8), unchangedSince: version) {
            case .replaced: return true
            case .changed: return nil
            }
        } catch { throw Failure(description: error.description) }
    }
}
