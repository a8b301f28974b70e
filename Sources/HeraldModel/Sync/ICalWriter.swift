/// Writes iCalendar content lines (RFC 5545 §3.1): TEXT values escaped, lines folded at 75
/// octets (never inside a UTF-8 sequence), CRLF line ends.
public struct ICalWriter {
    public private(set) var lines: [String] = []

    public init() {}

    /// A property whose value is written as it is (dates, durations, rules, numbers).
    public mutating func raw(_ name: String, _ value: String) { lines.append(name + ":" + value) }

    /// A TEXT property: backslash, semicolon, comma and newline escaped, other controls dropped.
    public mutating func text(_ name: String, _ value: String) { lines.append(name + ":" + Self.escape(value)) }

    public mutating func begin(_ component: String) { lines.append("BEGIN:" + component) }
    public mutating func end(_ component: String) { lines.append("END:" + component) }

    /// The document: every line folded, CRLF after each.
    public var document: String { lines.map(Self.fold).joined(separator: "\r\n") + "\r\n" }

    static func escape(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        var previousCR = false
        for s in text.unicodeScalars {
            switch s {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": if !previousCR { out += "\\n" }
            case "\r": out += "\\n"
            case "\t": out.unicodeScalars.append(s)
            default:
                // Other controls are not allowed in TEXT (§3.3.11).
                if s.value < 0x20 || s.value == 0x7F { break }
                out.unicodeScalars.append(s)
            }
            previousCR = s == "\r"
        }
        return out
    }

    /// Folds a line into parts of at most 75 octets, each continued line starting with a space.
    static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > 75 else { return line }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 37 + 3)
        var start = 0
        var limit = 75
        while start < bytes.count {
            var end = min(start + limit, bytes.count)
            // Not inside a UTF-8 sequence: back up over continuation bytes.
            while end < bytes.count, end > start, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            if start > 0 { out.append(contentsOf: [13, 10, 32]) }
            out.append(contentsOf: bytes[start..<end])
            start = end
            limit = 74  // the leading space counts
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `20261127T090000Z`.
    public static func utc(_ t: Instant) -> String { CalendarWriteBack.utc(t) }

    /// `20261127T090000`, the wall time of `t` in `zone` (for a TZID= property).
    public static func local(_ t: Instant, in zone: TimeZoneRules) -> String {
        let c = zone.civil(t)
        return ISO8601.pad(c.year, 4) + ISO8601.pad(c.month, 2) + ISO8601.pad(c.day, 2) + "T"
            + ISO8601.pad(c.hour, 2) + ISO8601.pad(c.minute, 2) + ISO8601.pad(c.second, 2)
    }

    /// An RFC 5545 duration for a span: `PT15M`, `-PT1H30M`, `P1D`, `PT0S`.
    public static func duration(_ span: Span) -> String {
        var seconds = span.microseconds / 1_000_000
        let negative = seconds < 0
        seconds = seconds.magnitude > Int64.max.magnitude ? 0 : abs(seconds)
        var out = negative ? "-P" : "P"
        let days = seconds / 86_400, rest = seconds % 86_400
        if days > 0 { out += "\(days)D" }
        if rest > 0 || days == 0 {
            out += "T"
            let h = rest / 3600, m = rest % 3600 / 60, s = rest % 60
            if h > 0 { out += "\(h)H" }
            if m > 0 { out += "\(m)M" }
            if s > 0 || (h == 0 && m == 0) { out += "\(s)S" }
        }
        return out
    }
}

extension TimeZoneRules {
    /// The zone as a VTIMEZONE, from its current rules (the TZif footer): a STANDARD and, with
    /// daylight saving, a DAYLIGHT part with yearly RRULEs, so every calendar program computes
    /// the same wall times. Nil when the rules cannot be said that way (a day counted from the
    /// start of the year, a change at a time outside the day): such an item is written in UTC.
    public func vtimezone(tzid: String) -> [String]? {
        var lines = ["BEGIN:VTIMEZONE", "TZID:" + tzid]
        func offset(_ seconds: Int) -> String {
            let sign = seconds < 0 ? "-" : "+"
            let a = abs(seconds)
            return sign + ISO8601.pad(a / 3600, 2) + ISO8601.pad(a % 3600 / 60, 2) + (a % 60 == 0 ? "" : ISO8601.pad(a % 60, 2))
        }
        guard let footer else {
            // No rules for the future: the offset in force now, as if it never changed.
            guard transitions.isEmpty || types.count == 1 else { return nil }
            let type = types.first ?? LocalType(offset: 0, isDST: false, abbreviation: "UTC")
            lines += ["BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:" + offset(type.offset),
                      "TZOFFSETTO:" + offset(type.offset), "TZNAME:" + type.abbreviation, "END:STANDARD", "END:VTIMEZONE"]
            return lines
        }
        guard let daylight = footer.daylight else {
            lines += ["BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:" + offset(footer.standardOffset),
                      "TZOFFSETTO:" + offset(footer.standardOffset), "TZNAME:" + footer.standardAbbreviation, "END:STANDARD", "END:VTIMEZONE"]
            return lines
        }
        func part(_ name: String, rule: PosixTimeZone.Rule, from: Int, to: Int, abbreviation: String) -> [String]? {
            guard case .monthWeekDay(let month, let week, let weekday) = rule.day, (1...12).contains(month), (1...5).contains(week),
                  (0...6).contains(weekday), (0..<86_400).contains(rule.time) else { return nil }
            let days = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
            let byday = (week == 5 ? "-1" : String(week)) + days[weekday]
            // DTSTART: the first such day of 1970, at the change's local time (in the offset before it).
            let t = rule.time
            let firstDay = Self.dayOfMonth(year: 1970, month: month, week: week, weekday: weekday)
            let start = "1970" + ISO8601.pad(month, 2) + ISO8601.pad(firstDay, 2) + "T" + ISO8601.pad(t / 3600, 2) + ISO8601.pad(t % 3600 / 60, 2)
                + ISO8601.pad(t % 60, 2)
            return ["BEGIN:" + name, "DTSTART:" + start, "TZOFFSETFROM:" + offset(from), "TZOFFSETTO:" + offset(to),
                    "TZNAME:" + abbreviation, "RRULE:FREQ=YEARLY;BYMONTH=\(month);BYDAY=" + byday, "END:" + name]
        }
        guard let standard = part("STANDARD", rule: daylight.end, from: daylight.offset, to: footer.standardOffset,
                                  abbreviation: footer.standardAbbreviation),
              let summer = part("DAYLIGHT", rule: daylight.start, from: footer.standardOffset, to: daylight.offset,
                                abbreviation: daylight.abbreviation) else { return nil }
        return lines + standard + summer + ["END:VTIMEZONE"]
    }

    /// The day of `month` that is the `week`th `weekday` (0 Sunday), week 5 being the last.
    static func dayOfMonth(year: Int, month: Int, week: Int, weekday: Int) -> Int {
        let firstWeekday = (LocalDate(year: year, month: month, day: 1).weekday + 1) % 7  // 0 Sunday, as POSIX counts
        var day = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
        let length = CivilCalendar.daysInMonth(year: year, month: month)
        while day > length { day -= 7 }
        return day
    }
}
