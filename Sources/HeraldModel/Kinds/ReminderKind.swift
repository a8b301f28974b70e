/// A plain reminder or timer: one-shot at `at`, or recurring on `every`.
enum ReminderKind: JobKindRules {
    static let ownFields = ["repeat"]

    static func validate(_ job: Job) throws(JobError) {
        guard job.at != nil || !job.every.isEmpty else { throw JobError("a reminder needs 'at' or 'every'") }
        guard !(job.text ?? "").trimmingSpaces.isEmpty || !(job.title ?? "").trimmingSpaces.isEmpty else {
            throw JobError("a reminder needs a non-empty 'text' or 'title'")
        }
    }

    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String]) {
        (config.templates.reminder, [:])
    }

    /// Done, Snooze, and a button per configured snooze choice ("5 min", "1 h").
    static func actions(for occurrence: DueOccurrence, config: HeraldConfig) -> [PopupAction] {
        [.done, .snooze(nil)] + config.popups.snoozeChoices.map { .snooze($0) }
    }

    static func popupClass(of occurrence: DueOccurrence) -> HeraldConfig.PopupClass {
        occurrence.job.isTimer ? .timer : .reminder
    }

    static func summary(_ job: Job, config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String { titledSummary(job) }
}
