import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import HeraldCore
@testable import HeraldModel

/// Loop Habit Tracker's habit strength, checked against values worked out by hand.
///
/// With m = 0.5^(√f / 13) for a habit done f times a day, each day moves the score s to
/// s·m + p·(1 − m), p being that day's share of the target (for f < 1 over a window twice the
/// period, as Loop counts). Skipped days leave s alone. For a daily habit m = 0.5^(1/13) =
/// 0.948 0775…, so 13 days done in a row from nothing give 1 − m¹³ = 1/2 exactly.
struct HabitScoreTests {
    let today = LocalDate(parsing: "2026-11-23")!  // a Monday
    func day(_ offset: Int) -> LocalDate { today.adding(days: offset) }

    func history(done: [Int] = [], skipped: [Int] = [], amounts: [Int: Double] = [:], pausedFrom: Int? = nil, resumed: Int? = nil,
                 frequency: HabitFrequency? = nil, target: HabitTarget? = nil) -> HabitHistory {
        var contents = HabitLog.Contents(days: Set(done.map(day)), skipped: Set(skipped.map(day)))
        for (k, v) in amounts { contents.amounts[day(k)] = v }
        if let pausedFrom { contents.pauses[day(pausedFrom)] = true }
        if let resumed { contents.pauses[day(resumed)] = false }
        return HabitHistory(rules: HabitRules(frequency: frequency, target: target), contents: contents, today: today)
    }

    static let m = 0.948_077_514_339_171_4  // 0.5^(1/13)

    @Test(arguments: [
        // (what, history, hand-worked score)
        ("done today only: 1 − m", 1),
        ("13 days in a row: 1 − m¹³ = 1/2", 2),
        ("26 days in a row: 1 − m²⁶ = 3/4", 3),
        ("13 done, then 13 not: ½·m¹³ = 1/4", 4),
        ("done, 2 skipped, done: 1 − m² (skips leave it)", 5),
        ("done, not, done, not: ((1−m)m² + (1−m))m", 6),
        ("once a week, done today: ½(1 − 0.5^(√(1/7)/13))", 7),
        ("3 a week, Mon Wed Fri: window 6 in 14 days", 8),
        ("8 glasses: 4 then 8: ½(1−m)m + (1−m)", 9),
        ("at most 2 cups, 3 today: from 1: m + ½(1−m)", 10),
        ("every 2 days, done days 0 and 2: window 2 in 4", 11),
        ("paused for 5 days between two done days: 1 − m²", 12),
    ])
    func scoresEqualTheHandWorkedTable(what: String, row: Int) {
        let m = Self.m
        let cases: [Int: (HabitHistory, Double)] = [
            1: (history(done: [0]), 1 - m),
            2: (history(done: Array(-12...0)), 0.5),
            3: (history(done: Array(-25...0)), 0.75),
            4: (history(done: Array(-25...(-13))), 0.25),
            5: (history(done: [-3, 0], skipped: [-2, -1]), 0.101_149_0),
            6: (history(done: [-3, -1]), 0.093_473_9),
            7: (history(done: [0], frequency: HabitFrequency(count: 1, period: .week)), 0.009_975_5),
            8: (history(done: [-4, -2, 0], frequency: HabitFrequency(count: 3, period: .week)), 0.048_978_3),
            9: (history(amounts: [-1: 4, 0: 8], target: HabitTarget(amount: 8, unit: "glasses")), 0.076_535_8),
            10: (history(amounts: [0: 3], target: HabitTarget(amount: 2, unit: "cups", kind: .atMost)), 0.974_038_8),
            11: (history(done: [-2, 0], frequency: HabitFrequency(count: 1, period: .days(2))), 0.071_972_5),
            12: (history(done: [-6, 0], pausedFrom: -5, resumed: 0), 0.101_149_0),
        ]
        let (h, expected) = cases[row]!
        #expect(abs(h.score(on: today) - expected) < 5e-7, "\(what): \(h.score(on: today)) ≠ \(expected)")
        #expect(abs(h.stats.score - expected) < 5e-7)
    }

