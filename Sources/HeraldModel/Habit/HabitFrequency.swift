/// How often a habit is meant to be done, as Loop Habit Tracker counts it: `count` times per
/// period. A habit without one is done on each day its calendar reminds (`every`).
public struct HabitFrequency: Sendable, Hashable, CustomStringConvertible {
    public enum Period: Sendable, Hashable {
        /// A window of this many days ending on the day in question (Loop's "every N days").
        case days(Int)
        /// A calendar week, starting on the configured first weekday.
        case week
        /// A calendar month.
        case month
    }

    public var count: Int
    public var period: Period

    public init(count: Int, period: Period) { self.count = count; self.period = period }

    public static let daily = HabitFrequency(count: 1, period: .days(1))

    /// Loop's numerator and denominator: a week is 7 days and a month 30.
    public var loopFraction: (numerator: Int, denominator: Int) {
        switch period {
        case .days(let n): return (count, n)
        case .week: return (count, 7)
        case .month: return (count, 30)
        }
    }

    /// Loop's frequency from its numerator and denominator (7 is a week, 30 and 31 a month).
    public init(loopNumerator num: Int, denominator den: Int) {
        switch den {
        case 7 where num > 1: self.init(count: num, period: .week)
        case 30, 31: self.init(count: num, period: .month)
        default: self.init(count: num, period: .days(den))
        }
    }

    /// The most days a period can hold, which bounds `count`.
    var longestPeriod: Int {
        switch period {
        case .days(let n): return n
        case .week: return 7
        case .month: return 31
        }
    }

    /// "3/week", "10/month", "1/3days", "1/day" — the form `--times` reads.
    public var description: String {
        switch period {
        case .days(1): return "\(count)/day"
        case .days(let n): return "\(count)/\(n)days"
        case .week: return "\(count)/week"
        case .month: return "\(count)/month"
        }
    }

    /// "3 times a week", "every 3 days", "daily".
    public var phrase: String {
        switch (count, period) {
        case (1, .days(1)): return "daily"
        case (1, .days(let n)): return "every \(n) days"
        case (let c, .days(let n)): return "\(c) times in \(n) days"
        case (1, .week): return "once a week"
        case (let c, .week): return "\(c) times a week"
        case (1, .month): return "once a month"
        case (let c, .month): return "\(c) times a month"
        }
    }

    public struct ParseError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads `N/week`, `N/month`, `N/day`, `N/Mdays` (also `N/M days`, `N/Md`), `daily`, `weekly`, `monthly`.
    public static func parse(_ text: String) throws(ParseError) -> HabitFrequency {
        let t = text.trimmingSpaces.lowercased()
        switch t {
        case "daily": return .daily
        case "weekly": return HabitFrequency(count: 1, period: .week)
        case "monthly": return HabitFrequency(count: 1, period: .month)
        default: break
        }
        let hint = "write N/week, N/month or N/Mdays, such as 3/week, 10/month or 1/2days"
        let parts = t.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(String(parts[0]).trimmingSpaces), count >= 1 else {
            throw ParseError(description: "'\(text)' is not a frequency: \(hint)")
        }
        var unit = String(parts[1].filter { $0 != " " })
        var length = 1
        let digits = unit.prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty {
            guard let n = Int(digits), n >= 1, n <= 366 else { throw ParseError(description: "'\(text)': the number of days is not from 1 to 366") }
            length = n
            unit.removeFirst(digits.count)
        }
        let period: Period
        switch unit {
        case "d", "day", "days": period = .days(length)
        case "w", "week", "weeks": period = .week
        case "m", "month", "months": period = .month
        default: throw ParseError(description: "'\(text)' is not a frequency: \(hint)")
        }
        if period == .week || period == .month, !digits.isEmpty {
            throw ParseError(description: "'\(text)' is not a frequency: \(hint)")
        }
        let frequency = HabitFrequency(count: count, period: period)
        guard count <= frequency.longestPeriod else {
            throw ParseError(description: "'\(text)': \(count) times do not fit in \(frequency.longestPeriod) day\(frequency.longestPeriod == 1 ? "" : "s") (one completion a day)")
        }
        return frequency
    }
}

/// A measurable habit's goal: at least (or at most) `amount` `unit` a day.
public struct HabitTarget: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case atLeast = "at-least", atMost = "at-most" }
    public var amount: Double
    public var unit: String
    public var kind: Kind

    public init(amount: Double, unit: String, kind: Kind = .atLeast) { self.amount = amount; self.unit = unit; self.kind = kind }

    /// "5 of 8 glasses", "1 of at most 2 cups".
    public func progress(_ value: Double) -> String {
        let u = unit.isEmpty ? "" : " " + unit
        return kind == .atLeast ? "\(Self.format(value)) of \(Self.format(amount))\(u)" : "\(Self.format(value)) of at most \(Self.format(amount))\(u)"
    }

    /// "8 glasses", "at most 2 cups".
    public var phrase: String {
        (kind == .atMost ? "at most " : "") + Self.format(amount) + (unit.isEmpty ? "" : " " + unit)
    }

    /// Whole amounts without a decimal point, others with up to three decimals.
    public static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var s = String(Int64((value * 1000).rounded()))
        let negative = s.hasPrefix("-")
        if negative { s.removeFirst() }
        while s.count < 4 { s = "0" + s }
        var text = String(s.dropLast(3)) + "." + String(s.suffix(3))
        while text.hasSuffix("0") { text.removeLast() }
        return (negative ? "-" : "") + text
    }
}
