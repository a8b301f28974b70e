import Foundation
import HeraldCore
import HeraldFuzz
import Synchronization

// herald-fuzz [--seconds N] [--seed S] [--target NAME[,NAME...]|all] [--budget-ms MS] [--memory-mb MB] [--regressions DIR]
// (each target runs in a child process, `--child`, restarted with the next seed after a crash or hang)
// herald-fuzz [--budget-ms MS] --replay TARGET FILE...
// Fuzzes Herald's readers for a bounded time, shared equally by the targets. An input that
// breaks a property or blows a budget is saved as a regression file and the run goes on; a
// crash or a hang saves its input (from the signal handler or the watchdog) and ends that child,
// and the next one goes on from another seed.
// Saved inputs land in DIR/<target>/ (the repository's Tests/HeraldCoreTests/Fixtures/
// fuzz-regressions by default), where FuzzTests replays every one of them.

var seconds = 30.0, seed: UInt64 = 1, targets = Fuzzer.Target.allCases
var budget = Fuzzer.Budget(time: .seconds(1), peakMemory: 1024 << 20)
var directory = Fuzzer.regressionDirectory
/// One target's run in a process of its own, started by the supervising herald-fuzz.
var child = false
let usage = "usage: herald-fuzz [--seconds N] [--seed S] [--target \(Fuzzer.Target.allCases.map(\.rawValue).joined(separator: "|"))|all] "
    + "[--budget-ms MS] [--memory-mb MB] [--regressions DIR]\n       herald-fuzz [--budget-ms MS] --replay TARGET FILE...\n"
var args = CommandLine.arguments.dropFirst()
while let arg = args.popFirst() {
    switch arg {
    case "--seconds": seconds = Double(args.popFirst() ?? "") ?? seconds
    case "--seed": seed = UInt64(args.popFirst() ?? "") ?? seed
    case "--budget-ms": budget.time = .milliseconds(Int(args.popFirst() ?? "") ?? 1000)
    case "--memory-mb":
        let mb = Int(args.popFirst() ?? "") ?? 1024
        budget.peakMemory = mb > 0 ? mb << 20 : nil  // 0: not watched
    case "--regressions": directory = args.popFirst() ?? directory
    case "--child": child = true
    case "--replay":
        // herald-fuzz --replay TARGET FILE...: runs kept inputs once and says what each does.
        let target = Fuzzer.Target(rawValue: args.popFirst() ?? "")
        guard let target else { FileHandle.standardError.write(Data(usage.utf8)); exit(64) }
        var failed = false
        for file in args {
            guard let data = FileManager.default.contents(atPath: file) else { print("\(file): cannot read"); failed = true; continue }
            do { try Fuzzer.check(target, Array(data), budget: budget); print("\(file): passes") } catch {
                print("\(file): \(error.kind == .budget ? "blew a budget" : "broke a property"): \(error.problem)")
                failed = true
            }
        }
        exit(failed ? 1 : 0)
    case "--target":
        let names = (args.popFirst() ?? "all").split(separator: ",").map(String.init)
        targets = names == ["all"] ? Fuzzer.Target.allCases : names.compactMap { Fuzzer.Target(rawValue: $0) }
        if targets.count != names.count && names != ["all"] {
            FileHandle.standardError.write(Data(usage.utf8))
            exit(64)
        }
    default:
        FileHandle.standardError.write(Data(usage.utf8))
        exit(64)
    }
}

/// The input under test and where it goes if the process dies, kept where a signal handler
/// can reach them without allocating.
nonisolated(unsafe) var current = [UInt8](repeating: 0, count: 32_768)
nonisolated(unsafe) var currentLength = 0
nonisolated(unsafe) var savePrefix = [CChar](repeating: 0, count: 4096)
nonisolated(unsafe) var savePath = [CChar](repeating: 0, count: 4200)
/// Counts inputs started, for the watchdog.
let started = Atomic<Int>(0)

