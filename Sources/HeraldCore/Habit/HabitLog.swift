/// Reading and appending a habit's log file (the log's format is HeraldModel's `HabitLog`).
extension HabitLog {
    public init(spool: Spool, id: String) { self.init(path: spool.habitsDirectory + "/" + id + ".jsonl") }

    /// The days done, amounts, skips and pauses. A missing log means none; unreadable lines
    /// are listed in `problems`.
    public func read() -> Contents {
        guard FileSystem.exists(path) else { return Contents() }
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path) } catch {
            return Contents(problems: ["\(error)"])
        }
        return Self.contents(of: bytes)
    }

    /// Appends one change.
    public func append(_ entry: Entry) throws(FileSystemError) {
        try append([entry])
    }

    /// Appends changes in one write (an import's history).
    public func append(_ entries: [Entry]) throws(FileSystemError) {
        guard !entries.isEmpty else { return }
        try FileSystem.makeDirectory(parentDirectory(of: path))
        try FileSystem.appendLine(entries.map(Self.render).joined(separator: "\n"), to: path)
    }

}

extension Spool {
    /// Where habit completion logs live.
    public var habitsDirectory: String { root + "/habits" }
}
