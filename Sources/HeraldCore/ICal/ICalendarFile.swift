import Synchronization

/// One alarm instant of a calendar item (RFC 5545 VALARM, RFC 9074 acknowledgements and snoozes).
public struct CalendarAlarm: Sendable, Equatable {
    public enum Action: String, Sendable { case display = "DISPLAY", audio = "AUDIO" }

    public var at: Instant
    public var uid: String
    /// The occurrence's original start (`2026-11-23`, `2026-11-23T13:30:00Z`); nil for an item that does not recur.
    public var recurrenceID: String?
    public var summary: String
    public var location: String?
    /// When the occurrence starts (local midnight for all-day ones) and whether it is all day.
    public var start: Instant
    public var allDay: Bool
    public var isTodo: Bool
    public var action: Action
    /// An AUDIO alarm's ATTACH (a file URI or path), if any.
    public var sound: String?
    /// Which VALARM: its component's recurrence id (nil: the master), its index there, its UID.
    public var alarmIndex: Int
    public var alarmUID: String?
    public var componentRecurrenceID: String?
    /// The item has ATTENDEE lines (never written back: servers may email every attendee).
    public var hasAttendees: Bool
}

/// A parsed `.ics` file: its items (a VEVENT or VTODO and its RECURRENCE-ID overrides, by UID),
/// and the problems of items that were skipped.
public struct ICalendarFile: Sendable {
    public let path: String
    public let document: ICalParser.Document
    public private(set) var items: [ICalItem] = []
    public private(set) var problems: [ICalError] = []

    /// - Throws: `ICalError` when the file as a whole cannot be read (not UTF-8, unbalanced BEGIN/END).
    public init(path: String, bytes: [UInt8]) throws(ICalError) {
        self.path = path
        document = try ICalParser.parse(bytes)
        let calendars = document.components.filter { $0.name == "VCALENDAR" }
        guard !calendars.isEmpty else { throw ICalError(line: 1, "no BEGIN:VCALENDAR") }
        for calendar in calendars {
            let zones = ICalZones(calendar: calendar)
            var byUID: [String: ICalItem] = [:]
            var order: [String] = []
            for component in calendar.components where component.name == "VEVENT" || component.name == "VTODO" {
                guard let uid = component.property("UID")?.value, !uid.isEmpty else {
                    problems.append(ICalError(line: component.beginLine + 1, "\(component.name) without a UID (skipped)"))
                    continue
                }
                if byUID[uid] == nil {
                    byUID[uid] = ICalItem(uid: uid, isTodo: component.name == "VTODO", zones: zones)
                    order.append(uid)
                }
                if component.property("RECURRENCE-ID") != nil { byUID[uid]!.overrides.append(component) }
                else if byUID[uid]!.master == nil { byUID[uid]!.master = component }
                else { problems.append(ICalError(line: component.beginLine + 1, "a second \(component.name) with UID \(uid) (skipped)")) }
            }
            items += order.map { byUID[$0]! }
        }
    }

    /// Every DISPLAY or AUDIO alarm instant in `from ..< to`, in order; floating and all-day
    /// times are read in `localZone`. Items that cannot be read are left out and reported in
    /// the second result, with their line.
    public func alarms(from: Instant, to: Instant, localZone: TimeZoneRules) -> (alarms: [CalendarAlarm], problems: [ICalError]) {
        var out: [CalendarAlarm] = []
        var problems = self.problems
        for item in items {
            do { out += try item.alarms(from: from, to: to, localZone: localZone) } catch { problems.append(error) }
        }
        out.sort { ($0.at, $0.uid, $0.recurrenceID ?? "", $0.alarmIndex) < ($1.at, $1.uid, $1.recurrenceID ?? "", $1.alarmIndex) }
        return (out, problems)
    }
}

/// The TZIDs of one VCALENDAR: names in the system's zone database are read from it; others
/// from the calendar's own VTIMEZONE (as Outlook and Exchange send them).
struct ICalZones: Sendable {
    /// Each VTIMEZONE by TZID, with the text that identifies its rules in the cache.
    let definitions: [String: (component: ICalComponent, key: String)]

    init(calendar: ICalComponent) {
        var d: [String: (component: ICalComponent, key: String)] = [:]
        for c in calendar.components where c.name == "VTIMEZONE" {
            guard let id = c.property("TZID")?.value else { continue }
            let key = ([c] + c.components).map { part in part.name + "\n" + part.properties.map { $0.name + ":" + $0.value }.joined(separator: "\n") }
                .joined(separator: "\n")
            d[id] = (c, key)
        }
        definitions = d
    }

