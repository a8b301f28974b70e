import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// heraldd between jobs: asleep (no thread wakes up), and never held up by a service manager
/// that stops reading its notify socket.
@Suite(.serialized) struct IdleEndToEndTests {
    @Test func anIdleDaemonDoesNotWakeUp() throws {
        // No test sets the system clock meanwhile (that wakes every heraldd on the machine).
        systemClockQuiet.lock()
        defer { systemClockQuiet.unlock() }
        let scene = try Scene()
        let socket = try NotifySocket(directory: scene.directory)
        scene.extraEnvironment = ["NOTIFY_SOCKET": socket.path]
        let daemon = try scene.startDaemon()
        // A batch over 1 MiB first: its check runs on two threads, and a pool of libdispatch's
        // (its global queues) left a timer waking heraldd every second after that.
        let start = Date().addingTimeInterval(7200)
        let lines = (0..<10_000).map { k in
            "{\"version\":1,\"kind\":\"reminder\",\"id\":\"idle-\(k)\",\"at\":\"\(ISO8601DateFormatter().string(from: start.addingTimeInterval(Double(k))))\",\"text\":\"a batch over a mebibyte, line \(k)\"}"
        }
        let batch = lines.joined(separator: "\n") + "\n"
        #expect(batch.utf8.count > 1 << 20)
        let imported = try scene.herald("import", "-", stdin: batch)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(waitUntil(timeout: 60) { scene.status()?.pending == 10_000 })
        try scene.herald("remind", "--in", "1s", "Soon")
        try scene.herald("remind", "--in", "1h", "Later")
        _ = try scene.server!.waitForNotifications(1)
        // Everything the popup sets off has happened: its history line, status.json's count
        // (written at most once a second) and the status line for systemd (likewise).
        #expect(waitUntil { scene.history().contains { $0.title == "Soon" } })
        let soon = try #require(scene.history().first { $0.title == "Soon" })
        #expect(soon.outcome == .shown)
        #expect(waitUntil { scene.status()?.pending == 10_001 })
        #expect(waitUntil {
            guard let last = socket.messages().last(where: { $0.text.hasPrefix("STATUS=") })?.text,
                  let next = last.components(separatedBy: ", next ").last.flatMap(ISO8601.parseInstant) else { return false }
            return last.hasPrefix("STATUS=10001 jobs pending, next ") && next - soon.time > .seconds(1800)  // "Later"'s time
        })
        // The thread that sent that line may not have parked yet (a CI run counted its one
        // switch): wait until no thread switches for 300 ms, then measure. A periodic timer
        // would still show in the window below, which is ten times longer.
        var before = ProcessInfoReader.contextSwitches(pid: daemon.pid)
        var changed = monotonicNanoseconds()
        #expect(waitUntil(timeout: 10) {
            let now = ProcessInfoReader.contextSwitches(pid: daemon.pid)
            if now != before { before = now; changed = monotonicNanoseconds() }
            return monotonicNanoseconds() - changed >= 300_000_000
        })
        // The measure itself: 3 s in which nothing is due. Dispatch's idle worker threads end
        // 5 s after their last work; a thread that has ended by the second look is not counted.
        Thread.sleep(forTimeInterval: 3)
        let after = ProcessInfoReader.contextSwitches(pid: daemon.pid)
        let woke = after.compactMap { tid, count in
            count > (before[tid] ?? count) ? "\(ProcessInfoReader.threadName(pid: daemon.pid, tid: tid)) (\(tid)): \(count - before[tid]!)" : nil
        }
        #expect(!before.isEmpty)
        #expect(woke.isEmpty, "threads that woke while nothing was due: \(woke)")
    }

    @Test func aNotifySocketNobodyReadsDoesNotHoldUpTheDaemon() throws {
        // A datagram socket's queue holds 10 messages (net.unix.max_dgram_qlen); heraldd sends
        // STATUS= at most once a second, so popups a second apart for 14 s fill it.
        let scene = try Scene()
        let socket = try NotifySocket(directory: scene.directory, reading: false)
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
