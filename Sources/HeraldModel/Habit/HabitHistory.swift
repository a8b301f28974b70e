
/// What a habit asks for: how often (a frequency, or each day its calendar reminds), a
/// measurable target, and where weeks start.
public struct HabitRules: Sendable {
    public var frequency: HabitFrequency?
    public var target: HabitTarget?
    /// 0 = Monday ... 6 = Sunday.
    public var weekStart: Int
    /// The calendar days of a habit without a frequency; nil: every day.
    public var schedule: JobSchedule?

    public init(frequency: HabitFrequency? = nil, target: HabitTarget? = nil, weekStart: Int = 0, schedule: JobSchedule? = nil) {
        self.frequency = frequency; self.target = target; self.weekStart = weekStart; self.schedule = schedule
    }

    public init(_ job: Job, schedule: JobSchedule?, weekStart: Int) {
        self.init(frequency: job.times, target: job.target, weekStart: weekStart, schedule: schedule)
    }

    /// Loop's frequency fraction: numerator over a window of days.
    var fraction: (numerator: Int, denominator: Int) { (frequency ?? .daily).loopFraction }

    /// The days of the period (a day, a rolling window, a week or a month) that holds `day`.
    public func period(containing day: LocalDate) -> ClosedRange<LocalDate> {
        switch (frequency ?? .daily).period {
        case .days(let n): return day.adding(days: -(n - 1))...day
        case .week:
            let start = day.adding(days: -((day.weekday - weekStart + 7) % 7))
            return start...start.adding(days: 6)
        case .month:
            let c = day.components
            let first = LocalDate(year: c.year, month: c.month, day: 1)
            return first...first.adding(days: CivilCalendar.daysInMonth(year: c.year, month: c.month) - 1)
        }
    }

    /// "this week", "this month", "in 3 days", "today".
    public var periodPhrase: String {
        switch (frequency ?? .daily).period {
        case .days(1): return "today"
        case .days(let n): return "in \(n) days"
        case .week: return "this week"
        case .month: return "this month"
        }
    }
}

/// A day as Loop Habit Tracker records it.
public enum HabitMark: Int, Sendable {
    case unknown = -1, no = 0, yesAuto = 1, yesManual = 2, skip = 3
}

/// A habit's days, streaks and score, from its log and its rules.
///
/// Scores are Loop's habit strength: each day the score moves towards that day's share of the
/// target by a factor `1 - 0.5^(sqrt(f)/13)` (f = times per day), so that a daily habit done
/// every day from nothing reaches half strength after 13 days. Skipped, paused and (for a habit
/// without a frequency) unscheduled days leave the score as it was and neither break nor
/// extend a streak.
public struct HabitHistory: Sendable {
    public let rules: HabitRules
    public let contents: HabitLog.Contents
    public let today: LocalDate
    /// Whether the habit reminds on a day, for days outside `scheduledDays`.
    private let scheduledOn: @Sendable (LocalDate) -> Bool
    /// `scheduledOn` for each day from `first` to today, asked once: the calendar is the costly part.
    private let scheduledDays: [Bool]
    /// The first day counted (nil: nothing recorded yet).
    public let first: LocalDate?
    /// Loop's computed marks from `first` on (boolean habits; YES_AUTO filled in for frequencies).
    private let marks: [HabitMark]

