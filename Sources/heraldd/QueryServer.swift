import CHeraldSys
import Dispatch
import Foundation
import HeraldCore
import Logging

/// Answers `SpoolQuery` questions on `heraldd.sock` (mode 0600, this user only) on a queue of
/// its own: the scheduler's queue only hands over a snapshot of its job table.
final class QueryServer {
    private let path: String
    private let source: DispatchSourceRead

    /// - Parameter snapshot: called on `queue`; returns the engine's table once the queued
    ///   inotify events are handled.
    init?(spool: Spool, queue: DispatchQueue, logger: Logger, snapshot: @escaping () -> JobTable) {
        path = SpoolQuery.socketPath(spool)
        guard path.utf8.count <= 107 else {
            logger.notice("The spool's path is too long for heraldd.sock: herald lists jobs/ itself", metadata: ["path": "\(path)"])
            return nil
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return nil }
        // heraldd holds the spool's lock: a socket left here is an earlier heraldd's.
        var st = stat()
        if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
        let bound = SpoolQuery.withAddress(path) { bind(fd, $0, $1) } == 0
        guard bound, chmod(path, 0o600) == 0, listen(fd, 64) == 0 else {
            logger.warning("Cannot listen on heraldd.sock: herald lists jobs/ itself", metadata: ["error": "\(String(cString: strerror(errno)))"])
            close(fd)
            return nil
        }
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler(handler: {
            while true {
                let client = herald_accept(fd)
                if client < 0 { break }
                Self.serve(client, snapshot: snapshot)
                close(client)
            }
        })
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    func stop() {
        source.cancel()
        unlink(path)
    }

    private static func serve(_ client: Int32, snapshot: () -> JobTable) {
        var uid: uid_t = 0
        guard herald_peer_uid(client, &uid) == 0, uid == geteuid() else { return }
        // A client that connects and says nothing holds the queue for one second at most.
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while line.count < 256, !line.contains(UInt8(ascii: "\n")) {
            let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress!, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            line.append(contentsOf: chunk[0..<n])
        }
        line = Array(line.prefix { $0 != UInt8(ascii: "\n") })
        guard let request = SpoolQuery.parse(String(decoding: line, as: UTF8.self)) else {
            _ = FileSystem.writeAll(client, Array("error unknown request\n".utf8))
            return
        }
        let table = snapshot()
        let answer: SpoolQuery.Answer
        switch request {
        case .find(let query): answer = table.find(query, limit: SpoolQuery.findLimit)
        case .head(let n): answer = table.soonest(n)
        }
        _ = FileSystem.writeAll(client, SpoolQuery.encode(answer))
    }
}