/// Writes the current input to `<prefix><kind>-<FNV-1a of the input>.bin`: async-signal-safe
/// (no allocation, only open/write/close), so the crash handler and the watchdog can use it.
func saveCurrent(kind: StaticString) {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for k in 0..<currentLength { hash = (hash ^ UInt64(current[k])) &* 0x0100_0000_01b3 }
    var n = 0
    while savePrefix[n] != 0 { savePath[n] = savePrefix[n]; n += 1 }
    kind.withUTF8Buffer { for c in $0 { savePath[n] = CChar(bitPattern: c); n += 1 } }
    savePath[n] = 0x2D; n += 1  // "-"
    let hex = Array("0123456789abcdef".utf8)
    for shift in stride(from: 60, through: 0, by: -4) { savePath[n] = CChar(bitPattern: hex[Int((hash >> UInt64(shift)) & 0xF)]); n += 1 }
    for c in Array(".bin".utf8) { savePath[n] = CChar(bitPattern: c); n += 1 }
    savePath[n] = 0
    // Raw calls: this runs in a signal handler, where nothing may allocate (no Descriptor).
    let fd = open(savePath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if fd >= 0 { _ = write(fd, current, currentLength); close(fd) }
    _ = write(2, "herald-fuzz: saved the input to ", 32)
    _ = write(2, savePath, n)
    _ = write(2, "\n", 1)
}

/// Tells the supervisor how many inputs ran, as "herald-fuzz-child: N executions" on stdout
/// (async-signal-safe: digits written by hand).
func reportExecutions() {
    var digits = [UInt8](repeating: 0, count: 24)
    var n = started.load(ordering: .relaxed), k = digits.count
    repeat { k -= 1; digits[k] = UInt8(48 + n % 10); n /= 10 } while n > 0
    _ = write(1, "herald-fuzz-child: ", 19)
    digits.withUnsafeBufferPointer { _ = write(1, $0.baseAddress! + k, 24 - k) }
    _ = write(1, " executions\n", 12)
}

/// Runs each target in a child process for its share of the time, starting another (with the
/// next seed) when one crashes or hangs, so one finding does not end a long run; sums what they did.
@MainActor func supervise() -> Never {
    let perTarget = seconds / Double(targets.count)
    var report: [String] = []
    var total = 0
    for target in targets {
        let clock = ContinuousClock()
        let begin = clock.now
        var executions = 0, findings = 0, deaths = 0
        var elapsed: Double { let d = begin.duration(to: clock.now).components; return Double(d.seconds) + Double(d.attoseconds) / 1e18 }
        while perTarget - elapsed > 0.5 {
            let program = CommandLine.arguments[0].hasPrefix("/") ? CommandLine.arguments[0]
                : FileManager.default.currentDirectoryPath + "/" + CommandLine.arguments[0]
            let arguments = ["--child", "--target", target.rawValue, "--seed", String(seed &+ UInt64(deaths) &* 7919),
                             "--seconds", String(perTarget - elapsed), "--budget-ms", String(budget.time.components.seconds * 1000
                             + budget.time.components.attoseconds / 1_000_000_000_000_000),
                             "--memory-mb", String((budget.peakMemory ?? 0) >> 20), "--regressions", directory]
            let run: ChildProcess.Output
            do { run = try ChildProcess.collect(program, arguments) } catch { print("herald-fuzz: \(error)"); exit(70) }
            let output = String(decoding: run.standardOutput, as: UTF8.self)
            for line in output.split(separator: "\n") {
                if line.hasPrefix("herald-fuzz-child: ") {
                    let words = line.split(separator: " ")
                    executions += Int(words[1]) ?? 0
                    if words.count >= 5 { findings += Int(words[3]) ?? 0 }
                } else {
                    print(line)
                }
            }
            if run.status == .exited(2) || run.status == .exited(3) { deaths += 1; findings += 1 }
            else if run.status != .exited(0) && run.status != .exited(1) { print("herald-fuzz: child ended with \(run.status)"); break }
        }
        total += findings
        report.append("\(target.rawValue): \(executions) executions in \(String(format: "%.1f", elapsed)) s "
                      + "(\(Int(Double(executions) / max(elapsed, 0.001)))/s), \(findings) finding\(findings == 1 ? "" : "s")"
                      + (deaths > 0 ? " (\(deaths) crash\(deaths == 1 ? "" : "es") or hang\(deaths == 1 ? "" : "s"))" : ""))
    }
    print("herald-fuzz: seed \(seed), \(Int(seconds)) s; executions per target:")
    for line in report { print("  " + line) }
    if total > 0 {
        print("herald-fuzz: \(total) finding(s) saved under \(directory)/<target>/; FuzzTests replays them (commit them with the fix)")
        exit(1)
    }
    exit(0)
}
if !child { supervise() }

for sig in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
    signal(sig) { _ in
        _ = write(2, "herald-fuzz: crashed\n", 21)
        saveCurrent(kind: "crash")
        reportExecutions()
        _exit(2)
    }
}