    public init(rules: HabitRules, contents: HabitLog.Contents, today: LocalDate,
                isScheduled: (@Sendable (LocalDate) -> Bool)? = nil) {
        self.rules = rules
        self.contents = contents
        self.today = today
        let schedule = rules.frequency == nil ? rules.schedule : nil
        let scheduledOn = isScheduled ?? { day in schedule?.elapses(on: day) ?? true }
        self.scheduledOn = scheduledOn
        var first = [contents.days.min(), contents.skipped.min(), contents.amounts.keys.min()].compactMap { $0 }.min()
        var intervals: [Interval] = []
        if rules.target == nil, let start = first {
            let found = Self.intervals(done: contents.days.filter { $0 <= today }, rules: rules)
            intervals = found.0
            first = min(start, found.1 ?? start)
        }
        self.first = first
        var scheduledDays: [Bool] = []
        var day = first ?? today.adding(days: 1)
        while day <= today { scheduledDays.append(scheduledOn(day)); day = day.adding(days: 1) }
        self.scheduledDays = scheduledDays
        var marks: [HabitMark] = []
        if rules.target == nil, let begin = first {
            marks.reserveCapacity(scheduledDays.count)
            for (k, scheduled) in scheduledDays.enumerated() {
                marks.append(Self.originalMark(begin.adding(days: k), contents: contents, scheduled: scheduled))
            }
            for iv in intervals {
                var d = max(iv.begin, begin)
                while d <= min(iv.end, today) {
                    let k = Int(d.dayNumber - begin.dayNumber)
                    if marks[k] != .yesManual && marks[k] != .skip { marks[k] = .yesAuto }
                    d = d.adding(days: 1)
                }
            }
        }
        self.marks = marks
    }

    /// Whether the habit reminds on a day (calendar habits; always true with a frequency).
    func isScheduled(_ day: LocalDate) -> Bool {
        if let first, day >= first, day <= today { return scheduledDays[Int(day.dayNumber - first.dayNumber)] }
        return scheduledOn(day)
    }

    // MARK: Days

    /// Skipped on purpose, paused, or (calendar habits) not a day it reminds.
    public func isNeutral(_ day: LocalDate) -> Bool {
        contents.skipped.contains(day) || contents.isPaused(on: day) || !isScheduled(day)
    }

    /// A day done off a calendar habit's schedule counts in its total, not in its streak or score.
    static func originalMark(_ day: LocalDate, contents: HabitLog.Contents, scheduled: Bool) -> HabitMark {
        if !scheduled { return .skip }
        if contents.days.contains(day) { return .yesManual }
        if contents.skipped.contains(day) || contents.isPaused(on: day) { return .skip }
        return .unknown
    }

    /// The computed mark of a day (boolean habits).
    public func mark(on day: LocalDate) -> HabitMark {
        guard let first, day >= first, day <= today else { return .unknown }
        if rules.target != nil {
            return isNeutral(day) ? .skip : (isMet(day) ? .yesManual : .unknown)
        }
        return marks[Int(day.dayNumber - first.dayNumber)]
    }

    /// A measurable habit's amount on a day; Done on an at-least habit counts as its target.
    public func amount(on day: LocalDate) -> Double {
        let a = contents.amounts[day] ?? 0
        if let t = rules.target, t.kind == .atLeast, contents.days.contains(day) { return max(a, t.amount) }
        return a
    }

    /// Whether anything was recorded on a measurable habit's day.
    func hasRecord(_ day: LocalDate) -> Bool { contents.amounts[day] != nil || contents.days.contains(day) }

    /// Done that day by hand: marked done, or a measurable target met.
    public func isMet(_ day: LocalDate) -> Bool {
        guard let t = rules.target else { return contents.days.contains(day) }
        switch t.kind {
        case .atLeast: return amount(on: day) >= t.amount
        case .atMost: return hasRecord(day) && amount(on: day) <= t.amount
        }
    }

    /// Counts towards a streak: done by hand, or (frequencies) filled in by Loop's rule.
    func counts(_ day: LocalDate) -> Bool {
        if rules.target != nil { return isMet(day) }
        let m = mark(on: day)
        return m == .yesManual || m == .yesAuto
    }

    // MARK: Periods

    /// Days done in the period holding `day` (up to today).
    public func doneCount(inPeriodOf day: LocalDate) -> Int {
        let p = rules.period(containing: day)
        var n = 0
        var d = p.lowerBound
        while d <= min(p.upperBound, today) { if isMet(d) { n += 1 }; d = d.adding(days: 1) }
        return n
    }

    /// A measurable habit's amount over the period holding `day`.
    public func periodAmount(of day: LocalDate) -> Double {
        let p = rules.period(containing: day)
        var sum = 0.0
        var d = p.lowerBound
        while d <= min(p.upperBound, today) { sum += amount(on: d); d = d.adding(days: 1) }
        return sum
    }

