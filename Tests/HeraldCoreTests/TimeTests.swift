import Testing
@testable import HeraldCore
@testable import HeraldModel

struct ISO8601Tests {
    @Test func parsesOffsetsAndZulu() {
        #expect(ISO8601.parseInstant("2026-11-22T13:05:00Z") == Instant(seconds: 1_795_352_700))
        #expect(ISO8601.parseInstant("2026-11-22T14:05:00+01:00") == Instant(seconds: 1_795_352_700))
        #expect(ISO8601.parseInstant("2026-11-22T08:05-05:00") == Instant(seconds: 1_795_352_700))
        #expect(ISO8601.parseInstant("2026-11-22T18:35:00+0530") == Instant(seconds: 1_795_352_700))
        #expect(ISO8601.parseInstant("2026-11-22T13:05:00.250Z") == Instant(microseconds: 1_795_352_700_250_000))
        // Each separator and fraction the byte-wise parser takes, as the one before it did.
        #expect(ISO8601.parseInstant("2026-11-22t13:05:00z") == Instant(seconds: 1_795_352_700))
        #expect(ISO8601.parseInstant("2026-11-22 13:05:00,5Z") == Instant(microseconds: 1_795_352_700_500_000))
        #expect(ISO8601.parseInstant("2026-11-22T13:05:00.12345678Z") == Instant(microseconds: 1_795_352_700_123_456))
        #expect(ISO8601.parseInstant("2026-11-22T14:05+01") == Instant(seconds: 1_795_352_700))
        #expect(ISO8601.parseInstant("2026-11-22T13:05:60Z") == Instant(seconds: 1_795_352_759))
        #expect(ISO8601.parse("2026-11-22T13:05")?.offsetSeconds == nil)
        #expect(ISO8601.parse("2026-11-22T13:05")?.civil.minute == 5)
    }

    @Test(arguments: ["2026-11-22T13:05:00", "2026-02-30T10:00Z", "2026-11-22T24:00Z", "yesterday-ish",
                      "2026-11-22T13:05:00+25:00", "2026-11-22T13:05Zjunk", "2026-1-2T10:00Z", "",
                      "2026-11-22T13:05:00.Z", "2026-11-22T13:05:00+01:60", "2026-11-22T13:05:00+1", "2026-11-22T13:05:00-",
                      "２０２６-11-22T13:05Z", "2026-11-22T13:05:00Z\u{301}", "2026-11-22X13:05Z"])
    func refusesNonInstants(text: String) {
        #expect(ISO8601.parseInstant(text) == nil)
    }

    @Test func formatsWithOffsetAndFractions() {
        let t = Instant(microseconds: 1_795_352_700_250_000)
        #expect(ISO8601.format(t, offsetSeconds: 3600) == "2026-11-22T14:05:00.250+01:00")
        #expect(ISO8601.format(t, offsetSeconds: 0, zulu: true) == "2026-11-22T13:05:00.250Z")
        #expect(ISO8601.format(Instant(seconds: 0), offsetSeconds: -19_800) == "1969-12-31T18:30:00-05:30")
        #expect(ISO8601.format(Instant(microseconds: 1), offsetSeconds: 0) == "1970-01-01T00:00:00.000001+00:00")
    }

    @Test func civilDaysRoundTrip() {
        for days: Int64 in [-719_468, -1, 0, 59, 11_016, 20_513, 2_932_896] {
            let (y, m, d) = CivilCalendar.civil(fromDays: days)
            #expect(CivilCalendar.days(year: y, month: m, day: d) == days)
        }
        #expect(CivilCalendar.weekday(days: 0) == 3)  // 1970-01-01 was a Thursday
        #expect(CivilCalendar.daysInMonth(year: 2028, month: 2) == 29)
        #expect(CivilCalendar.daysInMonth(year: 2100, month: 2) == 28)
    }
}

struct TimeZoneRulesTests {
    let berlin = try! TimeZoneRules.named("Europe/Berlin")

    @Test func offsetsFollowDaylightSaving() throws {
        #expect(berlin.offset(at: ISO8601.parseInstant("2026-01-15T12:00:00Z")!) == 3600)
        #expect(berlin.offset(at: ISO8601.parseInstant("2026-07-15T12:00:00Z")!) == 7200)
        // Far beyond the file's table: the POSIX footer rule decides.
        #expect(berlin.offset(at: ISO8601.parseInstant("2090-07-15T12:00:00Z")!) == 7200)
        #expect(berlin.offset(at: ISO8601.parseInstant("2090-12-15T12:00:00Z")!) == 3600)
        #expect(berlin.abbreviation(at: ISO8601.parseInstant("2026-07-15T12:00:00Z")!) == "CEST")
        let kolkata = try TimeZoneRules.named("Asia/Kolkata")
        #expect(kolkata.offset(at: Instant(seconds: 1_795_352_700)) == 19_800)
    }

