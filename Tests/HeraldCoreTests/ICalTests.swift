import Foundation
@testable import HeraldCore
@testable import HeraldModel
import Testing

/// iCalendar reading, recurrence and write-back, on examples worked by hand or taken from
/// RFC 5545 §3.8.5.3 (its expected dates are the RFC's own). The wide comparison with an
/// independent implementation is `CalendarOracleTests`.
@Suite struct ICalTests {
    let berlin = try! TimeZoneRules.named("Europe/Berlin")

    func calendar(_ body: String, crlf: Bool = false) throws -> ICalendarFile {
        let text = "BEGIN:VCALENDAR\nVERSION:2.0\n" + body + "END:VCALENDAR\n"
        return try ICalendarFile(path: "t.ics", bytes: Array((crlf ? text.replacingOccurrences(of: "\n", with: "\r\n") : text).utf8))
    }

    /// The starts of an event's occurrences (an alarm at each start), in `zone`.
    func starts(_ rule: String, dtstart: String, extra: String = "", from: String, to: String, zone: TimeZoneRules) throws -> [String] {
        let file = try calendar("BEGIN:VEVENT\nUID:r\nDTSTART;\(dtstart)\n\(rule)\n\(extra)BEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:PT0S\nEND:VALARM\nEND:VEVENT\n")
        let (alarms, problems) = file.alarms(from: ISO8601.parseInstant(from)!, to: ISO8601.parseInstant(to)!, localZone: .utc)
        #expect(problems.isEmpty, "\(problems)")
        return alarms.map { ISO8601.format($0.at, in: zone) }
    }

    @Test func rfcWeeklyEveryOtherWeekDependsOnTheWeekStart() throws {
        let ny = try TimeZoneRules.named("America/New_York")
        let monday = try starts("RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", dtstart: "TZID=America/New_York:19970805T090000",
                                from: "1997-01-01T00:00:00Z", to: "1998-01-01T00:00:00Z", zone: ny)
        #expect(monday.map { String($0.prefix(10)) } == ["1997-08-05", "1997-08-10", "1997-08-19", "1997-08-24"])
        let sunday = try starts("RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", dtstart: "TZID=America/New_York:19970805T090000",
                                from: "1997-01-01T00:00:00Z", to: "1998-01-01T00:00:00Z", zone: ny)
        #expect(sunday.map { String($0.prefix(10)) } == ["1997-08-05", "1997-08-17", "1997-08-19", "1997-08-31"])
        #expect(monday.first == "1997-08-05T09:00:00-04:00")
    }

    /// (The RFC starts it on 29 September, not an instance: a set it calls undefined; here it starts on one.)
    @Test func rfcLastWorkDayOfTheMonthWithBySetPos() throws {
        let ny = try TimeZoneRules.named("America/New_York")
        let days = try starts("RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=4", dtstart: "TZID=America/New_York:19970930T090000",
                              from: "1997-01-01T00:00:00Z", to: "1999-01-01T00:00:00Z", zone: ny)
        #expect(days == ["1997-09-30T09:00:00-04:00", "1997-10-31T09:00:00-05:00", "1997-11-28T09:00:00-05:00", "1997-12-31T09:00:00-05:00"])
    }

    @Test func rfcMondayToFridayEveryOtherWeekUntil() throws {
        let ny = try TimeZoneRules.named("America/New_York")
        let days = try starts("RRULE:FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR", dtstart: "TZID=America/New_York:19970901T090000",
                              from: "1997-01-01T00:00:00Z", to: "1999-01-01T00:00:00Z", zone: ny)
        #expect(days.count == 25)  // the RFC lists 25
        #expect(days.prefix(4).map { String($0.prefix(10)) } == ["1997-09-01", "1997-09-03", "1997-09-05", "1997-09-15"])
        #expect(days.last?.hasPrefix("1997-12-22") == true)
    }

