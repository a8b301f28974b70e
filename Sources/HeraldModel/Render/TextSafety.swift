/// Text clean-up: for popups, control characters out and markup escaped only where it is
/// taken; for terminals, control characters made visible (`visible`).
public enum TextSafety {
    /// What `visible` does with tabs and newlines.
    public enum Whitespace: Sendable {
        /// Shown as `^I` and `^J`, like every other control: for a value on a line of its own
        /// making (an id, a file name, a quoted value in a message).
        case caret
        /// Each becomes one space: for a table cell, which must stay on its row.
        case spaces
        /// Kept as they are: for text that is meant to span lines (a list of problems).
        case kept
    }

    /// `text` as a terminal may print it: nothing in it is executed as a control, and what
    /// would have been is shown, so a title holding an escape sequence reads as that sequence.
    ///
    /// - C0 controls (U+0000–U+001F) in caret notation: ESC is `^[`, BEL `^G`, CR `^M`
    ///   (tab and newline as `whitespace` says); DEL is `^?`.
    /// - C1 controls (U+0080–U+009F, which some terminals take as CSI, OSC...) and the
    ///   characters that reorder text on screen (the bidi embeddings, overrides and isolates
    ///   U+202A–U+202E and U+2066–U+2069) and U+2028/U+2029 as Swift writes them: `\u{9b}`,
    ///   `\u{202e}`, lowercase hex.
    /// - Everything else, other Unicode included (accents, emoji and their joiners), is kept.
    ///
    /// A `^` or `\` already in the text is kept as it is: this is for reading, not for
    /// decoding back.
    public static func visible(_ text: String, whitespace: Whitespace = .caret) -> String {
        guard needsVisible(text) else { return text }  // the usual case: nothing to change
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            let v = s.value
            if v == 0x09 || v == 0x0A, whitespace != .caret {
                out.append(whitespace == .spaces ? " " : s)
                continue
            }
            switch v {
            case 0x00..<0x20:
                out.append("^")
                out.append(Unicode.Scalar(UInt8(v + 0x40)))
            case 0x7F: out.append(contentsOf: "^?".unicodeScalars)
            case _ where isHidden(s):
                out.append(contentsOf: "\\u{\(String(v, radix: 16))}".unicodeScalars)
            default: out.append(s)
            }
        }
        return String(out)
    }

    /// A control character (C0, DEL, C1) or one that moves text about on screen (U+2028,
    /// U+2029, the bidi embeddings, overrides and isolates): what `visible` changes.
    static func isHidden(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x00..<0x20, 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// Whether `text` holds anything `visible` changes, looking at its UTF-8 bytes.
    static func needsVisible(_ text: String) -> Bool {
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            switch byte {
            case 0x00..<0x20, 0x7F: return true
            case 0xC2:  // U+0080–U+009F are C2 80–C2 9F
                if let next = utf8.next(), (0x80...0x9F).contains(next) { return true }
            case 0xE2:  // U+2028–U+202E are E2 80 A8–AE; U+2066–U+2069 are E2 81 A6–A9
                guard let second = utf8.next(), let third = utf8.next() else { return false }
                if second == 0x80 && (0xA8...0xAE).contains(third) { return true }
                if second == 0x81 && (0xA6...0xA9).contains(third) { return true }
            default: continue
            }
        }
        return false
    }

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

    /// A program's output as plain text for a popup: terminal escape sequences removed whole
    /// (CSI `ESC [ ... final`, OSC `ESC ] ... BEL or ESC \`, the 8-bit CSI, other two-byte
    /// escapes), and the bidirectional controls that can make text read other than it is
    /// (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C); then `stripControls`.
    public static func plainText(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? { if let p = pending { pending = nil; return p }; return scalars.next() }
        while let s = next() {
            switch s.value {
            case 0x1B:
                guard let kind = next() else { break }
                if kind == "[" {
                    while let c = next(), !(0x40...0x7E).contains(c.value) {}
                } else if kind == "]" || kind == "P" || kind == "_" || kind == "^" {
                    // Up to BEL or ST (ESC \).
                    while let c = next() {
                        if c.value == 0x07 { break }
                        if c.value == 0x1B { _ = next(); break }
                    }
                } else if (0x20...0x2F).contains(kind.value) {
                    _ = next()  // ESC ( B and the like: one more byte
                }
            case 0x9B:
                while let c = next(), !(0x40...0x7E).contains(c.value) {}
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                continue
            default:
                out.append(s)
            }
        }
        return stripControls(String(out))
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
