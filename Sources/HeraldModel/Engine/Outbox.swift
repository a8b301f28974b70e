/// The queue between "due" and "shown": which due jobs go to the notifier now, and when to
/// try again after the notification server failed. A pure state machine; time is passed in.
///
/// While healthy, up to `window` notifications are handed to the notifier at once (32 by
/// default). The notifier still sends them one at a time, each waiting for the server's reply;
/// the window lets the next be ready when a reply comes, and lets the notifier give a burst's
/// answers back half a window at a time, so a burst costs its round trips and not a hop to the
/// engine and back between them (BENCHMARKS.md, "Ratios to the floor").
/// A crash can repeat the popups whose records had not landed: at most the window's. The first failure blocks
/// the queue: everything waits (in due order) and one probe is sent after a backoff that
/// doubles from `initialBackoff` up to `maxBackoff`. A successful probe, or the server
/// appearing on the bus, unblocks it.
public struct Outbox: Sendable {
    /// A job's popup, or the summary's, due at `due`.
    public struct Item: Equatable, Sendable {
        public var subject: PopupSubject
        public var due: Instant
        public init(_ subject: PopupSubject, due: Instant) { self.subject = subject; self.due = due }
    }

    public enum Action: Equatable, Sendable {
        /// Hand this item to the notifier.
        case show(Item)
        /// Call `retry(now:)` at this time.
        case armRetry(Instant)
    }

    public struct Policy: Sendable {
        public var initialBackoff: Span = .seconds(1)
        public var maxBackoff: Span = .seconds(30)
        public var window = 32
        public init() {}
    }

    enum State: Equatable {
        case healthy
        case blocked(retryAt: Instant)
        case probing
    }

    public let policy: Policy
    private(set) var state: State = .healthy
    private var waiting: [Item] = []
    private var inFlight: [PopupSubject: Item] = [:]
    private var backoff: Span
    /// The last waiting item `unseenUpcoming` handed out: those before it are not handed again.
    private var seenUpTo: PopupSubject?

    public init(policy: Policy = Policy()) {
        self.policy = policy
        self.backoff = policy.initialBackoff
    }

    /// Items waiting to be shown or in flight.
    public var pendingCount: Int { waiting.count + inFlight.count }
    public var isBlocked: Bool { state != .healthy }
    /// When the next retry is due while blocked.
    public var retryAt: Instant? { if case .blocked(let t) = state { return t } else { return nil } }
    /// What the notifier has been handed and has not finished with.
    public var inFlightSubjects: Dictionary<PopupSubject, Item>.Keys { inFlight.keys }
    public func contains(_ subject: PopupSubject) -> Bool { inFlight[subject] != nil || waiting.contains { $0.subject == subject } }

    /// The first `count` items waiting their turn, next first.
    public func upcoming(_ count: Int) -> ArraySlice<Item> { waiting.prefix(count) }

    /// The first `count` items waiting their turn that no call before handed out (a burst's
    /// read-ahead looks at each waiting job once, not on every event).
    public mutating func unseenUpcoming(_ count: Int) -> ArraySlice<Item> {
        let upcoming = waiting.prefix(count)
        var start = upcoming.startIndex
        if let seen = seenUpTo, let k = upcoming.lastIndex(where: { $0.subject == seen }) { start = k + 1 }
        seenUpTo = upcoming.last?.subject
        return upcoming[start...]
    }

    /// Queues due items (in due order) and returns what to show now.
    public mutating func enqueue(_ items: [Item]) -> [Action] {
        waiting.append(contentsOf: items)
        return pump()
    }

    /// The notifier showed `subject`'s popup (or it needed none after all).
    public mutating func shown(_ subject: PopupSubject) -> [Action] {
        inFlight.removeValue(forKey: subject)
        if state == .probing {
            state = .healthy
            backoff = policy.initialBackoff
        }
        return pump()
    }

    /// The notifier failed to show `subject`'s popup: it goes back to the queue, which blocks until a retry.
    public mutating func failed(_ subject: PopupSubject, now: Instant) -> [Action] {
        guard let item = inFlight.removeValue(forKey: subject) else { return [] }
        let at = waiting.firstIndex { ($0.due, $0.subject.key) > (item.due, item.subject.key) } ?? waiting.count
        waiting.insert(item, at: at)
        if case .blocked = state { return [] }
        let retryAt = now + backoff
        backoff = min(backoff * 2, policy.maxBackoff)
        state = .blocked(retryAt: retryAt)
        return [.armRetry(retryAt)]
    }

    /// The retry time came: send one probe.
    public mutating func retry(now: Instant) -> [Action] {
        guard case .blocked(let at) = state, now >= at else { return [] }
        state = .probing
        return pump()
    }

    /// A notification server took the name on the bus: probe at once, with a fresh backoff.
    public mutating func serverAppeared() -> [Action] {
        backoff = policy.initialBackoff
        guard case .blocked = state else { return [] }
        state = .probing
        return pump()
    }

    /// Drops a waiting item (its job was cancelled). In-flight items cannot be recalled.
    @discardableResult
    public mutating func remove(_ subject: PopupSubject) -> Bool {
        guard let k = waiting.firstIndex(where: { $0.subject == subject }) else { return false }
        waiting.remove(at: k)
        return true
    }

    private mutating func pump() -> [Action] {
        let limit: Int
        switch state {
        case .healthy: limit = policy.window
        case .probing: limit = 1
        case .blocked: return []
        }
        var actions: [Action] = []
        var taken = 0
        while inFlight.count < limit, taken < waiting.count {
            let item = waiting[taken]
            // The summary gathers every popup held before it: it goes out alone, once all handed
            // out before it are decided (one of them may yet be held for it).
            if inFlight[.summary] != nil || (item.subject == .summary && !inFlight.isEmpty) { break }
            taken += 1
            inFlight[item.subject] = item
            actions.append(.show(item))
        }
        waiting.removeFirst(taken)
        return actions
    }
}