    /// Progress towards the current period's target: "5 of 8 glasses", "2 of 3 this week";
    /// nil for a habit done on each day it reminds.
    public var periodProgress: String? {
        if let t = rules.target {
            let suffix = rules.frequency.map { $0.period == .days(1) ? "" : " " + rules.periodPhrase } ?? ""
            return t.progress(periodAmount(of: today)) + suffix
        }
        if let f = rules.frequency, f != .daily { return "\(doneCount(inPeriodOf: today)) of \(f.count) \(rules.periodPhrase)" }
        return nil
    }

    /// Why no reminder is wanted on `day`, or nil when one is, with the last day that stays
    /// quiet. A pause has none: each reminder asks again, so a resume counts at once.
    public func quietReason(on day: LocalDate) -> (note: String, until: LocalDate?)? {
        if contents.isPaused(on: day) { return ("paused", nil) }
        if contents.skipped.contains(day) { return ("skipped for the day", day) }
        // A target met for the whole period first: it keeps reminders away for longer.
        let period = rules.period(containing: day)
        let periodEnd = rules.frequency.map { if case .days = $0.period { return day } else { return period.upperBound } } ?? day
        if let t = rules.target {
            let sum = periodAmount(of: day)
            if t.kind == .atLeast, sum >= t.amount { return ("target reached: \(t.progress(sum))", periodEnd) }
        } else if let f = rules.frequency, f != .daily {
            let n = doneCount(inPeriodOf: day)
            if n >= f.count { return ("\(n) of \(f.count) \(rules.periodPhrase)", periodEnd) }
        }
        if contents.days.contains(day) { return ("done for the day", day) }
        return nil
    }

    // MARK: Score

    /// Loop's score multiplier for a frequency of `f` times a day.
    public static func multiplier(frequency f: Double) -> Double { power(0.5, f.squareRoot() / 13.0) }

    /// The score (0...1) at the end of `day`.
    public func score(on day: LocalDate) -> Double {
        scores(through: day).last ?? 0
    }

    /// The score at the end of each day from `first` through `day` (one pass: an export asks for
    /// every day's).
    public func scores(through day: LocalDate) -> [Double] {
        guard let first, day >= first else { return [] }
        var series: [Double] = []
        let end = min(day, today)
        var (num, den) = rules.fraction
        let freq = Double(num) / Double(den)
        let m = Self.multiplier(frequency: freq)
        if let t = rules.target {
            var values: [Double?] = []  // nil: neutral
            var score = t.kind == .atMost ? 1.0 : 0.0
            var rolling = 0.0
            var d = first
            while d <= end {
                let v = isNeutral(d) ? nil : amount(on: d)
                values.append(v)
                rolling += v ?? 0
                if values.count > den { rolling -= values[values.count - 1 - den] ?? 0 }
                if v != nil {
                    let pct: Double
                    switch t.kind {
                    case .atLeast: pct = min(1, rolling / t.amount)
                    case .atMost: pct = max(0, min(1, 1 - (rolling - t.amount) / t.amount))
                    }
                    score = score * m + pct * (1 - m)
                }
                series.append(score)
                d = d.adding(days: 1)
            }
            return series
        }
        // Loop doubles the window of habits done less than daily (2 in 14 days for weekly).
        if freq < 1 { num *= 2; den *= 2 }
        var score = 0.0
        var rolling = 0
        var k = 0
        var d = first
        while d <= end {
            if marks[k] == .yesManual { rolling += 1 }
            if k >= den, marks[k - den] == .yesManual { rolling -= 1 }
            if marks[k] != .skip {
                score = score * m + min(1, Double(rolling) / Double(num)) * (1 - m)
            }
            series.append(score)
            k += 1
            d = d.adding(days: 1)
        }
        return series
    }

    // MARK: Streaks

    public var stats: HabitStats {
        guard let first else {
            return HabitStats(total: 0, currentStreak: 0, bestStreak: 0, doneToday: false)
        }
        var best = 0, run = 0, total = 0
        var day = first
        while day <= today {
            if isMet(day) { total += 1 }
            if counts(day) {
                run += 1
                best = max(best, run)
            } else if !isNeutral(day) && day != today {
                run = 0
            }
            day = day.adding(days: 1)
        }
        return HabitStats(total: total, currentStreak: run, bestStreak: best, doneToday: isMet(today),
                          score: score(on: today))
    }

