/// Text clean-up for popups: control characters out, markup escaped only where it is taken.
public enum TextSafety {
    /// Removes C0/C1 control characters and DEL; a tab becomes a space, and so does a newline
    /// unless `keepNewlines`.
    public static func stripControls(_ text: String, keepNewlines: Bool = true) -> String {
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            let v = s.value
            if s == "\n" { if keepNewlines { out.append(s) } else { out.append(" ") }; continue }
            if s == "\t" { out.append(" "); continue }
            if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) { continue }
            out.append(s)
        }
        return String(out)
    }

    /// Escapes `&`, `<`, `>`, `'` and `"` for servers that parse body markup (as g_markup_escape_text).
    public static func escapeMarkup(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "'": out += "&apos;"
            case "\"": out += "&quot;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
