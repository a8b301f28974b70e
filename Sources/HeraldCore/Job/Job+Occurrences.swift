/// What one firing of a job is: a plain reminder, a delivery's heads-up or arrival, a habit.
public enum OccurrenceRole: String, Sendable, Equatable {
    case reminder
    case headsUp = "heads-up"
    case arrival
    case habit
}

extension Job {
    /// The heads-up lead for a delivery: the job's own, else the configured default.
    public func effectiveLead(defaultLead: Span) -> Span { lead ?? defaultLead }

    /// What the occurrence at `instant` is.
    public func role(of instant: Instant) -> OccurrenceRole { kind.rules.role(of: instant, in: self) }

    /// The zone a job's times are read in: its own `timezone`, else `localZone`.
    public func zone(localZone: TimeZoneRules) -> TimeZoneRules {
        guard let timezone, timezone != localZone.identifier else { return localZone }
        return (try? TimeZoneRules.cached(timezone)) ?? localZone
    }
}

/// When a job fires: its one or two fixed times, or its calendar expression, read in its zone.
public struct JobSchedule: Sendable {
    public let job: Job
    public let zone: TimeZoneRules
    public let calendar: CalendarEvent?

    /// - Throws: `JobError` when `every` is not a calendar expression.
    public init(_ job: Job, localZone: TimeZoneRules) throws(JobError) {
        self.job = job
        zone = job.zone(localZone: localZone)
        if let every = job.every {
            do { calendar = try CalendarEvent.parse(every, localZone: zone) } catch {
                throw JobError("field 'every' is not a calendar expression", value: "\"\(every)\"", detail: error.description)
            }
        } else {
            calendar = nil
        }
    }

    /// The first time the job fires when taken in at `now`, or nil if it never will.
    public func first(now: Instant, defaultLead: Span) -> Instant? {
        if calendar != nil {
            return recurrence(after: max(job.at.map { $0 - Span(microseconds: 1) } ?? now, now))
        }
        return job.kind.rules.firstFixed(job, defaultLead: defaultLead)
    }

    /// The occurrence after `previous` fired at `now`, or nil when the job is finished.
    /// A recurring job continues from now: occurrences missed meanwhile are not repeated.
    public func next(after previous: Instant, now: Instant) -> Instant? {
        if calendar != nil { return recurrence(after: max(previous, now)) }
        return job.kind.rules.nextFixed(job, after: previous)
    }

    /// The calendar's next elapse. Where systemd's search gives up (it can, next to some
    /// daylight-saving changes, with "Infinite loop in calendar calculation"), a reminder
    /// must not end: look again from an hour later, for up to two days.
    func recurrence(after t: Instant) -> Instant? {
        guard let calendar else { return nil }
        for hour in 0...48 {
            if let next = calendar.next(after: t + Span.minutes(Int64(60 * hour)), in: zone) { return next }
        }
        return nil
    }
}
