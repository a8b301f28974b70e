import Logging

extension Logger.Level {
    /// The configuration's level (the same names).
    public init(_ level: HeraldConfig.LogLevel) { self = Logger.Level(rawValue: level.rawValue) ?? .info }
}

extension HeraldConfig.LogLevel {
    /// swift-log's level (the same names).
    public init(_ level: Logger.Level) { self = HeraldConfig.LogLevel(rawValue: level.rawValue) ?? .info }
}

extension Logger {
    /// Logs a line the engine returned as an effect.
    public func log(_ line: LogLine) {
        log(level: Logger.Level(line.level), "\(line.message)",
            metadata: line.metadata.isEmpty ? nil : line.metadata.mapValues { .string($0) })
    }
}

extension Engine {
    /// An engine logging at `logger`'s level, its ids seeded from the system's generator.
    public init(config: HeraldConfig, localZone: TimeZoneRules = .utc, logger: Logger) {
        var system = SystemRandomNumberGenerator()
        self.init(config: config, localZone: localZone, logLevel: HeraldConfig.LogLevel(logger.logLevel), seed: system.next())
    }
}
