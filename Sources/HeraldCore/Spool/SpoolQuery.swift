#if canImport(Glibc)
import Glibc
#endif

/// Questions the CLI asks a running heraldd over `heraldd.sock` in the spool, so that a
/// command about one job (or the next few) does not list `jobs/`, which takes about 80 ms at
/// 100,000 jobs on the machine in BENCHMARKS.md. heraldd knows every pending job's file name;
/// before it answers it reads the inotify events already queued, so a rename made before the
/// question (a `herald cancel` a moment ago) is in the answer. The CLI still checks each name
/// it is given on disk, and lists `jobs/` itself when heraldd does not answer.
///
/// The wire format is heraldd.sock's one protocol of versioned lines (see `SpoolRequest` for the
/// requests that change a job): one line (`v1 find <query>` or `v1 head <n>`), then the answer
/// `v1 ok <total>`, one job file name per line, and `end`.
public enum SpoolQuery {
    public enum Request: Equatable, Sendable {
        /// The jobs whose id is `query`, or else starts with it (`total` counts them all; at most
        /// `findLimit` names are sent).
        case find(String)
        /// The `n` jobs due soonest (`total` is the number of pending jobs).
        case head(Int)
    }

    public typealias Answer = JobTable.Answer

    public static let findLimit = 50
    /// sockaddr_un's sun_path holds 108 bytes with the final NUL.
    static let maximumPathLength = 107

    /// The most jobs one `head` answer lists (a larger `herald list -n` lists jobs/ itself).
    public static let maximumHead = 100_000

    public static func socketPath(_ spool: Spool) -> String { spool.root + "/heraldd.sock" }

    /// A question's line; nil when it is none (a request, or nothing valid).
    public static func parse(_ line: String) -> Request? {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == requestVersion else { return nil }
        switch parts[1] {
        case "find": return Job.isValidID(String(parts[2])) ? .find(String(parts[2])) : nil
        case "head": return Int(parts[2]).flatMap { (0...maximumHead).contains($0) ? .head($0) : nil }
        default: return nil
        }
    }

    public static func encode(_ request: Request) -> String {
        switch request {
        case .find(let query): return requestVersion + " find " + query + "\n"
        case .head(let n): return requestVersion + " head " + String(n) + "\n"
        }
    }

    public static func encode(_ answer: Answer) -> [UInt8] {
        var text = requestVersion + " ok " + String(answer.total) + "\n"
        for name in answer.names { text += name.description + "\n" }
        return Array((text + "end\n").utf8)
    }

    static func decodeAnswer(_ bytes: [UInt8]) -> Answer? {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let head = requestVersion + " ok "
        guard lines.count >= 2, lines[0].hasPrefix(head), let total = Int(lines[0].dropFirst(head.count)) else { return nil }
        var names: [JobFileName] = []
        for line in lines.dropFirst() {
            if line == "end" { return Answer(total: total, names: names) }
            guard let name = JobFileName(parsing: String(line)) else { return nil }
            names.append(name)
        }
        return nil  // cut short
    }

    /// Asks the heraldd running on `spool`; nil when none answers (not running, an older
    /// version, busy for a while, a socket path too long, or no answer within `timeout` seconds):
    /// the CLI then lists `jobs/` itself.
    public static func ask(_ spool: Spool, _ request: Request, timeout: Int = 2) -> Answer? {
        guard case .answered(let bytes) = SpoolSocket.exchangePatiently(spool, encode(request), timeout: timeout, maximumAnswer: 64 << 20,
                                                                          patience: 1) else { return nil }
        return decodeAnswer(bytes)
    }

    /// Calls `body` with `path` as a sockaddr_un.
    public static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(maximumPathLength))
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
