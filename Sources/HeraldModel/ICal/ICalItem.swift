/// One calendar item: a VEVENT or VTODO (the master, with its RRULE/RDATE/EXDATE) and the
/// components that override single occurrences (RECURRENCE-ID, RANGE=THISANDFUTURE).
public struct ICalItem: Sendable {
    public let uid: String
    public let isTodo: Bool
    var master: ICalComponent?
    var overrides: [ICalComponent] = []
    let zones: ICalZones

    init(uid: String, isTodo: Bool, zones: ICalZones) { self.uid = uid; self.isTodo = isTodo; self.zones = zones }

    /// One occurrence: which component describes it, when it starts and ends, what it replaced.
    struct Occurrence {
        var component: ICalComponent
        var start: ICalTime
        var startInstant: Instant
        var end: Instant
        /// The original start (nil: the item does not recur).
        var recurrenceID: ICalTime?
    }

    // MARK: alarms

    /// The line an item's problems name: its master's BEGIN, else its first override's.
    var line: Int { (master ?? overrides.first).map { $0.beginLine + 1 } ?? 1 }
    var kind: String { isTodo ? "VTODO" : "VEVENT" }

    /// Its alarm instants in `from ..< to`. Every step of the expansion is spent on `meter`, and
    /// at most `alarmLimit` alarms are made: past either it throws an error with `budget` set.
    func alarms(from: Instant, to: Instant, localZone: TimeZoneRules, meter: inout ICalMeter,
                alarmLimit: Int) throws(ICalError) -> [CalendarAlarm] {
        if let master, isSettled(master) { return [] }
        let components = (master.map { [$0] } ?? []) + overrides
        // Each VALARM read once: its trigger (nil: not a relative or absolute one Herald shows),
        // its repeats, and whether it widens the window.
        struct Alarm { var component: ICalComponent; var trigger: ICalProperty; var repeats: Int; var step: ICalDuration? }
        var read: [[Alarm?]] = []
        // Widen the window by how far alarms lie from their occurrences, so each occurrence whose
        // alarm falls in the range is expanded. Every term is at most 100 years (checked on reading).
        let day: Int64 = 86_400
        var before: Int64 = 2 * day, after: Int64 = 2 * day
        for c in components {
            let length = try duration(of: c, localZone: localZone)?.nominalSeconds ?? 0
            var mine: [Alarm?] = []
            for alarm in c.components where alarm.name == "VALARM" {
                guard let trigger = alarm.property("TRIGGER"), CalendarAlarm.Action(rawValue: Self.action(of: alarm)) != nil else {
                    mine.append(nil)
                    continue
                }
                let (repeats, step) = try repetition(of: alarm)
                mine.append(Alarm(component: alarm, trigger: trigger, repeats: repeats, step: step))
                guard !isAbsolute(trigger) else { continue }
                let offset = try ICalDuration.parse(trigger.value, name: "TRIGGER", line: trigger.lines.lowerBound + 1,
                                                    expected: "a duration or a UTC date-time").nominalSeconds
                let relatedToEnd = trigger.parameter("RELATED")?.uppercased() == "END"
                let chain = Int64(step == nil ? 0 : repeats) * (step?.nominalSeconds ?? 0)
                before = max(before, -offset + 2 * day, -(offset + chain) + 2 * day)
                after = max(after, (relatedToEnd ? max(0, length) : 0) + offset + chain + 2 * day)
            }
            after = max(after, length + 2 * day)
            read.append(mine)
        }
        let window = (from - Span.seconds(after), to + Span.seconds(before))
        let occurrences = try self.occurrences(in: window, localZone: localZone, meter: &meter)
        // Occurrences by the component they belong to, in order, found in one pass.
        var byComponent: [Int: [Occurrence]] = [:]
        for o in occurrences { byComponent[o.component.beginLine, default: []].append(o) }
        let attendees = components.contains { $0.property("ATTENDEE") != nil }
        var out: [CalendarAlarm] = []
        let describedCache = DescribedCache()
        for (component, alarms) in zip(components, read) {
            let mine = byComponent[component.beginLine] ?? []
            let described = describedCache.read(self, component, localZone)
            // Thunderbird's acknowledgement: every alarm of the event or to-do up to then is handled.
            let lastAck = Self.utcInstant(component.property("X-MOZ-LASTACK") ?? (component.property("RECURRENCE-ID") == nil ? nil : master?.property("X-MOZ-LASTACK")))
            let firstAlarm = out.count
            for (index, (alarm, known)) in zip(component.components.filter { $0.name == "VALARM" }, alarms).enumerated() {
                guard let entry = known, let action = CalendarAlarm.Action(rawValue: Self.action(of: alarm)) else { continue }
                let trigger = entry.trigger
                var acknowledged: Instant? = lastAck
                if let ack = alarm.property("ACKNOWLEDGED"), let (c, _) = ICalValue.dateTime(Substring(ack.value)) {
                    acknowledged = max(acknowledged ?? Instant(seconds: c.localSeconds), Instant(seconds: c.localSeconds))
                }
                // Sunbird and Thunderbird before 3 wrote their acknowledgement in the VALARM itself.
                if let ack = Self.utcInstant(alarm.property("X-MOZ-LASTACK")) { acknowledged = max(acknowledged ?? ack, ack) }
                let sound = action == .audio ? alarm.property("ATTACH")?.value : nil
                let alarmUID = alarm.property("UID")?.value
                func emit(_ first: Instant, _ occurrence: Occurrence?, zone: TimeZoneRules) throws(ICalError) {
                    var t = first
                    for k in 0...(entry.step == nil ? 0 : entry.repeats) {
                        try spend(&meter)
                        if k > 0, let step = entry.step { t = step.added(to: t, in: zone) }
                        guard t >= from, t < to, acknowledged.map({ t > $0 }) ?? true else { continue }
                        guard out.count < alarmLimit else { throw ICalError(line: self.line, "", budget: .alarms) }
                        try spend(&meter, ICalBudget.stepsPerAlarm)
                        out.append(alarmValue(at: t, occurrence: occurrence, component: component, described: described, index: index,
                                              action: action, sound: sound, alarmUID: alarmUID, attendees: attendees, localZone: localZone,
                                              cache: describedCache))
                    }
                }
                let line = trigger.lines.lowerBound + 1
                if isAbsolute(trigger) {
                    guard let (c, utc) = ICalValue.dateTime(Substring(trigger.value)) else {
                        throw ICalError(line: line, "TRIGGER '\(ICalValue.quoted(trigger.value))' is not a UTC date-time")
                    }
                    // RFC 5545 wants UTC; a floating one (libical, python's icalendar) is a local time.
                    let at = utc ? Instant(seconds: c.localSeconds) : ICalTime.local(c, .floating).instant(localZone: localZone)
                    // An absolute alarm fires once; it belongs to the occurrence it falls in or
                    // precedes (a snooze: the one it follows).
                    let isSnooze = alarm.properties("RELATED-TO").contains { $0.parameter("RELTYPE")?.uppercased() == "SNOOZE" }
                    let occurrence = isSnooze ? mine.last { $0.startInstant <= at } ?? mine.first
                        : mine.first { $0.end >= at } ?? mine.last
                    try emit(at, occurrence, zone: .utc)
                    continue
                }
                let offset = try ICalDuration.parse(trigger.value, name: "TRIGGER", line: line, expected: "a duration or a UTC date-time")
                let relatedToEnd = trigger.parameter("RELATED")?.uppercased() == "END"
                for occurrence in mine {
                    let zone = rules(of: occurrence.start, localZone: localZone)
                    try emit(offset.added(to: relatedToEnd ? occurrence.end : occurrence.startInstant, in: zone), occurrence, zone: zone)
                }
            }
            // Thunderbird's snooze: the item alarms again then (the first VALARM stands for it, so
            // a Dismiss of it is written there), unless an RFC 9074 snooze alarm says the same.
            let snoozes = component.properties.filter { $0.name == "X-MOZ-SNOOZE-TIME" || $0.name.hasPrefix("X-MOZ-SNOOZE-TIME-") }
            for snooze in snoozes.suffix(ICalBudget.mozSnoozesPerComponent) {
                try spend(&meter)
                guard let at = Self.utcInstant(snooze), at >= from, at < to, lastAck.map({ at > $0 }) ?? true,
                      !out[firstAlarm...].contains(where: { $0.at == at }),
                      let first = component.components.first(where: { $0.name == "VALARM" }) else { continue }
                var occurrence = mine.last { $0.startInstant <= at } ?? mine.first
                if snooze.name.count > "X-MOZ-SNOOZE-TIME-".count, let micros = Int64(snooze.name.dropFirst("X-MOZ-SNOOZE-TIME-".count)) {
                    occurrence = mine.first { $0.startInstant.microseconds == micros } ?? occurrence
                }
                try spend(&meter, ICalBudget.stepsPerAlarm)
                guard out.count < alarmLimit else { throw ICalError(line: self.line, "", budget: .alarms) }
                out.append(alarmValue(at: at, occurrence: occurrence, component: component, described: described, index: 0,
                                      action: .display, sound: nil, alarmUID: first.property("UID")?.value, attendees: attendees,
                                      localZone: localZone, cache: describedCache))
            }
        }
        return out
    }

