/// The bounds on what a calendar file may hold and the budgets its reading may spend, in one
/// place (the README's Limits section lists them). Calendars are synced from servers other
/// people write to: with these, no file of a megabyte costs more than about a second of CPU
/// or 64 MiB to parse and plan, whatever it holds. A value past a bound is an error naming it;
/// an item past a budget is reported with its line and skipped, and the rest of the file
/// still alarms.
public enum ICalBudget {
    // MARK: file

    /// The largest `.ics` read: a whole exported calendar of many years is a few MiB, and
    /// parsing keeps every line, so memory grows about tenfold with the size.
    public static let maximumFileSize = 16 << 20
    /// BEGIN inside BEGIN: real files nest 3 deep (VCALENDAR, VEVENT, VALARM); a deeper file is
    /// refused at its line, so the tree is never deep enough to exhaust the stack.
    public static let maximumNesting = 8
    /// One content line once unfolded: writers fold at 75 octets and real lines (a long
    /// DESCRIPTION, an inline ATTACH) stay far below this.
    public static let maximumLineLength = 256 << 10

    // MARK: values

    /// A DURATION, TRIGGER offset or event length, and a VALARM's REPEAT × DURATION in all:
    /// enough for any reminder, and keeps every sum far from Int64's microseconds limit.
    public static let maximumDurationDays = 36_525
    /// A VALARM's REPEAT (RFC 5545 sets no bound; no real alarm repeats more).
    public static let maximumRepeat = 1000
    /// Years a DATE or DATE-TIME may name (four digits, and the Gregorian year 0 does not exist).
    public static let years = 1...9999
    /// An RRULE's INTERVAL and COUNT: more than any expansion would ever reach.
    public static let maximumInterval = 1_000_000
    public static let maximumCount = 1_000_000
    /// A VTIMEZONE's UTC offsets (RFC 5545 §3.3.14: hours 00 to 23).
    public static let maximumUTCOffset = 23 * 3600 + 59 * 60 + 59

    // MARK: work

    /// Recurrence steps (periods, days examined, candidate times, RDATE and EXDATE values,
    /// occurrences, alarm instants tried, `stepsPerAlarm` for each alarm made) one item may spend
    /// in one window: an item every 5 minutes for heraldd's 38 days needs about 60,000.
    public static let stepsPerItem = 100_000
    /// The same for all items of a file together: 1,000,000 for a file up to a megabyte (a
    /// second of CPU at most), then one a byte, so a large calendar with many live recurring
    /// items still plans and its cost grows with its size, no faster.
    public static let stepsPerFile = 1_000_000
    static func steps(forFileOf size: Int) -> Int { max(stepsPerFile, size) }
    /// What making one alarm counts for (its text and recurrence id are built): about four steps.
    public static let stepsPerAlarm = 4
    /// Thunderbird's snoozes (`X-MOZ-SNOOZE-TIME-…`) read per event or to-do, the last ones: it
    /// writes one per snoozed occurrence, and each is matched against the occurrences.
    public static let mozSnoozesPerComponent = 64
    /// Candidate times in one FREQ period before BYSETPOS (days × hours × minutes × seconds):
    /// a YEARLY rule with every BY-part would ask for 32 million at once.
    public static let candidatesPerPeriod = 10_000
    /// Periods in a row without a candidate after which a rule is taken to have ended (it can
    /// never match, as BYMONTHDAY=30;BYMONTH=2 or BYSECOND=60).
    public static let periodsWithoutMatch = 4000
    /// Jumps over days, hours or minutes a sub-daily rule never keeps, in one advance.
    public static let skipsPerAdvance = 5000
    /// Alarm instants one item, and one file, may produce in one window (a job lists 32; the
    /// CLI prints them all): 5,000 is an alarm every 10 minutes for heraldd's 38 days.
    public static let alarmsPerItem = 5000
    public static let alarmsPerFile = 50_000
    /// RDATE and EXDATE values of one item.
    public static let datesPerItem = 10_000
    /// Building one VTIMEZONE (1900 to 2200): steps and offset changes. A yearly rule spends
    /// about 10,000 steps and gives 300 changes; a zone has two.
    public static let stepsPerZone = 60_000
    public static let transitionsPerZone = 1000
    /// Building all the VTIMEZONEs of one file: some 15 distinct yearly zones, more than any
    /// real file holds (once built, a zone is cached and costs nothing).
    public static let zoneStepsPerFile = 300_000
    /// Zones built from VTIMEZONEs kept for reuse (every file of an Outlook calendar repeats its
    /// zones); past this the cache starts over, so no stream of files grows it for ever.
    public static let cachedZones = 256
}

/// Work spent against a budget; `spend` throws once it is over.
public struct ICalMeter: Sendable {
    public private(set) var spent = 0
    public let limit: Int

    public init(limit: Int) { self.limit = limit }

    public var isSpent: Bool { spent > limit }

    mutating func spend(_ n: Int = 1) throws(ICalRuleError) {
        spent += n
        if spent > limit { throw ICalRuleError("over \(limit) steps", overBudget: true) }
    }
}
