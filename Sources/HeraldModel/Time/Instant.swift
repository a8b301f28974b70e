/// A point in time: microseconds since the Unix epoch, UTC.
///
/// Herald keeps its own small time type instead of `Date` so that due times are exact
/// integers (they appear in spool file names) and so that Core never reads the clock:
/// every `now` is passed in.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }
    /// Saturates at the ends of `Int64` (see `Span`): a value from a file never traps.
    public init(seconds: Int64) { self.microseconds = Int64.saturating(seconds, times: 1_000_000) }

    public static let epoch = Instant(microseconds: 0)

    /// Whole seconds since the epoch, rounded towards negative infinity.
    public var seconds: Int64 { microseconds.floorDiv(1_000_000) }
    /// The microseconds past `seconds`, always in `0..<1_000_000`.
    public var microsecondOfSecond: Int64 { microseconds.floorMod(1_000_000) }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.microseconds < rhs.microseconds }
    // Saturating: every input is bounded where it is read (README "Limits"), so an end of
    // Int64 is only ever reached by a value that was refused or will be; it must not trap first.
    public static func + (lhs: Instant, rhs: Span) -> Instant { Instant(microseconds: .saturating(lhs.microseconds, plus: rhs.microseconds)) }
    public static func - (lhs: Instant, rhs: Span) -> Instant { Instant(microseconds: .saturating(lhs.microseconds, minus: rhs.microseconds)) }
    public static func - (lhs: Instant, rhs: Instant) -> Span { Span(microseconds: .saturating(lhs.microseconds, minus: rhs.microseconds)) }

    public var description: String { ISO8601.format(self, offsetSeconds: 0, zulu: true) }
}

/// A length of time in microseconds; may be negative when it is a difference.
public struct Span: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }
    public static func seconds(_ s: Int64) -> Span { Span(microseconds: .saturating(s, times: 1_000_000)) }
    public static func minutes(_ m: Int64) -> Span { Span(microseconds: .saturating(m, times: 60_000_000)) }
    public static func milliseconds(_ ms: Int64) -> Span { Span(microseconds: .saturating(ms, times: 1_000)) }
    public static let zero = Span(microseconds: 0)

    public static func < (lhs: Span, rhs: Span) -> Bool { lhs.microseconds < rhs.microseconds }
    public static func + (lhs: Span, rhs: Span) -> Span { Span(microseconds: .saturating(lhs.microseconds, plus: rhs.microseconds)) }
    public static func * (lhs: Span, rhs: Int64) -> Span { Span(microseconds: .saturating(lhs.microseconds, times: rhs)) }

    public var description: String { TimeSpan.format(self) }
}

/// Where Core gets "now" from. The daemon and CLI pass the system clock; tests a manual one.
public protocol WallClock: Sendable {
    var now: Instant { get }
}

extension Int64 {
    /// `a + b`, `a - b`, `a * b` held at `Int64.min`/`max` instead of trapping.
    @inlinable static func saturating(_ a: Int64, plus b: Int64) -> Int64 {
        let (r, o) = a.addingReportingOverflow(b)
        return o ? (b > 0 ? .max : .min) : r
    }
    @inlinable static func saturating(_ a: Int64, minus b: Int64) -> Int64 {
        let (r, o) = a.subtractingReportingOverflow(b)
        return o ? (b < 0 ? .max : .min) : r
    }
    @inlinable static func saturating(_ a: Int64, times b: Int64) -> Int64 {
        let (r, o) = a.multipliedReportingOverflow(by: b)
        return o ? ((a < 0) == (b < 0) ? .max : .min) : r
    }
    /// Division rounding towards negative infinity.
    @inlinable func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
    /// The remainder that goes with `floorDiv`: always has the sign of `d`.
    @inlinable func floorMod(_ d: Int64) -> Int64 {
        let r = self % d
        return (r != 0 && (r < 0) != (d < 0)) ? r + d : r
    }
}
