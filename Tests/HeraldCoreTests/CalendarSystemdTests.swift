import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Herald's calendar expressions against systemd's own answers: the committed corpus
/// (Fixtures/calendar-systemd.json, made by Fixtures/make-calendar-fixture.py from
/// `systemd-analyze calendar`), and a live comparison on random expressions.
struct CalendarSystemdTests {
    struct Fixture: Decodable {
        struct Case: Decodable {
            var zone: String
            var base: Int64
            var expression: String
            var normalized: String
            var next: [Int64]
        }
        var systemd: String
        var iterations: Int
        var invalid: [String]
        var cases: [Case]
    }

    static let fixture: Fixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/calendar-systemd.json")
        return try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }()

    static let zones = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata"]

    @Test(arguments: zones)
    func elapseTimesMatchSystemd(zone name: String) throws {
        let zone = try TimeZoneRules.named(name)
        let cases = Self.fixture.cases.filter { $0.zone == name }
        #expect(cases.count > 500)
        var failures: [String] = []
        for c in cases {
            do {
                let event = try CalendarEvent.parse(c.expression, localZone: zone)
                if event.description != c.normalized {
                    failures.append("'\(c.expression)': normalized '\(event)', systemd '\(c.normalized)'")
                }
                let ours = event.elapses(after: Instant(seconds: c.base), count: Self.fixture.iterations, in: zone).map(\.seconds)
                if ours != c.next {
                    failures.append("'\(c.expression)' in \(name) after @\(c.base): \(ours) ≠ systemd \(c.next)")
                }
            } catch {
                failures.append("'\(c.expression)': refused: \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) mismatches:\n\(failures.prefix(25).joined(separator: "\n"))")
    }

    @Test func refusesWhatSystemdRefuses() {
        #expect(Self.fixture.invalid.count > 10)
        for text in Self.fixture.invalid {
            #expect(throws: CalendarError.self, "'\(text)' was accepted") { try CalendarEvent.parse(text) }
        }
    }
}
