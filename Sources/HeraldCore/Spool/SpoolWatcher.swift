import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// Watches the spool with inotify: files arriving in `new/` and files leaving or arriving in
/// `jobs/`. A thread of its own sleeps in poll(2) until the kernel has events and reads them (no
/// polling on a timer); the handler gets them on `queue`, each directory's in the kernel's order.
///
/// heraldd's own renames in `jobs/` come back as events too, one per popup of a burst. Read as
/// they came, each cost two wake-ups: a change in `jobs/` that follows the last reading within
/// `ReadingPace.span` is read once that span is over, with everything else that came meanwhile
/// (BENCHMARKS.md, "Issue 41: heraldd's own renames"). Meanwhile the thread does not wait on
/// `jobs/`'s events, so they wake no one; a libdispatch read source cannot do this (suspended, its
/// event thread is still woken by each event). `new/` and the spool's own directory have an
/// inotify instance of their own, always waited on: a job dropped into `new/` is read at once.
public final class SpoolWatcher: @unchecked Sendable {
    public struct Changes: Sendable {
        public var intake: [String] = []
        /// In the order the kernel reported them.
        public var jobs: [JobsChange] = []
        /// The kernel dropped events: the caller must rescan.
        public var overflowed = false
        /// `quiet.json` (`herald quiet`) was written or removed.
        public var quietChanged = false

        public var isEmpty: Bool { intake.isEmpty && jobs.isEmpty && !overflowed && !quietChanged }
        var count: Int { intake.count + jobs.count }

        mutating func append(_ more: Changes) {
            intake += more.intake
            jobs += more.jobs
            overflowed = overflowed || more.overflowed
            quietChanged = quietChanged || more.quietChanged
        }
    }

    /// What the thread and `queue` share.
    private struct Shared {
        /// Read from the kernel, not yet handed to the handler.
        var pending = Changes()
        var handOverQueued = false
        var cancelled = false
        var readings = 0
    }

    /// `new/` and the spool's directory (`quiet.json`): read as soon as they change.
    private let intake: Descriptor
    /// `jobs/`: read at the pace.
    private let jobs: Descriptor
    /// Written once by `cancel`: the thread's wait ends.
    private let stopSignal: (read: Descriptor, write: Descriptor)
    private let newWatch: Int32
    private let jobsWatch: Int32
    private let rootWatch: Int32
    private let spool: Spool
    private let queue: DispatchQueue
    private let handler: (Changes) -> Void
    private let span: UInt64
    /// Monotonic nanoseconds, for the pace.
    private let clock: @Sendable () -> UInt64
    private let shared = Mutex(Shared())
    /// One buffer for the watcher's life, never zero-filled: the kernel writes what it reads.
    /// Used under `shared`'s lock (which is held over its reading, and the renames of unsafe
    /// names in `new/` and the checks of names moved out of `jobs/` that come with it).
    private let buffer: UnsafeMutableRawBufferPointer
    /// Changes read and not yet handed over beyond this are dropped for a rescan, as the kernel
    /// does with its own queue (its default `max_queued_events`): memory stays bounded however
    /// long the scheduler's queue is busy.
    static let pendingLimit = 16_384

