#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CHeraldSys

/// A program Herald started, and the one way Herald starts one: `posix_spawn` (glibc's, a
/// vfork and exec) with its command line, environment, standard streams and signal state
/// prepared first (`Command`), waited for with `waitpid`.
///
/// Every child starts the same way: no signal blocked, every signal this process ignores back
/// at its default (heraldd ignores SIGTERM, SIGINT and SIGHUP to take them as Dispatch
/// sources; a browser started through xdg-open must not), and no descriptor but its standard
/// input, output and error. Synchronous on purpose: heraldd runs no Swift concurrency (a
/// first task starts libdispatch's monitor, which wakes it every second), so it cannot use
/// swift-subprocess's async API, and `herald` (a synchronous main, for start-up time) starts
/// its programs the same way (BENCHMARKS.md, "One way to start a program").
public final class ChildProcess {
    public let pid: pid_t
    /// The program's path as it was given.
    public let program: String
    /// How it ended, once collected.
    private var ended: ProcessStatus?

    init(pid: pid_t, program: String) {
        self.pid = pid
        self.program = program
    }

    /// Waits for the program to end (through EINTR).
    @discardableResult
    public func wait() -> ProcessStatus {
        if let ended { return ended }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let status = ProcessStatus(waitStatus: raw)
        ended = status
        return status
    }

    /// How the program ended, or nil while it runs.
    public func poll() -> ProcessStatus? {
        if let ended { return ended }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let status = ProcessStatus(waitStatus: raw)
        ended = status
        return status
    }

    /// Sends `signal` unless the program has already been collected (its pid may be another's).
    public func signal(_ signal: Int32) {
        if ended == nil { kill(pid, signal) }
    }

    /// Waits at most until `deadline` (CLOCK_MONOTONIC nanoseconds) for the program to end,
    /// then kills it (SIGKILL) and collects it. Whether it ended by itself.
    func wait(until deadline: UInt64, abandon: Bool = false) -> Bool {
        while poll() == nil {
            if ChildProcess.monotonicNanoseconds() >= deadline {
                signal(SIGKILL)
                if !abandon { wait() }
                return false
            }
            usleep(1000)
        }
        return true
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// How a program ended: its exit code, or the signal that ended it.
public enum ProcessStatus: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case killed(signal: Int32)

    /// From `waitpid`'s status word.
    public init(waitStatus: Int32) {
        let signal = waitStatus & 0x7f
        self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .killed(signal: signal)
    }

    /// As a shell reports it: the exit code, or 128 + the signal.
    public var code: Int32 {
        switch self {
        case .exited(let code): code
        case .killed(let signal): 128 + signal
        }
    }

    public var description: String {
        switch self {
        case .exited(let code): "exit \(code)"
        case .killed(let signal): "signal \(signal)"
        }
    }
}

/// Why a program could not be started: its path and posix_spawn's error (`strerror`).
public struct SpawnError: Error, Equatable, CustomStringConvertible {
    public var program: String
    public var code: Int32
    public init(program: String, code: Int32) {
        self.program = program
        self.code = code
    }
    /// `strerror` of the code: "No such file or directory".
    public var reason: String { String(cString: strerror(code)) }
    public var description: String { "cannot start '\(program)': \(reason)" }
}

extension ChildProcess {
    /// Where a child's standard input, output or error comes from or goes to.
    public enum Stream: Sendable {
        /// This process's own.
        case inherit
        /// `/dev/null`.
        case null
        /// A file, opened for the child: read for input; for output created or truncated,
        /// mode 0600.
        case file(String)
        /// A descriptor of this process (a pipe's end, a file), duplicated for the child.
        case descriptor(Int32)
        /// For standard error only: wherever standard output goes.
        case standardOutput
    }

