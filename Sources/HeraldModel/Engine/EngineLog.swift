/// A line the engine asks to have logged: one of its effects (`.log`), which heraldd hands to
/// swift-log. Names, addresses and texts go only into debug lines.
public struct LogLine: Sendable, Equatable {
    /// The configuration's levels, least first.
    public typealias Level = HeraldConfig.LogLevel
    public var level: Level
    public var message: String
    public var metadata: [String: String]
    public init(level: Level, message: String, metadata: [String: String] = [:]) {
        self.level = level; self.message = message; self.metadata = metadata
    }
}

/// The lines the engine logs while it handles one event, those at `level` or above only (a
/// line below it costs no string); `Engine.handle` returns them first among its effects.
struct EngineLog: Sendable {
    let level: LogLine.Level
    private(set) var lines: [LogLine] = []

    init(level: LogLine.Level) { self.level = level }

    mutating func log(_ level: LogLine.Level, _ message: () -> String, _ metadata: () -> [String: String]) {
        guard level >= self.level else { return }
        lines.append(LogLine(level: level, message: message(), metadata: metadata()))
    }
    mutating func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(.debug, message, metadata)
    }
    mutating func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(.info, message, metadata)
    }
    mutating func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(.notice, message, metadata)
    }
    mutating func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(.warning, message, metadata)
    }
    mutating func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(.error, message, metadata)
    }

    /// The lines so far, as effects; none are kept.
    mutating func drain() -> [EngineEffect] {
        defer { lines.removeAll(keepingCapacity: true) }
        return lines.map { .log($0) }
    }
}
