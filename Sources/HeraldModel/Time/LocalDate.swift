/// A calendar day (no time, no zone): what a habit completion is recorded against.
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let dayNumber: Int64

    public init(dayNumber: Int64) { self.dayNumber = dayNumber }
    public init(year: Int, month: Int, day: Int) { dayNumber = CivilCalendar.days(year: year, month: month, day: day) }

    /// The day `instant` falls on in `zone`.
    public init(_ instant: Instant, in zone: TimeZoneRules) {
        let c = zone.civil(instant)
        self.init(year: c.year, month: c.month, day: c.day)
    }

    /// Parses `YYYY-MM-DD`; nil for anything else or an impossible date.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), d >= 1, d <= CivilCalendar.daysInMonth(year: y, month: m) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    public var components: (year: Int, month: Int, day: Int) { CivilCalendar.civil(fromDays: dayNumber) }
    /// 0 = Monday ... 6 = Sunday.
    public var weekday: Int { CivilCalendar.weekday(days: dayNumber) }

    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + Int64(days)) }

    /// The first instant of this day in `zone` (after the jump, when midnight is skipped).
    public func start(in zone: TimeZoneRules) -> Instant {
        let c = components
        return zone.resolve(CivilTime(year: c.year, month: c.month, day: c.day)).firstInstant
    }

    public static func < (a: LocalDate, b: LocalDate) -> Bool { a.dayNumber < b.dayNumber }

    public var description: String {
        let c = components
        return ISO8601.pad(c.year, 4) + "-" + ISO8601.pad(c.month, 2) + "-" + ISO8601.pad(c.day, 2)
    }
}
