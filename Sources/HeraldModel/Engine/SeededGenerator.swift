/// SplitMix64 (Steele, Lea and Flood, 2014): a small, fast, seeded generator. The engine draws
/// the ids of job files without one from it, seeded by heraldd, so the engine itself draws
/// nothing from the system and a test's run repeats exactly; random tests and fuzz runs replay
/// from their seed too. Ids need to be unlikely to meet, not secret: the engine checks each
/// against the jobs it knows.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
