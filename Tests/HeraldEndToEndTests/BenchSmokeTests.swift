import Foundation
import Testing

/// The benchmark program, run small (100 queued jobs) against the built binaries so that it
/// keeps working; `make bench` runs it in full. These check that a run works, not its timings.
@Suite struct BenchSmokeTests {
    static let bench = Binaries.directory + "/herald-bench"

    func run(_ arguments: [String]) throws -> CommandResult {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bench-test-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        return try runCommand(Self.bench, arguments + ["--workdir", work],
                              environment: ["PATH": "/usr/bin:/bin", "HOME": work, "LANG": "C.UTF-8"], timeout: 180)
    }

    @Test func aSmokeRunMeasuresEveryFigure() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString.prefix(8)).md").path
        try "# Benchmarks\n\nNotes that stay.\n".write(toFile: output, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let r = try run(["--smoke", "--bin", Binaries.directory, "--output", output, "--command", "make test"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = r.stdout.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| figure") }
        let names = rows.map { $0.split(separator: "|")[0].trimmingCharacters(in: .whitespaces) }
        #expect(names == ["fire lateness", "burst", "pickup", "start-up", "first start", "intake", "markers in a batch", "import lateness",
                          "import behind a filing batch", "small import after big ones", "restart while filing", "memory", "idle",
                          "enqueue", "enqueue with a profile", "enqueue a command", "command start", "bulk"])
        // The rows judged against a floor measured it in the same run, and give the ratio.
        for name in ["fire lateness", "burst", "intake"] {
            let row = rows.first { $0.hasPrefix("| \(name) |") }.map(String.init) ?? ""
            #expect(row.contains("floor") && row.range(of: #"[0-9]\.[0-9]{2}×"#, options: .regularExpression) != nil, "no floor in \(row)")
        }
        // Bursts are timed in rounds, each followed by the floor's (two in a smoke run).
        let burst = rows.first { $0.hasPrefix("| burst |") }
        #expect(burst?.contains("2 of each, interleaved, medians") == true, "the burst row names its rounds: \(String(describing: burst))")
        for row in rows {
            let result = String(row.split(separator: "|")[2])
            #expect(result.contains { $0.isNumber }, "no figure in \(row)")
            #expect(row.hasSuffix("| — |"), "a smoke run judges nothing: \(row)")
        }
        let file = try String(contentsOfFile: output, encoding: .utf8)
        #expect(file.hasPrefix("# Benchmarks\n\nNotes that stay.\n"))
        #expect(file.contains("by `make test`"))
        #expect(file.contains("Smoke run"))
        #expect(file.contains("| fire lateness |"))
    }

    /// A judged run started within six minutes of an earlier run's clean-up waits out the
    /// rest (ext4 without a journal is slow to create files next to fresh deletions), says so,
    /// and notes its own clean-up for the next run. Run small, not as a smoke run. The earlier
    /// clean-up is made 6 s short of the six minutes, so that a slow start still finds some left.
    @Test func aRunWaitsOutAnEarlierRunsCleanUp() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bench-test-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let marker = work + "/.herald-bench-cleanup"
        try "\(Date().timeIntervalSince1970 - 354)\n".write(toFile: marker, atomically: true, encoding: .utf8)
        let started = Date()
        let r = try runCommand(Self.bench, ["--bin", Binaries.directory, "--workdir", work, "--jobs", "100", "--lateness", "20",
                                            "--spread", "1", "--burst", "5", "--pickups", "2", "--idle", "1",
                                            "--enqueues", "1", "--restarts", "1"],
                               environment: ["PATH": "/usr/bin:/bin", "HOME": work, "LANG": "C.UTF-8"], timeout: 180)
        #expect(r.status == 0, "\(r.stderr)")
        // Up to six seconds are left; how many exactly depends on how fast the program started.
        let waits = (1...6).filter { r.stderr.contains("herald-bench: an earlier run removed its files \(360 - $0) s ago; waiting \($0) s") }
        #expect(waits.count == 1, "\(r.stderr)")
        #expect(waits.allSatisfy { r.stdout.contains("- Waited \($0) s before starting") }, "\(r.stdout)")
        #expect(Date().timeIntervalSince(started) >= 1)
        let written = try #require(Double(String(contentsOfFile: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(written >= started.timeIntervalSince1970 + 1, "the run notes when it removed its own files")
        let left = try FileManager.default.contentsOfDirectory(atPath: work).filter { $0.hasPrefix("herald-bench-") }
        #expect(left.isEmpty, "the working directory is removed: \(left)")
    }

    @Test func aBurstTooLargeForItsRoundsIsRefused() throws {
        let r = try run(["--burst", "1000001"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--burst: 1000001 must be at most 1000000"), "\(r.stderr)")
        #expect(!r.stdout.contains("| figure"))
    }

    @Test func aBrokenSetUpStopsWithAClearMessage() throws {
        let missing = try run(["--smoke", "--bin", "/nonexistent"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "herald-bench: no executable /nonexistent/herald (build first, or pass --bin DIR)\n")
        #expect(!missing.stdout.contains("| figure"))

        // A heraldd that exits at once: no READY=1, so no figures.
        let fake = FileManager.default.temporaryDirectory.appendingPathComponent("bench-bin-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: fake, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: fake) }
        try FileManager.default.createSymbolicLink(atPath: fake + "/herald", withDestinationPath: Binaries.herald)
        try "#!/bin/sh\necho 'heraldd: cannot start' >&2\nexit 73\n".write(toFile: fake + "/heraldd", atomically: true, encoding: .utf8)
        chmod(fake + "/heraldd", 0o755)
        let broken = try run(["--smoke", "--bin", fake])
        #expect(broken.status == 1)
        #expect(broken.stderr.hasPrefix("herald-bench: heraldd did not send READY=1 (it exited with status 73): heraldd: cannot start"),
                "\(broken.stderr)")
        #expect(broken.stderr.contains("no figures printed"))
        #expect(!broken.stdout.contains("| figure"))
    }
}
