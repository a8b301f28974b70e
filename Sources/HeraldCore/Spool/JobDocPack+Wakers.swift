#if canImport(Glibc)
import Glibc
#endif
import CHeraldSys

extension JobDocPack {
    /// The jobs whose latest document in the pack may wake the machine: their id, `kind` and
    /// `wake` as written (the engine applies the config). heraldd reads it once after it starts
    /// (after its maintenance has rebuilt a missing pack), streaming the pack a megabyte at a
    /// time; only documents that name `alarm` or `wake` (or hold a `\u` escape, which could
    /// spell either) are parsed, unless `kinds` (the config's `alarms.wake`) holds more than
    /// alarms. A damaged record costs only itself: the walk resumes at the next record that
    /// checks. Nil without a pack.
    public func wakeFields(kinds: Set<Job.Kind>) -> [(id: String, kind: Job.Kind, wake: Bool?)]? {
        guard let file = Descriptor.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { file.close() }
        var st = stat()
        guard fstat(file.raw, &st) == 0 else { return nil }
        let size = Int(st.st_size)
        let everyDocument = !kinds.subtracting([.alarm]).isEmpty
        // Run jobs are reported too: the engine sends them straight to the command runner.
        let words = [Array("alarm".utf8), Array("wake".utf8), Array("\\u".utf8), Array("\"run\"".utf8)]
        var found: [String: (kind: Job.Kind, wake: Bool?)] = [:]
        var start = 0
        while start < size {
            let end = Self.walk(file, from: start) { idBytes, _, record, _ in
                let document = record.dropFirst(Self.headerSize + idBytes.count)
                let mentioned = everyDocument || words.contains { Self.contains(document, $0) }
                // A later document of the same id replaces the earlier one: one without the words clears it.
                guard mentioned || (!found.isEmpty && found[String(decoding: idBytes, as: UTF8.self)] != nil) else { return }
                let id = String(decoding: idBytes, as: UTF8.self)
                guard mentioned, case .object(let o)? = try? JSONValue.parse(document), case .string(let k)? = o["kind"],
                      let kind = Job.Kind(rawValue: k) else { found[id] = nil; return }
                var flag: Bool?
                if case .bool(let b)? = o["wake"] { flag = b }
                if flag != nil || kinds.contains(kind) || kind == .run { found[id] = (kind, flag) } else { found[id] = nil }
            }
            guard end < size, let next = Self.nextMagic(file, after: end + 1, size: size) else { break }
            start = next
        }
        return found.map { (id: $0.key, kind: $0.value.kind, wake: $0.value.wake) }
    }

    /// The offset of the next record's magic at or after `offset`, if any (a record there may
    /// still fail its checks: `walk` then stops at once and the search goes on after it).
    static func nextMagic(_ file: Descriptor, after offset: Int, size: Int) -> Int? {
        let magic: [UInt8] = withUnsafeBytes(of: Self.magic.littleEndian) { Array($0) }
        let chunk = 1 << 20
        var at = offset
        var buffer = [UInt8](repeating: 0, count: chunk + magic.count)
        while at < size {
            let n = buffer.withUnsafeMutableBytes { pread(file.raw, $0.baseAddress!, $0.count, off_t(at)) }
            guard n >= magic.count else { return nil }
            var k = 0
            while k + magic.count <= n {
                if buffer[k] == magic[0] && buffer[k + 1] == magic[1] && buffer[k + 2] == magic[2] && buffer[k + 3] == magic[3] {
                    return at + k
                }
                k += 1
            }
            at += n - magic.count + 1
        }
        return nil
    }

    static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in h.count > 0 && herald_contains(h.baseAddress, h.count, n.baseAddress, n.count) == 1 }
        }
    }
}
