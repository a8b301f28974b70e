import HeraldCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A seeded mutation fuzzer for everything Herald reads from outside: job documents and what
/// the daemon then does with a job (its firings, its popup), time spans, calendar expressions,
/// time phrases, iCalendar files and the config file. Inputs are seed examples mutated byte by
/// byte, token by token and line by line; each run checks that the target neither crashes nor
/// breaks its properties, and that no input costs more than its budget.
public struct Fuzzer {
    public enum Target: String, CaseIterable, Sendable {
        /// A job document: decoded, then scheduled, snoozed, repeated and rendered as the daemon would.
        case job
        /// A time span (`1h 30min`).
        case span
        /// A calendar expression (systemd's OnCalendar syntax), parsed and its next elapses.
        case event
        /// A time phrase (`teatime tomorrow`).
        case phrase
        /// An iCalendar file: parsed, expanded over the planning window, its alarms planned into jobs.
        case calendar
        /// The config file's bytes, loaded and put to use.
        case config
    }

    /// A property that failed, or an input that blew its budget (a crash ends the process instead).
    public struct Finding: Error, CustomStringConvertible {
        public enum Kind: String, Sendable { case property, budget }
        public var target: Target
        public var input: [UInt8]
        public var kind: Kind
        public var problem: String
        public var description: String {
            "\(target.rawValue): \(kind == .budget ? "blew a budget: " : "")\(problem) for input "
                + String(decoding: input.prefix(300), as: UTF8.self).debugDescription + (input.count > 300 ? "…" : "")
        }
    }

    /// What one input may cost.
    public struct Budget: Sendable {
        /// The longest one input may run.
        public var time: Duration
        /// The process's peak resident memory may not pass this (bytes); nil: not watched (tests
        /// share their process).
        public var peakMemory: Int?
        /// Whether `time` is counted in the calling thread's CPU time rather than on the wall
        /// clock: the tests run beside hundreds of others on a few cores, where the time a
        /// thread waits for a core is no cost of the input.
        public var threadCPUTime: Bool
        public init(time: Duration = .seconds(1), peakMemory: Int? = nil, threadCPUTime: Bool = false) {
            self.time = time; self.peakMemory = peakMemory; self.threadCPUTime = threadCPUTime
        }
    }

    public let target: Target
    public var budget: Budget
    var rng: SeededGenerator
    let seeds: [[UInt8]]
    let tokens: [[UInt8]]
    /// How many inputs ran.
    public private(set) var executions = 0

    public init(target: Target, seed: UInt64, budget: Budget = Budget()) {
        self.target = target
        self.budget = budget
        // Mixed with the target's position, not hashValue: String hashing differs per process.
        rng = SeededGenerator(seed: seed &+ UInt64(Target.allCases.firstIndex(of: target)!) &* 0x1000_0000_01B3)
        seeds = Self.corpus(target)
        tokens = Self.dictionary(target).map { Array($0.utf8) }
    }

    /// Called with each input just before it runs, so a crash handler can save it.
    public var willRun: (([UInt8]) -> Void)?

    /// Runs `iterations` mutated inputs.
    ///
    /// - Throws: the first `Finding`; calling `run` again goes on with the next input.
    public mutating func run(iterations: Int) throws(Finding) {
        for _ in 0..<iterations {
            let input = mutate(seeds[Int(rng.next() % UInt64(seeds.count))])
            willRun?(input)
            executions += 1
            try Self.check(target, input, budget: budget)
            if let limit = budget.peakMemory, let peak = Self.peakResidentBytes(), peak > limit {
                throw Finding(target: target, input: input, kind: .budget,
                              problem: "the process's peak memory reached \(peak >> 20) MiB (budget \(limit >> 20) MiB)")
            }
        }
    }

    /// The CPU time the calling thread has used, in nanoseconds.
    static func threadCPUNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// Runs one input against its target's properties and its time budget.
    public static func check(_ target: Target, _ input: [UInt8], budget: Budget = Budget()) throws(Finding) {
        let took: Duration
        if budget.threadCPUTime {
            let started = threadCPUNanoseconds()
            try exercise(target, input)
            took = .nanoseconds(threadCPUNanoseconds() - started)
        } else {
            let clock = ContinuousClock()
            let started = clock.now
            try exercise(target, input)
            took = started.duration(to: clock.now)
        }
        if took > budget.time {
            throw Finding(target: target, input: input, kind: .budget, problem: "took \(took) (budget \(budget.time))")
        }
    }

