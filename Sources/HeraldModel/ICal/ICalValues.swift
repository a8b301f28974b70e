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

    /// Its length in seconds, counting a day as 86,400 (to widen windows and compare with bounds).
    public var nominalSeconds: Int64 { Int64(days) * 86_400 + seconds }

    /// Parses `[+-]P…` (`P15DT5H0M20S`, `-PT15M`, `P7W`); nil when it is not a duration or
    /// is longer than `ICalBudget.maximumDurationDays`.
    public static func parse(_ text: String) -> ICalDuration? {
        if case .success(let d) = read(text) { return d }
        return nil
    }

    /// The value of property `name` at `line` as a duration, or an error that says why not.
    static func parse(_ text: String, name: String, line: Int, expected: String = "a duration") throws(ICalError) -> ICalDuration {
        switch read(text) {
        case .success(let d): return d
        case .failure(.notADuration): throw ICalError(line: line, "\(name) '\(ICalValue.quoted(text))' is not \(expected)")
        case .failure(.outOfRange): throw ICalError(line: line, "\(name) '\(ICalValue.quoted(text))' is out of range (at most 100 years)")
        }
    }

    enum Problem: Error { case notADuration, outOfRange }

    /// Every number is summed with a check: no value, however long, can overflow.
    static func read(_ text: String) -> Result<ICalDuration, Problem> {
        var u = Array(text.utf8)[...]
        var sign: Int64 = 1
        if let c = u.first, c == UInt8(ascii: "-") || c == UInt8(ascii: "+") { sign = c == UInt8(ascii: "-") ? -1 : 1; u = u.dropFirst() }
        guard u.first == UInt8(ascii: "P") else { return .failure(.notADuration) }
        u = u.dropFirst()
        // Past this a part alone is out of range; the sum is checked against the bound at the end.
        let cap = Int64(ICalBudget.maximumDurationDays) * 86_400 + 1
        var days: Int64 = 0, seconds: Int64 = 0
        var inTime = false
        var number: Int64? = nil
        var any = false
        var tooLong = false
        for c in u {
            switch c {
            case 48...57:
                let n = (number ?? 0) * 10 + Int64(c - 48)
                if n > cap { tooLong = true }
                number = min(n, cap)
            case UInt8(ascii: "T"):
                guard !inTime, number == nil else { return .failure(.notADuration) }
                inTime = true
            default:
                guard let n = number else { return .failure(.notADuration) }
                switch (c, inTime) {
                case (UInt8(ascii: "W"), false): days += 7 * n
                case (UInt8(ascii: "D"), false): days += n
                case (UInt8(ascii: "H"), true): seconds += 3600 * n
                case (UInt8(ascii: "M"), true): seconds += 60 * n
                case (UInt8(ascii: "S"), true): seconds += n
                default: return .failure(.notADuration)
                }
                // Each part is at most `cap` × 7 or × 3600: the sums stay far inside Int64.
                if days > cap || seconds > cap * 86_400 { tooLong = true; days = min(days, cap); seconds = min(seconds, cap * 86_400) }
                number = nil
                any = true
            }
        }
        guard any, number == nil else { return .failure(.notADuration) }
        guard !tooLong, days * 86_400 + seconds <= Int64(ICalBudget.maximumDurationDays) * 86_400 else { return .failure(.outOfRange) }
        return .success(ICalDuration(days: Int(sign * days), seconds: sign * seconds))
    }
}

enum ICalValue {
    /// `YYYYMMDD`.
    static func date(_ s: Substring) -> LocalDate? {
        let u = Array(s.utf8)
        guard u.count == 8, let y = number(u[0..<4]), let m = number(u[4..<6]), let d = number(u[6..<8]),
              ICalBudget.years.contains(y), (1...12).contains(m), d >= 1, d <= CivilCalendar.daysInMonth(year: y, month: m) else { return nil }
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

    /// Whether a value that is not a date or date-time fails only for its year (`0000…`).
    static func isYearOutOfRange(_ s: Substring) -> Bool {
        let u = Array(s.utf8)
        guard u.count >= 8, let y = number(u[0..<4]) else { return false }
        return !ICalBudget.years.contains(y)
    }

    /// A value as an error quotes it: at most 40 characters, so a hostile megabyte is not echoed.
    static func quoted<S: StringProtocol>(_ s: S) -> String {
        s.count <= 40 ? String(s) : String(s.prefix(40)) + "…"
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
