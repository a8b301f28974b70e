import Foundation
import HeraldFuzz

// herald-fuzz [--seconds N] [--seed S] [--target job|span|calendar|all]
// Fuzzes Herald's parsers for a bounded time. A property failure is printed and exits 1; a
// crash saves its input to fuzz-crash-<target>.bin (the signal handler writes it) first.

var seconds = 30.0, seed: UInt64 = 1, targets = Fuzzer.Target.allCases
var args = CommandLine.arguments.dropFirst()
while let arg = args.popFirst() {
    switch arg {
    case "--seconds": seconds = Double(args.popFirst() ?? "") ?? seconds
    case "--seed": seed = UInt64(args.popFirst() ?? "") ?? seed
    case "--target":
        let name = args.popFirst() ?? "all"
        targets = name == "all" ? Fuzzer.Target.allCases : [Fuzzer.Target(rawValue: name)].compactMap { $0 }
    default:
        FileHandle.standardError.write(Data("usage: herald-fuzz [--seconds N] [--seed S] [--target job|span|calendar|all]\n".utf8))
        exit(64)
    }
}

/// The input under test, kept where a signal handler can reach it without allocating.
nonisolated(unsafe) var current = [UInt8](repeating: 0, count: 8192)
nonisolated(unsafe) var currentLength = 0
nonisolated(unsafe) var crashPath = [CChar](repeating: 0, count: 256)

for sig in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
    signal(sig) { sig in
        let fd = open(crashPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if fd >= 0 { _ = write(fd, current, currentLength); close(fd) }
        let note = "herald-fuzz: crashed; the input is saved\n"
        _ = write(2, note, note.utf8.count)
        _exit(2)
    }
}

let perTarget = seconds / Double(targets.count)
for target in targets {
    var fuzzer = Fuzzer(target: target, seed: seed)
    let path = "fuzz-crash-\(target.rawValue).bin"
    path.withCString { p in _ = strncpy(&crashPath, p, 255) }
    fuzzer.willRun = { input in
        currentLength = min(input.count, current.count)
        current.withUnsafeMutableBufferPointer { buffer in _ = input.withUnsafeBufferPointer { memcpy(buffer.baseAddress!, $0.baseAddress!, currentLength) } }
    }
    let deadline = Date().addingTimeInterval(perTarget)
    var runs = 0
    do {
        while Date() < deadline {
            try fuzzer.run(iterations: 1000)
            runs += 1000
        }
    } catch {
        print("herald-fuzz: \(error)")
        exit(1)
    }
    print("herald-fuzz: \(target.rawValue): \(runs) inputs, seed \(seed), no crash, no property broken")
}
