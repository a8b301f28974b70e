/// Times as people read them in listings: "14:05", "Mon 09:00", "in 14 min", "2 h ago".
public enum RelativeTime {
    /// "in 14 min", "2 h 10 min ago", "now".
    public static func phrase(_ t: Instant, now: Instant) -> String {
        let d = t - now
        if d.microseconds.magnitude < 1_000_000 { return "now" }
        let text = TimeSpan.humanize(d)
        return d > .zero ? "in " + text : text + " ago"
    }

    /// A local time, as short as is unambiguous near `now`: "14:05", "Mon 09:00",
    /// "2026-12-01 09:00".
    public static func clock(_ t: Instant, zone: TimeZoneRules, now: Instant) -> String {
        let c = zone.civil(t)
        let today = zone.civil(now)
        let hm = ISO8601.pad(c.hour, 2) + ":" + ISO8601.pad(c.minute, 2) + (c.second != 0 ? ":" + ISO8601.pad(c.second, 2) : "")
        let dayDiff = CivilCalendar.days(year: c.year, month: c.month, day: c.day)
            - CivilCalendar.days(year: today.year, month: today.month, day: today.day)
        if dayDiff == 0 { return hm }
        if dayDiff == 1 { return "tomorrow " + hm }
        if dayDiff > 1 && dayDiff < 7 { return weekdayNames[c.weekday] + " " + hm }
        return ISO8601.pad(c.year, 4) + "-" + ISO8601.pad(c.month, 2) + "-" + ISO8601.pad(c.day, 2) + " " + hm
    }

    public static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
}
