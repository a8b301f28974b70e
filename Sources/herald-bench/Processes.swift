import Foundation
import HeraldCore
import Synchronization

/// Why the benchmark stopped: a broken set-up, never a slow figure.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Marks every inherited descriptor above stderr close-on-exec, so that no program this one
/// starts holds on to a pipe its caller waits on.
func closeInheritedDescriptorsOnExec() {
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
        if let fd = Int32(entry), fd > 2 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }
}

/// The monotonic clock, in nanoseconds: for durations measured by the benchmark itself.
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func sleep(milliseconds: Int) { usleep(useconds_t(milliseconds * 1000)) }

/// Everything posix_spawn needs, built before any clock starts: the C strings of the command
/// line and environment, the file actions, and the attributes.
final class Launch {
    let path: String
    private let argv: [UnsafeMutablePointer<CChar>?]
    private let envp: [UnsafeMutablePointer<CChar>?]
    private let actions = UnsafeMutablePointer<posix_spawn_file_actions_t>.allocate(capacity: 1)
    private let attributes = UnsafeMutablePointer<posix_spawnattr_t>.allocate(capacity: 1)

    /// Where a program's standard output and error go.
    enum Output {
        case file(String)
        /// The write end of a pipe (this process closes it after the spawn).
        case descriptor(Int32)
    }

