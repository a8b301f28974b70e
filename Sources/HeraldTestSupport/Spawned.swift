import Foundation

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
        // Nothing else of this process's goes with it. Foundation opens the files it writes
        // without O_CLOEXEC, and the tests run side by side in one process: a dbus-daemon or
        // parecord started while another test writes a job file would hold that file open for
        // writing as long as it lives, and heraldd reads no file of new/ that something still
        // writes (it waits for IN_CLOSE_WRITE), so that job would wait for the other test to
        // end. (Foundation's Process closes them too.)
        Self.closeFrom?(actions, 3)
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

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later; not in Swift's Glibc
    /// module): closes every descriptor from the given one up in the child, before exec.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()

    deinit {
        posix_spawn_file_actions_destroy(actions)
        posix_spawnattr_destroy(attributes)
        actions.deallocate()
        attributes.deallocate()
        (argv + envp).forEach { free($0) }
    }

    /// Starts the program; its pid.
    func spawn() throws(SetupError) -> pid_t {
        var pid: pid_t = 0
        let rc = argv.withUnsafeBufferPointer { a in
            envp.withUnsafeBufferPointer { e in
                posix_spawn(&pid, path, actions, attributes, UnsafeMutablePointer(mutating: a.baseAddress!),
                            UnsafeMutablePointer(mutating: e.baseAddress!))
            }
        }
        guard rc == 0 else { throw SetupError("cannot start \(path): \(String(cString: strerror(rc)))") }
        return pid
    }
}

/// A started program: posix_spawn'ed directly, so that the time measured around it is the
/// program's own, with no shell and no Foundation process machinery in between.
public final class Spawned {
    public let pid: pid_t
    public let name: String
    /// The exit status once it has been collected.
    private var status: Int32?

    init(pid: pid_t, name: String) { self.pid = pid; self.name = name }

    /// Starts `path`. Standard input is `stdinPath` (or /dev/null); standard output and error
    /// both go to `outputPath`.
    public static func start(_ path: String, _ arguments: [String], environment: [String: String],
                             stdinPath: String = "/dev/null", outputPath: String) throws(SetupError) -> Spawned {
        let launch = Launch(path, arguments, environment: environment, stdinPath: stdinPath, output: .file(outputPath))
        return Spawned(pid: try launch.spawn(), name: (path as NSString).lastPathComponent)
    }

    /// Waits for the program to end; its exit status (128+N for signal N).
    @discardableResult
    public func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        status = Self.decode(raw)
        return status!
    }

    /// The exit status if the program has ended, nil while it runs.
    public func poll() -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        status = Self.decode(raw)
        return status
    }

    public func signal(_ sig: Int32) { if status == nil { kill(pid, sig) } }

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
    public static func timed(_ path: String, _ arguments: [String], environment: [String: String], stdinPath: String = "/dev/null",
                             outputPath: String) throws(SetupError) -> (status: Int32, nanoseconds: UInt64) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SetupError("cannot make a pipe: \(String(cString: strerror(errno)))") }
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
            throw SetupError("cannot write \(outputPath)")
        }
        return (decode(raw), elapsed)
    }
}
