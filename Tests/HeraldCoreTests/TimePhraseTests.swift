import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Time phrases against answers worked out by hand: the orders `at` refuses, zones, and where
/// Herald is right and `at` is not (TimePhraseOracleTests compares the rest with `at` itself).
struct TimePhraseTests {
    static let berlin = try! TimeZoneRules.named("Europe/Berlin")
    static let newYork = try! TimeZoneRules.named("America/New_York")
    static let lordHowe = try! TimeZoneRules.named("Australia/Lord_Howe")

    /// The instant of a local wall time (the first, in an overlap).
    func local(_ text: String, _ zone: TimeZoneRules = berlin) -> Instant {
        zone.resolve(ISO8601.parse(text)!.civil).firstInstant
    }

    func means(_ phrase: String, at now: String, _ zone: TimeZoneRules = berlin) throws -> String {
        let m = try TimePhrase.parse(phrase, now: local(now, zone), zone: zone)
        return ISO8601.format(m.instant, in: m.zone)
    }

    // Monday 2026-11-23 10:15:30 in Berlin.
    let monday = "2026-11-23T10:15:30"

    @Test func theOrdersAtRefusesMeanWhatPeopleMeanByThem() throws {
        #expect(try means("tomorrow 09:00", at: monday) == "2026-11-24T09:00:00+01:00")
        #expect(try means("tomorrow 9am", at: monday) == "2026-11-24T09:00:00+01:00")
        #expect(try means("Tomorrow at 9am", at: monday) == "2026-11-24T09:00:00+01:00")
        #expect(try means("fri 17:00", at: monday) == "2026-11-27T17:00:00+01:00")
        #expect(try means("Fri 18:00", at: monday) == "2026-11-27T18:00:00+01:00")
        #expect(try means("next friday 17:00", at: monday) == "2026-11-27T17:00:00+01:00")
        #expect(try means("in 2 hours", at: monday) == "2026-11-23T12:15:30+01:00")
        #expect(try means("in 90 min", at: monday) == "2026-11-23T11:45:30+01:00")
        #expect(try means("in 1h 30min", at: monday) == "2026-11-23T11:45:30+01:00")
        #expect(try means("in 2 hours 15 minutes", at: monday) == "2026-11-23T12:30:30+01:00")
        #expect(try means("Jul 31 10am", at: monday) == "2027-07-31T10:00:00+02:00")
        #expect(try means("today 17:00", at: monday) == "2026-11-23T17:00:00+01:00")
        #expect(try means("noon", at: "2026-11-23T12:00:30") == "2026-11-24T12:00:00+01:00")  // its minute has begun
        #expect(try means("10:15:45", at: monday) == "2026-11-23T10:15:45+01:00")
    }

    @Test func aZoneAtTheEndReadsThePhraseThere() throws {
        #expect(try means("9am Europe/London", at: monday) == "2026-11-24T09:00:00+00:00")  // 09:15 there already
        #expect(try means("11am Europe/London", at: monday) == "2026-11-23T11:00:00+00:00")
        #expect(try means("tomorrow 9am America/New_York", at: monday) == "2026-11-24T09:00:00-05:00")
        #expect(try means("2026-12-24T09:00 Asia/Tokyo", at: monday) == "2026-12-24T09:00:00+09:00")
        #expect(try means("noon UTC", at: monday) == "2026-11-23T12:00:00+00:00")
        #expect(try means("2026-12-24T09:00:00+05:30", at: monday) == "2026-12-24T04:30:00+01:00")
        #expect(throws: TimePhrase.Failure.self) { try means("9am Mars/Olympus", at: monday) }
        #expect(throws: TimePhrase.Failure.self) { try means("2026-12-24T09:00Z Asia/Tokyo", at: monday) }
    }

