#if canImport(Glibc)
import Glibc
#endif

/// A popup's sound file, open for reading, checked on the descriptor it will be played from.
///
/// A job's `sound` may name any path, and jobs come from files anyone with the user's rights
/// can write. So the file must be a regular file of at most `maximumSize` bytes, and not a
/// symbolic link itself: a FIFO nobody writes would block the reader for ever, a device may
/// never end. The path is looked up once (lstat, to leave devices unopened, then open with
/// O_NOFOLLOW | O_NONBLOCK, which returns at once even for a FIFO) and the check made with
/// fstat on the descriptor, so a path swapped between the two is caught. The player then
/// reads `procPath`, which reaches this open file, never the path again.
public final class SoundFile {
    /// The largest sound file played: a few seconds of sound take well under a megabyte.
    public static let maximumSize = 16 << 20

    /// The open file (read-only, close-on-exec); closed when this is released.
    public let file: TrustedFile
    public let size: Int

    /// Opens and checks `path`; throws the reason it cannot be played.
    public init(path: String) throws(SoundFileError) {
        guard path.hasPrefix("/") else { throw SoundFileError(path: path, problem: .notAbsolute) }
        var st = stat()
        guard lstat(path, &st) == 0 else { throw SoundFileError(path: path, problem: .cannotOpen(errno)) }
        try Self.check(st, path: path)  // what it is instead, named, before the trust check
        switch TrustedFile.open(path, rules: FileRules(maximumSize: Self.maximumSize)) {
        case .success(let opened): file = opened
        case .failure(let error):
            let code = errno
            switch error {
            case .symlink: throw SoundFileError(path: path, problem: .symbolicLink)
            case .tooLarge(let size, _): throw SoundFileError(path: path, problem: .tooLarge(size))
            case .directory: throw SoundFileError(path: path, problem: .notRegular("a directory"))
            case .notRegular: throw SoundFileError(path: path, problem: .notRegular("not a file"))
            default: throw SoundFileError(path: path, problem: .cannotOpen(code == 0 ? EACCES : code))
            }
        }
        size = file.size
    }

    /// A path to this open file that opens the same file even if `path` has since changed.
    public var procPath: String { "/proc/self/fd/\(file.descriptor.raw)" }

    private static func check(_ st: stat, path: String) throws(SoundFileError) {
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            guard st.st_size <= maximumSize else { throw SoundFileError(path: path, problem: .tooLarge(Int(st.st_size))) }
        case S_IFLNK: throw SoundFileError(path: path, problem: .symbolicLink)
        case S_IFIFO: throw SoundFileError(path: path, problem: .notRegular("a FIFO"))
        case S_IFCHR, S_IFBLK: throw SoundFileError(path: path, problem: .notRegular("a device"))
        case S_IFDIR: throw SoundFileError(path: path, problem: .notRegular("a directory"))
        case S_IFSOCK: throw SoundFileError(path: path, problem: .notRegular("a socket"))
        default: throw SoundFileError(path: path, problem: .notRegular("not a file"))
        }
    }
}

/// Why a sound file is not played. `reason` leaves the path out (for logs above debug level:
/// a path may name the user); `description` has it.
public struct SoundFileError: Error, Equatable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        case notAbsolute
        case cannotOpen(Int32)
        case symbolicLink
        /// What it is instead: "a FIFO", "a device", "a directory", "a socket".
        case notRegular(String)
        case tooLarge(Int)
    }

    public var path: String
    public var problem: Problem

    public var reason: String {
        switch problem {
        case .notAbsolute: return "not an absolute path"
        case .cannotOpen(let code): return String(cString: strerror(code))
        case .symbolicLink: return "a symbolic link (name the file it points to)"
        case .notRegular(let what): return "not a regular file (\(what))"
        case .tooLarge(let size): return "\(size) bytes, more than \(SoundFile.maximumSize >> 20) MiB"
        }
    }

    public var description: String { "Cannot play sound file '\(path)': \(reason)" }
}
