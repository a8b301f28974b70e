import Foundation
import Testing
@testable import HeraldModel
@testable import HeraldCore

/// HeraldModel, the pure core, reads no file, clock or random source and logs nothing: the
/// package gives it no I/O library to import (Package.swift), and this test holds its sources
/// to the rest, which the compiler cannot see (FoundationEssentials has FileManager and Date).
@Suite struct PurityTests {
    static let root = String(#filePath).components(separatedBy: "/Tests/")[0] + "/Sources/HeraldModel"

    /// Every Swift file of the module, by path relative to it, with its lines.
    static func sources() throws -> [(path: String, lines: [String])] {
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return try files.sorted().map { path in
            (path, try String(contentsOfFile: root + "/" + path, encoding: .utf8).components(separatedBy: "\n"))
        }
    }

    /// The code of a line: without its `//` comment (string literals here hold no `//` that
    /// matters: a false alarm would show as a failure to look at, not a pass).
    static func code(_ line: String) -> String {
        guard let r = line.range(of: "//") else { return line }
        return String(line[..<r.lowerBound])
    }

    @Test func theModuleIsThere() throws {
        // A moved directory must not make the other tests pass on nothing.
        #expect(try Self.sources().count > 60)
        #expect(try Self.sources().contains { $0.path == "Engine/Engine.swift" })
    }

    @Test func importsOnlyWhatComputes() throws {
        let allowed: Set<String> = ["FoundationEssentials", "HeapModule", "Synchronization"]
        for (path, lines) in try Self.sources() {
            for (k, line) in lines.enumerated() {
                let words = Self.code(line).split(separator: " ").map(String.init)
                guard let at = words.firstIndex(of: "import"), at + 1 < words.count else { continue }
                let module = words[at + 1]
                if allowed.contains(module) { continue }
                // Foundation only as the fallback where FoundationEssentials is missing (not on Linux).
                if module == "Foundation", k > 0, lines[k - 1].hasPrefix("#else"), k > 1,
                   lines[k - 3...k - 1].contains(where: { $0.contains("canImport(FoundationEssentials)") }) { continue }
                // libm's pow, in one file that calls nothing else of the C library.
                if path == "Habit/LibM.swift", module == "Glibc" || module == "Musl" { continue }
                Issue.record("\(path):\(k + 1) imports \(module)")
            }
        }
    }

    @Test func callsNoFileClockRandomOrLogger() throws {
        // Whole words only: `LocalDate(` and `append(contentsOf:` are fine.
        let forbidden = [#"\bFileManager\b"#, #"\bDate\("#, #"\bDate\.now\b"#, #"\bProcessInfo\b"#, #"\bFileHandle\b"#,
                         #"contentsOf(File)?: *(URL|path|file|String)"#, #"\bData\(contentsOf"#, #"\bSystemRandomNumberGenerator\b"#,
                         #"\.random\((in:|\))"#, #"\bDispatch(Queue|Time|Source)\b"#, #"\bThread\b"#, #"\bLogger\b"#,
                         #"\bgetenv\b"#, #"\bContinuousClock\b"#, #"\bSuspendingClock\b"#, #"\bclock_gettime\b"#]
        let patterns = try forbidden.map { try NSRegularExpression(pattern: $0) }
        for (path, lines) in try Self.sources() {
            for (k, line) in lines.enumerated() {
                let code = Self.code(line)
                for (word, pattern) in zip(forbidden, patterns)
                where pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                    Issue.record("\(path):\(k + 1) matches \(word): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
    }

    @Test func libMCallsPowAlone() throws {
        let lines = try #require(try Self.sources().first { $0.path == "Habit/LibM.swift" }).lines
        let calls = lines.map(Self.code).filter { $0.contains("(") && !$0.contains("canImport") }
        #expect(calls.count == 1)
        #expect(calls.first?.contains("pow(x, y)") == true)
    }

    @Test func theEngineLogsThroughItsEffects() {
        // A line below the level costs nothing and is not returned; one at it comes back first.
        var engine = Engine(config: HeraldConfig(), logLevel: .notice)
        let effects = engine.handle(.clockChanged, now: Instant(seconds: 1_800_000_000))
        guard case .log(let line) = effects.first else { Issue.record("no log line first: \(effects)"); return }
        #expect(line.level == .notice)
        #expect(line.message == "Clock changed; re-evaluating due times")
        var quiet = Engine(config: HeraldConfig(), logLevel: .error)
        #expect(!quiet.handle(.clockChanged, now: Instant(seconds: 1_800_000_000)).contains { if case .log = $0 { true } else { false } })
    }

    @Test func idsComeFromTheSeedNotTheSystem() {
        // Two engines seeded alike draw the same ids for files named without a valid one.
        var a = Engine(config: HeraldConfig(), seed: 42), b = Engine(config: HeraldConfig(), seed: 42)
        let c = Engine(config: HeraldConfig(), seed: 43)
        var cc = c
        let x = a.freshID(hint: "bad name.json"), y = b.freshID(hint: "bad name.json"), z = cc.freshID(hint: "bad name.json")
        #expect(x == y)
        #expect(x != z)
        #expect(Job.isValidID(x))
    }

    @Test func zonesComeWithTheJob() throws {
        // A zone no system has, given by the lookup: decoding keeps its rules in the job, and its
        // schedule is read in them without any zone file.
        let mars = try #require(TimeZoneRules(posix: "MST-5"))
        let lookup: ZoneLookup = { $0 == "Mars/Olympus" ? mars : nil }
        let text = #"{"version":1,"kind":"reminder","id":"m","every":"*-*-* 09:00 Mars/Olympus","timezone":"Mars/Olympus","text":"x"}"#
        let job = try Job.decode(Array(text.utf8), zones: lookup)
        #expect(job.zones["Mars/Olympus"] == mars)
        let schedule = try JobSchedule(job, localZone: .utc)
        let next = try #require(schedule.firing(after: Instant(seconds: 1_800_000_000)))
        #expect(mars.civil(next).hour == 9)
        #expect(next.seconds % 86_400 == 4 * 3600)  // 09:00 at UTC+5
        // Without the lookup's answer the same document is refused, naming the zone.
        #expect(throws: JobError.self) { try Job.decode(Array(text.utf8), zones: { _ in nil }) }
    }

    @Test func aJobsZoneIsOneSharedReference() throws {
        // 100,000 jobs naming Europe/Berlin hold one set of tables, not 100,000.
        #expect(MemoryLayout<TimeZoneRules>.size == 8)
        let text = #"{"version":1,"kind":"reminder","at":"2026-12-24T09:00:00Z","timezone":"Europe/Berlin","text":"x"}"#
        let a = try Job.decode(Array(text.utf8), zones: ZoneFiles.lookup), b = try Job.decode(Array(text.utf8), zones: ZoneFiles.lookup)
        let ra = try #require(a.zones["Europe/Berlin"]), rb = try #require(b.zones["Europe/Berlin"])
        #expect(ra.storage === rb.storage)
        #expect(a.zones.more.isEmpty)
    }

    @Test func oneZoneHasOneSpellingAndUTCNeedsNoFile() {
        for name in ["Europe//Berlin", "Europe/./Berlin", "./Europe/Berlin", "Europe/Berlin/", "/Europe/Berlin", "Europe/../Europe/Berlin"] {
            #expect(!TimeZoneRules.isPlausibleName(name), "\(name)")
            #expect(ZoneFiles.lookup(name) == nil, "\(name)")
        }
        // Built in, as TimeZoneRules.named has them, whatever /usr/share/zoneinfo holds.
        for name in ["UTC", "Etc/UTC", "Z"] { #expect(ZoneFiles.lookup(name)?.storage === TimeZoneRules.utc.storage) }
        // A directory of the zone database is no zone.
        #expect(ZoneFiles.lookup("Europe") == nil)
    }
}
