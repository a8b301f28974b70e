import Logging

extension LogLine.Level {
    public init(_ level: Logger.Level) {
        switch level {
        case .trace: self = .trace
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        case .critical: self = .critical
        }
    }
}

extension Logger.Level {
    public init(_ level: LogLine.Level) {
        switch level {
        case .trace: self = .trace
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        case .critical: self = .critical
        }
    }
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
        self.init(config: config, localZone: localZone, logLevel: LogLine.Level(logger.logLevel), seed: system.next())
    }
}
