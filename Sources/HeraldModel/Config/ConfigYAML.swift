/// The YAML Herald's configuration is written in: block mappings of scalars, with comments.
///
/// A deliberately small reader (no anchors, tags, sequences, multi-line or block scalars):
/// the configuration needs no more, every construct outside it is refused with its line
/// number, and Herald's programs stay free of a YAML library (which brings in all of
/// Foundation and its ICU data, tripling the command's start-up time).
public enum ConfigYAML {
    public indirect enum Node: Equatable, Sendable {
        case scalar(String, line: Int)
        case mapping([(key: String, line: Int, value: Node)])
        case null(line: Int)

        public static func == (a: Node, b: Node) -> Bool {
            switch (a, b) {
            case let (.scalar(x, l1), .scalar(y, l2)): return x == y && l1 == l2
            case let (.null(l1), .null(l2)): return l1 == l2
            case let (.mapping(x), .mapping(y)):
                return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.line == $1.line && $0.value == $1.value }
            default: return false
            }
        }
    }

    public struct SyntaxError: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// Parses a document into its top-level mapping (empty for an empty document).
    public static func parse(_ text: String) throws(SyntaxError) -> [(key: String, line: Int, value: Node)] {
        var lines: [(number: Int, indent: Int, content: String)] = []
        for (k, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(raw)
            if line.hasSuffix("\r") { line.removeLast() }
            let number = k + 1
            let body = line.drop { $0 == " " }
            if body.hasPrefix("\t") { throw SyntaxError(line: number, reason: "tabs cannot indent YAML; use spaces") }
            let content = try stripComment(String(body), line: number)
            if content.isEmpty { continue }
            if lines.isEmpty && (content == "---" || content == "{}") { continue }
            if content == "..." { break }
            lines.append((number, line.count - body.count, content))
        }
        var index = 0
        return try mapping(&index, lines, indent: lines.first?.indent ?? 0)
    }

    static func mapping(_ index: inout Int, _ lines: [(number: Int, indent: Int, content: String)], indent: Int)
        throws(SyntaxError) -> [(key: String, line: Int, value: Node)] {
        var entries: [(key: String, line: Int, value: Node)] = []
        var seen: Set<String> = []  // a set: searching the list made a file of many keys quadratic
        while index < lines.count {
            let line = lines[index]
            if line.indent < indent { break }
            if line.indent > indent { throw SyntaxError(line: line.number, reason: "unexpected indentation") }
            if line.content.hasPrefix("- ") || line.content == "-" {
                throw SyntaxError(line: line.number, reason: indent == 0 && entries.isEmpty && index == 0
                    ? "the top level must be a mapping of keys" : "lists are not used in Herald's configuration")
            }
            guard let colon = keyColon(line.content) else {
                throw SyntaxError(line: line.number, reason: "expected 'key: value'")
            }
            let key = try scalar(String(line.content[..<colon]).trimmingSpaces, line: line.number)
            if key.isEmpty { throw SyntaxError(line: line.number, reason: "a key is empty") }
            if !seen.insert(key).inserted { throw SyntaxError(line: line.number, reason: "key '\(key)' appears twice") }
            let rest = String(line.content[line.content.index(after: colon)...]).trimmingSpaces
            index += 1
            if rest.isEmpty {
                if index < lines.count, lines[index].indent > indent {
                    entries.append((key, line.number, .mapping(try mapping(&index, lines, indent: lines[index].indent))))
                } else {
                    entries.append((key, line.number, .null(line: line.number)))
                }
            } else if rest == "{}" {
                entries.append((key, line.number, .mapping([])))
            } else if rest == "~" || rest == "null" || rest == "Null" || rest == "NULL" {
                entries.append((key, line.number, .null(line: line.number)))
            } else {
                entries.append((key, line.number, .scalar(try scalar(rest, line: line.number), line: line.number)))
            }
        }
        return entries
    }

    /// The colon that ends a key: outside quotes, followed by a space or the end.
    static func keyColon(_ s: String) -> String.Index? {
        var quote: Character? = nil
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                if i == s.startIndex { quote = c }
            } else if c == ":" {
                let next = s.index(after: i)
                if next == s.endIndex || s[next] == " " { return i }
            }
            i = s.index(after: i)
        }
        return nil
    }

    /// A plain, 'single-quoted' or "double-quoted" scalar.
    static func scalar(_ s: String, line: Int) throws(SyntaxError) -> String {
        guard let first = s.first else { return "" }
        if first == "'" {
            guard s.count >= 2, s.last == "'" else { throw SyntaxError(line: line, reason: "a 'quoted' value does not end on its line") }
            return String(s.dropFirst().dropLast()).replacingAll("''", with: "'")
        }
        if first == "\"" {
            guard s.count >= 2, s.last == "\"" else { throw SyntaxError(line: line, reason: "a \"quoted\" value does not end on its line") }
            return try unescape(String(s.dropFirst().dropLast()), line: line)
        }
        if "&*!|>%@`[{".contains(first) {
            throw SyntaxError(line: line, reason: "'\(first)' starts a YAML construct Herald's configuration does not use; quote the value")
        }
        return s
    }

    static func unescape(_ s: String, line: Int) throws(SyntaxError) -> String {
        var out = ""
        var it = s.unicodeScalars.makeIterator()
        while let c = it.next() {
            guard c == "\\" else {
                if c == "\"" { throw SyntaxError(line: line, reason: "a \" inside a \"quoted\" value must be written \\\"") }
                out.unicodeScalars.append(c)
                continue
            }
            guard let e = it.next() else { throw SyntaxError(line: line, reason: "a \\ ends a quoted value") }
            switch e {
            case "n": out += "\n"
            case "t": out += "\t"
            case "r": out += "\r"
            case "0": out += "\0"
            case "\\": out += "\\"
            case "\"": out += "\""
            case "/": out += "/"
            case " ": out += " "
            case "u", "x", "U":
                let count = e == "x" ? 2 : e == "u" ? 4 : 8
                var hex = ""
                for _ in 0..<count { if let h = it.next() { hex.unicodeScalars.append(h) } }
                guard hex.count == count, let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) else {
                    throw SyntaxError(line: line, reason: "'\\\(e)\(hex)' is not a character")
                }
                out.unicodeScalars.append(scalar)
            default: throw SyntaxError(line: line, reason: "unknown escape '\\\(e)'")
            }
        }
        return out
    }

    /// The line without a trailing `# comment` (outside quotes).
    static func stripComment(_ s: String, line: Int) throws(SyntaxError) -> String {
        var quote: Character? = nil
        var previous: Character = " "
        for i in s.indices {
            let c = s[i]
            if let q = quote {
                if c == q && !(q == "\"" && previous == "\\") { quote = nil }
            } else if c == "\"" || c == "'" {
                if previous == " " || previous == ":" { quote = c }
            } else if c == "#" && previous == " " {
                return String(s[..<i]).trimmingSpaces
            }
            previous = c
        }
        return s.trimmingSpaces
    }

    /// Dotted keys and scalar values: `profile.name` → "Alice".
    public static func flatten(_ entries: [(key: String, line: Int, value: Node)], prefix: String = "") -> [String: String] {
        var out: [String: String] = [:]
        for (key, _, value) in entries {
            let full = prefix.isEmpty ? key : prefix + "." + key
            switch value {
            case .scalar(let s, _): out[full] = s
            case .mapping(let children): out.merge(flatten(children, prefix: full)) { a, _ in a }
            case .null: break
            }
        }
        return out
    }
}
