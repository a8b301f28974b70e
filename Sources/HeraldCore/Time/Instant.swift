/// A point in time: microseconds since the Unix epoch, UTC.
///
/// Herald keeps its own small time type instead of `Date` so that due times are exact
/// integers (they appear in spool file names) and so that Core never reads the clock:
/// every `now` is passed in.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }
    public init(seconds: Int64) { self.microseconds = seconds * 1_000_000 }

    public static let epoch = Instant(microseconds: 0)

    /// Whole seconds since the epoch, rounded towards negative infinity.
    public var seconds: Int64 { microseconds.floorDiv(1_000_000) }
    /// The microseconds past `seconds`, always in `0..<1_000_000`.
    public var microsecondOfSecond: Int64 { microseconds.floorMod(1_000_000) }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.microseconds < rhs.microseconds }
    public static func + (lhs: Instant, rhs: Span) -> Instant { Instant(microseconds: lhs.microseconds + rhs.microseconds) }
    public static func - (lhs: Instant, rhs: Span) -> Instant { Instant(microseconds: lhs.microseconds - rhs.microseconds) }
    public static func - (lhs: Instant, rhs: Instant) -> Span { Span(microseconds: lhs.microseconds - rhs.microseconds) }

    public var description: String { ISO8601.format(self, offsetSeconds: 0, zulu: true) }
}

/// A length of time in microseconds; may be negative when it is a difference.
public struct Span: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }
    public static func seconds(_ s: Int64) -> Span { Span(microseconds: s * 1_000_000) }
    public static func minutes(_ m: Int64) -> Span { Span(microseconds: m * 60_000_000) }
    public static func milliseconds(_ ms: Int64) -> Span { Span(microseconds: ms * 1_000) }
    public static let zero = Span(microseconds: 0)

    public static func < (lhs: Span, rhs: Span) -> Bool { lhs.microseconds < rhs.microseconds }
    public static func + (lhs: Span, rhs: Span) -> Span { Span(microseconds: lhs.microseconds + rhs.microseconds) }
    public static func * (lhs: Span, rhs: Int64) -> Span { Span(microseconds: lhs.microseconds * rhs) }

    public var description: String { TimeSpan.format(self) }
}

/// Where Core gets "now" from. The daemon and CLI pass the system clock; tests a manual one.
public protocol WallClock: Sendable {
    var now: Instant { get }
}

extension Int64 {
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