    // MARK: Loop's intervals

    struct Interval: Equatable { var begin: LocalDate; var center: LocalDate; var end: LocalDate }

    /// Loop's YES_AUTO rule for `num` times in `den` days: each run of `num` completions that
    /// fits in `den` days covers `den` days from its oldest, and the windows are then slid
    /// back so they do not overlap where they can. Returns the windows and the earliest day
    /// they reach.
    static func intervals(done: Set<LocalDate>, rules: HabitRules) -> ([Interval], LocalDate?) {
        let (num, den) = rules.fraction
        guard num != den, num >= 1, !done.isEmpty else { return ([], nil) }
        let f = done.sorted(by: >)  // newest first
        guard f.count >= num else { return ([], nil) }
        var list: [Interval] = []
        for i in (num - 1)..<f.count {
            let begin = f[i], center = f[i - num + 1]
            var size = den
            if den == 30 || den == 31 {
                let c = begin.components
                let length = CivilCalendar.daysInMonth(year: c.year, month: c.month)
                if c.day == length {
                    let next = begin.adding(days: 1).components
                    size = CivilCalendar.daysInMonth(year: next.year, month: next.month)
                } else {
                    size = length
                }
            }
            if center.dayNumber - begin.dayNumber < Int64(size) {
                list.append(Interval(begin: begin, center: center, end: begin.adding(days: size - 1)))
            }
        }
        if list.count > 1 {
            for i in 1..<list.count {
                let next = list[i - 1]
                var curr = list[i]
                let gap = Int(curr.end.dayNumber - next.begin.dayNumber)
                if gap >= 0 {
                    let shift = min(Int(curr.end.dayNumber - curr.center.dayNumber), gap + 1)
                    curr.begin = curr.begin.adding(days: -shift)
                    curr.end = curr.end.adding(days: -shift)
                    list[i] = curr
                }
            }
        }
        return (list, list.map(\.begin).min())
    }
}

/// Totals, streaks and strength of a habit.
///
/// A streak counts consecutive days done (for a frequency such as 3/week, the days Loop fills
/// in between completions count too). Skipped, paused and unscheduled days neither break nor
/// extend it; today, while not yet done, does not break it either.
public struct HabitStats: Sendable, Equatable {
    public var total: Int
    public var currentStreak: Int
    public var bestStreak: Int
    public var doneToday: Bool
    /// Loop's habit strength, 0...1.
    public var score: Double

    public init(total: Int, currentStreak: Int, bestStreak: Int, doneToday: Bool, score: Double = 0) {
        self.total = total; self.currentStreak = currentStreak; self.bestStreak = bestStreak; self.doneToday = doneToday
        self.score = score
    }

    /// A daily habit's stats from the days done and the days it is scheduled.
    public static func compute(done: Set<LocalDate>, today: LocalDate, isScheduled: @escaping @Sendable (LocalDate) -> Bool) -> HabitStats {
        HabitHistory(rules: HabitRules(), contents: HabitLog.Contents(days: done), today: today, isScheduled: isScheduled).stats
    }

    /// "Day 5 in a row" when doing it today continues a streak; otherwise an invitation.
    public var progressPhrase: String {
        if doneToday { return "Done today · \(currentStreak) in a row" }
        return currentStreak > 0 ? "Day \(currentStreak + 1) in a row" : "Start a streak today"
    }

    /// "12 times", "once", "not yet".
    public var totalPhrase: String {
        switch total {
        case 0: return "not yet"
        case 1: return "once"
        default: return "\(total) times"
        }
    }

    /// "63%".
    public var scorePhrase: String { "\(Int((score * 100).rounded()))%" }
}

extension CalendarEvent {
    /// Whether the event elapses at least once during `day` in `zone`.
    public func elapses(on day: LocalDate, in zone: TimeZoneRules) -> Bool {
        let start = day.start(in: zone)
        guard let next = next(after: start - Span(microseconds: 1), in: zone) else { return false }
        return next < day.adding(days: 1).start(in: zone)
    }
}
