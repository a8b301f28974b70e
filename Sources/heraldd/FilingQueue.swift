import Synchronization
import HeraldCore

/// The intake's filing work, soonest due first: a part of a large batch does not hold up a
/// small import behind it, and the jobs due first are put into `jobs/` first. Each plan is one
/// block on a serial queue; a block takes whichever plan is most urgent when it runs.
///
/// Single files and refusals keep their order among themselves (a refusal of a file read twice
/// must not overtake the move of its first reading) and go before batch writes; a batch's
/// removal follows its own writes by construction (the engine asks for it once they are filed).
final class FilingQueue: Sendable {
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

    private let waiting = Mutex<(plans: [Waiting], sequence: UInt64)>(([], 0))

    func add(_ plan: FilingPlan) {
        let urgent = !plan.moves.isEmpty || !plan.refusals.isEmpty || plan.removeBatch != nil
        let due = plan.writes.map(\.name.fireAt).min() ?? plan.moves.map(\.name.fireAt).min() ?? Instant(seconds: 0)
        waiting.withLock { state in
            state.sequence += 1
            state.plans.append(Waiting(urgent: urgent, due: due, sequence: state.sequence, plan: plan))
        }
    }

    /// The most urgent plan (a few hundred wait at most: a scan is enough).
    func takeFirst() -> FilingPlan? {
        waiting.withLock { state in
            guard var best = state.plans.indices.first else { return nil }
            for k in state.plans.indices.dropFirst() where state.plans[k].before(state.plans[best]) { best = k }
            return state.plans.remove(at: best).plan
        }
    }
}
