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
        if summary == body && role == .reminder { body = "" }
        // A late popup says so, unless the template placed {late} itself; a heads-up instead
        // tells the real minutes left.
        if role != .headsUp, let lateText = values["late"], !lateText.isEmpty,
           !message.summary.source.contains("{late}"), !message.body.source.contains("{late}") {
            body = body.isEmpty ? "(\(lateText))" : body + "\n(\(lateText))"
        }
        return NotificationRequest(
            jobID: occurrence.name.id, occurrence: occurrence.occurrence, summary: summary, body: body, icon: job.icon,
            urgency: job.urgency ?? config.urgency, category: "x-herald." + job.kind.rawValue,
            actions: job.kind.rules.actions(for: role))
    }
}
