#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A habit's completions: `habits/<id>.jsonl` in the spool, one line per change, appended
/// (O_APPEND) so the daemon's Done button and `herald habit done` never lose each other's
/// writes and nothing is rewritten. Replaying the lines gives the set of days done: one
/// completion per habit per local day.
public struct HabitLog: Sendable {
    public struct Entry: Sendable, Equatable {
        public var date: LocalDate
        public var done: Bool
        public var at: Instant
        /// "popup" or "cli".
        public var by: String

        public init(date: LocalDate, done: Bool, at: Instant, by: String) {
            self.date = date; self.done = done; self.at = at; self.by = by
        }
    }

    /// What the log says, and the lines it could not read (reported, never fatal).
    public struct Contents: Sendable {
        public var days: Set<LocalDate>
        public var problems: [String]
    }

    public let path: String

    public init(spool: Spool, id: String) { path = spool.habitsDirectory + "/" + id + ".jsonl" }

    /// The days done. A missing log means none; unreadable lines are listed in `problems`.
    public func read() -> Contents {
        guard FileSystem.exists(path) else { return Contents(days: [], problems: []) }
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path) } catch {
            return Contents(days: [], problems: ["\(error)"])
        }
        var days = Set<LocalDate>()
        var problems: [String] = []
        for (k, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
            guard let entry = Self.parse(line) else {
                problems.append("line \(k + 1) is not a completion record")
                continue
            }
            if entry.done { days.insert(entry.date) } else { days.remove(entry.date) }
        }
        return Contents(days: days, problems: problems)
    }

    /// Appends one change.
    public func append(_ entry: Entry) throws(FileSystemError) {
        try FileSystem.makeDirectory(parentDirectory(of: path))
        let line = JSONWriter.render(.object([
            ("date", .string(entry.date.description)), ("done", .bool(entry.done)),
            ("at", .string(ISO8601.format(entry.at, offsetSeconds: 0, zulu: true))), ("by", .string(entry.by)),
        ]))
        try FileSystem.appendLine(line, to: path)
    }

    static func parse(_ line: ArraySlice<UInt8>) -> Entry? {
        guard let value = try? JSONValue.parse(Data(line)), case .object(let o) = value,
              case .string(let d)? = o["date"], let date = LocalDate(parsing: d),
              case .bool(let done)? = o["done"] else { return nil }
        var at = Instant.epoch
        if case .string(let t)? = o["at"], let parsed = ISO8601.parseInstant(t) { at = parsed }
        var by = ""
        if case .string(let b)? = o["by"] { by = b }
        return Entry(date: date, done: done, at: at, by: by)
    }
}

extension Spool {
    /// Where habit completion logs live.
    public var habitsDirectory: String { root + "/habits" }
}
