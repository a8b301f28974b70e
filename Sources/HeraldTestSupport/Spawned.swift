import Foundation
import HeraldCore

/// A started program (HeraldCore's `ChildProcess`: posix_spawn directly), so that the time
/// measured around it is the program's own, with no shell and no Foundation process machinery
/// in between. Children start with no signal blocked and every signal at its default: the mask
/// and dispositions of this process's threads (Dispatch blocks signals in its own) must not
/// leak into the programs measured, nor into a dbus-daemon that must die on SIGTERM.
public final class Spawned {
    private let child: ChildProcess
    public var pid: pid_t { child.pid }
    public let name: String

    init(_ child: ChildProcess) {
        self.child = child
        name = (child.program as NSString).lastPathComponent
    }

    /// Starts `path`. Standard input is `stdinPath` (or /dev/null); standard output and error
    /// both go to `outputPath`.
    public static func start(_ path: String, _ arguments: [String], environment: [String: String],
                             stdinPath: String = "/dev/null", outputPath: String) throws(SetupError) -> Spawned {
        let command = ChildProcess.Command(path, arguments, environment: environment, input: .file(stdinPath),
                                           output: .file(outputPath), error: .standardOutput)
        do throws(SpawnError) { return Spawned(try command.start()) } catch { throw SetupError(error.description) }
    }

    /// Waits for the program to end; its exit status (128+N for signal N).
    @discardableResult
    public func wait() -> Int32 { child.wait().code }

    /// The exit status if the program has ended, nil while it runs.
    public func poll() -> Int32? { child.poll()?.code }

    public func signal(_ sig: Int32) { child.signal(sig) }

    /// Runs a program to completion, timing it from just before posix_spawn to just after
    /// waitpid; what it printed (output and errors) ends up in `outputPath`. Only the program
    /// is timed: its command line, environment and file actions are built before the clock
    /// starts, and its output goes to a pipe, as to a terminal or `$(...)`, not to a file
    /// (ext4 writes out a truncated-then-written file when it is closed: a disk write at every
    /// exit that neither program asked for). The wait sleeps, as a shell's does, so the
    /// daemon reacting to a new job has the other core, as it would.
    public static func timed(_ path: String, _ arguments: [String], environment: [String: String], stdinPath: String = "/dev/null",
                             outputPath: String) throws(SetupError) -> (status: Int32, nanoseconds: UInt64) {
        // Close-on-exec: the child gets only its dup2'ed copy.
        guard let ends = Descriptor.pipe() else { throw SetupError("cannot make a pipe: \(String(cString: strerror(errno)))") }
        var printed: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let command = ChildProcess.Command(path, arguments, environment: environment, input: .file(stdinPath),
                                           output: .descriptor(ends.write.raw), error: .standardOutput)
        let start = monotonicNanoseconds()
        let child: ChildProcess
        do throws(SpawnError) { child = try command.start() } catch {
            throw SetupError(error.description)
        }
        ends.write.close()
        // Read until the program's end closes the pipe, then collect it.
        while true {
            let n = read(ends.read.raw, &buffer, buffer.count)
            if n > 0 { printed += buffer[..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        let status = child.wait()
        let elapsed = monotonicNanoseconds() - start
        ends.read.close()
        guard FileManager.default.createFile(atPath: outputPath, contents: Data(printed)) else {
            throw SetupError("cannot write \(outputPath)")
        }
        return (status.code, elapsed)
    }
}
