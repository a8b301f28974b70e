#if canImport(Glibc)
import Glibc
#endif

/// `heraldd.lock` in the spool: the running daemon holds an exclusive `flock` on it and
/// writes its pid there, so two daemons never share a spool and the CLI can tell whether
/// one is running. The kernel drops the lock when the process dies, even by SIGKILL.
public final class SpoolLock: Sendable {
    private let fd: Descriptor

    private init(fd: Descriptor) { self.fd = fd }

    /// Lets go of the spool now: a heraldd whose process cannot end at once (a thread waiting on
    /// a hung mount keeps the kernel from reaping it) must not keep the next one from starting.
    public func release() {
        flock(fd.raw, LOCK_UN)
        fd.close()
    }

    /// Takes the lock for this process, or says which process holds it.
    public static func acquire(_ spool: Spool) -> Result<SpoolLock, SpoolLockError> {
        guard let fd = Descriptor.open(spool.lockPath, O_RDWR | O_CREAT | O_NOFOLLOW) else {
            return .failure(.cannotOpen(String(cString: strerror(errno))))
        }
        guard flock(fd.raw, LOCK_EX | LOCK_NB) == 0 else { return .failure(.held(pid: readPID(fd.raw))) }
        _ = ftruncate(fd.raw, 0)
        let text = Array("\(getpid())\n".utf8)
        _ = text.withUnsafeBytes { pwrite(fd.raw, $0.baseAddress!, $0.count, 0) }
        return .success(SpoolLock(fd: fd))
    }

    /// The pid of the daemon running on `spool`, or nil when none is.
    public static func runningDaemon(_ spool: Spool) -> Int32? {
        guard let fd = Descriptor.open(spool.lockPath, O_RDONLY | O_NOFOLLOW) else { return nil }
        if flock(fd.raw, LOCK_SH | LOCK_NB) == 0 {
            flock(fd.raw, LOCK_UN)
            return nil
        }
        return readPID(fd.raw) ?? 0
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buf = [UInt8](repeating: 0, count: 32)
        let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, 0) }
        guard n > 0 else { return nil }
        return Int32(String(decoding: buf[0..<n], as: UTF8.self).trimmingSpaces)
    }

    deinit { release() }
}

public enum SpoolLockError: Error, Equatable, CustomStringConvertible {
    case held(pid: Int32?)
    case cannotOpen(String)

    public var description: String {
        switch self {
        case .held(let pid): return "another heraldd is already running on this spool" + (pid.map { " (pid \($0))" } ?? "")
        case .cannotOpen(let why): return "cannot open the spool lock: \(why)"
        }
    }
}
