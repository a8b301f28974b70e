#if canImport(Glibc)
import Glibc
#endif

/// The system's wall clock (CLOCK_REALTIME), in microseconds: what herald, heraldd and
/// herald-bench pass to the core as "now".
public struct SystemClock: WallClock {
    public init() {}
    public var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(microseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }
}
