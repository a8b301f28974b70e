import Foundation
@testable import HeraldCore
@testable import HeraldModel
import Testing

/// What Herald reads leniently (issue 39; README "What Herald reads leniently"): each quirk a
/// real producer writes, read with the one meaning it has, as libical and ical4j's relaxed mode
/// read it. The corpus of 786 wild calendars is `WildCalendarEndToEndTests`.
@Suite struct LenientReadingTests {
    let berlin = try! TimeZoneRules.named("Europe/Berlin")
    let newYork = try! TimeZoneRules.named("America/New_York")

    /// The alarm instants (UTC, ISO-8601) of `body` inside a VCALENDAR, read in `zone`, and the problems.
    func alarms(_ body: String, zone: TimeZoneRules = .utc, from: String = "2000-01-01T00:00:00Z", to: String = "2030-01-01T00:00:00Z",
                wrap: Bool = true) throws -> (at: [String], problems: [String]) {
        let text = wrap ? "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + body + "END:VCALENDAR\r\n" : body
        let file = try ICalendarFile(path: "t.ics", bytes: Array(text.utf8))
        let read = file.alarms(from: ISO8601.parseInstant(from)!, to: ISO8601.parseInstant(to)!, localZone: zone)
        return (read.alarms.map { ISO8601.format($0.at, offsetSeconds: 0, zulu: true) }, read.problems.map(\.description))
    }

    static let alarm = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n"

    static func event(start: String, _ extra: String = "", alarm: String = alarm) -> String {
        "BEGIN:VEVENT\r\nUID:e\r\nDTSTART\(start)\r\n\(extra)\(alarm)END:VEVENT\r\n"
    }

    /// Outlook and Exchange name Windows zones; without the VTIMEZONE (or with one that has no
    /// usable rules) CLDR's zone for the name is taken.
    @Test func aWindowsZoneNameWithoutItsVTimezoneIsCLDRs() throws {
        let read = try alarms(Self.event(start: ";TZID=W. Europe Standard Time:20260710T100000"))
        #expect(read.problems.isEmpty && read.at == ["2026-07-10T07:45:00Z"], "\(read)")  // CEST
        let eastern = try alarms(Self.event(start: ";TZID=Eastern Standard Time:20260115T090000"))
        #expect(eastern.at == ["2026-01-15T13:45:00Z"], "\(eastern)")
    }

    /// The file's own VTIMEZONE rules win where they are complete (khal's test file gives New
    /// Zealand's Windows name bogus rules on purpose: they are read as written).
    @Test func theFilesOwnCompleteRulesWinOverCLDR() throws {
        let zone = "BEGIN:VTIMEZONE\r\nTZID:New Zealand Standard Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        let read = try alarms(zone + Self.event(start: ";TZID=New Zealand Standard Time:20260710T100000"))
        #expect(read.at == ["2026-07-10T08:45:00Z"], "\(read)")
    }

    /// Evolution writes an observance's DTSTART as a DATE: its midnight (ical4j's evolution2.ics).
    @Test func aVTimezoneWhoseObservanceStartsOnADateStartsAtItsMidnight() throws {
        let zone = "BEGIN:VTIMEZONE\r\nTZID:Arabian Standard Time\r\nBEGIN:STANDARD\r\nDTSTART;VALUE=DATE:20200101\r\nTZOFFSETFROM:+0400\r\nTZOFFSETTO:+0400\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        let read = try alarms(zone + Self.event(start: ";TZID=Arabian Standard Time:20210330T141500"))
        #expect(read.problems.isEmpty && read.at == ["2021-03-30T10:00:00Z"], "\(read)")
    }

    /// Evolution 2 and Mozilla put their own prefix before a zone database name, without a VTIMEZONE.
    @Test func aVendorPrefixBeforeADatabaseNameIsThatZone() throws {
        let read = try alarms(Self.event(start: ";TZID=/softwarestudio.org/Olson_20011030_5/Pacific/Auckland:20050506T160000"))
        #expect(read.problems.isEmpty && read.at == ["2005-05-06T03:45:00Z"], "\(read)")
        let unknown = try alarms(Self.event(start: ";TZID=/nowhere.example/Mars/Olympus:20050506T160000"))
        #expect(unknown.at.isEmpty && unknown.problems.count == 1)
    }

    /// A VTIMEZONE's TZID is TEXT (§3.8.3.1): Exchange escapes its comma, which the DTSTART's
    /// TZID parameter names unescaped (ical4j's tmeher.ics).
    @Test func anEscapedCommaInAVTimezonesTZIDIsUnescaped() throws {
        let zone = "BEGIN:VTIMEZONE\r\nTZID:Pacific Time (US & Canada)\\, Tijuana\r\nBEGIN:STANDARD\r\nDTSTART:16010101T020000\r\nTZOFFSETFROM:-0700\r\nTZOFFSETTO:-0800\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\nTZOFFSETFROM:-0800\r\nTZOFFSETTO:-0700\r\nRRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=4\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n"
        let read = try alarms(zone + Self.event(start: ";TZID=\"Pacific Time (US & Canada), Tijuana\":20041011T223000"))
        #expect(read.problems.isEmpty && read.at == ["2004-10-12T05:15:00Z"], "\(read)")
    }

