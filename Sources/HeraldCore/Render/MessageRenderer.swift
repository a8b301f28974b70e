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
        return us <= 0 ? 0 : Int((us + 59_999_999) / 60_000_000)
    }

    /// The buttons on a habit's popup.
    public static let habitActions: [PopupAction] = [.done, .snooze]

    /// A job fired more than this after its due time is marked late.
    public static let lateThreshold = Span.minutes(1)

    /// The popup for `job`'s occurrence `due`, shown at `now`. A habit's popup needs its
    /// `stats`, and gets Done and Snooze buttons.
    public func render(_ job: Job, id: String, due: Instant, now: Instant, stats: HabitStats? = nil) -> NotificationRequest {
        let role = job.role(of: due)
        let late = now - due
        var values: [String: String] = [
            "title": job.title ?? "", "text": job.text ?? "",
            "late": late >= Self.lateThreshold ? "late by " + TimeSpan.humanize(late) : "",
        ]
        let message: HeraldConfig.Message
        switch role {
        case .headsUp, .arrival:
            values["name"] = job.recipient?.name ?? config.profile.name ?? "Hello"
            values["address"] = job.recipient?.address ?? config.profile.address ?? "your address"
            values["items"] = Self.itemsPhrase(job.items)
            values["count"] = String(job.itemCount)
            values["minutes"] = String(job.at.map { Self.minutesLeft(until: $0, now: now) } ?? 0)
            message = role == .headsUp ? config.templates.headsUp : config.templates.arrival
        case .reminder:
            message = config.templates.reminder
        case .habit:
            let s = stats ?? HabitStats(total: 0, currentStreak: 0, bestStreak: 0, doneToday: false)
            values["progress"] = s.progressPhrase
            values["streak"] = String(s.currentStreak)
            values["total"] = s.totalPhrase
            message = config.templates.habit
        }
        var summary = TextSafety.stripControls(message.summary.render(values), keepNewlines: false).trimmingSpaces
        if summary.isEmpty {
            let text = (job.text ?? "").trimmingSpaces
            summary = (job.title ?? "").isEmpty ? (!text.isEmpty && text.count <= 60 ? text : "Reminder") : job.title!
        }
        var body = TextSafety.stripControls(message.body.render(values)).trimmingSpaces
        if summary == body && role == .reminder { body = "" }
        // A late popup says so, unless the template placed {late} itself; a heads-up instead
        // tells the real minutes left.
        if role != .headsUp, let lateText = values["late"], !lateText.isEmpty,
           !message.summary.source.contains("{late}"), !message.body.source.contains("{late}") {
            body = body.isEmpty ? "(\(lateText))" : body + "\n(\(lateText))"
        }
        return NotificationRequest(
            jobID: id, occurrence: due, summary: summary, body: body, icon: job.icon,
            urgency: job.urgency ?? config.urgency,
            category: "x-herald." + (role == .headsUp || role == .arrival ? "delivery" : job.kind.rawValue),
            actions: role == .habit ? Self.habitActions : [])
    }
}
