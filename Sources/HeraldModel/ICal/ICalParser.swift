/// A problem in an iCalendar file, at a (1-based) physical line.
public struct ICalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A budget an item ran out of (`ICalendarFile.alarms` words the message: the item's, or the file's).
    public enum Budget: Sendable { case steps, alarms }

    public var line: Int
    public var message: String
    public var budget: Budget?
    public init(line: Int, _ message: String, budget: Budget? = nil) { self.line = line; self.message = message; self.budget = budget }
    public var description: String { "line \(line): \(message)" }
}

/// One content line (RFC 5545 §3.1) after unfolding: `NAME;PARAM=V:value`.
public struct ICalProperty: Sendable, Equatable {
    /// Upper-cased.
    public var name: String
    /// Parameter names upper-cased, values unquoted, in file order.
    public var parameters: [(name: String, values: [String])]
    public var value: String
    /// The physical lines it spans (0-based, end exclusive), for rewriting just these lines.
    public var lines: Range<Int>

    public func parameter(_ name: String) -> String? { parameters.first { $0.name == name }?.values.first }

    public static func == (a: ICalProperty, b: ICalProperty) -> Bool {
        a.name == b.name && a.value == b.value && a.lines == b.lines
            && a.parameters.map(\.name) == b.parameters.map(\.name) && a.parameters.map(\.values) == b.parameters.map(\.values)
    }

