import HeraldModel

extension JobFileName {
    /// `description` as a C string, after `prefix`, built in a stack buffer: filing a batch names
    /// a file per job, and a String per name was a good part of its time in user space.
    func withCString<R, E: Error>(prefix: StaticString = "", _ body: (UnsafePointer<CChar>) throws(E) -> R) throws(E) -> R {
        let capacity = prefix.utf8CodeUnitCount + id.utf8.count + 2 * 21 + 7
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer throws(E) in
            var n = 0
            func put(_ byte: UInt8) { buffer[n] = byte; n += 1 }
            func putNumber(_ value: Int64) {
                if value < 0 { put(UInt8(ascii: "-")) }
                var magnitude = value.magnitude
                let start = n
                repeat { put(UInt8(ascii: "0") + UInt8(magnitude % 10)); magnitude /= 10 } while magnitude > 0
                var (i, j) = (start, n - 1)
                while i < j { buffer.swapAt(i, j); i += 1; j -= 1 }
            }
            prefix.withUTF8Buffer { for b in $0 { put(b) } }
            for b in id.utf8 { put(b) }
            put(UInt8(ascii: "@"))
            putNumber(occurrence.microseconds)
            if let snoozedUntil {
                put(UInt8(ascii: "@"))
                putNumber(snoozedUntil.microseconds)
            }
            for b in ".json".utf8 { put(b) }
            put(0)
            return try buffer.withMemoryRebound(to: CChar.self) { chars throws(E) in try body(chars.baseAddress!) }
        }
    }
}