// An input that never returns is a finding too: after ten budgets (at least 10 s) the watchdog
// saves it and ends the run.
let hangAfter = max(10, Int(budget.time.components.seconds) * 10)
Thread.detachNewThread {
    var last = -1, still = 0
    while true {
        sleep(1)
        let now = started.load(ordering: .relaxed)
        if now == last { still += 1 } else { last = now; still = 0 }
        if still >= hangAfter && now > 0 {
            _ = write(2, "herald-fuzz: an input hangs\n", 28)
            saveCurrent(kind: "hang")
            reportExecutions()
            _exit(3)
        }
    }
}

let perTarget = seconds / Double(targets.count)
var findings = 0
var report: [String] = []
for target in targets {
    let folder = directory + "/" + target.rawValue
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    savePrefix = [CChar](repeating: 0, count: savePrefix.count)
    Array((folder + "/").utf8.prefix(savePrefix.count - 1)).enumerated().forEach { savePrefix[$0.offset] = CChar(bitPattern: $0.element) }
    var fuzzer = Fuzzer(target: target, seed: seed, budget: budget)
    fuzzer.willRun = { input in
        currentLength = min(input.count, current.count)
        current.withUnsafeMutableBufferPointer { buffer in _ = input.withUnsafeBufferPointer { memcpy(buffer.baseAddress!, $0.baseAddress!, currentLength) } }
        started.add(1, ordering: .relaxed)
    }
    let clock = ContinuousClock()
    let begin = clock.now
    let deadline = begin.advanced(by: .milliseconds(Int64(perTarget * 1000)))
    var targetFindings = 0
    while clock.now < deadline {
        do { try fuzzer.run(iterations: 100) } catch {
            targetFindings += 1
            print("herald-fuzz: \(error)")
            fflush(nil)  // the supervisor reads a pipe, and a later crash would lose a buffered line
            saveCurrent(kind: error.kind == .budget ? "budget" : "property")
            // Peak memory only grows: once past the budget every later input would be blamed.
            if error.kind == .budget, error.problem.contains("peak memory") { fuzzer.budget.peakMemory = nil }
        }
    }
    let took = Double(begin.duration(to: clock.now).components.attoseconds) / 1e18 + Double(begin.duration(to: clock.now).components.seconds)
    findings += targetFindings
    let line = "\(target.rawValue): \(fuzzer.executions) executions in \(String(format: "%.1f", took)) s "
        + "(\(Int(Double(fuzzer.executions) / max(took, 0.001)))/s), \(targetFindings) finding\(targetFindings == 1 ? "" : "s")"
    report.append(line)
}
print("herald-fuzz-child: \(started.load(ordering: .relaxed)) executions \(findings) findings")
fflush(nil)
exit(findings > 0 ? 1 : 0)
