#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A parsed JSON document, kept generic so validation can name exactly what is wrong.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A short name of the value's type for messages: "a string", "a number", ...
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value as short JSON-ish text for messages, cut to `limit` characters.
    public func snippet(limit: Int = 40) -> String {
        let text: String
        switch self {
        case .null: text = "null"
        case .bool(let b): text = b ? "true" : "false"
        case .number(let n): text = n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .string(let s): text = "\"" + s + "\""
        case .array: text = "[...]"
        case .object: text = "{...}"
        }
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    /// Parses JSON text.
    ///
    /// - Throws: `JSONValue.SyntaxError` with the decoder's own explanation.
    public static func parse(_ data: Data) throws(SyntaxError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            let underlying = (context.underlyingError as? CustomStringConvertible)?.description
            throw SyntaxError(detail: Self.clean(underlying ?? context.debugDescription))
        } catch {
            throw SyntaxError(detail: nil)
        }
    }

    public struct SyntaxError: Error, CustomStringConvertible, Equatable {
        /// The parser's explanation, e.g. "unexpected character 'x' around line 1, column 5".
        public var detail: String?
        public var description: String { detail.map { "not valid JSON: " + $0 } ?? "not valid JSON" }
    }

    static func clean(_ message: String) -> String? {
        var m = message
        while m.hasSuffix(".") { m.removeLast() }
        if m.isEmpty || m.contains("The given data was not valid JSON") { return nil }
        return m.prefix(1).lowercased() + m.dropFirst()
    }
}

extension JSONValue: Decodable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }
}
