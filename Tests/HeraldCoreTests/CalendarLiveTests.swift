import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel
import HeraldFuzz

/// Herald against the `systemd-analyze` installed here (make test installs systemd): random
/// expressions, and a sample of the committed corpus, so neither drifts unnoticed.
struct CalendarLiveTests {
    static let analyze = "/usr/bin/systemd-analyze"
    static let zones = CalendarSystemdTests.zones

    /// Seeded so a failure can be replayed: HERALD_CALENDAR_SEED=<n> swift test --filter CalendarLiveTests
    static let seed: UInt64 = ProcessInfo.processInfo.environment["HERALD_CALENDAR_SEED"].flatMap(UInt64.init) ?? 20261122

    @Test func randomExpressionsAgreeWithSystemdAnalyze() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.analyze), "systemd-analyze is needed: make test installs systemd")
        var rng = SeededGenerator(seed: Self.seed)
        let expressions = (0..<300).map { _ in RandomExpression.make(&rng) }
        var valid: [String] = []
        var disagreements: [String] = []
        for e in expressions {
            let theirs = try runProgram(Self.analyze, ["calendar", e], environment: ["TZ": ":UTC", "LC_ALL": "C"]).status == 0
            let ours = (try? CalendarEvent.parse(e, localZone: .utc)) != nil
            if theirs != ours { disagreements.append("'\(e)': systemd \(theirs ? "accepts" : "refuses"), Herald \(ours ? "accepts" : "refuses")") }
            if theirs && ours { valid.append(e) }
        }
        #expect(disagreements.isEmpty, "seed \(Self.seed):\n\(disagreements.prefix(20).joined(separator: "\n"))")
        #expect(valid.count > 100, "only \(valid.count) valid expressions generated")
        var mismatches: [String] = []
        for name in Self.zones {
            let zone = try TimeZoneRules.named(name)
            for base in Self.bases(for: zone, rng: &rng) {
                let answers = try Self.systemdEach(valid, zone: name, base: base)
                for (e, answer) in zip(valid, answers) {
                    let event = try CalendarEvent.parse(e, localZone: zone)
                    let ours = event.elapses(after: Instant(seconds: base), count: 4, in: zone).map(\.seconds)
                    // No answer: systemd gave up ("Infinite loop in calendar calculation") at some
                    // iteration, and then prints none; ask for fewer to see where Herald must stop too.
                    let expected = try answer ?? Self.systemdUntilItFails(e, zone: name, base: base, normalized: event.description)
                    if ours != expected.next || event.description != expected.normalized {
                        mismatches.append("'\(e)' in \(name) after @\(base): \(ours) \(event) ≠ systemd \(expected.next) \(expected.normalized)")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "seed \(Self.seed), \(mismatches.count) mismatches:\n\(mismatches.prefix(20).joined(separator: "\n"))")
    }

    @Test func aSampleOfTheCorpusStillMatchesTheInstalledSystemd() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.analyze), "systemd-analyze is needed: make test installs systemd")
        var rng = SeededGenerator(seed: Self.seed)
        let sample = (0..<40).map { _ in CalendarSystemdTests.fixture.cases.randomElement(using: &rng)! }
        for c in sample {
            let live = try Self.systemd([c.expression], zone: c.zone, base: c.base)
            #expect(live.first?.next == Array(c.next.prefix(4)), "'\(c.expression)' in \(c.zone) after @\(c.base): the fixture is stale (regenerate it)")
        }
    }

    /// Base times: an hour or two before each of the zone's next daylight-saving changes,
    /// and a random ordinary time.
    static func bases(for zone: TimeZoneRules, rng: inout SeededGenerator) -> [Int64] {
        let from: Int64 = 1_772_000_000  // 2026-02-25
        let changes = zone.transitions.filter { $0 > from && $0 < from + 63_072_000 }
        var out = changes.prefix(4).map { $0 - Int64.random(in: 600...7200, using: &rng) }
        if out.isEmpty, let footer = zone.footer, footer.daylight != nil {
            for year in [2026, 2027] {
                out.append(PosixTimeZone.transition(footer.daylight!.start, year: year) - Int64(footer.standardOffset) - 3600)
                out.append(PosixTimeZone.transition(footer.daylight!.end, year: year) - Int64(footer.daylight!.offset) - 3600)
            }
        }
        out.append(from + Int64.random(in: 0...63_072_000, using: &rng))
        return out
    }

    struct Answer { var normalized: String; var next: [Int64] }

    /// The elapses systemd manages before it fails: it prints nothing when any iteration fails.
    static func systemdUntilItFails(_ expression: String, zone: String, base: Int64, normalized: String) throws -> Answer {
        for count in stride(from: 3, through: 1, by: -1) {
            if let answer = try systemd([expression], zone: zone, base: base, iterations: count).first { return answer }
        }
        return Answer(normalized: normalized, next: [])
    }

    /// One answer per expression, nil where systemd printed none (it failed to compute one).
    static func systemdEach(_ expressions: [String], zone: String, base: Int64) throws -> [Answer?] {
        let batch = try systemd(expressions, zone: zone, base: base)
        if batch.count == expressions.count { return batch }
        return try expressions.map { try systemd([$0], zone: zone, base: base).first }
    }

    /// `systemd-analyze calendar` for several expressions at once: normalized forms and UTC elapses.
    static func systemd(_ expressions: [String], zone: String, base: Int64, iterations: Int = 4) throws -> [Answer] {
        let out = try runProgram(analyze, ["calendar", "--base-time=@\(base)", "--iterations=\(iterations)"] + expressions,
                                 environment: ["TZ": ":" + zone, "LC_ALL": "C"]).output
        let blocks = out.components(separatedBy: "\n\n").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        return blocks.map { block in
            var answer = Answer(normalized: "", next: [])
            let lines = block.split(separator: "\n").map(String.init)
            for (k, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("Normalized form: ") { answer.normalized = String(trimmed.dropFirst(17)) }
                guard trimmed.hasPrefix("Next elapse: ") || trimmed.hasPrefix("Iter. #"), !trimmed.hasSuffix("never") else { continue }
                let utcLine = k + 1 < lines.count && lines[k + 1].contains("(in UTC): ") ? lines[k + 1] : line
                let parts = utcLine.split(separator: " ").map(String.init)
                if let day = parts.firstIndex(where: { $0.count == 10 && $0.dropFirst(4).first == "-" }), day + 1 < parts.count,
                   let t = ISO8601.parseInstant(parts[day] + "T" + parts[day + 1] + "Z") {
                    answer.next.append(t.seconds)
                }
            }
            return answer
        }
    }
}

