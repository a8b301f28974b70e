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
    /// Lines inside it (not in a sub-component) that could not be read: an item holding one is
    /// skipped with it, since the line might have said anything about its times.
    public var damage: [ICalError] = []
    /// Lines inside it that could not be read but say nothing about times (`ICalParser.timeless`):
    /// skipped and reported; an item holding one is never written back to.
    public var skipped: [ICalError] = []

    public func property(_ name: String) -> ICalProperty? { properties.first { $0.name == name } }
    public func properties(_ name: String) -> [ICalProperty] { properties.filter { $0.name == name } }

    /// Every line skipped in it and in its sub-components.
    public var allSkipped: [ICalError] { skipped + components.flatMap(\.allSkipped) }

    /// The first unreadable line in it or in its sub-components.
    public var firstDamage: ICalError? {
        var found = damage.min { $0.line < $1.line }
        for c in components { if let d = c.firstDamage, d.line < found?.line ?? Int.max { found = d } }
        return found
    }
}

/// Reads iCalendar text: CRLF, LF or (Lotus Notes) CR line ends, folded lines, quoted
/// parameters. It reads as relaxed readers (libical, ical4j's relaxed mode) do where the
/// meaning is clear: a line that is not UTF-8 is Windows-1252 (old Outlook and Lotus exports), a
/// line that is not a content line is skipped and reported (and the item holding it skipped,
/// unless it is an `X-` property, which says nothing about times), a component left open is
/// closed, an END that closes an outer component closes the ones inside it too. Only what no reading can save (nesting past the budget, a line past its
/// length) refuses the whole file.
public enum ICalParser {
    /// The file's physical lines (without their line ends) and its top-level components.
    public struct Document: Sendable {
        public var lines: [String]
        /// Whether the file ends its lines with CRLF (kept when a line is rewritten).
        public var crlf: Bool
        public var components: [ICalComponent]
        /// Lines outside any item that were skipped, with why.
        public var problems: [ICalError] = []
        /// Some line is not UTF-8 (read as Windows-1252): its text here is not the file's bytes,
        /// so the file is never rewritten.
        public var lossy = false
    }

