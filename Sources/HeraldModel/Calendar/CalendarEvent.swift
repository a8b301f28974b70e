/// A calendar event expression in systemd's syntax (`systemd.time(7)`):
/// `Mon..Fri 09..17:00/30`, `*-*~1`, `*:0/15`, `daily`, `Sat,Sun 10:00 Europe/Berlin`.
///
/// Parsing accepts exactly what systemd 252 accepts, and `next(after:in:)` gives the same
/// elapse times as `systemd-analyze calendar`; `description` is systemd's normalized form.
public struct CalendarEvent: Sendable, Equatable, CustomStringConvertible {
    /// One item of a comma-separated list: a value, a range `a..b`, a repetition `a/r`.
    struct Component: Sendable, Equatable, Comparable {
        var start: Int
        var stop: Int = -1
        var repeatEvery: Int = 0

        static func < (a: Component, b: Component) -> Bool {
            (a.start, a.stop, a.repeatEvery) < (b.start, b.stop, b.repeatEvery)
        }
    }

    /// Where the expression is evaluated.
    public enum Zone: Sendable, Equatable {
        /// The evaluation zone given to `next` (a job's zone, or the local one).
        case local
        case utc
        /// A trailing IANA zone name.
        case named(String, TimeZoneRules)
        /// A trailing abbreviation of the evaluation zone (`CET`, `CEST`): standard or daylight time.
        case localAbbreviation(String, dst: Int)
    }

    /// The text it was parsed from.
    public let source: String
    var weekdays = -1  // bit 0 = Monday; -1: any day
    var year: [Component]?
    var month: [Component]?
    var day: [Component]?
    var hour: [Component]?
    var minute: [Component]?
    var microsecond: [Component]?
    var endOfMonth = false
    public internal(set) var zone: Zone = .local

    init(source: String) { self.source = source }

    public static func == (a: CalendarEvent, b: CalendarEvent) -> Bool { a.description == b.description }

    static let usecPerSecond = 1_000_000
    static let minYear = 1970
    static let maxYear = 2199
}

/// Why an expression was refused, pointing at the part that is wrong.
public struct CalendarError: Error, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
