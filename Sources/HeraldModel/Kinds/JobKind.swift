/// What makes one kind of job that kind: its own fields and rules, when it fires, what each
/// firing is, when one is settled without a popup, and how its popup and listings read.
/// Each kind is one type in this folder; `Job.Kind.rules` registers it.
protocol JobKindRules {
    /// Fields only this kind may carry.
    static var ownFields: [String] { get }
    /// The kind's own requirements of a decoded job (fields common to all are checked already).
    static func validate(_ job: Job) throws(JobError)
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
    static func skipReason(_ occurrence: DueOccurrence, now: Instant) -> Skip? { nil }
    static func actions(for occurrence: DueOccurrence, config: HeraldConfig) -> [PopupAction] { [] }

    /// Title and text, with the schedule: the listing line of reminders and habits.
    static func titledSummary(_ job: Job) -> String {
        [job.title, job.text].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
            + (job.every.isEmpty ? "" : " (every " + job.every.joined(separator: "; ") + ")")
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
        }
    }
}

extension Job.Kind {
    /// The kind in a sentence's plural: "reminders", "deliveries", "habits".
    var plural: String { self == .delivery ? "deliveries" : rawValue + "s" }
}

extension OccurrenceRole {
    /// How listings and the history name a firing: `reminder`, `delivery/heads-up`, `habit`.
    public var label: String {
        switch self {
        case .headsUp, .arrival: return "delivery/" + rawValue
        case .warning: return "reminder/warning"
        case .reminder, .habit, .calendar: return rawValue
        }
    }
}

extension Job {
    /// One line about the job for `herald list`, at most 60 characters; control characters
    /// shown (`TextSafety.visible`), so that a title with an escape sequence reads as one.
    public func summary(config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String {
        let flat = TextSafety.visible(kind.rules.summary(self, config: config, zone: zone, now: now), whitespace: .spaces)
        return flat.count > 60 ? String(flat.prefix(59)) + "…" : flat
    }
}
