#if canImport(Glibc)
import Glibc
#endif

/// The wire format of `ClientRequest` on `heraldd.sock`, beside `SpoolQuery`'s questions (one
/// protocol: every line starts with the version): one
/// line of at most `maximumLine` bytes, fields split by one space, every field checked (the
/// socket is hostile input), and one answer line.
///
///     v1 ack <id>
///     v1 cancel <id>
///     v1 snooze <id> <length µs> <until|-> <last shown|-> <name in done/|->
///     v1 habit-done <id> <YYYY-MM-DD> <amount|->
///
/// Answers: `v1 ok acknowledged <next name|->`, `v1 ok snoozed <name>`, `v1 ok cancelled <name>`,
/// `v1 ok habit-done recorded|already`, or `v1 refused <code> <sentence>`; a line heraldd does
/// not know is refused as invalid, and the CLI then does the work itself.
extension SpoolQuery {
    public static let requestVersion = "v1"
    /// A request line, and an answer line, are at most this long (ids are at most 64 bytes).
    public static let maximumLine = 256
    /// The most a client waits for the answer to a request (the change is made and synced first).
    public static let requestTimeout = 10

    public static func parseRequest(_ line: String) -> ClientRequest? {
        guard line.utf8.count <= maximumLine else { return nil }
        let f = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard f.count >= 3, f[0] == requestVersion, Job.isValidID(f[2]) else { return nil }
        let id = f[2]
        func instant(_ text: String) -> Instant?? {
            if text == "-" { return .some(nil) }
            guard let i = ISO8601.parseInstant(text), ISO8601.format(i, offsetSeconds: 0, zulu: true) == text else { return nil }
            return .some(i)
        }
        switch (f[1], f.count) {
        case ("ack", 3): return .ack(id: id)
        case ("cancel", 3): return .cancel(id: id)
        case ("snooze", 7):
            guard let us = Int64(f[3]), Job.snoozeRange.contains(Span(microseconds: us)),
                  let until = instant(f[4]), let shown = instant(f[5]) else { return nil }
            var finished: JobFileName? = nil
            if f[6] != "-" {
                guard let name = JobFileName(parsing: f[6]), name.id == id, name.description == f[6] else { return nil }
                finished = name
            }
            return .snooze(id: id, length: Span(microseconds: us), until: until, lastShown: shown, finished: finished)
        case ("habit-done", 5):
            guard let day = LocalDate(parsing: f[3]), day.description == f[3] else { return nil }
            var amount: Double? = nil
            if f[4] != "-" {
                guard let x = Double(f[4]), x.isFinite, x != 0, abs(x) <= 1_000_000 else { return nil }
                amount = x
            }
            return .habitDone(id: id, day: day, amount: amount)
        default: return nil
        }
    }

    public static func encode(_ request: ClientRequest) -> String {
        func instant(_ i: Instant?) -> String { i.map { ISO8601.format($0, offsetSeconds: 0, zulu: true) } ?? "-" }
        var f = [requestVersion, request.verb, request.id]
        switch request {
        case .ack, .cancel: break
        case .snooze(_, let length, let until, let shown, let finished):
            f += [String(length.microseconds), instant(until), instant(shown), finished?.description ?? "-"]
        case .habitDone(_, let day, let amount):
            f += [day.description, amount.map { String($0) } ?? "-"]
        }
        return f.joined(separator: " ") + "\n"
    }

    public static func encode(_ answer: ClientAnswer) -> [UInt8] {
        var f = [requestVersion]
        switch answer {
        case .acknowledged(let next): f += ["ok", "acknowledged", next?.description ?? "-"]
        case .snoozed(let name): f += ["ok", "snoozed", name.description]
        case .cancelled(let name): f += ["ok", "cancelled", name.description]
        case .habitDone(let already): f += ["ok", "habit-done", already ? "already" : "recorded"]
        case .refused(let r):
            // The sentence is one line, cut to fit: it is printed by the CLI (made visible there).
            let text = String(r.message.map { $0 == "\n" || $0 == "\r" ? " " : $0 }.prefix(200))
            f += ["refused", r.code.rawValue, text]
        }
        return Array(f.joined(separator: " ").utf8.prefix(maximumLine - 1)) + [UInt8(ascii: "\n")]
    }

    public static func decodeClientAnswer(_ bytes: [UInt8]) -> ClientAnswer? {
        guard bytes.count <= maximumLine, bytes.last == UInt8(ascii: "\n") else { return nil }
        let line = String(decoding: bytes.dropLast(), as: UTF8.self)
        let f = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        guard f.count == 4, f[0] == requestVersion else { return nil }
        func name(_ text: String) -> JobFileName? { JobFileName(parsing: text).flatMap { $0.description == text ? $0 : nil } }
        switch (f[1], f[2]) {
        case ("ok", "acknowledged"):
            if f[3] == "-" { return .acknowledged(next: nil) }
            return name(f[3]).map { .acknowledged(next: $0) }
        case ("ok", "snoozed"): return name(f[3]).map { .snoozed($0) }
        case ("ok", "cancelled"): return name(f[3]).map { .cancelled($0) }
        case ("ok", "habit-done"): return f[3] == "already" ? .habitDone(already: true) : f[3] == "recorded" ? .habitDone(already: false) : nil
        case ("refused", let code): return ClientRefusal.Code(rawValue: code).map { .refused(ClientRefusal($0, f[3])) }
        default: return nil
        }
    }

    /// How asking heraldd to do a request went.
    public enum Delivery: Sendable, Equatable {
        /// No heraldd listens (or an older one that does not know requests): do it yourself.
        case noDaemon
        /// heraldd is there but kept refusing new clients (too many at once): nothing was done.
        case busy
        /// heraldd took the request but its answer did not come (in time, or readable): it may
        /// have been carried out; never do it a second time.
        case noAnswer
        case answered(ClientAnswer)
    }

    /// Hands `request` to the heraldd running on `spool` and waits for its answer (asked again
    /// for a few seconds while heraldd is busy).
    public static func send(_ spool: Spool, _ request: ClientRequest, timeout: Int = requestTimeout) -> Delivery {
        switch SpoolSocket.exchangePatiently(spool, encode(request), timeout: timeout, maximumAnswer: maximumLine) {
        case .noDaemon: return .noDaemon
        case .busy: return .busy
        case .noAnswer: return .noAnswer
        case .answered(let bytes):
            if bytes == Array("error unknown request\n".utf8) { return .noDaemon }
            return decodeClientAnswer(bytes).map { .answered($0) } ?? .noAnswer
        }
    }
}
