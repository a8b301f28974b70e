import Synchronization
import Testing
@testable import HeraldCore

/// The rule of `CoreSharing` on a clock the test moves: the kernel's part (what sched_yield lets
/// run) is measured in `make bench`, where it took the bubbles out of a burst.
struct CoreSharingTests {
    /// A clock in ns, and a yield that takes what the test says.
    final class Kernel: Sendable {
        let now = Mutex(1_000_000_000)
        let yields = Mutex(0)
        let nextYieldTakes = Mutex(5_000)
        func advance(_ ns: Int) { now.withLock { $0 += ns } }
        func sharing() -> CoreSharing {
            CoreSharing(longYield: 1_000_000, pause: 100_000_000, clock: { self.now.withLock { $0 } }, giveWay: {
                self.yields.withLock { $0 += 1 }
                let took = self.nextYieldTakes.withLock { $0 }
                self.advance(took)
            })
        }
    }

    @Test func itGivesWayBetweenEveryPieceWhileYieldsAreShort() {
        let kernel = Kernel()
        let sharing = kernel.sharing()
        for _ in 0..<50 {
            kernel.advance(30_000)  // a piece of work
            sharing.between()
        }
        #expect(kernel.yields.withLock { $0 } == 50)
    }

    @Test func aYieldThatTookAWholeSliceStopsItForThePauseAndNoLonger() {
        let kernel = Kernel()
        let sharing = kernel.sharing()
        sharing.between()
        #expect(kernel.yields.withLock { $0 } == 1)
        // A busy loop had the core for 3 ms.
        kernel.nextYieldTakes.withLock { $0 = 3_000_000 }
        sharing.between()
        #expect(kernel.yields.withLock { $0 } == 2)
        kernel.nextYieldTakes.withLock { $0 = 5_000 }
        for _ in 0..<99 {
            kernel.advance(1_000_000)
            sharing.between()
        }
        #expect(kernel.yields.withLock { $0 } == 2, "no yield within 100 ms of the long one")
        kernel.advance(1_000_000)
        sharing.between()
        #expect(kernel.yields.withLock { $0 } == 3, "it gives way again once the pause is over")
    }

    @Test func aYieldJustUnderTheLimitKeepsItGoing() {
        let kernel = Kernel()
        let sharing = kernel.sharing()
        kernel.nextYieldTakes.withLock { $0 = 1_000_000 }
        sharing.between()
        kernel.nextYieldTakes.withLock { $0 = 5_000 }
        sharing.between()
        #expect(kernel.yields.withLock { $0 } == 2)
    }
}