    /// `at` adds an hour too many or too few across a change; minutes and hours are elapsed time.
    @Test func minutesAndHoursAreElapsedTimeAcrossDaylightSavingChanges() throws {
        // Berlin springs forward at 02:00 on 2027-03-28.
        let spring = local("2027-03-27T23:30:00")
        let plus3h = try TimePhrase.parse("now + 3 hours", now: spring, zone: Self.berlin).instant
        #expect(plus3h - spring == .seconds(3 * 3600))
        #expect(ISO8601.format(plus3h, in: Self.berlin) == "2027-03-28T03:30:00+02:00")
        // New York falls back at 02:00 on 2027-11-07: 23:30 + 3 h is the second 01:30.
        let autumn = local("2027-11-06T23:30:00", Self.newYork)
        let later = try TimePhrase.parse("now + 3 hours", now: autumn, zone: Self.newYork).instant
        #expect(later - autumn == .seconds(3 * 3600))
        #expect(ISO8601.format(later, in: Self.newYork) == "2027-11-07T01:30:00-05:00")
        #expect(try TimePhrase.parse("in 90 min", now: autumn, zone: Self.newYork).instant - autumn == .seconds(5400))
        // Days keep the wall time, also where the change is half an hour (at is 30 minutes off).
        #expect(try means("tomorrow", at: "2027-04-03T12:00:00", Self.lordHowe) == "2027-04-04T12:00:00+10:30")
        #expect(try means("now + 1 day", at: "2027-03-27T10:00:10") == "2027-03-28T10:00:10+02:00")
    }

    @Test func aTimeTheClocksSkipIsRefusedAndOneTheyRepeatMeansTheFirst() throws {
        let skipped = #expect(throws: TimePhrase.Failure.self) { try means("2:30 tomorrow", at: "2027-03-27T10:00:00") }
        #expect(skipped?.reason == "02:30 on 2027-03-28 does not exist in Europe/Berlin: the clocks skip it for daylight saving time")
        #expect(throws: TimePhrase.Failure.self) { try means("2027-03-28 02:30", at: monday) }
        #expect(try means("1:30am", at: "2027-11-07T00:20:30", Self.newYork) == "2027-11-07T01:30:00-04:00")
        #expect(try means("1:45am", at: "2027-04-04T00:10:00", Self.lordHowe) == "2027-04-04T01:45:00+11:00")
    }

    @Test func datesAtGetsWrongAreRight() throws {
        #expect(try means("Feb 29", at: monday) == "2028-02-29T10:15:30+01:00")  // at: 1 March 2027
        #expect(try means("Jan 31 + 1 month", at: monday) == "2027-02-28T10:15:30+01:00")  // at: 3 March
        #expect(try means("now + 1 month", at: "2027-01-31T08:00:00") == "2027-02-28T08:00:00+01:00")
        #expect(try means("Feb 29 2028", at: monday) == "2028-02-29T10:15:30+01:00")
        let april = #expect(throws: TimePhrase.Failure.self) { try means("Apr 31", at: monday) }
        #expect(april?.reason == "'Apr 31': April has 30 days")
        let notLeap = #expect(throws: TimePhrase.Failure.self) { try means("29.02.2027", at: monday) }
        #expect(notLeap?.reason == "'29.02.2027': February 2027 has 28 days")
    }

