/// Turns a calendar source's alarms into the calendar jobs heraldd keeps in `jobs/`: one job
/// per item, holding its next alarms. The calendar stays the truth: a job is written when an
/// item gains alarms, rewritten when they change, and removed when they are gone.
public enum CalendarPlanner {
    /// How far ahead alarms are listed, and the most one job lists; heraldd plans again before
    /// either runs out.
    public static let horizon = Span.seconds(35 * 86_400)
    public static let maximumEntries = 32

    /// A stable job id for an item: `cal-` and a hash of its source, file and UID.
    public static func jobID(source: String, file: String, uid: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (source + "\u{0}" + file + "\u{0}" + uid).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "cal-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    public static func isCalendarJobID(_ id: String) -> Bool { id.hasPrefix("cal-") }

    /// What one item's job should be, given its alarms in order (from one file) and the
    /// earliest alarm still to show; nil when it has none left.
    public static func job(for alarms: [CalendarAlarm], file: String, source: HeraldConfig.CalendarSource, since: Instant,
                           now: Instant? = nil, localZone: TimeZoneRules) -> (job: Job, truncated: Bool)? {
        var pending = alarms.filter { $0.at >= since }
        // Of the alarms already past (heraldd was down, or the item just arrived), one is caught
        // up, the latest, as a recurring job's are: a job of 32 past alarms would be planned
        // again at each one.
        if let now, let firstFuture = pending.firstIndex(where: { $0.at >= now }) ?? Optional(pending.count), firstFuture > 1 {
            pending.removeFirst(firstFuture - 1)
        }
        guard let first = pending.first else { return nil }
        let listed = Array(pending.prefix(maximumEntries))
        var job = Job(kind: .calendar, id: jobID(source: source.path, file: file, uid: first.uid))
        // The job's title and place are the master's (the first listed alarm's); an override
        // that differs says so in its own entry.
        job.title = first.summary.isEmpty ? (first.isTodo ? "To-do" : "Event") : first.summary
        job.text = first.location
        job.calendar = CalendarLink(file: file, uid: first.uid, source: source.path,
                                    writeBack: source.writeBack && !first.hasAttendees, todo: first.isTodo, heraldKind: first.heraldKind)
        // A synced `herald alarm` wakes the machine as the alarm itself would; a source in
        // `calendars.wake` wakes it for every alarm.
        if first.heraldKind == "alarm" || source.wake { job.wake = true }
        job.alarms = listed.map { a in
            CalendarAlarmEntry(
                at: a.at,
                start: a.allDay ? LocalDate(a.start, in: localZone).description : ISO8601.format(a.start, in: localZone),
                recurrenceID: a.recurrenceID, component: a.componentRecurrenceID, alarm: a.alarmIndex, alarmUID: a.alarmUID,
                summary: a.summary == first.summary || a.summary.isEmpty ? nil : a.summary,
                location: a.location == first.location ? nil : a.location,
                sound: a.action == .audio ? sound(a.sound) : nil)
        }
        return (job, pending.count > listed.count)
    }

    /// An AUDIO alarm's sound: a local file it attaches, else the alarm sound of the theme.
    static func sound(_ attach: String?) -> String {
        guard let attach else { return "alarm-clock-elapsed" }
        let path = attach.hasPrefix("file://") ? String(attach.dropFirst(7)) : attach
        return path.hasPrefix("/") && Job.isValidSound(path) ? path : "alarm-clock-elapsed"
    }
}
