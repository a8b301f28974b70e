import HeraldCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A seeded mutation fuzzer for Herald's parsers: the job decoder, the time-span parser and
/// the calendar parser. Inputs are seed examples mutated byte by byte and token by token;
/// each run checks that the parser neither crashes nor breaks its round-trip properties.
public struct Fuzzer {
    public enum Target: String, CaseIterable, Sendable {
        case job, span, calendar, phrase
    }

    /// A property that failed (a crash ends the process instead).
    public struct Finding: Error, CustomStringConvertible {
        public var target: Target
        public var input: [UInt8]
        public var problem: String
        public var description: String { "\(target.rawValue): \(problem) for input \(String(decoding: input, as: UTF8.self).debugDescription)" }
    }

    public let target: Target
    var rng: SeededGenerator
    let seeds: [[UInt8]]
    let tokens: [[UInt8]]

    public init(target: Target, seed: UInt64) {
        self.target = target
        // Mixed with the target's position, not hashValue: String hashing differs per process.
        rng = SeededGenerator(seed: seed &+ UInt64(Target.allCases.firstIndex(of: target)!) &* 0x1000_0000_01B3)
        seeds = Self.corpus(target).map { Array($0.utf8) }
        tokens = Self.dictionary(target).map { Array($0.utf8) }
    }

    /// Called with each input just before it runs, so a crash handler can save it.
    public var willRun: (([UInt8]) -> Void)?

    /// Runs `iterations` mutated inputs.
    ///
    /// - Throws: the first `Finding`.
    public mutating func run(iterations: Int) throws(Finding) {
        for _ in 0..<iterations {
            let input = mutate(seeds[Int(rng.next() % UInt64(seeds.count))])
            willRun?(input)
            try Self.check(target, input)
        }
    }

    /// Runs one input against its target's properties.
    public static func check(_ target: Target, _ input: [UInt8]) throws(Finding) {
        let text = String(decoding: input, as: UTF8.self)
        switch target {
        case .job:
            guard let job = try? Job.decode(Data(input)) else { return }
            let again = try? Job.decode(Data(job.encoded().utf8))
            if again != job { throw Finding(target: target, input: input, problem: "the job does not survive encode/decode") }
        case .span:
            guard let span = try? TimeSpan.parse(text) else { return }
            if (try? TimeSpan.parse(TimeSpan.format(span))) != span {
                throw Finding(target: target, input: input, problem: "'\(TimeSpan.format(span))' does not parse back to \(span.microseconds) µs")
            }
        case .calendar:
            guard let event = try? CalendarEvent.parse(text) else { return }
            guard let again = try? CalendarEvent.parse(event.description), again.description == event.description else {
                throw Finding(target: target, input: input, problem: "the normalized form '\(event)' does not parse to itself")
            }
            var t = Instant(seconds: 1_795_352_700)
            for _ in 0..<3 {
                guard let next = event.next(after: t, in: .utc) else { break }
                if next <= t { throw Finding(target: target, input: input, problem: "elapse \(next) is not after \(t)") }
                t = next
            }
        case .phrase:
            // Any answer is in the zone's reach and not before the current minute.
            let now = Instant(seconds: 1_795_352_730)
            guard let meaning = try? TimePhrase.parse(text, now: now, zone: .utc) else { return }
            if meaning.instant < now - .seconds(60) {
                throw Finding(target: target, input: input, problem: "'\(text)' means \(meaning.instant), before now")
            }
        }
    }

    mutating func mutate(_ seed: [UInt8]) -> [UInt8] {
        if target == .job, rng.next() % 2 == 0, let structured = mutateJob(seed) {
            return rng.next() % 4 == 0 ? mutateBytes(structured) : structured
        }
        return mutateBytes(seed)
    }

