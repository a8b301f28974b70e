/// An alarm clock as people know it from their phone: at a time (or on a calendar), it wakes
/// the machine from suspend, shows a critical popup with Stop and Snooze, and rings (its sound
/// again and again) until one is pressed or `alarms.ringFor` runs out; unanswered, it snoozes
/// itself `alarms.autoSnooze` times. It rings through quiet time unless the config says `hold`.
enum AlarmKind: JobKindRules {
    static let ownFields: [String] = []

    static let config = KindConfig(
        templates: [.init(name: "alarm", defaults: .init(summary: Template(valid: "{title}"), body: Template(valid: "Alarm · {time}")),
                          placeholders: ["time"])],
        popupClasses: [.init(popupClass: .alarm, expire: .never, sound: .themed("alarm-clock-elapsed"))])

    static func role(of instant: Instant, job: Job, isWarning: () -> Bool) -> OccurrenceRole {
        isWarning() ? .warning : .alarm
    }

    static func validate(_ job: Job) throws(JobError) {
        guard job.at != nil || !job.every.isEmpty else { throw JobError("an alarm needs 'at' or 'every'") }
        guard job.repeat == nil else { throw JobError("an alarm rings until stopped; 'repeat' does not apply") }
    }

    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String]) {
        let label = (occurrence.job.title ?? "").trimmingSpaces
        let time = RelativeTime.clock(occurrence.occurrence, zone: occurrence.schedule.zone, now: occurrence.occurrence)
        return (config.templates["alarm"], ["title": label.isEmpty ? "Alarm" : label, "time": time])
    }

    static func actions(for occurrence: DueOccurrence, config: HeraldConfig) -> [PopupAction] { [.stop, .snooze(nil)] }

    static func popupClass(of occurrence: DueOccurrence) -> HeraldConfig.PopupClass { .alarm }

    static func summary(_ job: Job, config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String {
        let label = (job.title ?? "").trimmingSpaces
        return (label.isEmpty ? "Alarm" : label) + (job.every.isEmpty ? "" : " (every " + job.every.joined(separator: "; ") + ")")
    }

    // MARK: ringing

    static func urgency(of job: Job) -> Job.Urgency? { .critical }
    static func snoozeSpan(of job: Job, config: HeraldConfig) -> Span { config.alarms.snooze }
    static func ringsFor(_ job: Job, config: HeraldConfig) -> Span? { config.alarms.ringFor }
    static func ringsWhenQuiet(_ job: Job, config: HeraldConfig) -> Bool { config.alarms.ringsWhenQuiet }
}

extension HeraldConfig.PopupClass {
    public static let alarm = Self("alarm")
}
