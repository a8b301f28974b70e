/// A daily quiet window in local wall-clock time, `22:00-07:00` (config `quietHours`): it may
/// run over midnight; the end is not in it.
public struct QuietHours: Sendable, Equatable, CustomStringConvertible {
    /// Minutes after local midnight.
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) { self.start = start; self.end = end }

    /// Parses `HH:MM-HH:MM`; nil when malformed or empty (start equal to end).
    public init?(parsing text: String) {
        let parts = text.trimmingSpaces.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let s = Self.minutes(String(parts[0]).trimmingSpaces), let e = Self.minutes(String(parts[1]).trimmingSpaces),
              s != e else { return nil }
        start = s; end = e
    }

    static func minutes(_ text: String) -> Int? {
        let hm = text.split(separator: ":", omittingEmptySubsequences: false)
        guard hm.count == 2, hm[0].count >= 1, hm[0].count <= 2, hm[1].count == 2,
              let h = Int(hm[0]), let m = Int(hm[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
        return h * 60 + m
    }

    public var description: String {
        func f(_ m: Int) -> String { (m / 60 < 10 ? "0" : "") + "\(m / 60):" + (m % 60 < 10 ? "0" : "") + "\(m % 60)" }
        return f(start) + "-" + f(end)
    }

    /// Whether `instant` falls in the window, read on the local clock of `zone`.
    public func contains(_ instant: Instant, zone: TimeZoneRules) -> Bool {
        let c = zone.civil(instant)
        let m = c.hour * 60 + c.minute
        return start < end ? (m >= start && m < end) : (m >= start || m < end)
    }

    /// The end of the window `instant` is in (the next local `end` after it); nil when it is not in one.
    public func end(containing instant: Instant, zone: TimeZoneRules) -> Instant? {
        guard contains(instant, zone: zone) else { return nil }
        var day = LocalDate(instant, in: zone)
        for _ in 0..<3 {
            let c = day.components
            let at = zone.resolve(CivilTime(year: c.year, month: c.month, day: c.day, hour: end / 60, minute: end % 60)).firstInstant
            if at > instant { return at }
            day = day.adding(days: 1)
        }
        return nil
    }
}

/// `herald quiet on|off`: do-not-disturb switched by hand, kept in the spool as `quiet.json`.
/// `until` nil means "until switched off"; switching off keeps the file with `until` set to
/// then, so heraldd still knows the window that held popups back.
public struct QuietSwitch: Sendable, Equatable {
    public var since: Instant
    public var until: Instant?

    public init(since: Instant, until: Instant?) { self.since = since; self.until = until }

    public func contains(_ instant: Instant) -> Bool { instant >= since && (until.map { instant < $0 } ?? true) }

    public var json: String {
        var f: [(String, JSONWriter.Value)] = [("since", .string(ISO8601.format(since, offsetSeconds: 0, zulu: true)))]
        f.append(("until", until.map { .string(ISO8601.format($0, offsetSeconds: 0, zulu: true)) } ?? .null))
        return JSONWriter.render(.object(f)) + "\n"
    }

    public init?(json data: [UInt8]) {
        guard let value = try? JSONValue.parse(data), case .object(let o) = value,
              case .string(let s)? = o["since"], let since = ISO8601.parseInstant(s) else { return nil }
        self.since = since
        switch o["until"] {
        case .string(let u)?:
            guard let until = ISO8601.parseInstant(u) else { return nil }
            self.until = until
        case .null?, nil: self.until = nil
        default: return nil
        }
    }
}

/// When popups are held back: the configured hours, the switch and the desktop's
/// do-not-disturb together.
public struct QuietState: Sendable, Equatable {
    public var hours: QuietHours?
    public var manual: QuietSwitch?
    /// The desktop's do-not-disturb while it is on (and `quietWithDesktop` is set); its end
    /// is not known ahead.
    public var desktop: DesktopQuiet?
    /// The desktop's do-not-disturb as last reported, followed or not (for status).
    public var reported: DesktopQuiet?

    public init(hours: QuietHours? = nil, manual: QuietSwitch? = nil, desktop: DesktopQuiet? = nil) {
        self.hours = hours; self.manual = manual; self.desktop = desktop
    }

    public func isQuiet(at instant: Instant, zone: TimeZoneRules) -> Bool {
        (hours?.contains(instant, zone: zone) ?? false) || (manual?.contains(instant) ?? false) || desktopContains(instant)
    }

    public func desktopContains(_ instant: Instant) -> Bool { desktop.map { instant >= $0.since } ?? false }

    /// When the quiet time that `instant` is in ends (both sources, chained); nil when it is not
    /// quiet then. `.some(nil)`: not before the switch is turned off.
    public func end(containing instant: Instant, zone: TimeZoneRules) -> Instant?? {
        guard isQuiet(at: instant, zone: zone) else { return nil }
        var t = instant
        // The two windows may overlap or touch; follow them until neither holds.
        for _ in 0..<8 {
            var next: Instant? = nil
            if desktopContains(t) { return .some(nil) }
            if let m = manual, m.contains(t) {
                guard let until = m.until else { return .some(nil) }
                next = until
            }
            if let h = hours?.end(containing: t, zone: zone) { next = max(next ?? h, h) }
            guard let n = next else { return .some(t) }
            t = n
        }
        return .some(t)
    }
}