    @Test func aRefusalNamesTheWordAndShowsTwoPhrasesThatWork() throws {
        let word = #expect(throws: TimePhrase.Failure.self) { try means("tomorrow fooday", at: monday) }
        #expect(word?.reason == "'fooday' does not fit in 'tomorrow fooday'; try 'tomorrow 9am' or 'in 2 hours'")
        let alone = #expect(throws: TimePhrase.Failure.self) { try means("9", at: monday) }
        #expect(alone?.reason == "'9' is not a time: a lone number is not a time: say 9am, 9pm or 09:00; try 'tomorrow 9am' or 'in 2 hours'")
        let twoDates = #expect(throws: TimePhrase.Failure.self) { try means("fri tomorrow", at: monday) }
        #expect(twoDates?.reason.contains("'tomorrow' does not fit in 'fri tomorrow': the phrase already has a date") == true)
        let past = #expect(throws: TimePhrase.Failure.self) { try means("today 9am", at: monday) }
        #expect(past?.reason == "'today 9am' means 2026-11-23T09:00:00+01:00, which is in the past")
        let hour = #expect(throws: TimePhrase.Failure.self) { try means("13pm", at: monday) }
        #expect(hour?.reason == "'13 pm' is not a time: the hour is above 12")
        #expect(throws: TimePhrase.Failure.self) { try means("", at: monday) }
        #expect(throws: TimePhrase.Failure.self) { try means("25:00", at: monday) }
        #expect(throws: TimePhrase.Failure.self) { try means("now +", at: monday) }
        #expect(throws: TimePhrase.Failure.self) { try means("in 3 parsecs", at: monday) }
        let far = #expect(throws: TimePhrase.Failure.self) { try means("now + 99999999 years", at: monday) }
        #expect(far?.reason == "'now + 99999999 years' is beyond the year 9999")
        #expect(throws: TimePhrase.Failure.self) { try means("now + 99999999 hours + 99999999 hours", at: monday) }
        #expect(throws: TimePhrase.Failure.self) { try means("now + 999999999 min", at: monday) }
    }

    /// In New York's repeated hour, 01:30 happens twice: `now` is the real instant, whichever pass it is.
    @Test func nowRelativePhrasesCountFromTheRealInstantInARepeatedHour() throws {
        let secondPass = ISO8601.parseInstant("2027-11-07T06:30:00Z")!  // 01:30 EST, after 01:30 EDT
        #expect(try TimePhrase.parse("now", now: secondPass, zone: Self.newYork).instant == secondPass)
        #expect(try TimePhrase.parse("now + 15 min", now: secondPass, zone: Self.newYork).instant == secondPass + .minutes(15))
        #expect(try TimePhrase.parse("in 2 hours", now: secondPass, zone: Self.newYork).instant == secondPass + .minutes(120))
        #expect(try TimePhrase.parse("next hour", now: secondPass, zone: Self.newYork).instant == secondPass + .minutes(60))
    }

    @Test func phrasesWithoutATimeKeepTheSecondsAndOnesWithATimeDoNot() throws {
        let now = local("2026-11-23T10:15:30") + .milliseconds(250)
        #expect(try TimePhrase.parse("now", now: now, zone: Self.berlin).instant == now)
        #expect(try TimePhrase.parse("now + 15 min", now: now, zone: Self.berlin).instant == now + .minutes(15))
        #expect(try TimePhrase.parse("teatime", now: now, zone: Self.berlin).instant == local("2026-11-23T16:00:00"))
    }
}

/// Warnings and several schedules: when a job fires and what each firing is.
struct JobWarningScheduleTests {
    let t0 = ISO8601.parseInstant("2026-11-23T09:00:00Z")!

    @Test func aOneShotWarnsAtEachSpanThenFiresAndSkipsWarningsAlreadyPast() throws {
        let at = t0 + .minutes(120)
        let job = Job(kind: .reminder, at: at, text: "Dentist", warn: [.minutes(15), .minutes(60 * 24), .minutes(60)])
        let s = try JobSchedule(job, localZone: .utc)
        #expect(s.warnings == [.minutes(1440), .minutes(60), .minutes(15)])
        // Made two hours ahead: the 1-day warning is past and is the latest past: shown at once.
        #expect(s.first(now: t0) == at - .minutes(1440))
        #expect(s.next(after: at - .minutes(1440), now: t0) == at - .minutes(60))
        #expect(s.next(after: at - .minutes(60), now: at - .minutes(60)) == at - .minutes(15))
        #expect(s.next(after: at - .minutes(15), now: at - .minutes(15)) == at)
        #expect(s.next(after: at, now: at) == nil)
        // Made 30 minutes ahead: the 1-hour warning is the latest past one; the 1-day one is not shown.
        #expect(s.first(now: at - .minutes(30)) == at - .minutes(60))
        // Back after the warnings' times: straight to the event.
        #expect(s.next(after: at - .minutes(60), now: at - .minutes(5)) == at)
        #expect(s.role(of: at - .minutes(15)) == .warning && s.role(of: at) == .reminder)
        #expect(s.target(ofWarning: at - .minutes(15)) == at)
    }

