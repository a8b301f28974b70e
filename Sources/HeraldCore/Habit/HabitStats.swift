/// Totals and streaks of a habit, from the days it was done and the days it is scheduled.
///
/// A streak counts consecutive *scheduled* days that were done: a weekday habit keeps its
/// streak over the weekend, a day done off-schedule neither breaks nor extends it, and
/// today, while not yet done, does not break it either.
public struct HabitStats: Sendable, Equatable {
    public var total: Int
    public var currentStreak: Int
    public var bestStreak: Int
    public var doneToday: Bool

    public init(total: Int, currentStreak: Int, bestStreak: Int, doneToday: Bool) {
        self.total = total; self.currentStreak = currentStreak; self.bestStreak = bestStreak; self.doneToday = doneToday
    }

    /// - Parameters:
    ///   - done: the days done.
    ///   - today: the current local day.
    ///   - isScheduled: whether the habit has a reminder on a day.
    public static func compute(done: Set<LocalDate>, today: LocalDate, isScheduled: (LocalDate) -> Bool) -> HabitStats {
        let past = done.filter { $0 <= today }
        guard let first = past.min() else {
            return HabitStats(total: 0, currentStreak: 0, bestStreak: 0, doneToday: false)
        }
        var best = 0
        var run = 0
        var day = first
        while day <= today {
            if past.contains(day) {
                if isScheduled(day) { run += 1; best = max(best, run) }
            } else if isScheduled(day) && day != today {
                run = 0
            }
            day = day.adding(days: 1)
        }
        return HabitStats(total: past.count, currentStreak: run, bestStreak: best, doneToday: past.contains(today))
    }

    /// Totals and streaks of the habit with this schedule: a day counts as scheduled when the
    /// calendar has a reminder that day (every day for a habit without a calendar).
    public static func compute(_ schedule: JobSchedule, done: Set<LocalDate>, today: LocalDate) -> HabitStats {
        compute(done: done, today: today) { schedule.elapses(on: $0) }
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
}

extension CalendarEvent {
    /// Whether the event elapses at least once during `day` in `zone`.
    public func elapses(on day: LocalDate, in zone: TimeZoneRules) -> Bool {
        let start = day.start(in: zone)
        guard let next = next(after: start - Span(microseconds: 1), in: zone) else { return false }
        return next < day.adding(days: 1).start(in: zone)
    }
}
