#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a job document was refused; `description` names the field, the value and the reason.
public struct JobError: Error, Equatable, CustomStringConvertible {
    /// The reason without any value taken from the file: safe for logs above debug level.
    public var reason: String
    /// The offending value, quoted and shortened, when there is one.
    public var value: String?
    /// More detail about the value (e.g. a parser's complaint), which may quote it.
    public var detail: String?

    public init(_ reason: String, value: String? = nil, detail: String? = nil) {
        self.reason = reason; self.value = value; self.detail = detail
    }

    public var description: String {
        var s = reason
        if let value { s += " (\(value))" }
        if let detail { s += ": " + detail }
        return s
    }
}

extension Job {
    static let fields: Set<String> = ["version", "kind", "id", "at", "every", "timezone", "title", "text",
                                      "icon", "urgency", "recipient", "items", "lead", "tags",
                                      "url", "repeat", "sound", "warn", "times", "target", "unit", "targetType",
                                      "calendar", "alarms"]

    /// Decodes and validates one job document.
    ///
    /// - Parameters:
    ///   - data: the file's bytes (UTF-8 JSON, one object).
    ///   - zones: where the zones the job names are looked up (kept in `Job.zones`).
    ///   - localZone: the zone a calendar expression without one is read in (for validation).
    /// - Throws: `JobError` naming the first problem found.
    public static func decode(_ data: Data, zones: ZoneLookup, localZone: TimeZoneRules = .utc) throws(JobError) -> Job {
        let value: JSONValue
        do { value = try JSONValue.parse(data) } catch { throw JobError("not valid JSON", detail: error.detail) }
        return try decode(value, zones: zones, localZone: localZone)
    }

    /// Validates an already-parsed document. See `decode(_:zones:localZone:)`.
    public static func decode(_ value: JSONValue, zones: ZoneLookup, localZone: TimeZoneRules = .utc) throws(JobError) -> Job {
        guard case .object(let o) = value else { throw JobError("not a JSON object but \(value.typeName)") }
        if let unknown = o.keys.filter({ !fields.contains($0) }).sorted().first {
            throw JobError("unknown field '\(unknown)'")
        }
        guard let versionValue = o["version"] else { throw JobError("missing field 'version'") }
        guard case .number(let v) = versionValue, v == v.rounded() else {
            throw JobError("field 'version' is not a whole number", value: versionValue.snippet())
        }
        guard v == Double(currentVersion) else {
            throw JobError("unsupported version (this Herald reads version \(currentVersion))", value: versionValue.snippet())
        }
        guard let kindValue = o["kind"] else { throw JobError("missing field 'kind'") }
        guard case .string(let kindText) = kindValue, let kind = Kind(rawValue: kindText) else {
            throw JobError("field 'kind' is not one of reminder, delivery, habit, calendar", value: kindValue.snippet())
        }
        var job = Job(kind: kind)
        if let idValue = o["id"] {
            let id = try string(idValue, "id")
            guard isValidID(id) else {
                throw JobError("field 'id' is not a valid id", value: idValue.snippet(), detail: "use 1 to 64 of A-Z a-z 0-9 . _ -")
            }
            job.id = id
        }
        if let atValue = o["at"] {
            let text = try string(atValue, "at")
            guard let at = ISO8601.parseInstant(text) else {
                throw JobError("field 'at' is not an ISO-8601 time with offset or Z", value: atValue.snippet())
            }
            job.at = at
        }
        if let everyValue = o["every"] { job.every = try every(everyValue) }
        if let zoneValue = o["timezone"] {
            let zone = try string(zoneValue, "timezone")
            guard TimeZoneRules.isPlausibleName(zone), zones(zone) != nil else {
                throw JobError("field 'timezone' is not a known time zone", value: zoneValue.snippet())
            }
            job.timezone = zone
        }
        if let t = o["title"] { job.title = try string(t, "title") }
        if let t = o["text"] { job.text = try string(t, "text") }
        if let t = o["icon"] {
            let icon = try string(t, "icon")
            guard !icon.isEmpty else { throw JobError("field 'icon' is empty") }
            job.icon = icon
        }
        if let u = o["urgency"] {
            guard case .string(let text) = u, let urgency = Urgency(rawValue: text) else {
                throw JobError("field 'urgency' is not one of low, normal, critical", value: u.snippet())
            }
            job.urgency = urgency
        }
        if let r = o["recipient"] { job.recipient = try recipient(r) }
        if let i = o["items"] { job.items = try items(i) }
        if let l = o["lead"] {
            let text = try string(l, "lead")
            do { job.lead = try TimeSpan.parse(text) } catch {
                throw JobError("field 'lead' is not a time span", value: l.snippet(), detail: error.description)
            }
            guard leadRange.contains(job.lead!) else { throw JobError("field 'lead' is longer than 366 days", value: l.snippet()) }
        }
        if let t = o["tags"] { job.tags = try tags(t) }
        if let u = o["url"] {
            let url = try string(u, "url")
            guard isValidURL(url) else { throw JobError("field 'url' is not an http or https URL", value: u.snippet()) }
            job.url = url
        }
        if let r = o["repeat"] {
            let text = try string(r, "repeat")
            do { job.repeat = try TimeSpan.parse(text) } catch {
                throw JobError("field 'repeat' is not a time span", value: r.snippet(), detail: error.description)
            }
            guard job.repeat! >= repeatRange.lowerBound else { throw JobError("field 'repeat' is shorter than 1 second", value: r.snippet()) }
            guard job.repeat! <= repeatRange.upperBound else { throw JobError("field 'repeat' is longer than 366 days", value: r.snippet()) }
        }
        if let w = o["warn"] { job.warn = try warnings(w) }
        if let v = o["sound"] {
            let sound = try string(v, "sound")
            guard isValidSound(sound) else {
                throw JobError("field 'sound' is not a sound-theme name, an absolute path or 'none'", value: v.snippet())
            }
            job.sound = sound
        }
        if let t = o["times"] {
            let text = try string(t, "times")
            do { job.times = try HabitFrequency.parse(text) } catch {
                throw JobError("field 'times' is not a frequency", value: t.snippet(), detail: error.description)
            }
        }
        job.target = try target(o)
        if let c = o["calendar"] { job.calendar = try CalendarKind.link(c) }
        if let a = o["alarms"] { job.alarms = try CalendarKind.entries(a) }
        try job.checkKindRules(present: Set(o.keys))
        job.resolveZones(zones)
        if !job.every.isEmpty { _ = try JobSchedule(job, localZone: localZone) }
        return job
    }

