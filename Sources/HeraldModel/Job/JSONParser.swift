/// A strict JSON (RFC 8259) reader over UTF-8 bytes, straight into `JSONValue`.
///
/// Herald reads every job through it: the daemon at intake, `herald import` for each line of
/// a batch. Foundation's `JSONDecoder` into a `Decodable` enum spends most of its time in the
/// Codable machinery; this reader is several times faster and names the line and column of
/// the first problem. It refuses what RFC 8259 does not allow (comments, trailing commas,
/// single quotes, unescaped control characters, lone surrogates, leading zeros, NaN), a
/// member name that appears twice in one object (which value was meant?), invalid UTF-8,
/// and nesting deeper than `maximumDepth`.
struct JSONParser {
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONValue.SyntaxError) -> JSONValue {
        var parser = JSONParser(bytes)
        // A UTF-8 byte order mark is tolerated, as most readers do.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { parser.index = 3 }
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        if parser.index < bytes.count { throw parser.error("unexpected \(parser.describeHere()) after the document") }
        return value
    }

    // MARK: values

    private mutating func value(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("the document ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected \(describeHere()) where a value was expected")
        }
    }

    private mutating func object(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
        if depth > Self.maximumDepth { throw error("nested more than \(Self.maximumDepth) levels deep") }
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error(index < bytes.count ? "expected a member name in quotes, found \(describeHere())" : "the document ends inside an object")
            }
            let nameStart = index
            let name = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error(index < bytes.count ? "expected ':' after a member name, found \(describeHere())" : "the document ends inside an object")
            }
            index += 1
            skipSpace()
            let member = try value(depth: depth)
            if members.updateValue(member, forKey: name) != nil {
                index = nameStart
                throw error("the member \"\(name)\" appears twice")
            }
            skipSpace()
            guard index < bytes.count else { throw error("the document ends inside an object") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw error("expected ',' or '}' in an object, found \(describeHere())")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
        if depth > Self.maximumDepth { throw error("nested more than \(Self.maximumDepth) levels deep") }
        index += 1  // [
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value(depth: depth))
            skipSpace()
            guard index < bytes.count else { throw error("the document ends inside an array") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(items)
            default: throw error("expected ',' or ']' in an array, found \(describeHere())")
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONValue.SyntaxError) {
        let count = word.utf8CodeUnitCount
        let matches = index + count <= bytes.count && (0..<count).allSatisfy { bytes[index + $0] == word.utf8Start[$0] }
        guard matches else { throw error("unexpected \(describeHere()) where a value was expected") }
        index += count
    }

    // MARK: numbers

    private mutating func number() throws(JSONValue.SyntaxError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs a digit after '-'") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("a number cannot start with 0 (write 7, not 07)") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs a digit in its exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = bytes[start..<index]
        if integral && text.count <= 15 {  // exact in a Double: no string conversion needed
            var n: Int64 = 0
            for byte in text where byte != UInt8(ascii: "-") { n = n * 10 + Int64(byte - UInt8(ascii: "0")) }
            return Double(text.first == UInt8(ascii: "-") ? -n : n)
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            index = start
            throw error("the number \(String(decoding: text, as: UTF8.self)) is out of range")
        }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: strings

    private mutating func string() throws(JSONValue.SyntaxError) -> String {
        index += 1  // opening quote
        let start = index
        var high: UInt8 = 0
        // The common case: no escapes, plain UTF-8 up to the closing quote.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // ASCII needs no validating (String(validating:) looks up generic metadata each call).
                if high < 0x80 { return String(decoding: text, as: UTF8.self) }
                return try decodeUTF8(text, at: start)
            }
            high |= byte
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("a string holds a control character (U+\(hex(UInt32(byte)))); write it escaped") }
            index += 1
        }
        guard index < bytes.count else { index = start - 1; throw error("a string is not closed") }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: try decodeUTF8(UnsafeBufferPointer(rebasing: bytes[start..<index]), at: start).unicodeScalars)
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
                default:
                    index -= 2
                    throw error("unknown escape '\\\(Unicode.Scalar(escape))' in a string")
                }
            default:
                if byte < 0x20 { throw error("a string holds a control character (U+\(hex(UInt32(byte)))); write it escaped") }
                let runStart = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
                    index += 1
                }
                scalars.append(contentsOf: try decodeUTF8(UnsafeBufferPointer(rebasing: bytes[runStart..<index]), at: runStart).unicodeScalars)
            }
        }
        throw error("a string is not closed")
    }

    /// After `\u`: four hex digits, and for a high surrogate the `\uDC00`-`\uDFFF` that must follow.
    private mutating func unicodeEscape() throws(JSONValue.SyntaxError) -> Unicode.Scalar {
        let escapeStart = index - 2
        let first = try hexQuad(escapeStart)
        if (0xD800...0xDBFF).contains(first) {
            guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                index = escapeStart
                throw error("\\u\(hex(first)) is half of a surrogate pair without its other half")
            }
            index += 2
            let second = try hexQuad(escapeStart)
            guard (0xDC00...0xDFFF).contains(second) else {
                index = escapeStart
                throw error("\\u\(hex(first)) is half of a surrogate pair without its other half")
            }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(first) else {
            index = escapeStart
            throw error("\\u\(hex(first)) is half of a surrogate pair without its other half")
        }
        return scalar
    }

    private mutating func hexQuad(_ escapeStart: Int) throws(JSONValue.SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { index = escapeStart; throw error("\\u needs four hex digits") }
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: index = escapeStart; throw error("\\u needs four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// The bytes as a String, refusing invalid UTF-8 (String(decoding:) would quietly repair it).
    private mutating func decodeUTF8(_ text: UnsafeBufferPointer<UInt8>, at start: Int) throws(JSONValue.SyntaxError) -> String {
        if let string = String(validating: text, as: UTF8.self) { return string }
        var codec = UTF8()
        var iterator = text.makeIterator()
        var offset = start
        loop: while true {
            switch codec.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: break loop
            case .error: break loop
            }
        }
        index = offset
        throw error("a string is not valid UTF-8")
    }

    // MARK: errors

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// "'x'", "'}'", or "the end".
    private func describeHere() -> String {
        guard index < bytes.count else { return "the end" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Unicode.Scalar(byte))'" }
        return "byte 0x\(hex(UInt32(byte)))"
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, (value > 0xFF ? 4 : 2) - digits.count)) + digits
    }

    /// `reason` at the line and column of `index` (both from 1, columns in bytes).
    private func error(_ reason: String) -> JSONValue.SyntaxError {
        var line = 1, lineStart = 0
        for k in 0..<min(index, bytes.count) where bytes[k] == 0x0A {
            line += 1
            lineStart = k + 1
        }
        return JSONValue.SyntaxError(detail: "\(reason) at line \(line), column \(index - lineStart + 1)")
    }
}
