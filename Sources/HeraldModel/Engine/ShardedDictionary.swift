/// A dictionary in 64 parts, chosen by the key's hash. Each part grows on its own, so
/// growing never rehashes everything at once: a single `Dictionary` of 130,000 jobs that
/// doubles stops the scheduler's queue for tens of milliseconds, 64 parts a sixty-fourth of
/// that each (BENCHMARKS.md, "Intake off the scheduler's path").
struct ShardedDictionary<Key: Hashable, Value> {
    private var shards = [[Key: Value]](repeating: [:], count: 64)
    private(set) var count = 0
    /// Keys set or removed since `recordChanges()`, while recording.
    private var changed: Set<Key>?

    init() {}

    init(_ elements: [Key: Value]) {
        for (key, value) in elements { self[key] = value }
    }

    /// The part for `key`: its hash mixed with a constant, so the parts' own bucket choice
    /// (which starts from the same hash) is not left with keys that all share their low bits.
    private static func shard(_ key: Key) -> Int {
        var hasher = Hasher()
        hasher.combine(0x5EED as UInt16)
        hasher.combine(key)
        return hasher.finalize() & 63
    }

    var isEmpty: Bool { count == 0 }

    /// Starts noting which keys change (for comparing with a listing taken meanwhile).
    mutating func recordChanges() { changed = [] }

    /// The keys changed since `recordChanges()`; recording stops.
    mutating func takeChanges() -> Set<Key> {
        defer { changed = nil }
        return changed ?? []
    }

    subscript(key: Key) -> Value? {
        get { shards[Self.shard(key)][key] }
        set {
            changed?.insert(key)
            let s = Self.shard(key)
            if let newValue {
                if shards[s].updateValue(newValue, forKey: key) == nil { count += 1 }
            } else if shards[s].removeValue(forKey: key) != nil {
                count -= 1
            }
        }
    }

    /// Sets `value` for `key` in one lookup; returns the value it replaced.
    @discardableResult
    mutating func exchange(_ key: Key, _ value: Value) -> Value? {
        changed?.insert(key)
        let old = shards[Self.shard(key)].updateValue(value, forKey: key)
        if old == nil { count += 1 }
        return old
    }

    /// Room for `total` keys, spread over the parts (a spool's start: no part grows and
    /// rehashes as it loads). Small spools reserve nothing, to keep an idle heraldd small.
    mutating func reserveCapacity(_ total: Int) {
        guard total >= 4096 else { return }
        let each = total / shards.count + total / (4 * shards.count) + 16
        for s in shards.indices { shards[s].reserveCapacity(each) }
    }

    /// Changes every value in place, quietly (bookkeeping, as `updateQuietly`), in no
    /// particular order, without looking any key up.
    mutating func updateEachQuietly(_ body: (Key, inout Value) -> Void) {
        for s in shards.indices {
            var i = shards[s].startIndex
            while i != shards[s].endIndex {
                body(shards[s].keys[i], &shards[s].values[i])
                shards[s].formIndex(after: &i)
            }
        }
    }

    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        changed?.insert(key)
        let removed = shards[Self.shard(key)].removeValue(forKey: key)
        if removed != nil { count -= 1 }
        return removed
    }

    /// Changes the value for `key` in place (made from `default` if missing) without noting a
    /// change: for bookkeeping that is not the value's news (a job's place in the due index).
    mutating func updateQuietly(_ key: Key, default value: @autoclosure () -> Value, _ body: (inout Value) -> Void) {
        let s = Self.shard(key)
        if shards[s][key] == nil { count += 1 }
        body(&shards[s][key, default: value()])
    }

    mutating func removeValueQuietly(forKey key: Key) {
        if shards[Self.shard(key)].removeValue(forKey: key) != nil { count -= 1 }
    }

    /// Every value, in no particular order.
    var values: [Value] { shards.flatMap { Array($0.values) } }

    /// Visits every pair, in no particular order, without copying them out.
    func forEach(_ body: (Key, Value) -> Void) {
        for shard in shards { for (key, value) in shard { body(key, value) } }
    }

    /// Every pair, in no particular order.
    var pairs: [(key: Key, value: Value)] { shards.flatMap { $0.map { ($0.key, $0.value) } } }
}

extension ShardedDictionary: Sendable where Key: Sendable, Value: Sendable {}
