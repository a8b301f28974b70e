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

    /// The first time this job fires, or nil if it has no time it can fire at.
    public func firstOccurrence(defaultLead: Span) -> Instant? {
        guard let at else { return nil }
        if kind == .delivery {
            let lead = effectiveLead(defaultLead: defaultLead)
            return lead > .zero ? at - lead : at
        }
        return at
    }

    /// The occurrence after `previous`, or nil when the job is finished.
    public func nextOccurrence(after previous: Instant, defaultLead: Span) -> Instant? {
        guard let at else { return nil }
        if kind == .delivery, previous < at { return at }
        return nil
    }

    /// What the occurrence at `instant` is.
    public func role(of instant: Instant) -> OccurrenceRole {
        switch kind {
        case .reminder: return .reminder
        case .habit: return .habit
        case .delivery:
            if let at, instant < at { return .headsUp }
            return .arrival
        }
    }
}
