import Dispatch
import HeraldModel
import Synchronization

/// The intake's filing work, soonest due first: a part of a large batch does not hold up a
/// small import behind it, and the jobs due first are put into `jobs/` first. Each plan is one
/// block on a serial queue; a block takes whichever plan is most urgent when it runs.
///
/// Single files and refusals keep their order among themselves (a refusal of a file read twice
/// must not overtake the move of its first reading) and go before batch writes; a batch's
/// removal follows its own writes by construction (the engine asks for it once they are filed).
public final class FilingQueue: Sendable {
    private struct Waiting {
        var urgent: Bool
        var due: Instant
        var sequence: UInt64
        var plan: FilingPlan
        func before(_ other: Waiting) -> Bool {
            if urgent != other.urgent { return urgent }
            return urgent ? sequence < other.sequence : (due, sequence) < (other.due, other.sequence)
        }
    }

    private struct State {
        var plans: [Waiting] = []
        var sequence: UInt64 = 0
        /// Batch parts handed over and not yet filed, and the intake threads waiting for fewer.
        var parts = 0
        var waiters: [DispatchSemaphore] = []
    }

    private let waiting = Mutex<State>(State())

    public init() {}

    public func add(_ plan: FilingPlan) {
        let urgent = !plan.moves.isEmpty || !plan.refusals.isEmpty || plan.removeBatch != nil
        let due = plan.writes.map(\.name.fireAt).min() ?? plan.moves.map(\.name.fireAt).min() ?? Instant(seconds: 0)
        waiting.withLock { state in
            state.sequence += 1
            if !plan.writes.isEmpty { state.parts += 1 }
            state.plans.append(Waiting(urgent: urgent, due: due, sequence: state.sequence, plan: plan))
        }
    }

    /// The most urgent plan (a few hundred wait at most: a scan is enough).
    public func takeFirst() -> FilingPlan? {
        waiting.withLock { state in
            guard var best = state.plans.indices.first else { return nil }
            for k in state.plans.indices.dropFirst() where state.plans[k].before(state.plans[best]) { best = k }
            return state.plans.remove(at: best).plan
        }
    }
}

extension FilingQueue {
    /// How many batch parts may wait for filing at once (see `waitForRoom`).
    public static let partsAhead = 3

    /// Called once a plan taken with `takeFirst` has been carried out.
    public func done(_ plan: FilingPlan) {
        guard !plan.writes.isEmpty else { return }
        let woken = waiting.withLock { state -> [DispatchSemaphore] in
            state.parts -= 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in woken { waiter.signal() }
    }

    /// Where a batch was read: the queue of small files (every single job, and batches up to
    /// about 10,000 jobs) or the queue of large batches.
    public enum Lane: Sendable {
        case small
        case large
    }

    /// Whether a part read on `lane` would wait now. A large batch's part waits while
    /// `partsAhead` parts wait for filing: its lines then go to the engine (and into memory)
    /// about as fast as they are filed, not all at once (100,000 queued lines held about
    /// 40 MB). A small import never waits: it is bounded by its size, and waiting beside a
    /// large batch's reader, woken together at each filed part, it lost the race to it part
    /// after part (a 40-job import behind three of 50,000 came up to 1.3 s late).
    public func wouldWait(_ lane: Lane) -> Bool {
        lane == .large && waiting.withLock { $0.parts >= Self.partsAhead }
    }

    /// Blocks an intake thread while `wouldWait(lane)`.
    public func waitForRoom(_ lane: Lane) {
        guard lane == .large else { return }
        while true {
            let semaphore = DispatchSemaphore(value: 0)
            let room = waiting.withLock { state -> Bool in
                if state.parts < Self.partsAhead { return true }
                state.waiters.append(semaphore)
                return false
            }
            if room { return }
            semaphore.wait()
        }
    }
}
