import Testing
@testable import HeraldCore
@testable import HeraldModel

struct HabitStatsTests {
    func d(_ text: String) -> LocalDate { LocalDate(parsing: text)! }
    func days(_ texts: String...) -> Set<LocalDate> { Set(texts.map(d)) }

    @Test func aStreakRunsAcrossTheEndOfAMonth() {
        let s = HabitStats.compute(done: days("2026-01-29", "2026-01-30", "2026-01-31", "2026-02-01"), today: d("2026-02-02")) { _ in true }
        #expect(s == HabitStats(total: 4, currentStreak: 4, bestStreak: 4, doneToday: false, score: s.score))
        #expect(s.progressPhrase == "Day 5 in a row")
    }

    @Test func aStreakRunsAcrossTheEndOfFebruaryInALeapYear() {
        let s = HabitStats.compute(done: days("2028-02-28", "2028-02-29", "2028-03-01"), today: d("2028-03-01")) { _ in true }
        #expect(s.currentStreak == 3)
        #expect(s.doneToday)
        #expect(s.progressPhrase == "Done today · 3 in a row")
    }

    @Test func aMissedScheduledDayBreaksTheStreak() {
        let s = HabitStats.compute(done: days("2026-11-16", "2026-11-17", "2026-11-19"), today: d("2026-11-19")) { _ in true }
        #expect(s.currentStreak == 1)
        #expect(s.bestStreak == 2)
        #expect(s.total == 3)
    }

    @Test func todayNotYetDoneDoesNotBreakIt() {
        let s = HabitStats.compute(done: days("2026-11-20", "2026-11-21"), today: d("2026-11-22")) { _ in true }
        #expect(s.currentStreak == 2)
        #expect(!s.doneToday)
    }

    @Test func unscheduledDaysNeitherBreakNorCount() throws {
        let weekdays = try CalendarEvent.parse("Mon..Fri 09:00")
        // Fri 2026-11-20, (weekend), Mon 2026-11-23; a Saturday done off-schedule.
        let s = HabitStats.compute(done: days("2026-11-20", "2026-11-21", "2026-11-23"), today: d("2026-11-23")) {
            weekdays.elapses(on: $0, in: .utc)
        }
        #expect(s.currentStreak == 2)
        #expect(s.total == 3)
    }

    /// 02:30 does not exist in Berlin on 2026-03-29: no reminder that day, so it cannot break
    /// a streak; 2026-10-25 has 02:30 twice and is scheduled once.
    @Test func daylightSavingDaysAreScheduledByTheirRealWallTimes() throws {
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        let event = try CalendarEvent.parse("*-*-* 02:30", localZone: berlin)
        #expect(!event.elapses(on: d("2026-03-29"), in: berlin))
        #expect(event.elapses(on: d("2026-03-30"), in: berlin))
        #expect(event.elapses(on: d("2026-10-25"), in: berlin))
        let s = HabitStats.compute(done: days("2026-03-27", "2026-03-28", "2026-03-30"), today: d("2026-03-30")) {
            event.elapses(on: $0, in: berlin)
        }
        #expect(s.currentStreak == 3)
        // The days themselves are 23 and 25 hours long.
        #expect(d("2026-03-30").start(in: berlin) - d("2026-03-29").start(in: berlin) == .minutes(23 * 60))
        #expect(d("2026-10-26").start(in: berlin) - d("2026-10-25").start(in: berlin) == .minutes(25 * 60))
    }

    @Test func noCompletionsMeansNothingYet() {
        let s = HabitStats.compute(done: [], today: d("2026-11-22")) { _ in true }
        #expect(s == HabitStats(total: 0, currentStreak: 0, bestStreak: 0, doneToday: false))
        #expect(s.progressPhrase == "Start a streak today")
        #expect(s.totalPhrase == "not yet")
    }

    @Test func localDatesParseOnlyRealDays() {
        #expect(LocalDate(parsing: "2028-02-29")?.description == "2028-02-29")
        #expect(LocalDate(parsing: "2027-02-29") == nil)
        #expect(LocalDate(parsing: "2026-1-5") == nil)
        #expect(LocalDate(parsing: "yesterday") == nil)
        #expect(d("2026-12-31").adding(days: 1) == d("2027-01-01"))
    }
}

struct HabitLogTests {
    let dir = TemporaryDirectory()

    @Test func replaysDoneAndUndoAndSkipsCorruptLines() throws {
        let spool = Spool(root: dir.path)
        let log = HabitLog(spool: spool, id: "water")
        let at = Instant(seconds: 1_795_352_700)
        try log.append(.init(date: LocalDate(parsing: "2026-11-20")!, done: true, at: at, by: "cli"))
        try log.append(.init(date: LocalDate(parsing: "2026-11-21")!, done: true, at: at, by: "popup"))
        try FileSystem.appendLine("{\"date\":\"2026-11-2", to: log.path)  // a write cut short
        try log.append(.init(date: LocalDate(parsing: "2026-11-20")!, done: false, at: at, by: "cli"))
        let contents = log.read()
        #expect(contents.days == [LocalDate(parsing: "2026-11-21")!])
        #expect(contents.problems == ["line 3 is not a completion record"])
        #expect(mode(of: log.path) == 0o600)
    }
}

struct CalendarMessageTests {
    /// A refusal points at the part that is wrong.
    @Test(arguments: [
        ("Mon,Fri..Wed 10:00", "the weekday range ending in 'Wed' runs backwards (write Mon..Fri, not Fri..Mon)"),
        ("25:00", "hour 25 is out of range 0..23"),
        ("*-13-01", "month 13 is out of range 1..12"),
        ("*:0/0", "the repetition in '0/0' must be greater than 0"),
        ("Mon 10", "a time needs minutes: write HH:MM, not 'Mon 10'"),
        ("10:00:00:00", "unexpected ':00' after the time"),
        ("*-*~29", "day 29 is out of range 1..28 days from the end of the month"),
        ("*-*-* 10:00 Mars/Phobos", "unknown time zone 'Mars/Phobos'"),
        ("2300-01-01", "year 2300 is out of range 1970..2199"),
        ("", "it is empty"),
    ])
    func refusalsNameTheBadPart(text: String, message: String) {
        #expect(throws: CalendarError(message)) { try CalendarEvent.parse(text) }
    }

    @Test func normalizedFormsAreSystemds() throws {
        #expect(try CalendarEvent.parse("Wed..Sat,Tue 12:00").description == "Tue..Sat *-*-* 12:00:00")
        #expect(try CalendarEvent.parse("daily UTC").description == "*-*-* 00:00:00 UTC")
        #expect(try CalendarEvent.parse("*:*:0/10.5").description == "*-*-* *:*:00/10.500000")
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        #expect(try CalendarEvent.parse("daily CET", localZone: berlin).description == "*-*-* 00:00:00 CET")
    }
}

struct JobScheduleTests {
    /// systemd gives up on this one next to Berlin's 2027 spring-forward ("Infinite loop in
    /// calendar calculation"); a reminder on it must still go on.
    @Test func aRecurringJobStepsPastWhereTheSearchGivesUp() throws {
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        let expression = "Mon,Sat 9/6:04"
        let saturday2104 = Instant(seconds: 1_806_177_840)
        #expect(try CalendarEvent.parse(expression, localZone: berlin).next(after: saturday2104, in: berlin) == nil)
        let schedule = try JobSchedule(Job(kind: .reminder, every: expression, text: "x"), localZone: berlin)
        let next = try #require(schedule.next(after: saturday2104, now: saturday2104))
        #expect(ISO8601.format(next, in: berlin) == "2027-03-29T09:04:00+02:00")
    }
}