    /// A property's UTC date-time value (`20261126T120000Z`), else nil.
    static func utcInstant(_ p: ICalProperty?) -> Instant? {
        guard let p, let (c, utc) = ICalValue.dateTime(Substring(p.value)), utc else { return nil }
        return Instant(seconds: c.localSeconds)
    }

    /// A TRIGGER;VALUE=DATE-TIME (or one that ends in Z).
    /// A VALARM's ACTION; one without it is a DISPLAY alarm, as Mozilla's calendar (which
    /// writes them: Sunbird, older Thunderbird) reads it.
    static func action(of alarm: ICalComponent) -> String {
        alarm.property("ACTION")?.value.trimmingSpaces.uppercased() ?? "DISPLAY"
    }

    func isAbsolute(_ trigger: ICalProperty) -> Bool {
        trigger.parameter("VALUE")?.uppercased() == "DATE-TIME" || trigger.value.utf8.last == UInt8(ascii: "Z")
    }

    /// A VALARM's REPEAT and DURATION (RFC 5545 §3.8.6.2: both or neither; a REPEAT alone
    /// repeats nothing). Their product is a duration too, so it has the same bound.
    func repetition(of alarm: ICalComponent) throws(ICalError) -> (repeats: Int, step: ICalDuration?) {
        var repeats = 0
        if let p = alarm.property("REPEAT") {
            let digits = p.value.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } && !p.value.isEmpty
            guard digits else { throw ICalError(line: p.lines.lowerBound + 1, "REPEAT '\(ICalValue.quoted(p.value))' is not a number") }
            guard p.value.utf8.count <= 5, let n = Int(p.value), n <= ICalBudget.maximumRepeat else {
                throw ICalError(line: p.lines.lowerBound + 1, "REPEAT '\(ICalValue.quoted(p.value))' is out of range (at most \(ICalBudget.maximumRepeat))")
            }
            repeats = n
        }
        guard let p = alarm.property("DURATION") else { return (repeats, nil) }
        let step = try ICalDuration.parse(p.value, name: "DURATION", line: p.lines.lowerBound + 1)
        guard Int64(repeats) * abs(step.nominalSeconds) <= Int64(ICalBudget.maximumDurationDays) * 86_400 else {
            throw ICalError(line: p.lines.lowerBound + 1, "REPEAT '\(repeats)' times DURATION '\(ICalValue.quoted(p.value))' is out of range (at most 100 years)")
        }
        return (repeats, step)
    }

    /// One step of work for this item.
    func spend(_ meter: inout ICalMeter, _ n: Int = 1) throws(ICalError) {
        do { try meter.spend(n) } catch { throw ICalError(line: line, "", budget: .steps) }
    }

    /// What an alarm says of the component it belongs to, read once per component rather than
    /// once per alarm (a component may have thousands of properties).
    struct Described {
        var summary: String
        var location: String?
        var start: Instant?
        var recurrenceID: String?

        init(_ item: ICalItem, component: ICalComponent, localZone: TimeZoneRules) {
            summary = (component.property("SUMMARY") ?? item.master?.property("SUMMARY"))?.text ?? ""
            location = (component.property("LOCATION") ?? item.master?.property("LOCATION"))?.text.nonEmpty
            start = (try? item.startValue(of: component)).map { $0.instant(localZone: localZone) }
            recurrenceID = component.property("RECURRENCE-ID").flatMap { try? item.time($0) }.map { ICalItem.format($0, localZone: localZone) }
        }
    }

    /// Each component's `Described`, made on first use.
    final class DescribedCache {
        var byLine: [Int: Described] = [:]
        func read(_ item: ICalItem, _ c: ICalComponent, _ localZone: TimeZoneRules) -> Described {
            if let d = byLine[c.beginLine] { return d }
            let d = Described(item, component: c, localZone: localZone)
            byLine[c.beginLine] = d
            return d
        }
    }

    func alarmValue(at: Instant, occurrence: Occurrence?, component: ICalComponent, described: Described, index: Int,
                    action: CalendarAlarm.Action, sound: String?, alarmUID: String?, attendees: Bool, localZone: TimeZoneRules,
                    cache: DescribedCache) -> CalendarAlarm {
        // An occurrence moved by a RANGE=THISANDFUTURE override is told by that override.
        let text = occurrence.map { cache.read(self, $0.component, localZone) } ?? described
        let start = occurrence?.startInstant ?? described.start ?? at
        let kind = master?.property(SyncedItem.kindProperty)?.value.lowercased()
        return CalendarAlarm(
            at: at, uid: uid, recurrenceID: occurrence?.recurrenceID.map { Self.format($0, localZone: localZone) },
            summary: text.summary, location: text.location,
            start: start, allDay: occurrence?.start.isDate ?? false, isTodo: isTodo, action: action,
            sound: sound, alarmIndex: index, alarmUID: alarmUID,
            componentRecurrenceID: described.recurrenceID, hasAttendees: attendees,
            heraldKind: kind.flatMap { ["reminder", "timer", "delivery", "alarm"].contains($0) ? $0 : nil })
    }

    /// `2026-11-23` for a date, else the UTC instant `2026-11-23T13:30:00Z`.
    static func format(_ t: ICalTime, localZone: TimeZoneRules) -> String {
        if case .date(let d) = t { return d.description }
        return ISO8601.format(Instant(seconds: t.instant(localZone: localZone).seconds), offsetSeconds: 0, zulu: true)
    }

    /// A cancelled event or to-do, or a completed to-do: it has no alarms.
    func isSettled(_ c: ICalComponent) -> Bool {
        let status = c.property("STATUS")?.value.uppercased()
        return status == "CANCELLED" || (isTodo && (status == "COMPLETED" || c.property("COMPLETED") != nil))
    }

    // MARK: occurrences

    /// The item's occurrences starting within `window` (and every override, wherever it lies).
    func occurrences(in window: (Instant, Instant), localZone: TimeZoneRules, meter: inout ICalMeter) throws(ICalError) -> [Occurrence] {
        var result: [Occurrence] = []
        var overridden: [Instant: ICalComponent] = [:]
        var ranged: [(recurrenceID: ICalTime, at: Instant, component: ICalComponent)] = []
        let masterStart = try master.flatMap { m throws(ICalError) in try startValue(of: m) }
        for o in overrides {
            try spend(&meter)
            guard let p = o.property("RECURRENCE-ID") else { continue }
            let id = Self.inZone(of: masterStart, try time(p))
            let at = id.instant(localZone: localZone)
            overridden[at] = o
            if p.parameter("RANGE")?.uppercased() == "THISANDFUTURE" { ranged.append((id, at, o)) }
        }
        ranged.sort { $0.at < $1.at }
        for o in overrides where !isSettled(o) {
            guard let p = o.property("RECURRENCE-ID") else { continue }
            let id = Self.inZone(of: masterStart, try time(p))
            let start = try startValue(of: o) ?? id
            let s = start.instant(localZone: localZone)
            result.append(Occurrence(component: o, start: start, startInstant: s,
                                     end: try end(of: o, start: start, startInstant: s, localZone: localZone), recurrenceID: id))
        }
        guard let master, let start = try startValue(of: master) else { return result }
        let recurs = master.property("RRULE") != nil || master.property("RDATE") != nil
        if !recurs {
            let s = start.instant(localZone: localZone)
            if overridden[s] == nil {
                result.append(Occurrence(component: master, start: start, startInstant: s,
                                         end: try end(of: master, start: start, startInstant: s, localZone: localZone), recurrenceID: nil))
            }
            return result
        }
        let masterDuration = try duration(of: master, localZone: localZone)
        // What each RANGE=THISANDFUTURE override does, read once (not once per occurrence).
        var shifts: [(at: Instant, component: ICalComponent, shift: Int64, length: ICalDuration?, settled: Bool)] = []
        for range in ranged {
            let newStart = try startValue(of: range.component) ?? range.recurrenceID
            shifts.append((range.at, range.component, newStart.civil.localSeconds - range.recurrenceID.civil.localSeconds,
                           try duration(of: range.component, localZone: localZone), isSettled(range.component)))
        }
        var nextShift = 0  // the occurrences come in order: the latest override before each is found in one pass
        for (value, period) in try recurrences(of: master, start: start, window: window, localZone: localZone, meter: &meter) {
            try spend(&meter)
            let at = value.instant(localZone: localZone)
            guard overridden[at] == nil else { continue }
            var occurrence = Occurrence(component: master, start: value, startInstant: at, end: at, recurrenceID: value)
            var length = period ?? masterDuration
            // RANGE=THISANDFUTURE: the latest such override before this occurrence moves it by
            // its own shift (on the wall clock) and describes it.
            while nextShift < shifts.count, shifts[nextShift].at < at { nextShift += 1 }
            if nextShift > 0 {
                let range = shifts[nextShift - 1]
                let moved = value.with(civil: CivilTime(localSeconds: value.civil.localSeconds + range.shift))
                occurrence.component = range.component
                occurrence.start = moved
                occurrence.startInstant = moved.instant(localZone: localZone)
                length = range.length
                if range.settled { continue }
            }
            let zone = rules(of: occurrence.start, localZone: localZone)
            occurrence.end = length.map { $0.added(to: occurrence.startInstant, in: zone) } ?? occurrence.startInstant
            result.append(occurrence)
        }
        return result
    }

    /// DTSTART, RRULE, RDATE minus EXDATE (RFC 5545 §3.8.5): the start always counts. Only
    /// those in `window` are kept, so memory follows the window, not COUNT.
    func recurrences(of master: ICalComponent, start: ICalTime, window: (Instant, Instant), localZone: TimeZoneRules,
                     meter: inout ICalMeter) throws(ICalError) -> [(ICalTime, ICalDuration?)] {
        var found: [Instant: (ICalTime, ICalDuration?)] = [:]
        func add(_ value: ICalTime, _ length: ICalDuration?) {
            let at = value.instant(localZone: localZone)
            if at >= window.0, at <= window.1 { found[at] = (value, length) }
        }
        add(start, nil)
        let zone = rules(of: start, localZone: localZone)
        let lower = zone.civil(window.0), upper = zone.civil(window.1)
        for p in master.properties("RRULE") {
            try spend(&meter)
            let rule: RecurrenceRule
            let startZone: ICalZone
            if case .local(_, let z) = start { startZone = z } else { startZone = .floating }
            do { rule = try RecurrenceRule.parse(p.value, zone: startZone) } catch {
                throw ICalError(line: p.lines.lowerBound + 1, "RRULE: \(error.description)")
            }
            do {
                try rule.expand(start: start.civil, lowerBound: lower, limit: upper, meter: &meter, isPastUntil: { c in
                    switch rule.until {
                    case nil: return false
                    case .date(let d): return LocalDate(year: c.year, month: c.month, day: c.day) > d
                    case .utc(let u): return start.with(civil: c).instant(localZone: localZone) > u
                    case .local(let u, _): return c > u
                    }
                }, exists: { c in
                    if case .skipped = zone.resolve(c), case .local(_, .zone) = start { return false }
                    return true
                }) { c in
                    add(start.with(civil: c), nil)
                    return true
                }
            } catch {
                if meter.isSpent { throw ICalError(line: line, "", budget: .steps) }
                throw ICalError(line: p.lines.lowerBound + 1, "RRULE '\(ICalValue.quoted(p.value))': \(error.description)")
            }
        }
        var dates = 0
        func count(_ p: ICalProperty, _ n: Int) throws(ICalError) {
            dates += n
            guard dates <= ICalBudget.datesPerItem else {
                throw ICalError(line: p.lines.lowerBound + 1, "\(p.name) has over \(ICalBudget.datesPerItem) dates in the item")
            }
            try spend(&meter, n)
        }
        for p in master.properties("RDATE") {
            let isPeriod = p.parameter("VALUE")?.uppercased() == "PERIOD"
            let parts = p.value.split(separator: ",")
            try count(p, parts.count)
            for part in parts {
                var text = part
                var length: ICalDuration? = nil
                if isPeriod || part.contains("/") {
                    let pieces = part.split(separator: "/", maxSplits: 1)
                    guard pieces.count == 2 else { throw ICalError(line: p.lines.lowerBound + 1, "RDATE period '\(ICalValue.quoted(part))' is not START/END") }
                    text = pieces[0]
                    let startTime = try time(p, value: pieces[0])
                    if case .success(let d) = ICalDuration.read(String(pieces[1])) { length = d } else {
                        let endTime = try time(p, value: pieces[1])
                        length = try span(from: startTime, to: endTime, localZone: localZone, p, value: part)
                    }
                }
                add(Self.inZone(of: start, try time(p, value: text)), length)
            }
        }
        // EXDATE;VALUE=DATE excludes that day's occurrences of a timed item: the days are
        // gathered first and the occurrences walked once.
        var excludedDays: Set<LocalDate> = []
        for p in master.properties("EXDATE") {
            let parts = p.value.split(separator: ",")
            try count(p, parts.count)
            for part in parts {
                let value = Self.inZone(of: start, try time(p, value: part))
                if case .date(let d) = value, !start.isDate { excludedDays.insert(d) } else { found.removeValue(forKey: value.instant(localZone: localZone)) }
            }
        }
        if !excludedDays.isEmpty {
            try spend(&meter, found.count)
            found = found.filter { !excludedDays.contains(LocalDate($0.key, in: zone)) }
        }
        return found.sorted { $0.key < $1.key }.map(\.value)
    }

    /// `end - start` as an exact duration, at most 100 years either way.
    func span(from start: ICalTime, to end: ICalTime, localZone: TimeZoneRules, _ p: ICalProperty, value: Substring) throws(ICalError) -> ICalDuration {
        let seconds = end.instant(localZone: localZone).seconds - start.instant(localZone: localZone).seconds
        guard abs(seconds) <= Int64(ICalBudget.maximumDurationDays) * 86_400 else {
            throw ICalError(line: p.lines.lowerBound + 1, "\(p.name) '\(ICalValue.quoted(value))' is out of range (at most 100 years after the start)")
        }
        return ICalDuration(seconds: seconds)
    }

    // MARK: values

    /// DTSTART, or a to-do's DUE when it has no start.
    func startValue(of c: ICalComponent) throws(ICalError) -> ICalTime? {
        if let p = c.property("DTSTART") { return try time(p) }
        if isTodo, let p = c.property("DUE") { return try time(p) }
        return nil
    }

    /// How long an occurrence lasts: DTEND (or a to-do's DUE) minus DTSTART, else DURATION;
    /// an all-day event without either lasts a day.
    func duration(of c: ICalComponent, localZone: TimeZoneRules) throws(ICalError) -> ICalDuration? {
        guard let startProperty = c.property("DTSTART") else { return nil }
        let start = try time(startProperty)
        if let endProperty = c.property(isTodo ? "DUE" : "DTEND") {
            let end = try time(endProperty)
            if case .date(let a) = start, case .date(let b) = end {
                guard abs(b.dayNumber - a.dayNumber) <= Int64(ICalBudget.maximumDurationDays) else {
                    throw ICalError(line: endProperty.lines.lowerBound + 1,
                                    "\(endProperty.name) '\(ICalValue.quoted(endProperty.value))' is out of range (at most 100 years after the start)")
                }
                return ICalDuration(days: Int(b.dayNumber - a.dayNumber))
            }
            return try span(from: start, to: end, localZone: localZone, endProperty, value: Substring(endProperty.value))
        }
        if let p = c.property("DURATION") { return try ICalDuration.parse(p.value, name: "DURATION", line: p.lines.lowerBound + 1) }
        return start.isDate && !isTodo ? ICalDuration(days: 1) : nil
    }

    func end(of c: ICalComponent, start: ICalTime, startInstant: Instant, localZone: TimeZoneRules) throws(ICalError) -> Instant {
        guard let d = try duration(of: c, localZone: localZone) else { return startInstant }
        return d.added(to: startInstant, in: rules(of: start, localZone: localZone))
    }

    func rules(of t: ICalTime, localZone: TimeZoneRules) -> TimeZoneRules {
        switch t {
        case .date: return localZone
        case .local(_, let z): return z.rules(local: localZone)
        case .utc: return .utc
        }
    }

    func time(_ p: ICalProperty) throws(ICalError) -> ICalTime { try time(p, value: Substring(p.value)) }

    /// A DATE or DATE-TIME value of `p` (one element of a list), read in its TZID.
    func time(_ p: ICalProperty, value: Substring) throws(ICalError) -> ICalTime {
        let line = p.lines.lowerBound + 1
        if p.parameter("VALUE")?.uppercased() == "DATE" || value.utf8.count == 8 {
            guard let d = ICalValue.date(value) else { throw ICalError(line: line, "\(p.name) '\(ICalValue.quoted(value))' is " + Self.why(value, "a date")) }
            return .date(d)
        }
        guard let (c, utc) = ICalValue.dateTime(value) else { throw ICalError(line: line, "\(p.name) '\(ICalValue.quoted(value))' is " + Self.why(value, "a date-time")) }
        if utc { return .utc(Instant(seconds: c.localSeconds)) }
        if let tzid = p.parameter("TZID") { return .local(c, try zones.zone(tzid, line: line)) }
        return .local(c, .floating)
    }
}

extension ICalItem {
    /// A floating EXDATE, RDATE or RECURRENCE-ID of an item whose start has a zone means a time
    /// in that zone (Outlook writes them so): read there, not in the local zone.
    static func inZone(of start: ICalTime?, _ value: ICalTime) -> ICalTime {
        guard case .local(let c, .floating) = value, case .local(_, .zone(let zone))? = start else { return value }
        return .local(c, .zone(zone))
    }

    /// Why a value is not a date: its year, or its form.
    static func why(_ value: Substring, _ expected: String) -> String {
        ICalValue.isYearOutOfRange(value) ? "out of range (years \(ICalBudget.years.lowerBound) to \(ICalBudget.years.upperBound))" : "not \(expected)"
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
