import Foundation
@testable import HeraldCore
@testable import HeraldModel
import Testing

/// Calendar files written to hurt: values that overflow, rules that never end or explode, deep
/// nesting, huge lines. Each is read and planned over heraldd's window; none may crash, the bad
/// item is reported with its line and reason, a good item in the same file still alarms, and the
/// work done stays inside `ICalBudget` (counted in steps, never timed). The small cases are files
/// in Fixtures/hostile-ics/; the megabyte ones are made here.
@Suite struct ICalHostileTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/hostile-ics")
    /// heraldd's window: a day back, the horizon and a day ahead.
    let now = ISO8601.parseInstant("2026-11-30T00:00:00Z")!
    var from: Instant { now - .seconds(86_400) }
    var to: Instant { now + CalendarPlanner.horizon + .seconds(86_400) }
    /// The alarm of the good item every fixture ends with (15 minutes before 1 December, 09:00 UTC).
    let goodAlarm = ISO8601.parseInstant("2026-12-01T08:45:00Z")!

    static let goodItem = "BEGIN:VEVENT\nUID:good\nSUMMARY:Good\nDTSTART:20261201T090000Z\n"
        + "BEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:-PT15M\nEND:VALARM\nEND:VEVENT\n"

    func fixture(_ name: String) throws -> ICalendarFile {
        let bytes = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
        return try ICalendarFile(path: name, bytes: bytes)
    }

    func plan(_ file: ICalendarFile) -> (alarms: [CalendarAlarm], problems: [ICalError], steps: Int) {
        let r = file.measuredAlarms(from: from, to: to, localZone: .utc)
        return (r.alarms, r.problems, r.steps)
    }

    /// Plans a fixture and checks what every case shares: the good item alarms, the steps stay in
    /// the file's budget, and the problems are `expected` (line and message).
    @discardableResult
    func check(_ name: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [CalendarAlarm] {
        let result = plan(try fixture(name))
        #expect(result.problems.map(\.description) == expected, sourceLocation: sourceLocation)
        #expect(result.alarms.contains { $0.uid == "good" && $0.at == goodAlarm }, sourceLocation: sourceLocation)
        #expect(result.steps <= ICalBudget.stepsPerFile, sourceLocation: sourceLocation)
        return result.alarms.filter { $0.uid == "bad" }
    }

    // MARK: values out of range

    @Test func aTriggerOfAHundredMillionWeeksIsOutOfRange() throws {
        try check("trigger-overflow.ics", ["line 10: TRIGGER '-P99999999W' is out of range (at most 100 years)"])
    }

    @Test func aRepeatAsLargeAsInt64IsOutOfRange() throws {
        try check("repeat-overflow.ics", ["line 11: REPEAT '9223372036854775807' is out of range (at most 1000)"])
    }

    @Test func anEventDurationOfAHundredMillionWeeksIsOutOfRangeEitherWay() throws {
        try check("duration-overflow.ics", ["line 8: DURATION 'P99999999W' is out of range (at most 100 years)"])
        try check("negative-duration.ics", ["line 8: DURATION '-P99999999W' is out of range (at most 100 years)"])
    }

    @Test func aRepeatIntervalOutOfRangeIsNamed() throws {
        try check("repeat-duration-overflow.ics", ["line 12: DURATION 'P99999999W' is out of range (at most 100 years)"])
    }

    @Test func countAndIntervalOutOfRangeAreNamed() throws {
        try check("count-huge.ics", ["line 8: RRULE: COUNT '999999999999' is out of range (at most 1000000)"])
        try check("interval-huge.ics", ["line 8: RRULE: INTERVAL '9223372036854775807' is out of range (at most 1000000)"])
        try check("interval-zero.ics", ["line 8: RRULE: INTERVAL '0' is not a positive number"])
    }

    @Test func yearZeroIsOutOfRange() throws {
        try check("year-zero.ics", ["line 7: DTSTART '00000101T000000Z' is out of range (years 1 to 9999)"])
    }

    @Test func aUTCOffsetOfNinetyNineHoursIsOutOfRange() throws {
        try check("tzoffset-out-of-range.ics", ["line 8: TZOFFSETFROM '+9959' is out of range (at most 23:59:59 either way)"])
    }

    @Test func durationsAreSummedWithoutOverflow() {
        #expect(ICalDuration.parse("P36525D") == ICalDuration(days: 36_525))
        #expect(ICalDuration.parse("-PT876600H") == ICalDuration(seconds: -876_600 * 3600))
        for text in ["P36526D", "PT876601H", "P5218W1D", "P99999999999999999999999W", "PT9223372036854775807S", "P36525DT1S"] {
            guard case .failure(.outOfRange) = ICalDuration.read(text) else { Issue.record("\(text) is in range"); continue }
        }
        guard case .failure(.notADuration) = ICalDuration.read("P1Y") else { Issue.record("P1Y read"); return }
    }

    // MARK: rules that explode or never end

    @Test func aYearlyRuleWithEveryByPartIsRefusedBeforeItAllocates() throws {
        let bad = try check("yearly-every-by-part.ics", [
            "line 8: RRULE 'FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9,10…': it gives over 10000 times in one period",
        ])
        #expect(bad.isEmpty)
    }

    @Test func aMinutelyRuleWithRepeatingAlarmsRunsOutOfItsBudget() throws {
        try check("minutely-repeat.ics", ["line 4: VEVENT 'bad' is skipped: expanding it takes over \(ICalBudget.stepsPerItem) steps (the budget of one item)"])
    }

    @Test func thousandsOfAlarmsInOneItemRunOutOfItsBudget() throws {
        let problems = plan(try fixture("many-alarms.ics")).problems.map(\.description)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("line 4: VEVENT 'bad' is skipped: ") == true, "\(problems)")
        try check("many-alarms.ics", problems)
    }

    @Test func aSecondlyRuleUntilTheYear9999IsCutAtTheWindowThenItsBudget() throws {
        try check("until-9999.ics", ["line 4: VEVENT 'bad' is skipped: expanding it takes over \(ICalBudget.stepsPerItem) steps (the budget of one item)"])
    }

    /// BYSECOND=60 names no time (Herald's clock has no leap seconds): the rule has no instances,
    /// which is not an error, and costs nothing, even from the year 1 with a COUNT.
    @Test func aLeapSecondRuleFromTheYearOneEnds() throws {
        for name in ["secondly-leap-second.ics", "secondly-leap-second-year1.ics", "leap-second-values.ics"] {
            try check(name, [])
            #expect(plan(try fixture(name)).steps < 4 * ICalBudget.periodsWithoutMatch, "\(name)")
        }
    }

    @Test func aRuleThatCanNeverMatchEndsAfterItsEmptyPeriods() throws {
        let rule = try RecurrenceRule.parse("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;COUNT=1")
        var meter = ICalMeter(limit: ICalBudget.stepsPerItem)
        var seen = 0
        try rule.expand(start: CivilTime(year: 1, month: 1, day: 1), limit: CivilTime(year: 9999, month: 1, day: 1), meter: &meter,
                        isPastUntil: { _ in false }) { _ in seen += 1; return true }
        #expect(seen == 0)
        #expect(meter.spent <= 2 * (ICalBudget.periodsWithoutMatch + 1))
    }

    @Test func bySetPosAtBothEndsPicksFromTheFullYear() throws {
        let bad = try check("bysetpos-extremes.ics", [])
        // Of each year's 8,760 times: -366 is 16 December 18:00, -1 is 31 December 23:00, 1 (of
        // 2027) is 1 January 00:00; and the start counts. Alarms are 5 minutes before.
        #expect(bad.map { ISO8601.format($0.at, offsetSeconds: 0, zulu: true) }
                == ["2026-11-30T08:55:00Z", "2026-12-16T17:55:00Z", "2026-12-31T22:55:00Z", "2026-12-31T23:55:00Z"])
    }

    @Test func theExpanderStopsWhenItsMeterIsSpent() throws {
        let rule = try RecurrenceRule.parse("FREQ=SECONDLY")
        var meter = ICalMeter(limit: 1000)
        var seen = 0
        #expect(throws: ICalRuleError.self) {
            try rule.expand(start: CivilTime(year: 2026, month: 1, day: 1), limit: CivilTime(year: 9999, month: 1, day: 1), meter: &meter,
                            isPastUntil: { _ in false }) { _ in seen += 1; return true }
        }
        #expect(meter.isSpent && meter.spent <= 1001)
        #expect(seen < 1000)
    }

    @Test func aSecondlyRuleOnOneHourSkipsTheOtherHours() throws {
        // Each kept second is a few steps; the other 23 hours of a day cost a jump each.
        let rule = try RecurrenceRule.parse("FREQ=SECONDLY;BYHOUR=9;BYMINUTE=0")
        var meter = ICalMeter(limit: 1_000_000)
        var seen: [CivilTime] = []
        try rule.expand(start: CivilTime(year: 2026, month: 1, day: 1), limit: CivilTime(year: 2026, month: 1, day: 3), meter: &meter,
                        isPastUntil: { _ in false }) { seen.append($0); return true }
        #expect(seen.count == 120)
        #expect(seen.first == CivilTime(year: 2026, month: 1, day: 1, hour: 9))
        #expect(meter.spent < 1000)
    }

    // MARK: dates and zones

    @Test func dateExclusionsAreOnePassOverTheOccurrences() throws {
        // RDATEs on 1–28 November and December, EXDATE;VALUE=DATE on the same days: only the
        // start (30 November) is left.
        let bad = try check("rdate-exdate.ics", [])
        #expect(bad.map(\.at) == [ISO8601.parseInstant("2026-11-30T08:55:00Z")!])
    }

    @Test func tooManyDatesInOneItemAreRefused() throws {
        let dates: [String] = (0..<12_000).map { (k: Int) -> String in String(format: "2026%02d%02dT%02d0000Z", 1 + k / 672 % 12, 1 + k / 24 % 28, k % 24) }
        let rdate: String = "RDATE:" + dates.joined(separator: ",")
        let item: String = "BEGIN:VEVENT\nUID:bad\nDTSTART:20261130T090000Z\n" + rdate + "\nBEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:PT0S\nEND:VALARM\nEND:VEVENT\n"
        let text: String = "BEGIN:VCALENDAR\n" + item + Self.goodItem + "END:VCALENDAR\n"
        let result = plan(try ICalendarFile(path: "d.ics", bytes: Array(text.utf8)))
        #expect(result.problems.map(\.description) == ["line 5: RDATE has over 10000 dates in the item"])
        #expect(result.alarms.map(\.uid) == ["good"])
    }

    @Test func aMinutelyVTimezoneIsRefusedAfterItsTransitionBudget() throws {
        try check("vtimezone-minutely.ics", ["line 4: VTIMEZONE 'Hostile/Minutely' changes its offset over \(ICalBudget.transitionsPerZone) times from 1900 to 2200"])
    }

    @Test func theVTimezonesOfOneFileShareABudget() throws {
        // 200 distinct zones whose rules are costly (every day of every year examined): a few are
        // built, the rest are refused once the file's zone budget is spent.
        var text = "BEGIN:VCALENDAR\n"
        for i in 0..<200 {
            text += "BEGIN:VTIMEZONE\nTZID:Z\(i)\nBEGIN:STANDARD\nDTSTART:19000101T000000\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYYEARDAY=-\(1 + i % 300)\n"
                + "TZOFFSETFROM:+0100\nTZOFFSETTO:+0000\nEND:STANDARD\nEND:VTIMEZONE\n"
                + "BEGIN:VEVENT\nUID:z\(i)\nDTSTART;TZID=Z\(i):20261130T090000\nBEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:PT0S\nEND:VALARM\nEND:VEVENT\n"
        }
        let file = try ICalendarFile(path: "z.ics", bytes: Array((text + Self.goodItem + "END:VCALENDAR\n").utf8))
        let result = plan(file)
        #expect(result.alarms.contains { $0.uid == "good" })
        #expect(result.problems.contains { $0.message.contains("is not built: the file's budget of \(ICalBudget.zoneStepsPerFile) steps for its VTIMEZONEs is spent") })
        let left = file.items[0].zones.budget.left.withLock { $0 }
        #expect(left == 0)
    }

    // MARK: the file's shape

    @Test func deepNestingIsRefusedAtItsLine() throws {
        #expect(throws: ICalError(line: 10, "BEGIN:X-NEST is nested too deep (at most 8 levels)")) { try fixture("nesting-deep.ics") }
        // 200,000 levels: refused at the ninth, so no tree is ever deep enough to overflow the stack.
        let deep = "BEGIN:VCALENDAR\n" + String(repeating: "BEGIN:X\n", count: 200_000) + String(repeating: "END:X\n", count: 200_000) + "END:VCALENDAR\n"
        #expect(throws: ICalError(line: 9, "BEGIN:X is nested too deep (at most 8 levels)")) {
            try ICalendarFile(path: "deep.ics", bytes: Array(deep.utf8))
        }
    }

    @Test func aLineOver256KiBIsRefusedFoldedOrNot() throws {
        let long = "BEGIN:VCALENDAR\nX-LONG:" + String(repeating: "x", count: 300 << 10) + "\nEND:VCALENDAR\n"
        #expect(throws: ICalError(line: 2, "the line is longer than 256 KiB once unfolded")) { try ICalendarFile(path: "l.ics", bytes: Array(long.utf8)) }
        let folded = "BEGIN:VCALENDAR\nDESCRIPTION:x\n" + String(repeating: " " + String(repeating: "y", count: 74) + "\n", count: 4000) + "END:VCALENDAR\n"
        #expect(throws: ICalError(line: 2, "the line is longer than 256 KiB once unfolded")) { try ICalendarFile(path: "f.ics", bytes: Array(folded.utf8)) }
        // Just under the bound is a line like any other.
        let fits = "BEGIN:VCALENDAR\nX-LONG:" + String(repeating: "x", count: (256 << 10) - 8) + "\n" + Self.goodItem + "END:VCALENDAR\n"
        #expect(plan(try ICalendarFile(path: "ok.ics", bytes: Array(fits.utf8))).alarms.count == 1)
    }

    // MARK: a megabyte of the worst

    /// `unit(i)` repeated to a megabyte, after the good item (its step budget is then the base one).
    func megabyte(_ unit: (Int) -> String) throws -> ICalendarFile {
        var text = "BEGIN:VCALENDAR\nVERSION:2.0\n" + Self.goodItem
        var i = 0
        while true {
            let next = unit(i)
            guard text.utf8.count + next.utf8.count + 14 <= 1_000_000 else { break }
            text += next
            i += 1
        }
        return try ICalendarFile(path: "mb.ics", bytes: Array((text + "END:VCALENDAR\n").utf8))
    }

    @Test func aMegabyteOfMinutelyRulesWithRepeatsSpendsTheFileBudgetOnce() throws {
        let file = try megabyte { i in
            "BEGIN:VEVENT\nUID:m\(i)\nDTSTART:20261130T090000Z\nRRULE:FREQ=MINUTELY\n"
                + (1...3).map { "BEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:-PT\($0)M\nREPEAT:1000\nDURATION:PT1M\nEND:VALARM\n" }.joined()
                + "END:VEVENT\n"
        }
        let result = plan(file)
        #expect(result.alarms.map(\.uid) == ["good"])
        #expect(result.steps <= file.stepBudget)
        // Each item before the file's budget ran out is reported; then one line for the rest.
        let last = try #require(result.problems.last)
        #expect(last.message.contains("items after it are skipped: the file's budget of \(file.stepBudget) steps is spent"), "\(last)")
        #expect(result.problems.count <= file.stepBudget / ICalBudget.stepsPerItem + 1)
        // A larger file may spend a step a byte.
        #expect(file.stepBudget == ICalBudget.stepsPerFile && ICalBudget.steps(forFileOf: 3_000_000) == 3_000_000)
    }

    @Test func aMegabyteOfOverflowingTriggersReportsEachItem() throws {
        let file = try megabyte { i in
            "BEGIN:VEVENT\nUID:t\(i)\nDTSTART:20261130T090000Z\nBEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:-P99999999W\nEND:VALARM\nEND:VEVENT\n"
        }
        let result = plan(file)
        #expect(result.alarms.map(\.uid) == ["good"])
        #expect(result.problems.count == file.items.count - 1)
        #expect(result.problems.allSatisfy { $0.message == "TRIGGER '-P99999999W' is out of range (at most 100 years)" })
    }

    @Test func aMegabyteOfEveryByPartRulesAllocatesNothingLarge() throws {
        let rule = "RRULE:FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12;BYMONTHDAY=" + (1...31).map(String.init).joined(separator: ",")
            + ";BYHOUR=" + (0...23).map(String.init).joined(separator: ",") + ";BYMINUTE=" + (0...59).map(String.init).joined(separator: ",")
        let file = try megabyte { i in
            "BEGIN:VEVENT\nUID:y\(i)\nDTSTART:20261130T090000Z\n\(rule)\nBEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:PT0S\nEND:VALARM\nEND:VEVENT\n"
        }
        let result = plan(file)
        #expect(result.alarms.map(\.uid) == ["good"])
        #expect(result.steps <= file.stepBudget)
        // Each refusal costs the candidates made before it (at most 10,000): a few hundred items
        // are refused one by one, then the file's budget is spent.
        let each = result.problems.dropLast()
        #expect(each.count >= ICalBudget.stepsPerFile / (2 * ICalBudget.candidatesPerPeriod))
        #expect(each.allSatisfy { $0.message.hasSuffix("it gives over 10000 times in one period") })
        #expect(result.problems.last?.message.hasSuffix("skipped: the file's budget of \(file.stepBudget) steps is spent") == true)
    }

    @Test func aMegabyteOfLeapSecondRulesFromTheYearOneEnds() throws {
        let file = try megabyte { i in
            "BEGIN:VEVENT\nUID:s\(i)\nDTSTART:00010101T000000Z\nRRULE:FREQ=SECONDLY;BYSECOND=60;COUNT=1\n"
                + "BEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:PT0S\nEND:VALARM\nEND:VEVENT\n"
        }
        let result = plan(file)
        #expect(result.alarms.map(\.uid) == ["good"])
        #expect(result.steps <= file.stepBudget)
    }

    @Test func aMegabyteOfHourlyRepeatsStopsAtTheFilesAlarmBudget() throws {
        let file = try megabyte { i in
            "BEGIN:VEVENT\nUID:a\(i)\nDTSTART:20261130T090000Z\nRRULE:FREQ=HOURLY\n"
                + "BEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:-PT1M\nREPEAT:1000\nDURATION:PT1S\nEND:VALARM\nEND:VEVENT\n"
        }
        let result = plan(file)
        #expect(result.alarms.contains { $0.uid == "good" })
        #expect(result.alarms.count <= ICalBudget.alarmsPerFile)
        #expect(result.steps <= file.stepBudget)
        #expect(!result.problems.isEmpty)
    }
}
