import Foundation
import HeraldFuzz
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Foundation's JSONDecoder, as Herald used it before it had its own reader: the reference the
/// reader must agree with on every document Foundation accepts.
private enum Reference: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([Reference]), object([String: Reference])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([Reference].self) { self = .array(a) }
        else { self = .object(try c.decode([String: Reference].self)) }
    }

    var value: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return .number(n)
        case .string(let s): return .string(s)
        case .array(let a): return .array(a.map(\.value))
        case .object(let o): return .object(o.mapValues(\.value))
        }
    }
}

@Suite struct JSONParserTests {
    func parse(_ text: String) throws(JSONValue.SyntaxError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func readsEveryKindOfValue() throws {
        let value = try parse(#" { "a" : [1, -2.5, 3e2, 0, -0.0, 1E-2], "b": {"c": null, "d": true, "e": false}, "s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\udd14" } "#)
        #expect(value == .object([
            "a": .array([.number(1), .number(-2.5), .number(300), .number(0), .number(-0.0), .number(0.01)]),
            "b": .object(["c": .null, "d": .bool(true), "e": .bool(false)]),
            "s": .string("x\"\\/\u{08}\u{0C}\n\r\t\u{e9}\u{1F514}"),
        ]))
        #expect(try parse("\u{FEFF}[]") == .array([]))
        #expect(try parse("\"Zoë 🔔 <b>&amp;</b>\"") == .string("Zoë 🔔 <b>&amp;</b>"))
        #expect(try parse("12345678901234567890") == .number(12345678901234567890))
    }

    @Test(arguments: [
        ("", "the document ends where a value was expected at line 1, column 1"),
        ("{\"a\": 1,}", "expected a member name in quotes, found '}' at line 1, column 9"),
        ("[1, 2,]", "unexpected ']' where a value was expected at line 1, column 7"),
        ("{'a': 1}", "expected a member name in quotes, found ''' at line 1, column 2"),
        ("{\"a\" 1}", "expected ':' after a member name, found '1' at line 1, column 6"),
        ("{\n  \"at\": 1,\n  \"at\": 2\n}", "the member \"at\" appears twice at line 3, column 3"),
        ("[1 2]", "expected ',' or ']' in an array, found '2' at line 1, column 4"),
        ("\"tab\there\"", "a string holds a control character (U+09); write it escaped at line 1, column 5"),
        ("\"open", "a string is not closed at line 1, column 1"),
        ("\"\\x\"", "unknown escape '\\x' in a string at line 1, column 2"),
        ("\"\\u12\"", "\\u needs four hex digits at line 1, column 2"),
        ("\"\\ud83d\"", "\\uD83D is half of a surrogate pair without its other half at line 1, column 2"),
        ("\"\\udd14\"", "\\uDD14 is half of a surrogate pair without its other half at line 1, column 2"),
        ("01", "a number cannot start with 0 (write 7, not 07) at line 1, column 2"),
        ("-", "a number needs a digit after '-' at line 1, column 2"),
        ("1.", "a number needs a digit after '.' at line 1, column 3"),
        ("1e", "a number needs a digit in its exponent at line 1, column 3"),
        ("1e400", "the number 1e400 is out of range at line 1, column 1"),
        ("NaN", "unexpected 'N' where a value was expected at line 1, column 1"),
        ("tru", "unexpected 't' where a value was expected at line 1, column 1"),
        ("{} x", "unexpected 'x' after the document at line 1, column 4"),
        ("// comment\n{}", "unexpected '/' where a value was expected at line 1, column 1"),
        ("[", "the document ends where a value was expected at line 1, column 2"),
        ("{\"a\": 1", "the document ends inside an object at line 1, column 8"),
    ])
    func refusesWhatRFC8259Refuses(text: String, detail: String) {
        #expect(throws: JSONValue.SyntaxError(detail: detail)) { try parse(text) }
    }

    @Test func refusesInvalidUTF8AndDeepNesting() throws {
        #expect(throws: JSONValue.SyntaxError(detail: "a string is not valid UTF-8 at line 1, column 3")) {
            try JSONValue.parse(Array([0x22, 0x61, 0xC3, 0x28, 0x22]))
        }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONValue.SyntaxError(detail: "nested more than 512 levels deep at line 1, column 513")) { try parse(deep) }
        #expect(try parse(String(repeating: "[", count: 500) + String(repeating: "]", count: 500)) != .null)
    }

    /// Random documents, written with random spacing and escapes, read back to the same value,
    /// and to the value Foundation reads.
    @Test func agreesWithFoundationOnGeneratedDocuments() throws {
        var rng = SeededGenerator(seed: 0x150_2026)
        for _ in 0..<2_000 {
            let value = Self.randomValue(&rng, depth: 0)
            let text = Self.write(value, &rng)
            let ours = try JSONValue.parse(Array(text.utf8))
            #expect(ours == value, "\(text)")
            let theirs = try JSONDecoder().decode(Reference.self, from: Data(text.utf8)).value
            #expect(ours == theirs, "\(text)")
        }
    }

    /// Damaged documents: whatever the reader accepts, Foundation accepts too, with the same
    /// value (the reader is never the more lenient of the two), and nothing crashes it.
    @Test func isNeverMoreLenientThanFoundation() {
        var rng = SeededGenerator(seed: 0xBAD_15)
        let alphabet = Array("{}[]:,\"\\/ \n\t0123456789-+.eEtrufalsn\u{e9}u".utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xFF]
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes = Array(Self.write(Self.randomValue(&rng, depth: 0), &rng).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &rng) where !bytes.isEmpty {
                let k = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[k] = alphabet.randomElement(using: &rng)!
                case 1: bytes.remove(at: k)
                default: bytes.insert(alphabet.randomElement(using: &rng)!, at: k)
                }
            }
            guard let ours = try? JSONValue.parse(Array(bytes)) else { continue }
            accepted += 1
            let theirs = try? JSONDecoder().decode(Reference.self, from: Data(bytes)).value
            #expect(theirs == ours, "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(accepted > 1_000, "the damage should leave many documents valid; \(accepted) were")
    }

    /// JSONWriter's output reads back as what was written, on either of its escaping paths.
    @Test func readsWhatJSONWriterWrites() throws {
        var rng = SeededGenerator(seed: 0x3C41)
        let pool: [Character] = ["a", " ", "\"", "\\", "\n", "\u{01}", "\u{7F}", "é", "\u{2028}", "\u{2029}", "\u{2027}", "€", "🔔"]
        for _ in 0..<5_000 {
            let text = String((0..<Int.random(in: 0...10, using: &rng)).map { _ in pool.randomElement(using: &rng)! })
            let written = JSONWriter.render(.object([("text", .string(text))]))
            #expect(try JSONValue.parse(Array(written.utf8)) == .object(["text": .string(text)]), "\(written)")
            #expect(!written.contains("\u{2028}") && !written.contains("\u{7F}"), "\(written)")
        }
    }

    static func randomValue(_ rng: inout SeededGenerator, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2:
            return Bool.random(using: &rng) ? .number(Double(Int.random(in: -99_999...99_999, using: &rng)))
                : .number(Double(Int.random(in: -9999...9999, using: &rng)) / 64)
        case 3:
            let pool: [Character] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "€", "🔔", "<", "&", "\u{2028}"]
            return .string(String((0..<Int.random(in: 0...8, using: &rng)).map { _ in pool.randomElement(using: &rng)! }))
        case 4: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for k in 0..<Int.random(in: 0...4, using: &rng) { members["k\(k)\(["", "é", "\"", "🔔"].randomElement(using: &rng)!)"] = randomValue(&rng, depth: depth + 1) }
            return .object(members)
        }
    }

    static func write(_ value: JSONValue, _ rng: inout SeededGenerator) -> String {
        func space() -> String { ["", "", " ", "\n  ", "\t"].randomElement(using: &rng)! }
        func string(_ s: String) -> String {
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "/": out += Bool.random(using: &rng) ? "/" : "\\/"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 || (Bool.random(using: &rng) && scalar.value > 0x7F) {
                        for unit in String(scalar).utf16 {
                            let hex = String(unit, radix: 16)
                            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + (Bool.random(using: &rng) ? hex : hex.uppercased())
                        }
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
            return out + "\""
        }
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n == n.rounded() ? String(Int64(n)) : "\(n)"
        case .string(let s): return string(s)
        case .array(let items): return "[" + space() + items.map { write($0, &rng) }.joined(separator: space() + "," + space()) + space() + "]"
        case .object(let members):
            return "{" + space() + members.map { string($0.key) + space() + ":" + space() + write($0.value, &rng) }
                .joined(separator: "," + space()) + space() + "}"
        }
    }
}
