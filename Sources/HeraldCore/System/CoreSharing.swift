#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Gives the core away for a moment between the pieces of a long run of heraldd's bookkeeping
/// (a burst's records, reads and engine steps). On two cores, a notification server's or the
/// bus's thread woken meanwhile would otherwise wait in this core's run queue until the run
/// ends, about a millisecond, while the other core idles in slices too short for the kernel to
/// move it there: a burst of 1,000 lost 70–120 ms that way (BENCHMARKS.md, "Issue 41: the core
/// given back"). With nothing waiting, sched_yield returns at once.
///
/// A yield that takes a whole slice went to a task that keeps the core (a build, a video), not
/// to a popup's server: heraldd then stops giving way for `pause`, since under such load each
/// yield would cost a slice (beside two busy loops, a burst yielding at every piece took twice
/// as long as one not yielding at all).
public final class CoreSharing: Sendable {
    /// heraldd's: one for all its queues, since a busy machine is busy for all of them.
    public static let shared = CoreSharing()

    /// A yield longer than this ran someone's whole slice (an idle machine's longest: 0.3 ms).
    let longYield: Int
    /// How long no core is given away after such a yield.
    let pause: Int
    /// CLOCK_MONOTONIC ns until which no core is given away.
    private let keepUntil = Atomic<Int>(Int.min)
    private let clock: @Sendable () -> Int
    private let giveWay: @Sendable () -> Void

    /// - Parameters: `clock` (ns) and `giveWay` are the kernel's unless a test gives its own.
    init(longYield: Int = 1_000_000, pause: Int = 100_000_000,
         clock: @escaping @Sendable () -> Int = CoreSharing.monotonic,
         giveWay: @escaping @Sendable () -> Void = { sched_yield() }) {
        self.longYield = longYield
        self.pause = pause
        self.clock = clock
        self.giveWay = giveWay
    }

    /// Called between two pieces of bookkeeping (never after the last: the result waits for nobody).
    public func between() {
        let before = clock()
        guard before >= keepUntil.load(ordering: .relaxed) else { return }
        giveWay()
        let after = clock()
        if after &- before > longYield { keepUntil.store(after &+ pause, ordering: .relaxed) }
    }

    static func monotonic() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec &* 1_000_000_000 &+ time.tv_nsec
    }
}
