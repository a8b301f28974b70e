import CHeraldSys
import Dispatch
import Glibc
import HeraldCore
import Logging
import Synchronization

/// Wakes the machine from suspend at the engine's next wake instant, on a `CLOCK_REALTIME_ALARM`
/// timer. Arming one needs CAP_WAKE_ALARM at every call, so it is held by whoever has it:
/// heraldd itself (a unit with `AmbientCapabilities=CAP_WAKE_ALARM`, systemd 254 and later, or
/// root), else the `herald-wake` helper over its socket (the one program the package gives the
/// capability; heraldd's NoNewPrivileges= forbids it gaining one). Without either, nothing
/// wakes the machine and status says why. Works on a queue of its own: the helper may be slow.
final class WakeAlarm: @unchecked Sendable {
    enum Holder: Equatable, Sendable {
        case heraldd
        case helper
        case nobody(String)
    }

    private let queue = DispatchQueue(label: "herald.wake", qos: .userInitiated)
    private let socketPath: String?
    private let logger: Logger
    private let state = Mutex<(holder: Holder, at: Instant?)>((.nobody("not asked yet"), nil))
    private let changed = Mutex<(@Sendable () -> Void)?>(nil)
    // Queue-confined.
    private var timer: Descriptor?
    private var helper: Descriptor?
    /// Watches the helper's connection: it closing (the helper stopped or restarted, and lost
    /// its timer) makes heraldd connect again and arm it anew.
    private var helperWatch: DispatchSourceRead?
    private var wanted: Instant?
    private var reported: Holder?

    /// - Parameter socketPath: the helper's socket (`HERALD_WAKE_SOCKET`, else
    ///   `$XDG_RUNTIME_DIR/herald-wake.sock`); nil when there is no runtime directory.
    init(socketPath: String?, logger: Logger) {
        self.socketPath = socketPath
        self.logger = logger
        queue.async { [self] in
            if let fd = Descriptor(herald_wake_timer_create()) { timer = fd }
            settle(arm(nil))
        }
    }

    static func socketPath(_ environment: Environment) -> String? {
        if let p = environment["HERALD_WAKE_SOCKET"], p.hasPrefix("/") { return p }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        return runtime + "/herald-wake.sock"
    }

    /// Who holds the timer now, and the instant the machine should wake at.
    var current: (holder: Holder, at: Instant?) { state.withLock { $0 } }

    /// Wakes the machine at `instant` (nil: at no time).
    func arm(_ instant: Instant?) {
        logger.debug("Wake from suspend", metadata: ["at": "\(instant.map { "\($0)" } ?? "none")"])
        queue.async { [self] in
            wanted = instant
            settle(arm(instant))
        }
    }

    /// While a wake is wanted and the helper does not answer, it is asked again after 2 s,
    /// then after twice as long each time up to an hour: it may start after heraldd (the two
    /// units start together), restart (systemd, 2 s later) or be installed later. Nothing is
    /// retried while no job wakes.
    private var retryDelay = 2
    private var retryPending = false

    private func retryLater() {
        guard !retryPending, wanted != nil, timer == nil, socketPath != nil else { return }
        retryPending = true
        queue.asyncAfter(wallDeadline: .now() + .seconds(retryDelay)) { [self] in
            retryPending = false
            guard case .nobody = state.withLock({ $0.holder }), wanted != nil else { return }
            settle(arm(wanted))
        }
        retryDelay = min(retryDelay * 2, 3600)
    }

    /// Called (on the wake queue) whenever the holder or the armed instant changed.
    func onChange(_ body: @escaping @Sendable () -> Void) { changed.withLock { $0 = body } }

    private func settle(_ holder: Holder) {
        state.withLock { $0 = (holder, wanted) }
        if case .nobody = holder { retryLater() } else { retryDelay = 2 }
        changed.withLock { $0 }?()
        guard holder != reported else { return }
        reported = holder
        switch holder {
        case .heraldd: logger.info("Wake from suspend: heraldd holds the wake timer (CAP_WAKE_ALARM)")
        case .helper: logger.info("Wake from suspend: herald-wake holds the wake timer")
        case .nobody(let why): logger.notice("Wake from suspend: unavailable", metadata: ["reason": "\(why)"])
        }
    }

