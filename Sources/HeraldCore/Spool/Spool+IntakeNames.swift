#if canImport(Glibc)
import Glibc
#endif
import CHeraldSys

extension Spool {
    /// The names in `new/`. A name that is not valid UTF-8 or holds a control character (a
    /// newline, say) is first renamed to a safe one, its odd bytes written as `%XX`: such a
    /// name cannot be shown, logged or written into a `.reason` line as it is.
    public func intakeNames() -> [String] {
        guard let dir = opendir(new) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let raw = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if raw == [0x2E] || raw == [0x2E, 0x2E] { continue }
            if let name = Self.safeName(raw) { names.append(name) } else if let renamed = renameUnsafe(raw) { names.append(renamed) }
        }
        return names
    }

    /// `raw` as a String when it is a safe name; nil when it is not.
    public static func safeName(_ raw: [UInt8]) -> String? {
        guard !raw.contains(where: { $0 < 0x20 || $0 == 0x7F }), let name = String(validating: raw, as: UTF8.self) else { return nil }
        return name
    }

    /// Renames `new/<raw>` to its escaped form (never over another file); the new name, or nil
    /// when it is gone or cannot be renamed.
    public func renameUnsafe(_ raw: [UInt8]) -> String? {
        func hex(_ byte: UInt8) -> String { "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true) }
        var escaped = ""
        if let text = String(validating: raw, as: UTF8.self) {
            for scalar in text.unicodeScalars {
                if scalar.value < 0x20 || scalar.value == 0x7F { escaped += hex(UInt8(scalar.value)) } else { escaped.unicodeScalars.append(scalar) }
            }
        } else {
            for byte in raw {
                if byte < 0x20 || byte >= 0x7F { escaped += hex(byte) } else { escaped.unicodeScalars.append(Unicode.Scalar(byte)) }
            }
        }
        var from = Array((new + "/").utf8) + raw
        from.append(0)
        for attempt in 0..<100 {
            let name = attempt == 0 ? escaped : escaped + "." + String(attempt)
            let result = from.withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: CChar.self) { herald_rename_noreplace($0.baseAddress!, new + "/" + name) }
            }
            if result == 0 { return name }
            if errno != EEXIST { return nil }
        }
        return nil
    }
}
