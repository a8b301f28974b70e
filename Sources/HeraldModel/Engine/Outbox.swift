/// The queue between "due" and "shown": which due jobs go to the notifier now, and when to
/// try again after the notification server failed. A pure state machine; time is passed in.
///
/// While healthy, up to `window` notifications are in flight at once (one by default: a
/// popup is recorded before the next is shown, so a crash can repeat at most one). The first failure blocks
/// the queue: everything waits (in due order) and one probe is sent after a backoff that
/// doubles from `initialBackoff` up to `maxBackoff`. A successful probe, or the server
/// appearing on the bus, unblocks it.
public struct Outbox: Sendable {
    public struct Item: Equatable, Sendable {
        public var id: String
        public var due: Instant
        public init(id: String, due: Instant) { self.id = id; self.due = due }
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
        public var window = 1
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
    private var inFlight: [String: Item] = [:]
    private var backoff: Span

    public init(policy: Policy = Policy()) {
        self.policy = policy
        self.backoff = policy.initialBackoff
    }

    /// Items waiting to be shown or in flight.
    public var pendingCount: Int { waiting.count + inFlight.count }
    public var isBlocked: Bool { state != .healthy }
    /// When the next retry is due while blocked.
    public var retryAt: Instant? { if case .blocked(let t) = state { return t } else { return nil } }
    public func contains(_ id: String) -> Bool { inFlight[id] != nil || waiting.contains { $0.id == id } }

    /// The first `count` items waiting their turn, next first.
    public func upcoming(_ count: Int) -> ArraySlice<Item> { waiting.prefix(count) }

    /// Queues due items (in due order) and returns what to show now.
    public mutating func enqueue(_ items: [Item]) -> [Action] {
        waiting.append(contentsOf: items)
        return pump()
    }

    /// The notifier showed `id`.
    public mutating func shown(_ id: String) -> [Action] {
        inFlight.removeValue(forKey: id)
        if state == .probing {
            state = .healthy
            backoff = policy.initialBackoff
        }
        return pump()
    }

    /// The notifier failed to show `id`: it goes back to the queue, which blocks until a retry.
    public mutating func failed(_ id: String, now: Instant) -> [Action] {
        guard let item = inFlight.removeValue(forKey: id) else { return [] }
        let at = waiting.firstIndex { ($0.due, $0.id) > (item.due, item.id) } ?? waiting.count
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
    public mutating func remove(_ id: String) -> Bool {
        guard let k = waiting.firstIndex(where: { $0.id == id }) else { return false }
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
            taken += 1
            inFlight[item.id] = item
            actions.append(.show(item))
        }
        waiting.removeFirst(taken)
        return actions
    }
}