    @Test func lordHoweShiftsByHalfAnHour() throws {
        let zone = try TimeZoneRules.named("Australia/Lord_Howe")
        #expect(zone.offset(at: ISO8601.parseInstant("2026-07-01T00:00:00Z")!) == 37_800)   // +10:30
        #expect(zone.offset(at: ISO8601.parseInstant("2026-12-01T00:00:00Z")!) == 39_600)   // +11:00
    }

    @Test func wallTimesInGapsAndOverlaps() {
        // 2026-03-29 02:30 does not exist in Berlin; 2026-10-25 02:30 happens twice.
        let gap = berlin.resolve(CivilTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30))
        #expect(gap == .skipped(after: ISO8601.parseInstant("2026-03-29T03:30:00+02:00")!))
        let twice = berlin.resolve(CivilTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30))
        #expect(twice == .repeated(earlier: ISO8601.parseInstant("2026-10-25T02:30:00+02:00")!,
                                   later: ISO8601.parseInstant("2026-10-25T02:30:00+01:00")!))
        let plain = berlin.resolve(CivilTime(year: 2026, month: 11, day: 22, hour: 14, minute: 5))
        #expect(plain == .unique(ISO8601.parseInstant("2026-11-22T13:05:00Z")!))
    }

    @Test func posixStringsWork() throws {
        let zone = try #require(TimeZoneRules(posix: "EST5EDT,M3.2.0,M11.1.0"))
        #expect(zone.offset(at: ISO8601.parseInstant("2026-07-01T12:00:00Z")!) == -14_400)
        #expect(zone.offset(at: ISO8601.parseInstant("2026-12-01T12:00:00Z")!) == -18_000)
        #expect(TimeZoneRules(posix: "not a zone") == nil)
        #expect(TimeZoneRules(posix: "<+0530>-5:30")?.offset(at: .epoch) == 19_800)
    }

    @Test func localZoneHonoursTZ() {
        #expect(TimeZoneRules.local(environment: ["TZ": "Europe/Berlin"]).identifier == "Europe/Berlin")
        #expect(TimeZoneRules.local(environment: ["TZ": ":Asia/Kolkata"]).offset(at: .epoch) == 19_800)
        #expect(TimeZoneRules.local(environment: ["TZ": ""]) == .utc)
    }

    @Test func unknownZonesAreRefused() {
        #expect(throws: TimeZoneRules.LoadError.unknownZone("Mars/Olympus")) { try TimeZoneRules.named("Mars/Olympus") }
        #expect(throws: TimeZoneRules.LoadError.unknownZone("../etc/passwd")) { try TimeZoneRules.named("../etc/passwd") }
    }
}

struct TimeInputTests {
    let berlin = try! TimeZoneRules.named("Europe/Berlin")
    let now = ISO8601.parseInstant("2026-11-22T14:00:00+01:00")!

    @Test func clockTimeMeansTodayOrTomorrow() {
        #expect(TimeInput.parse("15:30", now: now, zone: berlin) == ISO8601.parseInstant("2026-11-22T15:30:00+01:00"))
        #expect(TimeInput.parse("09:00", now: now, zone: berlin) == ISO8601.parseInstant("2026-11-23T09:00:00+01:00"))
        #expect(TimeInput.parse("14:00", now: now, zone: berlin) == ISO8601.parseInstant("2026-11-23T14:00:00+01:00"))
        #expect(TimeInput.parse("14:00:30", now: now, zone: berlin) == ISO8601.parseInstant("2026-11-22T14:00:30+01:00"))
    }

    @Test func isoWithoutOffsetIsLocal() {
        #expect(TimeInput.parse("2026-12-24T18:00", now: now, zone: berlin) == ISO8601.parseInstant("2026-12-24T18:00:00+01:00"))
        #expect(TimeInput.parse("2026-12-24 18:00:00Z", now: now, zone: berlin) == ISO8601.parseInstant("2026-12-24T18:00:00Z"))
    }

    @Test(arguments: ["25:00", "9:5", "noon", "14:60", "1400", "", "14:00:61"])
    func refusesOtherText(text: String) {
        #expect(TimeInput.parse(text, now: now, zone: berlin) == nil)
    }
}
