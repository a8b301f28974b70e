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
    /// One of Herald's synced jobs: its `X-HERALD-KIND` (reminder, timer, delivery).
    public var heraldKind: String? = nil
}

/// A parsed `.ics` file: its items (a VEVENT or VTODO and its RECURRENCE-ID overrides, by UID),
/// and the problems of items that were skipped.
public struct ICalendarFile: Sendable {
    public let path: String
    public let document: ICalParser.Document
    public private(set) var items: [ICalItem] = []
    public private(set) var problems: [ICalError] = []
    /// Its length in bytes, and so the steps its items may spend together.
    public let size: Int
    var stepBudget: Int { ICalBudget.steps(forFileOf: size) }

    /// - Throws: `ICalError` when the file as a whole cannot be read (no calendar in it, nesting
    ///   past the budget, a line past its length); anything less costs its item or line alone.
    /// - Parameter zones: where a TZID that names a zone of the system's database is looked up.
    public init(path: String, bytes: [UInt8], zones lookup: @escaping ZoneLookup) throws(ICalError) {
        self.path = path
        size = bytes.count
        document = try ICalParser.parse(bytes)
        problems = document.problems
        var calendars = document.components.filter { $0.name == "VCALENDAR" }
        if calendars.isEmpty {
            // A bare VEVENT or VTODO (Evolution's and RFC 9074's component examples, a mail
            // attachment cut out): read as the calendar it came from, as libical does.
            let bare = document.components.filter { ["VEVENT", "VTODO", "VTIMEZONE"].contains($0.name) }
            guard bare.contains(where: { $0.name != "VTIMEZONE" }) else { throw ICalError(line: 1, "no BEGIN:VCALENDAR") }
            var wrapper = ICalComponent(name: "VCALENDAR", beginLine: bare[0].beginLine)
            wrapper.components = bare
            wrapper.endLine = bare.last!.endLine
            calendars = [wrapper]
        }
        for calendar in calendars {
            // Lines outside the items that could not be read are reported, and skipped.
            problems += Self.allDamage(calendar, skipping: ["VEVENT", "VTODO"]).map { ICalError(line: $0.line, $0.message + " (line skipped)") }
            problems += calendar.allSkipped
            let zones = ICalZones(calendar: calendar, lookup: lookup)
            var byUID: [String: ICalItem] = [:]
            var order: [String] = []
            for component in calendar.components where component.name == "VEVENT" || component.name == "VTODO" {
                let uid = component.property("UID")?.value ?? ""
                // A line of the item that could not be read might have said anything about its times.
                if let damage = component.firstDamage {
                    let name = uid.isEmpty ? component.name : "\(component.name) '\(ICalValue.quoted(uid))'"
                    problems.append(ICalError(line: damage.line, "\(damage.message): the \(name) is skipped"))
                    continue
                }
                guard !uid.isEmpty else {
                    problems.append(ICalError(line: component.beginLine + 1, "\(component.name) without a UID (skipped)"))
                    continue
                }
                problems += Self.commandRequests(component)
                if byUID[uid] == nil {
                    byUID[uid] = ICalItem(uid: uid, isTodo: component.name == "VTODO", zones: zones)
                    order.append(uid)
                }
                if component.property("RECURRENCE-ID") != nil { byUID[uid]!.overrides.append(component) }
                else if byUID[uid]!.master == nil { byUID[uid]!.master = component }
                else { problems.append(ICalError(line: component.beginLine + 1, "a second \(component.name) with UID \(ICalValue.quoted(uid)) (skipped)")) }
            }
            items += order.map { byUID[$0]! }
        }
        problems.sort { $0.line < $1.line }
    }

    /// What in an item asks to run a program: a VALARM with ACTION:PROCEDURE (RFC 2445's, gone
    /// from RFC 5545), an X-HERALD-COMMAND, or X-HERALD-KIND:run. A calendar is written by
    /// others, so none of it ever runs anything: each is reported (once per file version, as
    /// every problem is) and ignored; the item's other alarms are planned as usual.
    static func commandRequests(_ component: ICalComponent) -> [ICalError] {
        var out: [ICalError] = []
        for alarm in component.components where alarm.name == "VALARM" && ICalItem.action(of: alarm) == "PROCEDURE" {
            out.append(ICalError(line: alarm.beginLine + 1, "a VALARM with ACTION:PROCEDURE asks to run a program; a calendar never runs one (that alarm is ignored)"))
        }
        for p in component.properties where p.name == "X-HERALD-COMMAND" || (p.name == SyncedItem.kindProperty && p.value.trimmingSpaces.lowercased() == "run") {
            out.append(ICalError(line: p.lines.lowerBound + 1, "\(p.name) asks to run a program; a calendar never runs one (ignored)"))
        }
        return out
    }

