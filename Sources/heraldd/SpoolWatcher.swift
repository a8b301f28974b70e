import Dispatch
import Foundation
import HeraldCore

/// Watches the spool with inotify: files arriving in `new/` and files leaving or arriving in
/// `jobs/`. Events are read on `queue` when the kernel has them: no polling.
final class SpoolWatcher {
    struct Changes {
        var intake: [String] = []
        var jobsRemoved: [String] = []
        var jobsAdded: [String] = []
        /// The kernel dropped events: the caller must rescan.
        var overflowed = false
    }

    private let fd: Int32
    private let newWatch: Int32
    private let jobsWatch: Int32
    private let source: DispatchSourceRead

    /// - Throws: `FileSystemError` when inotify cannot be set up.
    init(spool: Spool, queue: DispatchQueue, handler: @escaping (Changes) -> Void) throws {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw FileSystemError(operation: "start inotify on", path: spool.root, code: errno) }
        newWatch = inotify_add_watch(fd, spool.new, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE))
        jobsWatch = inotify_add_watch(fd, spool.jobs, UInt32(IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE))
        guard newWatch >= 0, jobsWatch >= 0 else {
            let e = FileSystemError(operation: "watch", path: spool.root, code: errno)
            close(fd)
            throw e
        }
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let fd = self.fd, newWatch = self.newWatch, jobsWatch = self.jobsWatch
        source.setEventHandler {
            handler(Self.drain(fd: fd, newWatch: newWatch, jobsWatch: jobsWatch))
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    func cancel() { source.cancel() }

    private static func drain(fd: Int32, newWatch: Int32, jobsWatch: Int32) -> Changes {
        var changes = Changes()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n <= 0 { break }
            var offset = 0
            while offset + 16 <= n {
                let (wd, mask, len) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                    (raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + len)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset += 16 + len
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { changes.overflowed = true; continue }
                if name.isEmpty { continue }
                if wd == newWatch {
                    changes.intake.append(name)
                } else if wd == jobsWatch {
                    if mask & UInt32(IN_MOVED_FROM | IN_DELETE) != 0 { changes.jobsRemoved.append(name) }
                    if mask & UInt32(IN_MOVED_TO) != 0 { changes.jobsAdded.append(name) }
                }
            }
        }
        return changes
    }
}
