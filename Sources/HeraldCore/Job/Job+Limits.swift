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
    /// `--in`: a reminder within 100 years (at's own limit is the year 2037 on 32-bit builds).
    public static let inRange = Span(microseconds: 1)...Span.seconds(100 * 366 * 86_400)

}
