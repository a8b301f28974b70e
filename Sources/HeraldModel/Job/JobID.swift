/// Short job ids for the CLI: 8 characters of lowercase base32 without look-alikes.
public enum JobID {
    static let alphabet = Array("23456789abcdefghjkmnpqrstuvwxyz".utf8)

    /// A random id such as `k7f3q2ab` (about 10^12 possibilities).
    public static func random<R: RandomNumberGenerator>(using rng: inout R) -> String {
        var bits = rng.next()  // one draw: 8 × 5 bits (31 symbols, so a slight bias; ids need no more)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8)
        for _ in 0..<8 {
            bytes.append(alphabet[Int(bits & 31) % alphabet.count])
            bits >>= 5
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
