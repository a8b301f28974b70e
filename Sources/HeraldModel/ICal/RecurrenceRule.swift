/// An RRULE (RFC 5545 §3.3.10) and its expansion in wall-clock time.
///
/// Expansion follows the RFC's table and the reference implementations (libical, dateutil):
/// each FREQ×INTERVAL period gives a set of candidate days (BYMONTH, BYWEEKNO, BYYEARDAY,
/// BYMONTHDAY and BYDAY expand or limit them), times of day (BYHOUR, BYMINUTE, BYSECOND),
/// then BYSETPOS picks from the period's sorted candidates. Dates that do not exist (30
/// February) are not candidates; times in a daylight-saving gap are resolved by the caller.
public struct RecurrenceRule: Sendable, Equatable {
    public enum Frequency: Int, Sendable, Comparable {
        case secondly, minutely, hourly, daily, weekly, monthly, yearly
        public static func < (a: Frequency, b: Frequency) -> Bool { a.rawValue < b.rawValue }
    }

    public struct WeekdayNumber: Sendable, Equatable {
        /// 0 = Monday … 6 = Sunday (as `CivilCalendar.weekday`).
        public var weekday: Int
        /// 0: every such weekday; n / -n: the n-th / n-th last in the month or year.
        public var ordinal: Int
    }

    public var frequency: Frequency
    public var interval = 1
    public var count: Int?
    /// UNTIL as written: a date, or a wall-clock/UTC time.
    public var until: ICalTime?
    public var bySecond: [Int] = []
    public var byMinute: [Int] = []
    public var byHour: [Int] = []
    public var byDay: [WeekdayNumber] = []
    public var byMonthDay: [Int] = []
    public var byYearDay: [Int] = []
    public var byWeekNo: [Int] = []
    public var byMonth: [Int] = []
    public var bySetPos: [Int] = []
    /// WKST, 0 = Monday (the default) … 6 = Sunday.
    public var weekStart = 0