    /// The unreadable lines of `component` and of its sub-components, but for those named in `skipping`.
    static func allDamage(_ component: ICalComponent, skipping: Set<String>) -> [ICalError] {
        component.damage + component.components.filter { !skipping.contains($0.name) }.flatMap { allDamage($0, skipping: []) }
    }

    /// Every DISPLAY or AUDIO alarm instant in `from ..< to`, in order; floating and all-day
    /// times are read in `localZone`. Items that cannot be read, or that run over their budget
    /// (`ICalBudget`), are left out and reported in the second result, with their line; once the
    /// file's own budget is spent the items left are reported together.
    public func alarms(from: Instant, to: Instant, localZone: TimeZoneRules) -> (alarms: [CalendarAlarm], problems: [ICalError]) {
        let planned = measuredAlarms(from: from, to: to, localZone: localZone)
        return (planned.alarms, planned.problems)
    }

    /// What heraldd plans from: `alarms(from:to:localZone:)`, except that an item with more
    /// alarms in the window than one item may have (a reminder every minute, every 5 minutes)
    /// is read again over a shorter window from `now` (`denseWindows`), instead of being
    /// skipped. `completeUntil` is how far every item's alarms are known: plan again by then.
    public func plannedAlarms(from: Instant, to: Instant, now: Instant, localZone: TimeZoneRules)
        -> (alarms: [CalendarAlarm], problems: [ICalError], completeUntil: Instant) {
        let planned = measuredAlarms(from: from, to: to, localZone: localZone, denseFrom: now)
        return (planned.alarms, planned.problems, planned.completeUntil)
    }

    /// The windows a dense item is read over instead, from now: a day, else an hour (a rule
    /// every second has 3,600 alarms in an hour, within an item's budget). An hour before now
    /// is read too, for the catch-up of one missed while heraldd was down.
    public static let denseWindows: [Span] = [.seconds(86_400), .seconds(3600), .seconds(600)]
    /// How far back a dense item is read, for its catch-up: an eighth of its window, at most an hour.
    static func denseCatchUp(_ window: Span) -> Span { min(.seconds(3600), Span(microseconds: window.microseconds / 8)) }

    /// Whether an item recurs every second or minute: it is read over the short windows at once
    /// (the whole window would only spend its budget first).
    static func isDense(_ item: ICalItem) -> Bool {
        guard let rule = item.master?.property("RRULE")?.value.uppercased() else { return false }
        return rule.includes("FREQ=SECONDLY") || rule.includes("FREQ=MINUTELY")
    }

