/// A plain reminder or timer: one-shot at `at`, or recurring on `every`.
enum ReminderKind: JobKindRules {
    static let ownFields: [String] = []

    static func validate(_ job: Job) throws(JobError) {
        guard job.at != nil || job.every != nil else { throw JobError("a reminder needs 'at' or 'every'") }
        guard !(job.text ?? "").trimmingSpaces.isEmpty || !(job.title ?? "").trimmingSpaces.isEmpty else {
            throw JobError("a reminder needs a non-empty 'text' or 'title'")
        }
    }

    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String]) {
        (config.templates.reminder, [:])
    }

    static func summary(_ job: Job, config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String { titledSummary(job) }
}