    static let weekdays = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    /// Parses `FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=…`; `zone` reads a floating or TZID UNTIL.
    public static func parse(_ text: String, zone: ICalZone = .floating) throws(ICalRuleError) -> RecurrenceRule {
        var rule = RecurrenceRule(frequency: .daily)
        var sawFrequency = false
        for part in text.split(separator: ";", omittingEmptySubsequences: true) {
            guard let eq = part.firstIndex(of: "=") else { throw ICalRuleError("'\(part)' is not NAME=VALUE") }
            let name = part[..<eq].uppercased()
            let value = part[part.index(after: eq)...]
            func list(_ range: ClosedRange<Int>, allowNegative: Bool = true) throws(ICalRuleError) -> [Int] {
                var out: [Int] = []
                for item in value.split(separator: ",") {
                    guard let n = Int(item), n.magnitude <= UInt(range.upperBound), range.contains(Int(n.magnitude)), n != 0 || range.lowerBound == 0, allowNegative || n >= 0 else {
                        throw ICalRuleError("\(name) value '\(item)' is out of range")
                    }
                    out.append(n)
                }
                guard !out.isEmpty else { throw ICalRuleError("\(name) is empty") }
                return out
            }
            switch name {
            case "FREQ":
                let all: [String: Frequency] = ["SECONDLY": .secondly, "MINUTELY": .minutely, "HOURLY": .hourly, "DAILY": .daily,
                                                "WEEKLY": .weekly, "MONTHLY": .monthly, "YEARLY": .yearly]
                guard let f = all[value.uppercased()] else { throw ICalRuleError("FREQ '\(value)' is not a frequency") }
                rule.frequency = f
                sawFrequency = true
            case "INTERVAL":
                guard let n = Int(value), n >= 1 else {
                    guard value.allSatisfy(\.isNumber), !value.isEmpty, value.contains(where: { $0 != "0" }) else {
                        throw ICalRuleError("INTERVAL '\(ICalValue.quoted(value))' is not a positive number")
                    }
                    throw ICalRuleError("INTERVAL '\(ICalValue.quoted(value))' is out of range (at most \(ICalBudget.maximumInterval))")
                }
                guard n <= ICalBudget.maximumInterval else {
                    throw ICalRuleError("INTERVAL '\(ICalValue.quoted(value))' is out of range (at most \(ICalBudget.maximumInterval))")
                }
                rule.interval = n
            case "COUNT":
                guard let n = Int(value), n >= 1 else {
                    guard value.allSatisfy(\.isNumber), !value.isEmpty, value.contains(where: { $0 != "0" }) else {
                        throw ICalRuleError("COUNT '\(ICalValue.quoted(value))' is not a positive number")
                    }
                    throw ICalRuleError("COUNT '\(ICalValue.quoted(value))' is out of range (at most \(ICalBudget.maximumCount))")
                }
                guard n <= ICalBudget.maximumCount else {
                    throw ICalRuleError("COUNT '\(ICalValue.quoted(value))' is out of range (at most \(ICalBudget.maximumCount))")
                }
                rule.count = n
            case "UNTIL":
                if let d = ICalValue.date(value) {
                    rule.until = .date(d)
                } else if let (c, utc) = ICalValue.dateTime(value) {
                    rule.until = utc ? .utc(Instant(seconds: c.localSeconds)) : .local(c, zone)
                } else {
                    throw ICalRuleError(ICalValue.isYearOutOfRange(value) ? "UNTIL '\(ICalValue.quoted(value))' is out of range (years 1 to 9999)"
                                            : "UNTIL '\(ICalValue.quoted(value))' is not a date or date-time")
                }
            case "BYSECOND": rule.bySecond = try list(0...60, allowNegative: false)
            case "BYMINUTE": rule.byMinute = try list(0...59, allowNegative: false)
            case "BYHOUR": rule.byHour = try list(0...23, allowNegative: false)
            case "BYMONTHDAY": rule.byMonthDay = try list(1...31)
            case "BYYEARDAY": rule.byYearDay = try list(1...366)
            case "BYWEEKNO": rule.byWeekNo = try list(1...53)
            case "BYMONTH": rule.byMonth = try list(1...12, allowNegative: false)
            case "BYSETPOS": rule.bySetPos = try list(1...366)
            case "WKST":
                guard let w = weekdays.firstIndex(of: value.uppercased()) else { throw ICalRuleError("WKST '\(value)' is not a weekday") }
                rule.weekStart = w
            case "BYDAY":
                for item in value.split(separator: ",") {
                    let upper = item.uppercased()
                    guard upper.count >= 2, let w = weekdays.firstIndex(of: String(upper.suffix(2))) else {
                        throw ICalRuleError("BYDAY value '\(item)' is not a weekday")
                    }
                    let prefix = upper.dropLast(2)
                    var ordinal = 0
                    if !prefix.isEmpty {
                        guard let n = Int(prefix), n != 0, (-53...53).contains(n) else { throw ICalRuleError("BYDAY value '\(item)' has a bad ordinal") }
                        ordinal = n
                    }
                    rule.byDay.append(WeekdayNumber(weekday: w, ordinal: ordinal))
                }
            default:
                // X- names and ones this version does not know (RSCALE, SKIP) are not errors of the item.
                break
            }
        }
        guard sawFrequency else { throw ICalRuleError("no FREQ") }
        guard rule.count == nil || rule.until == nil else { throw ICalRuleError("both COUNT and UNTIL") }
        return rule
    }

    // MARK: expansion

