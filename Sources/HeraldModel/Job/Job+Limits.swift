/// The bounds on spans people give (README "Limits"). Past them a value is refused with its
/// name, never carried into arithmetic that could overflow.
extension Job {
    /// A year: the longest warning, lead, repeat or snooze that still means something to a
    /// person; with a 4-digit `at`, sums of these stay far inside `Int64` microseconds.
    public static let longestSpan = Span.seconds(366 * 86_400)
    /// A delivery's lead: none up to a year ahead of the arrival.
    public static let leadRange = Span.zero...longestSpan
    /// How often an unanswered popup comes back: at most once a second.
    public static let repeatRange = Span.seconds(1)...longestSpan
    /// A snooze (`herald snooze`, a popup's buttons, `defaults.snooze`).
    public static let snoozeRange = Span.seconds(1)...longestSpan
    /// `--in`: a reminder within 100 years of 365.25 days (systemd's `y`, so `100y` is the most).
    public static let inRange = Span(microseconds: 1)...Span.seconds(100 * 31_557_600)
    /// The latest `at` the CLI writes: a job's time is written with its zone's offset, and
    /// must read back as a four-digit year in any zone (9999-12-31 UTC is 10000 east of it).
    public static let latestInstant = Instant(seconds: CivilCalendar.days(year: 9999, month: 12, day: 30) * 86_400)

}