    @Test func anInstanceInADaylightSavingGapIsNotAnInstanceAndIsNotCounted() throws {
        // Berlin skips 02:00–03:00 on 29 March 2026.
        let days = try starts("RRULE:FREQ=DAILY;COUNT=3", dtstart: "TZID=Europe/Berlin:20260328T023000",
                              from: "2026-03-01T00:00:00Z", to: "2026-04-30T00:00:00Z", zone: berlin)
        #expect(days == ["2026-03-28T02:30:00+01:00", "2026-03-30T02:30:00+02:00", "2026-03-31T02:30:00+02:00"])
    }

    @Test func foldedLinesEscapesAndAlarmsRelativeToTheEnd() throws {
        let file = try calendar("""
            BEGIN:VEVENT
            UID:fold
            SUMMARY:Dentist\\, Dr. Who\\nRoom 4 with a name long enough to be fol
             ded by the writer
            LOCATION:Elm Street Clinic
            DTSTART;TZID=Europe/Berlin:20261124T143000
            DURATION:PT45M
            BEGIN:VALARM
            ACTION:DISPLAY
            TRIGGER;RELATED=END:-PT5M
            REPEAT:2
            DURATION:PT2M
            END:VALARM
            END:VEVENT

            """, crlf: true)
        let (alarms, _) = file.alarms(from: ISO8601.parseInstant("2026-11-01T00:00:00Z")!, to: ISO8601.parseInstant("2026-12-01T00:00:00Z")!, localZone: .utc)
        #expect(alarms.map { ISO8601.format($0.at, in: berlin) } == ["2026-11-24T15:10:00+01:00", "2026-11-24T15:12:00+01:00", "2026-11-24T15:14:00+01:00"])
        #expect(alarms.first?.summary == "Dentist, Dr. Who\nRoom 4 with a name long enough to be folded by the writer")
        #expect(alarms.first?.location == "Elm Street Clinic")
        #expect(file.document.crlf)
    }

    @Test func outlookTimeZonesComeFromTheirOwnRules() throws {
        // A zone only this calendar knows: +03:00, and +04:00 from the last Sunday of March at 02:00.
        let zone = """
            BEGIN:VTIMEZONE
            TZID:Herald Standard Time
            BEGIN:STANDARD
            DTSTART:16011028T030000
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
            TZOFFSETFROM:+0400
            TZOFFSETTO:+0300
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:16010325T020000
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
            TZOFFSETFROM:+0300
            TZOFFSETTO:+0400
            END:DAYLIGHT
            END:VTIMEZONE

            """
        let file = try calendar(zone + "BEGIN:VEVENT\nUID:o\nDTSTART;TZID=Herald Standard Time:20260301T090000\nRRULE:FREQ=MONTHLY;COUNT=2\n"
                                + "BEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:PT0S\nEND:VALARM\nEND:VEVENT\n")
        let (alarms, problems) = file.alarms(from: ISO8601.parseInstant("2026-01-01T00:00:00Z")!, to: ISO8601.parseInstant("2027-01-01T00:00:00Z")!, localZone: .utc)
        #expect(problems.isEmpty)
        #expect(alarms.map { ISO8601.format($0.at, offsetSeconds: 0, zulu: true) } == ["2026-03-01T06:00:00Z", "2026-04-01T05:00:00Z"])
        let unknown = try calendar("BEGIN:VEVENT\nUID:u\nDTSTART;TZID=Nowhere/Special:20260301T090000\nBEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:PT0S\nEND:VALARM\nEND:VEVENT\n")
        let bad = unknown.alarms(from: .epoch, to: ISO8601.parseInstant("2030-01-01T00:00:00Z")!, localZone: .utc)
        #expect(bad.problems.map(\.description) == ["line 5: unknown time zone 'Nowhere/Special' (not in the zone database and no VTIMEZONE)"])
    }

