extension CalendarEvent {
    /// The most times a day a synced item may recur: once a minute. Calendar apps expand
    /// every instance, and a phone's to-do list is no place for a per-second schedule.
    public static let maximumSyncedPerDay = 1440

    /// The RFC 5545 recurrence rule that elapses when this expression does, for a job stored as
    /// a calendar item (issue 30's `--sync`): `FREQ=DAILY`, the date parts as filters (BYMONTH,
    /// BYMONTHDAY, BYDAY) and the time parts as lists (BYHOUR, BYMINUTE, BYSECOND), to be
    /// expanded from a DTSTART that is itself an elapse, in the expression's zone.
    ///
    /// The two agree on every elapse but in a daylight-saving gap: RFC 5545 skips a time the
    /// clocks jump over, systemd moves it past the jump.
    ///
    /// - Throws: `CalendarError` naming what a recurrence rule cannot say: a year, a time zone
    ///   abbreviation, a fraction of a second, a repetition counted from the end of the month,
    ///   or more than `maximumSyncedPerDay` times a day.
    public func recurrenceRule() throws(CalendarError) -> String {
        if year != nil { throw CalendarError("'\(source)' names years, which a calendar's repeat rule (RRULE) cannot say") }
        if case .localAbbreviation(let name, _) = zone {
            throw CalendarError("'\(source)' ends in the abbreviation '\(name)', which a calendar item cannot name: write the zone (Europe/Berlin)")
        }
        var parts = ["FREQ=DAILY"]
        func list(_ values: [Int]) -> String { values.map(String.init).joined(separator: ",") }
        if let month { parts.append("BYMONTH=" + list(Self.values(month, limit: 12))) }
        if let day {
            if endOfMonth {
                guard day.allSatisfy({ $0.stop < 0 && $0.repeatEvery == 0 }) else {
                    throw CalendarError("'\(source)' repeats days counted from the end of the month, which RRULE cannot say")
                }
                parts.append("BYMONTHDAY=" + day.map { "-\($0.start)" }.sorted().joined(separator: ","))
            } else {
                parts.append("BYMONTHDAY=" + list(Self.values(day, limit: 31)))
            }
        }
        if weekdays != -1 {
            let names = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
            parts.append("BYDAY=" + (0..<7).filter { weekdays & (1 << $0) != 0 }.map { names[$0] }.joined(separator: ","))
        }
        let hours = hour.map { Self.values($0, limit: 23) } ?? Array(0...23)
        let minutes = minute.map { Self.values($0, limit: 59) } ?? Array(0...59)
        var seconds: [Int] = Array(0...59)
        if let microsecond {
            let values = Self.values(microsecond, limit: 60 * Self.usecPerSecond - 1)
            guard values.allSatisfy({ $0 % Self.usecPerSecond == 0 }) else {
                throw CalendarError("'\(source)' has fractions of a second, which RRULE cannot say")
            }
            seconds = values.map { $0 / Self.usecPerSecond }
        }
        let perDay = hours.count * minutes.count * seconds.count
        guard perDay <= Self.maximumSyncedPerDay else {
            throw CalendarError("'\(source)' elapses \(perDay) times a day; a synced item may at most once a minute (\(Self.maximumSyncedPerDay) a day)")
        }
        parts.append("BYHOUR=" + list(hours))
        parts.append("BYMINUTE=" + list(minutes))
        parts.append("BYSECOND=" + list(seconds))
        return parts.joined(separator: ";")
    }

    /// The name of the zone the expression names itself (`UTC`, `Europe/Berlin`), else nil.
    public var zoneName: String? {
        switch zone {
        case .utc: return "UTC"
        case .named(let name, _): return name
        case .local, .localAbbreviation: return nil
        }
    }

    /// The zone the expression names itself (`Sat 10:00 Europe/Berlin`), else nil: it is
    /// evaluated in the job's or the local zone.
    public var ownZone: TimeZoneRules? {
        switch zone {
        case .utc: return .utc
        case .named(_, let rules): return rules
        case .local, .localAbbreviation: return nil
        }
    }
}