    /// The value as TEXT (§3.3.11): `\n`, `\,`, `\;`, `\\` unescaped.
    public var text: String {
        guard value.contains("\\") else { return value }
        var out = ""
        var escaped = false
        for c in value {
            if escaped {
                switch c {
                case "n", "N": out.append("\n")
                default: out.append(c)
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return out
    }
}

/// A component (`BEGIN:NAME` … `END:NAME`) with its properties and sub-components.
public struct ICalComponent: Sendable, Equatable {
    public var name: String
    public var properties: [ICalProperty] = []
    public var components: [ICalComponent] = []
    /// Physical lines (0-based) of its BEGIN and END lines.
    public var beginLine: Int
    public var endLine: Int = 0

    public func property(_ name: String) -> ICalProperty? { properties.first { $0.name == name } }
    public func properties(_ name: String) -> [ICalProperty] { properties.filter { $0.name == name } }
}

/// Reads iCalendar text: CRLF or LF line ends, folded lines, quoted parameters; checks UTF-8
/// line by line so that a bad byte is reported with its line.
public enum ICalParser {
    /// The file's physical lines (without their line ends) and its top-level components.
    public struct Document: Sendable {
        public var lines: [String]
        /// Whether the file ends its lines with CRLF (kept when a line is rewritten).
        public var crlf: Bool
        public var components: [ICalComponent]
    }

    public static func parse(_ bytes: [UInt8]) throws(ICalError) -> Document {
        var lines: [String] = []
        var crlf = false
        var start = 0
        var lineNumber = 0
        func addLine(_ end: Int) throws(ICalError) {
            var e = end
            if e > start, bytes[e - 1] == 13 { e -= 1; crlf = true }
            guard let s = String(validating: bytes[start..<e], as: UTF8.self) else {
                throw ICalError(line: lineNumber + 1, "not UTF-8 (iCalendar files must be UTF-8)")
            }
            lines.append(s)
            lineNumber += 1
        }
        for i in bytes.indices where bytes[i] == 10 {
            try addLine(i)
            start = i + 1
        }
        if start < bytes.count { try addLine(bytes.count) }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]), !lines.isEmpty { lines[0].removeFirst() }  // a byte-order mark
        return Document(lines: lines, crlf: crlf, components: try components(of: lines))
    }

    /// Unfolds and parses `lines` into components.
    static func components(of lines: [String]) throws(ICalError) -> [ICalComponent] {
        var stack: [ICalComponent] = []
        var top: [ICalComponent] = []
        var i = 0
        while i < lines.count {
            let first = i
            var text = lines[i]
            i += 1
            // A line that starts with a space or tab continues the one before (§3.1).
            var length = text.utf8.count
            while i < lines.count, let c = lines[i].utf8.first, c == 32 || c == 9 {
                length += lines[i].utf8.count - 1
                guard length <= ICalBudget.maximumLineLength else { break }
                text += lines[i].dropFirst()
                i += 1
            }
            guard length <= ICalBudget.maximumLineLength else {
                throw ICalError(line: first + 1, "the line is longer than \(ICalBudget.maximumLineLength >> 10) KiB once unfolded")
            }
            if text.isEmpty { continue }
            let property = try parseLine(text, lines: first..<i)
            switch property.name {
            case "BEGIN":
                // Refused here, the tree is never deep: nothing that walks it recursively
                // (equality, destruction) can run out of stack.
                guard stack.count < ICalBudget.maximumNesting else {
                    throw ICalError(line: first + 1, "BEGIN:\(ICalValue.quoted(property.value)) is nested too deep (at most \(ICalBudget.maximumNesting) levels)")
                }
                stack.append(ICalComponent(name: property.value.uppercased(), beginLine: first))
            case "END":
                guard var open = stack.popLast() else { throw ICalError(line: first + 1, "END:\(property.value) without a BEGIN") }
                guard open.name == property.value.uppercased() else {
                    throw ICalError(line: first + 1, "END:\(property.value) closes BEGIN:\(open.name) (line \(open.beginLine + 1))")
                }
                open.endLine = first
                if stack.isEmpty { top.append(open) } else { stack[stack.count - 1].components.append(open) }
            default:
                guard !stack.isEmpty else { throw ICalError(line: first + 1, "\(property.name) outside BEGIN:VCALENDAR") }
                stack[stack.count - 1].properties.append(property)
            }
        }
        if let open = stack.last { throw ICalError(line: open.beginLine + 1, "BEGIN:\(open.name) is never ended") }
        return top
    }

    /// `NAME *(";" param) ":" value`, parameter values possibly in double quotes.
    static func parseLine(_ text: String, lines: Range<Int>) throws(ICalError) -> ICalProperty {
        let u = Array(text.utf8)
        var i = 0
        func isNameByte(_ c: UInt8) -> Bool {
            (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 45 || c == 95
        }
        while i < u.count, isNameByte(u[i]) { i += 1 }
        guard i > 0 else { throw ICalError(line: lines.lowerBound + 1, "not a content line (NAME:value)") }
        let name = String(decoding: u[0..<i], as: UTF8.self).uppercased()
        var parameters: [(name: String, values: [String])] = []
        while i < u.count, u[i] == UInt8(ascii: ";") {
            i += 1
            let p = i
            while i < u.count, isNameByte(u[i]) { i += 1 }
            guard i > p, i < u.count, u[i] == UInt8(ascii: "=") else {
                throw ICalError(line: lines.lowerBound + 1, "bad parameter in \(name)")
            }
            let pname = String(decoding: u[p..<i], as: UTF8.self).uppercased()
            i += 1
            var values: [String] = []
            while true {
                if i < u.count, u[i] == UInt8(ascii: "\"") {
                    let s = i + 1
                    i = s
                    while i < u.count, u[i] != UInt8(ascii: "\"") { i += 1 }
                    guard i < u.count else { throw ICalError(line: lines.lowerBound + 1, "unclosed quote in \(name)") }
                    values.append(String(decoding: u[s..<i], as: UTF8.self))
                    i += 1
                } else {
                    let s = i
                    while i < u.count, u[i] != UInt8(ascii: ","), u[i] != UInt8(ascii: ";"), u[i] != UInt8(ascii: ":") { i += 1 }
                    values.append(String(decoding: u[s..<i], as: UTF8.self))
                }
                guard i < u.count, u[i] == UInt8(ascii: ",") else { break }
                i += 1
            }
            parameters.append((pname, values))
        }
        guard i < u.count, u[i] == UInt8(ascii: ":") else {
            throw ICalError(line: lines.lowerBound + 1, "no ':' in the \(name) line")
        }
        return ICalProperty(name: name, parameters: parameters, value: String(decoding: u[(i + 1)...], as: UTF8.self), lines: lines)
    }
}
