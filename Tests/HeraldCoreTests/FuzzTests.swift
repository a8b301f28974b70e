import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldFuzz

/// A short, seeded run of the fuzzer (make fuzz runs it longer), and inputs it once found.
struct FuzzTests {
    @Test(arguments: Fuzzer.Target.allCases)
    func aSeededRunFindsNothing(target: Fuzzer.Target) throws {
        var fuzzer = Fuzzer(target: target, seed: 20261122)
        var accepted = 0
        fuzzer.willRun = { input in
            let text = String(decoding: input, as: UTF8.self)
            switch target {
            case .job: if (try? Job.decode(Data(input))) != nil { accepted += 1 }
            case .span: if (try? TimeSpan.parse(text)) != nil { accepted += 1 }
            case .calendar: if (try? CalendarEvent.parse(text)) != nil { accepted += 1 }
            case .phrase: if (try? TimePhrase.parse(text, now: Instant(seconds: 1_795_352_730), zone: .utc)) != nil { accepted += 1 }
            }
        }
        try fuzzer.run(iterations: 4000)
        // Mutations must still reach the parsers' deeper paths: many inputs stay valid.
        #expect(accepted > 200, "only \(accepted) of 4000 mutated inputs were valid")
    }
}
