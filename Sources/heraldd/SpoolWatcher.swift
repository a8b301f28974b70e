import Dispatch
import Glibc
import HeraldCore

/// Watches the spool with inotify: files arriving in `new/` and files leaving or arriving in
/// `jobs/`. Events are read on `queue` when the kernel has them: no polling.
final class SpoolWatcher {
    struct Changes {
        var intake: [String] = []
        /// In the order the kernel reported them.
        var jobs: [JobsChange] = []
        /// The kernel dropped events: the caller must rescan.
        var overflowed = false
        /// `quiet.json` (`herald quiet`) was written or removed.
        var quietChanged = false

        var isEmpty: Bool { intake.isEmpty && jobs.isEmpty && !overflowed && !quietChanged }
    }

    private let inotify: Descriptor
    private var fd: Int32 { inotify.raw }
    private let newWatch: Int32
    private let jobsWatch: Int32
    private let rootWatch: Int32
    private let source: DispatchSourceRead

    /// - Throws: `FileSystemError` when inotify cannot be set up.
    init(spool: Spool, queue: DispatchQueue, handler: @escaping (Changes) -> Void) throws {
        guard let inotify = Descriptor(inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))) else {
            throw FileSystemError(operation: "start inotify on", path: spool.root, code: errno)
        }
        self.inotify = inotify
        let fd = inotify.raw
        // IN_CREATE too: a symlink, directory, FIFO, socket or hard link made in new/ has no
        // other event (a file still open for writing is left for its IN_CLOSE_WRITE).
        newWatch = inotify_add_watch(fd, spool.new, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE))
        jobsWatch = inotify_add_watch(fd, spool.jobs, UInt32(IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE))
        // The spool's own directory, for quiet.json (status.json's writes there come too, and are ignored).
        rootWatch = inotify_add_watch(fd, spool.root, UInt32(IN_MOVED_TO | IN_DELETE))
        guard newWatch >= 0, jobsWatch >= 0, rootWatch >= 0 else {
            throw FileSystemError(operation: "watch", path: spool.root, code: errno)
        }
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let newWatch = self.newWatch, jobsWatch = self.jobsWatch, rootWatch = self.rootWatch
        let spool = spool
        // One buffer for the watcher's life, never zero-filled: the kernel writes what it reads.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 8)
        let handleAll = {
            // Several batches of events may be waiting; handled in one wake-up.
            var changes = Self.drain(fd: fd, newWatch: newWatch, jobsWatch: jobsWatch, rootWatch: rootWatch, buffer: buffer, spool: spool)
            while !changes.isEmpty {
                handler(changes)
                changes = Self.drain(fd: fd, newWatch: newWatch, jobsWatch: jobsWatch, rootWatch: rootWatch, buffer: buffer, spool: spool)
            }
        }
        handleQueued = handleAll
        source.setEventHandler(handler: handleAll)
        source.setCancelHandler {
            inotify.close()
            buffer.deallocate()
        }
        source.resume()
    }

    func cancel() { source.cancel() }

    /// Handles the events the kernel has queued now, without waiting for the next wake-up
    /// (before heraldd answers a question about the spool). On `queue` only.
    func handleQueuedEvents() { handleQueued() }

    private var handleQueued: () -> Void = {}

    /// Room for many events at once (each is 16 bytes and a padded name).
    private static let bufferSize = 64 * 1024

    private static func drain(fd: Int32, newWatch: Int32, jobsWatch: Int32, rootWatch: Int32, buffer: UnsafeMutableRawBufferPointer,
                              spool: Spool) -> Changes {
        var changes = Changes()
        while true {
            let n = read(fd, buffer.baseAddress!, buffer.count)
            if n <= 0 { break }
            var offset = 0
            while offset + 16 <= n {
                let wd = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let len = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = UnsafeRawBufferPointer(rebasing: buffer[(offset + 16)..<min(offset + 16 + len, n)]).prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset += 16 + len
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { changes.overflowed = true; continue }
                if name.isEmpty { continue }
                if wd == newWatch {
                    // A name that is not valid UTF-8 or has control characters is renamed; the
                    // rename comes back as an event of its own.
                    if let safe = Spool.safeName(Array(nameBytes)) { changes.intake.append(safe) } else { _ = spool.renameUnsafe(Array(nameBytes)) }
                } else if wd == rootWatch {
                    if name == Spool.quietFile { changes.quietChanged = true }
                } else if wd == jobsWatch {
                    if mask & UInt32(IN_MOVED_FROM | IN_DELETE) != 0 {
                        changes.jobs.append(.removed(name))
                        // A document swapped in place (`herald edit`, renameat2 RENAME_EXCHANGE)
                        // reports its name as moved away last: still there, it is taken in again.
                        if JobFileName(parsing: name) != nil, FileSystem.exists(spool.jobs + "/" + name) { changes.jobs.append(.added(name)) }
                    }
                    if mask & UInt32(IN_MOVED_TO) != 0 { changes.jobs.append(.added(name)) }
                }
            }
        }
        return changes
    }
}
