#if canImport(Glibc)
import Glibc
#endif

/// Environment variables, read straight from libc's `environ`.
///
/// A small list rather than a `[String: String]`: on a short command's path, Foundation's
/// `ProcessInfo` and even the first `Dictionary<String, String>` cost more start-up time
/// (locks, caches, generic metadata looked up at run time) than reading forty variables.
/// Names and values are two lists of strings, not one of tuples, for the same reason.
public struct Environment: Sendable, ExpressibleByDictionaryLiteral {
    private var names: [String] = []
    private var values: [String] = []

    public init(_ variables: [String: String]) {
        for (name, value) in variables { names.append(name); values.append(value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
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
                result.names.append(String(decoding: bytes[..<equals], as: UTF8.self))
                result.values.append(String(decoding: bytes[(equals + 1)...], as: UTF8.self))
            }
            entry += 1
        }
        return result
    }

    /// The variables whose names start with `prefix`, in their order.
    public func filtered(prefix: String) -> Environment {
        var result = Environment()
        for k in names.indices where names[k].hasPrefix(prefix) {
            result.names.append(names[k])
            result.values.append(values[k])
        }
        return result
    }

    public var isEmpty: Bool { names.isEmpty }

    public subscript(_ name: String) -> String? {
        get {
            for k in names.indices where names[k] == name { return values[k] }
            return nil
        }
        set {
            guard let first = names.firstIndex(of: name) else {
                if let newValue { names.append(name); values.append(newValue) }
                return
            }
            if let newValue {
                values[first] = newValue
            } else {
                for k in names.indices.reversed() where names[k] == name {
                    names.remove(at: k)
                    values.remove(at: k)
                }
            }
        }
    }

    /// The variables whose names start with `prefix`, as a dictionary.
    public func dictionary(withPrefix prefix: String = "") -> [String: String] {
        var result: [String: String] = [:]
        for k in names.indices where names[k].hasPrefix(prefix) && result[names[k]] == nil { result[names[k]] = values[k] }
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
