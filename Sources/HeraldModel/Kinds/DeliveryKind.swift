/// A delivery: a heads-up `lead` before the arrival, then the arrival itself, both naming the
/// recipient, the address and the items.
enum DeliveryKind: JobKindRules {
    static let ownFields = ["recipient", "items", "lead", "url"]

    static let config = KindConfig(
        templates: [.init(name: "headsUp", defaults: .init(summary: Template(valid: "Delivery in {minutes} min"),
                                                           body: Template(valid: "{name}, your order arrives at {address} in {minutes} min.\n{items}"))),
                    .init(name: "arrival", defaults: .init(summary: Template(valid: "Your delivery is here"),
                                                           body: Template(valid: "{name}, your order is arriving at {address} now.\n{items}")))],
        popupClasses: [.init(popupClass: .headsUp, expire: .serverDefault), .init(popupClass: .arrival, expire: .never)])

    // MARK: fields

    static func decodeFields(_ o: [String: JSONValue], into job: inout Job) throws(JobError) {
        if let r = o["recipient"] { job.recipient = try recipient(r) }
        if let i = o["items"] { job.items = try items(i) }
        if let l = o["lead"] {
            let text = try Job.string(l, "lead")
            do { job.lead = try TimeSpan.parse(text) } catch {
                throw JobError("field 'lead' is not a time span", value: l.snippet(), detail: error.description)
            }
            guard Job.leadRange.contains(job.lead!) else { throw JobError("field 'lead' is longer than 366 days", value: l.snippet()) }
        }
        if let u = o["url"] {
            let url = try Job.string(u, "url")
            guard Job.isValidURL(url) else { throw JobError("field 'url' is not an http or https URL", value: u.snippet()) }
            job.url = url
        }
    }

    static func encodeFields(_ job: Job) -> [(String, JSONWriter.Value)] {
        var f: [(String, JSONWriter.Value)] = []
        if let recipient = job.recipient {
            var r: [(String, JSONWriter.Value)] = []
            if let n = recipient.name { r.append(("name", .string(n))) }
            if let a = recipient.address { r.append(("address", .string(a))) }
            f.append(("recipient", .object(r)))
        }
        if !job.items.isEmpty {
            f.append(("items", .array(job.items.map { .object([("name", .string($0.name)), ("quantity", .int(Int64($0.quantity)))]) })))
        }
        if let lead = job.lead { f.append(("lead", .string(TimeSpan.format(lead)))) }
        if let url = job.url { f.append(("url", .string(url))) }
        return f
    }

    static func recipient(_ value: JSONValue) throws(JobError) -> Job.Recipient {
        guard case .object(let o) = value else {
            throw JobError("field 'recipient' is not an object with 'name' and 'address'", value: value.snippet())
        }
        if let unknown = o.keys.filter({ $0 != "name" && $0 != "address" }).sorted().first {
            throw JobError("unknown field 'recipient.\(unknown)'")
        }
        var r = Job.Recipient()
        if let n = o["name"] { r.name = try Job.string(n, "recipient.name") }
        if let a = o["address"] { r.address = try Job.string(a, "recipient.address") }
        return r
    }

    static func items(_ value: JSONValue) throws(JobError) -> [Job.Item] {
        guard case .array(let list) = value else { throw JobError("field 'items' is not an array", value: value.snippet()) }
        var items: [Job.Item] = []
        for (k, entry) in list.enumerated() {
            let path = "items[\(k)]"
            guard case .object(let o) = entry else { throw JobError("field '\(path)' is not an object", value: entry.snippet()) }
            if let unknown = o.keys.filter({ $0 != "name" && $0 != "quantity" }).sorted().first {
                throw JobError("unknown field '\(path).\(unknown)'")
            }
            guard let nameValue = o["name"] else { throw JobError("missing field '\(path).name'") }
            let name = try Job.string(nameValue, "\(path).name")
            guard !name.trimmingSpaces.isEmpty else { throw JobError("field '\(path).name' is empty") }
            var quantity = 1
            if let q = o["quantity"] {
                guard case .number(let n) = q, n == n.rounded(), n >= 1, n <= 1_000_000 else {
                    throw JobError("field '\(path).quantity' is not a whole number from 1 to 1000000", value: q.snippet())
                }
                quantity = Int(n)
            }
            items.append(Job.Item(name: name, quantity: quantity))
        }
        return items
    }

    // MARK: firing

    static func validate(_ job: Job) throws(JobError) {
        guard job.at != nil else { throw JobError("a delivery needs 'at', its arrival time") }
        guard job.every.isEmpty else { throw JobError("field 'every' is not for deliveries (they arrive once)") }
    }

    /// The heads-up, `lead` (else the configured one) before the arrival.
    static func leads(of job: Job, defaultLead: Span) throws(JobError) -> [Span] {
        // Subtracted from the arrival: bounded as a warning is, so no time is out of reach.
        let lead = job.effectiveLead(defaultLead: defaultLead)
        guard lead <= Job.warningRange.upperBound else {
            throw JobError("field 'lead' is out of range", value: "'\(TimeSpan.format(lead))'", detail: "longer than 366 days")
        }
        return [lead]
    }

    /// Heads-ups before the arrival, then the arrival.
    static func role(of instant: Instant, job: Job, isWarning: () -> Bool) -> OccurrenceRole {
        job.at.map { instant < $0 } == true ? .headsUp : .arrival
    }

    /// A heads-up has news until the arrival.
    static func stillAhead(_ occurrence: DueOccurrence, now: Instant) -> Bool {
        occurrence.role == .headsUp && (occurrence.job.at.map { $0 > now } ?? false)
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
        return (headsUp ? config.templates["headsUp"] : config.templates["arrival"], values)
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

extension HeraldConfig.PopupClass {
    public static let headsUp = Self("headsUp")
    public static let arrival = Self("arrival")
}