    /// `alarms(from:to:localZone:)` with the steps it spent (tests check them against the budgets).
    func measuredAlarms(from: Instant, to: Instant, localZone: TimeZoneRules,
                        denseFrom now: Instant? = nil) -> (alarms: [CalendarAlarm], problems: [ICalError], steps: Int, completeUntil: Instant) {
        var out: [CalendarAlarm] = []
        var problems = self.problems
        var steps = 0
        var completeUntil = to
        for (n, item) in items.enumerated() {
            let stepLimit = min(ICalBudget.stepsPerItem, stepBudget - steps)
            let alarmLimit = min(ICalBudget.alarmsPerItem, ICalBudget.alarmsPerFile - out.count)
            var meter = ICalMeter(limit: stepLimit)
            if let now, Self.isDense(item), let (dense, until, spent) = denseAlarms(item, from: from, now: now, to: to, localZone: localZone,
                                                                                      stepsLeft: stepBudget - steps) {
                out += dense
                steps += spent
                completeUntil = min(completeUntil, until)
                continue
            }
            do {
                out += try item.alarms(from: from, to: to, localZone: localZone, meter: &meter, alarmLimit: alarmLimit)
            } catch {
                guard let budget = error.budget else { problems.append(error); steps += min(meter.spent, stepLimit); continue }
                let (limit, itemLimit, unit) = budget == .steps ? (stepLimit, ICalBudget.stepsPerItem, "steps")
                    : (alarmLimit, ICalBudget.alarmsPerItem, "alarms")
                let name = "\(item.kind) '\(ICalValue.quoted(item.uid))'"
                if limit < itemLimit {
                    let rest = items.count - n - 1
                    let total = budget == .steps ? stepBudget : ICalBudget.alarmsPerFile
                    problems.append(ICalError(line: item.line, name + (rest > 0 ? " and the \(rest) item\(rest == 1 ? "" : "s") after it are" : " is")
                                              + " skipped: the file's budget of \(total) \(unit) is spent"))
                    break
                }
                steps += min(meter.spent, stepLimit)
                // A dense item (too many alarms, or steps, for the whole window): its next day, or hour, will do.
                if let now, let (dense, until, spent) = denseAlarms(item, from: from, now: now, to: to,
                                                                    localZone: localZone, stepsLeft: stepBudget - steps) {
                    out += dense
                    steps += spent
                    completeUntil = min(completeUntil, until)
                    continue
                }
                problems.append(ICalError(line: item.line, budget == .steps
                    ? "\(name) is skipped: expanding it takes over \(itemLimit) steps (the budget of one item)"
                    : "\(name) is skipped: it has over \(itemLimit) alarms in the window (the budget of one item)"))
                continue
            }
            steps += min(meter.spent, stepLimit)
        }
        out.sort { ($0.at, $0.uid, $0.recurrenceID ?? "", $0.alarmIndex) < ($1.at, $1.uid, $1.recurrenceID ?? "", $1.alarmIndex) }
        return (out, problems, steps, completeUntil)
    }

    /// A dense item's alarms over the first of `denseWindows` that keeps within an item's
    /// budgets, and the end of that window; nil when none does.
    private func denseAlarms(_ item: ICalItem, from: Instant, now: Instant, to: Instant, localZone: TimeZoneRules,
                             stepsLeft: Int) -> (alarms: [CalendarAlarm], until: Instant, steps: Int)? {
        var spent = 0
        for window in Self.denseWindows {
            let until = min(to, now + window)
            let limit = min(ICalBudget.stepsPerItem, stepsLeft - spent)
            guard limit > 0 else { return nil }
            var meter = ICalMeter(limit: limit)
            do {
                let found = try item.alarms(from: max(from, now - Self.denseCatchUp(window)), to: until, localZone: localZone, meter: &meter,
                                            alarmLimit: ICalBudget.alarmsPerItem)
                return (found, until, spent + meter.spent)
            } catch {
                spent += min(meter.spent, limit)
                guard error.budget != nil else { return nil }
            }
        }
        return nil
    }
}

/// The TZIDs of one VCALENDAR: names in the system's zone database are read from it; others
/// from the calendar's own VTIMEZONE (as Outlook and Exchange send them).
struct ICalZones: Sendable {
    /// Each VTIMEZONE by TZID, with the text that identifies its rules in the cache.
    let definitions: [String: (component: ICalComponent, key: String)]
    /// Steps left for building this calendar's VTIMEZONEs (`ICalBudget.zoneStepsPerFile`).
    let budget = ZoneBudget()

    /// Shared by the copies of one calendar's zones (each item holds one). A zone that could not
    /// be built is not tried again: each item that names it gets the same error.
    final class ZoneBudget: Sendable {
        let left = Mutex<Int>(ICalBudget.zoneStepsPerFile)
        let failed = Mutex<[String: ICalError]>([:])
    }

    /// The system's zone database.
    let lookup: ZoneLookup

    init(calendar: ICalComponent, lookup: @escaping ZoneLookup) {
        self.lookup = lookup
        var d: [String: (component: ICalComponent, key: String)] = [:]
        for c in calendar.components where c.name == "VTIMEZONE" {
            // TZID is TEXT (§3.8.3.1): Exchange writes `Pacific Time (US & Canada)\, Tijuana`,
            // and its DTSTART's TZID parameter names it unescaped.
            guard let id = c.property("TZID")?.text else { continue }
            let key = ([c] + c.components).map { part in part.name + "\n" + part.properties.map { $0.name + ":" + $0.value }.joined(separator: "\n") }
                .joined(separator: "\n")
            d[id] = (c, key)
        }
        definitions = d
    }

