/// What makes one kind of job that kind: its own fields (their names, codec and rules), what
/// each firing is, when a late one still has news, when one is settled without a popup, how
/// its popup and listing read, and its configuration keys. Each kind is one type in this
/// folder; `Job.Kind` and its `rules` registry below list them (ARCHITECTURE.md, "Where a
/// change goes", has the files a new kind touches).
protocol JobKindRules {
    /// Fields only this kind may carry.
    static var ownFields: [String] { get }
    /// Reads the kind's own fields from a job document (the common ones are read already,
    /// another kind's are refused).
    static func decodeFields(_ o: [String: JSONValue], into job: inout Job) throws(JobError)
    /// The kind's own fields, as a job file lists them after the common ones.
    static func encodeFields(_ job: Job) -> [(String, JSONWriter.Value)]
    /// The kind's own requirements of a decoded job (fields common to all are checked already).
    static func validate(_ job: Job) throws(JobError)
    /// Spans before each main occurrence at which the kind fires too, beside the job's `warn`
    /// (a delivery's heads-up lead).
    static func leads(of job: Job, defaultLead: Span) throws(JobError) -> [Span]
    /// Instants the kind fires at besides its `at` and `every` (a calendar job's alarms), in order.
    static func alarmTimes(of job: Job) -> [Instant]
    /// What the firing at `instant` is; `isWarning` says whether it is one of the job's
    /// warnings rather than a main occurrence (asked only when needed: it may read calendars).
    static func role(of instant: Instant, job: Job, isWarning: () -> Bool) -> OccurrenceRole
    /// Whether a firing past its catch-up grace still has news (its event is still ahead): it
    /// is shown, not recorded as missed.
    static func stillAhead(_ occurrence: DueOccurrence, now: Instant) -> Bool
    /// Why a due occurrence is settled without a popup, or nil to show it.
    static func skipReason(_ occurrence: DueOccurrence, now: Instant) -> Skip?
    /// The template and placeholder values for the popup.
    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String])
    /// The buttons on the popup (the body click is added to every popup).
    static func actions(for occurrence: DueOccurrence, config: HeraldConfig) -> [PopupAction]
    /// Which per-kind popup settings (`popups.expire.*`, `popups.sound.*`) apply.
    static func popupClass(of occurrence: DueOccurrence) -> HeraldConfig.PopupClass
    /// One line about the job for `herald list`.
    static func summary(_ job: Job, config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String
    /// The urgency of the job's popups when it names none (nil: the config's `defaults.urgency`).
    static func urgency(of job: Job) -> Job.Urgency?
    /// How long Snooze puts the job's popup off when the button names no span.
    static func snoozeSpan(of job: Job, config: HeraldConfig) -> Span
    /// How long the job's popup rings (its sound played again and again) unanswered; nil: it plays once.
    static func ringsFor(_ job: Job, config: HeraldConfig) -> Span?
    /// Whether the job's popups are shown in quiet time and never held for a summary.
    static func ringsWhenQuiet(_ job: Job, config: HeraldConfig) -> Bool
    /// The kind's own fields that may take a job file's room, by name, as text (a too-large job
    /// is refused naming the widest).
    static func largeFields(of job: Job) -> [(String, String?)]
    /// The kind's configuration: its templates (`templates.<name>.summary/body`) and its popup
    /// classes (`popups.expire.<class>`, `popups.sound.<class>`), with their defaults.
    static var config: KindConfig { get }
}

/// A kind's part of the configuration: its templates and popup classes, with their defaults.
/// `ConfigLoader` reads exactly the keys these name (`keys`). Plain structs, no tuples: the
/// CLI reads them at every start, where a tuple's or a generic dictionary's run-time metadata
/// cost a `herald remind` a million instructions (BENCHMARKS.md, "One of each").
struct KindConfig: Sendable {
    struct TemplateSpec: Sendable {
        var name: String
        var defaults: HeraldConfig.Message
        /// Placeholders it has beside `Template.placeholders`.
        var placeholders: [String] = []
    }
    struct PopupClassSpec: Sendable {
        var popupClass: HeraldConfig.PopupClass
        var expire: Expiry
        var sound: Sound?
    }
    var templates: [TemplateSpec]
    var popupClasses: [PopupClassSpec]

    /// The dotted keys the kind adds to `config.yaml`.
    var keys: [String] {
        var out: [String] = []
        for t in templates { out.append("templates." + t.name + ".summary"); out.append("templates." + t.name + ".body") }
        for c in popupClasses { out.append("popups.expire." + c.popupClass.rawValue); out.append("popups.sound." + c.popupClass.rawValue) }
        return out
    }
}

/// A due occurrence as a kind sees it: the job, which occurrence, and what the kind was given
/// to decide about it (a habit's log).
public struct DueOccurrence: Sendable {
    public let job: Job
    public let schedule: JobSchedule
    public let name: JobFileName
    public let habitLog: HabitLog.Contents?
    /// The first day of a habit's week (the config's `habits.weekStart`).
    public let weekStart: Int
    /// A habit's history as of the local day of this occurrence (a warning: of its reminder),
    /// built once: both the skip decision and the popup's text read it.
    let habitHistory: HabitHistory?
    public var occurrence: Instant { name.occurrence }
    public var role: OccurrenceRole { schedule.role(of: name.occurrence) }
    /// Late past the catch-up grace, it still has news (the kind says): shown, not missed.
    public func isStillAhead(now: Instant) -> Bool { job.kind.rules.stillAhead(self, now: now) }

