/// One line of `history.jsonl`: what happened to one occurrence of a job.
public struct HistoryRecord: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        /// Shown by the notification server.
        case shown
        /// Not shown: a heads-up whose arrival had already come, or similar.
        case skipped
        /// The job file turned out unreadable and was moved to `failed/`.
        case failed
        /// Came due while heraldd was down (or the machine asleep) longer ago than the
        /// catch-up grace: recorded, not shown.
        case missed
        // How a popup ended (a second line for the same occurrence):
        /// Done, Got it, or the body clicked.
        case done
        /// Snooze: `note` says until when.
        case snoozed
        /// Closed by the user without a button.
        case dismissed
        /// Closed by the server when its time ran out.
        case expired
        /// Replaced in place by the job's next popup (a repeat, a delivery's arrival).
        case replaced
        /// An alarm rang for `alarms.ringFor` without an answer (it then snoozes itself).
        case unanswered
        // A run job's end (one line per run, when it ends; `failed` too, with its exit status):
        /// The command ended with exit status 0.
        case ran
        /// Whether the command ran cannot be told: heraldd stopped between marking it started
        /// and seeing it start, or it ended with no result (the machine went down).
        case unknown

        /// Whether this says how a shown popup ended.
        public var isEnding: Bool {
            switch self {
            case .done, .snoozed, .dismissed, .expired, .replaced, .unanswered: return true
            case .shown, .skipped, .failed, .missed, .ran, .unknown: return false
            }
        }
    }

    public var time: Instant
    public var id: String
    public var kind: Job.Kind?
    public var role: OccurrenceRole?
    public var due: Instant
    public var outcome: Outcome
    public var title: String?
    public var note: String?
    /// A run's end (`RunEnd`): its exit status, or the signal that ended it, how long it ran,
    /// and its output's file.
    public var run: RunFields?

    public struct RunFields: Sendable, Equatable {
        public var exitStatus: Int?
        public var signal: Int?
        public var duration: Span?
        public var log: String?
        public init(exitStatus: Int? = nil, signal: Int? = nil, duration: Span? = nil, log: String? = nil) {
            self.exitStatus = exitStatus; self.signal = signal; self.duration = duration; self.log = log
        }
    }

    public init(time: Instant, id: String, kind: Job.Kind?, role: OccurrenceRole?, due: Instant, outcome: Outcome,
                title: String? = nil, note: String? = nil, run: RunFields? = nil) {
        self.time = time; self.id = id; self.kind = kind; self.role = role; self.due = due
        self.outcome = outcome; self.title = title; self.note = note; self.run = run
    }

    /// A reminder's text as its history title: the first line, at most 80 characters.
    public static func title(_ text: String) -> String {
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: true).first.map(String.init) ?? ""
        return line.count > 80 ? String(line.prefix(79)) + "…" : line
    }

    /// A job's history title: its title, else its text's first line.
    public static func title(of job: Job) -> String? { job.title ?? job.text.map(title) }

    /// How late it happened.
    public var lateness: Span { time - due }

    public var jsonLine: String {
        var f: [(String, JSONWriter.Value)] = [
            ("time", .string(ISO8601.format(time, offsetSeconds: 0, zulu: true))),
            ("id", .string(id)),
        ]
        if let kind { f.append(("kind", .string(kind.rawValue))) }
        if let role { f.append(("role", .string(role.rawValue))) }
        f.append(("due", .string(ISO8601.format(due, offsetSeconds: 0, zulu: true))))
        f.append(("lateMs", .int(lateness.microseconds / 1000)))
        f.append(("outcome", .string(outcome.rawValue)))
        if let title { f.append(("title", .string(title))) }
        if let note { f.append(("note", .string(note))) }
        if let run {
            if let e = run.exitStatus { f.append(("exitStatus", .int(Int64(e)))) }
            if let s = run.signal { f.append(("signal", .int(Int64(s)))) }
            if let d = run.duration { f.append(("duration", .number(Double(d.microseconds / 1000) / 1000))) }
            if let l = run.log { f.append(("log", .string(l))) }
        }
        return JSONWriter.render(.object(f))
    }

    /// Parses one line; nil for a line that is not a record (e.g. cut short by a crash).
    public init?(jsonLine: Substring) {
        guard let value = try? JSONValue.parse(Array(jsonLine.utf8)), case .object(let o) = value,
              case .string(let t)? = o["time"], let time = ISO8601.parseInstant(t),
              case .string(let id)? = o["id"],
              case .string(let d)? = o["due"], let due = ISO8601.parseInstant(d),
              case .string(let oc)? = o["outcome"], let outcome = Outcome(rawValue: oc) else { return nil }
        func str(_ k: String) -> String? { if case .string(let s)? = o[k] { return s } else { return nil } }
        func int(_ k: String) -> Int? {
            if case .number(let n)? = o[k], n == n.rounded(), abs(n) < 1e9 { return Int(n) } else { return nil }
        }
        var run: RunFields?
        if o["exitStatus"] != nil || o["signal"] != nil || o["duration"] != nil || o["log"] != nil {
            var duration: Span?
            if case .number(let d)? = o["duration"], d >= 0, d < 1e10 { duration = Span(microseconds: Int64(d * 1_000_000)) }
            run = RunFields(exitStatus: int("exitStatus"), signal: int("signal"), duration: duration, log: str("log"))
        }
        self.init(time: time, id: id, kind: str("kind").flatMap(Job.Kind.init(rawValue:)),
                  role: str("role").flatMap(OccurrenceRole.init(rawValue:)), due: due, outcome: outcome,
                  title: str("title"), note: str("note"), run: run)
    }
}
