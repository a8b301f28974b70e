#if canImport(Glibc)
import Glibc
#endif

/// The CLI's one client of `heraldd.sock`: one line out, one answer back, every wait bounded.
/// Sent with MSG_NOSIGNAL, so a heraldd that closes the connection (too many clients at once)
/// is an answer, never a SIGPIPE that kills the command.
public enum SpoolSocket {
    /// How an exchange went.
    public enum Outcome: Equatable, Sendable {
        /// Nothing listens (heraldd is not running, or the path is too long for a socket).
        case noDaemon
        /// heraldd is there but serving as many clients as it takes (`busy`, or closed at once).
        case busy
        /// The line went out, but no whole answer came back in time.
        case noAnswer
        case answered([UInt8])
    }

    /// What heraldd sends a client it has no room for, before closing.
    public static let busyLine: [UInt8] = Array("busy\n".utf8)

    /// Sends `line` to the heraldd of `spool` and reads its answer, at most `maximumAnswer` bytes,
    /// within `timeout` seconds for each wait.
    public static func exchange(_ spool: Spool, _ line: String, timeout: Int, maximumAnswer: Int) -> Outcome {
        let path = SpoolQuery.socketPath(spool)
        guard path.utf8.count <= SpoolQuery.maximumPathLength else { return .noDaemon }
        guard let connection = Descriptor(socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)) else {
            return .noDaemon
        }
        let fd = connection.raw
        defer { withExtendedLifetime(connection) {} }  // open while fd is used
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard SpoolQuery.withAddress(path, { connect(fd, $0, $1) }) == 0 else {
            // A full listen queue: heraldd is there, and busy.
            return errno == EAGAIN ? .busy : .noDaemon
        }
        // Closed on us (EPIPE, ECONNRESET): heraldd had no room; what it said, if anything, is still to be read.
        guard connection.writeAll(line.utf8, socket: true) else { return drainBusy(fd) }
        shutdown(fd, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while answer.count <= maximumAnswer {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                // heraldd had no room: it said so and closed without reading the line (a reset).
                return errno == ECONNRESET && (answer.isEmpty || answer == busyLine) ? .busy : .noAnswer
            }
            if n == 0 { break }
            answer.append(contentsOf: chunk[0..<n])
        }
        if answer == busyLine { return .busy }
        return .answered(answer)
    }

    /// After a send that failed: the busy line, if heraldd sent it before closing.
    private static func drainBusy(_ fd: Int32) -> Outcome {
        var chunk = [UInt8](repeating: 0, count: 64)
        _ = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
        return .busy
    }

    /// `exchange`, asked again while heraldd is busy, for up to `patience` seconds in all.
    public static func exchangePatiently(_ spool: Spool, _ line: String, timeout: Int, maximumAnswer: Int,
                                         patience: Double = 3) -> Outcome {
        var waited = 0.0, pause = 0.02
        while true {
            let outcome = exchange(spool, line, timeout: timeout, maximumAnswer: maximumAnswer)
            guard outcome == .busy, waited < patience else { return outcome }
            usleep(UInt32(pause * 1_000_000))
            waited += pause
            pause = min(pause * 2, 0.25)
        }
    }
}
