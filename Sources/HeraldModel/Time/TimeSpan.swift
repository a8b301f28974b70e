/// Time spans in systemd's syntax (`systemd.time(7)`): `15m`, `1h 30min`, `2 days`, `1.5h`,
/// `500ms`. A number without a unit is seconds, as in systemd.
public enum TimeSpan {
    /// Why a time span was refused. `description` is the cause only; callers add the value.
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case empty
        case negative
        case infinite
        case expectedNumber(String)
        case unknownUnit(String)
        case outOfRange

        public var description: String {
            switch self {
            case .empty: return "it is empty"
            case .negative: return "it is negative"
            case .infinite: return "'infinity' is not allowed here"
            case .expectedNumber(let rest): return "expected a number at '\(rest)'"
            case .unknownUnit(let unit): return "unknown unit '\(unit)' (use us, ms, s, min, h, d, w, M, y)"
            case .outOfRange: return "it is too large"
            }
        }
    }

    /// Microseconds in one `unit`, for the unit names systemd accepts; nil for any other.
    /// (A switch, not a table of tuples, whose metadata every start would build at run time.)
    static func microseconds(inUnit unit: String) -> Int64? {
        switch unit {
        case "usec", "us", "µs", "μs": return 1
        case "msec", "ms": return 1_000
        case "seconds", "second", "sec", "s": return 1_000_000
        case "minutes", "minute", "min", "m": return 60_000_000
        case "hours", "hour", "hr", "h": return 3_600_000_000
        case "days", "day", "d": return 86_400_000_000
        case "weeks", "week", "w": return 604_800_000_000
        case "months", "month", "M": return 2_629_800_000_000
        case "years", "year", "y": return 31_557_600_000_000
        default: return nil
        }
    }

    /// Parses a span; every component may have a unit, the default unit is seconds.
    ///
    /// - Throws: `ParseError` naming the bad part.
    public static func parse(_ text: String) throws(ParseError) -> Span {
        let chars = Array(text.unicodeScalars)
        var i = 0
        var total: Int64 = 0
        var components = 0
        func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" }
        func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
        /// The text from `start` on, for messages (built only when one is needed).
        func tail(_ start: Int) -> String {
            var s = ""
            for c in chars[start...] { s.unicodeScalars.append(c) }
            return s
        }
        let trimmed = text.trimmingSpaces
        if trimmed.isEmpty { throw .empty }
        if trimmed == "infinity" { throw .infinite }
        while true {
            while i < chars.count, isSpace(chars[i]) { i += 1 }
            if i == chars.count { break }
            if chars[i] == "-" { throw .negative }
            if chars[i] == "+" { i += 1 }
            let start = i
            var whole: Int64 = 0
            var sawDigits = false
            while i < chars.count, isDigit(chars[i]) {
                let (m, o1) = whole.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(chars[i].value - 48))
                if o1 || o2 { throw .outOfRange }
                whole = a; sawDigits = true; i += 1
            }
            var fraction: [Int64] = []
            if i < chars.count, chars[i] == "." {
                i += 1
                while i < chars.count, isDigit(chars[i]) { fraction.append(Int64(chars[i].value - 48)); i += 1 }
                if fraction.isEmpty { throw .expectedNumber(tail(start)) }
            }
            if !sawDigits && fraction.isEmpty { throw .expectedNumber(tail(start)) }
            let afterNumber = i
            while i < chars.count, isSpace(chars[i]) { i += 1 }
            var unitText = ""
            while i < chars.count, !isSpace(chars[i]), !isDigit(chars[i]), chars[i] != "." {
                unitText.unicodeScalars.append(chars[i]); i += 1
            }
            var multiplier: Int64 = 1_000_000
            if unitText.isEmpty, afterNumber < chars.count, !isSpace(chars[afterNumber]) {
                throw .expectedNumber(tail(afterNumber))
            }
            if !unitText.isEmpty {
                guard let unit = microseconds(inUnit: unitText) else { throw .unknownUnit(unitText) }
                multiplier = unit
            }
            let (w, o) = whole.multipliedReportingOverflow(by: multiplier)
            if o { throw .outOfRange }
            var frac: Int64 = 0
            var scale = multiplier
            for digit in fraction.prefix(18) {
                scale /= 10
                frac += digit * scale
                if scale == 0 { break }
            }
            let (part, o2) = w.addingReportingOverflow(frac)
            let (t, o3) = total.addingReportingOverflow(part)
            if o2 || o3 { throw .outOfRange }
            total = t
            components += 1
        }
        if components == 0 { throw .empty }
        return Span(microseconds: total)
    }

    static let formatUnits: [(String, Int64)] = [
        ("y", 31_557_600_000_000), ("month", 2_629_800_000_000), ("w", 604_800_000_000),
        ("d", 86_400_000_000), ("h", 3_600_000_000), ("min", 60_000_000), ("s", 1_000_000),
        ("ms", 1_000), ("us", 1),
    ]

    /// Formats a span the way systemd does (`1h 30min`, `2d`, `500ms`, `0`).
    public static func format(_ span: Span) -> String {
        var rest = span.microseconds
        if rest == 0 { return "0" }
        var parts: [String] = []
        let sign = rest < 0 ? "-" : ""
        rest = rest.magnitude > Int64.max.magnitude ? Int64.max : abs(rest)
        for (name, size) in formatUnits where rest >= size {
            parts.append("\(rest / size)\(name)")
            rest %= size
        }
        return sign + parts.joined(separator: " ")
    }

    /// A rounded, human phrase for a distance in time: "15 min", "2 h 10 min", "3 days".
    public static func humanize(_ span: Span) -> String {
        let totalSeconds = Int64(span.microseconds.magnitude / 1_000_000)
        let minutes = (totalSeconds + 30) / 60
        if totalSeconds < 60 { return "\(totalSeconds) s" }
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60, remMin = minutes % 60
        if hours < 48 { return remMin == 0 ? "\(hours) h" : "\(hours) h \(remMin) min" }
        let days = (hours + 12) / 24
        return "\(days) days"
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    public var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !($0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r") }) else { return "" }
        let end = scalars.lastIndex(where: { !($0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r") })!
        return String(scalars[start...end])
    }
}

extension TimeSpan {
    /// A span in words: "30 minutes", "1 hour", "1 hour 30 minutes", "45 seconds", "2 days".
    public static func spoken(_ span: Span) -> String {
        var rest = Int64(span.microseconds.magnitude / 1_000_000)
        if rest == 0 { return "less than a second" }
        var parts: [String] = []
        for (name, size) in [("day", Int64(86_400)), ("hour", 3600), ("minute", 60), ("second", 1)] where rest >= size {
            let n = rest / size
            rest %= size
            parts.append("\(n) \(name)\(n == 1 ? "" : "s")")
        }
        return parts.joined(separator: " ")
    }
}
