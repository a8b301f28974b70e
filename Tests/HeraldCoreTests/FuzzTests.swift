import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel
@testable import HeraldFuzz

/// A short, seeded run of each fuzz target (make fuzz runs them longer), and every input the
/// fuzzer ever found (Fixtures/fuzz-regressions/<target>/*.bin) replayed against its target.
struct FuzzTests {
    /// Regressions whose fix has not landed yet: replayed as known issues ("target/file.bin").
    /// Empty: every input the fuzzer ever found is fixed. A crash would end the whole run, so
    /// an input that still crashes goes here only while its fix is on its way.
    static let pending: Set<String> = []

    /// Debug builds are several times slower than the release build `make fuzz` uses. Counted
    /// in the thread's CPU time: on the wall clock an input's time is also the time its thread
    /// waited for one of the cores the other tests are busy on.
    static let budget = Fuzzer.Budget(time: .seconds(3), threadCPUTime: true)

    /// About a second of debug-build work per target.
    static let iterations: [Fuzzer.Target: Int] = [.job: 1500, .span: 4000, .event: 3000, .phrase: 4000, .calendar: 150, .config: 600]

    @Test(arguments: Fuzzer.Target.allCases)
    func aSeededRunFindsNothing(target: Fuzzer.Target) throws {
        try seededRun(target)
    }

    func seededRun(_ target: Fuzzer.Target) throws {
        var fuzzer = Fuzzer(target: target, seed: 20261122, budget: Self.budget)
        let runs = Self.iterations[target]!
        var accepted = 0
        fuzzer.willRun = { input in
            let text = String(decoding: input, as: UTF8.self)
            let valid: Bool
            switch target {
            case .job: valid = (try? Job.decode(Array(input))) != nil
            case .span: valid = (try? TimeSpan.parse(text)) != nil
            case .event: valid = (try? CalendarEvent.parse(text)) != nil
            case .phrase: valid = (try? TimePhrase.parse(text, now: Instant(seconds: 1_795_352_730), zone: .utc)) != nil
            case .calendar: valid = (try? ICalendarFile(path: "f.ics", bytes: input)) != nil
            case .config: valid = (try? ConfigLoader.load(contents: Array(input), path: "c.yaml", environment: [:])) != nil
            }
            if valid { accepted += 1 }
        }
        while fuzzer.executions < runs {
            do { try fuzzer.run(iterations: runs - fuzzer.executions) } catch { Issue.record("\(error)") }
        }
        // Mutations must still reach the readers' deeper paths: many inputs stay valid.
        #expect(accepted > runs / 20, "only \(accepted) of \(runs) mutated inputs were valid")
    }

    static let kept = Fuzzer.regressions().map { (file: "\($0.target.rawValue)/\($0.name)", target: $0.target, bytes: $0.bytes) }

    @Test(arguments: kept.map(\.file))
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
        let listed = Self.pending
        #expect(listed.subtracting(files).isEmpty, "pending regressions without a file: \(listed.subtracting(files).sorted())")
        #expect(!Self.kept.isEmpty, "no regression files found under \(Fuzzer.regressionDirectory)")
    }
}
