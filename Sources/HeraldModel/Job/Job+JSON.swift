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
    /// The fields every kind may carry; each kind adds its own (`JobKindRules.ownFields`).
    static let commonFields = ["version", "kind", "id", "at", "every", "timezone", "title", "text", "icon", "urgency",
                               "tags", "sound", "warn", "wake"]
    /// `commonFields` by place (a test holds the two in step; the names are not taken from the
    /// cases at run time: that reflection cost `herald remind` a third of a millisecond).
    enum CommonField: Int, CaseIterable {
        case version, kind, id, at, every, timezone, title, text, icon, urgency, tags, sound, warn, wake
    }
    /// Every field, the common ones first: a member's place here is its bit in `Members.present`.
    static let fieldNames = commonFields + Kind.allCases.flatMap { $0.rules.ownFields }
    static let fieldIndex: [String: Int] = {
        precondition(fieldNames.count <= 64, "a job's fields are bits of a UInt64")
        return Dictionary(fieldNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }()
    /// The bits of each kind's own fields, in `Kind.allCases` order.
    static let ownFieldBits = Kind.allCases.map { kind in (kind, kind.rules.ownFields.reduce(UInt64(0)) { $0 | 1 << fieldIndex[$1]! }) }

    /// Which fields a document holds, found with one lookup per member: a line of a batch of
    /// 100,000 was looked up about forty times before (BENCHMARKS.md, "the check of a line").
    struct Members {
        let object: [String: JSONValue]
        var present: UInt64 = 0
        var unknown = false
        init(_ object: [String: JSONValue]) {
            self.object = object
            for key in object.keys {
                if let i = Job.fieldIndex[key] { present |= 1 << i } else { unknown = true }
            }
        }
        // The name from the table: `"\(field)"` would go through reflection every time.
        subscript(_ field: CommonField) -> JSONValue? { present & 1 << field.rawValue == 0 ? nil : object[Job.fieldNames[field.rawValue]] }
    }

    /// Decodes and validates one job document.
    ///
    /// - Parameters:
    ///   - data: the file's bytes (UTF-8 JSON, one object).
    ///   - zones: where the zones the job names are looked up (kept in `Job.zones`).
    ///   - localZone: the zone a calendar expression without one is read in (for validation).
    /// - Throws: `JobError` naming the first problem found.
    public static func decode(_ data: [UInt8], zones: ZoneLookup, localZone: TimeZoneRules = .utc) throws(JobError) -> Job {
        try decode(data[...], zones: zones, localZone: localZone)
    }

    /// The same, for a part of a buffer (a batch's line) without copying it.
    public static func decode(_ bytes: ArraySlice<UInt8>, zones: ZoneLookup, localZone: TimeZoneRules = .utc) throws(JobError) -> Job {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw JobError("not valid JSON", detail: error.detail) }
        return try decode(value, zones: zones, localZone: localZone)
    }

    /// Validates an already-parsed document. See `decode(_:zones:localZone:)`.
    public static func decode(_ value: JSONValue, zones: ZoneLookup, localZone: TimeZoneRules = .utc) throws(JobError) -> Job {
        guard case .object(let o) = value else { throw JobError("not a JSON object but \(value.typeName)") }
        let m = Members(o)
        if m.unknown, let unknown = o.keys.filter({ fieldIndex[$0] == nil }).sorted().first {
            throw JobError("unknown field '\(unknown)'")
        }
        guard let versionValue = m[.version] else { throw JobError("missing field 'version'") }
        guard case .number(let v) = versionValue, v == v.rounded() else {
            throw JobError("field 'version' is not a whole number", value: versionValue.snippet())
        }
        guard v == Double(currentVersion) else {
            throw JobError("unsupported version (this Herald reads version \(currentVersion))", value: versionValue.snippet())
        }
        guard let kindValue = m[.kind] else { throw JobError("missing field 'kind'") }
        guard case .string(let kindText) = kindValue, let kind = Kind(rawValue: kindText) else {
            throw JobError("field 'kind' is not one of reminder, delivery, habit, calendar", value: kindValue.snippet())
        }
        var job = Job(kind: kind)
        if let idValue = m[.id] {
            let id = try string(idValue, "id")
            guard isValidID(id) else {
                throw JobError("field 'id' is not a valid id", value: idValue.snippet(), detail: "use 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'")
            }
            job.id = id
        }
        if let atValue = m[.at] {
            let text = try string(atValue, "at")
            guard let at = ISO8601.parseInstant(text) else {
                throw JobError("field 'at' is not an ISO-8601 time with offset or Z", value: atValue.snippet())
            }
            job.at = at
        }
        if let everyValue = m[.every] { job.every = try every(everyValue) }
        if let zoneValue = m[.timezone] {
            let zone = try string(zoneValue, "timezone")
            guard TimeZoneRules.isPlausibleName(zone), zones(zone) != nil else {
                throw JobError("field 'timezone' is not a known time zone", value: zoneValue.snippet())
            }
            job.timezone = zone
        }
        if let t = m[.title] { job.title = try string(t, "title") }
        if let t = m[.text] { job.text = try string(t, "text") }
        if let t = m[.icon] {
            let icon = try string(t, "icon")
            guard !icon.isEmpty else { throw JobError("field 'icon' is empty") }
            job.icon = icon
        }
        if let u = m[.urgency] {
            guard case .string(let text) = u, let urgency = Urgency(rawValue: text) else {
                throw JobError("field 'urgency' is not one of low, normal, critical", value: u.snippet())
            }
            job.urgency = urgency
        }
        if let t = m[.tags] { job.tags = try tags(t) }
        if let w = m[.warn] { job.warn = try warnings(w) }
        if let v = m[.sound] {
            let sound = try string(v, "sound")
            guard isValidSound(sound) else {
                throw JobError("field 'sound' is not a sound-theme name, an absolute path or 'none'", value: v.snippet())
            }
            job.sound = sound
        }
        if let w = m[.wake] {
            guard case .bool(let b) = w else { throw JobError("field 'wake' is not true or false", value: w.snippet()) }
            job.wake = b
        }
        try job.checkKindRules(present: m.present) { job throws(JobError) in try kind.rules.decodeFields(o, into: &job) }
        // Calendar jobs have ids of their own: no other job can take one, or shadow one.
        if kind == .calendar {
            guard let id = job.id, CalendarPlanner.isCalendarJobID(id) else { throw JobError("a calendar job's 'id' must start with 'cal-'") }
        } else if let id = job.id, CalendarPlanner.isCalendarJobID(id) {
            throw JobError("field 'id' starts with 'cal-', which only calendar jobs may", value: m[.id]?.snippet())
        }
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
    mutating func checkKindRules(present: UInt64, decodeOwn: (inout Job) throws(JobError) -> Void = { _ in }) throws(JobError) {
        for (other, bits) in Self.ownFieldBits where other != kind && present & bits != 0 {
            let field = other.rules.ownFields.first { present & 1 << Self.fieldIndex[$0]! != 0 }!
            throw JobError("field '\(field)' is only for \(other.plural)")
        }
        try decodeOwn(&self)
        try kind.rules.validate(self)
    }

    static func string(_ value: JSONValue, _ field: String) throws(JobError) -> String {
        guard case .string(let s) = value else { throw JobError("field '\(field)' is not a string", value: value.snippet()) }
        return s
    }

    /// The document as JSON: the fields every kind has, in the documented order, then the
    /// kind's own (`JobKindRules.encodeFields`). `at` is written with the offset
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
        if !warn.isEmpty { f.append(("warn", .array(warn.map { .string(TimeSpan.format($0)) }))) }
        if !tags.isEmpty { f.append(("tags", .array(tags.map { .string($0) }))) }
        if let sound { f.append(("sound", .string(sound))) }
        if let wake { f.append(("wake", .bool(wake))) }
        f += kind.rules.encodeFields(self)
        return .object(f)
    }

    /// One line of JSON (no trailing newline): the job file's content.
    public func encoded(zone: TimeZoneRules = .utc) -> String { JSONWriter.render(jsonValue(zone: zone)) }
}

