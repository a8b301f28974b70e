/// Substring search and replacement on UTF-8 bytes. The standard library's `contains(_:)`,
/// `firstRange(of:)` and `replacing(_:with:)` for strings live in `_StringProcessing`, whose
/// regex engine (1.3 MB) each use links into the binary (BENCHMARKS.md, "Installed size");
/// Herald only ever looks for literal text.
extension StringProtocol {
    /// Whether `needle` occurs in the text (an empty needle always does).
    public func includes(_ needle: some StringProtocol) -> Bool {
        byteRange(of: needle) != nil
    }

    /// The text before the first `needle`, or all of it when there is none.
    public func prefix(upTo needle: some StringProtocol) -> String {
        guard let r = byteRange(of: needle) else { return String(self) }
        return String(decoding: Array(utf8)[..<r.lowerBound], as: UTF8.self)
    }

    /// The text with every `needle` replaced by `replacement`, left to right, not overlapping.
    public func replacingAll(_ needle: some StringProtocol, with replacement: some StringProtocol) -> String {
        let bytes = Array(utf8), target = Array(needle.utf8)
        guard !target.isEmpty else { return String(self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if i + target.count <= bytes.count, bytes[i..<(i + target.count)].elementsEqual(target) {
                out.append(contentsOf: replacement.utf8)
                i += target.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The byte offsets of the first `needle` in the text's UTF-8.
    func byteRange(of needle: some StringProtocol) -> Range<Int>? {
        var text = String(self), target = String(needle)
        return text.withUTF8 { bytes in
            target.withUTF8 { target -> Range<Int>? in
                guard !target.isEmpty else { return 0..<0 }
                guard target.count <= bytes.count else { return nil }
                let first = target[0]
                for start in 0...(bytes.count - target.count) where bytes[start] == first {
                    if UnsafeBufferPointer(rebasing: bytes[start..<(start + target.count)]).elementsEqual(target) {
                        return start..<(start + target.count)
                    }
                }
                return nil
            }
        }
    }
}
