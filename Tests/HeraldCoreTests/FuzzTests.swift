import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldFuzz

/// A short, seeded run of each fuzz target (make fuzz runs them longer), and every input the
/// fuzzer ever found (Fixtures/fuzz-regressions/<target>/*.bin) replayed against its target.
struct FuzzTests {
    /// Regressions whose fix belongs to code being changed elsewhere; they are not replayed
    /// until it lands (a crash would end the whole test run). "target/file.bin".
    static let pending: Set<String> = [
        // A repeat of 2^63-1 µs: the snooze that repeats it ends past the year 9999 (Instant + Span
        // traps there). Job+JSON bounding repeat and saturating Instant arithmetic are in progress.
        "job/repeat-int64-max.bin",
    ]
    /// Pending regressions that would hang or crash the test run: not replayed at all.
    static let unsafeToReplay: Set<String> = [
        // RecurrenceRule expands a VTIMEZONE's rules from 1601 without a budget (ICal/*, being bounded).
        "calendar/vtimezone-rrule-hang.bin",
        // A VTIMEZONE rule every 15 minutes from 1601: 8.7 s and 2.3 GiB in a release build (same cause).
        "calendar/vtimezone-15min-rule-budget.bin",
        // RRULE INTERVAL=9223372036854775807: Period.step and skip(toward:) overflow (ICal/RecurrenceRule.swift).
        "calendar/rrule-interval-int64-max.bin",
        // BYDAY=-9223372036854775808SU: abs(Int.min) traps in RecurrenceRule.parse (ICal/RecurrenceRule.swift:100).
        "calendar/byday-ordinal-int-min.bin",
        // '9223372036854.8540': the whole and fractional parts are added unchecked (Time/TimeSpan.swift:105, in progress).
        "span/fraction-overflow.bin",
    ]

    /// Debug builds are several times slower than the release build `make fuzz` uses.
    static let budget = Fuzzer.Budget(time: .seconds(3))

    /// About a second of debug-build work per target.
    static let iterations: [Fuzzer.Target: Int] = [.job: 1500, .span: 4000, .event: 3000, .phrase: 4000, .calendar: 150, .config: 600]

    @Test(arguments: Fuzzer.Target.allCases.filter { $0 != .calendar })
    func aSeededRunFindsNothing(target: Fuzzer.Target) throws {
        try seededRun(target)
    }

    /// Pending: the seeded run reaches the hang of calendar/vtimezone-rrule-hang.bin within its
    /// first inputs; it runs again once ICal's expansion has its budget.
    @Test(.disabled("pending: ICal VTIMEZONE expansion budget (fuzz-regressions/calendar/vtimezone-rrule-hang.bin)"))
    func aSeededCalendarRunFindsNothing() throws {
        try seededRun(.calendar)
    }

    func seededRun(_ target: Fuzzer.Target) throws {
        var fuzzer = Fuzzer(target: target, seed: 20261122, budget: Self.budget)
        let runs = Self.iterations[target]!
        var accepted = 0
        fuzzer.willRun = { input in
            let text = String(decoding: input, as: UTF8.self)
            let valid: Bool
            switch target {
            case .job: valid = (try? Job.decode(Data(input))) != nil
            case .span: valid = (try? TimeSpan.parse(text)) != nil
            case .event: valid = (try? CalendarEvent.parse(text)) != nil
            case .phrase: valid = (try? TimePhrase.parse(text, now: Instant(seconds: 1_795_352_730), zone: .utc)) != nil
            case .calendar: valid = (try? ICalendarFile(path: "f.ics", bytes: input)) != nil
            case .config: valid = (try? ConfigLoader.load(contents: Data(input), path: "c.yaml", environment: [:])) != nil
            }
            if valid { accepted += 1 }
        }
        while fuzzer.executions < runs {
            do { try fuzzer.run(iterations: runs - fuzzer.executions) } catch {
                // Pending: repeat and snooze spans are being bounded in Job+JSON (see `pending`).
                if error.problem.hasPrefix(Fuzzer.snoozeOverflow) {
                    withKnownIssue("pending: Job+JSON bounds repeat") { Issue.record("\(error)") }
                } else {
                    Issue.record("\(error)")
                }
            }
        }
        // Mutations must still reach the readers' deeper paths: many inputs stay valid.
        #expect(accepted > runs / 20, "only \(accepted) of \(runs) mutated inputs were valid")
    }

    static let kept = Fuzzer.regressions().map { (file: "\($0.target.rawValue)/\($0.name)", target: $0.target, bytes: $0.bytes) }

    @Test(arguments: kept.filter { !unsafeToReplay.contains($0.file) }.map(\.file))
    func aKeptRegressionStaysFixed(file: String) throws {
        let regression = Self.kept.first { $0.file == file }!
        if Self.pending.contains(file) {
            withKnownIssue("pending fix elsewhere") { try Fuzzer.check(regression.target, regression.bytes, budget: Self.budget) }
        } else {
            try Fuzzer.check(regression.target, regression.bytes, budget: Self.budget)
        }
    }

    @Test func thePendingListsNameKeptFiles() {
        let files = Set(Self.kept.map(\.file))
        let listed = Self.pending.union(Self.unsafeToReplay)
        #expect(listed.subtracting(files).isEmpty, "pending regressions without a file: \(listed.subtracting(files).sorted())")
        #expect(!Self.kept.isEmpty, "no regression files found under \(Fuzzer.regressionDirectory)")
    }
}
