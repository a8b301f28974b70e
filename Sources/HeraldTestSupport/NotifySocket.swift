import Foundation
import HeraldCore
import Synchronization

/// A datagram socket standing in for systemd's notify socket (NOTIFY_SOCKET): what heraldd
/// tells its service manager (READY=1, WATCHDOG=1, STATUS=…), each message with the moment it
/// arrived. Like systemd, it reads every message as it comes (a reader thread), so the moment
/// is the arrival's, not the moment someone looked.
public final class NotifySocket: Sendable {
    /// One datagram, and when it was read (`monotonicNanoseconds()`).
    public struct Message: Sendable {
        public var at: UInt64
        public var text: String
        /// Its `NAME=value` lines: one datagram may carry several (READY=1 with STATUS=…).
        public var lines: [Substring] { text.split(separator: "\n") }
    }

    /// The socket and what came in on it; shared with the reader thread.
    private final class Inbox: Sendable {
        let socket: Descriptor
        var fd: Int32 { socket.raw }
        let messages = Mutex<[Message]>([])
        let arrivals = DispatchSemaphore(value: 0)
        init(socket: Descriptor) { self.socket = socket }
    }

    public let path: String
    private let inbox: Inbox
    private let reading: Bool

    /// Binds `directory`/notify.sock. With `reading: false` nobody reads it, like a service
    /// manager that has stopped: the kernel's queue fills up and stays full.
    public init(directory: String, reading: Bool = true) throws(SetupError) {
        path = directory + "/notify.sock"
        guard let datagram = Descriptor(socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)) else {
            throw SetupError("cannot make a socket: \(String(cString: strerror(errno)))")
        }
        let fd = datagram.raw
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw SetupError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else { throw SetupError("cannot bind \(path): \(String(cString: strerror(errno)))") }
        inbox = Inbox(socket: datagram)
        self.reading = reading
        guard reading else { return }
        let thread = Thread { [inbox] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(inbox.fd, $0.baseAddress, $0.count, 0) }
                let at = monotonicNanoseconds()
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                let text = String(decoding: buffer[0..<n], as: UTF8.self)
                inbox.messages.withLock { $0.append(Message(at: at, text: text)) }
                inbox.arrivals.signal()
            }
            inbox.socket.close()
        }
        thread.name = "notify-socket"
        thread.start()
    }

    /// Shutting the socket down ends the reader's recv; the reader then closes it.
    deinit {
        if reading { shutdown(inbox.fd, Int32(SHUT_RDWR)) } else { inbox.socket.close() }
    }

    /// How many messages have arrived: pass it to `messages(after:)` or `wait` to look only
    /// at later ones.
    public var mark: Int { inbox.messages.withLock { $0.count } }

    /// The messages that arrived after `mark`, in order.
    public func messages(after mark: Int = 0) -> [Message] {
        inbox.messages.withLock { Array($0.dropFirst(mark)) }
    }

    /// Waits for a message after `mark` that holds the line `line` (such as READY=1); the
    /// monotonic time it arrived, or nil if `child` ended or `timeoutSeconds` passed first.
    public func wait(forLine line: String, after mark: Int, from child: Spawned, timeoutSeconds: Double) -> UInt64? {
        let deadline = monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
        while monotonicNanoseconds() < deadline {
            let found = inbox.messages.withLock { list in
                list.dropFirst(mark).first { $0.lines.contains(Substring(line)) }?.at
            }
            if let found { return found }
            if child.poll() != nil { return nil }
            _ = inbox.arrivals.wait(timeout: .now() + .milliseconds(50))
        }
        return nil
    }
}
