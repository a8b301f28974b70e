import Glibc
import HeraldCore

/// systemd's notify protocol (sd_notify(3)): datagrams such as `READY=1` to the socket
/// named by `$NOTIFY_SOCKET`. Does nothing when the variable is unset.
struct ServiceNotifier: Sendable {
    private let socketPath: String?
    /// WATCHDOG_USEC, when systemd expects pings from this process.
    let watchdogInterval: UInt64?

    init(environment: Environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        watchdogInterval = forUs ? environment["WATCHDOG_USEC"].flatMap(UInt64.init).flatMap { $0 > 0 ? $0 : nil } : nil
    }

    var isActive: Bool { socketPath != nil }

    /// Sends one message, e.g. "READY=1\nSTATUS=3 jobs pending". Errors are ignored, as
    /// sd_notify's callers do, and it never blocks: if the receiver has stopped reading and
    /// its queue is full, the message is dropped rather than stopping the scheduler.
    func send(_ message: String) {
        guard let path = socketPath else { return }
        guard let datagram = Descriptor(socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)) else { return }
        let fd = datagram.raw
        defer { withExtendedLifetime(datagram) {} }  // open while fd is used
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let payload = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), sa, length) }
            }
        }
    }
}
