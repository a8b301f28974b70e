import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// Where the built `herald` and `heraldd` are: beside this test binary, or `$HERALD_BIN_DIR`.
enum Binaries {
    static let directory: String = {
        if let dir = ProcessInfo.processInfo.environment["HERALD_BIN_DIR"] { return dir }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("heraldd").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.path
    }()
    static var herald: String { directory + "/herald" }
    static var heraldd: String { directory + "/heraldd" }
    static let supportDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}

/// Setting the system clock cancels the TFD_TIMER_CANCEL_ON_SET timer of every heraldd on the
/// machine, so each wakes and re-evaluates: the test that sets it takes this lock, and so does a
/// test that needs a heraldd left alone (the suites run side by side).
let systemClockQuiet = NSLock()

/// The result of running a command to completion.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `path` with `arguments` and waits for it (killing it after `timeout` seconds).
@discardableResult
func runCommand(_ path: String, _ arguments: [String], environment: [String: String], stdin: String? = nil,
                timeout: TimeInterval = 30, directory: String? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    process.arguments = arguments
    process.environment = environment
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out"), err = dir.appendingPathComponent("err")
    FileManager.default.createFile(atPath: out.path, contents: nil)
    FileManager.default.createFile(atPath: err.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    if let stdin {
        let input = dir.appendingPathComponent("in")
        FileManager.default.createFile(atPath: input.path, contents: Data(stdin.utf8))
        process.standardInput = try FileHandle(forReadingFrom: input)
    } else {
        process.standardInput = FileHandle.nullDevice
    }
    try process.run()
    _ = waitUntil(timeout: timeout, pollMilliseconds: 5) { !process.isRunning }
    if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit(); throw SetupError("timed out: \(path) \(arguments)") }
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus,
                         stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                         stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
}

/// A long-running child process with its output in files.
final class Child {
    let process = Process()
    let logPath: String
    let outPath: String

    init(_ path: String, _ arguments: [String], environment: [String: String], directory: String, name: String) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        logPath = directory + "/\(name).err"
        outPath = directory + "/\(name).out"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        FileManager.default.createFile(atPath: outPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    var output: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }

    /// Whether one line of the log holds every one of `parts` (a message and its metadata).
    func logged(_ parts: String...) -> Bool {
        log.split(separator: "\n").contains { line in parts.allSatisfy { line.contains($0) } }
    }

    func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    /// Sends `sig` and waits for the exit; returns the exit status.
    @discardableResult
    func stop(_ sig: Int32 = SIGKILL, timeout: TimeInterval = 10) -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, sig)
        _ = waitUntil(timeout: timeout) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
}

/// python-dbusmock's notification_daemon template on a bus: a real notification server.
final class NotificationServer {
    /// nil for a server the bus started (D-Bus activation): it ends with the bus.
    private let child: Child?
    let environment: [String: String]

    init(bus: SessionBus, directory: String, capabilities: String = "body body-markup actions icon-static") throws {
        environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"]
        let child = try Child("/usr/bin/python3", ["-m", "dbusmock", "--template", "notification_daemon",
                                                    "-p", "{\"capabilities\": \"\(capabilities)\"}"],
                              environment: environment, directory: directory, name: "notifyd-\(UUID().uuidString.prefix(6))")
        self.child = child
        let waited = try runCommand("/usr/bin/python3", [Binaries.supportDirectory + "/mockctl.py", "wait"], environment: environment)
        guard waited.status == 0 else { throw SetupError("notification server did not start: \(waited.stderr) \(child.log)") }
    }

    /// The server the bus starts on the first call to the name (see `Scene(activatable:)`),
    /// once it owns the name.
    init(activatedOn bus: SessionBus) throws {
        environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"]
        child = nil
        try control("wait")
    }

    /// The service file that lets the bus start the server on the first call to the name.
    static func activationService(capabilities: String) -> String {
        """
        [D-BUS Service]
        Name=org.freedesktop.Notifications
        Exec=/usr/bin/python3 -m dbusmock --template notification_daemon -p '{"capabilities": "\(capabilities)"}'

        """
    }

    /// The Notify calls the server has received, in order.
    func notifications() throws -> [ReceivedNotification] {
        let r = try runCommand("/usr/bin/python3", [Binaries.supportDirectory + "/mockctl.py", "calls"], environment: environment)
        guard r.status == 0 else { throw SetupError("GetCalls failed: \(r.stderr)") }
        return try JSONDecoder().decode([ReceivedNotification].self, from: Data(r.stdout.utf8))
    }

    /// Runs a mockctl command against the server.
    func control(_ command: String, _ arguments: String...) throws {
        let r = try runCommand("/usr/bin/python3", [Binaries.supportDirectory + "/mockctl.py", command] + arguments, environment: environment)
        guard r.status == 0 else { throw SetupError("mockctl \(command) failed: \(r.stderr)") }
    }

    /// SIGSTOP: the server keeps its name on the bus but answers nothing (libnotify waits 25 s).
    func freeze() { child?.signal(SIGSTOP) }
    func thaw() { child?.signal(SIGCONT) }

    /// The ids Herald asked the server to close.
    func closed() throws -> [Int] {
        let r = try runCommand("/usr/bin/python3", [Binaries.supportDirectory + "/mockctl.py", "closed"], environment: environment)
        return try JSONDecoder().decode([Int].self, from: Data(r.stdout.utf8))
    }