    /// A calendar expression, or a list of them (fired at their union).
    static func every(_ value: JSONValue) throws(JobError) -> [String] {
        let list: [JSONValue]
        if case .array(let entries) = value { list = entries } else { list = [value] }
        guard !list.isEmpty else { throw JobError("field 'every' is an empty list") }
        guard list.count <= maximumSchedules else {
            throw JobError("field 'every' has \(list.count) schedules; the most is \(maximumSchedules)")
        }
        var schedules: [String] = []
        for entry in list {
            guard case .string(let every) = entry else {
                throw JobError("field 'every' is not a calendar expression or a list of them", value: entry.snippet())
            }
            guard !every.trimmingSpaces.isEmpty else { throw JobError("field 'every' is empty") }
            if !schedules.contains(every) { schedules.append(every) }
        }
        return schedules
    }

    /// Spans ahead of each occurrence: `["1d", "15m"]`.
    static func warnings(_ value: JSONValue) throws(JobError) -> [Span] {
        guard case .array(let list) = value else { throw JobError("field 'warn' is not an array of time spans", value: value.snippet()) }
        guard list.count <= maximumWarnings else {
            throw JobError("field 'warn' has \(list.count) warnings; the most is \(maximumWarnings)")
        }
        var spans: [Span] = []
        for entry in list {
            guard case .string(let text) = entry else { throw JobError("field 'warn' holds a value that is not a time span", value: entry.snippet()) }
            let span: Span
            do { span = try TimeSpan.parse(text) } catch {
                throw JobError("field 'warn' holds a value that is not a time span", value: entry.snippet(), detail: error.description)
            }
            guard warningRange.contains(span) else {
                throw JobError("field 'warn' holds a span outside 1 second to 366 days", value: entry.snippet())
            }
            if !spans.contains(span) { spans.append(span) }
        }
        return spans
    }

    /// `target`, `unit` and `targetType` together: a measurable habit's goal.
    static func target(_ o: [String: JSONValue]) throws(JobError) -> HabitTarget? {
        guard let t = o["target"] else {
            if o["unit"] != nil || o["targetType"] != nil { throw JobError("fields 'unit' and 'targetType' need 'target'") }
            return nil
        }
        guard case .number(let amount) = t, amount.isFinite, amount > 0, amount <= 1_000_000 else {
            throw JobError("field 'target' is not a number above 0 and at most 1000000", value: t.snippet())
        }
        var target = HabitTarget(amount: amount, unit: "")
        if let u = o["unit"] {
            let unit = try string(u, "unit")
            guard unit.count <= 32, !unit.contains(where: { $0.isNewline }) else {
                throw JobError("field 'unit' is longer than 32 characters or holds a line break", value: u.snippet())
            }
            target.unit = unit.trimmingSpaces
        }
        if let k = o["targetType"] {
            guard case .string(let text) = k, let kind = HabitTarget.Kind(rawValue: text) else {
                throw JobError("field 'targetType' is not one of at-least, at-most", value: k.snippet())
            }
            target.kind = kind
        }
        return target
    }

    static func tags(_ value: JSONValue) throws(JobError) -> [String] {
        guard case .array(let list) = value else { throw JobError("field 'tags' is not an array of strings", value: value.snippet()) }
        guard list.count <= maximumTags else { throw JobError("field 'tags' has \(list.count) tags; the most is \(maximumTags)") }
        var tags: [String] = []
        for element in list {
            guard case .string(let tag) = element, isValidTag(tag) else {
                throw JobError("field 'tags' holds an invalid tag", value: element.snippet(), detail: "use 1 to 32 of a-z 0-9 . _ -")
            }
            if !tags.contains(tag) { tags.append(tag) }
        }
        return tags
    }

