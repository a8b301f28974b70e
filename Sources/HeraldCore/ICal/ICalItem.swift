/// One calendar item: a VEVENT or VTODO (the master, with its RRULE/RDATE/EXDATE) and the
/// components that override single occurrences (RECURRENCE-ID, RANGE=THISANDFUTURE).
public struct ICalItem: Sendable {
    public let uid: String
    public let isTodo: Bool
    var master: ICalComponent?
    var overrides: [ICalComponent] = []
    let zones: ICalZones

    init(uid: String, isTodo: Bool, zones: ICalZones) { self.uid = uid; self.isTodo = isTodo; self.zones = zones }

    /// The most occurrences one item may produce in one window (a SECONDLY rule without end).
    static let maximumOccurrences = 20_000

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

    func alarms(from: Instant, to: Instant, localZone: TimeZoneRules) throws(ICalError) -> [CalendarAlarm] {
        if let master, isSettled(master) { return [] }
        let components = (master.map { [$0] } ?? []) + overrides
        // Widen the window by how far alarms lie from their occurrences, so each occurrence whose
        // alarm falls in the range is expanded.
        var before: Int64 = 2 * 86_400, after: Int64 = 2 * 86_400
        for c in components {
            after += max(0, try duration(of: c, localZone: localZone).map { Int64($0.days) * 86_400 + $0.seconds } ?? 0)
            for alarm in c.components where alarm.name == "VALARM" {
                guard let trigger = alarm.property("TRIGGER"), let d = ICalDuration.parse(trigger.value) else { continue }
                let offset = Int64(d.days) * 86_400 + d.seconds
                let repeats = Int64(Int(alarm.property("REPEAT")?.value ?? "") ?? 0)
                let step = alarm.property("DURATION").flatMap { ICalDuration.parse($0.value) }.map { Int64($0.days) * 86_400 + $0.seconds } ?? 0
                before = max(before, -offset + 2 * 86_400)
                after = max(after, offset + repeats * step + 2 * 86_400)
            }
        }
        let window = (from - Span.seconds(after), to + Span.seconds(before))
        let occurrences = try self.occurrences(in: window, localZone: localZone)
        let attendees = components.contains { $0.property("ATTENDEE") != nil }
        var out: [CalendarAlarm] = []
        for component in components {
            let mine = occurrences.filter { $0.component.beginLine == component.beginLine }
            for (index, alarm) in component.components.filter({ $0.name == "VALARM" }).enumerated() {
                guard let actionText = alarm.property("ACTION")?.value.uppercased(), let action = CalendarAlarm.Action(rawValue: actionText),
                      let trigger = alarm.property("TRIGGER") else { continue }
                var acknowledged: Instant? = nil
                if let ack = alarm.property("ACKNOWLEDGED"), let (c, _) = ICalValue.dateTime(Substring(ack.value)) {
                    acknowledged = Instant(seconds: c.localSeconds)
                }
                let repeats = max(0, min(Int(alarm.property("REPEAT")?.value ?? "") ?? 0, 1000))
                let step = alarm.property("DURATION").flatMap { ICalDuration.parse($0.value) }
                func emit(_ first: Instant, _ occurrence: Occurrence?, zone: TimeZoneRules) {
                    var t = first
                    for k in 0...(step == nil ? 0 : repeats) {
                        if k > 0, let step { t = step.added(to: t, in: zone) }
                        guard t >= from, t < to, acknowledged.map({ t > $0 }) ?? true else { continue }
                        out.append(alarmValue(at: t, occurrence: occurrence, component: component, alarm: alarm, index: index,
                                              action: action, attendees: attendees, localZone: localZone))
                    }
                }
                let line = trigger.lines.lowerBound + 1
                if trigger.parameter("VALUE")?.uppercased() == "DATE-TIME" || trigger.value.utf8.last == UInt8(ascii: "Z") {
                    guard let (c, utc) = ICalValue.dateTime(Substring(trigger.value)), utc else {
                        throw ICalError(line: line, "TRIGGER '\(trigger.value)' is not a UTC date-time")
                    }
                    let at = Instant(seconds: c.localSeconds)
                    // An absolute alarm fires once; it belongs to the occurrence it falls in or
                    // precedes (a snooze: the one it follows).
                    let isSnooze = alarm.properties("RELATED-TO").contains { $0.parameter("RELTYPE")?.uppercased() == "SNOOZE" }
                    let occurrence = isSnooze ? mine.last { $0.startInstant <= at } ?? mine.first
                        : mine.first { $0.end >= at } ?? mine.last
                    emit(at, occurrence, zone: .utc)
                    continue
                }
                guard let offset = ICalDuration.parse(trigger.value) else {
                    throw ICalError(line: line, "TRIGGER '\(trigger.value)' is not a duration or a UTC date-time")
                }
                let relatedToEnd = trigger.parameter("RELATED")?.uppercased() == "END"
                for occurrence in mine {
                    let zone = rules(of: occurrence.start, localZone: localZone)
                    emit(offset.added(to: relatedToEnd ? occurrence.end : occurrence.startInstant, in: zone), occurrence, zone: zone)
                }
            }
        }
        return out
    }

