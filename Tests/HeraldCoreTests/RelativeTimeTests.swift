import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Times in listings, as short as is unambiguous.
struct RelativeTimeTests {
    let now = ISO8601.parseInstant("2026-11-23T10:00:00Z")!  // a Monday

    @Test func phrasesSayHowFarAndWhichWay() {
        #expect(RelativeTime.phrase(now + .milliseconds(400), now: now) == "now")
        #expect(RelativeTime.phrase(now + .minutes(14), now: now) == "in 14 min")
        #expect(RelativeTime.phrase(now - .minutes(130), now: now) == "2 h 10 min ago")
    }

    @Test func clocksNameTheDayOnlyWhenItIsNotToday() {
        #expect(RelativeTime.clock(now + .minutes(5), zone: .utc, now: now) == "10:05")
        #expect(RelativeTime.clock(now + .seconds(5), zone: .utc, now: now) == "10:00:05")
        #expect(RelativeTime.clock(now + .minutes(24 * 60), zone: .utc, now: now) == "tomorrow 10:00")
        #expect(RelativeTime.clock(now + .minutes(3 * 24 * 60), zone: .utc, now: now) == "Thu 10:00")
        #expect(RelativeTime.clock(now + .minutes(8 * 24 * 60), zone: .utc, now: now) == "2026-12-01 10:00")
    }

    @Test func theDayIsTheZonesDay() throws {
        let tokyo = try TimeZoneRules.named("Asia/Tokyo")  // 10:00 Z is 19:00 there; 16:00 Z is 01:00 the next day
        #expect(RelativeTime.clock(now + .minutes(6 * 60), zone: tokyo, now: now) == "tomorrow 01:00")
    }
}

/// Ids the CLI gives jobs.
struct JobIDTests {
    /// A generator that returns the numbers it was given.
    struct Fixed: RandomNumberGenerator {
        var values: [UInt64]
        mutating func next() -> UInt64 { values.removeFirst() }
    }

    @Test func idsAreEightCharactersWithoutLookAlikes() {
        var rng = Fixed(values: [0, UInt64.max])
        let zero = JobID.random(using: &rng), ones = JobID.random(using: &rng)
        #expect(zero == "22222222")
        #expect(ones.count == 8 && Job.isValidID(ones))
        var system = SystemRandomNumberGenerator()
        let ids = (0..<200).map { _ in JobID.random(using: &system) }
        #expect(ids.allSatisfy { $0.count == 8 && !$0.contains { "01ilo".contains($0) } })
        #expect(Set(ids).count == 200)
    }
}

/// The buttons' keys go over D-Bus and come back in ActionInvoked.
struct PopupActionTests {
    @Test func keysAndLabelsAreStable() {
        let all: [PopupAction] = [.done, .gotIt, .snooze(nil), .snooze(.minutes(5)), .snooze(.minutes(60)), .track, .body]
        #expect(all.map(\.key) == ["done", "got-it", "snooze", "snooze-300", "snooze-3600", "track", "default"])
        #expect(all.map(\.label) == ["Done", "Got it", "Snooze", "5 min", "1 h", "Track", "Acknowledge"])
        #expect(all.map { PopupAction(key: $0.key) } == all)
    }

    @Test func unknownKeysAreRefused() {
        for key in ["", "Done", "snooze-", "snooze-0", "snooze--5", "snooze-x", "snooze-99999999999999", "close"] {
            #expect(PopupAction(key: key) == nil, "\(key)")
        }
    }
}

/// The wall clock the shells pass in.
struct SystemClockTests {
    @Test func readsTheRealtimeClock() {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let before = Instant(microseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
        let now = SystemClock().now
        #expect(now >= before && now - before < .seconds(5))
    }
}

/// `mktime`/`localtime_r` as the calendar evaluator needs them.
struct BrokenDownTimeTests {
    @Test func outOfRangeFieldsFoldLikeMktime() {
        var converter = TimeConverter(zone: nil)
        var tm = BrokenDownTime(year: 2026, mon: 12, mday: 32, hour: 24, min: 0, sec: 0)  // "Jan 32, 24:00" of 2027
        let t = converter.normalize(&tm)
        #expect(t == ISO8601.parseInstant("2027-02-02T00:00:00Z")!.seconds)
        #expect(tm == BrokenDownTime(year: 2027, mon: 1, mday: 2, hour: 0, min: 0, sec: 0, isdst: 0, wday: 2))
    }

    /// 02:30 on the day Berlin springs forward does not exist; glibc answers with the hour after.
    @Test func aTimeInTheDaylightSavingGapMovesOnAnHour() throws {
        var converter = TimeConverter(zone: try TimeZoneRules.named("Europe/Berlin"))
        var tm = BrokenDownTime(year: 2026, mon: 2, mday: 29, hour: 2, min: 30, sec: 0)
        let t = converter.normalize(&tm)
        #expect(t == ISO8601.parseInstant("2026-03-29T01:30:00Z")!.seconds)
        #expect(tm.hour == 3 && tm.isdst == 1)
    }
}