    /// Fields that belong to another kind are refused; then the kind's own rules apply.
    func checkKindRules(present: Set<String>) throws(JobError) {
        for other in Kind.allCases where other != kind {
            if let field = other.rules.ownFields.first(where: present.contains) {
                throw JobError("field '\(field)' is only for \(other.plural)")
            }
        }
        try kind.rules.validate(self)
    }

    static func string(_ value: JSONValue, _ field: String) throws(JobError) -> String {
        guard case .string(let s) = value else { throw JobError("field '\(field)' is not a string", value: value.snippet()) }
        return s
    }

    static func recipient(_ value: JSONValue) throws(JobError) -> Recipient {
        guard case .object(let o) = value else {
            throw JobError("field 'recipient' is not an object with 'name' and 'address'", value: value.snippet())
        }
        if let unknown = o.keys.filter({ $0 != "name" && $0 != "address" }).sorted().first {
            throw JobError("unknown field 'recipient.\(unknown)'")
        }
        var r = Recipient()
        if let n = o["name"] { r.name = try string(n, "recipient.name") }
        if let a = o["address"] { r.address = try string(a, "recipient.address") }
        return r
    }

    static func items(_ value: JSONValue) throws(JobError) -> [Item] {
        guard case .array(let list) = value else { throw JobError("field 'items' is not an array", value: value.snippet()) }
        var items: [Item] = []
        for (k, entry) in list.enumerated() {
            let path = "items[\(k)]"
            guard case .object(let o) = entry else { throw JobError("field '\(path)' is not an object", value: entry.snippet()) }
            if let unknown = o.keys.filter({ $0 != "name" && $0 != "quantity" }).sorted().first {
                throw JobError("unknown field '\(path).\(unknown)'")
            }
            guard let nameValue = o["name"] else { throw JobError("missing field '\(path).name'") }
            let name = try string(nameValue, "\(path).name")
            guard !name.trimmingSpaces.isEmpty else { throw JobError("field '\(path).name' is empty") }
            var quantity = 1
            if let q = o["quantity"] {
                guard case .number(let n) = q, n == n.rounded(), n >= 1, n <= 1_000_000 else {
                    throw JobError("field '\(path).quantity' is not a whole number from 1 to 1000000", value: q.snippet())
                }
                quantity = Int(n)
            }
            items.append(Item(name: name, quantity: quantity))
        }
        return items
    }

    /// The document as JSON, fields in the documented order. `at` is written with the offset
    /// of `zone` at that instant (UTC `Z` by default).
    public func jsonValue(zone: TimeZoneRules = .utc) -> JSONWriter.Value {
        var f: [(String, JSONWriter.Value)] = [("version", .int(Int64(version))), ("kind", .string(kind.rawValue))]
        if let id { f.append(("id", .string(id))) }
        if let at {
            f.append(("at", .string(ISO8601.format(at, offsetSeconds: zone.offset(at: at), zulu: true))))
        }
        if every.count == 1 { f.append(("every", .string(every[0]))) }
        if every.count > 1 { f.append(("every", .array(every.map { .string($0) }))) }
        if let timezone { f.append(("timezone", .string(timezone))) }
        if let title { f.append(("title", .string(title))) }
        if let text { f.append(("text", .string(text))) }
        if let icon { f.append(("icon", .string(icon))) }
        if let urgency { f.append(("urgency", .string(urgency.rawValue))) }
        if let recipient {
            var r: [(String, JSONWriter.Value)] = []
            if let n = recipient.name { r.append(("name", .string(n))) }
            if let a = recipient.address { r.append(("address", .string(a))) }
            f.append(("recipient", .object(r)))
        }
        if !items.isEmpty {
            f.append(("items", .array(items.map { .object([("name", .string($0.name)), ("quantity", .int(Int64($0.quantity)))]) })))
        }
        if let lead { f.append(("lead", .string(TimeSpan.format(lead)))) }
        if !warn.isEmpty { f.append(("warn", .array(warn.map { .string(TimeSpan.format($0)) }))) }
        if !tags.isEmpty { f.append(("tags", .array(tags.map { .string($0) }))) }
        if let url { f.append(("url", .string(url))) }
        if let `repeat` { f.append(("repeat", .string(TimeSpan.format(`repeat`)))) }
        if let sound { f.append(("sound", .string(sound))) }
        if let times { f.append(("times", .string(times.description))) }
        if let target {
            f.append(("target", .number(target.amount)))
            if !target.unit.isEmpty { f.append(("unit", .string(target.unit))) }
            if target.kind != .atLeast { f.append(("targetType", .string(target.kind.rawValue))) }
        }
        if let calendar { f.append(("calendar", CalendarKind.json(calendar))) }
        if !alarms.isEmpty { f.append(("alarms", .array(alarms.map(CalendarKind.json)))) }
        return .object(f)
    }

    /// One line of JSON (no trailing newline): the job file's content.
    public func encoded(zone: TimeZoneRules = .utc) -> String { JSONWriter.render(jsonValue(zone: zone)) }
}