    /// Calls `body` with each recurrence at or after `start` (in wall-clock time), in order,
    /// until `body` returns false, COUNT is reached, `isPastUntil` says UNTIL is passed, or a
    /// period starts after `limit`. With `lowerBound` (and no COUNT) whole periods before it
    /// are skipped unseen.
    /// `exists` says whether a wall-clock time exists in the zone: one in a daylight-saving gap
    /// is not an instance and is not counted (§3.3.10).
    /// Every period, day examined and candidate time is a step spent on `meter`; it throws when
    /// the meter is spent or one period would hold over `ICalBudget.candidatesPerPeriod` times.
    public func expand(start: CivilTime, lowerBound: CivilTime? = nil, limit: CivilTime, meter: inout ICalMeter,
                       isPastUntil: (CivilTime) -> Bool, exists: (CivilTime) -> Bool = { _ in true },
                       _ body: (CivilTime) -> Bool) throws(ICalRuleError) {
        var byMonthDay = self.byMonthDay, byMonth = self.byMonth, byDay = self.byDay
        // The RFC's implied parts (as dateutil and libical read them).
        if byWeekNo.isEmpty, byYearDay.isEmpty, byMonthDay.isEmpty, byDay.isEmpty {
            switch frequency {
            case .yearly:
                if byMonth.isEmpty { byMonth = [start.month] }
                byMonthDay = [start.day]
            case .monthly: byMonthDay = [start.day]
            case .weekly: byDay = [WeekdayNumber(weekday: start.weekday, ordinal: 0)]
            default: break
            }
        }
        let hours = frequency > .hourly ? (byHour.isEmpty ? [start.hour] : byHour.sorted()) : byHour.sorted()
        let minutes = frequency > .minutely ? (byMinute.isEmpty ? [start.minute] : byMinute.sorted()) : byMinute.sorted()
        // Second 60 (a leap second) names no time on Herald's clock, which has none: BYSECOND=60
        // alone matches nothing (rather than spilling into the next minute).
        let keptSeconds = bySecond.filter { $0 < 60 }.sorted()
        guard bySecond.isEmpty || !keptSeconds.isEmpty else { return }
        let seconds = frequency > .secondly ? (bySecond.isEmpty ? [start.second] : keptSeconds) : keptSeconds
        let filter = DayFilter(rule: self, byMonth: byMonth, byMonthDay: byMonthDay, byDay: byDay)

        var period = Period(rule: self, start: start)
        if count == nil, let lowerBound, lowerBound > start { period.skip(toward: lowerBound) }
        var emitted = 0
        var emptyPeriods = 0
        // Times of day each kept day gives (YEARLY to DAILY), known before any is made.
        let perDay = frequency >= .daily ? hours.count * minutes.count * seconds.count : 1
        guard perDay <= ICalBudget.candidatesPerPeriod else { throw Self.tooManyCandidates }
        while period.startsBefore(limit) {
            try meter.spend()
            var candidates: [CivilTime] = []
            for days in period.dayRanges(byMonth: byMonth) { for day in days {
                try meter.spend()
                guard filter.accepts(day, in: period) else { continue }
                let (y, m, d) = CivilCalendar.civil(fromDays: day)
                guard candidates.count + perDay <= ICalBudget.candidatesPerPeriod else { throw Self.tooManyCandidates }
                try meter.spend(perDay)
                switch frequency {
                case .yearly, .monthly, .weekly, .daily:
                    for h in hours { for mi in minutes { for s in seconds {
                        candidates.append(CivilTime(year: y, month: m, day: d, hour: h, minute: mi, second: s))
                    } } }
                case .hourly:
                    guard hours.isEmpty || hours.contains(period.hour) else { break }
                    for mi in minutes {
                        for s in seconds {
                            candidates.append(CivilTime(year: y, month: m, day: d, hour: period.hour, minute: mi, second: s))
                        }
                    }
                case .minutely:
                    guard hours.isEmpty || hours.contains(period.hour), minutes.isEmpty || minutes.contains(period.minute) else { break }
                    for s in seconds {
                        candidates.append(CivilTime(year: y, month: m, day: d, hour: period.hour, minute: period.minute, second: s))
                    }
                case .secondly:
                    guard hours.isEmpty || hours.contains(period.hour), minutes.isEmpty || minutes.contains(period.minute),
                          seconds.isEmpty || seconds.contains(period.second) else { break }
                    candidates.append(CivilTime(year: y, month: m, day: d, hour: period.hour, minute: period.minute, second: period.second))
                }
            } }
            if !bySetPos.isEmpty, !candidates.isEmpty {
                let n = candidates.count
                let picked = Set(bySetPos.compactMap { p -> Int? in
                    let i = p > 0 ? p - 1 : n + p
                    return (0..<n).contains(i) ? i : nil
                })
                candidates = picked.sorted().map { candidates[$0] }
            }
            emptyPeriods = candidates.isEmpty ? emptyPeriods + 1 : 0
            for c in candidates where c >= start && exists(c) {
                if isPastUntil(c) { return }
                guard body(c) else { return }
                emitted += 1
                if let count, emitted >= count { return }
            }
            // A rule that can never match (BYMONTHDAY=30;BYMONTH=2, BYSECOND=60) must still end.
            if emptyPeriods > ICalBudget.periodsWithoutMatch { return }
            try period.advance(dayFilter: filter, hours: hours, minutes: minutes, meter: &meter)
        }
    }

    static let tooManyCandidates = ICalRuleError("it gives over \(ICalBudget.candidatesPerPeriod) times in one period", overBudget: true)
}

public struct ICalRuleError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    /// A budget ran out (the rule itself may be fine).
    public var overBudget = false
    init(_ message: String, overBudget: Bool = false) { description = message; self.overBudget = overBudget }
}

