/// A calendar date and wall-clock time without a zone (proleptic Gregorian calendar).
public struct CivilTime: Hashable, Comparable, Sendable {
    public var year: Int
    public var month: Int   // 1...12
    public var day: Int     // 1...31
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var microsecond: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, microsecond: Int = 0) {
        self.year = year; self.month = month; self.day = day
        self.hour = hour; self.minute = minute; self.second = second; self.microsecond = microsecond
    }

    /// The civil time of `seconds` since the epoch read as if UTC (i.e. local seconds).
    public init(localSeconds: Int64, microsecond: Int = 0) {
        let days = localSeconds.floorDiv(86_400)
        let secs = Int(localSeconds.floorMod(86_400))
        let (y, m, d) = CivilCalendar.civil(fromDays: days)
        self.init(year: y, month: m, day: d, hour: secs / 3600, minute: secs / 60 % 60, second: secs % 60, microsecond: microsecond)
    }

    /// Seconds since the epoch if this civil time were UTC.
    public var localSeconds: Int64 {
        CivilCalendar.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// 0 = Monday ... 6 = Sunday (ISO order, as systemd lists weekdays).
    public var weekday: Int { CivilCalendar.weekday(days: CivilCalendar.days(year: year, month: month, day: day)) }

    public static func < (a: CivilTime, b: CivilTime) -> Bool {
        (a.localSeconds, a.microsecond) < (b.localSeconds, b.microsecond)
    }
}

/// Proleptic Gregorian date arithmetic on day numbers (days since 1970-01-01).
public enum CivilCalendar {
    /// Day number of a date (H. Hinnant's days_from_civil).
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day number (H. Hinnant's civil_from_days).
    public static func civil(fromDays z0: Int64) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }

    /// 0 = Monday ... 6 = Sunday.
    public static func weekday(days: Int64) -> Int { Int((days + 3).floorMod(7)) }

    public static func isLeapYear(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
