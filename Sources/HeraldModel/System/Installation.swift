/// How this copy of Herald was installed, so that a hint names the commands that apply to it:
/// apt and the packaged paths for the Debian package, `make install` and its PREFIX for an
/// install from source, the source tree for a build folder.
public enum Installation: Equatable, Sendable {
    /// The Debian package: /usr/bin/herald, with the package's /usr/share/doc/herald.
    case package
    /// `make install PREFIX=prefix`: prefix/bin/herald beside prefix/share/herald.
    case prefix(String)
    /// Run from a build folder (.build/debug, .build/release) or anywhere else.
    case build

    /// Classifies the running executable from its path and what the system says about it.
    ///
    /// - Parameters:
    ///   - executable: the absolute path of the running herald (/proc/self/exe).
    ///   - packaged: whether that path is the Debian package's herald.
    ///   - shareExists: whether `<prefix>/share/herald` exists for the prefix the path implies.
    public static func classify(executable: String, packaged: Bool, shareExists: (String) -> Bool) -> Installation {
        if packaged { return .package }
        let parts = executable.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[parts.count - 2] == "bin" else { return .build }
        let prefix = parts.dropLast(2).joined(separator: "/")
        let root = prefix.isEmpty ? "/" : prefix
        return shareExists(root) ? .prefix(root) : .build
    }

    /// The example configuration that documents every key.
    public var exampleConfig: String {
        switch self {
        case .package: return "/usr/share/herald/config.yaml.example"
        case .prefix(let p): return (p == "/" ? "" : p) + "/share/herald/config.yaml.example"
        case .build: return "config/config.yaml in Herald's source tree"
        }
    }

    /// What puts a missing part (heraldd, the user unit) back; `home` gives `make install`'s
    /// default PREFIX, ~/.local, which the command then need not name.
    public func reinstall(home: String) -> String {
        switch self {
        case .package: return "sudo apt install --reinstall herald"
        case .prefix(let p): return "make install" + (p == home + "/.local" ? "" : " PREFIX=\(p)")
        case .build: return "make install"
        }
    }
}
