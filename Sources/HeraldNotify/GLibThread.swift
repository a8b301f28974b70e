import CLibNotify
import Dispatch
import HeraldCore

/// One thread running `g_main_loop_run` on GLib's default context. Every libnotify call
/// and callback happens here; other threads hand work over with `run`.
final class GLibThread: @unchecked Sendable {
    private let loop: OpaquePointer

    init(name: String = "herald.glib") {
        loop = g_main_loop_new(nil, 0)
        let handle = LoopHandle(loop: loop)
        // Without its thread no popup could ever go out: stop here rather than run deaf.
        guard DetachedThread.start(name: name, { g_main_loop_run(handle.loop) }) else {
            fatalError("heraldd: cannot start the GLib thread")
        }
    }

    /// Runs `work` on the GLib thread, in order with other work (g_idle_add_full).
    func run(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        g_idle_add_full(G_PRIORITY_DEFAULT, { data in
            let box = Unmanaged<WorkBox>.fromOpaque(data!).takeRetainedValue()
            box.work()
            return 0  // G_SOURCE_REMOVE
        }, box, nil)
    }

    /// Runs `work` on the GLib thread after `milliseconds`.
    func after(milliseconds: UInt32, _ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
            let box = Unmanaged<WorkBox>.fromOpaque(data!).takeRetainedValue()
            box.work()
            return 0  // G_SOURCE_REMOVE
        }, box, nil)
    }

    /// Runs `work` on the GLib thread and waits for its result.
    func sync<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<T>()
        run {
            result.value = work()
            done.signal()
        }
        done.wait()
        return result.value!
    }

    func stop() {
        g_main_loop_quit(loop)
    }

    deinit {
        g_main_loop_unref(loop)
    }
}

/// The main loop pointer, handed once to the thread that runs it.
private struct LoopHandle: @unchecked Sendable {
    let loop: OpaquePointer
}

private final class WorkBox {
    let work: @Sendable () -> Void
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }
}

private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