    /// - Parameters:
    ///   - pace: nanoseconds between readings in a run of changes (`ReadingPace`); 0 reads each at once.
    ///   - clock: monotonic nanoseconds (the caller's clock: HeraldCore reads none of its own).
    /// - Throws: `FileSystemError` when inotify or its thread cannot be set up.
    public init(spool: Spool, queue: DispatchQueue, pace: UInt64 = ReadingPace.span, clock: @escaping @Sendable () -> UInt64,
                handler: @escaping (Changes) -> Void) throws {
        guard let intake = Descriptor(inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))),
              let jobs = Descriptor(inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))) else {
            throw FileSystemError(operation: "start inotify on", path: spool.root, code: errno)
        }
        guard let stopSignal = Descriptor.pipe() else {
            throw FileSystemError(operation: "start watching", path: spool.root, code: errno)
        }
        self.intake = intake
        self.jobs = jobs
        self.stopSignal = stopSignal
        self.spool = spool
        self.queue = queue
        self.handler = handler
        self.span = pace
        self.clock = clock
        // IN_CREATE too: a symlink, directory, FIFO, socket or hard link made in new/ has no
        // other event (a file still open for writing is left for its IN_CLOSE_WRITE).
        newWatch = inotify_add_watch(intake.raw, spool.new, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE))
        jobsWatch = inotify_add_watch(jobs.raw, spool.jobs, UInt32(IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE))
        // The spool's own directory, for quiet.json (status.json's writes there come too, and are ignored).
        rootWatch = inotify_add_watch(intake.raw, spool.root, UInt32(IN_MOVED_TO | IN_DELETE))
        guard newWatch >= 0, jobsWatch >= 0, rootWatch >= 0 else {
            throw FileSystemError(operation: "watch", path: spool.root, code: errno)
        }
        // Allocated last: an init that throws earlier has no deinit to free it.
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SpoolWatcher.bufferSize, alignment: 8)
        // The thread holds the watcher until `cancel` ends it.
        guard DetachedThread.start(name: "herald.watch", { [self] in waitAndRead() }) else {
            throw FileSystemError(operation: "start a thread to watch", path: spool.root, code: EAGAIN)
        }
    }

    deinit { buffer.deallocate() }

    /// Ends the thread; no change is handed over after this. On `queue` only.
    public func cancel() {
        let first = shared.withLock { state -> Bool in
            defer { state.cancelled = true }
            return !state.cancelled
        }
        if first { _ = Descriptor.writeAll(to: stopSignal.write.raw, [1]) }
    }

    /// Handles the events the kernel has queued now, without waiting for the thread (before
    /// heraldd answers a question about the spool). On `queue` only.
    public func handleQueuedEvents() {
        let changes = shared.withLock { state -> Changes in
            readKernelEvents(into: &state)
            defer { state.pending = Changes() }
            return state.pending
        }
        if !changes.isEmpty { handler(changes) }
    }

    /// Times the thread read the kernel's events (not `handleQueuedEvents`).
    public var readings: Int { shared.withLock { $0.readings } }

    /// Signalled when the thread has ended (tests wait for it).
    let threadEnded = DispatchSemaphore(value: 0)
    /// Signalled each time what waits to be handed over becomes a rescan (tests wait for it).
    let pendingDropped = DispatchSemaphore(value: 0)

    /// The thread: waits for events, reads them, hands them to `queue`; within a span of the
    /// last reading, first waits that span out (or until `new/` or the spool's directory changes).
    private func waitAndRead() {
        defer { threadEnded.signal() }
        var pace = ReadingPace(span: span)
        while true {
            guard wait(for: [intake, jobs], milliseconds: -1) != .stopped else { return }
            let handOver = shared.withLock { state -> Bool in
                guard !state.cancelled else { return false }
                readKernelEvents(into: &state)
                state.readings += 1
                guard !state.pending.isEmpty, !state.handOverQueued else { return false }
                state.handOverQueued = true
                return true
            }
            if handOver { queue.async { [self] in handOverPending() } }
            if pace.read(at: clock()) {
                let milliseconds = pace.span / 1_000_000 + (pace.span % 1_000_000 == 0 ? 0 : 1)
                switch wait(for: [intake], milliseconds: Int32(clamping: milliseconds)) {
                case .stopped: return
                case .events: continue  // read now; the span starts again from that reading
                case .timedOut: pace.resumed(at: clock())
                }
            }
        }
    }

    private enum Woken { case stopped, events, timedOut }

    /// Waits until one of `watched` has events, `cancel` is called, or `milliseconds` pass (-1:
    /// no limit).
    private func wait(for watched: [Descriptor], milliseconds: Int32) -> Woken {
        var fds = [pollfd(fd: stopSignal.read.raw, events: Int16(POLLIN), revents: 0)]
            + watched.map { pollfd(fd: $0.raw, events: Int16(POLLIN), revents: 0) }
        while true {
            let n = poll(&fds, nfds_t(fds.count), milliseconds)
            if n < 0 {
                if errno != EINTR { usleep(10_000) }  // ENOMEM: try again without spinning
                continue
            }
            if fds[0].revents != 0 { return .stopped }
            // An instance in error would be ready again at once: not a loop that spins.
            if fds.dropFirst().contains(where: { $0.revents & Int16(POLLERR | POLLNVAL) != 0 }) { usleep(10_000) }
            return n == 0 ? .timedOut : .events
        }
    }

    /// On `queue`: what the thread read, to the handler.
    private func handOverPending() {
        let changes = shared.withLock { state -> Changes in
            state.handOverQueued = false
            guard !state.cancelled else { return Changes() }
            defer { state.pending = Changes() }
            return state.pending
        }
        if !changes.isEmpty { handler(changes) }
    }

    /// Reads every event the kernel has now into `state.pending` (under the lock).
    private func readKernelEvents(into state: inout Shared) {
        guard !state.cancelled else { return }
        // Watch descriptors are numbered per instance: each is read knowing only its own.
        state.pending.append(Self.drain(fd: intake.raw, newWatch: newWatch, jobsWatch: -1, rootWatch: rootWatch,
                                        buffer: buffer, spool: spool))
        state.pending.append(Self.drain(fd: jobs.raw, newWatch: -1, jobsWatch: jobsWatch, rootWatch: -1,
                                        buffer: buffer, spool: spool))
        if state.pending.count > Self.pendingLimit {
            let quiet = state.pending.quietChanged
            state.pending = Changes(overflowed: true, quietChanged: quiet)
            pendingDropped.signal()
        }
    }

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

/// When the spool watcher reads the kernel's events: a change after a quiet spell at once; one
/// that comes within `span` of the last reading (a run of heraldd's own renames, one per popup
/// of a burst) once that span is over. A change from someone else is seen at most `span` late.
public struct ReadingPace: Sendable {
    /// 10 ms: a burst of 1,000 popups (about 300 ms here) is read about 30 times, not 1,000.
    public static let span: UInt64 = 10_000_000
    /// Nanoseconds; 0 never waits.
    public let span: UInt64
    /// When the last reading was, or the last wait ended (monotonic ns).
    private var last: UInt64?

    public init(span: UInt64) { self.span = span }

    /// A reading at `now`: whether the source should wait a span before the next one.
    public mutating func read(at now: UInt64) -> Bool {
        defer { last = now }
        guard let last, span > 0 else { return false }
        return now &- last < span
    }

    /// The wait is over at `now`: the reading it lets through (the run's next part) counts as
    /// within the span, so a run that goes on waits again.
    public mutating func resumed(at now: UInt64) { last = now }
}