    /// Makes the server say that the user pressed button `key` on notification `id`.
    func press(_ key: String, onNotification id: Int) throws {
        let r = try runCommand("/usr/bin/python3", [Binaries.supportDirectory + "/mockctl.py", "emit", "ActionInvoked", String(id), key],
                               environment: environment)
        guard r.status == 0 else { throw SetupError("EmitSignal failed: \(r.stderr)") }
    }

    /// Makes the server say that notification `id` closed: 1 expired, 2 dismissed by the user.
    func close(_ id: Int, reason: Int) throws {
        let r = try runCommand("/usr/bin/python3", [Binaries.supportDirectory + "/mockctl.py", "emit", "NotificationClosed", String(id), String(reason)],
                               environment: environment)
        guard r.status == 0 else { throw SetupError("EmitSignal failed: \(r.stderr)") }
    }

    /// Waits until at least `count` notifications arrived; returns them all.
    func waitForNotifications(_ count: Int, timeout: TimeInterval = 15) throws -> [ReceivedNotification] {
        var received: [ReceivedNotification] = []
        _ = try waitUntil(timeout: timeout) {
            received = try notifications()
            return received.count >= count
        }
        return received
    }

    /// Kills the server (SIGKILL) and waits for it; the bus then frees its name.
    func stop() { child?.signal(SIGCONT); child?.stop() }
}

struct ReceivedNotification: Decodable, Equatable {
    enum Hint: Decodable, Equatable {
        case int(Int), string(String), other
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let i = try? c.decode(Int.self) { self = .int(i) } else if let s = try? c.decode(String.self) { self = .string(s) } else { self = .other }
        }
    }
    var app: String
    var icon: String
    var summary: String
    var body: String
    var actions: [String]
    var hints: [String: Hint]
    /// replaces_id, and expire_timeout in ms (0: never, -1: the server's default).
    var replaces: Int
    var timeout: Int
}

/// One end-to-end scene: a temp directory with a spool and config, a private bus and server,
/// and helpers to run `herald` and `heraldd` against them.
final class Scene {
    let directory: String
    let bus: SessionBus
    var server: NotificationServer?
    var daemon: Child?
    var extraEnvironment: [String: String] = [:]
    /// Variables to leave out of the environment (e.g. the bus address).
    var removedEnvironment: Set<String> = []

    /// - Parameter activatable: the bus starts a server itself when a call finds the name free.
    init(server startServer: Bool = true, capabilities: String = "body body-markup actions icon-static",
         activatable: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-e2e-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "{}\n".write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
        let services = activatable ? directory + "/services" : nil
        if let services {
            try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
            try NotificationServer.activationService(capabilities: capabilities)
                .write(toFile: services + "/org.freedesktop.Notifications.service", atomically: true, encoding: .utf8)
        }
        bus = try SessionBus(directory: directory, serviceDirectory: services)
        if startServer { server = try NotificationServer(bus: bus, directory: directory, capabilities: capabilities) }
    }

    deinit {
        daemon?.stop()
        server?.stop()
        bus.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var spoolPath: String { directory + "/spool" }
    var configPath: String { directory + "/config.yaml" }

    var environment: [String: String] {
        var env = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin", "HOME": directory,
                   "HERALD_SPOOL": spoolPath, "HERALD_CONFIG": configPath, "TZ": "Europe/Berlin", "LANG": "C.UTF-8",
                   // No system bus unless a test brings one (a private logind mock): none of the machine's.
                   "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=" + directory + "/no-system-bus"]
        env.merge(extraEnvironment) { _, new in new }
        for key in removedEnvironment { env.removeValue(forKey: key) }
        return env
    }

    func writeConfig(_ yaml: String) throws {
        try yaml.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    @discardableResult
    func herald(_ arguments: String..., stdin: String? = nil) throws -> CommandResult {
        try runCommand(Binaries.herald, arguments, environment: environment, stdin: stdin)
    }

    @discardableResult
    func herald(_ arguments: [String]) throws -> CommandResult {
        try runCommand(Binaries.herald, arguments, environment: environment)
    }

    /// Starts heraldd and waits until it logs "Ready".
    @discardableResult
    func startDaemon(_ arguments: [String] = [], waitReady: Bool = true) throws -> Child {
        let child = try Child(Binaries.heraldd, arguments, environment: environment, directory: directory,
                              name: "heraldd-\(UUID().uuidString.prefix(6))")
        daemon = child
        if waitReady {
            guard waitUntil(timeout: 15, { child.log.contains("info: Ready") || !child.isRunning }), child.isRunning else {
                throw SetupError("heraldd did not become ready: \(child.log)")
            }
        }
        return child
    }

    func files(_ sub: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: spoolPath + "/" + sub)) ?? []).sorted()
    }

    func read(_ sub: String) -> String {
        (try? String(contentsOfFile: spoolPath + "/" + sub, encoding: .utf8)) ?? ""
    }

    /// The spool's history, oldest first: what fired, when, and how it went.
    func history() -> [HistoryRecord] {
        read("history.jsonl").split(separator: "\n").compactMap { HistoryRecord(jsonLine: $0) }
    }

    /// What heraldd last wrote to status.json.
    func status() -> DaemonStatus? { DaemonStatus(json: Array(read("status.json").utf8)) }
}
