#if canImport(Glibc)
import Glibc
#endif

/// Why the configuration was refused: names the file (or variable), the key and the reason.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Reads `HeraldConfig`: a key's `HERALD_*` variable (`environmentName(for:)`), else its value
/// in the YAML file (parsed by `ConfigYAML`), else the default. One path with a file and
/// without; no configuration library (BENCHMARKS.md, "Configuration: one reader").
/// Synchronous on purpose: the CLI then needs no async main, which saves it start-up time.
public enum ConfigLoader {
    /// Every key the file may hold, dotted; anything else is refused as a likely typo. The
    /// kinds add theirs (templates and popup classes: `JobKindRules.config`).
    public static let keys: [String] = [
        "profile.name", "profile.address",
        "defaults.lead", "defaults.urgency", "defaults.snooze",
        "calendars.sources", "calendars.writeBack", "calendars.wake", "calendars.limit", "sync.calendar", "sync.default",
        "spool", "log.level", "catchUp.grace", "limits.retention", "limits.jobs",
        "popups.snoozeChoices", "popups.maxRepeats", "popups.summaryAfter", "popups.sound.repeating",
        "quietHours", "quietWithDesktop", "habits.weekStart",
        "alarms.snooze", "alarms.ringFor", "alarms.autoSnooze", "alarms.wakeAhead", "alarms.duringQuiet", "alarms.wake",
        "commands", "commands.enabled", "commands.maxOutput",
    ] + Job.Kind.allCases.flatMap(\.configKeys)

    /// The mappings that hold keys: every key's prefix (checked against `keys` by ConfigTests).
    /// Not derived from `keys` at each start: that cost 600,000 of the 1.36 million
    /// instructions of a `herald remind` with a config file (BENCHMARKS.md, "Configuration: one reader").
    static let sections: [String] = [
        "profile", "defaults", "templates", "calendars", "sync", "log", "catchUp", "limits",
        "popups", "popups.expire", "popups.sound", "habits", "alarms", "commands",
    ] + HeraldConfig.Templates.names.map { "templates." + $0 }

    /// `$HERALD_CONFIG`, else `$XDG_CONFIG_HOME/herald/config.yaml`, else `~/.config/herald/config.yaml`.
    /// `explicit` says whether the file must exist.
    public static func defaultPath(environment env: Environment) -> (path: String, explicit: Bool) {
        if let p = env["HERALD_CONFIG"], !p.isEmpty { return (p, true) }
        if let x = env["XDG_CONFIG_HOME"], x.hasPrefix("/") { return (x + "/herald/config.yaml", false) }
        return ((env["HOME"] ?? "") + "/.config/herald/config.yaml", false)
    }

