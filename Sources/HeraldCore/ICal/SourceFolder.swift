#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CHeraldSys

/// A calendar source's files, reached from one open directory descriptor: a vdir (a folder of
/// `.ics` files, or of collection folders holding them) or the folder of a single `.ics` file.
///
/// A calendar is written by other people and programs, and a job document names its item's
/// file by path; so every file Herald reads, rewrites or deletes for a calendar is found here,
/// by plain names walked with `openat(O_NOFOLLOW)` from the source's own directory: no `..`, no
/// symbolic link, at most one collection folder deep, and, to be written or deleted, a regular
/// file owned by this user. A path string is never trusted because of its prefix.
public final class SourceFolder {
    /// The source as configured, and the directory its descriptor holds.
    public let source: String
    public let root: String
    /// Set for a single-file source: the only name it holds.
    public let singleFile: String?
    private let directory: Descriptor

    /// Opens the source. The configured path itself may be a symbolic link (the user named it);
    /// nothing below it may.
    public init(source: String) throws(FileSystemError) {
        var path = source
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.source = path
        var st = stat()
        guard stat(path, &st) == 0 else { throw FileSystemError(operation: "read", path: path, code: errno) }
        if st.st_mode & S_IFMT == S_IFDIR {
            root = path
            singleFile = nil
        } else {
            // A single file named by the user: where a link they made points.
            var target = path
            if let real = realpath(path, nil) {
                target = String(cString: real)
                free(real)
            }
            let parent = parentDirectory(of: target)
            root = parent.isEmpty ? "." : parent
            singleFile = String(target.split(separator: "/").last ?? "")
        }
        guard let fd = Descriptor.open(root, O_RDONLY | O_DIRECTORY) else { throw FileSystemError(operation: "open", path: root, code: errno) }
        directory = fd
    }

    /// The configured source of `file` among `sources`, opened, and `file`'s names under it;
    /// nil when no source holds it as an item file (see `names(of:)`).
    public static func owning(_ file: String, among sources: [String]) -> (folder: SourceFolder, names: [String])? {
        for source in sources {
            guard let folder = try? SourceFolder(source: source), let names = folder.names(of: file) else { continue }
            return (folder, names)
        }
        return nil
    }

