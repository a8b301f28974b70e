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
    struct Cancel: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel",
            abstract: "Cancel pending jobs.",
            discussion: """
                The job file moves to the spool's cancelled/ directory; nothing is deleted. A synced \
                job (made with --sync) is removed from your synced calendar, and so, after the next \
                sync, from every device. A job of this machine is the one meant when a synced \
                item has the same name (others write to a synced calendar too).
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Job ids (or unique prefixes).")
        var ids: [String]

        func validate() throws {
            if ids.isEmpty { throw ValidationError("name at least one job id (see 'herald list')") }
        }

        func run() throws {
            let ctx = try CLIContext.load(global)
            // A run job's command that is going now is ended as its --timeout would end it; a
            // one-shot whose command runs is no longer pending, so there is nothing else to cancel.
            let runs = RunFiles(spool: ctx.spool)
            var ids = self.ids
            for id in self.ids where Job.isValidID(id) {
                let stopped = try runs.stop(id)
                guard !stopped.isEmpty else { continue }
                say("Stopping the running command of \(id) (run \(stopped.map(String.init).joined(separator: ", "))): SIGTERM to its process group, SIGKILL 10 s later")
                if (try? ctx.findOne(id)) == nil { ids.removeAll { $0 == id } }
            }
            // All found before any is cancelled.
            let synced = try ids.map { try ctx.syncedTarget($0) }
            let targets = try zip(ids, synced).compactMap { id, s in s == nil ? try ctx.findOne(id) : nil }
            for target in synced.compactMap({ $0 }) {
                try ctx.cancelSynced(target)
                say("Cancelled \(target.id) (synced; removed from \(target.path))")
            }
            for target in targets {
                if case .jobs = target.location, let answer = try ctx.askDaemon(.cancel(id: target.id)) {
                    // heraldd moved it, ended its popup and wrote the history.
                    guard case .cancelled = answer else { throw CLIError.failure("heraldd answered something else") }
                } else {
                    try ctx.cancel(target)
                }
                say("Cancelled \(target.id) (\(ctx.kindLabel(target)))")
            }
        }
    }
}

extension CLIContext {
    /// Moves a pending job to `cancelled/`, following it if the daemon renames it meanwhile.
    func cancel(_ target: PendingJob) throws {
        var current = target
        for _ in 0..<5 {
            do {
                switch current.location {
                case .jobs(let name):
                    try spool.cancel(name)
                case .intake(let file):
                    try FileSystem.move(spool.new + "/" + file, to: spool.cancelled + "/" + file)
                case .batch(let file, _):
                    throw CLIError.data("job '\(target.id)' is in the batch 'new/\(file)', which heraldd has not taken in yet: start heraldd, then cancel it")
                }
                return
            } catch let error as FileSystemError where error.isNotFound {
                // The daemon moved it (took it in, or fired it): look again.
                guard let again = try spool.findPending(target.id, defaultLead: config.lead, localZone: zone, now: now).first(where: { $0.id == target.id }) else {
                    throw CLIError.data("job '\(target.id)' is no longer pending (it just fired?)")
                }
                current = again
            } catch let error as FileSystemError {
                throw CLIError.failure("\(error)")
            }
        }
        throw CLIError.failure("job '\(target.id)' kept moving; try again")
    }
}