    func alarmValue(at: Instant, occurrence: Occurrence?, component: ICalComponent, alarm: ICalComponent, index: Int,
                    action: CalendarAlarm.Action, attendees: Bool, localZone: TimeZoneRules) -> CalendarAlarm {
        let described = occurrence?.component ?? component
        let start = occurrence?.startInstant ?? (try? startValue(of: component)?.instant(localZone: localZone)) ?? at
        return CalendarAlarm(
            at: at, uid: uid, recurrenceID: occurrence?.recurrenceID.map { Self.format($0, localZone: localZone) },
            summary: (described.property("SUMMARY") ?? master?.property("SUMMARY"))?.text ?? "",
            location: (described.property("LOCATION") ?? master?.property("LOCATION"))?.text.nonEmpty,
            start: start, allDay: occurrence?.start.isDate ?? false, isTodo: isTodo, action: action,
            sound: action == .audio ? alarm.property("ATTACH")?.value : nil, alarmIndex: index,
            alarmUID: alarm.property("UID")?.value,
            componentRecurrenceID: component.property("RECURRENCE-ID").flatMap { try? time($0) }.map { Self.format($0, localZone: localZone) },
            hasAttendees: attendees)
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
    func occurrences(in window: (Instant, Instant), localZone: TimeZoneRules) throws(ICalError) -> [Occurrence] {
        var result: [Occurrence] = []
        var overridden: [Instant: ICalComponent] = [:]
        var ranged: [(recurrenceID: ICalTime, at: Instant, component: ICalComponent)] = []
        for o in overrides {
            guard let p = o.property("RECURRENCE-ID") else { continue }
            let id = try time(p)
            let at = id.instant(localZone: localZone)
            overridden[at] = o
            if p.parameter("RANGE")?.uppercased() == "THISANDFUTURE" { ranged.append((id, at, o)) }
        }
        ranged.sort { $0.at < $1.at }
        for o in overrides where !isSettled(o) {
            guard let p = o.property("RECURRENCE-ID") else { continue }
            let id = try time(p)
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
        for (value, period) in try recurrences(of: master, start: start, window: window, localZone: localZone) {
            let at = value.instant(localZone: localZone)
            guard overridden[at] == nil else { continue }
            var occurrence = Occurrence(component: master, start: value, startInstant: at, end: at, recurrenceID: value)
            var length = period ?? masterDuration
            // RANGE=THISANDFUTURE: the latest such override before this occurrence moves it by
            // its own shift (on the wall clock) and describes it.
            if let range = ranged.last(where: { $0.at < at }) {
                let newStart = try startValue(of: range.component) ?? range.recurrenceID
                let shift = newStart.civil.localSeconds - range.recurrenceID.civil.localSeconds
                let moved = value.with(civil: CivilTime(localSeconds: value.civil.localSeconds + shift))
                occurrence.component = range.component
                occurrence.start = moved
                occurrence.startInstant = moved.instant(localZone: localZone)
                length = try duration(of: range.component, localZone: localZone)
                if isSettled(range.component) { continue }
            }
            let zone = rules(of: occurrence.start, localZone: localZone)
            occurrence.end = length.map { $0.added(to: occurrence.startInstant, in: zone) } ?? occurrence.startInstant
            result.append(occurrence)
        }
        return result
    }

    /// DTSTART, RRULE, RDATE minus EXDATE (RFC 5545 §3.8.5): the start always counts.
    func recurrences(of master: ICalComponent, start: ICalTime, window: (Instant, Instant),
                     localZone: TimeZoneRules) throws(ICalError) -> [(ICalTime, ICalDuration?)] {
        var found: [Instant: (ICalTime, ICalDuration?)] = [start.instant(localZone: localZone): (start, nil)]
        let zone = rules(of: start, localZone: localZone)
        let lower = zone.civil(window.0), upper = zone.civil(window.1)
        for p in master.properties("RRULE") {
            let rule: RecurrenceRule
            let startZone: ICalZone
            if case .local(_, let z) = start { startZone = z } else { startZone = .floating }
            do { rule = try RecurrenceRule.parse(p.value, zone: startZone) } catch {
                throw ICalError(line: p.lines.lowerBound + 1, "RRULE: \(error.description)")
            }
            var produced = 0
            rule.expand(start: start.civil, lowerBound: lower, limit: upper, isPastUntil: { c in
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
                let value = start.with(civil: c)
                found[value.instant(localZone: localZone)] = (value, nil)
                produced += 1
                return produced < Self.maximumOccurrences
            }
        }
        for p in master.properties("RDATE") {
            let isPeriod = p.parameter("VALUE")?.uppercased() == "PERIOD"
            for part in p.value.split(separator: ",") {
                var text = part
                var length: ICalDuration? = nil
                if isPeriod || part.contains("/") {
                    let pieces = part.split(separator: "/", maxSplits: 1)
                    guard pieces.count == 2 else { throw ICalError(line: p.lines.lowerBound + 1, "RDATE period '\(part)' is not START/END") }
                    text = pieces[0]
                    let startTime = try time(p, value: pieces[0])
                    if let d = ICalDuration.parse(String(pieces[1])) { length = d } else {
                        let endTime = try time(p, value: pieces[1])
                        length = ICalDuration(seconds: (endTime.instant(localZone: localZone) - startTime.instant(localZone: localZone)).microseconds / 1_000_000)
                    }
                }
                let value = try time(p, value: text)
                found[value.instant(localZone: localZone)] = (value, length)
            }
        }
        for p in master.properties("EXDATE") {
            for part in p.value.split(separator: ",") {
                let value = try time(p, value: part)
                if case .date(let d) = value, !start.isDate {
                    // A date excludes that day's occurrence of a timed item.
                    for key in found.keys where LocalDate(key, in: rules(of: start, localZone: localZone)) == d { found.removeValue(forKey: key) }
                } else {
                    found.removeValue(forKey: value.instant(localZone: localZone))
                }
            }
        }
        return found.filter { $0.key >= window.0 && $0.key <= window.1 }.sorted { $0.key < $1.key }.map(\.value)
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
            if case .date(let a) = start, case .date(let b) = end { return ICalDuration(days: Int(b.dayNumber - a.dayNumber)) }
            return ICalDuration(seconds: (end.instant(localZone: localZone) - start.instant(localZone: localZone)).microseconds / 1_000_000)
        }
        if let p = c.property("DURATION") {
            guard let d = ICalDuration.parse(p.value) else { throw ICalError(line: p.lines.lowerBound + 1, "DURATION '\(p.value)' is not a duration") }
            return d
        }
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
            guard let d = ICalValue.date(value) else { throw ICalError(line: line, "\(p.name) '\(value)' is not a date") }
            return .date(d)
        }
        guard let (c, utc) = ICalValue.dateTime(value) else { throw ICalError(line: line, "\(p.name) '\(value)' is not a date-time") }
        if utc { return .utc(Instant(seconds: c.localSeconds)) }
        if let tzid = p.parameter("TZID") { return .local(c, try zones.zone(tzid, line: line)) }
        return .local(c, .floating)
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
