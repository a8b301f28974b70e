/// ISO-8601 / RFC 3339 timestamps: `2026-11-22T14:05:00+01:00`, `2026-11-22T13:05:00.250Z`.
public enum ISO8601 {
    /// A timestamp's parts: the civil time and, when written, its UTC offset in seconds.
    public struct Parsed: Equatable, Sendable {
        public var civil: CivilTime
        public var offsetSeconds: Int?
    }

    /// Parses `YYYY-MM-DD[T ]HH:MM[:SS[.fraction]][Z|±HH[:MM]]`, `T` or a space between.
    /// Returns nil when the text is not of that form or names an impossible date or time.
    public static func parse(_ text: String) -> Parsed? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// Over the text's bytes, without closures: every `at` of a batch of 100,000 lines is
    /// parsed here, and a `Character` compare or a captured index cost more than the parse.
    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Parsed? {
        var c = Cursor(b: bytes)
        guard let year = c.digits(4), c.consume("-"), let month = c.digits(2), c.consume("-"), let day = c.digits(2) else { return nil }
        guard c.consume("T") || c.consume("t") || c.consume(" ") else { return nil }
        guard let hour = c.digits(2), c.consume(":"), let minute = c.digits(2) else { return nil }
        var second = 0, micro = 0
        if c.consume(":") {
            guard let s = c.digits(2) else { return nil }
            second = s
            if c.consume(".") || c.consume(",") {
                var count = 0
                var scale = 100_000
                while let digit = c.digit() {
                    if count < 6 { micro += digit * scale; scale /= 10 }
                    count += 1
                }
                guard count > 0 else { return nil }
            }
        }
        var offset: Int? = nil
        if c.consume("Z") || c.consume("z") {
            offset = 0
        } else if c.consume("+") || c.consume("-") {
            let sign = bytes[c.i - 1] == UInt8(ascii: "-") ? -1 : 1
            guard let oh = c.digits(2), oh <= 23 else { return nil }
            var om = 0
            if c.consume(":") { guard let m = c.digits(2) else { return nil }; om = m }
            else if let m = c.digits(2) { om = m }
            guard om <= 59 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        }
        guard c.i == bytes.count else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        let civil = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute,
                              second: min(second, 59), microsecond: micro)
        return Parsed(civil: civil, offsetSeconds: offset)
    }

    private struct Cursor {
        let b: UnsafeBufferPointer<UInt8>
        var i = 0

        /// `n` digits as a number; nothing is consumed when they are not all there.
        mutating func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += n
            return v
        }

        mutating func digit() -> Int? {
            guard i < b.count, b[i] >= 48, b[i] <= 57 else { return nil }
            i += 1
            return Int(b[i - 1] - 48)
        }

        mutating func consume(_ c: Unicode.Scalar) -> Bool {
            if i < b.count, b[i] == UInt8(ascii: c) { i += 1; return true }
            return false
        }
    }

    /// Parses a timestamp that must carry an offset or `Z` (the job format's `at`).
    public static func parseInstant(_ text: String) -> Instant? {
        guard let p = parse(text), let offset = p.offsetSeconds else { return nil }
        let instant = Instant(microseconds: (p.civil.localSeconds - Int64(offset)) * 1_000_000 + Int64(p.civil.microsecond))
        // Only what `format` can write back in UTC: 9999-12-31T23:00-14:00 is in the year 10000 there.
        guard instantRange.contains(instant) else { return nil }
        return instant
    }

    /// Instants whose UTC year has four digits (0000 to 9999).
    public static let instantRange = Instant(seconds: CivilCalendar.days(year: 0, month: 1, day: 1) * 86_400)
        ... Instant(microseconds: CivilCalendar.days(year: 10_000, month: 1, day: 1) * 86_400_000_000 - 1)

    /// Formats `instant` at the given UTC offset: `2026-11-22T14:05:00+01:00`.
    /// Fractions appear only when present (milliseconds, or microseconds when needed).
    /// With `zulu`, a zero offset is written `Z`.
    public static func format(_ instant: Instant, offsetSeconds: Int, zulu: Bool = false) -> String {
        let c = CivilTime(localSeconds: instant.seconds + Int64(offsetSeconds), microsecond: Int(instant.microsecondOfSecond))
        var s = pad(c.year, 4) + "-" + pad(c.month, 2) + "-" + pad(c.day, 2) + "T"
            + pad(c.hour, 2) + ":" + pad(c.minute, 2) + ":" + pad(c.second, 2)
        if c.microsecond != 0 {
            s += c.microsecond % 1000 == 0 ? "." + pad(c.microsecond / 1000, 3) : "." + pad(c.microsecond, 6)
        }
        return s + (zulu && offsetSeconds == 0 ? "Z" : formatOffset(offsetSeconds))
    }

    /// Formats `instant` in `zone` with that zone's offset at the time.
    public static func format(_ instant: Instant, in zone: TimeZoneRules) -> String {
        format(instant, offsetSeconds: zone.offset(at: instant))
    }

    /// `+01:00`, `-05:00`, `+05:30`; `+00:53:28` for offsets with seconds.
    public static func formatOffset(_ offset: Int) -> String {
        let sign = offset < 0 ? "-" : "+"
        let a = abs(offset)
        var s = sign + pad(a / 3600, 2) + ":" + pad(a / 60 % 60, 2)
        if a % 60 != 0 { s += ":" + pad(a % 60, 2) }
        return s
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let digits = String(abs(v))
        let padded = digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        return v < 0 ? "-" + padded : padded
    }
}
