/// A plain reminder or timer: one-shot at `at`, or recurring on `every`.
enum ReminderKind: JobKindRules {
    static let ownFields = ["repeat"]

    static let config = KindConfig(
        templates: [.init(name: "reminder", defaults: .init(summary: Template(valid: "{title}"), body: Template(valid: "{text}")))],
        popupClasses: [.init(popupClass: .reminder, expire: .never),
                       .init(popupClass: .timer, expire: .never, sound: .themed("alarm-clock-elapsed"))])

    static func decodeFields(_ o: [String: JSONValue], into job: inout Job) throws(JobError) {
        if let r = o["repeat"] {
            let text = try Job.string(r, "repeat")
            do { job.repeat = try TimeSpan.parse(text) } catch {
                throw JobError("field 'repeat' is not a time span", value: r.snippet(), detail: error.description)
            }
            guard job.repeat! >= Job.repeatRange.lowerBound else { throw JobError("field 'repeat' is shorter than 1 second", value: r.snippet()) }
            guard job.repeat! <= Job.repeatRange.upperBound else { throw JobError("field 'repeat' is longer than 366 days", value: r.snippet()) }
        }
    }

    static func encodeFields(_ job: Job) -> [(String, JSONWriter.Value)] {
        job.repeat.map { [("repeat", .string(TimeSpan.format($0)))] } ?? []
    }

    static func role(of instant: Instant, job: Job, isWarning: () -> Bool) -> OccurrenceRole {
        isWarning() ? .warning : .reminder
    }

    static func validate(_ job: Job) throws(JobError) {
        guard job.at != nil || !job.every.isEmpty else { throw JobError("a reminder needs 'at' or 'every'") }
        guard !(job.text ?? "").trimmingSpaces.isEmpty || !(job.title ?? "").trimmingSpaces.isEmpty else {
            throw JobError("a reminder needs a non-empty 'text' or 'title'")
        }
    }

    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String]) {
        (config.templates["reminder"], [:])
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

extension HeraldConfig.PopupClass {
    public static let reminder = Self("reminder")
    public static let timer = Self("timer")
}
