#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a file read from outside must be before a byte of it is read.
public struct FileRules: Sendable {
    /// The most bytes it may hold (checked on the descriptor: a device has no end).
    public var maximumSize: Int
    /// Owned by this user (spool files; calendar files Herald writes or deletes).
    public var ownedByUser = false
    /// Neither group- nor world-writable (spool files: another user could change a job).
    public var privateToUser = false

    public init(maximumSize: Int, ownedByUser: Bool = false, privateToUser: Bool = false) {
        self.maximumSize = maximumSize; self.ownedByUser = ownedByUser; self.privateToUser = privateToUser
    }
}

/// A file opened for reading after the one trust check every file from outside gets (spool
/// files, calendar items, sounds, icons): looked at with lstat first, so that a device or FIFO
/// is never opened at all; opened with O_NOFOLLOW | O_NONBLOCK (a symlink is refused, a FIFO
/// swapped in meanwhile returns at once instead of blocking for ever), then checked with fstat
/// on the descriptor that will be read (a regular file, within `FileRules`), so a name
/// swapped between two calls is caught.
/// The descriptor is this object's (`Descriptor`): it is closed when the object goes.
public final class TrustedFile {
    public let descriptor: Descriptor
    public let status: stat
    public let path: String

    private init(descriptor: Descriptor, status: stat, path: String) {
        self.descriptor = descriptor; self.status = status; self.path = path
    }

    public var size: Int { Int(status.st_size) }

    /// Opens `name` in the directory open as `directory` (nil: `name` is a path), and checks it.
    public static func open(_ name: String, in directory: Descriptor? = nil, rules: FileRules,
                            shownAs path: String? = nil) -> Result<TrustedFile, SpoolFileError> {
        var st = stat()
        if fstatat(directory?.raw ?? AT_FDCWD, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT != S_IFREG {
            return .failure(check(st, rules) ?? .notRegular)
        }
        guard let owned = Descriptor.open(name, in: directory, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else {
            switch errno {
            case ELOOP: return .failure(.symlink)
            case ENOENT: return .failure(.missing)
            case ENXIO: return .failure(.notRegular)  // a socket
            default: return .failure(.unreadable(String(cString: strerror(errno))))
            }
        }
        guard fstat(owned.raw, &st) == 0 else { return .failure(.unreadable(String(cString: strerror(errno)))) }
        if let problem = check(st, rules) { return .failure(problem) }
        return .success(TrustedFile(descriptor: owned, status: st, path: path ?? name))
    }

    /// What is wrong with a file of status `st` under `rules`, or nil.
    public static func check(_ st: stat, _ rules: FileRules) -> SpoolFileError? {
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .notRegular
        }
        if rules.ownedByUser, st.st_uid != geteuid() { return .foreignOwner(uid: st.st_uid, expected: geteuid()) }
        if rules.privateToUser, st.st_mode & 0o022 != 0 { return .writableByOthers(mode: st.st_mode & 0o7777) }
        if st.st_size > rules.maximumSize { return .tooLarge(size: Int(st.st_size), limit: rules.maximumSize) }
        return nil
    }

    /// The whole file (at most its rules' size: a file that grew since fstat is cut there).
    public func readAll() -> Result<[UInt8], SpoolFileError> {
        do {
            return .success(try FileSystem.readAll(descriptor.raw, path: path, limit: size, size: size))
        } catch {
            return .failure(.unreadable(error.reason))
        }
    }

    /// Opens, checks and reads `name` in one call.
    public static func read(_ name: String, in directory: Descriptor? = nil, rules: FileRules) -> Result<[UInt8], SpoolFileError> {
        open(name, in: directory, rules: rules).flatMap { $0.readAll() }
    }
}
