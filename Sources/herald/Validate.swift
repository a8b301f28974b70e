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
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check job files against the job format (version 1).",
            discussion: "A .jsonl file is checked line by line. Prints one line per problem; exit 65 if any.")

        @Argument(help: "Job files (.json: one job; .jsonl: one job per line); - reads standard input.")
        var files: [String]

        func validate() throws {
            if files.isEmpty { throw ValidationError("name at least one file") }
        }

        func run() throws {
            let zone = TimeZoneRules.local(environment: .current())
            var bad = 0
            for file in files {
                let data = try readInput(file)
                let label = file == "-" ? "<stdin>" : file
                if file.hasSuffix(".jsonl") {
                    let results = JobBatch.decode(data, localZone: zone)
                    for problem in results.problems { say("\(label):\(problem.line): \(problem.message)") }
                    bad += results.problems.count
                    if results.problems.isEmpty { say("\(label): ok (\(results.jobs.count) jobs)") }
                } else {
                    if data.count > Job.maximumFileSize {
                        say("\(label): larger than \(Job.maximumFileSize / 1024) KiB (\(data.count) bytes)")
                        bad += 1
                        continue
                    }
                    do {
                        let job = try Job.decode(data, localZone: zone)
                        say("\(label): ok (\(job.kind.rawValue)\(job.id.map { " \($0)" } ?? ""))")
                    } catch {
                        say("\(label): \(error)")
                        bad += 1
                    }
                }
            }
            if bad > 0 { throw ExitCode(65) }
        }
    }
}

/// Reads a file, or standard input for "-".
/// Reads a file, or standard input for "-", up to the size heraldd takes a batch of.
func readInput(_ file: String) throws -> [UInt8] {
    let limit = IntakeReader.maximumBatchSize
    let bytes: [UInt8]
    do throws(FileSystemError) {
        bytes = file == "-" ? try FileSystem.readAll(0, path: "-", limit: limit) : try FileSystem.read(file, limit: limit, followLinks: true)
    } catch {
        throw CLIError.data("cannot read '\(file)': \(error.reason)")
    }
    guard bytes.count <= limit else { throw CLIError.data("'\(file)' is larger than \(limit >> 20) MiB, the most heraldd takes in one batch") }
    return bytes
}
