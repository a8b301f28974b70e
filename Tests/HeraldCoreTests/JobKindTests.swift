import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Each kind's own rules, through the registry the rest of Herald uses.
struct JobKindTests {
    let at = ISO8601.parseInstant("2026-11-22T12:00:00Z")!

    func occurrence(_ job: Job, _ instant: Instant, log: Set<LocalDate>? = nil, snoozed: Instant? = nil) -> DueOccurrence {
        DueOccurrence(job: job, schedule: try! JobSchedule(job, localZone: .utc),
                      name: JobFileName(id: "x", occurrence: instant, snoozedUntil: snoozed),
                      habitLog: log.map { HabitLog.Contents(days: $0, problems: []) })
    }

    @Test func aDeliveryFiresItsLeadBeforeTheArrivalThenAtIt() {
        let job = Job(kind: .delivery, at: at, lead: .minutes(10))
        let schedule = try! JobSchedule(job, localZone: .utc, defaultLead: .minutes(15))
        #expect(schedule.first(now: at - .minutes(60)) == at - .minutes(10))
        #expect(schedule.next(after: at - .minutes(10), now: at - .minutes(10)) == at)
        #expect(schedule.next(after: at, now: at) == nil)
        #expect(schedule.role(of: at - .minutes(10)) == .headsUp && schedule.role(of: at) == .arrival)
        #expect(schedule.role(of: at).label == "delivery/arrival")
    }

    @Test func aHeadsUpAfterItsArrivalIsSkippedUnlessSnoozed() {
        let job = Job(kind: .delivery, at: at, lead: .minutes(10))
        #expect(job.kind.rules.skipReason(occurrence(job, at - .minutes(10)), now: at)?.note == "arrival already due")
        #expect(job.kind.rules.skipReason(occurrence(job, at - .minutes(10)), now: at - .minutes(1)) == nil)
        #expect(job.kind.rules.skipReason(occurrence(job, at - .minutes(10), snoozed: at + .minutes(5)), now: at) == nil)
    }

    @Test func aHabitDoneTodayIsSkippedUntilTomorrowAndHasButtons() {
        let job = Job(kind: .habit, every: "*-*-* 12:00", title: "Water")
        let today = LocalDate(at, in: .utc)
        let skip = job.kind.rules.skipReason(occurrence(job, at, log: [today]), now: at)
        #expect(skip?.resumeAfter == today.adding(days: 1).start(in: .utc) - Span(microseconds: 1))
        #expect(job.kind.rules.skipReason(occurrence(job, at, log: []), now: at) == nil)
        #expect(job.kind.rules.actions(for: occurrence(job, at, log: []), config: HeraldConfig()) == [.done, .snooze(nil)])
    }

    @Test func eachKindRefusesAnotherKindsFields() {
        let text = "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T10:00Z\",\"text\":\"x\",\"lead\":\"5m\"}"
        #expect(throws: JobError("field 'lead' is only for deliveries")) { try Job.decode(Array(text.utf8)) }
    }

    @Test func listingsSummariseEachKindInOneLine() {
        var config = HeraldConfig()
        config.profile.address = "1 Elm St"
        let delivery = Job(kind: .delivery, at: at, items: [.init(name: "milk", quantity: 2)])
        #expect(delivery.summary(config: config, zone: .utc, now: at - .minutes(60)) == "arrives 12:00, at 1 Elm St, 2 items: milk ×2")
        let habit = Job(kind: .habit, every: "daily", title: "Stretch", text: String(repeating: "long ", count: 20))
        let line = habit.summary(config: config, zone: .utc, now: at)
        #expect(line.count == 60 && line.hasPrefix("Stretch: long") && line.hasSuffix("…"))
    }
}

/// The popup fields: `url` (deliveries), `repeat` (reminders), `sound` (all).
struct PopupFieldTests {
    func decode(_ json: String) throws(JobError) -> Job { try Job.decode(Array(json.utf8)) }

    @Test func roundTrip() throws {
        let d = try decode(#"{"version":1,"kind":"delivery","at":"2026-11-22T09:00:00Z","url":"https://t.example/1?x=a&b","sound":"none"}"#)
        #expect(d.url == "https://t.example/1?x=a&b")
        #expect(d.sound == "none")
        let r = try decode(#"{"version":1,"kind":"reminder","at":"2026-11-22T09:00:00Z","text":"x","repeat":"5m","sound":"/tmp/a.oga"}"#)
        #expect(r.repeat == .minutes(5))
        #expect(try decode(r.encoded()) == r)
        #expect(try decode(d.encoded()) == d)
    }

    @Test(arguments: [
        (#"{"version":1,"kind":"reminder","at":"2026-11-22T09:00:00Z","text":"x","url":"https://a"}"#, "field 'url' is only for deliveries"),
        (#"{"version":1,"kind":"delivery","at":"2026-11-22T09:00:00Z","repeat":"5m"}"#, "field 'repeat' is only for reminders"),
        (#"{"version":1,"kind":"delivery","at":"2026-11-22T09:00:00Z","url":"javascript:alert(1)"}"#, "field 'url' is not an http or https URL"),
        (#"{"version":1,"kind":"reminder","at":"2026-11-22T09:00:00Z","text":"x","repeat":"0"}"#, "field 'repeat' is shorter than 1 second"),
        (#"{"version":1,"kind":"reminder","at":"2026-11-22T09:00:00Z","text":"x","repeat":"often"}"#, "field 'repeat' is not a time span"),
        (#"{"version":1,"kind":"reminder","at":"2026-11-22T09:00:00Z","text":"x","sound":"two words"}"#, "field 'sound' is not a sound-theme name"),
    ])
    func refused(json: String, expected: String) {
        do {
            _ = try decode(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
        }
    }
}