    /// Arms the timer heraldd holds, else the helper's; who holds it.
    private func arm(_ instant: Instant?) -> Holder {
        let (seconds, nanoseconds) = instant.map { i -> (Int64, Int64) in
            let us = i.microseconds
            return (us / 1_000_000, (us % 1_000_000) * 1000)
        } ?? (0, 0)
        if let current = timer {
            // Disarmed, the timer is replaced by a fresh one: a zero value does stop an alarm
            // timer, but its fdinfo and timerfd_gettime go on showing the old expiry (the
            // kernel keeps it), which would tell whoever looks that it is still armed.
            if instant == nil || seconds <= 0 {
                guard let fresh = Descriptor(herald_wake_timer_create()) else {
                    return .nobody("cannot make a wake timer: " + String(cString: strerror(errno)))
                }
                current.close()
                timer = fresh
                return .heraldd
            }
            if herald_wake_timer_arm(current.raw, seconds, nanoseconds) == 0 { return .heraldd }
            logger.notice("Cannot arm the wake timer; asking herald-wake", metadata: ["error": "\(String(cString: strerror(errno)))"])
            current.close()
            timer = nil
        }
        guard let socketPath else { return .nobody("heraldd lacks CAP_WAKE_ALARM, and without XDG_RUNTIME_DIR there is no herald-wake socket") }
        let line = instant == nil || seconds <= 0 ? "disarm\n" : "arm \(seconds) \(nanoseconds)\n"
        for attempt in 0..<2 {
            if helper == nil {
                guard let connected = connect(socketPath) else {
                    return .nobody("heraldd lacks CAP_WAKE_ALARM, and herald-wake does not answer at \(socketPath)")
                }
                helper = connected
                watch(connected)
            }
            if let answer = exchange(line) {
                guard answer == "ok" else { return .nobody("herald-wake refused: \(answer)") }
                return .helper
            }
            dropHelper()
            if attempt == 1 { break }
        }
        return .nobody("herald-wake does not answer at \(socketPath)")
    }

    /// The helper closed its end (wake queue): it lost the timer with it, so heraldd is left
    /// without a holder until it connects again and re-arms (`retryLater`).
    private func watch(_ fd: Descriptor) {
        let source = DispatchSource.makeReadSource(fileDescriptor: fd.raw, queue: queue)
        source.setEventHandler { [self] in
            var byte: UInt8 = 0
            let n = recv(fd.raw, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if n > 0 { _ = recv(fd.raw, &byte, 1, Int32(MSG_DONTWAIT)); return }  // nothing is said unasked: dropped
            if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
            guard helper === fd else { return }
            logger.notice("herald-wake went away; arming the wake timer again when it is back")
            dropHelper()
            settle(.nobody("heraldd lacks CAP_WAKE_ALARM, and herald-wake went away"))
        }
        // libdispatch wants the descriptor open until the source is cancelled.
        source.setCancelHandler { fd.close() }
        helperWatch = source
        source.resume()
    }

    private func dropHelper() {
        if let helperWatch { helperWatch.cancel() } else { helper?.close() }
        helperWatch = nil
        helper = nil
    }

    private func connect(_ path: String) -> Descriptor? {
        guard let fd = Descriptor(socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)) else { return nil }
        var wait = timeval(tv_sec: 2, tv_usec: 0)
        _ = setsockopt(fd.raw, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd.raw, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard SpoolQuery.withAddress(path, { Glibc.connect(fd.raw, $0, $1) }) == 0 else {
            fd.close()
            return nil
        }
        return fd
    }

    /// Sends one line and reads the one-line answer (at most 2 s each way).
    private func exchange(_ line: String) -> String? {
        guard let helper, helper.writeAll(Array(line.utf8), socket: true) else { return nil }
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while answer.count < 256 {
            guard recv(helper.raw, &byte, 1, 0) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: answer, as: UTF8.self) }
            answer.append(byte)
        }
        return nil
    }
}
