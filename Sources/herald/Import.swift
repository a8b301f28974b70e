import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import HeraldCore

extension Herald {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Enqueue many jobs at once from JSON Lines (one job document per line).",
            discussion: """
                Every line is checked first; if any is bad, nothing is written and each problem is \
                listed (exit 65). Lines without an id get one. The jobs enter the spool as one batch \
                file, which heraldd takes in at once.

                Example:
                  herald import jobs.jsonl
                  generate-jobs | herald import -
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "A JSON Lines file, or - for standard input.")
        var file: String

        func run() throws {
            let data = try readInput(file)
            let ctx = try CLIContext.load(global)
            let decoded = JobBatch.decode(data, localZone: ctx.zone)
            var problems = decoded.problems.map(\.description)
            var seen = Set<String>()
            var lines: [String] = []
            lines.reserveCapacity(decoded.jobs.count)
            var rng = SystemRandomNumberGenerator()
            for (line, var job) in decoded.jobs {
                let number = line.number
                if job.id == nil { job.id = JobID.random(using: &rng) }
                if !seen.insert(job.id!).inserted { problems.append("line \(number): id '\(job.id!)' appears twice") }
                if job.kind == .run && !ctx.config.commands.enabled {
                    problems.append("line \(number): a run job, and commands are off in the config (commands: off)")
                }
                if job.every.isEmpty, let at = job.at, at <= ctx.now {
                    problems.append("line \(number): 'at' \(ISO8601.format(at, in: ctx.zone)) is in the past")
                }
                lines.append(job.encoded(zone: ctx.zone))
            }
            if decoded.jobs.isEmpty && problems.isEmpty { problems.append("no jobs in '\(file)'") }
            if !problems.isEmpty {
                let shown = problems.prefix(20)
                writeAll(2, shown.map { "herald: \(TextSafety.visible("\($0)"))\n" }.joined())  // they quote the file
                if problems.count > shown.count {
                    writeAll(2, "herald: ... and \(problems.count - shown.count) more\n")
                }
                throw CLIError.data("nothing imported: \(problems.count) problem\(problems.count == 1 ? "" : "s") in '\(file)'")
            }
            let taken = try ctx.spool.pendingIDs()
            if let clash = seen.first(where: taken.contains) {
                throw CLIError.data("nothing imported: id '\(clash)' is already pending")
            }
            try ctx.prepareSpool(adding: lines.count)
            do {
                let path = try ctx.spool.submit(lines.joined(separator: "\n") + "\n", name: "import-\(ctx.newID()).jsonl")
                say("Imported \(lines.count) job\(lines.count == 1 ? "" : "s") (\(ctx.spool.relative(path)))")
            } catch {
                throw CLIError.failure("\(error)")
            }
        }
    }
}