    /// Standard input is `stdinPath` (or /dev/null); standard output and error both go to
    /// `output`.
    init(_ path: String, _ arguments: [String], environment: [String: String], stdinPath: String = "/dev/null",
         output: Output) {
        self.path = path
        argv = ([path] + arguments).map { strdup($0) } + [nil]
        envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        posix_spawn_file_actions_init(actions)
        posix_spawn_file_actions_addopen(actions, 0, stdinPath, O_RDONLY, 0)
        switch output {
        case .file(let outputPath):
            posix_spawn_file_actions_addopen(actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(actions, 1, 2)
        case .descriptor(let fd):
            posix_spawn_file_actions_adddup2(actions, fd, 1)
            posix_spawn_file_actions_adddup2(actions, fd, 2)
        }
        // Children start with no signal blocked and every signal at its default: the mask and
        // dispositions of this process's threads (Dispatch blocks signals in its own) must not
        // leak into the programs measured, nor into a dbus-daemon that must die on SIGTERM.
        // exec already resets caught signals, so only the ignored ones need resetting: one
        // sigaction each in the child instead of 64, which would be time on every timed run.
        posix_spawnattr_init(attributes)
        var none = sigset_t(), ignored = sigset_t()
        sigemptyset(&none)
        sigemptyset(&ignored)
        for signal in Int32(1)...64 {
            var current = sigaction()
            if sigaction(signal, nil, &current) == 0, unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == 1 {
                sigaddset(&ignored, signal)  // SIG_IGN
            }
        }
        posix_spawnattr_setsigmask(attributes, &none)
        posix_spawnattr_setsigdefault(attributes, &ignored)
        posix_spawnattr_setflags(attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    deinit {
        posix_spawn_file_actions_destroy(actions)
        posix_spawnattr_destroy(attributes)
        actions.deallocate()
        attributes.deallocate()
        (argv + envp).forEach { free($0) }
    }

    /// Starts the program; its pid.
    func spawn() throws(BenchError) -> pid_t {
        var pid: pid_t = 0
        let rc = argv.withUnsafeBufferPointer { a in
            envp.withUnsafeBufferPointer { e in
                posix_spawn(&pid, path, actions, attributes, UnsafeMutablePointer(mutating: a.baseAddress!),
                            UnsafeMutablePointer(mutating: e.baseAddress!))
            }
        }
        guard rc == 0 else { throw BenchError("cannot start \(path): \(String(cString: strerror(rc)))") }
        return pid
    }
}

/// A started program: posix_spawn'ed directly, so that the time measured around it is the
/// program's own, with no shell and no Foundation process machinery in between.
final class Spawned {
    let pid: pid_t
    let name: String
    /// The exit status once it has been collected.
    private var status: Int32?

    init(pid: pid_t, name: String) { self.pid = pid; self.name = name }

    /// Starts `path`. Standard input is `stdinPath` (or /dev/null); standard output and error
    /// both go to `outputPath`.
    static func start(_ path: String, _ arguments: [String], environment: [String: String],
                      stdinPath: String = "/dev/null", outputPath: String) throws(BenchError) -> Spawned {
        let launch = Launch(path, arguments, environment: environment, stdinPath: stdinPath, output: .file(outputPath))
        return Spawned(pid: try launch.spawn(), name: (path as NSString).lastPathComponent)
    }

    /// Waits for the program to end; its exit status (128+N for signal N).
    @discardableResult
    func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        status = Self.decode(raw)
        return status!
    }

    /// The exit status if the program has ended, nil while it runs.
    func poll() -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        status = Self.decode(raw)
        return status
    }

    func signal(_ sig: Int32) { if status == nil { kill(pid, sig) } }

    private static func decode(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Runs a program to completion, timing it from just before posix_spawn to just after
    /// waitpid; what it printed (output and errors) ends up in `outputPath`. Only the program
    /// is timed: its command line, environment and file actions are built before the clock
    /// starts, and its output goes to a pipe, as to a terminal or `$(...)`, not to a file
    /// (ext4 writes out a truncated-then-written file when it is closed: a disk write at every
    /// exit that neither program asked for). The wait sleeps, as a shell's does, so the
    /// daemon reacting to a new job has the other core, as it would.
    static func timed(_ path: String, _ arguments: [String], environment: [String: String], stdinPath: String = "/dev/null",
                      outputPath: String) throws(BenchError) -> (status: Int32, nanoseconds: UInt64) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw BenchError("cannot make a pipe: \(String(cString: strerror(errno)))") }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }  // the child gets only its dup2'ed copies
        var printed: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let launch = Launch(path, arguments, environment: environment, stdinPath: stdinPath, output: .descriptor(ends[1]))
        let start = monotonicNanoseconds()
        let pid: pid_t
        do { pid = try launch.spawn() } catch {
            close(ends[0]); close(ends[1])
            throw error
        }
        close(ends[1])
        // Read until the program's end closes the pipe, then collect it.
        while true {
            let n = read(ends[0], &buffer, buffer.count)
            if n > 0 { printed += buffer[..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let elapsed = monotonicNanoseconds() - start
        close(ends[0])
        guard FileManager.default.createFile(atPath: outputPath, contents: Data(printed)) else {
            throw BenchError("cannot write \(outputPath)")
        }
        return (decode(raw), elapsed)
    }
}

/// A private D-Bus session bus: dbus-daemon with a configuration that starts no services.
final class SessionBus {
    let address: String
    private let daemon: Spawned

    init(directory: String) throws(BenchError) {
        let config = directory + "/bus.conf"
        let output = directory + "/dbus-daemon.out"
        do {
            try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(directory)</listen>
              <auth>EXTERNAL</auth>
              <limit name="max_incoming_bytes">1000000000</limit>
              <limit name="max_outgoing_bytes">1000000000</limit>
              <policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy>
            </busconfig>
            """.write(toFile: config, atomically: true, encoding: .utf8)
        } catch { throw BenchError("cannot write \(config): \(error)") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else {
            throw BenchError("/usr/bin/dbus-daemon is missing (install dbus-daemon, or run 'make bench', which installs it)")
        }
        daemon = try Spawned.start("/usr/bin/dbus-daemon", ["--config-file=" + config, "--nofork", "--print-address=1"],
                                   environment: ["PATH": "/usr/bin:/bin"], outputPath: output)
        var line = ""
        for _ in 0..<500 {
            line = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").first.map(String.init) ?? ""
            if line.hasPrefix("unix:") || daemon.poll() != nil { break }
            sleep(milliseconds: 10)
        }
        guard line.hasPrefix("unix:") else {
            daemon.signal(SIGKILL)
            throw BenchError("dbus-daemon did not start: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        }
        address = line
    }

    func stop() {
        daemon.signal(SIGTERM)
        for _ in 0..<200 {
            if daemon.poll() != nil { return }
            sleep(milliseconds: 10)
        }
        daemon.signal(SIGKILL)
        daemon.wait()
    }
}

/// A datagram socket standing in for systemd's notify socket. Like systemd, it reads every
/// message as it comes (a reader thread), noting when each arrived.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let messages = Mutex<[(at: UInt64, text: String)]>([])
    private let arrivals = DispatchSemaphore(value: 0)

    init(directory: String) throws(BenchError) {
        path = directory + "/notify.sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw BenchError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, ok == 0 else { throw BenchError("cannot bind \(path): \(String(cString: strerror(errno)))") }
        let thread = Thread { [self] in  // the socket lives as long as the run
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                let at = monotonicNanoseconds()
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                let text = String(decoding: buffer[0..<n], as: UTF8.self)
                self.messages.withLock { $0.append((at, text)) }
                self.arrivals.signal()
            }
        }
        thread.name = "bench.notify"
        thread.start()
    }

    /// How many messages have arrived: pass it to `wait` to look only at later ones.
    var mark: Int { messages.withLock { $0.count } }

    /// Waits for a message after `mark` that holds the line `line` (such as READY=1); the
    /// monotonic time it arrived, or nil if `child` ended or `timeoutSeconds` passed first.
    func wait(forLine line: String, after mark: Int, from child: Spawned, timeoutSeconds: Double) -> UInt64? {
        let deadline = monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
        while monotonicNanoseconds() < deadline {
            let found = messages.withLock { list in
                list.dropFirst(mark).first { $0.text.split(separator: "\n").contains(Substring(line)) }?.at
            }
            if let found { return found }
            if child.poll() != nil { return nil }
            _ = arrivals.wait(timeout: .now() + .milliseconds(50))
        }
        return nil
    }
}

/// What /proc says about a running process.
enum ProcessInfoReader {
    /// A field of /proc/PID/status in KiB (VmRSS, VmHWM).
    static func kibibytes(_ field: String, pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    /// Context switches (voluntary and not) of every thread of the process, by thread id.
    static func contextSwitches(pid: pid_t) -> [Int: Int] {
        var result: [Int: Int] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let tid = Int(task), let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            var total = 0
            for line in text.split(separator: "\n") where line.contains("ctxt_switches:") {  // voluntary_ and nonvoluntary_
                total += Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).last ?? "") ?? 0
            }
            result[tid] = total
        }
        return result
    }
}
