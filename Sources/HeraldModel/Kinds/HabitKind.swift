/// A habit: reminds on its calendar until the day is done (or, with a frequency such as
/// 3/week, until the period's target is met), with Done and Snooze on the popup, "+1" for a
/// measurable habit, and its progress, streak and strength in the text.
enum HabitKind: JobKindRules {
    static let ownFields = ["times", "target", "unit", "targetType"]

    static func validate(_ job: Job) throws(JobError) {
        guard !job.every.isEmpty else { throw JobError("a habit needs 'every', its schedule") }
        guard !(job.title ?? "").trimmingSpaces.isEmpty else { throw JobError("a habit needs a non-empty 'title', its name") }
        if job.target != nil, let f = job.times, f.count != 1 {
            throw JobError("a measurable habit's 'times' is once per period (its target is the amount per period)",
                           value: f.description)
        }
    }

    /// Done for the day, a target met for the period, skipped or paused: quiet until then.
    static func skipReason(_ occurrence: DueOccurrence, now: Instant) -> Skip? {
        guard let history = occurrence.habitHistory, let quiet = history.quietReason(on: history.today) else { return nil }
        return Skip(note: quiet.note,
                    resumeAfter: quiet.until.map { $0.adding(days: 1).start(in: occurrence.schedule.zone) - Span(microseconds: 1) })
    }

    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String]) {
        guard let history = occurrence.habitHistory else { return (config.templates.habit, [:]) }
        let s = history.stats
        // "2 of 3 this week · 4 in a row", "5 of 8 glasses", or a daily habit's streak phrase.
        let progress = history.periodProgress.map { p in
            history.rules.target == nil && s.currentStreak > 0 ? p + " · \(s.currentStreak) in a row" : p
        } ?? s.progressPhrase
        return (config.templates.habit, ["progress": progress, "streak": String(s.currentStreak), "total": s.totalPhrase,
                                         "score": s.scorePhrase])
    }

    static func actions(for occurrence: DueOccurrence, config: HeraldConfig) -> [PopupAction] {
        occurrence.job.target != nil ? [.done, .add(1), .snooze(nil)] : [.done, .snooze(nil)]
    }

    static func popupClass(of occurrence: DueOccurrence) -> HeraldConfig.PopupClass { .habit }

    static func summary(_ job: Job, config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String { titledSummary(job) }
}
