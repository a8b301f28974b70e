/// A failed file-system call: the operation, the path and why (`strerror(errno)`, filled in by
/// HeraldCore where the call was made).
public struct FileSystemError: Error, CustomStringConvertible, Equatable, Sendable {
    public var operation: String
    public var path: String
    public var code: Int32
    public var reason: String
    /// The call failed with ENOENT: the file was not there.
    public var isNotFound: Bool
    public var description: String { "cannot \(operation) '\(path)': \(reason)" }
    public init(operation: String, path: String, code: Int32, reason: String, isNotFound: Bool) {
        self.operation = operation; self.path = path; self.code = code; self.reason = reason; self.isNotFound = isNotFound
    }
}

/// Why a file in the spool was not trusted.
public enum SpoolFileError: Error, Equatable, CustomStringConvertible {
    case symlink
    case directory
    case notRegular
    case foreignOwner(uid: UInt32, expected: UInt32)
    case writableByOthers(mode: UInt32)
    case tooLarge(size: Int, limit: Int)
    case unreadable(String)
    /// Gone before it could be read (moved or removed by another program meanwhile).
    case missing
    /// Still open for writing by the program creating it.
    case beingWritten
    case invalid(JobError)

    public var description: String {
        switch self {
        case .symlink: return "is a symbolic link"
        case .directory: return "is a directory"
        case .notRegular: return "is not a regular file"
        case .foreignOwner(let uid, let expected): return "is owned by uid \(uid), not by this user (uid \(expected))"
        case .writableByOthers(let mode): return "is writable by group or others (mode 0\(String(mode, radix: 8)))"
        case .tooLarge(let size, let limit): return "is larger than \(limit / 1024) KiB (\(size) bytes)"
        case .unreadable(let why): return "cannot be read: \(why)"
        case .missing: return "is gone"
        case .beingWritten: return "is still being written"
        case .invalid(let error): return error.description
        }
    }

    /// The reason without values quoted from the file: safe for logs above debug level.
    public var redacted: String {
        if case .invalid(let error) = self { return error.reason }
        return description
    }
}
