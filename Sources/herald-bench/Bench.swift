import ArgumentParser
import Foundation
import HeraldCore
import HeraldTestSupport

@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald-bench",
        abstract: "Measure heraldd and herald against their targets on a private D-Bus session bus.",
        discussion: """
            Starts its own dbus-daemon and a notification server that notes when each Notify \
            call arrives, then drives the real heraldd and herald binaries: a queue of --jobs \
            reminders, lateness over --lateness jobs, a burst, pickups, memory, idle wake-ups, \
            restarts, enqueue time against 'at', and bulk import. Prints one table; with \
            --output, also writes it into that Markdown file between its herald-bench markers.

            It checks its own set-up (server up, daemon ready, every job accepted, every popup \
            received exactly once) and stops with exit status 1 and the reason instead of \
            printing figures from a broken run. Missed targets are reported, not errors.

            Examples:
              make bench                                   # release build, full run, BENCHMARKS.md
              herald-bench --smoke                         # a quick run that checks it works
            """)

    @Option(help: ArgumentHelp("Where herald and heraldd are (default: beside herald-bench).", valueName: "dir"))
    var bin: String?

    @Option(help: "Jobs kept queued, due an hour or more later.")
    var jobs = 100_000

    @Option(help: "Jobs whose lateness is measured, spread over --spread.")
    var lateness = 2_000

    @Option(help: ArgumentHelp("Seconds over which the lateness jobs are spread.", valueName: "seconds"))
    var spread = 20.0

    @Option(help: "Jobs due at the same instant (at most 1,000,000), in each of five bursts (two in a smoke run), each followed by the floor's.")
    var burst = 1_000

    @Option(help: "Jobs renamed into new/ one at a time, due at once.")
    var pickups = 200

    @Option(help: ArgumentHelp("Seconds the idle daemon is watched.", valueName: "seconds"))
    var idle = 30.0

    @Option(help: "Timed runs of 'herald remind' and of 'at' each.")
    var enqueues = 200

    @Option(help: "Restarts timed to READY=1.")
    var restarts = 3

    @Flag(help: "A small run (100 queued jobs, short phases) that checks the benchmark works; figures are not judged.")
    var smoke = false

    @Option(help: ArgumentHelp("A Markdown file to write the table into (between herald-bench markers).", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("The command line to name in the report.", valueName: "text"))
    var command: String?

    @Option(help: ArgumentHelp("Where to make the working directory (default: $XDG_CACHE_HOME or ~/.cache).", valueName: "dir"))
    var workdir: String?

    @Option(help: ArgumentHelp("Where the floor programs' C sources are (notify-floor.c, file-floor.c); each run builds them and measures its rows against them.", valueName: "dir"))
    var floorSources = "scripts/bench"

    @Flag(help: "Keep the working directory (spool, logs) afterwards.")
    var keep = false

    @Option(help: ArgumentHelp("Instead of the full run, the scale curve: for each of these queue sizes, import, intake, READY after a restart, RSS, lateness and the CLI's times (comma-separated, e.g. 1000,10000,100000,1000000).", valueName: "sizes"))
    var scale: String?

    @Option(help: ArgumentHelp("With --scale, also write the figures as JSON here (for scripts/bench/plot-scale.py).", valueName: "file"))
    var scaleJSON: String?

    mutating func validate() throws {
        if smoke {
            jobs = 100; lateness = 50; spread = 1; burst = 20; pickups = 10; idle = 2; enqueues = 5; restarts = 1
        }
        for (name, value) in [("--jobs", jobs), ("--lateness", lateness), ("--burst", burst), ("--pickups", pickups),
                              ("--enqueues", enqueues), ("--restarts", restarts)] where value < 1 {
            throw ValidationError("\(name): \(value) must be at least 1")
        }
        guard spread > 0, idle > 0 else { throw ValidationError("--spread and --idle must be more than 0 seconds") }
        // Each of the bursts has keys of its own (round × burst + k): a bound keeps them in range.
        guard burst <= Self.maxBurst else { throw ValidationError("--burst: \(burst) must be at most \(Self.maxBurst)") }
    }

    static let maxBurst = 1_000_000

    func run() throws {
        closeInheritedDescriptorsOnExec()
        let directory = bin ?? Self.ownDirectory()
        if let scale { return runScale(scale, binaries: directory) }
        let plan = Plan(jobs: jobs, lateness: lateness, spread: spread, burst: burst, pickups: pickups, idle: idle,
                        enqueues: enqueues, restarts: restarts, smoke: smoke)
        let run: BenchRun
        do { run = try BenchRun(binaries: directory, workDirectory: workdir, plan: plan, floorSources: floorSources) } catch { Self.fail(error) }
        defer { run.tearDown(keep: keep) }
        let report: Report
        do { report = try run.measure(command: command ?? CommandLine.arguments.joined(separator: " ")) } catch {
            run.tearDown(keep: true)
            Self.fail(error, logs: run.directory)
        }
        print(report.table)
        for note in report.notes { print("- " + note) }
        if let output {
            do { try report.write(to: output) } catch {
                Self.fail(BenchError("cannot write \(output): \(error)"))
            }
            print("Written to \(output).")
        }
    }

    func runScale(_ sizes: String, binaries: String) {
        let counts = sizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 >= 100 }) else { Self.fail(BenchError("--scale: '\(sizes)' is not a list of queue sizes of 100 or more")) }
        var rows: [ScaleRow] = []
        // Every size's spool is kept until the last size has run: removing 100,000 files slows
        // the creation of files near them for minutes on ext4 without a journal, which the next
        // size's intake would measure (BENCHMARKS.md, quirks). The first size waits out an
        // earlier run's clean-up, as a full run does.
        var kept: [BenchRun] = []
        for (k, count) in counts.enumerated() {
            let plan = Plan(jobs: count, lateness: 500, spread: 5, burst: 10, pickups: 1, idle: 1, enqueues: 1, restarts: 1,
                            smoke: false, scale: true, waitForCleanup: k == 0)
            let run: BenchRun
            do { run = try BenchRun(binaries: binaries, workDirectory: workdir, plan: plan, floorSources: floorSources) } catch { Self.fail(error) }
            do { rows.append(try run.measureScale(runs: 9)) } catch {
                run.tearDown(keep: true)
                Self.fail(error, logs: run.directory)
            }
            run.tearDown(keep: true)
            kept.append(run)
            print("\(count) jobs: " + String(data: (try? JSONEncoder().encode(rows.last!)) ?? Data(), encoding: .utf8)!)
        }
        if !keep { for run in kept { run.removeDirectory() } }
        let table = ScaleReport.table(rows, machine: Report.describeMachine(swiftVersion: BenchRun.swiftVersion()),
                                      date: BenchRun.today(), command: command ?? CommandLine.arguments.joined(separator: " "))
        print(table)
        do {
            if let output { try ScaleReport.write(table, to: output) }
            if let scaleJSON {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(rows).write(to: URL(fileURLWithPath: scaleJSON))
            }
        } catch { Self.fail(BenchError("cannot write the scale figures: \(error)")) }
    }

    static func fail(_ error: any Error, logs: String? = nil) -> Never {
        var message = "herald-bench: \(error)\n"
        if let logs { message += "herald-bench: no figures printed; the spool and logs are kept in \(logs)\n" }
        FileHandle.standardError.write(Data(message.utf8))
        Foundation.exit(1)
    }

    static func ownDirectory() -> String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (exe as NSString).deletingLastPathComponent
    }
}

struct Plan {
    var jobs: Int
    var lateness: Int
    var spread: Double
    var burst: Int
    var pickups: Int
    var idle: Double
    var enqueues: Int
    var restarts: Int
    var smoke: Bool
    /// A point of the scale curve: longer intakes.
    var scale = false
    /// Whether to wait out an earlier run's clean-up first (a full run, and a scale curve's first size).
    var waitForCleanup = true
    /// Jobs in the first import that come due while heraldd files it.
    var firstStartJobs: Int { smoke ? 5 : 20 }
    /// Bursts timed, each followed by the floor's: the row gives the medians. One of each
    /// moved ±10 % from run to run on the same build (BENCHMARKS.md, issue 41). A smoke run
    /// times two, so that `make test` goes through the rounds too.
    var burstRounds: Int { scale ? 1 : smoke ? 2 : 5 }
}