    /// The zone a TZID names: the zone database's, else the calendar's own VTIMEZONE; where that
    /// is missing or unusable, read leniently: a vendor's prefix before a database name
    /// (Evolution's `/softwarestudio.org/Olson_20011030_5/Pacific/Auckland`), or a Windows
    /// name (Outlook's `W. Europe Standard Time`) through CLDR's mapping (`WindowsZones`).
    func zone(_ tzid: String, line: Int) throws(ICalError) -> ICalZone {
        let name = tzid.hasPrefix("/") ? String(tzid.dropFirst()) : tzid
        if TimeZoneRules.isPlausibleName(name), let rules = lookup(name) { return .zone(rules) }
        var refusal = ICalError(line: line, "unknown time zone '\(ICalValue.quoted(tzid))' (not in the zone database and no VTIMEZONE)")
        if let (definition, key) = definitions[tzid] {
            if let error = budget.failed.withLock({ $0[tzid] }) {
                refusal = error
            } else {
                do throws(ICalError) {
                    if let rules = try CustomZones.rules(for: definition, key: key, budget: budget) { return .zone(rules) }
                    throw ICalError(line: definition.beginLine + 1, "VTIMEZONE '\(ICalValue.quoted(tzid))' has no usable STANDARD or DAYLIGHT rules")
                } catch {
                    budget.failed.withLock { $0[tzid] = error }
                    refusal = error
                }
            }
        }
        if let rules = Self.lenient(tzid, lookup: lookup) { return .zone(rules) }
        throw refusal
    }

    /// A database zone a TZID stands for when the file's own rules are missing: the longest
    /// tail of a path-like name that is a database name, or CLDR's zone for a Windows name.
    static func lenient(_ tzid: String, lookup: ZoneLookup) -> TimeZoneRules? {
        let parts = tzid.split(separator: "/")
        if parts.count > 2 {
            for k in 1..<(parts.count - 1) {
                let tail = parts[k...].joined(separator: "/")
                if TimeZoneRules.isPlausibleName(tail), let rules = lookup(tail) { return rules }
            }
        }
        let trimmed = tzid.trimmingSpaces
        if let iana = WindowsZones.iana[trimmed], let rules = lookup(iana) { return rules }
        return nil
    }
}

/// Zones built from VTIMEZONEs, once per definition (every file of an Outlook calendar repeats it).
enum CustomZones {
    private static let built = Mutex<[String: TimeZoneRules]>([:])

    /// The zone of a definition, from the cache or built with the steps left in `budget`.
    static func rules(for definition: ICalComponent, key: String, budget: ICalZones.ZoneBudget) throws(ICalError) -> TimeZoneRules? {
        if let r = built.withLock({ $0[key] }) { return r }
        let left = budget.left.withLock { $0 }
        let id = ICalValue.quoted(definition.property("TZID")?.value ?? "")
        guard left > 0 else {
            throw ICalError(line: definition.beginLine + 1, "VTIMEZONE '\(id)' is not built: the file's budget of \(ICalBudget.zoneStepsPerFile) steps for its VTIMEZONEs is spent")
        }
        var meter = ICalMeter(limit: min(ICalBudget.stepsPerZone, left))
        defer { budget.left.withLock { $0 -= min(meter.spent, meter.limit) } }
        guard let r = try build(definition, meter: &meter) else { return nil }
        built.withLock {
            if $0.count >= ICalBudget.cachedZones { $0.removeAll() }
            $0[key] = r
        }
        return r
    }