    /// The process's peak resident set (getrusage's ru_maxrss), in bytes.
    static func peakResidentBytes() -> Int? {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return nil }
        return usage.ru_maxrss * 1024
    }

    /// The longest input a mutation makes; iCalendar files need room for a few components.
    var maximumLength: Int { target == .calendar ? 16_384 : 4096 }

    mutating func mutate(_ seed: [UInt8]) -> [UInt8] {
        if target == .job, rng.next() % 2 == 0, let structured = mutateJob(seed) {
            return rng.next() % 4 == 0 ? mutateBytes(structured) : structured
        }
        if target == .calendar || target == .config, rng.next() % 2 == 0 {
            let lines = mutateLines(seed)
            return rng.next() % 3 == 0 ? mutateBytes(lines) : lines
        }
        return mutateBytes(seed)
    }

    mutating func pick<T>(_ list: [T]) -> T { list[Int(rng.next() % UInt64(list.count))] }

    mutating func mutateBytes(_ seed: [UInt8]) -> [UInt8] {
        var b = seed
        let rounds = 1 + Int(rng.next() % 4)
        for _ in 0..<rounds {
            let pos = b.isEmpty ? 0 : Int(rng.next() % UInt64(b.count))
            switch rng.next() % 10 {
            case 0: if !b.isEmpty { b[pos] ^= UInt8(1 << (rng.next() % 8)) }
            case 1: if !b.isEmpty { b[pos] = pick(Self.interesting) }
            case 2: b.insert(UInt8(truncatingIfNeeded: rng.next()), at: pos)
            case 3: if !b.isEmpty { b.removeSubrange(pos..<min(b.count, pos + 1 + Int(rng.next() % 4))) }
            case 4: if !b.isEmpty { let end = min(b.count, pos + 1 + Int(rng.next() % 8)); b.insert(contentsOf: b[pos..<end], at: pos) }
            case 5: b.insert(contentsOf: pick(tokens), at: pos)
            case 6: b = Array(b.prefix(pos))
            case 7:
                let other = pick(seeds)
                let cut = other.isEmpty ? 0 : Int(rng.next() % UInt64(other.count))
                b = Array(b.prefix(pos)) + other[cut...]
            case 8: b = replaceNumber(b, at: pos)
            default: if !b.isEmpty { b[pos] = b[pos] &+ UInt8(truncatingIfNeeded: rng.next() % 7) &- 3 }
            }
            if b.count > maximumLength { b = Array(b.prefix(maximumLength)) }
        }
        return b
    }

    /// The run of digits at or after `pos` replaced by an extreme number: where parsers overflow.
    mutating func replaceNumber(_ b: [UInt8], at pos: Int) -> [UInt8] {
        guard let start = b[pos...].firstIndex(where: { $0 >= 48 && $0 <= 57 }) else { return b }
        let end = b[start...].firstIndex(where: { !($0 >= 48 && $0 <= 57) }) ?? b.count
        var out = b
        out.replaceSubrange(start..<end, with: Array(pick(Self.extremeNumbers).utf8))
        return out
    }

    /// Lines duplicated, dropped, swapped or inserted from the dictionary (a component or a
    /// property at a time, which byte mutations rarely make whole).
    mutating func mutateLines(_ seed: [UInt8]) -> [UInt8] {
        var lines = seed.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        for _ in 0..<(1 + Int(rng.next() % 3)) {
            let k = Int(rng.next() % UInt64(max(lines.count, 1)))
            switch rng.next() % 5 {
            case 0: if !lines.isEmpty { lines.insert(contentsOf: lines[k..<min(lines.count, k + 1 + Int(rng.next() % 12))], at: k) }
            case 1: if !lines.isEmpty { lines.remove(at: k) }
            case 2: if lines.count > 1 { lines.swapAt(k, Int(rng.next() % UInt64(lines.count))) }
            case 3: lines.insert(pick(tokens) + (target == .calendar ? [13] : []), at: min(k, lines.count))
            default: if !lines.isEmpty { lines[k] = replaceNumber(lines[k], at: 0) }
            }
        }
        var out = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
        if out.count > maximumLength { out = Array(out.prefix(maximumLength)) }
        return out
    }

    static let interesting: [UInt8] = Array("0123456789-.:,/*~ \"{}[]\\nuUeE+@;=#'".utf8) + [0, 9, 10, 13, 0x7F, 0xC3, 0xFF]

    /// Numbers at the edges of the integer types and of the calendar.
    static let extremeNumbers = ["0", "1", "9", "59", "60", "99", "366", "999", "9999", "10000", "65535", "2147483647", "2147483648",
                                 "4294967296", "9007199254740993", "9223372036854775807", "9223372036854775808",
                                 "18446744073709551616", "99999999999999999999999", "00000000000000000001"]
}
