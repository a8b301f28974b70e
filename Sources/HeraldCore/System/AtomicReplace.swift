#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CHeraldSys
import HeraldModel

/// The one way Herald writes a file whole: a new file under a random hidden name (O_EXCL, never
/// through a link) beside the target or in a staging folder of the same file system, given its
/// mode, written, fsynced, then renamed over the target; a reader sees the old file or the new
/// one, never a part. Every writer of a whole file goes through here (job files, status.json,
/// the calendar's item files, the spool's notes, the CLI's exports).
///
/// In two steps where something must happen between (a pack record for the staged inode, a
/// lock held only for the rename): `stage`, write through `file`, then `commit`. A staged file
/// that is never committed is removed when it goes.
public final class AtomicReplace {
    /// What the target may be when the new file takes its name.
    public enum Existing: Sendable {
        case any
        /// The name must be free (renameat2 RENAME_NOREPLACE): EEXIST otherwise.
        case mustNotExist
        /// The name must still be there (RENAME_EXCHANGE): `.changed` when it is gone.
        case mustExist
    }

    public enum Outcome: Equatable, Sendable {
        case replaced
        /// The target changed since `unchangedSince`, or was gone with `.mustExist`: nothing written.
        case changed
    }

    public struct Options: Sendable {
        /// The new file's permission bits; nil: the replaced file's (a regular file's), else 0600.
        public var mode: mode_t?
        /// fsync the file before the rename (off for many files synced at once with syncfs).
        public var sync: Bool
        /// fsync the target's folder after the rename: the rename survives a crash.
        public var syncDirectory: Bool
        public var existing: Existing
        /// A version from `version(of:in:)`: the rename happens only if the target still has it.
        public var unchangedSince: String?
        /// A folder to write in first (the spool's tmp/), so that a watcher of the target's
        /// folder never sees the temporary file; nil: beside the target.
        public var staging: String?

        public init(mode: mode_t? = nil, sync: Bool = true, syncDirectory: Bool = false, existing: Existing = .any,
                    unchangedSince: String? = nil, staging: String? = nil) {
            self.mode = mode; self.sync = sync; self.syncDirectory = syncDirectory; self.existing = existing
            self.unchangedSince = unchangedSince; self.staging = staging
        }

        /// A file of the spool's: the user's alone.
        public static func spool(staging: String? = nil, sync: Bool = true) -> Options {
            Options(mode: 0o600, sync: sync, staging: staging)
        }
    }

    /// The staged file, open for writing until `commit`.
    public let file: Descriptor
    /// Its inode (a pack record names it before it takes the target's name).
    public let inode: UInt64
    private let target: String, targetDirectory: Descriptor?, shown: String
    private let staged: String, stagedDirectory: Int32
    private let options: Options
    private var done = false

    /// Creates the staged file for `target` (a path, or a name in the folder open as `directory`;
    /// `shown` in messages).
    public static func stage(_ target: String, in directory: Descriptor? = nil, shownAs shown: String? = nil,
                             options: Options = Options()) throws(FileSystemError) -> AtomicReplace {
        let shown = shown ?? target
        let targetDirFD = directory?.raw ?? AT_FDCWD
        var old = stat()
        let exists = fstatat(targetDirFD, target, &old, AT_SYMLINK_NOFOLLOW) == 0
        if options.existing == .mustNotExist, exists { throw FileSystemError(operation: "create", path: shown, code: EEXIST) }
        let mode = options.mode ?? (exists && old.st_mode & S_IFMT == S_IFREG ? old.st_mode & 0o777 : 0o600)
        let base = target.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? target
        let folder: String
        let stagedDirFD: Int32
        if let staging = options.staging {
            folder = staging + "/"
            stagedDirFD = AT_FDCWD
        } else {
            folder = target.contains("/") ? String(target[...target.lastIndex(of: "/")!]) : ""
            stagedDirFD = targetDirFD
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            let name = folder + "." + String(base.prefix(200)) + "." + JobID.random(using: &rng) + ".tmp"
            guard let file = Descriptor(openat(stagedDirFD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)) else {
                if errno == EEXIST { continue }
                throw FileSystemError(operation: "create", path: (stagedDirFD == AT_FDCWD ? "" : shown + ": ") + name, code: errno)
            }
            var st = stat()
            // Created 0600 under the umask: a chmod (a second metadata change for the fsync to
            // write) only where the mode came out otherwise.
            guard fstat(file.raw, &st) == 0, st.st_mode & 0o7777 == mode || fchmod(file.raw, mode) == 0 else {
                let code = errno
                unlinkat(stagedDirFD, name, 0)
                throw FileSystemError(operation: "create", path: shown, code: code)
            }
            return AtomicReplace(file: file, inode: UInt64(st.st_ino), target: target, targetDirectory: directory, shown: shown,
                                 staged: name, stagedDirectory: stagedDirFD, options: options)
        }
        throw FileSystemError(operation: "create", path: shown, code: EEXIST)
    }

