/// What the notification server says about itself (GetServerInformation, GetCapabilities).
public struct ServerInfo: Sendable, Equatable {
    public var name: String
    public var vendor: String
    public var version: String
    public var specVersion: String
    public var capabilities: [String]

    public init(name: String, vendor: String, version: String, specVersion: String, capabilities: [String]) {
        self.name = name; self.vendor = vendor; self.version = version; self.specVersion = specVersion
        self.capabilities = capabilities
    }
}

/// What `heraldd --probe` prints as one line of JSON and `herald doctor` reads back: the
/// session bus and the notification server as seen from the user's session.
///
/// `{"bus":"unix:path=/run/user/1000/bus","busError":null,"serverOwner":":1.12",
/// "server":{"name":"dunst","vendor":"knopwob","version":"1.9.0","specVersion":"1.2",
/// "capabilities":["actions","body"]},"serverError":null}`
public struct ProbeAnswer: Sendable, Equatable {
    /// The bus address tried (`DBUS_SESSION_BUS_ADDRESS`, or "" when unset).
    public var bus: String
    /// Why the session bus could not be reached; nil when it was.
    public var busError: String?
    /// The unique name owning org.freedesktop.Notifications, or nil.
    public var serverOwner: String?
    /// What the server says about itself; nil when it did not answer.
    public var server: ServerInfo?
    /// Why the server could not be asked (or could only partly be asked); nil when it answered.
    public var serverError: String?

    public init(bus: String, busError: String? = nil, serverOwner: String? = nil, server: ServerInfo? = nil,
                serverError: String? = nil) {
        self.bus = bus; self.busError = busError; self.serverOwner = serverOwner; self.server = server
        self.serverError = serverError
    }

    /// A server answered every question (`heraldd --probe` then exits 0).
    public var serverAnswered: Bool { server != nil && serverError == nil }

    /// The answer as one line of JSON, without a newline.
    public var json: String {
        func text(_ s: String?) -> JSONWriter.Value { s.map { .string($0) } ?? .null }
        var server: JSONWriter.Value = .null
        if let s = self.server {
            server = .object([
                ("name", .string(s.name)), ("vendor", .string(s.vendor)), ("version", .string(s.version)),
                ("specVersion", .string(s.specVersion)), ("capabilities", .array(s.capabilities.map { .string($0) })),
            ])
        }
        return JSONWriter.render(.object([
            ("bus", .string(bus)), ("busError", text(busError)), ("serverOwner", text(serverOwner)),
            ("server", server), ("serverError", text(serverError)),
        ]))
    }

    /// Reads what `json` wrote; nil when `data` is not a JSON object with a string `bus`.
    /// Fields a server left out of its own description read as "" (capabilities as none).
    public init?(json data: [UInt8]) {
        guard let value = try? JSONValue.parse(data), case .object(let o) = value,
              case .string(let bus)? = o["bus"] else { return nil }
        func text(_ key: String, in o: [String: JSONValue]) -> String? {
            if case .string(let s)? = o[key] { return s } else { return nil }
        }
        var server: ServerInfo?
        if case .object(let s)? = o["server"] {
            var capabilities: [String] = []
            if case .array(let list)? = s["capabilities"] {
                capabilities = list.compactMap { if case .string(let c) = $0 { return c } else { return nil } }
            }
            server = ServerInfo(name: text("name", in: s) ?? "", vendor: text("vendor", in: s) ?? "",
                                version: text("version", in: s) ?? "", specVersion: text("specVersion", in: s) ?? "",
                                capabilities: capabilities)
        }
        self.init(bus: bus, busError: text("busError", in: o), serverOwner: text("serverOwner", in: o), server: server,
                  serverError: text("serverError", in: o))
    }
}
