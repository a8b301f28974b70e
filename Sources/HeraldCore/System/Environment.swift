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

    /// This process's environment (the first definition wins when a name repeats, as getenv).
    public static func current() -> Environment {
        var result = Environment()
        var entry = environ
        while let pointer = entry.pointee {
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(decoding: bytes[..<equals], as: UTF8.self)
                if result[name] == nil { result.entries.append((name, String(decoding: bytes[(equals + 1)...], as: UTF8.self))) }
            }
            entry += 1
        }
        return result
    }

    public subscript(_ name: String) -> String? {
        get {
            for entry in entries where entry.name == name { return entry.value }
            return nil
        }
        set {
            let index = entries.firstIndex { $0.name == name }
            switch (index, newValue) {
            case let (k?, value?): entries[k].value = value
            case let (k?, nil): entries.remove(at: k)
            case let (nil, value?): entries.append((name, value))
            case (nil, nil): break
            }
        }
    }

    /// The variables whose names start with `prefix`, as a dictionary.
    public func dictionary(withPrefix prefix: String = "") -> [String: String] {
        var result: [String: String] = [:]
        for entry in entries where entry.name.hasPrefix(prefix) { result[entry.name] = entry.value }
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