    @Test func theMultiplierIsLoops() {
        #expect(abs(HabitHistory.multiplier(frequency: 1) - Self.m) < 1e-7)
        #expect(abs(pow(HabitHistory.multiplier(frequency: 1), 13) - 0.5) < 1e-12)
    }

    @Test func aSkippedDayNeitherBreaksNorExtendsAStreak() {
        let h = history(done: [-3, -2, 0], skipped: [-1])
        #expect(h.stats.currentStreak == 3)
        let missed = history(done: [-3, -2, 0])
        #expect(missed.stats.currentStreak == 1)
        #expect(missed.stats.bestStreak == 2)
    }

    @Test func pausedDaysKeepTheStreak() {
        let h = history(done: [-10, -9], pausedFrom: -8)
        #expect(h.stats.currentStreak == 2)
        #expect(h.contents.isPaused(on: today))
        #expect(h.quietReason(on: today)?.note == "paused")
    }

    /// Loop fills in the days a target such as 3/week covers: Mon, Wed, Fri done make a
    /// seven-day streak from Monday, the days between counting too.
    @Test func aFrequencyHabitsStreakCountsTheDaysItsTargetCovers() {
        let h = history(done: [-6, -4, -2], frequency: HabitFrequency(count: 3, period: .week))
        #expect(h.mark(on: day(-5)) == .yesAuto)
        #expect(h.mark(on: day(-3)) == .yesAuto)
        #expect(h.stats.currentStreak == 7)  // -6 ... 0
        #expect(h.stats.total == 3)
    }

    @Test func aWeeksTargetQuietsRemindersUntilTheWeekEnds() {
        let rules = HabitRules(frequency: HabitFrequency(count: 3, period: .week), weekStart: 0)
        let wednesday = today.adding(days: 2)
        let contents = HabitLog.Contents(days: [today, today.adding(days: 1), wednesday])
        let h = HabitHistory(rules: rules, contents: contents, today: today.adding(days: 3))
        let quiet = h.quietReason(on: today.adding(days: 3))
        #expect(quiet?.note == "3 of 3 this week")
        #expect(quiet?.until == .some(today.adding(days: 6)))  // Sunday
        let nextWeek = HabitHistory(rules: rules, contents: contents, today: today.adding(days: 7))
        #expect(nextWeek.quietReason(on: today.adding(days: 7)) == nil)
        // A week starting on Sunday puts the boundary a day earlier.
        let sundayWeeks = HabitRules(frequency: HabitFrequency(count: 3, period: .week), weekStart: 6)
        #expect(sundayWeeks.period(containing: today) == today.adding(days: -1)...today.adding(days: 5))
    }

    @Test func aMeasurableTargetQuietsTheDayOnceReached() {
        let target = HabitTarget(amount: 8, unit: "glasses")
        #expect(history(amounts: [0: 5], target: target).quietReason(on: today) == nil)
        #expect(history(amounts: [0: 8], target: target).quietReason(on: today)?.note == "target reached: 8 of 8 glasses")
        #expect(target.progress(5) == "5 of 8 glasses")
        #expect(HabitTarget(amount: 2, unit: "cups", kind: .atMost).progress(1.5) == "1.5 of at most 2 cups")
    }

    @Test(arguments: [
        ("3/week", "3/week"), ("10/month", "10/month"), ("1/3days", "1/3days"), ("1/3 days", "1/3days"), ("2/5d", "2/5days"),
        ("daily", "1/day"), ("weekly", "1/week"), ("1/day", "1/day"),
    ])
    func frequenciesRead(text: String, normal: String) throws {
        #expect(try HabitFrequency.parse(text).description == normal)
    }

