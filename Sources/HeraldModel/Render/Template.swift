/// A message template with `{name}`-style placeholders.
public struct Template: Sendable, Equatable, CustomStringConvertible {
    public static let placeholders: [String] = ["name", "address", "items", "count", "minutes", "title", "text", "late",
                                                       "progress", "streak", "total", "score"]

    public let source: String

    /// - Parameter extra: placeholders of the template's kind beside the common ones
    ///   (`KindConfig`: a calendar alarm's `{when}`).
    /// - Throws: `TemplateError` for an unknown placeholder or an unclosed brace.
    public init(_ source: String, extra: [String] = []) throws(TemplateError) {
        var rest = Substring(source)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { throw TemplateError("unclosed '{' in \"\(source)\"") }
            let key = String(rest[rest.index(after: open)..<close])
            guard Self.placeholders.contains(key) || extra.contains(key) else {
                throw TemplateError("unknown placeholder '{\(key)}' (use \((Self.placeholders + extra).sorted().map { "{\($0)}" }.joined(separator: " ")))")
            }
            rest = rest[rest.index(after: close)...]
        }
        self.source = source
    }

    /// Substitutes placeholders; missing values become empty text.
    public func render(_ values: [String: String]) -> String {
        var out = ""
        var rest = Substring(source)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            out += values[String(rest[rest.index(after: open)..<close])] ?? ""
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out
    }

    /// A template known to be valid (Herald's own defaults; `ConfigTests` checks them),
    /// taken without parsing it.
    init(valid source: String) { self.source = source }

    public var description: String { source }
}

public struct TemplateError: Error, Equatable, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}
