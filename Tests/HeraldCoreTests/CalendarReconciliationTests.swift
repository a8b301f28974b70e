import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// The calendar reconciliation (which jobs to submit, replace and remove for a source) and the
/// shares of the spool each source, collection and file has: pure, driven with a manual clock.
@Suite struct CalendarReconciliationTests {
    static let now = ISO8601.parseInstant("2026-12-01T08:00:00Z")!
    static let source = HeraldConfig.CalendarSource(path: "/cal/shared", writeBack: true)

    static func alarm(_ uid: String, in seconds: Int64, summary: String = "Meeting") -> CalendarAlarm {
        let at = now + .seconds(seconds)
        return CalendarAlarm(at: at, uid: uid, recurrenceID: nil, summary: summary, location: nil, start: at + .seconds(600), allDay: false,
                             isTodo: false, action: .display, sound: nil, alarmIndex: 0, alarmUID: nil, componentRecurrenceID: nil,
                             hasAttendees: false)
    }

    /// One item per file, in the collection `collection`.
    static func item(_ uid: String, in seconds: Int64, collection: String = "family") -> CalendarReconciliation.Item {
        CalendarReconciliation.Item(file: "/cal/shared/\(collection)/\(uid).ics", collection: collection, uid: uid,
                                    alarms: [alarm(uid, in: seconds)])
    }

    func plan(_ items: [CalendarReconciliation.Item], existing: [String: CalendarReconciliation.Existing] = [:],
              share: Int = 100, spool: Int = 1000, now: Instant = now) -> CalendarReconciliation.Plan {
        CalendarReconciliation.plan(source: Self.source, items: items, existing: existing, handled: [:], now: now, grace: .minutes(60),
                                    localZone: .utc, room: .init(share: share, spool: spool))
    }

    static func id(_ item: CalendarReconciliation.Item) -> String {
        CalendarPlanner.jobID(source: source.path, file: item.file, uid: item.uid)
    }

    @Test func aSourceWithinItsShareHasEveryItemPlanned() {
        let items = (0..<10).map { Self.item("i\($0)", in: Int64(3600 + $0)) }
        let p = plan(items)
        #expect(p.submit.count == 10 && p.replace.isEmpty && p.remove.isEmpty)
        #expect(p.wanted == 10 && p.planned == 10 && p.overShare == 0 && p.spoolFull == 0)
    }

    /// A flood of 1,001 one-item files in a shared collection, with the share at 500: the
    /// nearest 500 are planned, and a reminder you add there due sooner than the flood is one.
    @Test func overItsShareTheItemsNearestInTimeArePlanned() {
        var items = (0..<1001).map { Self.item("flood-\($0)", in: 86_400 + Int64($0)) }
        items.append(Self.item("herald-pills", in: 20))
        let p = plan(items, share: 500)
        #expect(p.submit.count == 500 && p.overShare == 502 && p.wanted == 1002)
        let planned = Set(p.submit.compactMap(\.job.id))
        #expect(planned.contains(Self.id(items.last!)), "the reminder due in 20 s is planned")
        #expect(planned.contains(Self.id(items[0])) && !planned.contains(Self.id(items[1000])), "the flood's nearest, not its furthest")
    }

    /// One file holding thousands of items cannot take its collection's room from the others.
    @Test func oneFileOrCollectionCannotTakeTheRoomOfTheOthers() {
        // 5,000 items in one file, due soonest; 30 files of one item each in the same
        // collection; 20 items in another collection.
        var items = (0..<5000).map { k in
            CalendarReconciliation.Item(file: "/cal/shared/family/flood.ics", collection: "family", uid: "f\(k)", alarms: [Self.alarm("f\(k)", in: 60 + Int64(k))])
        }
        items += (0..<30).map { Self.item("own\($0)", in: 7200 + Int64($0)) }
        items += (0..<20).map { Self.item("work\($0)", in: 9000 + Int64($0), collection: "work") }
        let p = plan(items, share: 200)
        let planned = Set(p.submit.compactMap(\.job.id))
        #expect(p.submit.count == 200)
        #expect(items.filter { $0.collection == "work" }.allSatisfy { planned.contains(Self.id($0)) }, "the other collection keeps its 20")
        #expect(items.filter { $0.uid.hasPrefix("own") }.allSatisfy { planned.contains(Self.id($0)) }, "the other files keep theirs")
        #expect(items.filter { $0.file.hasSuffix("flood.ics") }.filter { planned.contains(Self.id($0)) }.count == 150)
    }

    @Test func fairSharesGiveWhatIsNeededAndSplitTheRest() {
        #expect(CalendarShares.fair([1, 5, 100], room: 30) == [1, 5, 24])
        #expect(CalendarShares.fair([10, 10, 10], room: 30) == [10, 10, 10])
        #expect(CalendarShares.fair([1, 1, 1, 1], room: 2) == [0, 0, 0, 0])  // the rest goes by time
        #expect(CalendarShares.fair([], room: 5) == [])
        #expect(CalendarShares.sourceShare(maxJobs: 200_000, sources: 1, limit: 5000) == 5000)
        #expect(CalendarShares.sourceShare(maxJobs: 1000, sources: 1, limit: 5000) == 500)
        #expect(CalendarShares.sourceShare(maxJobs: 1000, sources: 4, limit: 5000) == 125)
    }