    /// A program ready to start: its C command line and environment, file actions and
    /// attributes built once, so that `start()` costs posix_spawn alone (the benchmark times
    /// programs from just before it).
    public final class Command {
        public let program: String
        private let searchPath: Bool
        private let argv: [UnsafeMutablePointer<CChar>?]
        /// nil: this process's environment as it is when the program starts.
        private let envp: [UnsafeMutablePointer<CChar>?]?
        private let actions = UnsafeMutablePointer<posix_spawn_file_actions_t>.allocate(capacity: 1)
        private let attributes = UnsafeMutablePointer<posix_spawnattr_t>.allocate(capacity: 1)

        /// Prepares `program` with `arguments` (its `argv[0]` is `program`).
        ///
        /// - Parameters:
        ///   - environment: exactly the child's variables (sorted by name), or nil for this
        ///     process's own.
        ///   - searchPath: find a `program` without a slash on `PATH` (posix_spawnp).
        ///   - input, output, error: the standard streams.
        ///   - passing: a descriptor the program gets as its descriptor 3 (herald-runner's lock).
        ///
        /// The signals reset to their default are the ones this process ignores now.
        public init(_ program: String, _ arguments: [String], environment: [String: String]? = nil,
                    searchPath: Bool = false, input: Stream = .inherit, output: Stream = .inherit,
                    error: Stream = .inherit, passing: Int32? = nil) {
            self.program = program
            self.searchPath = searchPath
            argv = ([program] + arguments).map { strdup($0) } + [nil]
            envp = environment.map { env in env.keys.sorted().map { strdup($0 + "=" + env[$0]!) } + [nil] }
            posix_spawn_file_actions_init(actions)
            Self.add(input, as: 0, to: actions)
            Self.add(output, as: 1, to: actions)
            Self.add(error, as: 2, to: actions)
            if let passing { posix_spawn_file_actions_adddup2(actions, passing, 3) }
            // Last, after the dup2s: nothing but 0, 1 and 2 (and 3 when passed) reaches the program.
            herald_spawn_close_from(actions, passing == nil ? 3 : 4)
            // Exec resets caught signals; only the ignored ones need resetting (one sigaction
            // each in the child rather than 64).
            posix_spawnattr_init(attributes)
            var none = sigset_t(), ignored = sigset_t()
            sigemptyset(&none)
            sigemptyset(&ignored)
            for signal in Int32(1)...64 {
                var current = sigaction()
                if sigaction(signal, nil, &current) == 0,
                   unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == 1 {  // SIG_IGN
                    sigaddset(&ignored, signal)
                }
            }
            posix_spawnattr_setsigmask(attributes, &none)
            posix_spawnattr_setsigdefault(attributes, &ignored)
            posix_spawnattr_setflags(attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }

        private static func add(_ stream: Stream, as fd: Int32, to actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) {
            switch stream {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(actions, fd, path, fd == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .descriptor(let source): posix_spawn_file_actions_adddup2(actions, source, fd)
            case .standardOutput: posix_spawn_file_actions_adddup2(actions, 1, fd)
            }
        }

        deinit {
            posix_spawn_file_actions_destroy(actions)
            posix_spawnattr_destroy(attributes)
            actions.deallocate()
            attributes.deallocate()
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }

        /// Starts the program.
        ///
        /// - Throws: `SpawnError` when it cannot be started (not found, not executable, a
        ///   file to open for it missing).
        public func start() throws(SpawnError) -> ChildProcess {
            var pid: pid_t = 0
            let rc = argv.withUnsafeBufferPointer { a in
                let args = UnsafePointer(a.baseAddress!)
                func spawn(_ env: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
                    searchPath ? posix_spawnp(&pid, program, actions, attributes, args, env)
                               : posix_spawn(&pid, program, actions, attributes, args, env)
                }
                guard let envp else { return spawn(environ) }
                return envp.withUnsafeBufferPointer { spawn($0.baseAddress!) }
            }
            guard rc == 0 else { throw SpawnError(program: program, code: rc) }
            return ChildProcess(pid: pid, program: program)
        }
    }

    /// Starts `program` with this process's standard streams and waits for it to end.
    ///
    /// - Throws: `SpawnError` when it cannot be started.
    public static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil,
                           searchPath: Bool = false) throws(SpawnError) -> ProcessStatus {
        try Command(program, arguments, environment: environment, searchPath: searchPath).start().wait()
    }

