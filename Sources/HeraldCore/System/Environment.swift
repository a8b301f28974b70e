#if canImport(Glibc)
import Glibc
#endif

/// Environment variables, read straight from libc's `environ`.
///
/// A small list rather than a `[String: String]`: on a short command's path, Foundation's
/// `ProcessInfo` and even the first `Dictionary<String, String>` cost more start-up time
/// (locks, caches, generic metadata looked up at run time) than reading forty variables.
public struct Environment: Sendable, ExpressibleByDictionaryLiteral {
    private var entries: [(name: String, value: String)]

    public init(_ variables: [String: String]) {
        entries = variables.map { (name: $0.key, value: $0.value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        entries = []
        for (name, value) in elements { self[name] = value }
    }

    /// This process's environment. When a name repeats, the first definition wins, as with
    /// getenv: lookups return the first entry, so the list keeps every one as it comes.
    public static func current() -> Environment {
        parse(environ)
    }

    /// An environ-style list: `NAME=value` strings up to a nil.
    static func parse(_ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Environment {
        var result = Environment()
        var entry = list
        while let pointer = entry.pointee {
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                result.entries.append((String(decoding: bytes[..<equals], as: UTF8.self),
                                       String(decoding: bytes[(equals + 1)...], as: UTF8.self)))
            }
            entry += 1
        }
        return result
    }

    /// The variables whose names start with `prefix`, in their order.
    public func filtered(prefix: String) -> Environment {
        var result = Environment()
        result.entries = entries.filter { $0.name.hasPrefix(prefix) }
        return result
    }

    public var isEmpty: Bool { entries.isEmpty }

    public subscript(_ name: String) -> String? {
        get {
            for entry in entries where entry.name == name { return entry.value }
            return nil
        }
        set {
            let index = entries.firstIndex { $0.name == name }
            switch (index, newValue) {
            case let (k?, value?): entries[k].value = value
            case (_?, nil): entries.removeAll { $0.name == name }
            case let (nil, value?): entries.append((name, value))
            case (nil, nil): break
            }
        }
    }

    /// The variables whose names start with `prefix`, as a dictionary.
    public func dictionary(withPrefix prefix: String = "") -> [String: String] {
        var result: [String: String] = [:]
        for entry in entries where entry.name.hasPrefix(prefix) && result[entry.name] == nil { result[entry.name] = entry.value }
        return result
    }
}

/// The command-line arguments after the program name, read from argv directly (the standard
/// library's `CommandLine.arguments` builds a lazily initialised global first).
public func commandLineArguments() -> [String] {
    let argc = Int(CommandLine.argc)
    var result: [String] = []
    result.reserveCapacity(max(argc - 1, 0))
    for k in 1..<max(argc, 1) {
        if let argument = CommandLine.unsafeArgv[k] { result.append(String(cString: argument)) }
    }
    return result
}
