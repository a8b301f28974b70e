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
            Times are phrases such as "tomorrow 9am", "fri 17:00" or "in 2 hours" (see 'herald when'); \
            spans use systemd's syntax (15m, 1h 30min, 2d).

            Files: the spool is ~/.local/state/herald ($XDG_STATE_HOME/herald), the configuration \
            ~/.config/herald/config.yaml; every key is described in \
            /usr/share/herald/config.yaml.example (from the Debian package; PREFIX/share/herald/ \
            after 'make install'), the job file format in job-v1.schema.json beside it. heraldd runs \
            as the systemd user unit heraldd.service (/usr/lib/systemd/user/), enabled with \
            'systemctl --user enable --now heraldd'.

            Exit status: 0 on success, 64 for a bad option or argument, 65 for bad data (a job \
            file, an unknown job id, a bad config), 74 when the spool cannot be read, 1 when \
            something else failed.
            """,
        version: HeraldVersion.string,
        subcommands: [Deliver.self, Remind.self, TimerCommand.self, AlarmCommand.self, RunCommand.self, HabitCommand.self, List.self, Show.self, Cancel.self, Reschedule.self, Edit.self,
                      Snooze.self, Ack.self, Quiet.self, History.self, Status.self, Next.self, When.self, CalendarCommand.self, Validate.self, Import.self, Doctor.self, Demo.self])

    /// Runs the command; Herald's own errors print one line and exit 64/65/74/1. Synchronous:
    /// an async main would end in dispatch_main, whose thread exit costs this static binary
    /// milliseconds of unwinding.
    static func main() {
        // The synced collection's health, read by a process of its own (SyncHealth.read(within:)).
        if CommandLine.arguments.count == 3, CommandLine.arguments[1] == SyncHealth.probeFlag {
            let health = SyncHealth.read(CommandLine.arguments[2], environment: Environment.current())
            writeAll(1, health.probeLine + "\n")
            Glibc.exit(0)
        }
        do {
            let plain = commandLineArguments()
            if let request = FastPath.remind(plain) {
                try request.run()
            } else if let request = FastPath.run(plain) {
                try request.run()
            } else {
                let arguments = commandLineArguments()
                if let unknown = unknownSubcommand(arguments) {
                    writeAll(2, "Error: \(unknown)\n  See '\((["herald"] + unknownPath(arguments)).joined(separator: " ")) --help' for the commands.\n")
                    finish(64)
                }
                var command = try parseAsRoot()
                try command.run()
            }
            finish(0)
        } catch let error as CLIError {
            warn(error.message)  // messages quote values from files
            finish(error.code)
        } catch let error as FileSystemError {
            warn(error.description)  // the spool could not be read: said, never an empty answer
            finish(74)  // EX_IOERR
        } catch {
            exit(withError: error)
        }
    }

    /// "Unknown command 'lsit'. Did you mean 'list'?" for a word where a subcommand belongs
    /// (ArgumentParser suggests near misses for options, but not for subcommands).
    static func unknownSubcommand(_ arguments: [String]) -> String? {
        var command: ParsableCommand.Type = Herald.self
        for word in arguments {
            if word.hasPrefix("-") { return nil }  // options and everything after them: ArgumentParser's job
            let subcommands = command.configuration.subcommands
            if subcommands.isEmpty { return nil }
            let names = subcommands.map(commandName)
            if let k = names.firstIndex(of: word) { command = subcommands[k]; continue }
            if word == "help" { return nil }
            let close = names.map { ($0, editDistance($0, word)) }.filter { $0.1 <= (word.count <= 3 ? 1 : 2) || $0.0.hasPrefix(word) }
                .sorted { $0.1 < $1.1 }.map(\.0)
            var message = "Unknown command '\(word)'."
            if let best = close.first { message += " Did you mean '\(best)'?" } else { message += " Commands: \(names.joined(separator: ", "))." }
            return message
        }
        return nil
    }

    /// The subcommand words before the unknown one ("habit" in `herald habit ad`).
    static func unknownPath(_ arguments: [String]) -> [String] {
        var command: ParsableCommand.Type = Herald.self
        var path: [String] = []
        for word in arguments {
            let subcommands = command.configuration.subcommands
            guard let k = subcommands.map(commandName).firstIndex(of: word) else { break }
            command = subcommands[k]
            path.append(word)
        }
        return path
    }

    static func commandName(_ type: ParsableCommand.Type) -> String {
        let configuration = type.configuration
        return configuration.commandName ?? ""
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        var row = Array(0...y.count)
        for i in 1...max(1, x.count) where !x.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: y.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (x[i - 1] == y[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return x.isEmpty ? y.count : row[y.count]
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
