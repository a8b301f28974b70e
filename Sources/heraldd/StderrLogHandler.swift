import Dispatch
import Glibc
import HeraldCore
import Logging
import Synchronization

/// Writes log lines to stderr on a queue of its own, in order: a write to a log file on a busy
/// disk can block for tens of milliseconds (dirty-page throttling), and the scheduler's queue
/// must not wait for it (BENCHMARKS.md, "Intake off the scheduler's path").
enum LogWriter {
    private static let queue = DispatchQueue(label: "herald.log", qos: .utility)
    /// Lines not yet written; whether a write of them is on its way; whether the scheduler's
    /// queue is carrying out a step's effects (`holding`). A step's lines (a burst's "Job
    /// fired", a few popups' worth) go out in one write that wakes the log queue once, not once
    /// a line (BENCHMARKS.md, "Issue 41: heraldd's own renames").
    private struct Pending {
        var bytes: [UInt8] = []
        var sent = false
        var held = 0
    }
    private static let pending = Mutex(Pending())

    static func write(_ bytes: [UInt8]) {
        let send = pending.withLock { state -> Bool in
            state.bytes += bytes
            guard state.held == 0, !state.sent else { return false }
            state.sent = true
            return true
        }
        if send { queue.async { writePending() } }
    }

    /// Runs `body`, keeping the lines logged meanwhile (by any thread) for one write at its end.
    static func holding<T>(_ body: () -> T) -> T {
        pending.withLock { $0.held += 1 }
        defer {
            let send = pending.withLock { state -> Bool in
                state.held -= 1
                guard state.held == 0, !state.sent, !state.bytes.isEmpty else { return false }
                state.sent = true
                return true
            }
            if send { queue.async { writePending() } }
        }
        return body()
    }

    /// On `queue`: everything pending, in one write.
    private static func writePending() {
        let bytes = pending.withLock { state -> [UInt8] in
            defer { state.bytes = []; state.sent = false }
            return state.bytes
        }
        if !bytes.isEmpty { Descriptor.writeAll(to: 2, bytes) }
    }

    /// Waits until every line so far is written: before the process exits.
    static func flush() { queue.sync { writePending() } }
}

/// Log lines on stderr: `heraldd[pid]: warning: Bad job file moved to failed/ file=new/x.json`.
/// Under systemd (`JOURNAL_STREAM` set) each line starts with `<N>`, the syslog priority
/// journald reads, and the program name is left to the journal.
struct StderrLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let label: String
    let journal: Bool

    init(label: String, level: Logger.Level, environment: Environment) {
        self.label = label
        self.logLevel = level
        self.journal = environment["JOURNAL_STREAM"] != nil
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = journal ? "<\(Self.priority(event.level))>" : "\(label)[\(getpid())]: "
        // Messages and values quote file names and calendar text: shown, never obeyed by a
        // terminal, and one line each for journald.
        line += "\(event.level): \(TextSafety.visible("\(event.message)"))"
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for key in merged.keys.sorted() {
            line += " \(key)=\(Self.quote("\(merged[key]!)"))"
        }
        line += "\n"
        LogWriter.write(Array(line.utf8))
    }

    /// syslog priorities as journald reads them from `<N>` prefixes.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    static func quote(_ value: String) -> String {
        let flat = TextSafety.visible(value)
        return flat.contains(" ") || flat.isEmpty ? "\"" + flat.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\\\"") + "\"" : flat
    }
}
