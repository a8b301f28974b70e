import Foundation
import HeraldCore
import Testing

/// `herald calendar alarms` against an independent implementation: python's
/// recurring-ical-events (through scripts/oracles/ical-oracle.py, which applies RFC 5545's alarm rules to
/// its occurrences) on the corpus in Fixtures/calendar-corpus: every FREQ and BY-part, RDATE,
/// EXDATE, overrides with THISANDFUTURE, all-day and floating items, custom VTIMEZONEs, to-dos,
/// cancelled and acknowledged items, in several zones and across daylight-saving changes.
@Suite struct CalendarOracleTests {
    static let corpus = Binaries.repositoryRoot + "/Tests/HeraldCoreTests/Fixtures/calendar-corpus"
    struct Alarm: Hashable, CustomStringConvertible {
        var at: String, uid: String, recurrenceID: String, action: String
        var description: String { "\(at) \(uid) @\(recurrenceID) \(action)" }
    }

    func alarms(_ json: String) throws -> [Alarm] {
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        return list.map { Alarm(at: $0["at"] as? String ?? "", uid: $0["uid"] as? String ?? "",
                                recurrenceID: $0["recurrenceId"] as? String ?? "-", action: $0["action"] as? String ?? "") }
    }

    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "America/Sao_Paulo"])
    func alarmInstantsEqualRecurringIcalEvents(zone: String) throws {
        let (from, to) = ("2026-01-01T00:00:00Z", "2028-01-01T00:00:00Z")
        let ours = try runCommand(Binaries.herald, ["calendar", "alarms", Self.corpus, "--from", from, "--to", to, "--json"],
                                  environment: ["TZ": zone, "HOME": NSTemporaryDirectory()])
        #expect(ours.status == 0, "\(ours.stderr)")
        let theirs = try runCommand("/usr/bin/env", ["python3", Binaries.repositoryRoot + "/scripts/oracles/ical-oracle.py", "--from", from, "--to", to,
                                                     "--zone", zone, Self.corpus],
                                    environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        #expect(theirs.status == 0, "\(theirs.stderr)")
        let a = try alarms(ours.stdout), b = try alarms(theirs.stdout)
        #expect(a.count >= 2000, "the corpus gives thousands of alarms, not \(a.count)")
        #expect(Set(a.map(\.uid)).count >= 200)
        let onlyOurs = a.filter { !b.contains($0) }, onlyTheirs = b.filter { !a.contains($0) }
        #expect(onlyOurs.isEmpty, "only herald: \(onlyOurs.prefix(10))")
        #expect(onlyTheirs.isEmpty, "only the oracle: \(onlyTheirs.prefix(10))")
        #expect(a.count == b.count)
        // Cancelled events, completed to-dos, EMAIL-only and acknowledged alarms stay silent.
        let silent = try String(contentsOfFile: Self.corpus + "/expected-silent.txt", encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(silent.count >= 10)
        #expect(a.filter { silent.contains($0.uid) }.isEmpty)
    }

    @Test func checkReportsABadFileWithItsLineAndGoesOn() throws {
        let dir = NSTemporaryDirectory() + "herald-check-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir + "/personal", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:ok\r\nSUMMARY:Fine\r\nDTSTART:20270105T090000Z\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT10M\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        try good.write(toFile: dir + "/personal/good.ics", atomically: true, encoding: .utf8)
        try "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nRRULE:FREQ=SOMETIMES\nDTSTART:20270105T090000Z\nEND:VEVENT\nEND:VCALENDAR\n"
            .write(toFile: dir + "/personal/rule.ics", atomically: true, encoding: .utf8)
        try Data([0x42, 0x45, 0x47, 0x49, 0x4E, 0x3A, 0x56, 0x43, 0x41, 0x4C, 0x45, 0x4E, 0x44, 0x41, 0x52, 0x0A, 0x53, 0x55, 0x4D, 0x3A, 0xFF, 0x0A])
            .write(to: URL(fileURLWithPath: dir + "/personal/latin1.ics"))
        let env = ["TZ": "UTC", "HOME": dir]
        let check = try runCommand(Binaries.herald, ["calendar", "check", dir], environment: env)
        #expect(check.status == 65)
        #expect(check.stderr.contains("personal/rule.ics:4: RRULE: FREQ 'SOMETIMES' is not a frequency"), "\(check.stderr)")
        #expect(check.stderr.contains("personal/latin1.ics:1: BEGIN:VCALENDAR is never ended (line skipped)"), "\(check.stderr)")
        #expect(check.stdout == "3 files, 2 items, 2 problems\n")
        // The good file still gives its alarm.
        let alarms = try runCommand(Binaries.herald, ["calendar", "alarms", dir, "--from", "2027-01-01", "--to", "2027-02-01"], environment: env)
        #expect(alarms.status == 65)
        #expect(alarms.stdout.hasPrefix("2027-01-05T08:50:00+00:00  Fine"), "\(alarms.stdout)")
    }
}