    @Test func severalSchedulesFireAtTheirUnionOnceWhereTheyMeet() throws {
        var job = Job(kind: .reminder, text: "Pills")
        job.every = ["*-*-* 08:00", "*-*-* 16:00", "*-*-* 08,12:00"]
        let s = try JobSchedule(job, localZone: .utc)
        var times: [Instant] = []
        var t = t0 - .minutes(60 * 9)  // 00:00
        while let next = s.firing(after: t), times.count < 6 { times.append(next); t = next }
        #expect(times.map { ISO8601.format($0, in: .utc) } == [
            "2026-11-23T08:00:00+00:00", "2026-11-23T12:00:00+00:00", "2026-11-23T16:00:00+00:00",
            "2026-11-24T08:00:00+00:00", "2026-11-24T12:00:00+00:00", "2026-11-24T16:00:00+00:00",
        ])
        #expect(s.elapses(on: LocalDate(year: 2026, month: 11, day: 23)))
    }

    @Test func aWarningOnAnotherOccurrenceIsThatOccurrence() throws {
        var job = Job(kind: .reminder, text: "Stretch", warn: [.minutes(60), .minutes(10)])
        job.every = ["*-*-* 09..11:00"]
        let s = try JobSchedule(job, localZone: .utc)
        var times: [Instant] = []
        var t = t0 - .minutes(120)  // 07:00
        while let next = s.firing(after: t), next < t0 + .minutes(180) { times.append(next); t = next }
        // 08:00 and 08:50 warn of 09:00; 09:00 (also the 1-hour warning of 10:00) is itself; ...
        #expect(times.map { ISO8601.format($0, in: .utc).dropFirst(11).prefix(5) } == ["08:00", "08:50", "09:00", "09:50", "10:00", "10:50", "11:00"])
        #expect(times.map { s.role(of: $0) } == [.warning, .warning, .reminder, .warning, .reminder, .warning, .reminder])
        #expect(s.target(ofWarning: times[1]) == t0)
    }

    @Test func aDeliveryLeadIsItsLastHeadsUpAndWarnAddsEarlierOnes() throws {
        let at = t0 + .minutes(60 * 24)
        let job = Job(kind: .delivery, at: at, lead: .minutes(15), warn: [.minutes(60)])
        let s = try JobSchedule(job, localZone: .utc, defaultLead: .minutes(5))
        #expect(s.first(now: t0) == at - .minutes(60))
        #expect(s.next(after: at - .minutes(60), now: at - .minutes(60)) == at - .minutes(15))
        #expect(s.role(of: at - .minutes(60)) == .headsUp && s.role(of: at) == .arrival)
        let byDefault = try JobSchedule(Job(kind: .delivery, at: at, warn: [.minutes(60)]), localZone: .utc, defaultLead: .minutes(5))
        #expect(byDefault.warnings == [.minutes(60), .minutes(5)])
    }

    @Test func aWarningSnoozedPastItsEventDoesNotLoseTheEvent() throws {
        var job = Job(kind: .reminder, text: "Stand-up", warn: [.minutes(15)])
        job.every = ["*-*-* 10:00"]
        let s = try JobSchedule(job, localZone: .utc)
        let event = ISO8601.parseInstant("2026-11-23T10:00:00Z")!
        // The 09:45 warning was snoozed to 10:20 and shown then: the 10:00 event comes next (late).
        #expect(s.next(after: event - .minutes(15), now: event + .minutes(20)) == event)
        // Shown on time, the warning is followed by its event as usual; the event by tomorrow's warning.
        #expect(s.next(after: event - .minutes(15), now: event - .minutes(15)) == event)
        #expect(s.next(after: event, now: event) == event + .minutes(24 * 60 - 15))
    }

    @Test func aLateWarningWithItsEventAheadIsStillNews() throws {
        let at = t0 + .minutes(24 * 60)
        let job = Job(kind: .reminder, at: at, text: "Dentist", warn: [.minutes(24 * 60)])
        let s = try JobSchedule(job, localZone: .utc)
        let warning = DueOccurrence(job: job, schedule: s, name: JobFileName(id: "d", occurrence: t0))
        #expect(warning.isStillAhead(now: t0 + .minutes(300)))
        #expect(!warning.isStillAhead(now: at + .minutes(1)))
        let main = DueOccurrence(job: job, schedule: s, name: JobFileName(id: "d", occurrence: at))
        #expect(!main.isStillAhead(now: at + .minutes(300)))
    }

    @Test func aHabitWarningIsJudgedByTheDayOfItsReminder() throws {
        var job = Job(kind: .habit, title: "Run", warn: [.minutes(60 * 18)])  // 18:00 the day before
        job.every = ["*-*-* 12:00"]
        let s = try JobSchedule(job, localZone: .utc)
        let warning = ISO8601.parseInstant("2026-11-23T18:00:00Z")!
        #expect(s.role(of: warning) == .warning)
        let today = LocalDate(year: 2026, month: 11, day: 23)
        let occurrence = { (days: Set<LocalDate>) in
            DueOccurrence(job: job, schedule: s, name: JobFileName(id: "run", occurrence: warning),
                          habitLog: HabitLog.Contents(days: days, problems: []))
        }
        #expect(job.kind.rules.skipReason(occurrence([today]), now: warning) == nil)  // it warns of tomorrow
        #expect(job.kind.rules.skipReason(occurrence([today.adding(days: 1)]), now: warning) != nil)  // done ahead
    }

    @Test func warnAndEveryListsAreDecodedCheckedAndWrittenBack() throws {
        let text = #"{"version":1,"kind":"reminder","every":["08:00","16:00"],"text":"x","warn":["15m","1h"]}"#
        let job = try Job.decode(Array(text.utf8))
        #expect(job.every == ["08:00", "16:00"] && job.warn == [.minutes(15), .minutes(60)])
        #expect(job.encoded() == #"{"version":1,"kind":"reminder","every":["08:00","16:00"],"text":"x","warn":["15min","1h"]}"#)
        let single = try Job.decode(Array(#"{"version":1,"kind":"habit","every":"daily","title":"x"}"#.utf8))
        #expect(single.every == ["daily"] && single.encoded().contains(#""every":"daily""#))
        #expect(throws: JobError("field 'warn' holds a span outside 1 second to 366 days", value: "\"0\"")) {
            try Job.decode(Array(#"{"version":1,"kind":"reminder","at":"2026-11-23T09:00:00Z","text":"x","warn":["0"]}"#.utf8))
        }
        #expect(throws: JobError("field 'every' is an empty list")) {
            try Job.decode(Array(#"{"version":1,"kind":"reminder","every":[],"text":"x"}"#.utf8))
        }
        #expect(throws: JobError.self) {
            try Job.decode(Array(#"{"version":1,"kind":"reminder","every":["daily","25:00"],"text":"x"}"#.utf8))
        }
        #expect(throws: JobError("field 'warn' is not an array of time spans", value: "\"15m\"")) {
            try Job.decode(Array(#"{"version":1,"kind":"reminder","at":"2026-11-23T09:00:00Z","text":"x","warn":"15m"}"#.utf8))
        }
    }
}
