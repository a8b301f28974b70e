/// A Herald job stored as an iCalendar item in a synced collection (`sync.calendar`), so that
/// every machine and phone reading the collection alarms it: a reminder or timer as a VTODO due
/// at its time with a VALARM there, a delivery as a VEVENT at its arrival with its address as
/// LOCATION and VALARMs at the heads-up and the arrival. Repeats are REPEAT and DURATION,
/// warnings more VALARMs, `every` an RRULE (`CalendarEvent.recurrenceRule`). Every VALARM has
/// a UID, so a Dismiss or Snooze can name it (RFC 9074).
public enum SyncedItem {
    /// Why a job cannot be synced; the message names the value.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The item's UID and file name for a job id: `herald-ID`, `herald-ID.ics`.
    public static func uid(for id: String) -> String { "herald-" + id }
    public static func fileName(for id: String) -> String { uid(for: id) + ".ics" }

    /// The job id of an item Herald wrote (`herald-ID`), else nil. A UID comes from whoever
    /// wrote the calendar: the id is a plain name (no `/`, no leading dot, no `..`), and never
    /// one of the calendar jobs' own (`cal-`).
    public static func jobID(ofUID uid: String) -> String? {
        guard uid.hasPrefix("herald-") else { return nil }
        let id = String(uid.dropFirst(7))
        guard Job.isValidID(id), !id.hasPrefix("."), !id.includes(".."), !CalendarPlanner.isCalendarJobID(id) else { return nil }
        return id
    }

    /// The property that marks Herald's items and says which kind they stand for.
    public static let kindProperty = "X-HERALD-KIND"