    /// New jobs never take more than the spool can still take: the rest wait for room, and
    /// nothing is submitted that the intake would refuse into failed/.
    @Test func newJobsWaitForRoomInTheSpoolInsteadOfBeingRefused() {
        let items = (0..<50).map { Self.item("i\($0)", in: 3600 + Int64($0)) }
        let p = plan(items, share: 100, spool: 20)
        #expect(p.submit.count == 20 && p.spoolFull == 30)
        #expect(p.submit.map { $0.job.alarms[0].at } == items.prefix(20).map { $0.alarms[0].at }, "the nearest first")
    }

    /// A job already planned stays (no rewrite when its document is the same), one whose item
    /// changed is replaced, and one whose item is gone, or pushed out of the share, is removed.
    @Test func existingJobsAreKeptReplacedOrRemoved() throws {
        let same = Self.item("same", in: 3600), moved = Self.item("moved", in: 7200), gone = Self.item("gone", in: 100)
        let first = plan([same, moved, gone])
        let written = Dictionary(uniqueKeysWithValues: first.submit.map { ($0.job.id!, $0) })
        func existing(_ item: CalendarReconciliation.Item) -> (String, CalendarReconciliation.Existing) {
            let planned = written[Self.id(item)]!
            return (Self.id(item), .init(name: JobFileName(id: Self.id(item), occurrence: planned.job.alarms[0].at), written: planned.hash))
        }
        var movedNow = moved
        movedNow.alarms = [Self.alarm("moved", in: 9000)]
        let second = plan([same, movedNow], existing: Dictionary(uniqueKeysWithValues: [existing(same), existing(moved), existing(gone)]))
        #expect(second.submit.isEmpty)
        #expect(second.replace.map(\.current.id) == [Self.id(moved)])
        #expect(second.remove.map(\.id) == [Self.id(gone)])
        // Pushed out of a share of 1 by an item due sooner: the job goes, the sooner one comes.
        let third = plan([same, Self.item("sooner", in: 60)], existing: Dictionary(uniqueKeysWithValues: [existing(same)]), share: 1)
        #expect(third.remove.map(\.id) == [Self.id(same)] && third.submit.count == 1 && third.overShare == 1)
    }

    /// A snoozed job keeps its snooze and its room, whatever else the calendar gains.
    @Test func aSnoozedJobKeepsItsPlace() {
        let snoozed = Self.item("snoozed", in: 86_400)
        let id = Self.id(snoozed)
        let name = JobFileName(id: id, occurrence: Self.now - .seconds(60), snoozedUntil: Self.now + .seconds(600))
        let flood = (0..<10).map { Self.item("f\($0)", in: 60 + Int64($0)) }
        let p = plan([snoozed] + flood, existing: [id: .init(name: name, written: nil)], share: 5)
        #expect(p.remove.isEmpty && p.replace.isEmpty)
        #expect(p.submit.count == 4 && p.planned == 5)
    }

    /// An item whose texts do not fit a job file is cut to fit; one that cannot be a job at all
    /// is reported alone, and every other item is planned.
    @Test func anItemThatCannotBeAJobIsReportedAlone() {
        var long = Self.item("long", in: 3600)
        long.alarms = [Self.alarm("long", in: 3600, summary: String(repeating: "\u{1}", count: 20_000))]
        var broken = Self.item("broken", in: 3700)
        broken.alarms = (0..<32).map { k in Self.alarm("broken", in: 3700 + Int64(k), summary: String(repeating: "\u{1}", count: 499) + String(k)) }
        for k in broken.alarms.indices { broken.alarms[k].location = String(repeating: "\u{2}", count: 499) }
        let p = plan([long, broken, Self.item("fine", in: 3800)])
        #expect(p.submit.count == 2, "\(p.problems)")
        #expect(p.problems.map(\.uid) == ["broken"])
        #expect(p.submit.first { $0.job.calendar?.uid == "long" }.map { $0.document.utf8.count <= Job.maximumFileSize } == true)
    }

    /// A dense item (every minute) is read over a shorter window instead of being skipped.
    @Test func aRuleEveryMinuteIsPlannedFromTheNextDay() throws {
        let text = "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:herald-water\r\nSUMMARY:Water\r\nDTSTART:20261130T000000Z\r\nDUE:20261130T000000Z\r\n"
            + "RRULE:FREQ=MINUTELY\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;RELATED=END:PT0S\r\nEND:VALARM\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        let file = try ICalendarFile(path: "w.ics", bytes: Array(text.utf8))
        let now = Self.now
        let whole = file.alarms(from: now - .seconds(7200), to: now + CalendarPlanner.horizon, localZone: .utc)
        #expect(whole.alarms.isEmpty && whole.problems.count == 1, "over an item's budget for the whole window")
        let planned = file.plannedAlarms(from: now - .seconds(7200), to: now + CalendarPlanner.horizon, now: now, localZone: .utc)
        #expect(planned.problems.isEmpty)
        #expect(planned.completeUntil == now + .seconds(86_400))
        #expect(planned.alarms.first?.at == now - .seconds(3600) && planned.alarms.count == 25 * 60)
        let item = CalendarReconciliation.Item(file: "/cal/shared/w.ics", collection: "", uid: "herald-water", alarms: planned.alarms)
        let p = plan([item])
        let job = try #require(p.submit.first?.job)
        // Of the past alarms, one is caught up (the latest); then the next ones.
        #expect(job.alarms.first?.at == now - .seconds(60) && job.alarms[1].at == now && job.alarms.count == CalendarPlanner.maximumEntries)
        #expect(p.refillAt == job.alarms.last?.at)
    }
}
