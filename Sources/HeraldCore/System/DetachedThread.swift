#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CHeraldSys

/// A thread of its own for work that must not hold a Dispatch queue: the GLib main loop, an
/// opener waited for until the browser exits. `pthread_create` directly, so heraldd needs no
/// Foundation (`Thread`) and with it none of ICU's data (BENCHMARKS.md, "Installed size").
public enum DetachedThread {
    /// Starts `body` on a new detached thread named `name` (at most 15 bytes show in `ps`).
    ///
    /// - Returns: false when the system refused another thread (`body` then never runs).
    @discardableResult
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Body(body, name: name)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            _ = herald_name_this_thread(body.name)
            body.run()
            return nil
        }, box)
        if status != 0 {
            Unmanaged<Body>.fromOpaque(box).release()
            return false
        }
        return true
    }

    private final class Body {
        let run: @Sendable () -> Void
        let name: String
        init(_ run: @escaping @Sendable () -> Void, name: String) {
            self.run = run
            self.name = name
        }
    }
}