    func zone(_ tzid: String, line: Int) throws(ICalError) -> ICalZone {
        let name = tzid.hasPrefix("/") ? String(tzid.dropFirst()) : tzid
        if TimeZoneRules.isPlausibleName(name), let rules = try? TimeZoneRules.cached(name) { return .zone(rules) }
        if let (definition, key) = definitions[tzid] {
            if let rules = CustomZones.rules(for: definition, key: key) { return .zone(rules) }
            throw ICalError(line: definition.beginLine + 1, "VTIMEZONE '\(tzid)' has no usable STANDARD or DAYLIGHT rules")
        }
        throw ICalError(line: line, "unknown time zone '\(tzid)' (not in the zone database and no VTIMEZONE)")
    }
}

/// Zones built from VTIMEZONEs, once per definition (every file of an Outlook calendar repeats it).
enum CustomZones {
    private static let built = Mutex<[String: TimeZoneRules]>([:])

    static func rules(for definition: ICalComponent, key: String) -> TimeZoneRules? {
        if let r = built.withLock({ $0[key] }) { return r }
        guard let r = build(definition) else { return nil }
        built.withLock { $0[key] = r }
        return r
    }

    /// A VTIMEZONE's observances expanded into transitions from 1900 to 2200.
    static func build(_ definition: ICalComponent) -> TimeZoneRules? {
        struct Transition { var at: Int64; var offset: Int; var isDST: Bool; var name: String; var from: Int }
        var transitions: [Transition] = []
        for observance in definition.components where observance.name == "STANDARD" || observance.name == "DAYLIGHT" {
            guard let startValue = observance.property("DTSTART")?.value, let (start, _) = ICalValue.dateTime(Substring(startValue)),
                  let from = offset(observance.property("TZOFFSETFROM")?.value), let to = offset(observance.property("TZOFFSETTO")?.value)
            else { continue }
            let isDST = observance.name == "DAYLIGHT"
            let name = observance.property("TZNAME")?.text ?? ""
            var starts: [CivilTime] = [start]
            for p in observance.properties("RDATE") {
                for v in p.value.split(separator: ",") { if let (c, _) = ICalValue.dateTime(v) { starts.append(c) } }
            }
            if let text = observance.property("RRULE")?.value, let rule = try? RecurrenceRule.parse(text) {
                let limit = CivilTime(year: 2200, month: 1, day: 1)
                rule.expand(start: start, lowerBound: CivilTime(year: 1900, month: 1, day: 1), limit: limit, isPastUntil: { c in
                    switch rule.until {
                    case .utc(let u): return c.localSeconds - Int64(from) > u.seconds
                    case .some(let u): return c > u.civil
                    case nil: return false
                    }
                }) { c in starts.append(c); return true }
            }
            for c in Set(starts) { transitions.append(Transition(at: c.localSeconds - Int64(from), offset: to, isDST: isDST, name: name, from: from)) }
        }
        guard !transitions.isEmpty else { return nil }
        transitions.sort { $0.at < $1.at }
        var types = [TimeZoneRules.LocalType(offset: transitions[0].from, isDST: false, abbreviation: "")]
        var typeIndex: [UInt8] = []
        for t in transitions {
            let type = TimeZoneRules.LocalType(offset: t.offset, isDST: t.isDST, abbreviation: t.name)
            if let i = types.firstIndex(of: type) { typeIndex.append(UInt8(i)) } else {
                guard types.count < 255 else { return nil }
                types.append(type)
                typeIndex.append(UInt8(types.count - 1))
            }
        }
        let id = definition.property("TZID")?.value ?? "VTIMEZONE"
        return TimeZoneRules(identifier: id, transitions: transitions.map(\.at), transitionTypes: typeIndex, types: types, footer: nil)
    }

    /// `+0100`, `-0530`, `+013045`.
    static func offset(_ text: String?) -> Int? {
        guard let text, text.count == 5 || text.count == 7, let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = Array(text.utf8.dropFirst())
        guard let h = ICalValue.number(digits[0..<2]), let m = ICalValue.number(digits[2..<4]) else { return nil }
        let s = digits.count == 6 ? (ICalValue.number(digits[4..<6]) ?? 0) : 0
        return (sign == "-" ? -1 : 1) * (h * 3600 + m * 60 + s)
    }
}
