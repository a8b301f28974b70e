import Foundation
import Testing

/// heraldd between jobs: asleep (no thread wakes up), and never held up by a service manager
/// that stops reading its notify socket.
@Suite(.serialized) struct IdleEndToEndTests {
    /// Context switches of each thread of `pid`, by thread name and id.
    static func contextSwitches(_ pid: Int32) -> [String: Int] {
        var result: [String: Int] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            let base = "/proc/\(pid)/task/\(task)/"
            guard let status = try? String(contentsOfFile: base + "status", encoding: .utf8) else { continue }
            let name = ((try? String(contentsOfFile: base + "comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
            var total = 0
            for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
                total += Int(line.split(separator: "\t").last ?? "") ?? 0
            }
            result["\(name) (\(task))"] = total
        }
        return result
    }

    @Test func anIdleDaemonDoesNotWakeUp() throws {
        let scene = try Scene()
        let socket = try NotifySocket(directory: scene.directory)
        scene.extraEnvironment = ["NOTIFY_SOCKET": socket.path]
        let daemon = try scene.startDaemon()
        try scene.herald("remind", "--in", "1s", "Soon")
        try scene.herald("remind", "--in", "1h", "Later")
        _ = try scene.server!.waitForNotifications(1)
        // Let the status updates go out and Dispatch retire its idle worker threads (5 s).
        sleep(7)
        _ = socket.receive()
        let before = Self.contextSwitches(daemon.pid)
        sleep(3)
        let after = Self.contextSwitches(daemon.pid)
        let woke = after.compactMap { name, count in count > (before[name] ?? count) ? "\(name): \(count - before[name]!)" : nil }
        #expect(!before.isEmpty)
        #expect(woke.isEmpty, "threads that woke while nothing was due: \(woke)")
    }

    @Test func aNotifySocketNobodyReadsDoesNotHoldUpTheDaemon() throws {
        // A datagram socket's queue holds 10 messages (net.unix.max_dgram_qlen); heraldd sends
        // STATUS= at most once a second, so popups a second apart for 14 s fill it.
        let scene = try Scene()
        let socket = try NotifySocket(directory: scene.directory)
        scene.extraEnvironment = ["NOTIFY_SOCKET": socket.path]
        let daemon = try scene.startDaemon()
        // The times are written to the whole second: start far enough ahead that the first is
        // still in the future when `herald import` checks it on a busy machine.
        let start = Date().addingTimeInterval(3)
        let lines = (0..<14).map { k in
            "{\"version\":1,\"kind\":\"reminder\",\"at\":\"\(ISO8601DateFormatter().string(from: start.addingTimeInterval(Double(k))))\",\"text\":\"tick \(k)\"}"
        }
        let imported = try scene.herald("import", "-", stdin: lines.joined(separator: "\n") + "\n")
        #expect(imported.status == 0, "\(imported.stderr)")
        let received = try scene.server!.waitForNotifications(14, timeout: 25)
        #expect(received.count == 14, "the daemon stalled after \(received.count) popups: \(daemon.log.suffix(500))")
        #expect(daemon.stop(SIGTERM) == 0)
    }
}
