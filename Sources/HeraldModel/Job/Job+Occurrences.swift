/// What one firing of a job is: a plain reminder, a warning ahead of one, a delivery's heads-up
/// or arrival, a habit.
public enum OccurrenceRole: String, Sendable, Equatable {
    case reminder
    case warning
    case headsUp = "heads-up"
    case arrival
    case habit
    case calendar
    case alarm
    case run
}

extension Job {
    /// The heads-up lead for a delivery: the job's own, else the configured default.
    public func effectiveLead(defaultLead: Span) -> Span { lead ?? defaultLead }

    /// The zone a job's times are read in: its own `timezone`, else `localZone`.
    public func zone(localZone: TimeZoneRules) -> TimeZoneRules {
        guard let timezone, timezone != localZone.identifier else { return localZone }
        return zones[timezone] ?? localZone
    }

    /// What the occurrence at `instant` is; the calendars are read only for a job with warnings.
    public func role(of instant: Instant, localZone: TimeZoneRules, defaultLead: Span = .zero) -> OccurrenceRole {
        kind.rules.role(of: instant, job: self) {
            guard !warn.isEmpty, let schedule = try? JobSchedule(self, localZone: localZone, defaultLead: defaultLead) else { return false }
            return !schedule.isMain(instant)
        }
    }

    /// The most warnings a job may have.
    public static let maximumWarnings = 8
    /// How far ahead a warning may be.
    public static let warningRange = Span.seconds(1)...Span.seconds(366 * 86_400)
    /// The most schedules (`every` entries) a job may have.
    public static let maximumSchedules = 16
}

/// When a job fires: its main occurrences (its `at`, or the union of its calendar expressions,
/// from `at` on) and a warning `w` before each of them for every span in `warnings`, read in
/// its zone. Where two of these meet, the job fires once; a main occurrence outranks a warning.
public struct JobSchedule: Sendable {
    public let job: Job
    public let zone: TimeZoneRules
    public let calendars: [CalendarEvent]
    /// How long before each main occurrence a warning fires, largest first: the job's `warn`
    /// and, for a delivery, its heads-up lead.
    public let warnings: [Span]
    /// A calendar job's alarm instants, in order.
    public let alarmTimes: [Instant]

    /// - Parameter defaultLead: the configured heads-up lead, for deliveries without their own.
    /// - Throws: `JobError` when an `every` entry is not a calendar expression.
    public init(_ job: Job, localZone: TimeZoneRules, defaultLead: Span = .zero) throws(JobError) {
        self.job = job
        zone = job.zone(localZone: localZone)
        var calendars: [CalendarEvent] = []
        for every in job.every {
            do { calendars.append(try CalendarEvent.parse(every, localZone: zone, zones: job.zoneLookup)) } catch {
                throw JobError("field 'every' is not a calendar expression", value: "\"\(every)\"", detail: error.description)
            }
        }
        self.calendars = calendars
        let warnings = job.warn + (try job.kind.rules.leads(of: job, defaultLead: defaultLead))
        self.warnings = Array(Set(warnings.filter { $0 > .zero })).sorted(by: >)
        alarmTimes = job.kind.rules.alarmTimes(of: job)
    }

    public var isRecurring: Bool { !calendars.isEmpty || !alarmTimes.isEmpty }

    /// The first time the job fires when taken in at `now`, or nil if it never will.
    ///
    /// A recurring job starts after `now`. A one-shot job shows its latest warning at once when
    /// that is already past (it still carries news), and starts from its earliest firing when
    /// even the main time is past (a warning then is settled as already due).
    public func first(now: Instant) -> Instant? {
        // A calendar job lists only alarms still to show (a missed one is caught up as a job's is).
        if !alarmTimes.isEmpty { return alarmTimes.first }
        if isRecurring { return firing(after: now) }
        guard let at = job.at else { return nil }
        let times = warnings.map { at - $0 }
        if at > now, let latestPast = times.filter({ $0 <= now }).max() { return latestPast }
        return times.min().map { min($0, at) } ?? at
    }

    /// The firing after `previous` fired at `now`, or nil when the job is finished. Firings
    /// missed meanwhile are not repeated, except a one-shot job's main time.
    public func next(after previous: Instant, now: Instant) -> Instant? {
        if isRecurring {
            let next = firing(after: max(previous, now))
            // A warning snoozed past its event must not skip the event: it comes next, late if need be.
            if !warnings.isEmpty, !isMain(previous), let target = target(ofWarning: previous), target <= now {
                return target
            }
            return next
        }
        guard let at = job.at, previous < at else { return nil }
        let pending = warnings.map { at - $0 }.filter { $0 > previous && $0 > now }
        return pending.min() ?? at
    }

    /// The first main occurrence after `t` (and at or after the job's start).
    public func main(after t: Instant) -> Instant? {
        if !alarmTimes.isEmpty { return alarmTimes.first { $0 > t } }
        if !isRecurring { return job.at.flatMap { $0 > t ? $0 : nil } }
        let from = max(t, job.at.map { $0 - Span(microseconds: 1) } ?? t)
        return calendars.compactMap { recurrence($0, after: from) }.min()
    }

    /// The first firing after `t`: a main occurrence, or a warning before one.
    public func firing(after t: Instant) -> Instant? {
        var best = main(after: t)
        for w in warnings {
            // The first main occurrence whose warning is after t.
            if let m = main(after: t + w), best.map({ m - w < $0 }) ?? true { best = m - w }
        }
        return best
    }

    /// Whether `instant` is a main occurrence (not only a warning).
    public func isMain(_ instant: Instant) -> Bool { main(after: instant - Span(microseconds: 1)) == instant }

    /// The main occurrence a warning at `instant` is for: the nearest one it warns of.
    public func target(ofWarning instant: Instant) -> Instant? {
        warnings.reversed().map { instant + $0 }.first(where: isMain)
    }

    /// What the occurrence at `instant` is (the kind says).
    public func role(of instant: Instant) -> OccurrenceRole {
        job.kind.rules.role(of: instant, job: job) { !warnings.isEmpty && !isMain(instant) }
    }

    /// Whether the job's calendars have a main occurrence on `day`.
    public func elapses(on day: LocalDate) -> Bool {
        calendars.isEmpty || calendars.contains { $0.elapses(on: day, in: zone) }
    }

    /// A calendar's next elapse. Where systemd's search gives up (it can, next to some
    /// daylight-saving changes, with "Infinite loop in calendar calculation"), a reminder
    /// must not end: look again from an hour later, for up to two days.
    func recurrence(_ calendar: CalendarEvent, after t: Instant) -> Instant? {
        for hour in 0...48 {
            if let next = calendar.next(after: t + Span.minutes(Int64(60 * hour)), in: zone) { return next }
        }
        return nil
    }
}