    /// `file` as the names walked from the source: `[item.ics]` or `[collection, item.ics]`,
    /// each a plain name (no `/`, not hidden, so never `.` or `..`), the last ending in `.ics`.
    /// Nil for anything else, however it is spelled.
    public func names(of file: String) -> [String]? {
        if let singleFile { return file == source ? [singleFile] : nil }
        guard file.hasPrefix(source + "/") else { return nil }
        let parts = file.dropFirst(source.count + 1).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count), parts.allSatisfy(Self.isPlainName), parts.last!.hasSuffix(".ics") else { return nil }
        return parts
    }

    /// A name an item file may have: not hidden, no `/`, and no control character (a newline
    /// in a name would split the crash-loop note and the set-aside list, which are lines).
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && name.utf8.count <= 255
            && !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    }

    /// The path the names stand for, for messages and job documents.
    public func path(of names: [String]) -> String {
        singleFile != nil ? source : ([source] + names).joined(separator: "/")
    }

    // MARK: walking

    /// The directory holding the last name, opened without following links.
    private func parent(of names: [String]) throws(FileSystemError) -> Descriptor {
        guard names.count == 2 else { return directory }
        guard let fd = Descriptor.open(names[0], in: directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) else {
            throw FileSystemError(operation: "open", path: path(of: names), code: errno)
        }
        return fd
    }

    private func withParent<T>(of names: [String], _ body: (Descriptor) throws(FileSystemError) -> T) throws(FileSystemError) -> T {
        try body(try parent(of: names))
    }

    // MARK: reading

    /// The item files: the `.ics` files of the folder and of its collection folders one level
    /// down (a single-file source: that file), sorted, as names; hidden and temporary names
    /// (not ending in `.ics`) are left out. Sub-folders are taken only as real folders, never
    /// through a link.
    public func list() throws(FileSystemError) -> [[String]] {
        if let singleFile { return [[singleFile]] }
        var out: [[String]] = []
        for name in try names(in: directory, path: root).sorted() where Self.isPlainName(name) {
            if name.hasSuffix(".ics") { out.append([name]); continue }
            var st = stat()
            guard fstatat(directory.raw, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFDIR,
                  let folder = Descriptor.open(name, in: directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) else { continue }
            for inner in ((try? names(in: folder, path: root + "/" + name)) ?? []).sorted() where Self.isPlainName(inner) && inner.hasSuffix(".ics") {
                out.append([name, inner])
            }
        }
        return out
    }

    /// The collection folders to watch: the source's folder and its real sub-folders (for a
    /// single file, its folder).
    public func folders() -> [String] {
        if singleFile != nil { return [root] }
        var out = [root]
        for name in ((try? names(in: directory, path: root)) ?? []).sorted() where Self.isPlainName(name) {
            var st = stat()
            if fstatat(directory.raw, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFDIR { out.append(root + "/" + name) }
        }
        return out
    }

    private func names(in folder: Descriptor, path: String) throws(FileSystemError) -> [String] {
        // fdopendir takes the descriptor it is given (closedir closes it): hand it a copy.
        guard let copy = Descriptor(dup(folder.raw)) else { throw FileSystemError(operation: "list", path: path, code: errno) }
        _ = lseek(copy.raw, 0, SEEK_SET)
        guard let dir = fdopendir(copy.raw) else { throw FileSystemError(operation: "list", path: path, code: errno) }
        _ = copy.release()
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }

    /// Opens an item file for reading, checked (`TrustedFile`): a FIFO, a device or a link is refused without blocking.
    public func open(_ names: [String], rules: FileRules) -> Result<TrustedFile, SpoolFileError> {
        do {
            return try withParent(of: names) { parent in
                TrustedFile.open(names.last!, in: parent, rules: rules, shownAs: path(of: names))
            }
        } catch {
            return .failure(error.isNotFound ? .missing : .unreadable(error.reason))
        }
    }

    /// A file's version: inode, size and modification time, as `lstat` sees it (nil: gone).
    public func version(of names: [String]) -> String? {
        try? withParent(of: names) { parent throws(FileSystemError) in AtomicReplace.version(of: names.last!, in: parent) }
    }

    func status(of names: [String]) throws(FileSystemError) -> stat {
        try withParent(of: names) { parent throws(FileSystemError) in
            var st = stat()
            guard fstatat(parent.raw, names.last!, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw FileSystemError(operation: "read", path: path(of: names), code: errno)
            }
            return st
        }
    }

    // MARK: writing

    /// What may be written or deleted: a regular file owned by this user.
    public static let writable = FileRules(maximumSize: ICalBudget.maximumFileSize, ownedByUser: true)

    /// Deletes an item file: only a regular file of this user's, never through a link.
    public func remove(_ names: [String]) throws(FileSystemError) {
        try withParent(of: names) { parent throws(FileSystemError) in
            var st = stat()
            let shown = path(of: names)
            guard fstatat(parent.raw, names.last!, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw FileSystemError(operation: "remove", path: shown, code: errno)
            }
            if let problem = TrustedFile.check(st, Self.writable) {
                throw FileSystemError(operation: "remove", path: shown, code: EPERM, reason: "it \(problem.description)", isNotFound: false)
            }
            guard unlinkat(parent.raw, names.last!, 0) == 0 else { throw FileSystemError(operation: "remove", path: shown, code: errno) }
            guard fsync(parent.raw) == 0 else { throw FileSystemError(operation: "sync directory of", path: shown, code: errno) }
        }
    }

    /// `.changed`: the file changed since `unchangedSince` (a sync run, an editor), nothing written.
    public typealias ReplaceOutcome = AtomicReplace.Outcome

    /// Writes `bytes` as the item file `names`: a new hidden file beside it (a random name,
    /// O_EXCL, never through a link), given the old file's mode (or 0600 for a new one),
    /// fsynced, renamed over it, and the folder synced. With `unchangedSince` (a version from
    /// `version(of:)`), nothing is written when the file changed meanwhile; with
    /// `create`, the name must not exist yet.
    public func replace(_ names: [String], with bytes: [UInt8], unchangedSince: String? = nil,
                        create: Bool = false) throws(FileSystemError) -> ReplaceOutcome {
        try withParent(of: names) { parent throws(FileSystemError) -> ReplaceOutcome in
            let shown = path(of: names), name = names.last!
            var old = stat()
            let exists = fstatat(parent.raw, name, &old, AT_SYMLINK_NOFOLLOW) == 0
            if create, exists { throw FileSystemError(operation: "create", path: shown, code: EEXIST) }
            if !create {
                guard exists else { throw FileSystemError(operation: "replace", path: shown, code: errno) }
                if let problem = TrustedFile.check(old, Self.writable) {
                    throw FileSystemError(operation: "replace", path: shown, code: EPERM, reason: "it \(problem.description)", isNotFound: false)
                }
            }
            return try AtomicReplace.write(bytes, to: name, in: parent, shownAs: shown,
                                           options: .init(syncDirectory: true, existing: create ? .mustNotExist : .any,
                                                          unchangedSince: unchangedSince))
        }
    }
}