    mutating func mutateBytes(_ seed: [UInt8]) -> [UInt8] {
        var b = seed
        let rounds = 1 + Int(rng.next() % 4)
        for _ in 0..<rounds {
            let pos = b.isEmpty ? 0 : Int(rng.next() % UInt64(b.count))
            switch rng.next() % 9 {
            case 0: if !b.isEmpty { b[pos] ^= UInt8(1 << (rng.next() % 8)) }
            case 1: if !b.isEmpty { b[pos] = Self.interesting[Int(rng.next() % UInt64(Self.interesting.count))] }
            case 2: b.insert(UInt8(truncatingIfNeeded: rng.next()), at: pos)
            case 3: if !b.isEmpty { b.removeSubrange(pos..<min(b.count, pos + 1 + Int(rng.next() % 4))) }
            case 4: if !b.isEmpty { let end = min(b.count, pos + 1 + Int(rng.next() % 8)); b.insert(contentsOf: b[pos..<end], at: pos) }
            case 5: b.insert(contentsOf: tokens[Int(rng.next() % UInt64(tokens.count))], at: pos)
            case 6: b = Array(b.prefix(pos))
            case 7:
                let other = seeds[Int(rng.next() % UInt64(seeds.count))]
                let cut = other.isEmpty ? 0 : Int(rng.next() % UInt64(other.count))
                b = Array(b.prefix(pos)) + other[cut...]
            default: if !b.isEmpty { b[pos] = b[pos] &+ UInt8(truncatingIfNeeded: rng.next() % 7) &- 3 }
            }
            if b.count > 4096 { b = Array(b.prefix(4096)) }
        }
        return b
    }

    static let interesting: [UInt8] = Array("0123456789-.:,/*~ \"{}[]\\nuUeE+@".utf8) + [0, 0x7F, 0xC3, 0xFF]

    static func corpus(_ target: Target) -> [String] {
        switch target {
        case .job:
            return [
                #"{"version":1,"kind":"reminder","at":"2026-11-22T14:05:00+01:00","text":"Tea"}"#,
                #"{"version":1,"kind":"delivery","id":"o-1","at":"2026-11-22T13:20:00.250Z","timezone":"Europe/Berlin","recipient":{"name":"Zoë & <Bob>","address":"12 \"Elm\" St"},"items":[{"name":"milk","quantity":2},{"name":"apple"}],"lead":"10min","urgency":"critical","icon":"package"}"#,
                #"{"version":1,"kind":"habit","every":"Mon..Fri 09..17:00/30","title":"Water","icon":"/usr/share/icons/x.png"}"#,
                #"{"version":1,"kind":"reminder","every":"*-*~1 08:00 UTC","at":"2026-12-01T00:00Z","title":"Rent","text":"Pay \u00e9"}"#,
            ]
        case .span:
            return ["15m", "1h 30min", "90", "1.5h", "2 days", "0", "500ms", "3 weeks", "5 M", ".5s", "1y 6month 2w 3d 4h 5min 6s 7ms 8us", "10µs"]
        case .calendar:
            return ["daily", "Mon..Fri 09:00", "Sat,Sun 10:00 Europe/Berlin", "*-*-* 09..17:00/30", "*:0/15", "*:*:0/5",
                    "*-*~1", "*-02~3", "*-1/2-01", "2026-*-01/10 12:00", "quarterly UTC", "@1800000000", "Tue..Thu,Sun 07:15:30.5",
                    "*-*-* 01,02:00/20", "*:*:0/10.5", "monthly Asia/Kolkata", "Mon *-*-1..7 09:00"]
        case .phrase:
            return ["teatime tomorrow", "4pm + 3 days", "10am Jul 31", "now + 15 min", "next friday 17:00", "in 1h 30min",
                    "12/25/27", "25.12.2027", "2027-12-25", "12252027", "9am Europe/London", "noon UTC", "2026-12-24T09:00",
                    "midnight", "9h30", "Jan 31 + 1 month", "Feb 29", "in 2 hours and 5 min"]
        }
    }

    static func dictionary(_ target: Target) -> [String] {
        switch target {
        case .job: return ["null", "true", "false", "1e309", "-0", "\"\\u0000\"", "[]", "{}", "\"every\":\"x\"", "\"lead\":\"-1s\"", "99999999999999999999", "\"\\ud800\"", "[[[[[[[[", "\"kind\":\"habit\""]
        case .span: return ["infinity", "-", "..", "µs", "μs", "month", "y", "99999999999999", ".", " ", "e9"]
        case .calendar: return ["..", "~", "/", "*", ",", ":", "Mon", "sunday", "UTC", " Europe/Berlin", "2199", "1969", "60", "99999999999", "@", ".999999999", "-", " "]
        case .phrase: return [" + ", " - ", "99999999", " years", " hours", "next ", "am", "pm", " tomorrow", "sep", "/", ".", ":", "24", " in ", " Asia/Tokyo", "0000"]
        }
    }
}

/// SplitMix64: a small, fast, seeded generator, so random tests and fuzz runs replay
/// exactly from their seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
