#if canImport(Glibc)
import Glibc
#endif
import CHeraldSys

extension JobDocPack {
    /// The jobs whose latest document in the pack may wake the machine: their id, `kind` and
    /// `wake` as written (the engine applies the config). heraldd reads it once after it starts,
    /// streaming the pack a megabyte at a time; only documents that name `alarm` or `wake` are
    /// parsed, unless `kinds` (the config's `alarms.wake`) holds more than alarms. Nil without a pack.
    public func wakeFields(kinds: Set<Job.Kind>) -> [(id: String, kind: Job.Kind, wake: Bool?)]? {
        guard let file = Descriptor.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { file.close() }
        let everyDocument = !kinds.subtracting([.alarm]).isEmpty
        let alarm = Array("alarm".utf8), wake = Array("wake".utf8)
        var found: [String: (kind: Job.Kind, wake: Bool?)] = [:]
        _ = Self.walk(file, from: 0) { idBytes, _, record, _ in
            let document = record.dropFirst(Self.headerSize + idBytes.count)
            let mentioned = everyDocument || Self.contains(document, alarm) || Self.contains(document, wake)
            // A later document of the same id replaces the earlier one: one without the words clears it.
            guard mentioned || (!found.isEmpty && found[String(decoding: idBytes, as: UTF8.self)] != nil) else { return }
            let id = String(decoding: idBytes, as: UTF8.self)
            guard mentioned, case .object(let o)? = try? JSONValue.parse(document), case .string(let k)? = o["kind"],
                  let kind = Job.Kind(rawValue: k) else { found[id] = nil; return }
            var flag: Bool?
            if case .bool(let b)? = o["wake"] { flag = b }
            if flag != nil || kinds.contains(kind) { found[id] = (kind, flag) } else { found[id] = nil }
        }
        return found.map { (id: $0.key, kind: $0.value.kind, wake: $0.value.wake) }
    }

    static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in h.count > 0 && herald_contains(h.baseAddress, h.count, n.baseAddress, n.count) == 1 }
        }
    }
}
