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

    /// Parses JSON text (strict RFC 8259; see `JSONParser`).
    ///
    /// - Throws: `JSONValue.SyntaxError` saying what is wrong and where.
    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        let result: Result<JSONValue, SyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(SyntaxError) in try JSONParser.parse(buffer) }
        }
        return try result.get()
    }

    /// Parses JSON text held in bytes.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(SyntaxError) -> JSONValue {
        let result: Result<JSONValue, SyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(SyntaxError) in try JSONParser.parse(buffer) }
        }
        return try result.get()
    }

    public struct SyntaxError: Error, CustomStringConvertible, Equatable {
        /// What is wrong and where, e.g. "unexpected 'x' where a value was expected at line 1, column 5".
        public var detail: String?
        public var description: String { detail.map { "not valid JSON: " + $0 } ?? "not valid JSON" }
    }
}