    @Test(arguments: [
        ("8/week", "'8/week': 8 times do not fit in 7 days (one completion a day)"),
        ("3/fortnight", "'3/fortnight' is not a frequency: write N/week, N/month or N/Mdays, such as 3/week, 10/month or 1/2days"),
        ("0/week", "'0/week' is not a frequency: write N/week, N/month or N/Mdays, such as 3/week, 10/month or 1/2days"),
        ("1/2weeks", "'1/2weeks' is not a frequency: write N/week, N/month or N/Mdays, such as 3/week, 10/month or 1/2days"),
    ])
    func badFrequenciesSayWhy(text: String, message: String) {
        #expect(throws: HabitFrequency.ParseError.self) { try HabitFrequency.parse(text) }
        do { _ = try HabitFrequency.parse(text) } catch { #expect(error.description == message) }
    }

    @Test func loopFractionsMapBothWays() {
        #expect(HabitFrequency(loopNumerator: 3, denominator: 7) == HabitFrequency(count: 3, period: .week))
        #expect(HabitFrequency(loopNumerator: 1, denominator: 7) == HabitFrequency(count: 1, period: .days(7)))
        #expect(HabitFrequency(loopNumerator: 10, denominator: 30) == HabitFrequency(count: 10, period: .month))
        #expect(HabitFrequency(count: 2, period: .days(3)).loopFraction == (2, 3))
    }
}

struct HabitViewTests {
    let today = LocalDate(parsing: "2026-11-23")!

    func sample() -> HabitHistory {
        var contents = HabitLog.Contents(days: [today.adding(days: -7), today.adding(days: -6), today.adding(days: -1)],
                                         skipped: [today.adding(days: -2)])
        contents.days.insert(today)
        return HabitHistory(rules: HabitRules(), contents: contents, today: today)
    }