    /// What a program printed, and how it ended.
    public struct Output: Sendable {
        public var status: ProcessStatus
        public var standardOutput: [UInt8]
        /// Empty unless its errors were collected.
        public var standardError: [UInt8]
        /// It did not end within the time given and was killed (SIGKILL).
        public var timedOut = false
        /// It printed more than the limit and was killed (SIGKILL); what it printed is cut there.
        public var overLimit = false
    }

    /// Runs `program` to its end, reading its standard output (and, when `collectErrors`, its
    /// standard error; else it goes to this process's) from pipes as it prints, so it never
    /// blocks on a full pipe. Standard input is /dev/null.
    ///
    /// - Parameters:
    ///   - limit: the most bytes kept of each stream; past it the program is killed.
    ///   - timeout: milliseconds the program may take before it is killed; nil for no bound.
    /// - Throws: `SpawnError` when it cannot be started (or no pipe can be made).
    ///   - abandon: a program that does not end when killed after `timeout` (a thread of it
    ///     waiting on a hung mount) is left, not waited for.
    public static func collect(_ program: String, _ arguments: [String], environment: [String: String]? = nil,
                               collectErrors: Bool = false, limit: Int = .max,
                               timeout: Int? = nil, abandon: Bool = false) throws(SpawnError) -> Output {
        let deadline = timeout.map { monotonicNanoseconds() + UInt64(max(0, $0)) * 1_000_000 }
        guard let outPipe = Descriptor.pipe() else { throw SpawnError(program: program, code: errno) }
        let errPipe = collectErrors ? Descriptor.pipe() : nil
        if collectErrors, errPipe == nil { throw SpawnError(program: program, code: errno) }
        let command = Command(program, arguments, environment: environment, input: .null,
                              output: .descriptor(outPipe.write.raw), error: errPipe.map { .descriptor($0.write.raw) } ?? .inherit)
        let child = try command.start()
        // The child has its copies of the write ends: ours go, so that its end is the pipes' end.
        outPipe.write.close()
        errPipe?.write.close()
        var result = Output(status: .exited(0), standardOutput: [], standardError: [])
        var fds = [pollfd(fd: outPipe.read.raw, events: Int16(POLLIN), revents: 0)]
        if let errPipe { fds.append(pollfd(fd: errPipe.read.raw, events: Int16(POLLIN), revents: 0)) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        reading: while fds.contains(where: { $0.fd >= 0 }) {
            var wait: Int32 = -1
            if let deadline {
                let now = monotonicNanoseconds()
                guard now < deadline else { result.timedOut = true; break }
                wait = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            }
            let ready = Glibc.poll(&fds, nfds_t(fds.count), wait)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { break }
            for k in fds.indices where fds[k].fd >= 0 && fds[k].revents != 0 {
                let n = read(fds[k].fd, &buffer, buffer.count)
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if n <= 0 { fds[k].fd = -1; continue }
                if k == 0 { result.standardOutput += buffer[..<n] } else { result.standardError += buffer[..<n] }
                if result.standardOutput.count > limit || result.standardError.count > limit {
                    result.overLimit = true
                    break reading
                }
            }
        }
        // Killed before its pipes close, so that it ends by SIGKILL, not by a write's SIGPIPE.
        if result.timedOut || result.overLimit { child.signal(SIGKILL) }
        outPipe.read.close()
        errPipe?.read.close()
        if result.timedOut || result.overLimit {
            result.standardOutput = Array(result.standardOutput.prefix(limit))
            result.standardError = Array(result.standardError.prefix(limit))
            if abandon {
                usleep(10_000)
                result.status = child.poll() ?? .killed(signal: SIGKILL)
                return result
            }
        } else if let deadline, !child.wait(until: deadline, abandon: abandon) {
            result.timedOut = true  // closed its output but went on
            if abandon { result.status = child.poll() ?? .killed(signal: SIGKILL); return result }
        }
        result.status = child.wait()
        return result
    }
}
