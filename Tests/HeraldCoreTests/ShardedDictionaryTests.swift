import Testing
@testable import HeraldCore
@testable import HeraldModel

/// The engine's and scheduler's big tables.
struct ShardedDictionaryTests {
    @Test func behavesLikeADictionary() {
        var sharded = ShardedDictionary<String, Int>()
        var plain: [String: Int] = [:]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let key = "k\(Int.random(in: 0..<5_000, using: &rng))"
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: sharded[key] = 1; plain[key] = 1
            case 1: #expect(sharded.removeValue(forKey: key) == plain.removeValue(forKey: key))
            default: sharded[key] = nil; plain[key] = nil
            }
        }
        #expect(sharded.count == plain.count)
        #expect(Dictionary(uniqueKeysWithValues: sharded.pairs) == plain)
        #expect(sharded.values.count == plain.count)
        #expect(ShardedDictionary(plain).count == plain.count && sharded.isEmpty == plain.isEmpty)
    }
}