    private init(file: Descriptor, inode: UInt64, target: String, targetDirectory: Descriptor?, shown: String,
                 staged: String, stagedDirectory: Int32, options: Options) {
        self.file = file; self.inode = inode; self.target = target; self.targetDirectory = targetDirectory
        self.shown = shown; self.staged = staged; self.stagedDirectory = stagedDirectory; self.options = options
    }

    deinit { discard() }

    /// Removes the staged file (nothing happens to the target).
    public func discard() {
        guard !done else { return }
        done = true
        file.close()
        unlinkat(stagedDirectory, staged, 0)
    }

    /// Writes all of `bytes` to the staged file.
    public func write(_ bytes: some Collection<UInt8>) throws(FileSystemError) {
        guard file.writeAll(bytes) else {
            let e = FileSystemError(operation: "write", path: shown, code: errno)
            discard()
            throw e
        }
    }

    /// Syncs the staged file and gives it the target's name.
    @discardableResult
    public func commit() throws(FileSystemError) -> Outcome {
        guard !done else { throw FileSystemError(operation: "replace", path: shown, code: EBADF) }
        if options.sync, fsync(file.raw) != 0 {
            let e = FileSystemError(operation: "write", path: shown, code: errno)
            discard()
            throw e
        }
        file.close()
        let targetDirFD = targetDirectory?.raw ?? AT_FDCWD
        if let version = options.unchangedSince, Self.version(of: target, in: targetDirectory) != version {
            discard()
            return .changed
        }
        let flags: UInt32 = switch options.existing { case .any: 0; case .mustNotExist: 1; case .mustExist: 2 }
        guard herald_renameat2(stagedDirectory, staged, targetDirFD, target, flags) == 0 else {
            let code = errno
            discard()
            if options.existing == .mustExist && code == ENOENT { return .changed }
            throw FileSystemError(operation: "replace", path: shown, code: code)
        }
        done = true
        // With RENAME_EXCHANGE the staged name now holds the old file.
        if options.existing == .mustExist { unlinkat(stagedDirectory, staged, 0) }
        if options.syncDirectory { try Self.syncFolder(of: target, in: targetDirectory, shown: shown) }
        return .replaced
    }

    /// `stage`, `write`, `commit` in one call.
    @discardableResult
    public static func write(_ bytes: some Collection<UInt8>, to target: String, in directory: Descriptor? = nil,
                             shownAs shown: String? = nil, options: Options = Options()) throws(FileSystemError) -> Outcome {
        let staged = try stage(target, in: directory, shownAs: shown, options: options)
        try staged.write(bytes)
        return try staged.commit()
    }

    /// What `unchangedSince` compares: the file's inode, size and modification time (nil: no file).
    public static func version(of target: String, in directory: Descriptor? = nil) -> String? {
        var st = stat()
        guard fstatat(directory?.raw ?? AT_FDCWD, target, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return "\(st.st_ino):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
    }

    private static func syncFolder(of target: String, in directory: Descriptor?, shown: String) throws(FileSystemError) {
        let folder: Descriptor?
        if let slash = target.lastIndex(of: "/") {
            let path = String(target[..<slash])
            folder = Descriptor(openat(directory?.raw ?? AT_FDCWD, path.isEmpty ? "/" : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        } else if let directory {
            folder = directory
        } else {
            folder = Descriptor.open(".", O_RDONLY | O_DIRECTORY)
        }
        guard let folder, fsync(folder.raw) == 0 else { throw FileSystemError(operation: "sync directory of", path: shown, code: errno) }
    }
}
