/// Writes JSON text with keys in the order given: for job files and `--json` output.
public struct JSONWriter {
    public enum Value {
        case null
        case bool(Bool)
        case int(Int64)
        /// A finite number; whole numbers are written without a fraction.
        case number(Double)
        case string(String)
        case array([Value])
        case object([(String, Value)])
    }

    /// Renders `value` compactly (`pretty == false`) or indented by two spaces.
    public static func render(_ value: Value, pretty: Bool = false) -> String {
        var out = ""
        write(value, into: &out, pretty: pretty, depth: 0)
        return out
    }

    static func write(_ value: Value, into out: inout String, pretty: Bool, depth: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let n): out += String(n)
        case .number(let x):
            if x == x.rounded(), abs(x) < 1e15 { out += String(Int64(x)) } else { out += x.isFinite ? "\(x)" : "null" }
        case .string(let s): escape(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (k, item) in items.enumerated() {
                if k > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: depth + 1) }
                write(item, into: &out, pretty: pretty, depth: depth + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: depth) }
            out += "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{"
            for (k, (key, item)) in fields.enumerated() {
                if k > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: depth + 1) }
                escape(key, into: &out)
                out += pretty ? ": " : ":"
                write(item, into: &out, pretty: pretty, depth: depth + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: depth) }
            out += "}"
        }
    }

    static func escape(_ s: String, into out: inout String) {
        if !needsEscaping(s) {  // the usual case: copy the text as it is
            out += "\""
            out += s
            out += "\""
            return
        }
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                // C1 controls and the bidi reorderings too: `--json` output may reach a terminal.
                if TextSafety.isHidden(scalar) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// Whether `s` holds a quote, a backslash, or a character `TextSafety.visible` changes.
    static func needsEscaping(_ s: String) -> Bool {
        for byte in s.utf8 where byte == 0x22 || byte == 0x5C { return true }
        return TextSafety.needsVisible(s)
    }
}
