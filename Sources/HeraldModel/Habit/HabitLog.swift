/// A habit's completions: `habits/<id>.jsonl` in the spool, one line per change, appended
/// (O_APPEND) so the daemon's Done button and `herald habit done` never lose each other's
/// writes and nothing is rewritten. Replaying the lines gives, per local day: done or not,
/// a measurable habit's amount, skipped, and where pauses begin and end.
public struct HabitLog: Sendable {
    /// One change to one day.
    public enum Change: Sendable, Equatable {
        /// Done (Done button, `habit done`), or `false`: the day is cleared (`habit undo`).
        case done(Bool)
        /// A measurable habit's amount grows by this much (the "+1" button, `habit done NAME 2`).
        case add(Double)
        /// A measurable habit's amount for the day is this (imports).
        case amount(Double)
        /// Skipped: the day neither breaks nor extends a streak; `false` takes it back.
        case skip(Bool)
        /// Paused from this day on (`true`) or resumed on it (`false`).
        case pause(Bool)
    }

    public struct Entry: Sendable, Equatable {
        public var date: LocalDate
        public var change: Change
        public var at: Instant
        /// "popup", "cli" or "import".
        public var by: String

        public init(date: LocalDate, change: Change, at: Instant, by: String) {
            self.date = date; self.change = change; self.at = at; self.by = by
        }

        public init(date: LocalDate, done: Bool, at: Instant, by: String) {
            self.init(date: date, change: .done(done), at: at, by: by)
        }
    }

    /// What the log says, and the lines it could not read (reported, never fatal).
    public struct Contents: Sendable, Equatable {
        /// Days marked done.
        public var days: Set<LocalDate> = []
        /// A measurable habit's amount per day (days with none are absent).
        public var amounts: [LocalDate: Double] = [:]
        public var skipped: Set<LocalDate> = []
        /// Days a pause began (`true`) or ended (`false`); the last word on a day counts.
        public var pauses: [LocalDate: Bool] = [:]
        public var problems: [String] = []

        public init(days: Set<LocalDate> = [], amounts: [LocalDate: Double] = [:], skipped: Set<LocalDate> = [],
                    pauses: [LocalDate: Bool] = [:], problems: [String] = []) {
            self.days = days; self.amounts = amounts; self.skipped = skipped; self.pauses = pauses; self.problems = problems
        }

        /// Applies one change, as replaying the log does.
        public mutating func apply(_ entry: Entry) {
            let d = entry.date
            switch entry.change {
            case .done(true): days.insert(d); skipped.remove(d)
            case .done(false): days.remove(d); amounts.removeValue(forKey: d); skipped.remove(d)
            case .add(let x): amounts[d] = max(0, (amounts[d] ?? 0) + x); skipped.remove(d)
            case .amount(let x): amounts[d] = max(0, x)
            case .skip(true): skipped.insert(d); days.remove(d)
            case .skip(false): skipped.remove(d)
            case .pause(let p): pauses[d] = p
            }
        }

        /// Whether the habit is paused on `day`: the latest pause or resume on or before it says so.
        public func isPaused(on day: LocalDate) -> Bool {
            guard !pauses.isEmpty else { return false }
            var latest: (LocalDate, Bool)?
            for (d, p) in pauses where d <= day && (latest == nil || d > latest!.0) { latest = (d, p) }
            return latest?.1 ?? false
        }

        /// The first day anything was recorded.
        public var firstDay: LocalDate? {
            [days.min(), amounts.keys.min(), skipped.min(), pauses.keys.min()].compactMap { $0 }.min()
        }
    }

    /// Where the log lives (`habits/<id>.jsonl`); HeraldCore reads and appends it.
    public let path: String

    public init(path: String) { self.path = path }

    /// What `bytes`, a whole log, says: its lines replayed in order.
    public static func contents(of bytes: [UInt8]) -> Contents {
        var contents = Contents()
        for (k, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
            guard let entry = parse(line) else {
                contents.problems.append("line \(k + 1) is not a completion record")
                continue
            }
            contents.apply(entry)
        }
        return contents
    }

    public static func render(_ entry: Entry) -> String {
        var fields: [(String, JSONWriter.Value)] = [("date", .string(entry.date.description))]
        switch entry.change {
        case .done(let d): fields.append(("done", .bool(d)))
        case .add(let x): fields.append(("add", .number(x)))
        case .amount(let x): fields.append(("amount", .number(x)))
        case .skip(let s): fields.append(("skip", .bool(s)))
        case .pause(let p): fields.append(("pause", .bool(p)))
        }
        fields += [("at", .string(ISO8601.format(entry.at, offsetSeconds: 0, zulu: true))), ("by", .string(entry.by))]
        return JSONWriter.render(.object(fields))
    }

    public static func parse(_ line: ArraySlice<UInt8>) -> Entry? {
        guard let value = try? JSONValue.parse(line), case .object(let o) = value,
              case .string(let d)? = o["date"], let date = LocalDate(parsing: d) else { return nil }
        let change: Change
        if case .bool(let done)? = o["done"] {
            change = .done(done)
        } else if case .number(let x)? = o["add"], x.isFinite {
            change = .add(x)
        } else if case .number(let x)? = o["amount"], x.isFinite {
            change = .amount(x)
        } else if case .bool(let s)? = o["skip"] {
            change = .skip(s)
        } else if case .bool(let p)? = o["pause"] {
            change = .pause(p)
        } else {
            return nil
        }
        var at = Instant.epoch
        if case .string(let t)? = o["at"], let parsed = ISO8601.parseInstant(t) { at = parsed }
        var by = ""
        if case .string(let b)? = o["by"] { by = b }
        return Entry(date: date, change: change, at: at, by: by)
    }
}