/// Which days a rule keeps, given its period.
private struct DayFilter {
    let rule: RecurrenceRule
    let byMonth: [Int]
    let byMonthDay: [Int]
    let byDay: [RecurrenceRule.WeekdayNumber]

    init(rule: RecurrenceRule, byMonth: [Int], byMonthDay: [Int], byDay: [RecurrenceRule.WeekdayNumber]) {
        self.rule = rule; self.byMonth = byMonth; self.byMonthDay = byMonthDay; self.byDay = byDay
    }

    func accepts(_ day: Int64, in period: Period) -> Bool {
        let (y, m, d) = CivilCalendar.civil(fromDays: day)
        if !byMonth.isEmpty, !byMonth.contains(m) { return false }
        if !rule.byWeekNo.isEmpty, !acceptsWeek(day, year: y) { return false }
        if !rule.byYearDay.isEmpty {
            let yearLength = CivilCalendar.isLeapYear(y) ? 366 : 365
            let doy = Int(day - CivilCalendar.days(year: y, month: 1, day: 1)) + 1
            if !rule.byYearDay.contains(doy), !rule.byYearDay.contains(doy - yearLength - 1) { return false }
        }
        if !byMonthDay.isEmpty {
            let length = CivilCalendar.daysInMonth(year: y, month: m)
            if !byMonthDay.contains(d), !byMonthDay.contains(d - length - 1) { return false }
        }
        if !byDay.isEmpty {
            let weekday = CivilCalendar.weekday(days: day)
            // Ordinals count within the month (MONTHLY, or YEARLY with BYMONTH) or the year.
            let month = (CivilCalendar.days(year: y, month: m, day: 1),
                         CivilCalendar.days(year: y, month: m, day: CivilCalendar.daysInMonth(year: y, month: m)))
            let ordinalScope: (first: Int64, last: Int64)?
            switch rule.frequency {
            case .monthly: ordinalScope = month
            case .yearly where rule.byWeekNo.isEmpty:
                ordinalScope = rule.byMonth.isEmpty
                    ? (CivilCalendar.days(year: y, month: 1, day: 1), CivilCalendar.days(year: y, month: 12, day: 31)) : month
            default: ordinalScope = nil
            }
            let matches = byDay.contains { wd in
                guard wd.weekday == weekday else { return false }
                guard wd.ordinal != 0, let scope = ordinalScope else { return true }
                if wd.ordinal > 0 { return (day - scope.first) / 7 + 1 == Int64(wd.ordinal) }
                return (scope.last - day) / 7 + 1 == Int64(-wd.ordinal)
            }
            if !matches { return false }
        }
        return true
    }

    /// BYWEEKNO: weeks start on WKST; week 1 is the first with at least four days in the year.
    func acceptsWeek(_ day: Int64, year: Int) -> Bool {
        func weekOneStart(_ y: Int) -> Int64 {
            let jan1 = CivilCalendar.days(year: y, month: 1, day: 1)
            let offset = Int64((CivilCalendar.weekday(days: jan1) - rule.weekStart + 7) % 7)
            let weekStart = jan1 - offset
            return offset >= 4 ? weekStart + 7 : weekStart  // fewer than four days in the year: week 0
        }
        var weekYear = year
        if day >= weekOneStart(year + 1) { weekYear = year + 1 } else if day < weekOneStart(year) { weekYear = year - 1 }
        let start = weekOneStart(weekYear)
        let week = Int((day - start) / 7) + 1
        let weeksInYear = Int((weekOneStart(weekYear + 1) - start) / 7)
        return rule.byWeekNo.contains(week) || rule.byWeekNo.contains(week - weeksInYear - 1)
    }
}

/// One FREQ period, stepped INTERVAL at a time.
private struct Period {
    let rule: RecurrenceRule
    /// YEARLY: the year; MONTHLY: months since year 0; WEEKLY: the week's first day; DAILY: the
    /// day; HOURLY/MINUTELY/SECONDLY: hours/minutes/seconds since the epoch in wall time.
    var index: Int64

    init(rule: RecurrenceRule, start: CivilTime) {
        self.rule = rule
        index = Period.index(of: start, rule: rule)
    }