    /// Outlook writes an EXDATE or RECURRENCE-ID floating on a zoned series: it means the
    /// series' zone, wherever the reader is (radicale's event_issue2151.ics).
    @Test func aFloatingExdateOnAZonedSeriesIsInTheSeriesZone() throws {
        let body = Self.event(start: ";TZID=Europe/Berlin:20260102T110000", "RRULE:FREQ=WEEKLY;COUNT=3\r\nEXDATE:20260109T110000\r\n")
        for zone in [berlin, newYork, TimeZoneRules.utc] {
            let read = try alarms(body, zone: zone)
            #expect(read.at == ["2026-01-02T09:45:00Z", "2026-01-16T09:45:00Z"], "\(zone.identifier): \(read)")
        }
        let moved = Self.event(start: ";TZID=Europe/Berlin:20260102T110000", "RRULE:FREQ=WEEKLY;COUNT=2\r\n")
            + "BEGIN:VEVENT\r\nUID:e\r\nRECURRENCE-ID:20260109T110000\r\nDTSTART;TZID=Europe/Berlin:20260109T130000\r\n" + Self.alarm + "END:VEVENT\r\n"
        #expect(try alarms(moved, zone: newYork).at == ["2026-01-02T09:45:00Z", "2026-01-09T11:45:00Z"])
    }

    /// Mozilla's calendar writes VALARMs without ACTION, and reads them as DISPLAY (ical.net's
    /// serialisation calendars); older ones put X-MOZ-LASTACK in the VALARM itself.
    @Test func aValarmWithoutActionIsDisplayAndItsOwnMozLastackCounts() throws {
        let bare = "BEGIN:VALARM\r\nTRIGGER;VALUE=DURATION:-PT15M\r\nEND:VALARM\r\n"
        #expect(try alarms(Self.event(start: ":20061003T101500Z", alarm: bare)).at == ["2006-10-03T10:00:00Z"])
        let acked = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nX-MOZ-LASTACK:20060101T000000Z\r\nEND:VALARM\r\n"
        #expect(try alarms(Self.event(start: ":20051003T101500Z", "RRULE:FREQ=YEARLY;COUNT=2\r\n", alarm: acked)).at == ["2006-10-03T10:00:00Z"])
        let email = "BEGIN:VALARM\r\nACTION:EMAIL\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n"
        #expect(try alarms(Self.event(start: ":20061003T101500Z", alarm: email)).at.isEmpty)
    }

    /// An absolute TRIGGER without Z (RFC 5545 wants UTC) is a local time, as a floating DTSTART is.
    @Test func aFloatingAbsoluteTriggerIsLocalTime() throws {
        let floating = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;VALUE=DATE-TIME:19980403T120000\r\nEND:VALARM\r\n"
        #expect(try alarms(Self.event(start: ":19980404T100000Z", alarm: floating), zone: berlin, from: "1998-01-01T00:00:00Z").at == ["1998-04-03T10:00:00Z"])
    }

    /// A bare VEVENT (Evolution's components, RFC 9074's examples) is read as its calendar.
    @Test func aBareEventIsReadAsItsCalendar() throws {
        let read = try alarms(Self.event(start: ":20160302T100000Z"), wrap: false)
        #expect(read.problems.isEmpty && read.at == ["2016-03-02T09:45:00Z"])
    }

    /// Lotus Notes ends lines with CR alone; old Outlook writes Windows-1252.
    @Test func lotusLineEndsAndWindows1252AreRead() throws {
        let text = "BEGIN:VCALENDAR\rBEGIN:VEVENT\rUID:n\rDTSTART:20040105T090000Z\rSUMMARY:R\u{E4}ksm\u{F6}rg\u{E5}s\r" + Self.alarm.replacingOccurrences(of: "\r\n", with: "\r") + "END:VEVENT\rEND:VCALENDAR\r"
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars { bytes.append(UInt8(scalar.value)) }  // Latin-1: one byte each
        let file = try ICalendarFile(path: "n.ics", bytes: bytes)
        let read = file.alarms(from: .epoch, to: ISO8601.parseInstant("2005-01-01T00:00:00Z")!, localZone: .utc)
        #expect(read.problems.isEmpty && read.alarms.map(\.summary) == ["Räksmörgås"])
        #expect(file.document.lossy, "never rewritten: its bytes are not what was read")
    }

    /// A line that cannot be read costs its item, never the rest of the file (issue_348's
    /// VFREEBUSY with `ORGANIZER;CN=Sixt SE` and no colon).
    @Test func aBrokenLineOutsideAnItemCostsNothing() throws {
        let freebusy = "BEGIN:VFREEBUSY\r\nORGANIZER;CN=Sixt SE\r\nX-ORGANIZER2;CN=Sixt SE;CN2=Test!\r\nEND:VFREEBUSY\r\n"
        let read = try alarms(freebusy + Self.event(start: ":20190624T061500Z"))
        #expect(read.at == ["2019-06-24T06:00:00Z"])
        #expect(read.problems == ["line 4: no ':' in the ORGANIZER line (line skipped)", "line 5: no ':' in the X-ORGANIZER2 line (line skipped)"])
    }
}
