import Foundation
import HeraldCore
import Logging

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
        line += "\(event.level): \(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for key in merged.keys.sorted() {
            line += " \(key)=\(Self.quote("\(merged[key]!)"))"
        }
        line += "\n"
        let bytes = Array(line.utf8)
        bytes.withUnsafeBytes { _ = write(2, $0.baseAddress!, $0.count) }
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
        let flat = value.replacingOccurrences(of: "\n", with: "\\n")
        return flat.contains(" ") || flat.isEmpty ? "\"" + flat.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : flat
    }
}
