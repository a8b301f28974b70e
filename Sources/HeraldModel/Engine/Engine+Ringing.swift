/// Popups that ring (an alarm's): until when each rings unanswered, and how often it has
/// snoozed itself. The popup itself, its looping sound and its inhibitor live in the notifier
/// and end together; this is the engine's side: the deadline, and what an unanswered ring
/// becomes (`unanswered`, then a snooze of its own, `alarms.autoSnooze` times).
struct Rings: Sendable {
    struct Ring: Sendable, Equatable {
        var occurrence: Instant
        var until: Instant
    }
    /// Ringing now, by job id.
    private(set) var ringing: [String: Ring] = [:]
    /// Snoozes an alarm gave itself, by job id, for one occurrence.
    private var selfSnoozes: [String: (occurrence: Instant, count: Int)] = [:]

    var isEmpty: Bool { ringing.isEmpty }
    /// The earliest end of a ring.
    var nextEnd: Instant? { ringing.values.lazy.map(\.until).min() }

    mutating func start(_ id: String, occurrence: Instant, until: Instant) {
        ringing[id] = Ring(occurrence: occurrence, until: until)
        if let s = selfSnoozes[id], s.occurrence != occurrence { selfSnoozes[id] = nil }
    }

    /// It stopped ringing; `answered` (Stop, a close by the user): its self-snoozes are over too.
    mutating func stop(_ id: String, answered: Bool = false) {
        ringing[id] = nil
        if answered { selfSnoozes[id] = nil }
    }

    /// The rings whose time ran out by `now`, taken out.
    mutating func takeEnded(now: Instant) -> [(id: String, ring: Ring)] {
        guard let end = nextEnd, end <= now else { return [] }
        let ended = ringing.filter { $0.value.until <= now }.map { (id: $0.key, ring: $0.value) }.sorted { $0.id < $1.id }
        for e in ended { ringing[e.id] = nil }
        return ended
    }

    /// Counts one more self-snooze of `occurrence`: false once `limit` were given.
    mutating func snoozeItself(_ id: String, occurrence: Instant, limit: Int) -> (allowed: Bool, count: Int) {
        let count = selfSnoozes[id].flatMap { $0.occurrence == occurrence ? $0.count : nil } ?? 0
        guard count < limit else {
            selfSnoozes[id] = nil
            return (false, count)
        }
        selfSnoozes[id] = (occurrence, count + 1)
        return (true, count + 1)
    }

    mutating func removeAll() { ringing = [:] }
}

extension Engine {
    /// A popup that rings went on screen at `now`: it rings until the kind's `ringsFor` ends.
    mutating func startRinging(_ f: Firing, now: Instant) {
        guard f.schedule.role(of: f.name.occurrence) != .warning, let span = f.job.kind.rules.ringsFor(f.job, config: config) else { return }
        rings.start(f.name.id, occurrence: f.name.occurrence, until: now + span)
    }

    /// Rings that ran out unanswered: each popup ends (`unanswered`) and the alarm snoozes
    /// itself, as a phone's does, until it has done so `alarms.autoSnooze` times.
    mutating func ringsRanOut(now: Instant) -> [EngineEffect] {
        var effects: [EngineEffect] = []
        for (id, ring) in rings.takeEnded(now: now) {
            let popup: Firing? = update(id) { record in
                guard case .onScreen(let f)? = record.popup, f.name.occurrence == ring.occurrence else { return nil }
                record.popup = nil
                return f
            }
            guard let popup else { continue }
            effects.append(.close(jobID: id))
            let rang = "rang for " + TimeSpan.humanize(config.alarms.ringFor)
            let again = rings.snoozeItself(id, occurrence: ring.occurrence, limit: config.alarms.autoSnooze)
            guard again.allowed else {
                logger.info("Alarm unanswered; it gave up", metadata: ["job.id": "\(id)"])
                effects.append(ending(popup, .unanswered, now: now, note: rang + "; snoozed itself \(again.count) times, no more"))
                // Its file leaves the ringing state: on to the next occurrence, or done.
                if let pending = name(of: id), pending.occurrence == ring.occurrence, !(records[id]?.isBusy ?? true),
                   let step = JobDecision.acknowledge(pending, job: popup.job, schedule: popup.schedule, now: now) {
                    effects.append(take(step, from: pending))
                }
                continue
            }
            logger.info("Alarm unanswered; it snoozes itself", metadata: ["job.id": "\(id)", "count": "\(again.count)"])
            effects += snooze(id, occurrence: ring.occurrence, popup: popup, length: config.alarms.snooze, outcome: .unanswered,
                              note: rang + "; snoozed itself (\(again.count) of \(config.alarms.autoSnooze))", now: now)
        }
        return effects
    }

    // MARK: waking the machine

    /// Notes whether job `id` wakes the machine from suspend (its `wake`, else the config's
    /// `alarms.wake` for its kind).
    mutating func noteWaker(_ id: String, kind: Job.Kind, wake: Bool?) {
        if kind == .run { commandJobs.insert(id) } else if !commandJobs.isEmpty { commandJobs.remove(id) }
        if config.alarms.wakes(kind: kind, wake: wake) {
            if wakers.insert(id).inserted { wakeDirty = true }
        } else if !wakers.isEmpty, wakers.remove(id) != nil {
            wakeDirty = true
        }
    }

    /// When the machine must wake next: `alarms.wakeAhead` before the earliest due time of a
    /// job that wakes it, or that time itself once the lead has begun (a machine put to sleep
    /// then still wakes for it). Jobs that left the spool are dropped from the set here.
    mutating func nextWake(now: Instant) -> Instant? {
        guard !wakers.isEmpty else { return nil }
        var earliest: Instant?
        var gone: [String] = []
        for id in wakers {
            guard let name = records[id]?.name else { gone.append(id); continue }
            // One overdue (held for a summary, waiting for the server) is being dealt with: it
            // must not stand in for the next one to come.
            guard name.fireAt > now else { continue }
            earliest = earliest.map { min($0, name.fireAt) } ?? name.fireAt
        }
        for id in gone { wakers.remove(id) }
        guard let earliest else { return nil }
        let ahead = earliest - config.alarms.wakeAhead
        return ahead > now ? ahead : earliest
    }
}