    static func index(of c: CivilTime, rule: RecurrenceRule) -> Int64 {
        switch rule.frequency {
        case .yearly: return Int64(c.year)
        case .monthly: return Int64(c.year) * 12 + Int64(c.month - 1)
        case .weekly:
            let day = CivilCalendar.days(year: c.year, month: c.month, day: c.day)
            return day - Int64((CivilCalendar.weekday(days: day) - rule.weekStart + 7) % 7)
        case .daily: return CivilCalendar.days(year: c.year, month: c.month, day: c.day)
        case .hourly: return c.localSeconds.floorDiv(3600)
        case .minutely: return c.localSeconds.floorDiv(60)
        case .secondly: return c.localSeconds
        }
    }

    var step: Int64 { rule.frequency == .weekly ? 7 * Int64(rule.interval) : Int64(rule.interval) }

    /// Jumps whole intervals ahead, staying at or before the period holding `target`.
    mutating func skip(toward target: CivilTime) {
        let goal = Period.index(of: target, rule: rule)
        guard goal > index + step else { return }
        index += (goal - index) / step * step - step
    }

    var hour: Int { Int(secondsOfDay / 3600) }
    var minute: Int { Int(secondsOfDay % 3600 / 60) }
    var second: Int { Int(secondsOfDay % 60) }
    private var secondsOfDay: Int64 {
        switch rule.frequency {
        case .hourly: return (index * 3600).floorMod(86_400)
        case .minutely: return (index * 60).floorMod(86_400)
        case .secondly: return index.floorMod(86_400)
        default: return 0
        }
    }

    /// The days to examine: those of the months a YEARLY rule keeps (31 a year, not 366), else
    /// the period's.
    func dayRanges(byMonth: [Int]) -> [ClosedRange<Int64>] {
        guard rule.frequency == .yearly, !byMonth.isEmpty else { return [days()] }
        let y = Int(index)
        return Set(byMonth).sorted().map { m in
            CivilCalendar.days(year: y, month: m, day: 1)...CivilCalendar.days(year: y, month: m, day: CivilCalendar.daysInMonth(year: y, month: m))
        }
    }

    /// The days the period spans.
    func days() -> ClosedRange<Int64> {
        switch rule.frequency {
        case .yearly: return CivilCalendar.days(year: Int(index), month: 1, day: 1)...CivilCalendar.days(year: Int(index), month: 12, day: 31)
        case .monthly:
            let y = Int(index.floorDiv(12)), m = Int(index.floorMod(12)) + 1
            return CivilCalendar.days(year: y, month: m, day: 1)...CivilCalendar.days(year: y, month: m, day: CivilCalendar.daysInMonth(year: y, month: m))
        case .weekly: return index...(index + 6)
        case .daily: return index...index
        case .hourly: return (index * 3600).floorDiv(86_400)...(index * 3600).floorDiv(86_400)
        case .minutely: return (index * 60).floorDiv(86_400)...(index * 60).floorDiv(86_400)
        case .secondly: return index.floorDiv(86_400)...index.floorDiv(86_400)
        }
    }

    func startsBefore(_ limit: CivilTime) -> Bool {
        let first = days().lowerBound
        let limitDay = CivilCalendar.days(year: limit.year, month: limit.month, day: limit.day)
        guard first <= limitDay else { return false }
        guard first == limitDay, rule.frequency < .daily else { return first < 3_000_000 }  // year ~10,000
        return (hour, minute, second) <= (limit.hour, limit.minute, limit.second)
    }

    /// The next period; sub-daily periods skip days, hours and minutes the rule never keeps
    /// (so FREQ=SECONDLY;BYHOUR=9 does not walk every second of the other 23 hours).
    mutating func advance(dayFilter: DayFilter, hours: [Int], minutes: [Int], meter: inout ICalMeter) throws(ICalRuleError) {
        index += step
        guard rule.frequency < .daily else { return }
        let perDay: Int64 = rule.frequency == .hourly ? 24 : rule.frequency == .minutely ? 1440 : 86_400
        for _ in 0..<ICalBudget.skipsPerAdvance {
            let unit: Int64
            if !dayFilter.accepts(days().lowerBound, in: self) { unit = perDay }
            else if rule.frequency < .hourly, !hours.isEmpty, !hours.contains(hour) { unit = perDay / 24 }
            else if rule.frequency < .minutely, !minutes.isEmpty, !minutes.contains(minute) { unit = 60 }
            else { return }
            // Jump to the first period of the next day, hour or minute, keeping the INTERVAL phase.
            let next = (index.floorDiv(unit) + 1) * unit
            index += (next - index + step - 1) / step * step
            try meter.spend()
        }
    }
}
