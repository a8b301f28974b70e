#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import HeraldCore

extension Herald.HabitCommand {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write every habit in Loop Habit Tracker's CSV export layout.",
            discussion: """
                DIR gets Habits.csv, a folder per habit ("001 Drink water") with Checkmarks.csv \\
                and Scores.csv, and Checkmarks.csv and Scores.csv with all habits side by side, \\
                as Loop Habit Tracker 2.3 writes them. Paused days are written as skipped (Loop \\
                has no pause). DIR must be empty or not exist yet.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("The folder to write into.", valueName: "dir"))
        var csv: String

        func run() throws {
            let ctx = try CLIContext.load(global)
            if FileSystem.exists(csv, followLinks: true) {
                guard let names = try? FileSystem.list(csv), names.isEmpty else {
                    throw CLIError.data("--csv: '\(csv)' is not an empty folder (nothing written)")
                }
            }
            let habits = try ctx.habits()
            let loop = habits.enumerated().map { k, h -> (habit: LoopHabit, history: HabitHistory) in
                let history = h.history(ctx)
                return (LoopHabit(job: h.job, contents: history.contents, history: history, position: k), history)
            }
            let files = LoopCSV.export(loop)
            do {
                try FileSystem.makeDirectory(csv)
                for (path, text) in files {
                    let full = csv + "/" + path
                    try FileSystem.makeDirectory(parentDirectory(of: full))
                    try AtomicReplace.write(text.utf8, to: full)
                }
            } catch {
                throw CLIError.failure("\(error)")
            }
            say("Exported \(habits.count) habit\(habits.count == 1 ? "" : "s") to \(csv) (Loop Habit Tracker's CSV layout)")
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import habits from a Loop Habit Tracker backup (.db) or CSV export (folder or Habits.csv).",
            discussion: """
                Frequencies, numerical habits (target, unit, at least / at most), reminders, \\
                skips and the whole history are kept; archived habits come in paused. A Loop \\
                habit without a reminder reminds daily at 09:00. Anything that cannot be mapped \\
                (a name already taken, a numerical target of 0, ...) is named and nothing is \\
                imported. Backups are read by herald-loop-db (installed with herald).
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Check the file and say what would be imported, without importing.")
        var dryRun = false

        @Argument(help: "A Loop backup (.db), an export folder, or its Habits.csv.")
        var file: String

        func run() throws {
            let ctx = try CLIContext.load(global)
            let loop = try read(ctx)
            guard !loop.isEmpty else { throw CLIError.data("'\(file)': no habits in it") }
            let pending = try ctx.pendingJobs()
            let existing = Set(try ctx.habits().map { $0.title.lowercased() })
            var seen = Set<String>()
            var plans: [(job: Job, log: [HabitLog.Entry], note: String?)] = []
            var ids = Set<String>()
            for habit in loop {
                var plan: (job: Job, log: [HabitLog.Entry], note: String?)
                do { plan = try habit.heraldHabit(now: ctx.now, zone: ctx.zone) } catch {
                    throw CLIError.data("'\(file)': \(error) (nothing imported)")
                }
                let title = plan.job.title!
                guard !existing.contains(title.lowercased()) else {
                    throw CLIError.data("'\(file)': a habit named '\(title)' exists already; remove or rename it first (nothing imported)")
                }
                guard seen.insert(title.lowercased()).inserted else {
                    throw CLIError.data("'\(file)': two habits are named '\(title)' (nothing imported)")
                }
                do { _ = try JobSchedule(plan.job, localZone: ctx.zone) } catch {
                    throw CLIError.data("'\(file)': habit '\(title)': \(error) (nothing imported)")
                }
                plan.job.id = ctx.freeHabitID(for: title, pending: pending, also: ids)
                ids.insert(plan.job.id!)
                plans.append(plan)
            }
            for plan in plans {
                let days = Set(plan.log.map(\.date)).count
                say("\(dryRun ? "Would import" : "Importing") '\(plan.job.title!)' (\(plan.job.id!)): "
                    + "\(plan.job.times?.phrase ?? "daily")\(plan.job.target.map { ", " + $0.phrase } ?? ""), "
                    + "\(days) day\(days == 1 ? "" : "s") of history" + (plan.note.map { "; " + $0 } ?? ""))
            }
            if dryRun { return }
            try ctx.prepareSpool(adding: plans.count)
            // Logs first, then the jobs: a failure part-way removes what was written.
            var written: [String] = []
            do {
                for plan in plans {
                    let log = HabitLog(spool: ctx.spool, id: plan.job.id!)
                    try log.append(plan.log)
                    written.append(log.path)
                }
                _ = try ctx.spool.submit(plans.map { $0.job.encoded(zone: ctx.zone) }.joined(separator: "\n") + "\n",
                                         name: "habit-import-\(ctx.newID()).jsonl")
            } catch {
                for path in written { unlink(path) }
                throw CLIError.failure("\(error) (nothing imported)")
            }
            say("Imported \(plans.count) habit\(plans.count == 1 ? "" : "s") from \(file)")
        }

        func read(_ ctx: CLIContext) throws -> [LoopHabit] {
            guard FileSystem.exists(file, followLinks: true) else { throw CLIError.data("'\(file)': no such file or folder") }
            var folder = file
            var info = stat()
            if stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                folder = file
            } else if file.hasSuffix("Habits.csv") {
                folder = parentDirectory(of: file)
            } else {
                return try readBackup(ctx)
            }
            do {
                return try LoopCSV.read { (path: String) throws(LoopImportError) -> String? in
                    let full = folder + "/" + path
                    guard FileSystem.exists(full) else { return nil }
                    guard let bytes = try? FileSystem.read(full) else { throw LoopImportError("\(path): cannot be read") }
                    guard let text = String(validating: bytes, as: UTF8.self) else { throw LoopImportError("\(path): not UTF-8") }
                    return text
                }
            } catch {
                throw CLIError.data("'\(file)': \(error) (nothing imported)")
            }
        }

        func readBackup(_ ctx: CLIContext) throws -> [LoopHabit] {
            let reader = try LoopReader.path()
            let result = try LoopReader.run(reader, file)
            guard result.status == 0 else {
                let message = result.stderr.trimmingSpaces
                throw CLIError.data((message.hasPrefix("herald-loop-db: ") ? String(message.dropFirst(16)) : message) + " (nothing imported)")
            }
            do { return try LoopHabit.fromBackupJSON(Array(result.stdout.utf8), zone: ctx.zone) } catch {
                throw CLIError.data("'\(file)': \(error) (nothing imported)")
            }
        }
    }
}


/// Finds `herald-loop-db` (`installedHelper`).
enum LoopReader {
    static func path() throws -> String {
        let (found, candidates) = installedHelper("herald-loop-db")
        if let found { return found }
        throw CLIError.failure("herald-loop-db, which reads Loop backups, is not installed beside herald (looked in \(candidates.prefix(2).joined(separator: ", ")) and PATH)")
    }

    /// Runs the reader on `file`; its output and errors are read as it prints them, so a big
    /// backup cannot fill a pipe nobody reads yet. The status as a shell reports it.
    static func run(_ reader: String, _ file: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let output: ChildProcess.Output
        do throws(SpawnError) { output = try ChildProcess.collect(reader, [file], collectErrors: true) } catch {
            throw CLIError.failure("cannot run \(reader): \(error.reason)")
        }
        return (output.status.code, String(decoding: output.standardOutput, as: UTF8.self),
                String(decoding: output.standardError, as: UTF8.self))
    }
}