    public init(job: Job, schedule: JobSchedule, name: JobFileName, habitLog: HabitLog.Contents? = nil, weekStart: Int = 0) {
        self.job = job; self.schedule = schedule; self.name = name; self.habitLog = habitLog; self.weekStart = weekStart
        if job.kind == .habit {
            let o = name.occurrence
            let instant = schedule.role(of: o) == .warning ? schedule.target(ofWarning: o) ?? o : o
            habitHistory = HabitHistory(rules: HabitRules(job, schedule: schedule, weekStart: weekStart), contents: habitLog ?? .init(),
                                        today: LocalDate(instant, in: schedule.zone))
        } else {
            habitHistory = nil
        }
    }
}

/// An occurrence settled without a popup: recorded as `skipped` with `note`; with
/// `resumeAfter`, a recurring job skips everything up to that time.
public struct Skip: Sendable, Equatable {
    public var note: String
    public var resumeAfter: Instant?
}

extension JobKindRules {
    static func decodeFields(_ o: [String: JSONValue], into job: inout Job) throws(JobError) {}
    static func encodeFields(_ job: Job) -> [(String, JSONWriter.Value)] { [] }
    static func leads(of job: Job, defaultLead: Span) throws(JobError) -> [Span] { [] }
    static func alarmTimes(of job: Job) -> [Instant] { [] }
    static func skipReason(_ occurrence: DueOccurrence, now: Instant) -> Skip? { nil }
    static func actions(for occurrence: DueOccurrence, config: HeraldConfig) -> [PopupAction] { [] }
    static func urgency(of job: Job) -> Job.Urgency? { nil }
    static func snoozeSpan(of job: Job, config: HeraldConfig) -> Span { config.snooze }
    static func ringsFor(_ job: Job, config: HeraldConfig) -> Span? { nil }
    static func ringsWhenQuiet(_ job: Job, config: HeraldConfig) -> Bool { false }
    static func largeFields(of job: Job) -> [(String, String?)] { [] }

    /// A warning whose occurrence is still ahead has news however late it is (one made after
    /// its time, or due while heraldd was down).
    static func stillAhead(_ occurrence: DueOccurrence, now: Instant) -> Bool {
        guard occurrence.role == .warning else { return false }
        return occurrence.schedule.target(ofWarning: occurrence.occurrence).map { $0 > now } ?? false
    }

    /// Title and text, with the schedule: the listing line of reminders and habits.
    static func titledSummary(_ job: Job) -> String {
        [job.title, job.text].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
            + (job.every.isEmpty ? "" : " (every " + job.every.joined(separator: "; ") + ")")
    }
}

extension Job {
    /// The kinds of job (each a `JobKindRules` type in this folder).
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case reminder, delivery, habit, calendar, alarm, run
    }
}

extension Job.Kind {
    /// The kind's rules (the registry: a new kind adds its line here).
    var rules: any JobKindRules.Type {
        switch self {
        case .reminder: return ReminderKind.self
        case .delivery: return DeliveryKind.self
        case .habit: return HabitKind.self
        case .calendar: return CalendarKind.self
        case .alarm: return AlarmKind.self
        case .run: return RunKind.self
        }
    }
}

extension Job.Kind {
    /// The kind's keys in `config.yaml` (templates and popup classes).
    public var configKeys: [String] { rules.config.keys }

    /// The kind in a sentence's plural: "reminders", "deliveries", "habits".
    var plural: String { self == .delivery ? "deliveries" : rawValue + "s" }
}

extension OccurrenceRole {
    /// How listings and the history name a firing: `reminder`, `delivery/heads-up`, `habit`.
    public var label: String {
        switch self {
        case .headsUp, .arrival: return "delivery/" + rawValue
        case .warning: return "reminder/warning"
        case .reminder, .habit, .calendar, .alarm, .run: return rawValue
        }
    }
}

extension Job {
    /// Whether its popup rings until stopped (an alarm's): until then its file is in a "ringing"
    /// state, a snooze of the same occurrence to the ring's end, so nothing is lost if heraldd
    /// stops while it rings.
    public var rings: Bool { kind.rules.ringsFor(self, config: HeraldConfig()) != nil }

    /// How long Snooze puts it off when no span is named (an alarm's `alarms.snooze`).
    public func defaultSnooze(_ config: HeraldConfig) -> Span { kind.rules.snoozeSpan(of: self, config: config) }

    /// The urgency its popups have: its own, else its kind's, else the config's default.
    public func effectiveUrgency(_ config: HeraldConfig) -> Urgency { urgency ?? kind.rules.urgency(of: self) ?? config.urgency }

    /// One line about the job for `herald list`, at most 60 characters; control characters
    /// shown (`TextSafety.visible`), so that a title with an escape sequence reads as one.
    public func summary(config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String {
        let flat = TextSafety.visible(kind.rules.summary(self, config: config, zone: zone, now: now), whitespace: .spaces)
        return flat.count > 60 ? String(flat.prefix(59)) + "…" : flat
    }
}
