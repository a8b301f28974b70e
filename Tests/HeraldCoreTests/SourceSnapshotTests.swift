import Foundation
import Testing
@testable import HeraldModel

/// What a calendar source's reader process hands back reads as it was written, and a line
/// that is not one is refused.
@Suite struct SourceSnapshotTests {
    @Test func aSnapshotAndARequestRoundTrip() throws {
        var snapshot = SourceSnapshot()
        snapshot.files = ["/cal/a.ics", "/cal/b \u{e9}.ics"]
        snapshot.folders = ["/cal"]
        snapshot.itemCount = 2
        snapshot.clean = ["/cal/a.ics"]
        snapshot.completeUntil = Instant(microseconds: 1_800_000_000_123_456)
        snapshot.took = .seconds(2)
        snapshot.problems = [.init(file: "/cal/b \u{e9}.ics", key: "4", version: "1:2:3.4", message: "line 4: \"bad\"\n")]
        let at = Instant(microseconds: 1_800_000_000_000_001)
        let alarm = CalendarAlarm(at: at, uid: "u1", recurrenceID: "2027-01-05", summary: "Tea \u{1}", location: nil, start: at + .seconds(60),
                                  allDay: true, isTodo: false, action: .audio, sound: "/s.oga", alarmIndex: 3, alarmUID: nil,
                                  componentRecurrenceID: "x", hasAttendees: true, heraldKind: "timer")
        snapshot.items = [CalendarReconciliation.Item(file: "/cal/a.ics", collection: "", uid: "u1", alarms: [alarm, alarm])]
        let back = try #require(SourceSnapshot(lines: snapshot.lines.map { Array($0.utf8) }))
        #expect(back.files == snapshot.files && back.folders == snapshot.folders && back.clean == snapshot.clean)
        #expect(back.itemCount == 2 && back.completeUntil == snapshot.completeUntil && back.took == snapshot.took)
        #expect(back.problems == snapshot.problems)
        #expect(back.items.count == 1 && back.items[0].alarms == [alarm, alarm] && back.items[0].uid == "u1")
        #expect(SourceSnapshot(lines: [Array("{\"files\":[1]}".utf8)]) == nil)
        // A header that announces more lines than come, or an item line that is not one.
        var lines = snapshot.lines.map { Array($0.utf8) }
        #expect(SourceSnapshot(lines: Array(lines.dropLast())) == nil)
        lines[1] = Array("{\"f\":\"/cal/a.ics\"}".utf8)
        #expect(SourceSnapshot(lines: lines) == nil)

        let change = CalendarWriteBack(file: "/cal/a.ics", source: "/cal", uid: "u1", component: nil, alarm: 2, alarmUID: "a",
                                       change: .snoozed(until: at), at: at)
        let requests: [SourceRequest] = [.writeBack(change), .read(now: at, grace: .minutes(60), setAside: ["/cal/x.ics": "1:2:3"], suspect: ("v f", 1))]
        for request in requests { #expect(SourceRequest(json: Array(request.json.utf8)) == request) }
        #expect(SourceRequest(json: Array("{\"op\":\"format\"}".utf8)) == nil)
    }
}
