import Foundation
import HeraldCore
import Synchronization
import Testing

/// Calendars as the wild writes them (issue 39): the 786 calendars of sixteen projects' test
/// suites in ../shared/corpora/ical-wild (its SOURCES.md names each), read from there.
@Suite struct WildCalendarEndToEndTests {
    /// `$HERALD_ICAL_WILD`, else the corpus beside the repository (`../shared`), else the
    /// workplace's shared folder (a clean clone elsewhere).
    static let corpus: String = {
        if let dir = ProcessInfo.processInfo.environment["HERALD_ICAL_WILD"] { return dir }
        let beside = URL(fileURLWithPath: Binaries.repositoryRoot).deletingLastPathComponent()
            .appendingPathComponent("shared/corpora/ical-wild").standardizedFileURL.path
        return [beside, "/work/shared/corpora/ical-wild"].first { FileManager.default.fileExists(atPath: $0) } ?? beside
    }()

    static func files() throws -> [String] {
        let all = try #require(FileManager.default.enumerator(atPath: corpus)?.allObjects as? [String], "no corpus at \(corpus)")
        return all.filter { $0.hasSuffix(".ics") }.sorted()
    }

    func alarms(_ file: String, zone: String, from: String, to: String) throws -> [String] {
        let r = try runCommand(Binaries.herald, ["calendar", "alarms", Self.corpus + "/" + file, "--from", from, "--to", to, "--json"],
                               environment: ["TZ": zone, "HOME": NSTemporaryDirectory()])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], "\(file): \(r.stderr)")
        return list.compactMap { $0["at"] as? String }
    }

    /// Every file is answered, with exit 0 or 65 and never a signal, within its budgets.
    @Test func everyFileIsAnsweredWithoutASignalWithinItsBudget() throws {
        let files = try Self.files()
        #expect(files.count >= 780)
        let found = Mutex<(bad: [String], slow: [String])>(([], []))
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            for (k, file) in files.enumerated() where k % 2 == part {
                let started = Date()
                let r = try? runCommand(Binaries.herald, ["calendar", "check", Self.corpus + "/" + file],
                                        environment: ["TZ": "Europe/Berlin", "HOME": NSTemporaryDirectory()])
                let took = Date().timeIntervalSince(started)
                found.withLock { found in
                    if r == nil || ![0, 65].contains(r!.status) { found.bad.append("\(file): \(r.map { "exit \($0.status)" } ?? "did not run")") }
                    if took > 5 { found.slow.append("\(file): \(took) s") }
                }
            }
        }
        let (bad, slow) = found.withLock { $0 }
        #expect(bad.isEmpty, "\(bad)")
        #expect(slow.isEmpty, "\(slow)")
    }

    /// Herald's alarms equal the oracle's (recurring-ical-events with RFC 5545's alarm rules)
    /// in two zones, for every file with a VALARM, except the disagreements written down one by
    /// one in scripts/oracles/ical-wild-disagreements.json (each with its reason and counts).
    @Test func theOracleAgreesOrTheDisagreementIsWrittenDown() throws {
        let r = try runCommand("/usr/bin/env", ["python3", Binaries.repositoryRoot + "/scripts/oracles/ical-wild.py", "--herald", Binaries.herald,
                                                "--corpus", Self.corpus, "--check"],
                               environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], timeout: 600)
        #expect(r.status == 0, "\(r.stdout.split(separator: "\n").filter { $0.hasPrefix("NOT AS WRITTEN") || $0.hasPrefix("check:") }) \(r.stderr.suffix(2000))")
        #expect(r.stdout.contains("file runs agreeing:"))
    }

    /// The four groups of the issue, read with every alarm.
    @Test func outlookEvolutionRelaxedValuesAndIcalNetAlarmsAreRead() throws {
        // Outlook/Exchange through Radicale: weekly in a Windows zone, a floating EXDATE, an
        // override. Thunderbird dismissed the 19 up to 2026-06-05 (X-MOZ-LASTACK): the 8 after
        // it show; the 27 of the series are all there in any zone.
        let radicale = "radicale/radicale__tests__static__event_issue2151.ics"
        #expect(try alarms(radicale, zone: "Europe/Berlin", from: "2026-01-01", to: "2027-01-01").count == 8)
        let text = try String(contentsOfFile: Self.corpus + "/" + radicale, encoding: .utf8)
        let unacked = NSTemporaryDirectory() + "issue2151-\(UUID().uuidString.prefix(6)).ics"
        try text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("X-MOZ-LASTACK") }.joined(separator: "\n")
            .write(toFile: unacked, atomically: true, encoding: .utf8)
        defer { unlink(unacked) }
        for zone in ["Europe/Berlin", "America/New_York", "Asia/Tokyo"] {
            let r = try runCommand(Binaries.herald, ["calendar", "alarms", unacked, "--from", "2026-01-01", "--to", "2027-01-01"],
                                   environment: ["TZ": zone, "HOME": NSTemporaryDirectory()])
            #expect(r.stdout.split(separator: "\n").count == 27, "\(zone): \(r.stdout)")
            #expect(!r.stdout.contains("2026-04-03"), "the EXDATE holds in \(zone)")
        }
        let expected: [(String, String, String, [String])] = [
            ("ical4j/src__test__resources__samples__valid__evolution2.ics", "2021-01-01", "2022-01-01", ["2021-03-30T10:00:00Z"]),
            ("ical4j/src__test__resources__samples__invalid__talios.ics", "2005-01-01", "2006-01-01", ["2005-05-06T03:45:00Z"]),
            ("ical4j/src__test__resources__samples__invalid__tmeher.ics", "2004-01-01", "2005-01-01", ["2004-10-12T05:15:00Z"]),
            ("icalendar/src__icalendar__tests__calendars__issue_348_exception_parsing_value.ics", "2019-01-01", "2020-01-01", ["2019-06-24T06:00:00Z"]),
            ("icalnet/Ical.Net.Tests__Calendars__Serialization__Calendar1.ics", "2006-01-01", "2007-01-01", ["2006-10-03T10:00:00Z"]),
            ("icalnet/Ical.Net.Tests__Calendars__Serialization__Language2.ics", "2006-01-01", "2007-01-01", ["2006-06-16T10:30:00Z"]),
        ]
        for (file, from, to, instants) in expected {
            let got = try alarms(file, zone: "Europe/Berlin", from: from + "T00:00:00Z", to: to + "T00:00:00Z")
            #expect(got.map { ISO8601.parseInstant($0).map { ISO8601.format($0, offsetSeconds: 0, zulu: true) } ?? $0 } == instants, "\(file)")
        }
        // ical.net's Event3: the alarm without ACTION shows; the 46 acknowledged in their VALARMs do not.
        let event3 = try alarms("icalnet/Ical.Net.Tests__Calendars__Serialization__Event3.ics", zone: "Europe/Berlin",
                                from: "2005-01-01T00:00:00Z", to: "2010-01-01T00:00:00Z")
        #expect(event3.map { ISO8601.parseInstant($0).map { ISO8601.format($0, offsetSeconds: 0, zulu: true) } ?? $0 } == ["2006-07-26T14:00:00Z"])
    }
}
