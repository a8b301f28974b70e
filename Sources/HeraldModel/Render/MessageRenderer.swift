/// Turns a job occurrence into the popup the user sees, from the configured templates.
public struct MessageRenderer: Sendable {
    public var config: HeraldConfig

    public init(config: HeraldConfig) { self.config = config }

    /// "3 items: apple, milk ×2"; empty when there are no items.
    public static func itemsPhrase(_ items: [Job.Item]) -> String {
        guard !items.isEmpty else { return "" }
        let count = items.reduce(0) { $0 + $1.quantity }
        let list = items.map { $0.quantity == 1 ? $0.name : "\($0.name) ×\($0.quantity)" }.joined(separator: ", ")
        return "\(count) \(count == 1 ? "item" : "items"): \(list)"
    }

    /// Whole minutes from `now` until `arrival`, rounded up, never negative.
    public static func minutesLeft(until arrival: Instant, now: Instant) -> Int {
        let us = (arrival - now).microseconds
        // Rounded up without adding first: an arrival at the end of time must not overflow.
        return us <= 0 ? 0 : Int(us / 60_000_000 + (us % 60_000_000 == 0 ? 0 : 1))
    }

    /// A job fired more than this after its due time is marked late.
    public static let lateThreshold = Span.minutes(1)

    /// The popup for a due occurrence, shown at `now`: the kind's template, values and buttons.
    public func render(_ occurrence: DueOccurrence, now: Instant) -> NotificationRequest {
        let job = occurrence.job
        let role = occurrence.role
        let late = now - occurrence.occurrence
        let (message, kindValues) = job.kind.rules.message(occurrence, config: config, now: now)
        var values: [String: String] = [
            "title": job.title ?? "", "text": job.text ?? "",
            "late": late >= Self.lateThreshold ? "late by " + TimeSpan.humanize(late) : "",
        ]
        values.merge(kindValues) { _, kind in kind }
        var summary = TextSafety.stripControls(message.summary.render(values), keepNewlines: false).trimmingSpaces
        if summary.isEmpty {
            let text = (job.text ?? "").trimmingSpaces
            summary = (job.title ?? "").isEmpty ? (!text.isEmpty && text.count <= 60 ? text : "Reminder") : job.title!
        }
        var body = TextSafety.stripControls(message.body.render(values)).trimmingSpaces
        if summary == body && (role == .reminder || role == .warning) { body = "" }
        if role == .warning, let target = occurrence.schedule.target(ofWarning: occurrence.occurrence) {
            // "in 15 min: Dentist": from its own time when on time, else from now (the time really left).
            let from = now - occurrence.occurrence < Self.lateThreshold ? occurrence.occurrence : now
            summary = RelativeTime.phrase(target, now: from) + ": " + summary
        }
        // A late popup says so, unless the template placed {late} itself; a heads-up instead
        // tells the real minutes left.
        if role != .headsUp, role != .warning, let lateText = values["late"], !lateText.isEmpty,
           !message.summary.source.includes("{late}"), !message.body.source.includes("{late}") {
            body = body.isEmpty ? "(\(lateText))" : body + "\n(\(lateText))"
        }
        let urgency = job.effectiveUrgency(config)
        // A warning is a heads-up: Got it, and the heads-up class's expiry and sound.
        let popupClass = role == .warning ? .headsUp : job.kind.rules.popupClass(of: occurrence)
        let actions = role == .warning ? [.gotIt] : job.kind.rules.actions(for: occurrence, config: config)
        return NotificationRequest(
            jobID: occurrence.name.id, occurrence: occurrence.occurrence, summary: summary, body: body, icon: job.icon,
            urgency: urgency, category: "x-herald." + job.kind.rawValue,
            actions: actions + [.body],
            // A critical popup stays until handled, whatever the class says.
            expiry: urgency == .critical ? .never : config.popups.expire[popupClass] ?? .serverDefault,
            sound: sound(for: job, popupClass),
            ringFor: role == .warning ? nil : job.kind.rules.ringsFor(job, config: config))
    }

    /// The job's own sound (`none`: silent), else the config's for a repeating reminder or the class.
    func sound(for job: Job, _ popupClass: HeraldConfig.PopupClass) -> Sound? {
        if let own = job.sound { return Sound(parsing: own) }
        if job.repeat != nil, let ring = config.popups.repeatingSound { return ring }
        return config.popups.sound[popupClass]
    }

    /// Why popups went into a summary: held (quiet time, a break), or more than the server keeps on screen.
    public enum SummaryReason: Sendable { case away, crowd }

    /// One popup for several held back (quiet hours) or due at once after a break:
    /// "3 reminders while you were away", a line each, the body click to acknowledge.
    public func summary(of lines: [(kind: Job.Kind, due: Instant, title: String)], reason: SummaryReason = .away,
                        zone: TimeZoneRules, now: Instant) -> NotificationRequest {
        let kinds = Set(lines.map(\.kind))
        let noun = kinds.count == 1 ? (lines.count == 1 ? kinds.first!.rawValue : kinds.first!.plural) : (lines.count == 1 ? "popup" : "popups")
        var body: [String] = []
        for line in lines.sorted(by: { $0.due < $1.due }).prefix(12) {
            body.append(RelativeTime.clock(line.due, zone: zone, now: now) + "  " + TextSafety.stripControls(line.title, keepNewlines: false))
        }
        if lines.count > 12 { body.append("and \(lines.count - 12) more (herald history)") }
        return NotificationRequest(jobID: PopupSubject.summaryKey, occurrence: now,
                                   summary: reason == .away ? "\(lines.count) \(noun) while you were away" : "\(lines.count) more \(noun)",
                                   body: body.joined(separator: "\n"),
                                   icon: "appointment-soon", urgency: .normal, category: "x-herald.summary", actions: [.body],
                                   expiry: .never)
    }
}