    /// The item for `job`, whose id is set and which has passed validation.
    ///
    /// - Parameters:
    ///   - schedule: the job's schedule (its zone and calendar expressions).
    ///   - now: when it is written (DTSTAMP; a recurring job starts at its first elapse after it).
    ///   - maxRepeats: how often a `repeat` reminder shows again at most (`popups.maxRepeats`).
    ///   - defaultLead: a delivery's heads-up lead when it has none of its own.
    /// - Throws: `Refusal` for a kind or a schedule an item cannot carry.
    public static func document(_ job: Job, schedule: JobSchedule, now: Instant, maxRepeats: Int, defaultLead: Span,
                                product: String = "Herald " + HeraldVersion.string) throws(Refusal) -> String {
        guard let id = job.id else { throw Refusal("the job has no id") }
        let isEvent: Bool
        switch job.kind {
        case .reminder, .alarm: isEvent = false
        case .delivery: isEvent = true
        default: throw Refusal("only reminders, timers, alarms and deliveries can be synced, not a \(job.kind.rawValue)")
        }
        guard schedule.calendars.count <= 1 else {
            throw Refusal("a synced job takes one 'every' schedule, not \(schedule.calendars.count): one calendar item has one RRULE")
        }
        var w = ICalWriter()
        w.raw("BEGIN", "VCALENDAR")
        w.raw("VERSION", "2.0")
        w.text("PRODID", "-//Herald//" + product + "//EN")

        // When: a one-shot in UTC; a recurring job at its first elapse, in its zone with the
        // zone's rules (a VTIMEZONE), so the wall time stays put across daylight saving.
        let main: Instant
        var rule: String? = nil
        var zoneLines: [String] = []
        var stamp: (Instant) -> (params: String, value: String) = { ("", ICalWriter.utc($0)) }
        if let calendar = schedule.calendars.first {
            do { rule = try calendar.recurrenceRule() } catch { throw Refusal("'every' \(error.description)") }
            guard let first = schedule.main(after: now) else {
                throw Refusal("'every' '\(calendar.source)' never elapses again")
            }
            main = first
            let zone = calendar.ownZone ?? schedule.zone
            if zone.isUTC {
                stamp = { ("", ICalWriter.utc($0)) }
            } else {
                let name = calendar.zoneName ?? job.timezone ?? zone.identifier
                let tzid = TimeZoneRules.isPlausibleName(name) ? name : "Herald-Local"
                guard let vtimezone = zone.vtimezone(tzid: tzid) else {
                    throw Refusal("the zone '\(name)' has rules a calendar's VTIMEZONE cannot say: sync a one-time job, or give 'every' a zone")
                }
                zoneLines = vtimezone
                stamp = { (";TZID=" + tzid, ICalWriter.local($0, in: zone)) }
            }
        } else {
            guard let at = job.at else { throw Refusal("the job has neither 'at' nor 'every'") }
            main = at
        }
        for line in zoneLines { w.raw(String(line.prefix { $0 != ":" }), String(line.drop { $0 != ":" }.dropFirst())) }

        let component = isEvent ? "VEVENT" : "VTODO"
        w.begin(component)
        w.text("UID", uid(for: id))
        let now = ICalWriter.utc(now)
        w.raw("DTSTAMP", now)
        w.raw("CREATED", now)
        w.raw("LAST-MODIFIED", now)
        let (params, value) = stamp(main)
        let summary: String
        switch job.kind {
        case .delivery:
            summary = job.title ?? Self.deliveryTitle(job)
            w.text("SUMMARY", summary)
            w.raw("DTSTART" + params, value)
            if let address = job.recipient?.address, !address.isEmpty { w.text("LOCATION", address) }
            var lines: [String] = []
            if let name = job.recipient?.name, !name.isEmpty { lines.append("For " + name) }
            lines += job.items.map { $0.quantity == 1 ? $0.name : "\($0.name) ×\($0.quantity)" }
            if let text = job.text, !text.isEmpty { lines.append(text) }
            if !lines.isEmpty { w.text("DESCRIPTION", lines.joined(separator: "\n")) }
            if let url = job.url { w.raw("URL", url) }
        default:
            summary = job.title ?? job.text ?? (job.isTimer ? "Timer" : job.kind == .alarm ? "Alarm" : "Reminder")
            w.text("SUMMARY", summary)
            if job.title != nil, let text = job.text, !text.isEmpty { w.text("DESCRIPTION", text) }
            // A recurring to-do needs a DTSTART for its RRULE; DUE is its time.
            if rule != nil { w.raw("DTSTART" + params, value) }
            w.raw("DUE" + params, value)
            w.raw("STATUS", "NEEDS-ACTION")
        }
        if let rule { w.raw("RRULE", rule) }
        switch job.effectiveUrgency(HeraldConfig()) == .critical ? .critical : job.urgency {
        case .critical?: w.raw("PRIORITY", "1")
        case .low?: w.raw("PRIORITY", "9")
        default: break
        }
        let kindName = job.kind == .delivery ? "delivery" : job.kind == .alarm ? "alarm" : job.isTimer ? "timer" : "reminder"
        w.raw(kindProperty, kindName)
        if !job.tags.isEmpty { w.raw("CATEGORIES", job.tags.map(ICalWriter.escape).joined(separator: ",")) }

        // The alarms: the main one (repeating as the reminder does), the heads-up, the warnings.
        // A to-do's are related to its DUE (RELATED=END), an event's to its start.
        func alarm(_ index: Int, before: Span, repeats: Bool) {
            w.begin("VALARM")
            w.raw("UID", uid(for: id) + "-alarm-\(index)")
            // An alarm's main VALARM is AUDIO, so a phone that syncs the calendar rings it;
            // RFC 5545 gives an AUDIO alarm no DESCRIPTION.
            if job.kind == .alarm && index == 0 {
                w.raw("ACTION", "AUDIO")
            } else {
                w.raw("ACTION", "DISPLAY")
                w.text("DESCRIPTION", summary)
            }
            let offset = ICalWriter.duration(Span(microseconds: -before.microseconds))
            w.raw(isEvent ? "TRIGGER" : "TRIGGER;RELATED=END", offset)
            if repeats, let step = job.repeat, maxRepeats > 0 {
                w.raw("REPEAT", String(maxRepeats))
                w.raw("DURATION", ICalWriter.duration(step))
            }
            w.end("VALARM")
        }
        alarm(0, before: .zero, repeats: true)
        var index = 1
        var leads = job.warn
        if job.kind == .delivery { leads.append(job.effectiveLead(defaultLead: defaultLead)) }
        for lead in Array(Set(leads.filter { $0 > .zero })).sorted(by: >) {
            alarm(index, before: lead, repeats: false)
            index += 1
        }
        w.end(component)
        w.raw("END", "VCALENDAR")
        return w.document
    }

    /// "Delivery: 3 items", "Delivery".
    static func deliveryTitle(_ job: Job) -> String {
        let count = job.itemCount
        return count == 0 ? "Delivery" : "Delivery: \(count) item\(count == 1 ? "" : "s")"
    }
}

extension TimeZoneRules {
    /// UTC under any of its names: an item in it is written with `Z` times and no VTIMEZONE.
    var isUTC: Bool {
        ["UTC", "UCT", "Zulu", "GMT", "Etc/UTC", "Etc/UCT", "Etc/Zulu", "Etc/GMT", "Universal", "Etc/Universal"].contains(identifier)
            || self == .utc
    }
}

