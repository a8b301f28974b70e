/// A habit: reminds on its calendar until the day is done, with Done and Snooze on the popup
/// and its streak in the text.
enum HabitKind: JobKindRules {
    static let ownFields: [String] = []

    static func validate(_ job: Job) throws(JobError) {
        guard !job.every.isEmpty else { throw JobError("a habit needs 'every', its schedule") }
        guard !(job.title ?? "").trimmingSpaces.isEmpty else { throw JobError("a habit needs a non-empty 'title', its name") }
    }

    /// Done for the day: quiet until the next day's first reminder.
    static func skipReason(_ occurrence: DueOccurrence, now: Instant) -> Skip? {
        // A warning is judged by the day of the reminder it warns of.
        let instant = occurrence.role == .warning ? occurrence.schedule.target(ofWarning: occurrence.occurrence) ?? occurrence.occurrence : occurrence.occurrence
        let day = LocalDate(instant, in: occurrence.schedule.zone)
        guard occurrence.habitLog?.days.contains(day) ?? false else { return nil }
        return Skip(note: "done for the day",
                    resumeAfter: day.adding(days: 1).start(in: occurrence.schedule.zone) - Span(microseconds: 1))
    }

    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String]) {
        let day = LocalDate(occurrence.occurrence, in: occurrence.schedule.zone)
        let s = HabitStats.compute(occurrence.schedule, done: occurrence.habitLog?.days ?? [], today: day)
        return (config.templates.habit, ["progress": s.progressPhrase, "streak": String(s.currentStreak), "total": s.totalPhrase])
    }

    static func actions(for occurrence: DueOccurrence, config: HeraldConfig) -> [PopupAction] { [.done, .snooze(nil)] }

    static func popupClass(of occurrence: DueOccurrence) -> HeraldConfig.PopupClass { .habit }

    static func summary(_ job: Job, config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String { titledSummary(job) }
}
