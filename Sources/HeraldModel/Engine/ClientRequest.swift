/// A one-job command from the CLI (`herald ack`, `snooze`, `cancel`, `habit done`), handed to
/// the engine by heraldd's query server: the engine decides and writes, so each change has
/// one writer. Without heraldd the CLI applies the same `JobDecision` functions itself.
public enum ClientRequest: Sendable, Equatable {
    /// Acknowledge a repeating reminder waiting to repeat.
    case ack(id: String)
    /// Show the job's last popup again `length` from now (or put off its next occurrence).
    /// `until` is the exact time a phrase named; `lastShown` the CLI's hint of the occurrence
    /// last shown (the engine prefers its popup's); `finished` the job's name in `done/`, for a
    /// job that has no pending state.
    case snooze(id: String, length: Span, until: Instant?, lastShown: Instant?, finished: JobFileName?)
    /// Move the pending job to `cancelled/`.
    case cancel(id: String)
    /// Mark a habit's `day` done, or add `amount` to a measurable habit's day.
    case habitDone(id: String, day: LocalDate, amount: Double?)

    public var id: String {
        switch self {
        case .ack(let id), .cancel(let id): return id
        case .snooze(let id, _, _, _, _): return id
        case .habitDone(let id, _, _): return id
        }
    }
}

/// What the engine did with a `ClientRequest`; sent back once the change is durable.
public enum ClientAnswer: Sendable, Equatable {
    /// Acknowledged: the job moved to `next`, or finished (nil).
    case acknowledged(next: JobFileName?)
    /// Snoozed: the job's new state.
    case snoozed(JobFileName)
    /// Moved to `cancelled/` from this state.
    case cancelled(JobFileName)
    /// The habit's log has the entry (`already`: the day was done before; nothing written).
    case habitDone(already: Bool)
    case refused(ClientRefusal)
}

/// Why a request changed nothing: a code for scripts and tests, a sentence for people.
public struct ClientRefusal: Error, Sendable, Equatable {
    public enum Code: String, Sendable, CaseIterable {
        case unknownJob = "unknown-job"
        case notWaiting = "not-waiting"
        case nothingToSnooze = "nothing-to-snooze"
        case beforeOwnTime = "before-own-time"
        case notHabit = "not-habit"
        case changed
        case invalid
        case failed
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }
}