    @Test func theHeatMapWithoutColourUsesCharacters() {
        let text = HabitView(history: sample(), colored: false).heatMap(weeks: 2)
        // Two weeks: last week (Mon 16 ... Sun 22) and this week (Mon 23).
        #expect(text == """
               Nov
            Mo # #
            Tu #
            We .
            Th .
            Fr .
            Sa -
            Su #
            """)
        #expect(!text.contains("\u{1B}"))
    }

    @Test func theHeatMapInColourPaintsSquares() {
        let text = HabitView(history: sample(), colored: true).heatMap(weeks: 2)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[1] == "Mo \u{1B}[38;5;34m■\u{1B}[0m \u{1B}[38;5;34m■\u{1B}[0m")
        #expect(lines[3] == "We \u{1B}[38;5;239m■\u{1B}[0m")
        #expect(lines[6] == "Sa \u{1B}[38;5;67m■\u{1B}[0m")
        #expect(!text.contains("#"))
    }

    @Test func theMonthViewMarksEachDay() {
        let plain = HabitView(history: sample(), colored: false).month(containing: today)
        let lines = plain.split(separator: "\n").map(String.init)
        #expect(lines[0] == "       November 2026")
        #expect(lines[1] == " Mo  Tu  We  Th  Fr  Sa  Su")
        #expect(lines[2] == "                         1")
        #expect(lines[4] == " 9  10  11  12  13  14  15")
        #expect(lines[5] == "16# 17# 18. 19. 20. 21- 22#")
        #expect(lines[6] == "23# 24  25  26  27  28  29")
        let coloured = HabitView(history: sample(), colored: true).month(containing: today)
        #expect(coloured.contains("\u{1B}[38;5;34m23\u{1B}[0m\u{1B}[38;5;34m#\u{1B}[0m"))
    }
}

struct LoopFormatTests {
    let today = LocalDate(parsing: "2026-11-23")!

    @Test func csvExportReadsBackToTheSameHistory() throws {
        var water = Job(kind: .habit, every: "*-*-* 09..17:00", title: "Drink, \"water\"")
        water.target = HabitTarget(amount: 8, unit: "glasses")
        var gym = Job(kind: .habit, every: "*-*-* 18:00", title: "Gym")
        gym.times = HabitFrequency(count: 3, period: .week)
        let waterLog = HabitLog.Contents(amounts: [today: 5, today.adding(days: -1): 8.5], skipped: [today.adding(days: -3)])
        let gymLog = HabitLog.Contents(days: [today, today.adding(days: -2), today.adding(days: -4)], skipped: [today.adding(days: -1)])
        let habits = [(water, waterLog), (gym, gymLog)].enumerated().map { k, pair -> (habit: LoopHabit, history: HabitHistory) in
            let h = HabitHistory(rules: HabitRules(pair.0, schedule: nil, weekStart: 0), contents: pair.1, today: today)
            return (LoopHabit(job: pair.0, contents: pair.1, history: h, position: k), h)
        }
        let files = LoopCSV.export(habits)
        #expect(files.map(\.path) == ["Habits.csv", "001 Drink water/Checkmarks.csv", "001 Drink water/Scores.csv",
                                      "002 Gym/Checkmarks.csv", "002 Gym/Scores.csv", "Scores.csv", "Checkmarks.csv"])
        let byPath = Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.text) })
        #expect(byPath["Habits.csv"] == LoopCSV.habitsHeader + "\n"
                + "001,\"Drink, \"\"water\"\"\",NUMERICAL,,,1,1,#00897B,glasses,AT_LEAST,8.0,false\n"
                + "002,Gym,YES_NO,,,3,7,#00897B,,,,false\n")
        #expect(byPath["002 Gym/Checkmarks.csv"]!.hasPrefix("Date,Value,Notes\n2026-11-23,YES_MANUAL,\n2026-11-22,SKIP,\n2026-11-21,YES_MANUAL,\n2026-11-20,YES_AUTO,\n"))
        #expect(byPath["001 Drink water/Checkmarks.csv"] == "Date,Value,Notes\n2026-11-23,5000,\n2026-11-22,8500,\n2026-11-20,SKIP,\n")
        #expect(byPath["Checkmarks.csv"]!.hasPrefix("Date,Drink, \"water\",Gym,\n2026-11-23,5000,2,\n"))
        let read = try LoopCSV.read { (path: String) throws(LoopImportError) -> String? in byPath[path] }
        #expect(read.map(\.name) == ["Drink, \"water\"", "Gym"])
        // Loop's filled-in days are in the export; Herald computes them again.
        let kept = read.map { h -> LoopHabit in
            var h = h
            h.entries = h.entries.filter { $0.value != LoopHabit.yesAuto }
            return h
        }
        #expect(kept == habits.map(\.habit))
    }

    /// Loop 2.2 and before: seven columns, frequency as NumRepetitions and Interval, checkmark
    /// files without a header.
    @Test func theOlderCsvLayoutIsRead() throws {
        let files = [
            "Habits.csv": "Position,Name,Question,Description,NumRepetitions,Interval,Color\n001,Wake up early,Before 6am?,,2,3,#00897B\n",
            "001 Wake up early/Checkmarks.csv": "2015-01-25,2\n2015-01-24,0\n2015-01-23,1\n",
        ]
        let read = try LoopCSV.read { (path: String) throws(LoopImportError) -> String? in files[path] }
        #expect(read.count == 1)
        #expect(read[0].name == "Wake up early" && read[0].question == "Before 6am?")
        #expect((read[0].numerator, read[0].denominator) == (2, 3))
        #expect(read[0].entries == [LocalDate(parsing: "2015-01-25")!: 2, LocalDate(parsing: "2015-01-24")!: 0,
                                    LocalDate(parsing: "2015-01-23")!: 1])
        let (job, log, _) = try read[0].heraldHabit(now: Instant(seconds: 0), zone: .utc)
        #expect(job.times == HabitFrequency(count: 2, period: .days(3)))
        #expect(log.map(\.date) == [LocalDate(parsing: "2015-01-25")!])  // only the day done by hand
    }

    @Test func loopRemindersBecomeCalendarExpressions() {
        #expect(LoopHabit.calendar(hour: 7, minute: 30, days: 127) == "*-*-* 07:30")
        // Bits: 0 Saturday, 1 Sunday, 2 Monday, ... 6 Friday.
        #expect(LoopHabit.calendar(hour: 18, minute: 5, days: 0b0010101) == "Mon,Wed,Sat 18:05")
    }
}

