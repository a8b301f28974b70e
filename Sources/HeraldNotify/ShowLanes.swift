import CLibNotify
import Dispatch
import HeraldCore
import Synchronization

/// Threads that each make one libnotify show at a time, so that a burst has popups on the wire
/// side by side: `notify_notification_show` waits for the server's answer, and one thread
/// showing one popup after another leaves the server, the bus and both cores idle through
/// each round trip (BENCHMARKS.md, "Issue 41: shows side by side"). The GLib thread builds each
/// popup and takes the answer back; a lane only makes the call.
final class ShowLanes: Sendable {
    /// How many lanes run (0 when the system gave none: every show is then made on the GLib thread).
    let count: Int
    private let queue = LaneQueue()

    init(count wanted: Int, name: String) {
        var started = 0
        let queue = self.queue
        for k in 0..<max(0, wanted) {
            guard DetachedThread.start(name: "\(name)\(k)", {
                while let job = queue.next() { job() }
            }) else { break }
            started += 1
        }
        count = started
    }

    /// Runs `job` on the next free lane.
    func run(_ job: @escaping @Sendable () -> Void) { queue.add(job) }

    /// Ends every lane once it has done what it was given.
    func stop() {
        for _ in 0..<count { queue.add(nil) }
    }
}

/// The lanes' work, oldest first; nil ends the lane that takes it.
private final class LaneQueue: Sendable {
    private let items = Mutex<[(@Sendable () -> Void)?]>([])
    private let ready = DispatchSemaphore(value: 0)

    func add(_ item: (@Sendable () -> Void)?) {
        items.withLock { $0.append(item) }
        ready.signal()
    }

    /// Waits for the next item; nil when it is the end.
    func next() -> (@Sendable () -> Void)? {
        ready.wait()  // one signal per item: the list is not empty here
        return items.withLock { $0.removeFirst() }
    }
}

/// A libnotify object lent to a lane for its show. The GLib thread keeps the object (and its
/// owner, the `ShownPopup`) untouched until the lane's answer comes back to it.
struct LentNotification: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<NotifyNotification>
}

/// A GError handed from a lane back to the GLib thread, freed there.
struct LentError: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GError>?
}
