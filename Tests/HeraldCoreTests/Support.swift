import Foundation
import Logging
import Synchronization
@testable import HeraldCore
@testable import HeraldModel

/// A fresh directory under /tmp, removed when the value goes away.
final class TemporaryDirectory {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-test-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ text: String, mode: Int = 0o600) {
        FileManager.default.createFile(atPath: path + "/" + name, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
    }
}

/// A notifier that records what it was asked to show and answers as told.
final class RecordingNotifier: Notifier, Sendable {
    private struct State {
        var shown: [NotificationRequest] = []
        var failure: NotifierError?
    }
    private let state = Mutex(State())
    var shown: [NotificationRequest] { state.withLock { $0.shown } }
    var failure: NotifierError? {
        get { state.withLock { $0.failure } }
        set { state.withLock { $0.failure = newValue } }
    }

    func show(_ request: NotificationRequest, completion: @escaping @Sendable (Result<Void, NotifierError>) -> Void) {
        let failure = state.withLock { state in
            if state.failure == nil { state.shown.append(request) }
            return state.failure
        }
        completion(failure.map { .failure($0) } ?? .success(()))
    }
}

/// Log lines kept in memory (swift-log's advice: never bootstrap in tests).
final class MemoryLogHandlerBox: Sendable {
    private let kept = Mutex<[String]>([])
    var lines: [String] { kept.withLock { $0 } }
    func append(_ line: String) { kept.withLock { $0.append(line) } }

    func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "test") { _ in MemoryLogHandler(box: self) }
        logger.logLevel = level
        return logger
    }
}

struct MemoryLogHandler: LogHandler {
    let box: MemoryLogHandlerBox
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        let meta = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        box.append("\(event.level): \(event.message) \(meta)")
    }
}

func mode(of path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
}

/// Waits (up to `timeout` seconds) until no process has `path` open for writing, which is
/// what heraldd's intake asks of a file of new/ (with a read lease); false if one still has.
/// A test that wrote the file has closed it, but a child process another test started in
/// this process meanwhile may still hold a copy of the descriptor until it execs.
func waitUntilWritten(_ path: String, timeout: Double = 10) -> Bool {
    let spool = Spool(root: (path as NSString).deletingLastPathComponent)
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
    // Woken by the writer's close (IN_CLOSE_WRITE), as heraldd is; watched before each check,
    // so a close right after it is not missed.
    let watcher = Descriptor(inotify_init1(Int32(IN_CLOEXEC)))
    let watch = watcher?.raw ?? -1
    defer { withExtendedLifetime(watcher) {} }  // open while watch is polled
    if watch >= 0 { _ = inotify_add_watch(watch, path, UInt32(IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF)) }
    while true {
        switch spool.openChecked(path, limit: .max, whenComplete: true) {
        case .success: return true
        case .failure(.beingWritten):
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline, watch >= 0 else { return false }
            var event = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
            if poll(&event, 1, Int32(min((deadline - now) / 1_000_000 + 1, 60_000))) > 0 {
                var drain = [UInt8](repeating: 0, count: 4096)
                _ = read(watch, &drain, drain.count)
            }
        case .failure: return true  // gone, or refused for another reason: nothing to wait for
        }
    }
}

func files(in dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
}

/// Runs a program to completion and returns its exit status and standard output (its errors
/// are read and dropped).
func runProgram(_ path: String, _ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
    let run = try ChildProcess.collect(path, arguments, environment: environment, collectErrors: true)
    return (run.status.code, String(decoding: run.standardOutput, as: UTF8.self))
}