    public static func parse(_ bytes: [UInt8]) throws(ICalError) -> Document {
        var lines: [String] = []
        var crlf = false
        var start = 0
        var lossy = false
        // Lotus Notes 6 ends lines with CR alone; any LF in the file makes LF the line end.
        let end: UInt8 = bytes.contains(10) || !bytes.contains(13) ? 10 : 13
        func addLine(_ stop: Int) {
            var e = stop
            if end == 10, e > start, bytes[e - 1] == 13 { e -= 1; crlf = true }
            if end == 13 { crlf = true }
            if let s = String(validating: bytes[start..<e], as: UTF8.self) {
                lines.append(s)
            } else {
                // Old Outlook and Lotus exports write Windows-1252 (Latin-1 with more in 0x80-0x9F):
                // read so, as libical and ical4j do; the file is then never rewritten (`lossy`).
                lossy = true
                lines.append(windows1252(bytes[start..<e]))
            }
        }
        for i in bytes.indices where bytes[i] == end {
            addLine(i)
            start = i + 1
        }
        if start < bytes.count { addLine(bytes.count) }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]), !lines.isEmpty { lines[0].removeFirst() }  // a byte-order mark
        var document = Document(lines: lines, crlf: crlf, components: [])
        document.lossy = lossy
        try read(&document)
        return document
    }

    /// Unfolds and parses `lines` into components.
    static func components(of lines: [String]) throws(ICalError) -> [ICalComponent] {
        var document = Document(lines: lines, crlf: false, components: [])
        try read(&document)
        return document.components
    }

    /// Windows-1252 (its five undefined bytes as U+FFFD).
    static func windows1252(_ bytes: ArraySlice<UInt8>) -> String {
        let high: [UInt32] = [0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
                              0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178]
        var out = String.UnicodeScalarView()
        for b in bytes {
            let value = (0x80...0x9F).contains(b) ? high[Int(b) - 0x80] : UInt32(b)
            out.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(out)
    }

    private static func read(_ document: inout Document) throws(ICalError) {
        let lines = document.lines
        var stack: [ICalComponent] = []
        var top: [ICalComponent] = []
        /// A line that cannot be read: the component it is in is damaged by it, unless the line
        /// says nothing about when anything happens (`ICalParser.timeless`: it is skipped and
        /// reported); outside every component, it is reported and skipped.
        func unreadable(_ error: ICalError, name: String?) {
            let skipped = ICalError(line: error.line, error.message + " (line skipped)")
            if stack.isEmpty {
                document.problems.append(skipped)
            } else if let name = name?.uppercased(), name.hasPrefix("X-") || Self.timeless.contains(name) {
                stack[stack.count - 1].skipped.append(skipped)
            } else {
                stack[stack.count - 1].damage.append(error)
            }
        }
        func close(_ component: ICalComponent) {
            if stack.isEmpty { top.append(component) } else { stack[stack.count - 1].components.append(component) }
        }
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
            let property: ICalProperty
            switch parseLine(text, lines: first..<i) {
            case .success(let p): property = p
            case .failure(let e):
                unreadable(e.error, name: e.name)
                continue
            }
            switch property.name {
            case "BEGIN":
                // Refused here, the tree is never deep: nothing that walks it recursively
                // (equality, destruction) can run out of stack.
                guard stack.count < ICalBudget.maximumNesting else {
                    throw ICalError(line: first + 1, "BEGIN:\(ICalValue.quoted(property.value)) is nested too deep (at most \(ICalBudget.maximumNesting) levels)")
                }
                let name = property.value.uppercased()
                // Items do not nest: an item begun inside one means the one before was never ended.
                if Self.calendarComponents.contains(name) {
                    while let open = stack.last, Self.calendarComponents.contains(open.name) {
                        var unended = stack.removeLast()
                        unended.damage.append(ICalError(line: open.beginLine + 1, "BEGIN:\(ICalValue.quoted(open.name)) is never ended (BEGIN:\(ICalValue.quoted(property.value)) at line \(first + 1) follows it)"))
                        unended.endLine = max(first - 1, unended.beginLine)
                        close(unended)
                    }
                }
                stack.append(ICalComponent(name: name, beginLine: first))
            case "END":
                let name = property.value.uppercased()
                guard let k = stack.lastIndex(where: { $0.name == name }) else {
                    unreadable(ICalError(line: first + 1, "END:\(ICalValue.quoted(property.value)) without a BEGIN"), name: nil)
                    continue
                }
                // An END that closes an outer component closes the ones left open inside it.
                while stack.count > k + 1 {
                    var open = stack.removeLast()
                    open.damage.append(ICalError(line: open.beginLine + 1, "BEGIN:\(ICalValue.quoted(open.name)) is never ended (END:\(ICalValue.quoted(property.value)) at line \(first + 1) closes it)"))
                    open.endLine = first
                    close(open)
                }
                var open = stack.removeLast()
                open.endLine = first
                close(open)
            default:
                guard !stack.isEmpty else {
                    document.problems.append(ICalError(line: first + 1, "\(ICalValue.quoted(property.name)) outside BEGIN:VCALENDAR (line skipped)"))
                    continue
                }
                stack[stack.count - 1].properties.append(property)
            }
        }
        // A file cut short: what it holds is closed where it stops.
        while var open = stack.popLast() {
            open.damage.append(ICalError(line: open.beginLine + 1, "BEGIN:\(ICalValue.quoted(open.name)) is never ended"))
            open.endLine = max(lines.count - 1, open.beginLine)
            close(open)
        }
        document.components = top
    }

    /// Properties that say nothing about when an item or its alarms happen: a line of one that
    /// cannot be read is skipped, and its item still alarms (node-ical's `ORGANIZER="mailto:…"`,
    /// Apple's `X-APPLE-STRUCTURED-LOCATION` with `\;` in a parameter).
    static let timeless: Set<String> = ["SUMMARY", "DESCRIPTION", "LOCATION", "COMMENT", "CONTACT", "ORGANIZER", "ATTENDEE",
                                        "CATEGORIES", "CLASS", "URL", "GEO", "PRIORITY", "RESOURCES", "ATTACH", "RELATED-TO"]

    /// The components a VCALENDAR holds (§3.6), which never nest in one another.
    static let calendarComponents: Set<String> = ["VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE"]

    /// The property name a line starts with, if it starts with one.
    static func leadingName(_ text: String) -> String? {
        let name = text.utf8.prefix { isNameByte($0) }
        return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 45 || c == 95
    }

    /// `NAME *(";" param) ":" value`, parameter values possibly in double quotes; a line that
    /// is not one fails with why and the name it started with, if any.
    static func parseLine(_ text: String, lines: Range<Int>) -> Result<ICalProperty, LineError> {
        let u = Array(text.utf8)
        var i = 0
        while i < u.count, isNameByte(u[i]) { i += 1 }
        guard i > 0 else { return .failure(LineError(ICalError(line: lines.lowerBound + 1, "not a content line (NAME:value)"), nil)) }
        let name = String(decoding: u[0..<i], as: UTF8.self).uppercased()
        func fail(_ message: String) -> Result<ICalProperty, LineError> {
            .failure(LineError(ICalError(line: lines.lowerBound + 1, message), name))
        }
        var parameters: [(name: String, values: [String])] = []
        while i < u.count, u[i] == UInt8(ascii: ";") {
            i += 1
            let p = i
            while i < u.count, isNameByte(u[i]) { i += 1 }
            guard i > p, i < u.count, u[i] == UInt8(ascii: "=") else { return fail("bad parameter in \(ICalValue.quoted(name))") }
            let pname = String(decoding: u[p..<i], as: UTF8.self).uppercased()
            i += 1
            var values: [String] = []
            while true {
                if i < u.count, u[i] == UInt8(ascii: "\"") {
                    let s = i + 1
                    i = s
                    while i < u.count, u[i] != UInt8(ascii: "\"") { i += 1 }
                    guard i < u.count else { return fail("unclosed quote in \(ICalValue.quoted(name))") }
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
        guard i < u.count, u[i] == UInt8(ascii: ":") else { return fail("no ':' in the \(ICalValue.quoted(name)) line") }
        return .success(ICalProperty(name: name, parameters: parameters, value: String(decoding: u[(i + 1)...], as: UTF8.self), lines: lines))
    }

    /// A line that is not a content line: why, and the name it started with.
    public struct LineError: Error, Sendable {
        public var error: ICalError
        public var name: String?
        init(_ error: ICalError, _ name: String?) { self.error = error; self.name = name }
    }
}
