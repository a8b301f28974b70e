import CHeraldSys
import Dispatch
import Glibc
import HeraldCore

/// Reports when the wall clock is set: a step by hand or NTP, or a resume from suspend
/// (timerfd with TFD_TIMER_CANCEL_ON_SET). Event-driven: no polling.
final class ClockChangeWatcher {
    private let source: DispatchSourceRead

    /// - Throws: `FileSystemError` when the timerfd cannot be made.
    init(queue: DispatchQueue, changed: @escaping () -> Void) throws {
        guard let timer = Descriptor(herald_clock_change_fd()) else {
            throw FileSystemError(operation: "create a timerfd for", path: "CLOCK_REALTIME", code: errno)
        }
        let fd = timer.raw
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            if herald_clock_change_read(fd) == 1 {
                _ = herald_clock_change_rearm(fd)
                changed()
            }
        }
        source.setCancelHandler { timer.close() }
        source.resume()
    }

    func cancel() { source.cancel() }
}

/// Reports when the system time zone (/etc/localtime, usually a symlink that
/// `timedatectl set-timezone` replaces) changes, by watching its directory with inotify.
final class LocaltimeWatcher {
    private let source: DispatchSourceRead

    init(path: String, queue: DispatchQueue, changed: @escaping () -> Void) throws {
        let parent = parentDirectory(of: path)
        let dir = parent.isEmpty ? "." : parent
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let inotify = Descriptor(inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))) else {
            throw FileSystemError(operation: "start inotify on", path: dir, code: errno)
        }
        let fd = inotify.raw
        guard inotify_add_watch(fd, dir, UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB)) >= 0 else {
            throw FileSystemError(operation: "watch", path: dir, code: errno)
        }
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            var hit = false
            readInotifyEvents(fd) { _, _, changedName in if changedName == name { hit = true } }
            if hit { changed() }
        }
        source.setCancelHandler { inotify.close() }
        source.resume()
    }

    func cancel() { source.cancel() }
}

/// Reads every inotify event waiting on `fd` (non-blocking): its watch, mask and name.
func readInotifyEvents(_ fd: Int32, _ body: (_ watch: Int32, _ mask: UInt32, _ name: String) -> Void) {
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if n <= 0 { break }
        var offset = 0
        while offset + 16 <= n {
            let (wd, mask, len) = buffer.withUnsafeBytes {
                ($0.loadUnaligned(fromByteOffset: offset, as: Int32.self), $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                 Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
            }
            body(wd, mask, String(decoding: buffer[(offset + 16)..<min(n, offset + 16 + len)].prefix { $0 != 0 }, as: UTF8.self))
            offset += 16 + len
        }
    }
}