    /// A line that cannot be read costs its item, never the file: the item is reported with the
    /// line and skipped, a line outside the items is skipped, and every other item still alarms.
    @Test func malformedLinesCostTheirItemNotTheFile() throws {
        let good = "BEGIN:VEVENT\nUID:good\nDTSTART:20270105T090000Z\nBEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:PT0S\nEND:VALARM\nEND:VEVENT\n"
        func problems(_ text: String, _ tail: [UInt8] = []) throws -> [String] {
            let file = try ICalendarFile(path: "x", bytes: Array(text.utf8) + tail)
            let read = file.alarms(from: .epoch, to: ISO8601.parseInstant("2028-01-01T00:00:00Z")!, localZone: .utc)
            #expect(read.alarms.map(\.uid) == ["good"], "\(text)")
            return read.problems.map(\.description)
        }
        #expect(try problems("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:b\nEXDATE\nEND:VEVENT\n" + good + "END:VCALENDAR\n")
                == ["line 4: no ':' in the EXDATE line: the VEVENT 'b' is skipped"])
        #expect(try problems("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:b\n" + good + "END:VCALENDAR\n")
                == ["line 2: BEGIN:VEVENT is never ended (BEGIN:VEVENT at line 4 follows it): the VEVENT 'b' is skipped"])
        #expect(try problems("BEGIN:VCALENDAR\n" + good + "BEGIN:VEVENT\nUID:b\nEND:VCALENDAR\n")
                == ["line 10: BEGIN:VEVENT is never ended (END:VCALENDAR at line 12 closes it): the VEVENT 'b' is skipped"])
        #expect(try problems("BEGIN:VCALENDAR\n" + good) == ["line 1: BEGIN:VCALENDAR is never ended (line skipped)"])
        #expect(try problems("BEGIN:VCALENDAR\n" + good + "X-APPLE-LOCATION;X-TITLE=a\\;b:geo\nEND:X\nEND:VCALENDAR\n")
                == ["line 10: bad parameter in X-APPLE-LOCATION (line skipped)", "line 11: END:X without a BEGIN (line skipped)"])
        // Latin-1 (Windows-1252) as old Outlook and Lotus write it is read so; the file is never rewritten.
        let latin1 = try ICalendarFile(path: "x", bytes: Array("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:b\nDTSTART:20270105T090000Z\nSUMMARY:St".utf8)
                                       + [0xE4, 0x64, 0x61, 0x20, 0x80, 0x0A] + Array("END:VEVENT\nEND:VCALENDAR\n".utf8))
        #expect(latin1.items.count == 1 && latin1.document.lossy && latin1.document.lines[4] == "SUMMARY:Städa €")
        // A line that says nothing about times is skipped alone (node-ical's ORGANIZER with '=').
        #expect(try problems("BEGIN:VCALENDAR\n" + good.replacingOccurrences(of: "UID:good\n", with: "UID:good\nORGANIZER=\"mailto:a@b\"\n") + "END:VCALENDAR\n")
                == ["line 4: no ':' in the ORGANIZER line (line skipped)"])
        // Lotus Notes ends its lines with CR alone.
        #expect(try problems("BEGIN:VCALENDAR\r" + good.replacingOccurrences(of: "\n", with: "\r") + "END:VCALENDAR\r") == [])
        // A bare VEVENT is read as the calendar it came from.
        #expect(try problems(good) == [])
        #expect(throws: ICalError(line: 1, "no BEGIN:VCALENDAR")) { try ICalendarFile(path: "x", bytes: Array("SUMMARY:x\n".utf8)) }
    }

    static let khalItem = """
        BEGIN:VCALENDAR\r
        BEGIN:VEVENT\r
        SUMMARY:Dentist\r
        DTSTART:20261124T133000Z\r
        UID:K1\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        DESCRIPTION:None\r
        TRIGGER:-PT15M\r
        END:VALARM\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test func dismissAddsAcknowledgedAndAUIDAndChangesNothingElse() throws {
        let change = CalendarWriteBack(file: "k.ics", uid: "K1", component: nil, alarm: 0, alarmUID: nil, change: .acknowledged,
                                       at: ISO8601.parseInstant("2026-11-24T13:16:02Z")!)
        let (lines, crlf) = try #require(try change.apply(to: Array(Self.khalItem.utf8), localZone: .utc, newUID: { "herald-1" }))
        #expect(crlf)
        let before = Self.khalItem.components(separatedBy: "\r\n").dropLast()
        var expected = Array(before)
        // Thunderbird's X-MOZ-LASTACK on the event, before its alarm; RFC 9074's on the alarm.
        expected.insert("X-MOZ-LASTACK:20261124T131602Z", at: 2)
        expected.insert("UID:herald-1", at: 7)
        expected.insert("ACKNOWLEDGED:20261124T131602Z", at: 11)
        #expect(lines == expected)
    }

    static let todoItem = """
        BEGIN:VCALENDAR\r
        BEGIN:VTODO\r
        UID:T1\r
        SUMMARY:Return the library books\r
        DUE:20261124T170000Z\r
        STATUS:NEEDS-ACTION\r
        BEGIN:VALARM\r
        UID:T1-alarm\r
        ACTION:DISPLAY\r
        DESCRIPTION:Return the library books\r
        TRIGGER;RELATED=END:PT0S\r
        END:VALARM\r
        END:VTODO\r
        END:VCALENDAR\r

        """

    /// Done on a to-do's popup completes it for every client: RFC 5545's STATUS, COMPLETED and
    /// PERCENT-COMPLETE, with the alarm acknowledged both ways; it then has no alarms anywhere.
    @Test func doneCompletesAToDo() throws {
        let at = ISO8601.parseInstant("2026-11-24T17:00:03Z")!
        let done = CalendarWriteBack(file: "t.ics", uid: "T1", component: nil, alarm: 0, alarmUID: "T1-alarm", change: .completed, at: at)
        let (lines, _) = try #require(try done.apply(to: Array(Self.todoItem.utf8), localZone: .utc, newUID: { "x" }))
        #expect(lines.contains("STATUS:COMPLETED") && !lines.contains("STATUS:NEEDS-ACTION"))
        #expect(lines.contains("COMPLETED:20261124T170003Z") && lines.contains("PERCENT-COMPLETE:100"))
        #expect(lines.contains("X-MOZ-LASTACK:20261124T170003Z") && lines.contains("ACKNOWLEDGED:20261124T170003Z"))
        #expect(lines.firstIndex(of: "PERCENT-COMPLETE:100")! < lines.firstIndex(of: "BEGIN:VALARM")!)
        let completed = try ICalendarFile(path: "t.ics", bytes: Array(lines.joined(separator: "\r\n").utf8))
        #expect(completed.alarms(from: .epoch, to: at + .minutes(600), localZone: .utc).alarms.isEmpty)
        // A recurring to-do goes on: Done acknowledges the occurrence, its STATUS stays.
        let recurring = Self.todoItem.replacingOccurrences(of: "STATUS:NEEDS-ACTION\r\n", with: "STATUS:NEEDS-ACTION\r\nDTSTART:20261124T170000Z\r\nRRULE:FREQ=DAILY\r\n")
        let again = CalendarWriteBack(file: "t.ics", uid: "T1", component: nil, alarm: 0, alarmUID: "T1-alarm", recurrenceID: "2026-11-24T17:00:00Z",
                                      change: .completed, at: at)
        let (kept, _) = try #require(try again.apply(to: Array(recurring.utf8), localZone: .utc, newUID: { "x" }))
        #expect(kept.contains("STATUS:NEEDS-ACTION") && !kept.contains("PERCENT-COMPLETE:100") && kept.contains("ACKNOWLEDGED:20261124T170003Z"))
        let next = try ICalendarFile(path: "t.ics", bytes: Array(kept.joined(separator: "\r\n").utf8))
        #expect(next.alarms(from: .epoch, to: at + .minutes(24 * 60), localZone: .utc).alarms.map(\.at) == [ISO8601.parseInstant("2026-11-25T17:00:00Z")!])
    }

    /// A calendar from a server others write to may carry any number of Thunderbird snoozes:
    /// only the last 64 of an item are read (here lines 4936 to 4999: 15:22:16 on).
    @Test func thunderbirdSnoozesAreBounded() throws {
        let lines = (0..<5000).map { k in "X-MOZ-SNOOZE-TIME-\(k):20261124T\(String(format: "%02d%02d%02d", 14 + k / 3600, k / 60 % 60, k % 60))Z" }
        let text = Self.khalItem.replacingOccurrences(of: "SUMMARY:Dentist\r\n", with: "SUMMARY:Dentist\r\n" + lines.joined(separator: "\r\n") + "\r\n")
        let read = try ICalendarFile(path: "k.ics", bytes: Array(text.utf8)).alarms(from: .epoch, to: ISO8601.parseInstant("2026-11-25T00:00:00Z")!, localZone: .utc)
        #expect(read.problems.isEmpty)
        let snoozes = read.alarms.filter { $0.at > ISO8601.parseInstant("2026-11-24T13:30:00Z")! }
        #expect(snoozes.count == 64 && snoozes.first?.at == ISO8601.parseInstant("2026-11-24T15:22:16Z"), "\(snoozes.count) \(String(describing: snoozes.first?.at))")
    }

    /// A sync that changes the item while Herald writes to it wins, and Herald's change is made
    /// again on the new version: both are in the file, nothing is lost.
    @Test func aSyncDuringAWriteBackWinsAndTheChangeIsAppliedAgain() throws {
        let dir = TemporaryDirectory()
        dir.write("k.ics", Self.khalItem, mode: 0o644)
        let path = dir.path + "/k.ics"
        let change = CalendarWriteBack(file: path, uid: "K1", component: nil, alarm: 0, alarmUID: nil, change: .acknowledged,
                                       at: ISO8601.parseInstant("2026-11-24T13:16:02Z")!)
        var syncs = 0
        let written = try change.write(in: SourceFolder(source: dir.path), localZone: .utc) {
            guard syncs == 0 else { return }
            syncs += 1
            // vdirsyncer brings the server's version: the summary edited on the phone.
            let synced = Self.khalItem.replacingOccurrences(of: "SUMMARY:Dentist", with: "SUMMARY:Dentist (moved to Room 4)")
            try! synced.write(toFile: path + ".sync", atomically: false, encoding: .utf8)
            rename(path + ".sync", path)
        }
        #expect(written && syncs == 1)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("SUMMARY:Dentist (moved to Room 4)\r\n") && text.contains("ACKNOWLEDGED:20261124T131602Z\r\n"), "\(text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["k.ics"], "no temporary file left")
        var st = stat()
        stat(path, &st)
        #expect(st.st_mode & 0o777 == 0o644, "the synced file's mode is kept")
    }

    /// What Thunderbird writes is read: X-MOZ-LASTACK handles every alarm up to then,
    /// X-MOZ-SNOOZE-TIME alarms once more then; a snooze Herald writes carries both conventions
    /// (a recurring item's snooze names its occurrence in microseconds).
    @Test func thunderbirdsAcknowledgementAndSnoozeAreReadAndWritten() throws {
        let alarm = ISO8601.parseInstant("2026-11-24T13:15:00Z")!
        func alarms(_ text: String) throws -> [Instant] {
            try ICalendarFile(path: "k.ics", bytes: Array(text.utf8)).alarms(from: .epoch, to: alarm + .minutes(600), localZone: .utc).alarms.map(\.at)
        }
        #expect(try alarms(Self.khalItem) == [alarm])
        let acked = Self.khalItem.replacingOccurrences(of: "SUMMARY:Dentist\r\n", with: "SUMMARY:Dentist\r\nX-MOZ-LASTACK:20261124T131700Z\r\n")
        #expect(try alarms(acked) == [])
        let snoozed = acked.replacingOccurrences(of: "SUMMARY:Dentist\r\n", with: "SUMMARY:Dentist\r\nX-MOZ-SNOOZE-TIME:20261124T132500Z\r\n")
        #expect(try alarms(snoozed) == [ISO8601.parseInstant("2026-11-24T13:25:00Z")!])
        // Dismissing Thunderbird's snooze clears it.
        let dismiss = CalendarWriteBack(file: "k.ics", uid: "K1", component: nil, alarm: 0, alarmUID: nil, change: .acknowledged,
                                        at: ISO8601.parseInstant("2026-11-24T13:25:02Z")!)
        let (dismissed, _) = try #require(try dismiss.apply(to: Array(snoozed.utf8), localZone: .utc, newUID: { "herald-1" }))
        #expect(!dismissed.contains { $0.hasPrefix("X-MOZ-SNOOZE-TIME") } && dismissed.filter { $0.hasPrefix("X-MOZ-LASTACK:") } == ["X-MOZ-LASTACK:20261124T132502Z"])
        #expect(try alarms(dismissed.joined(separator: "\r\n")) == [])
        // Herald's snooze of a recurring occurrence: X-MOZ-SNOOZE-TIME-<µs> beside RFC 9074's alarm; read once.
        let daily = Self.khalItem.replacingOccurrences(of: "UID:K1\r\n", with: "UID:K1\r\nRRULE:FREQ=DAILY\r\n")
        let snooze = CalendarWriteBack(file: "k.ics", uid: "K1", component: nil, alarm: 0, alarmUID: nil, recurrenceID: "2026-11-24T13:30:00Z",
                                       change: .snoozed(until: alarm + .minutes(10)), at: alarm + .seconds(5))
        var uids = ["herald-a", "herald-b"].makeIterator()
        let (lines, _) = try #require(try snooze.apply(to: Array(daily.utf8), localZone: .utc, newUID: { uids.next()! }))
        #expect(lines.contains("X-MOZ-SNOOZE-TIME-1795527000000000:20261124T132500Z"), "\(lines)")
        #expect(lines.contains("X-MOZ-LASTACK:20261124T131505Z"))
        let text = lines.joined(separator: "\r\n")
        #expect(try alarms(text).filter { $0 < alarm + .minutes(60) } == [alarm + .minutes(10)])
    }

    @Test func snoozeAddsARelatedAlarmAndASecondSnoozeMovesIt() throws {
        let at = ISO8601.parseInstant("2026-11-24T13:16:00Z")!
        var uids = ["herald-a", "herald-b", "herald-c"].makeIterator()
        let first = CalendarWriteBack(file: "k.ics", uid: "K1", component: nil, alarm: 0, alarmUID: nil,
                                      change: .snoozed(until: at + .minutes(5)), at: at)
        let (lines, _) = try #require(try first.apply(to: Array(Self.khalItem.utf8), localZone: .utc, newUID: { uids.next()! }))
        let text = lines.joined(separator: "\n")
        #expect(text.contains("UID:herald-a\nACTION:DISPLAY\nDESCRIPTION:None\nTRIGGER:-PT15M\nACKNOWLEDGED:20261124T131600Z\nEND:VALARM\n"
                              + "BEGIN:VALARM\nUID:herald-b\nRELATED-TO;RELTYPE=SNOOZE:herald-a\nTRIGGER;VALUE=DATE-TIME:20261124T132100Z\n"
                              + "ACTION:DISPLAY\nDESCRIPTION:None\nEND:VALARM\nEND:VEVENT"), "\(text)")
        // The file now alarms at the snooze's end only.
        let snoozed = try ICalendarFile(path: "k.ics", bytes: Array(text.utf8))
        #expect(snoozed.alarms(from: .epoch, to: at + .minutes(60), localZone: .utc).alarms.map(\.at) == [at + .minutes(5)])
        // Snoozing the original again (its UID now known) moves the same snooze alarm.
        let again = CalendarWriteBack(file: "k.ics", uid: "K1", component: nil, alarm: 0, alarmUID: "herald-a",
                                      change: .snoozed(until: at + .minutes(20)), at: at + .minutes(5))
        let (moved, _) = try #require(try again.apply(to: Array(text.utf8), localZone: .utc, newUID: { uids.next()! }))
        #expect(moved.filter { $0 == "BEGIN:VALARM" }.count == 2)
        #expect(moved.contains("TRIGGER;VALUE=DATE-TIME:20261124T133600Z"))
        #expect(!moved.contains("TRIGGER;VALUE=DATE-TIME:20261124T132100Z"))
        // An item that is gone: nothing to write.
        let gone = CalendarWriteBack(file: "k.ics", uid: "other", component: nil, alarm: 0, alarmUID: nil, change: .acknowledged, at: at)
        #expect(try gone.apply(to: Array(Self.khalItem.utf8), localZone: .utc, newUID: { "x" }) == nil)
    }

    @Test func thePlannerListsAnItemsAlarmsFromSinceAndAtMost32() throws {
        let file = try calendar("BEGIN:VEVENT\nUID:d\nSUMMARY:Stretch\nDTSTART:20261101T080000Z\nRRULE:FREQ=DAILY\n"
                                + "BEGIN:VALARM\nACTION:AUDIO\nTRIGGER:-PT5M\nEND:VALARM\nEND:VEVENT\n")
        let now = ISO8601.parseInstant("2026-11-10T12:00:00Z")!
        let alarms = file.alarms(from: now - .seconds(86_400), to: now + CalendarPlanner.horizon, localZone: .utc).alarms
        let source = HeraldConfig.CalendarSource(path: "/cal", writeBack: true)
        let (job, truncated) = try #require(CalendarPlanner.job(for: alarms, file: "/cal/d.ics", source: source, since: now, localZone: .utc))
        #expect(truncated)
        #expect(job.alarms.count == CalendarPlanner.maximumEntries)
        #expect(job.alarms.first?.at == ISO8601.parseInstant("2026-11-11T07:55:00Z"))
        #expect(job.alarms.first?.sound == "alarm-clock-elapsed")
        #expect(job.id == CalendarPlanner.jobID(source: "/cal", file: "/cal/d.ics", uid: "d"))
        #expect(job.id?.count == 20 && job.id?.hasPrefix("cal-") == true)
        // The job file reads back the same, and fires at its listed alarms.
        let decoded = try Job.decode(Array(job.encoded().utf8))
        #expect(decoded == job)
        let schedule = try JobSchedule(decoded, localZone: .utc)
        #expect(schedule.first(now: now) == job.alarms[0].at)
        #expect(schedule.next(after: job.alarms[0].at, now: job.alarms[0].at) == job.alarms[1].at)
    }

    /// Caught up after a break: an alarm whose event is still ahead (or whose all-day event is
    /// today) has news however late; one for an event already begun is only late.
    @Test func aLateAlarmShowsWhileItsEventIsAhead() throws {
        let alarm = ISO8601.parseInstant("2026-11-24T09:00:00Z")!
        func occurrence(start: String) throws -> DueOccurrence {
            var job = Job(kind: .calendar, id: "cal-0000000000000001")
            job.title = "Dentist"
            job.calendar = CalendarLink(file: "/c/d.ics", uid: "d", source: "/c", writeBack: false)
            job.alarms = [CalendarAlarmEntry(at: alarm, start: start)]
            let schedule = try JobSchedule(job, localZone: .utc)
            return DueOccurrence(job: job, schedule: schedule, name: JobFileName(id: job.id!, occurrence: alarm))
        }
        let timed = try occurrence(start: "2026-11-24T11:00:00+00:00")
        #expect(timed.isStillAhead(now: alarm + .minutes(110)))
        #expect(!timed.isStillAhead(now: alarm + .minutes(121)))
        let allDay = try occurrence(start: "2026-11-24")
        #expect(allDay.isStillAhead(now: ISO8601.parseInstant("2026-11-24T23:00:00Z")!))
        #expect(!allDay.isStillAhead(now: ISO8601.parseInstant("2026-11-25T00:30:00Z")!))
    }
}
