/// A DATE or DATE-TIME value (RFC 5545 §3.3.4, §3.3.5) with the zone it is read in.
public enum ICalTime: Sendable, Equatable, Hashable {
    /// An all-day date.
    case date(LocalDate)
    /// A wall-clock time in `zone` (a TZID, or the local zone for floating times).
    case local(CivilTime, ICalZone)
    /// A UTC time (`…Z`).
    case utc(Instant)

    public var isDate: Bool { if case .date = self { return true } else { return false } }

    /// The instant it names; dates start at local midnight in `localZone`.
    public func instant(localZone: TimeZoneRules) -> Instant {
        switch self {
        case .date(let d): return resolveEarlier(CivilTime(year: d.components.year, month: d.components.month, day: d.components.day), in: localZone)
        case .local(let c, let zone): return resolveEarlier(c, in: zone.rules(local: localZone))
        case .utc(let i): return i
        }
    }

    /// Its wall-clock time in its own zone (UTC for UTC times; midnight for dates).
    public var civil: CivilTime {
        switch self {
        case .date(let d): let c = d.components; return CivilTime(year: c.year, month: c.month, day: c.day)
        case .local(let c, _): return c
        case .utc(let i): return CivilTime(localSeconds: i.seconds, microsecond: Int(i.microsecondOfSecond))
        }
    }

    /// The same kind of value at another wall-clock time (the recurrence engine works in wall time).
    func with(civil c: CivilTime) -> ICalTime {
        switch self {
        case .date: return .date(LocalDate(year: c.year, month: c.month, day: c.day))
        case .local(_, let zone): return .local(c, zone)
        case .utc: return .utc(Instant(seconds: c.localSeconds))
        }
    }
}

/// Where a wall-clock time is: floating (the user's zone), or a TZID resolved to rules.
public enum ICalZone: Sendable, Equatable, Hashable {
    case floating
    case zone(TimeZoneRules)

    func rules(local: TimeZoneRules) -> TimeZoneRules {
        switch self {
        case .floating: return local
        case .zone(let z): return z
        }
    }

    public static func == (a: ICalZone, b: ICalZone) -> Bool {
        switch (a, b) {
        case (.floating, .floating): return true
        case (.zone(let x), .zone(let y)): return x.identifier == y.identifier
        default: return false
        }
    }

    public func hash(into h: inout Hasher) {
        switch self {
        case .floating: h.combine(0)
        case .zone(let z): h.combine(z.identifier)
        }
    }
}

/// RFC 5545 §3.3.10 / §3.3.5: a time that does not exist (in a gap) is read with the offset
/// before the gap; one that exists twice is the first.
func resolveEarlier(_ civil: CivilTime, in zone: TimeZoneRules) -> Instant {
    switch zone.resolve(civil) {
    case .unique(let i): return i
    case .repeated(let earlier, _): return earlier
    case .skipped(let after): return after
    }
}

/// A DURATION (§3.3.6): weeks and days are nominal (wall-clock days in the zone it is applied
/// in), hours, minutes and seconds exact.
public struct ICalDuration: Sendable, Equatable, Hashable {
    public var days: Int
    public var seconds: Int64
    public init(days: Int = 0, seconds: Int64 = 0) { self.days = days; self.seconds = seconds }

    public var isZero: Bool { days == 0 && seconds == 0 }
    public var negated: ICalDuration { ICalDuration(days: -days, seconds: -seconds) }

    /// `instant` moved by this duration, its days counted on the wall clock of `zone`.
    public func added(to instant: Instant, in zone: TimeZoneRules) -> Instant {
        var t = instant
        if days != 0 {
            var c = zone.civil(t)
            let d = CivilCalendar.civil(fromDays: CivilCalendar.days(year: c.year, month: c.month, day: c.day) + Int64(days))
            c.year = d.year; c.month = d.month; c.day = d.day
            t = resolveEarlier(c, in: zone)
        }
        return t + Span.seconds(seconds)
    }

    /// Parses `[+-]P…` (`P15DT5H0M20S`, `-PT15M`, `P7W`).
    public static func parse(_ text: String) -> ICalDuration? {
        var u = Array(text.utf8)[...]
        var sign: Int64 = 1
        if let c = u.first, c == UInt8(ascii: "-") || c == UInt8(ascii: "+") { sign = c == UInt8(ascii: "-") ? -1 : 1; u = u.dropFirst() }
        guard u.first == UInt8(ascii: "P") else { return nil }
        u = u.dropFirst()
        var days: Int64 = 0, seconds: Int64 = 0
        var inTime = false
        var number: Int64? = nil
        var any = false
        for c in u {
            switch c {
            case 48...57:
                let n = (number ?? 0) * 10 + Int64(c - 48)
                guard n < 100_000_000 else { return nil }
                number = n
            case UInt8(ascii: "T"):
                guard !inTime, number == nil else { return nil }
                inTime = true
            default:
                guard let n = number else { return nil }
                switch (c, inTime) {
                case (UInt8(ascii: "W"), false): days += 7 * n
                case (UInt8(ascii: "D"), false): days += n
                case (UInt8(ascii: "H"), true): seconds += 3600 * n
                case (UInt8(ascii: "M"), true): seconds += 60 * n
                case (UInt8(ascii: "S"), true): seconds += n
                default: return nil
                }
                number = nil
                any = true
            }
        }
        guard any, number == nil else { return nil }
        return ICalDuration(days: Int(sign * days), seconds: sign * seconds)
    }
}

enum ICalValue {
    /// `YYYYMMDD`.
    static func date(_ s: Substring) -> LocalDate? {
        let u = Array(s.utf8)
        guard u.count == 8, let y = number(u[0..<4]), let m = number(u[4..<6]), let d = number(u[6..<8]),
              (1...12).contains(m), d >= 1, d <= CivilCalendar.daysInMonth(year: y, month: m) else { return nil }
        return LocalDate(year: y, month: m, day: d)
    }

    /// `YYYYMMDDTHHMMSS[Z]`: the wall-clock time and whether it is UTC.
    static func dateTime(_ s: Substring) -> (CivilTime, utc: Bool)? {
        let u = Array(s.utf8)
        guard u.count == 15 || (u.count == 16 && (u[15] == UInt8(ascii: "Z") || u[15] == UInt8(ascii: "z"))),
              u[8] == UInt8(ascii: "T") || u[8] == UInt8(ascii: "t"),
              let d = date(s.prefix(8)), let h = number(u[9..<11]), let mi = number(u[11..<13]), let se = number(u[13..<15]),
              h <= 23, mi <= 59, se <= 60 else { return nil }
        let c = d.components
        return (CivilTime(year: c.year, month: c.month, day: c.day, hour: h, minute: mi, second: min(se, 59)), u.count == 16)
    }

    static func number(_ u: ArraySlice<UInt8>) -> Int? {
        var v = 0
        for c in u {
            guard c >= 48, c <= 57 else { return nil }
            v = v * 10 + Int(c - 48)
        }
        return v
    }
}
