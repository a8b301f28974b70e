/// Which calendar item a calendar job stands for.
public struct CalendarLink: Sendable, Equatable {
    /// The item's `.ics` file.
    public var file: String
    public var uid: String
    /// The configured source (vdir or file) it was read from.
    public var source: String
    /// Whether Dismiss and Snooze are written back into the file (RFC 9074): the source opted
    /// in and the item has no attendees.
    public var writeBack: Bool
    /// A to-do: its popup has Done, which completes it (`STATUS:COMPLETED`).
    public var todo: Bool
    /// One of Herald's synced jobs (`X-HERALD-KIND`: reminder, timer, delivery), else nil.
    public var heraldKind: String?
    public init(file: String, uid: String, source: String, writeBack: Bool, todo: Bool = false, heraldKind: String? = nil) {
        self.file = file; self.uid = uid; self.source = source; self.writeBack = writeBack; self.todo = todo; self.heraldKind = heraldKind
    }
}

/// One alarm of a calendar job: when it fires and which occurrence and VALARM it is for.
public struct CalendarAlarmEntry: Sendable, Equatable {
    public var at: Instant
    /// The occurrence's start, with its offset (`2026-11-23T14:30:00+01:00`), or its date when all day.
    public var start: String
    /// The occurrence's original start (RECURRENCE-ID), nil for an item that does not recur.
    public var recurrenceID: String?
    /// The VALARM: its component's recurrence id (nil: the master), index and UID.
    public var component: String?
    public var alarm: Int
    public var alarmUID: String?
    /// Set when an occurrence (an override) names itself or its place differently from the job.
    public var summary: String?
    public var location: String?
    public var sound: String?

    public init(at: Instant, start: String, recurrenceID: String? = nil, component: String? = nil, alarm: Int = 0,
                alarmUID: String? = nil, summary: String? = nil, location: String? = nil, sound: String? = nil) {
        self.at = at; self.start = start; self.recurrenceID = recurrenceID; self.component = component; self.alarm = alarm
        self.alarmUID = alarmUID; self.summary = summary; self.location = location; self.sound = sound
    }
}

/// An alarm of a calendar item (a VEVENT or VTODO's VALARM). heraldd's calendar sync writes one
/// job per item with its next alarms; the calendar stays the truth and the job is rewritten
/// whenever the item changes.
enum CalendarKind: JobKindRules {
    static let ownFields = ["calendar", "alarms"]
    static let maximumAlarms = 64

    /// Its popups use the reminders' settings (`popups.*.reminder`).
    static let config = KindConfig(
        templates: [.init(name: "calendar", defaults: .init(summary: Template(valid: "{title} {when}"), body: Template(valid: "{location}")),
                          placeholders: ["when", "start", "location"])],
        popupClasses: [])

    static func decodeFields(_ o: [String: JSONValue], into job: inout Job) throws(JobError) {
        if let c = o["calendar"] { job.calendar = try link(c) }
        if let a = o["alarms"] { job.alarms = try entries(a) }
    }

    static func encodeFields(_ job: Job) -> [(String, JSONWriter.Value)] {
        var f: [(String, JSONWriter.Value)] = []
        if let calendar = job.calendar { f.append(("calendar", json(calendar))) }
        if !job.alarms.isEmpty { f.append(("alarms", .array(job.alarms.map(json)))) }
        return f
    }

    /// The alarms still to show, in order (a missed one is caught up as a job's is).
    static func alarmTimes(of job: Job) -> [Instant] { Array(Set(job.alarms.map(\.at))).sorted() }

    static func role(of instant: Instant, job: Job, isWarning: () -> Bool) -> OccurrenceRole { .calendar }

    /// An alarm for an event still ahead (or an all-day one still today) has news.
    static func stillAhead(_ occurrence: DueOccurrence, now: Instant) -> Bool {
        guard let start = entry(of: occurrence.job, at: occurrence.occurrence)?.start else { return false }
        if let day = LocalDate(parsing: start) { return day >= LocalDate(now, in: occurrence.schedule.zone) }
        return ISO8601.parseInstant(start).map { $0 > now } ?? false
    }

