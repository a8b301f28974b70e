import CHeraldSys
import Dispatch
import Glibc
import HeraldCore
import Logging

/// Answers `SpoolQuery` questions on `heraldd.sock` (mode 0600, this user only) on a queue of
/// its own: the scheduler's queue only hands over a snapshot of its job table.
final class QueryServer {
    private let path: String
    private let source: DispatchSourceRead

    /// - Parameter snapshot: called on `queue`; returns the engine's table once the queued
    ///   inotify events are handled.
    /// - Parameter submit: called on `queue` with a one-job request (`ClientRequest`); calls its
    ///   second argument once, from any queue, with the answer once the change is on disk.
    init?(spool: Spool, queue: DispatchQueue, logger: Logger, snapshot: @escaping () -> JobTable,
          submit: @escaping (ClientRequest, @escaping @Sendable (ClientAnswer) -> Void) -> Void) {
        path = SpoolQuery.socketPath(spool)
        guard path.utf8.count <= 107 else {
            logger.notice("The spool's path is too long for heraldd.sock: herald lists jobs/ itself", metadata: ["path": "\(path)"])
            return nil
        }
        guard let listener = Descriptor(socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)) else {
            return nil
        }
        let fd = listener.raw
        // heraldd holds the spool's lock: a socket left here is an earlier heraldd's.
        var st = stat()
        if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
        let bound = SpoolQuery.withAddress(path) { bind(fd, $0, $1) } == 0
        guard bound, chmod(path, 0o600) == 0, listen(fd, 64) == 0 else {
            logger.warning("Cannot listen on heraldd.sock: herald lists jobs/ itself", metadata: ["error": "\(String(cString: strerror(errno)))"])
            return nil
        }
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let clients = Clients()
        source.setEventHandler(handler: {
            while true {
                guard let client = Descriptor(herald_accept(fd)) else { break }
                var uid: uid_t = 0
                guard herald_peer_uid(client.raw, &uid) == 0, uid == geteuid() else { continue }  // closed as it goes
                guard clients.count < Self.maximumClients else {
                    // Said, not just closed: the CLI waits a moment and asks again, or says heraldd is busy.
                    _ = SpoolSocket.busyLine.withUnsafeBytes { send(client.raw, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                    continue
                }
                _ = fcntl(client.raw, F_SETFL, fcntl(client.raw, F_GETFL) | O_NONBLOCK)
                Connection(socket: client, queue: queue, clients: clients, snapshot: snapshot, submit: submit).start()
            }
        })
        source.setCancelHandler { listener.close() }
        source.resume()
    }

    func stop() {
        source.cancel()
        unlink(path)
    }

    /// The most clients served at once; more are told `busy` and closed (the CLI asks again for
    /// a few seconds, then lists jobs/ itself for a question, or says so for a request).
    static let maximumClients = 32
    /// The whole exchange, from connect to the last byte of the answer: a client that says its
    /// question a byte a second, or never reads the answer, is cut off then, and never holds up
    /// another (each client is served as its bytes come, on the query queue).
    static let deadline = DispatchTimeInterval.seconds(1)
    /// A request (ack, snooze, cancel, habit done) waits for the engine and the spool queue:
    /// its exchange may take this long (the CLI waits `SpoolQuery.requestTimeout`).
    static let requestDeadline = DispatchTimeInterval.seconds(8)

    /// The connections being served (queue-confined).
    final class Clients: @unchecked Sendable {
        var held: [ObjectIdentifier: Connection] = [:]
        var count: Int { held.count }
    }

    /// One client: its question read as it comes, its answer written as the socket takes it.
    final class Connection: @unchecked Sendable {  // confined to the query queue
        let socket: Descriptor
        var fd: Int32 { socket.raw }
        let queue: DispatchQueue
        let clients: Clients
        let snapshot: () -> JobTable
        let submit: (ClientRequest, @escaping @Sendable (ClientAnswer) -> Void) -> Void
        var input: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        var reader: DispatchSourceRead?
        var writer: DispatchSourceWrite?
        var timer: DispatchSourceTimer?
        var finished = false
        /// Sources still holding the descriptor: it is closed when the last lets go.
        var sourcesOpen = 0

        init(socket: Descriptor, queue: DispatchQueue, clients: Clients, snapshot: @escaping () -> JobTable,
             submit: @escaping (ClientRequest, @escaping @Sendable (ClientAnswer) -> Void) -> Void) {
            self.socket = socket; self.queue = queue; self.clients = clients; self.snapshot = snapshot; self.submit = submit
        }

        func start() {
            clients.held[ObjectIdentifier(self)] = self
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + QueryServer.deadline)  // monotonic: a budget, not a time of day
            timer.setEventHandler { [self] in finish() }
            timer.resume()
            self.timer = timer
            let reader = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            hold(reader)
            reader.setEventHandler { [self] in readAvailable() }
            reader.resume()
            self.reader = reader
        }

        private func readAvailable() {
            var chunk = [UInt8](repeating: 0, count: 256)
            while !finished, output.isEmpty {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
                if n < 0 && errno == EINTR { continue }
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
                if n > 0 { input.append(contentsOf: chunk[0..<n]) }
                // The question is one line of at most 256 bytes; the end of input ends it too.
                if n <= 0 || input.count >= 256 || input.contains(UInt8(ascii: "\n")) { return answer() }
            }
        }

        private func answer() {
            reader?.cancel()
            let line = Array(input.prefix { $0 != UInt8(ascii: "\n") }.prefix(256))
            // One protocol: every line starts with the version; a question (find, head) is
            // answered from the table, anything else is a request that changes a job.
            if let question = SpoolQuery.parse(String(decoding: line, as: UTF8.self)) {
                let table = snapshot()
                switch question {
                case .find(let query): output = SpoolQuery.encode(table.find(query, limit: SpoolQuery.findLimit))
                case .head(let n): output = SpoolQuery.encode(table.soonest(n))
                }
                return startWriting()
            }
            request(line, complete: input.contains(UInt8(ascii: "\n")))
        }

        /// A one-job request: acted on only when its line is whole and every field checks;
        /// answered when the engine's change is on disk.
        private func request(_ line: [UInt8], complete: Bool) {
            let text = String(decoding: line, as: UTF8.self)
            guard complete, Array(text.utf8) == line, let request = SpoolQuery.parseRequest(text) else {
                output = SpoolQuery.encode(ClientAnswer.refused(ClientRefusal(.invalid, "not a valid request")))
                return startWriting()
            }
            timer?.schedule(deadline: .now() + QueryServer.requestDeadline)  // monotonic: a budget, not a time of day
            submit(request) { [self] answer in
                queue.async { [self] in
                    guard !finished else { return }
                    output = SpoolQuery.encode(answer)
                    startWriting()
                }
            }
        }

        private func startWriting() {
            writeAvailable()
            guard !finished else { return }
            let writer = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            hold(writer)
            writer.setEventHandler { [self] in writeAvailable() }
            writer.resume()
            self.writer = writer
        }

        private func writeAvailable() {
            while written < output.count {
                let n = output.withUnsafeBytes { send(fd, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
                if n <= 0 { return finish() }
                written += n
            }
            finish()
        }

        private func hold(_ source: any DispatchSourceProtocol) {
            sourcesOpen += 1
            source.setCancelHandler { [self] in
                sourcesOpen -= 1
                if sourcesOpen == 0 && finished { socket.close() }
            }
        }

        /// Ends the exchange: the sources go, then the descriptor (once none holds it).
        private func finish() {
            guard !finished else { return }
            finished = true
            timer?.cancel()
            reader?.cancel()
            writer?.cancel()
            if sourcesOpen == 0 { socket.close() }
            clients.held.removeValue(forKey: ObjectIdentifier(self))
        }
    }
}