extension SyncedItem {
    /// The item's lines with its time moved to `time` (UTC): a to-do's DUE, an event's DTSTART
    /// (with DTEND or DURATION kept as long), its snoozes dropped (RFC 9074's snooze alarms and
    /// Thunderbird's X-MOZ-SNOOZE-TIME), LAST-MODIFIED and DTSTAMP set to `now`. Its alarms
    /// follow, being relative to that time. A recurring item starts its schedule over: DTSTART
    /// (and a to-do's DUE) move to its first occurrence at or after `time`, in their own zone,
    /// so the RRULE counts from there.
    ///
    /// - Throws: `Refusal` when the file holds no such item, or a recurring one never occurs
    ///   after `time` (within a year).
    public static func rescheduled(_ bytes: [UInt8], path: String, uid: String, to time: Instant, now: Instant,
                                   zones: @escaping ZoneLookup) throws(Refusal) -> (lines: [String], crlf: Bool) {
        let file: ICalendarFile
        do { file = try ICalendarFile(path: path, bytes: bytes, zones: zones) } catch { throw Refusal("\(path): \(error)") }
        guard !file.document.lossy else { throw Refusal("\(path) is not all UTF-8; it is not rewritten") }
        guard let item = file.items.first(where: { $0.uid == uid }), let master = item.master else {
            throw Refusal("\(path) holds no item '\(uid)'")
        }
        var edits: [(range: Range<Int>, lines: [String])] = []
        let stamp = ICalWriter.utc(now)
        if master.property("RRULE") != nil || master.property("RDATE") != nil {
            let ahead = file.alarms(from: time, to: time + .seconds(400 * 86_400), localZone: .utc).alarms
            guard let first = ahead.map(\.start).filter({ $0 >= time }).min() else {
                throw Refusal("'\(uid)' does not recur after \(ISO8601.format(time, offsetSeconds: 0, zulu: true)) within a year")
            }
            for name in item.isTodo ? ["DTSTART", "DUE"] : ["DTSTART"] {
                guard let p = master.property(name) else { continue }
                edits.append((p.lines, [Self.retimed(p, to: first, in: item)]))
            }
            for key in ["LAST-MODIFIED", "DTSTAMP"] {
                if let p = master.property(key) { edits.append((p.lines, [key + ":" + stamp])) }
            }
            for p in master.properties where p.name == "X-MOZ-SNOOZE-TIME" || p.name.hasPrefix("X-MOZ-SNOOZE-TIME-") { edits.append((p.lines, [])) }
            var lines = file.document.lines
            CalendarWriteBack.apply(edits, to: &lines)
            return (lines, file.document.crlf)
        }
        guard item.overrides.isEmpty else { throw Refusal("'\(uid)' has overridden occurrences; edit it with 'herald edit'") }
        let name = item.isTodo ? "DUE" : "DTSTART"
        if item.isTodo, let start = master.property("DTSTART") {
            edits.append((start.lines, []))  // a to-do's start before its new due time would be a lie
        }
        if let old = master.property(name) {
            edits.append((old.lines, [name + ":" + ICalWriter.utc(time)]))
            if !item.isTodo, let end = master.property("DTEND"),
               let oldStart = try? item.time(old), let oldEnd = try? item.time(end) {
                let length = oldEnd.instant(localZone: .utc) - oldStart.instant(localZone: .utc)
                edits.append((end.lines, ["DTEND:" + ICalWriter.utc(time + length)]))
            }
        } else {
            edits.append((master.beginLine + 1 ..< master.beginLine + 1, [name + ":" + ICalWriter.utc(time)]))
        }
        for p in master.properties where p.name == "X-MOZ-SNOOZE-TIME" || p.name.hasPrefix("X-MOZ-SNOOZE-TIME-") { edits.append((p.lines, [])) }
        for key in ["LAST-MODIFIED", "DTSTAMP"] {
            if let p = master.property(key) { edits.append((p.lines, [key + ":" + stamp])) }
        }
        for alarm in master.components where alarm.name == "VALARM"
            && alarm.properties("RELATED-TO").contains(where: { $0.parameter("RELTYPE")?.uppercased() == "SNOOZE" }) {
            edits.append((alarm.beginLine ..< alarm.endLine + 1, []))
        }
        var lines = file.document.lines
        CalendarWriteBack.apply(edits, to: &lines)
        return (lines, file.document.crlf)
    }

    /// A date-time property moved to `instant`, written as it was: in UTC, or as the wall time
    /// in its TZID (its parameters kept).
    static func retimed(_ p: ICalProperty, to instant: Instant, in item: ICalItem) -> String {
        let params = p.parameters.map { param in
            ";" + param.name + "=" + param.values.map { v in v.contains { ":;,".contains($0) } ? "\"" + v + "\"" : v }.joined(separator: ",")
        }.joined()
        if case .local(_, let zone)? = try? item.time(p) {
            return p.name + params + ":" + ICalWriter.local(instant, in: zone.rules(local: .utc))
        }
        return p.name + params + ":" + ICalWriter.utc(instant)
    }
}
