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

@main
struct Herald: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Schedule desktop notifications: deliveries, reminders and timers.",
        discussion: """
            Jobs go into the spool; heraldd fires each one at its time as a desktop popup. \
            Times are ISO-8601 (2026-11-22T14:05, with or without an offset) or HH:MM (the next \
            such time); spans use systemd's syntax (15m, 1h 30min, 2d).

            Exit status: 0 on success, 64 for a bad option or argument, 65 for bad data (a job \
            file, an unknown job id, a bad config), 1 when something else failed.
            """,
        version: HeraldVersion.string,
        subcommands: [Deliver.self, Remind.self, TimerCommand.self, HabitCommand.self, List.self, Show.self, Cancel.self,
                      Snooze.self, History.self, Status.self, Next.self, Validate.self, Import.self])

    /// Runs the command; Herald's own errors print one line and exit 64/65/1. Synchronous:
    /// an async main would end in dispatch_main, whose thread exit costs this static binary
    /// milliseconds of unwinding.
    static func main() {
        do {
            if let request = FastPath.remind(commandLineArguments()) {
                try request.run()
            } else {
                var command = try parseAsRoot()
                try command.run()
            }
            finish(0)
        } catch let error as CLIError {
            writeAll(2, "herald: \(error.message)\n")
            finish(error.code)
        } catch {
            exit(withError: error)
        }
    }

    /// Ends the process once everything is written: stdio flushed, files already synced and
    /// closed. `_exit` skips the exit handlers of the runtime and libraries, which cost the
    /// short commands a measurable part of their run (see BENCHMARKS.md).
    static func finish(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }
}

/// A refusal: one line naming the value and why, and the exit status that goes with it.
struct CLIError: Error {
    var message: String
    var code: Int32

    /// A bad option or argument (EX_USAGE).
    static func usage(_ message: String) -> CLIError { CLIError(message: message, code: 64) }
    /// Bad data: a job file, an unknown id, a bad config (EX_DATAERR).
    static func data(_ message: String) -> CLIError { CLIError(message: message, code: 65) }
    /// Something else went wrong (a file could not be written).
    static func failure(_ message: String) -> CLIError { CLIError(message: message, code: 1) }
}