    static func validate(_ job: Job) throws(JobError) {
        guard job.calendar != nil else { throw JobError("a calendar job needs 'calendar' (its item)") }
        guard !job.alarms.isEmpty else { throw JobError("a calendar job needs 'alarms'") }
        guard job.every.isEmpty, job.at == nil else { throw JobError("a calendar job takes its times from 'alarms', not 'at' or 'every'") }
    }

    /// "Dentist at 14:30", "Return the books due 17:00", "Mum's birthday today (all day)"; the location below.
    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String]) {
        let job = occurrence.job
        let zone = occurrence.schedule.zone
        let entry = entry(of: job, at: occurrence.occurrence)
        var values = ["location": entry?.location ?? job.text ?? ""]
        if let summary = entry?.summary { values["title"] = summary }
        if let start = entry?.start {
            if let date = LocalDate(parsing: start) {
                let today = LocalDate(now, in: zone)
                let day = date == today ? "today" : date == today.adding(days: 1) ? "tomorrow" : "on " + date.description
                values["start"] = day
                values["when"] = day + " (all day)"
            } else if let instant = ISO8601.parseInstant(start) {
                let clock = RelativeTime.clock(instant, zone: zone, now: now)
                values["start"] = clock
                // A to-do's time is when it is due; an event's, when it starts.
                values["when"] = job.calendar?.todo == true ? "due " + clock : (instant < now ? "began " : "at ") + clock
            }
        }
        return (config.templates["calendar"], values)
    }

    /// Snooze (and the configured choices) and Dismiss; a to-do's Done first, in Dismiss's place
    /// (a body click or closing the popup still dismisses it).
    static func actions(for occurrence: DueOccurrence, config: HeraldConfig) -> [PopupAction] {
        if isAlarm(occurrence.job) { return AlarmKind.actions(for: occurrence, config: config) }
        return [occurrence.job.calendar?.todo == true ? .done : .dismiss, .snooze(nil)] + config.popups.snoozeChoices.map { .snooze($0) }
    }

    static func popupClass(of occurrence: DueOccurrence) -> HeraldConfig.PopupClass { isAlarm(occurrence.job) ? .alarm : .reminder }

    // MARK: a synced alarm (`herald alarm --sync`) rings as an alarm does

    static func isAlarm(_ job: Job) -> Bool { job.calendar?.heraldKind == "alarm" }
    static func urgency(of job: Job) -> Job.Urgency? { isAlarm(job) ? .critical : nil }
    static func snoozeSpan(of job: Job, config: HeraldConfig) -> Span { isAlarm(job) ? config.alarms.snooze : config.snooze }
    static func ringsFor(_ job: Job, config: HeraldConfig) -> Span? { isAlarm(job) ? config.alarms.ringFor : nil }
    static func ringsWhenQuiet(_ job: Job, config: HeraldConfig) -> Bool { isAlarm(job) && config.alarms.ringsWhenQuiet }

    static func summary(_ job: Job, config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String {
        var line = job.title ?? job.calendar?.uid ?? ""
        if let text = job.text, !text.isEmpty { line += " · " + text }
        return line
    }

    /// The alarm entry firing at `instant`.
    static func entry(of job: Job, at instant: Instant) -> CalendarAlarmEntry? {
        job.alarms.first { $0.at == instant }
    }

    // MARK: JSON

    static func link(_ value: JSONValue) throws(JobError) -> CalendarLink {
        guard case .object(let o) = value else { throw JobError("field 'calendar' is not an object", value: value.snippet()) }
        if let unknown = o.keys.filter({ !["file", "uid", "source", "writeBack", "todo", "kind"].contains($0) }).sorted().first {
            throw JobError("unknown field 'calendar.\(unknown)'")
        }
        func text(_ key: String) throws(JobError) -> String {
            guard let v = o[key] else { throw JobError("missing field 'calendar.\(key)'") }
            return try Job.string(v, "calendar." + key)
        }
        var writeBack = false
        if let w = o["writeBack"] {
            guard case .bool(let b) = w else { throw JobError("field 'calendar.writeBack' is not true or false", value: w.snippet()) }
            writeBack = b
        }
        var todo = false
        if let t = o["todo"] {
            guard case .bool(let b) = t else { throw JobError("field 'calendar.todo' is not true or false", value: t.snippet()) }
            todo = b
        }
        var kind: String? = nil
        if let k = o["kind"] {
            guard case .string(let s) = k, ["reminder", "timer", "delivery", "alarm"].contains(s) else {
                throw JobError("field 'calendar.kind' is not reminder, timer, delivery or alarm", value: k.snippet())
            }
            kind = s
        }
        return CalendarLink(file: try text("file"), uid: try text("uid"), source: try text("source"), writeBack: writeBack,
                            todo: todo, heraldKind: kind)
    }

    static func entries(_ value: JSONValue) throws(JobError) -> [CalendarAlarmEntry] {
        guard case .array(let list) = value, !list.isEmpty, list.count <= maximumAlarms else {
            throw JobError("field 'alarms' is not a list of 1 to \(maximumAlarms) alarms", value: value.snippet())
        }
        let keys = ["at", "start", "recurrenceId", "component", "alarm", "alarmUid", "summary", "location", "sound"]
        var out: [CalendarAlarmEntry] = []
        for (k, element) in list.enumerated() {
            let path = "alarms[\(k)]"
            guard case .object(let o) = element else { throw JobError("field '\(path)' is not an object", value: element.snippet()) }
            if let unknown = o.keys.filter({ !keys.contains($0) }).sorted().first { throw JobError("unknown field '\(path).\(unknown)'") }
            guard let atValue = o["at"], case .string(let atText) = atValue, let at = ISO8601.parseInstant(atText) else {
                throw JobError("field '\(path).at' is not an ISO-8601 time with offset or Z", value: o["at"]?.snippet())
            }
            guard let s = o["start"], case .string(let start) = s else { throw JobError("missing field '\(path).start'") }
            func optional(_ key: String) throws(JobError) -> String? {
                guard let v = o[key] else { return nil }
                return try Job.string(v, path + "." + key)
            }
            var index = 0
            if let a = o["alarm"] {
                guard case .number(let n) = a, n == n.rounded(), n >= 0, n < 1000 else {
                    throw JobError("field '\(path).alarm' is not a whole number from 0 to 999", value: a.snippet())
                }
                index = Int(n)
            }
            out.append(CalendarAlarmEntry(at: at, start: start, recurrenceID: try optional("recurrenceId"), component: try optional("component"),
                                          alarm: index, alarmUID: try optional("alarmUid"), summary: try optional("summary"),
                                          location: try optional("location"), sound: try optional("sound")))
        }
        return out
    }

    static func json(_ link: CalendarLink) -> JSONWriter.Value {
        var f: [(String, JSONWriter.Value)] = [("file", .string(link.file)), ("uid", .string(link.uid)), ("source", .string(link.source)),
                                               ("writeBack", .bool(link.writeBack))]
        if link.todo { f.append(("todo", .bool(true))) }
        if let kind = link.heraldKind { f.append(("kind", .string(kind))) }
        return .object(f)
    }

    static func json(_ e: CalendarAlarmEntry) -> JSONWriter.Value {
        var f: [(String, JSONWriter.Value)] = [("at", .string(ISO8601.format(e.at, offsetSeconds: 0, zulu: true))), ("start", .string(e.start))]
        if let r = e.recurrenceID { f.append(("recurrenceId", .string(r))) }
        if let c = e.component { f.append(("component", .string(c))) }
        if e.alarm != 0 { f.append(("alarm", .int(Int64(e.alarm)))) }
        if let u = e.alarmUID { f.append(("alarmUid", .string(u))) }
        if let s = e.summary { f.append(("summary", .string(s))) }
        if let l = e.location { f.append(("location", .string(l))) }
        if let s = e.sound { f.append(("sound", .string(s))) }
        return .object(f)
    }
}