/// Random calendar expressions: valid ones mostly, and the near misses systemd refuses.
enum RandomExpression {
    static func make(_ rng: inout SeededGenerator) -> String {
        var parts: [String] = []
        if Bool.random(using: &rng) && Int.random(in: 0..<3, using: &rng) == 0 { parts.append(weekdays(&rng)) }
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: break
        case 1: parts.append("*-" + chain(&rng, 1...12) + "-" + chain(&rng, 1...31))
        case 2: parts.append(chain(&rng, 2026...2030) + "-" + chain(&rng, 1...12) + "-" + chain(&rng, 1...31))
        case 3: parts.append("*-" + chain(&rng, 1...12) + "~" + chain(&rng, 1...6))
        default: parts.append("*-*-" + chain(&rng, 1...31))
        }
        var time = chain(&rng, 0...23) + ":" + chain(&rng, 0...59)
        if Int.random(in: 0..<3, using: &rng) == 0 { time += ":" + chain(&rng, 0...59) }
        parts.append(time)
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: parts.append("UTC")
        case 1: parts.append(["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"].randomElement(using: &rng)!)
        default: break
        }
        return parts.joined(separator: " ")
    }

    static func weekdays(_ rng: inout SeededGenerator) -> String {
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        return (0..<Int.random(in: 1...2, using: &rng)).map { _ in
            let a = Int.random(in: 0..<7, using: &rng)
            if Bool.random(using: &rng) { return names[a] }
            let b = Int.random(in: 0..<7, using: &rng)
            return names[a] + ".." + names[b]
        }.joined(separator: ",")
    }

    static func chain(_ rng: inout SeededGenerator, _ range: ClosedRange<Int>) -> String {
        if Int.random(in: 0..<4, using: &rng) == 0 { return "*" }
        let span = range.upperBound - range.lowerBound
        return (0..<Int.random(in: 1...2, using: &rng)).map { _ in
            let a = Int.random(in: range.lowerBound...range.upperBound, using: &rng)
            let b = min(range.upperBound, a + Int.random(in: 0...max(1, span / 2), using: &rng))
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: return String(format: "%02d", a)
            case 1: return "\(a)/\(Int.random(in: 1...max(1, span / 3), using: &rng))"
            case 2: return "\(a)..\(b)"
            case 3: return "\(a)..\(b)/\(Int.random(in: 1...5, using: &rng))"
            default: return "\(a)..\(Int.random(in: range.lowerBound...range.upperBound, using: &rng))"  // may run backwards
            }
        }.joined(separator: ",")
    }
}