extension Job {
    /// The document this job is written as, checked as heraldd's intake will check it: its size
    /// once written out (a control character takes six bytes there, a quote two) and the intake's
    /// own decoder. Every writer of a job file calls it, so what a writer accepts heraldd shows.
    ///
    /// - Parameter zones: where the zones it names are found (default: the rules it carries).
    /// - Throws: `JobError` naming what is wrong.
    public func checkedDocument(zone: TimeZoneRules, localZone: TimeZoneRules, zones: ZoneLookup? = nil) throws(JobError) -> String {
        let document = encoded(zone: zone) + "\n"
        let size = document.utf8.count
        guard size <= Job.maximumFileSize else {
            // Name the field that takes the room: the person knows it by that name.
            let fields: [(String, String?)] = [("title", title), ("text", text), ("icon", icon), ("sound", sound)]
                + kind.rules.largeFields(of: self)
            let widest = fields.compactMap { name, value in value.map { (name, JSONWriter.render(.string($0)).utf8.count) } }.max { $0.1 < $1.1 }
            let which = widest.map { " (its \($0.0) takes \($0.1) bytes written out)" } ?? ""
            throw JobError("the job file would be \(size) bytes, more than the \(Job.maximumFileSize / 1024) KiB heraldd takes" + which)
        }
        _ = try Job.decode(Array(document.utf8), zones: zones ?? zoneLookup, localZone: localZone)
        return document
    }
}
