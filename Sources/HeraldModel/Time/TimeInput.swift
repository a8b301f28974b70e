/// What a person may type for "when": an ISO-8601 timestamp (with or without offset, then in
/// the local zone) or a wall-clock time `HH:MM[:SS]` meaning the next such time.
public enum TimeInput {
    /// Resolves `text` to an instant. `HH:MM` means today at that time, or tomorrow when it
    /// has already passed; a timestamp without an offset is read in `zone`; a date alone
    /// (`2026-12-24`) means its start.
    ///
    /// - Returns: nil when the text is not a time Herald understands.
    public static func parse(_ text: String, now: Instant, zone: TimeZoneRules) -> Instant? {
        let trimmed = text.trimmingSpaces
        if let p = ISO8601.parse(trimmed) {
            if let offset = p.offsetSeconds {
                return Instant(microseconds: (p.civil.localSeconds - Int64(offset)) * 1_000_000 + Int64(p.civil.microsecond))
            }
            return zone.resolve(p.civil).firstInstant
        }
        if let day = LocalDate(parsing: trimmed) { return day.start(in: zone) }
        guard let (h, m, s) = clockTime(trimmed) else { return nil }
        let today = zone.civil(now)
        var day = CivilTime(year: today.year, month: today.month, day: today.day, hour: h, minute: m, second: s)
        var candidate = zone.resolve(day).firstInstant
        if candidate <= now {
            let next = CivilTime(localSeconds: day.localSeconds + 86_400)
            day = CivilTime(year: next.year, month: next.month, day: next.day, hour: h, minute: m, second: s)
            candidate = zone.resolve(day).firstInstant
        }
        return candidate
    }

    /// `HH:MM` or `HH:MM:SS`, 24-hour.
    static func clockTime(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let h = Int(parts[0]), let m = Int(parts[1]), h <= 23, m <= 59, parts[1].count == 2 else { return nil }
        let s = parts.count == 3 ? Int(parts[2]) ?? 99 : 0
        guard s <= 59, parts.count == 2 || parts[2].count == 2 else { return nil }
        return (h, m, s)
    }
}

extension TimeZoneRules.Resolution {
    /// The first instant showing that wall time, or the one after a skipped hour.
    public var firstInstant: Instant {
        switch self {
        case .unique(let t): return t
        case .repeated(let earlier, _): return earlier
        case .skipped(let after): return after
        }
    }
}