    /// A VTIMEZONE's observances expanded into transitions from 1900 to 2200, spending a step
    /// on `meter` for each period, day, candidate and RDATE value.
    static func build(_ definition: ICalComponent, meter: inout ICalMeter) throws(ICalError) -> TimeZoneRules? {
        struct Transition { var at: Int64; var offset: Int; var isDST: Bool; var name: String; var from: Int }
        let id = definition.property("TZID")?.value ?? "VTIMEZONE"
        func overBudget() -> ICalError {
            ICalError(line: definition.beginLine + 1, meter.limit < ICalBudget.stepsPerZone
                ? "VTIMEZONE '\(ICalValue.quoted(id))' is not built: the file's budget of \(ICalBudget.zoneStepsPerFile) steps for its VTIMEZONEs is spent"
                : "VTIMEZONE '\(ICalValue.quoted(id))' takes over \(ICalBudget.stepsPerZone) steps to build (the budget of one zone)")
        }
        func tooMany() -> ICalError {
            ICalError(line: definition.beginLine + 1,
                      "VTIMEZONE '\(ICalValue.quoted(id))' changes its offset over \(ICalBudget.transitionsPerZone) times from 1900 to 2200")
        }
        var transitions: [Transition] = []
        for observance in definition.components where observance.name == "STANDARD" || observance.name == "DAYLIGHT" {
            // Evolution writes an observance's DTSTART as a DATE: its midnight.
            guard let startValue = observance.property("DTSTART")?.value,
                  let (start, _) = ICalValue.dateTime(Substring(startValue))
                    ?? ICalValue.date(Substring(startValue)).map({ d in (CivilTime(year: d.components.year, month: d.components.month, day: d.components.day), false) }),
                  let from = try offset(observance.property("TZOFFSETFROM")), let to = try offset(observance.property("TZOFFSETTO"))
            else { continue }
            let isDST = observance.name == "DAYLIGHT"
            let name = observance.property("TZNAME")?.text ?? ""
            var starts: Set<CivilTime> = [start]
            for p in observance.properties("RDATE") {
                for v in p.value.split(separator: ",") {
                    do { try meter.spend() } catch { throw overBudget() }
                    if let (c, _) = ICalValue.dateTime(v) { starts.insert(c) }
                }
                guard transitions.count + starts.count <= ICalBudget.transitionsPerZone else { throw tooMany() }
            }
            if let text = observance.property("RRULE")?.value, let rule = try? RecurrenceRule.parse(text) {
                let limit = CivilTime(year: 2200, month: 1, day: 1)
                var full = false
                do {
                    try rule.expand(start: start, lowerBound: CivilTime(year: 1900, month: 1, day: 1), limit: limit, meter: &meter, isPastUntil: { c in
                        switch rule.until {
                        case .utc(let u): return c.localSeconds - Int64(from) > u.seconds
                        case .some(let u): return c > u.civil
                        case nil: return false
                        }
                    }) { c in
                        starts.insert(c)
                        full = transitions.count + starts.count > ICalBudget.transitionsPerZone
                        return !full
                    }
                } catch {
                    if meter.isSpent { throw overBudget() }
                    throw ICalError(line: observance.beginLine + 1, "VTIMEZONE '\(ICalValue.quoted(id))': RRULE '\(ICalValue.quoted(text))': \(error.description)")
                }
                if full { throw tooMany() }
            }
            for c in starts { transitions.append(Transition(at: c.localSeconds - Int64(from), offset: to, isDST: isDST, name: name, from: from)) }
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
        return TimeZoneRules(identifier: id, transitions: transitions.map(\.at), transitionTypes: typeIndex, types: types, footer: nil)
    }

    /// TZOFFSETFROM or TZOFFSETTO: `+0100`, `-0530`, `+013045`; nil when absent.
    static func offset(_ p: ICalProperty?) throws(ICalError) -> Int? {
        guard let p else { return nil }
        let u = Array(p.value.utf8)
        guard u.count == 5 || u.count == 7, u[0] == UInt8(ascii: "+") || u[0] == UInt8(ascii: "-"),
              let h = ICalValue.number(u[1..<3]), let m = ICalValue.number(u[3..<5]), let s = u.count == 7 ? ICalValue.number(u[5..<7]) : 0
        else { throw ICalError(line: p.lines.lowerBound + 1, "\(p.name) '\(ICalValue.quoted(p.value))' is not a UTC offset (+HHMM or -HHMM)") }
        guard m <= 59, s <= 59, h * 3600 + m * 60 + s <= ICalBudget.maximumUTCOffset else {
            throw ICalError(line: p.lines.lowerBound + 1, "\(p.name) '\(ICalValue.quoted(p.value))' is out of range (at most 23:59:59 either way)")
        }
        return (u[0] == UInt8(ascii: "-") ? -1 : 1) * (h * 3600 + m * 60 + s)
    }
}