    /// The environment variable that overrides `key`: `defaults.lead` → `HERALD_DEFAULTS_LEAD`.
    /// Keys are ASCII; bytes are compared directly (no Unicode property tables at start-up).
    public static func environmentName(for key: String) -> String {
        var out = Array("HERALD_".utf8)
        var previousLower = false
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                out.append(UInt8(ascii: "_"))
                previousLower = false
            case UInt8(ascii: "a")...UInt8(ascii: "z"):
                out.append(byte - 32)
                previousLower = true
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if previousLower { out.append(UInt8(ascii: "_")) }
                out.append(byte)
                previousLower = false
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.append(byte)
                previousLower = false
            default:
                out.append(UInt8(ascii: "_"))
                previousLower = false
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Loads the configuration.
    ///
    /// - Parameters:
    ///   - path: the YAML file; when `explicit` is false a missing file means "all defaults".
    ///   - environment: the process environment (for `HERALD_*` overrides and `~`).
    /// - Throws: `ConfigError` naming the file or variable, the key and the reason.
    public static func load(path: String, explicit: Bool, environment: Environment) throws(ConfigError) -> HeraldConfig {
        let exists = FileSystem.exists(path)
        if explicit && !exists { throw ConfigError("cannot read config '\(path)': no such file") }
        guard exists else { return try build(file: [:], path: path, environment: environment) }
        // A config file is a few hundred bytes; one past the bound is not read at all.
        var st = stat()
        if stat(path, &st) == 0, st.st_size > maximumFileSize {
            throw ConfigError("cannot read config '\(path)': it is \(st.st_size) bytes; the most is \(maximumFileSize)")
        }
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: maximumFileSize, followLinks: true) } catch {
            let reason = String(cString: strerror(error.code))
            throw ConfigError("cannot read config '\(path)': \(reason.prefix(1).lowercased() + reason.dropFirst())")
        }
        return try load(contents: bytes, path: path, environment: environment)
    }

    /// The most bytes a config file may hold.
    public static let maximumFileSize = 256 * 1024

    /// Loads the configuration from a config file's bytes (`path` only names it in messages),
    /// with the `HERALD_*` variables of `environment` above it.
    ///
    /// - Throws: `ConfigError` naming the file or variable, the key and the reason.
    public static func load(contents data: [UInt8], path: String, environment: Environment) throws(ConfigError) -> HeraldConfig {
        guard data.count <= maximumFileSize else {
            throw ConfigError("cannot read config '\(path)': it is \(data.count) bytes; the most is \(maximumFileSize)")
        }
        let entries = try checkStructure(data, path: path)
        return try build(file: ConfigYAML.flatten(entries), path: path, environment: environment)
    }

    /// The one lookup, with a file and without: a key's `HERALD_*` variable, else its value in
    /// `file` (dotted keys). Only the `HERALD_*` variables are searched, and none at all when
    /// there are none.
    static func build(file: [String: String], path: String, environment: Environment) throws(ConfigError) -> HeraldConfig {
        let herald = environment.filtered(prefix: "HERALD_")
        return try build(path: path, environment: environment) { key in
            if !herald.isEmpty, let value = herald[environmentName(for: key)] { return value }
            return file.isEmpty ? nil : file[key]
        }
    }

    /// Rejects YAML that is not a mapping of known keys, naming the key and its line.
    @discardableResult
    static func checkStructure(_ data: [UInt8], path: String) throws(ConfigError) -> [(key: String, line: Int, value: ConfigYAML.Node)] {
        let entries: [(key: String, line: Int, value: ConfigYAML.Node)]
        do { entries = try ConfigYAML.parse(String(decoding: data, as: UTF8.self)) } catch {
            throw ConfigError("config '\(path)': \(error)")
        }
        func walk(_ entries: [(key: String, line: Int, value: ConfigYAML.Node)], prefix: String) throws(ConfigError) {
            for (name, line, value) in entries {
                let full = prefix.isEmpty ? name : prefix + "." + name
                if sections.contains(full) {
                    switch value {
                    case .mapping(let children): try walk(children, prefix: full)
                    case .null: continue
                    case .scalar where keys.contains(full): continue  // `commands: off`, or a mapping of its settings
                    case .scalar: throw ConfigError("config '\(path)': key '\(full)' (line \(line)): must be a mapping")
                    }
                } else if keys.contains(full) {
                    if case .mapping = value { throw ConfigError("config '\(path)': key '\(full)' (line \(line)): must be a single value") }
                } else {
                    throw ConfigError("config '\(path)': unknown key '\(full)' (line \(line))")
                }
            }
        }
        try walk(entries, prefix: "")
        return entries
    }

    /// `defaults.lead`: as far ahead as a job's own warnings may be.
    public static let leadRange = Span.zero...Span.seconds(366 * 86_400)
    /// `defaults.snooze` and each of `popups.snoozeChoices`.
    public static let snoozeRange = Span(microseconds: 1)...Span.seconds(366 * 86_400)
    /// `catchUp.grace`.
    public static let graceRange = Span.zero...Span.seconds(366 * 86_400)
    /// `limits.retention`: at least an hour, at most ten years.
    public static let retentionRange = Span.minutes(60)...Span.seconds(3660 * 86_400)

    /// "at most 366 days", "from 1h to 3660 days" (days counted as such: TimeSpan's years are 365.25 days).
    static func describe(_ range: ClosedRange<Span>) -> String {
        let days = "\(range.upperBound.microseconds / 86_400_000_000) days"
        return range.lowerBound <= Span(microseconds: 1) ? "at most " + days : "from \(TimeSpan.format(range.lowerBound)) to " + days
    }

    /// The `popups.*` keys.
    static func popups(_ config: inout HeraldConfig, _ value: (String) -> (text: String, source: String)?) throws(ConfigError) {
        if let v = value("popups.snoozeChoices") {
            var choices: [Span] = []
            if v.text.trimmingSpaces != "none" {
                for part in v.text.split(separator: ",") {
                    guard let span = try? TimeSpan.parse(String(part)), span >= .seconds(1) else {
                        throw ConfigError("\(v.source): \"\(String(part).trimmingSpaces)\" is not a time span of 1s or more (write e.g. 5m, 1h, or none)")
                    }
                    guard snoozeRange.contains(span) else {
                        throw ConfigError("\(v.source): \"\(String(part).trimmingSpaces)\" is out of range: \(describe(snoozeRange))")
                    }
                    choices.append(span)
                }
                guard choices.count <= 4 else { throw ConfigError("\(v.source): at most 4 snooze choices fit on a popup") }
            }
            config.popups.snoozeChoices = choices
        }
        func count(_ key: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int? {
            guard let v = value(key) else { return nil }
            guard let n = Int(v.text.trimmingSpaces), range.contains(n) else {
                throw ConfigError("\(v.source): \"\(v.text)\" is not a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return n
        }
        if let n = try count("popups.maxRepeats", 0...1000) { config.popups.maxRepeats = n }
        if let n = try count("popups.summaryAfter", 1...10_000) { config.popups.summaryAfter = n }
        for c in HeraldConfig.PopupClass.allCases {
            if let v = value("popups.expire." + c.rawValue) {
                guard let e = Expiry(parsing: v.text) else {
                    throw ConfigError("\(v.source): \"\(v.text)\" is not never, default or a time span such as 30s")
                }
                config.popups.expire[c] = e
            }
        }
        func sound(_ key: String) throws(ConfigError) -> Sound?? {
            guard let v = value(key) else { return .none }
            guard Job.isValidSound(v.text.trimmingSpaces) else {
                throw ConfigError("\(v.source): \"\(v.text)\" is not a sound-theme name (alarm-clock-elapsed), an absolute path or none")
            }
            return .some(Sound(parsing: v.text))
        }
        for c in HeraldConfig.PopupClass.allCases {
            if let s = try sound("popups.sound." + c.rawValue) { config.popups.sound[c] = s }
        }
        if let s = try sound("popups.sound.repeating") { config.popups.repeatingSound = s }
    }

    /// The `alarms.*` keys.
    static func alarms(_ config: inout HeraldConfig, _ value: (String) -> (text: String, source: String)?) throws(ConfigError) {
        func span(_ key: String, _ range: ClosedRange<Span>, _ keyPath: WritableKeyPath<HeraldConfig.Alarms, Span>) throws(ConfigError) {
            guard let v = value(key) else { return }
            guard let s = try? TimeSpan.parse(v.text) else { throw ConfigError("\(v.source): \"\(v.text)\" is not a time span such as 10m") }
            guard range.contains(s) else {
                throw ConfigError("\(v.source): \"\(v.text)\" is out of range: from \(TimeSpan.format(range.lowerBound)) to \(TimeSpan.format(range.upperBound))")
            }
            config.alarms[keyPath: keyPath] = s
        }
        try span("alarms.snooze", .seconds(1)...Span.seconds(86_400), \.snooze)
        try span("alarms.ringFor", .seconds(1)...Span.seconds(86_400), \.ringFor)
        try span("alarms.wakeAhead", .zero...Span.seconds(3600), \.wakeAhead)
        if let v = value("alarms.autoSnooze") {
            guard let n = Int(v.text.trimmingSpaces), (0...100).contains(n) else {
                throw ConfigError("\(v.source): \"\(v.text)\" is not a whole number from 0 to 100")
            }
            config.alarms.autoSnooze = n
        }
        if let v = value("alarms.duringQuiet") {
            switch v.text.trimmingSpaces {
            case "ring": config.alarms.ringsWhenQuiet = true
            case "hold": config.alarms.ringsWhenQuiet = false
            default: throw ConfigError("\(v.source): \"\(v.text)\" is not ring or hold")
            }
        }
        if let v = value("alarms.wake") {
            var kinds = Set<Job.Kind>()
            if v.text.trimmingSpaces != "none" {
                for part in v.text.split(separator: ",", omittingEmptySubsequences: false) {
                    let name = String(part).trimmingSpaces
                    guard let kind = Job.Kind(rawValue: name) else {
                        throw ConfigError("\(v.source): \"\(name)\" is not a kind (\(Job.Kind.allCases.map(\.rawValue).joined(separator: ", ")), or none)")
                    }
                    kinds.insert(kind)
                }
            }
            config.alarms.wakeKinds = kinds
        }
    }

    /// `commands` (on or off; `commands.enabled` in the mapping form) and `commands.maxOutput`
    /// (bytes, with k/M/G for KiB/MiB/GiB).
    static func commands(_ config: inout HeraldConfig, _ value: (String) -> (text: String, source: String)?) throws(ConfigError) {
        if let v = value("commands") ?? value("commands.enabled") {
            switch v.text.trimmingSpaces.lowercased() {
            case "on", "true", "yes": config.commands.enabled = true
            case "off", "false", "no": config.commands.enabled = false
            default: throw ConfigError("\(v.source): \"\(v.text)\" is not on or off")
            }
        }
        if let v = value("commands.maxOutput") {
            let range = HeraldConfig.Commands.maxOutputRange
            guard let n = byteCount(v.text), range.contains(n) else {
                throw ConfigError("\(v.source): \"\(v.text)\" is not a size from 1k to 1G (bytes, or with k, M or G)")
            }
            config.commands.maxOutput = n
        }
    }

    /// "1048576", "512k", "1M", "1G" (powers of 1024; "KiB", "MiB", "GiB" too); nil past 1 TiB.
    static func byteCount(_ text: String) -> Int? {
        var t = Substring(text.trimmingSpaces)
        var scale = 1
        for (suffixes, s) in [(["KiB", "k", "K"], 1 << 10), (["MiB", "M"], 1 << 20), (["GiB", "G"], 1 << 30)] {
            if let suffix = suffixes.first(where: { t.hasSuffix($0) }) { t = t.dropLast(suffix.count); scale = s; break }
        }
        guard !t.isEmpty, t.utf8.count <= 13, t.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(t), n <= (1 << 40) / scale else { return nil }
        return n * scale
    }

    /// `calendars.sources` (vdirs or .ics files, comma-separated) and `calendars.writeBack`
    /// (`all`, `none`, or some of those sources).
    static func calendars(_ config: inout HeraldConfig, _ value: (String) -> (text: String, source: String)?, home: String) throws(ConfigError) {
        func paths(_ v: (text: String, source: String)) throws(ConfigError) -> [String] {
            var out: [String] = []
            for part in v.text.split(separator: ",") {
                var p = String(part).trimmingSpaces
                if p == "~" || p.hasPrefix("~/") { p = home + p.dropFirst() }
                guard p.hasPrefix("/") else { throw ConfigError("\(v.source): \"\(p)\" is not an absolute path (or ~/...)") }
                while p.count > 1, p.hasSuffix("/") { p.removeLast() }
                if !out.contains(p) { out.append(p) }
            }
            return out
        }
        guard let s = value("calendars.sources") else {
            if let w = value("calendars.writeBack"), !["none", ""].contains(w.text.trimmingSpaces) {
                throw ConfigError("\(w.source): there are no calendars.sources to write back to")
            }
            if let w = value("calendars.wake"), !["none", ""].contains(w.text.trimmingSpaces) {
                throw ConfigError("\(w.source): there are no calendars.sources to wake for")
            }
            return
        }
        config.calendars = try paths(s).map { HeraldConfig.CalendarSource(path: $0) }
        // `all`, `none`, or some of the sources: each key sets its flag on those.
        func choose(_ key: String, _ flag: WritableKeyPath<HeraldConfig.CalendarSource, Bool>) throws(ConfigError) {
            guard let w = value(key) else { return }
            switch w.text.trimmingSpaces {
            case "none", "": break
            case "all": for k in config.calendars.indices { config.calendars[k][keyPath: flag] = true }
            default:
                for p in try paths(w) {
                    guard let k = config.calendars.firstIndex(where: { $0.path == p }) else {
                        throw ConfigError("\(w.source): \"\(p)\" is not one of calendars.sources")
                    }
                    config.calendars[k][keyPath: flag] = true
                }
            }
        }
        try choose("calendars.writeBack", \.writeBack)
        try choose("calendars.wake", \.wake)
    }

    /// `sync.calendar` (the vdir collection Herald's synced jobs live in: one folder of `.ics`
    /// files that vdirsyncer syncs) and `sync.default` (`local` or `sync`). The collection is a
    /// calendar source with write-back, listed or not in `calendars.sources`: its items are
    /// Herald's own.
    static func sync(_ config: inout HeraldConfig, _ value: (String) -> (text: String, source: String)?, home: String) throws(ConfigError) {
        if let v = value("sync.calendar"), !v.text.trimmingSpaces.isEmpty, v.text.trimmingSpaces != "none" {
            var p = v.text.trimmingSpaces
            if p == "~" || p.hasPrefix("~/") { p = home + p.dropFirst() }
            guard p.hasPrefix("/") else { throw ConfigError("\(v.source): \"\(v.text)\" is not an absolute path (or ~/...)") }
            guard !p.hasSuffix(".ics") else {
                throw ConfigError("\(v.source): \"\(v.text)\" is a file; sync.calendar is a vdir collection, a folder of .ics files that vdirsyncer syncs")
            }
            while p.count > 1, p.hasSuffix("/") { p.removeLast() }
            config.syncCalendar = p
            if let k = config.calendars.firstIndex(where: { $0.path == p }) {
                config.calendars[k].writeBack = true
            } else {
                config.calendars.append(HeraldConfig.CalendarSource(path: p, writeBack: true))
            }
        }
        guard let d = value("sync.default") else { return }
        switch d.text.trimmingSpaces {
        case "local", "": config.syncByDefault = false
        case "sync":
            guard config.syncCalendar != nil else { throw ConfigError("\(d.source): 'sync' needs sync.calendar, the collection to sync to") }
            config.syncByDefault = true
        default: throw ConfigError("\(d.source): \"\(d.text)\" is not local or sync")
        }
    }

    /// Builds the configuration from `lookup`, which gives a key's text (from the file or a variable).
    static func build(path: String, environment: Environment, lookup: (String) -> String?) throws(ConfigError) -> HeraldConfig {
        var config = HeraldConfig()
        func value(_ key: String) -> (text: String, source: String)? {
            guard let text = lookup(key) else { return nil }
            let variable = environmentName(for: key)
            let source = environment[variable] != nil ? "environment variable \(variable)" : "config '\(path)': key '\(key)'"
            return (text, source)
        }
        if let v = value("profile.name") { config.profile.name = v.text.isEmpty ? nil : v.text }
        if let v = value("profile.address") { config.profile.address = v.text.isEmpty ? nil : v.text }
        // Every span is bounded, so the daemon's arithmetic with it (now − grace, a snooze's
        // end, an arrival − lead) stays within the years an instant holds.
        func span(_ key: String, _ keyPath: WritableKeyPath<HeraldConfig, Span>, _ range: ClosedRange<Span>) throws(ConfigError) {
            guard let v = value(key) else { return }
            let span: Span
            do { span = try TimeSpan.parse(v.text) } catch {
                throw ConfigError("\(v.source): \"\(v.text)\" is not a time span: \(error)")
            }
            guard range.contains(span) else { throw ConfigError("\(v.source): \"\(v.text)\" is out of range: \(Self.describe(range))") }
            config[keyPath: keyPath] = span
        }
        try span("defaults.lead", \.lead, Self.leadRange)
        if let v = value("defaults.snooze"), (try? TimeSpan.parse(v.text)) == .zero {
            throw ConfigError("\(v.source): the snooze span must be longer than 0")
        }
        try span("defaults.snooze", \.snooze, Self.snoozeRange)
        try span("catchUp.grace", \.catchUpGrace, Self.graceRange)
        if let v = value("limits.retention"), let r = try? TimeSpan.parse(v.text), r < .minutes(60) {
            throw ConfigError("\(v.source): keep records at least 1h")
        }
        try span("limits.retention", \.retention, Self.retentionRange)
        if let v = value("habits.weekStart") {
            let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
            let text = v.text.trimmingSpaces.lowercased()
            guard text.count >= 3, let k = names.firstIndex(where: { $0.hasPrefix(text) }) else {
                throw ConfigError("\(v.source): \"\(v.text)\" is not a weekday (monday ... sunday)")
            }
            config.weekStart = k
        }
        if let v = value("limits.jobs") {
            guard let n = Int(v.text), n >= 1 else { throw ConfigError("\(v.source): \"\(v.text)\" is not a whole number above 0") }
            config.maxJobs = n
        }
        if let v = value("calendars.limit") {
            guard let n = Int(v.text), (1...1_000_000).contains(n) else {
                throw ConfigError("\(v.source): \"\(v.text)\" is not a whole number from 1 to 1000000")
            }
            config.calendarLimit = n
        }
        if let v = value("defaults.urgency") {
            guard let u = Job.Urgency(rawValue: v.text) else {
                throw ConfigError("\(v.source): \"\(v.text)\" is not one of low, normal, critical")
            }
            config.urgency = u
        }
        func template(_ key: String, _ fallback: Template, extra: [String]) throws(ConfigError) -> Template {
            guard let v = value(key) else { return fallback }
            do { return try Template(v.text, extra: extra) } catch { throw ConfigError("\(v.source): \(error)") }
        }
        for name in HeraldConfig.Templates.names {
            let summary = "templates." + name + ".summary", body = "templates." + name + ".body"
            guard value(summary) != nil || value(body) != nil else { continue }
            let d = config.templates[name], extra = HeraldConfig.Templates.extraPlaceholders(name)
            config.templates[name] = .init(summary: try template(summary, d.summary, extra: extra),
                                           body: try template(body, d.body, extra: extra))
        }
        try calendars(&config, value, home: environment["HOME"] ?? "")
        try sync(&config, value, home: environment["HOME"] ?? "")
        if let v = value("spool"), !v.text.isEmpty {
            var p = v.text
            if p == "~" || p.hasPrefix("~/") { p = (environment["HOME"] ?? "") + p.dropFirst() }
            guard p.hasPrefix("/") else { throw ConfigError("\(v.source): \"\(v.text)\" is not an absolute path (or ~/...)") }
            config.spool = p
        }
        try popups(&config, value)
        try alarms(&config, value)
        try commands(&config, value)
        if let v = value("quietHours"), !v.text.isEmpty, v.text != "none" {
            guard let q = QuietHours(parsing: v.text) else {
                throw ConfigError("\(v.source): \"\(v.text)\" is not a daily window such as 22:00-07:00 (start and end differ)")
            }
            config.quietHours = q
        }
        if let v = value("quietWithDesktop") {
            switch v.text.trimmingSpaces {
            case "true", "yes", "on": config.quietWithDesktop = true
            case "false", "no", "off": config.quietWithDesktop = false
            default: throw ConfigError("\(v.source): \"\(v.text)\" is not true or false")
            }
        }
        if let v = value("log.level") {
            guard let level = HeraldConfig.LogLevel(rawValue: v.text) else {
                throw ConfigError("\(v.source): \"\(v.text)\" is not one of \(HeraldConfig.LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            config.logLevel = level
        }
        return config
    }
}
