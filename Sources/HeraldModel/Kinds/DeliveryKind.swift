/// A delivery: a heads-up `lead` before the arrival, then the arrival itself, both naming the
/// recipient, the address and the items.
enum DeliveryKind: JobKindRules {
    static let ownFields = ["recipient", "items", "lead", "url"]

    static func validate(_ job: Job) throws(JobError) {
        guard job.at != nil else { throw JobError("a delivery needs 'at', its arrival time") }
        guard job.every.isEmpty else { throw JobError("field 'every' is not for deliveries (they arrive once)") }
    }

    /// A heads-up whose arrival is already due would only repeat it.
    static func skipReason(_ occurrence: DueOccurrence, now: Instant) -> Skip? {
        guard occurrence.role == .headsUp, occurrence.name.snoozedUntil == nil,
              let arrival = occurrence.job.at, now >= arrival else { return nil }
        return Skip(note: "arrival already due")
    }

    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String]) {
        let job = occurrence.job
        let values = [
            "name": job.recipient?.name ?? config.profile.name ?? "Hello",
            "address": job.recipient?.address ?? config.profile.address ?? "your address",
            "items": MessageRenderer.itemsPhrase(job.items),
            "count": String(job.itemCount),
            "minutes": String(job.at.map { MessageRenderer.minutesLeft(until: $0, now: now) } ?? 0),
        ]
        let headsUp = occurrence.role == .headsUp
        return (headsUp ? config.templates.headsUp : config.templates.arrival, values)
    }

    /// "Got it", and "Track" when there is a tracking page.
    static func actions(for occurrence: DueOccurrence, config: HeraldConfig) -> [PopupAction] {
        occurrence.job.url == nil ? [.gotIt] : [.gotIt, .track]
    }

    static func popupClass(of occurrence: DueOccurrence) -> HeraldConfig.PopupClass {
        occurrence.role == .headsUp ? .headsUp : .arrival
    }

    static func summary(_ job: Job, config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String {
        var parts: [String] = []
        if let at = job.at { parts.append("arrives " + RelativeTime.clock(at, zone: zone, now: now)) }
        if let address = job.recipient?.address ?? config.profile.address { parts.append("at " + address) }
        let items = MessageRenderer.itemsPhrase(job.items)
        if !items.isEmpty { parts.append(items) }
        return parts.joined(separator: ", ")
    }
}
