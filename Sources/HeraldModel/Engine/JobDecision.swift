/// The decisions behind `herald ack`, `snooze`, `cancel` and `habit done`, as pure functions of
/// the job's state: the engine makes them for a request on `heraldd.sock` (and for the same
/// buttons on a popup), and the CLI makes the very same ones when no heraldd answers, so the
/// renames and history lines cannot differ between the two.
public enum JobDecision {
    /// What happens to the job's file.
    public enum Step: Sendable, Equatable {
        /// Renamed within `jobs/`.
        case move(to: JobFileName)
        /// Its last occurrence is over: to `done/`.
        case finish
    }

    /// A repeating reminder waiting to repeat (or an alarm ringing, or snoozed) stops and moves
    /// on to its next occurrence (or finishes); nil when the job is not waiting to repeat.
    public static func acknowledge(_ pending: JobFileName, job: Job, schedule: JobSchedule, now: Instant) -> Step? {
        guard job.repeat != nil || job.rings, pending.snoozedUntil != nil else { return nil }
        if let next = schedule.next(after: pending.occurrence, now: now) { return .move(to: JobFileName(id: pending.id, occurrence: next)) }
        return .finish
    }

    /// How much later than now + its length a snooze may end (the CLI measures its length first).
    public static let snoozeSlack = Span.seconds(60)

    /// `herald ack`'s history line: the occurrence is done.
    public static func ackRecord(_ pending: JobFileName, job: Job, schedule: JobSchedule, now: Instant) -> HistoryRecord {
        record(pending.id, occurrence: pending.occurrence, .done, job: job, schedule: schedule, now: now, note: "herald ack")
    }

    /// The state a snooze puts the job in: the last shown occurrence again `length` from now
    /// (`until`, when a time was named), else the pending occurrence put off.
    ///
    /// - Throws: `ClientRefusal` when there is nothing to snooze, or `until` is not after the
    ///   occurrence's own time.
    public static func snooze(id: String, pending: JobFileName?, lastShown: Instant?, now: Instant, length: Span,
                              until: Instant?) throws(ClientRefusal) -> JobFileName {
        guard var target = JobFileName.snoozed(id: id, pending: pending, lastShown: lastShown, now: now, length: length) else {
            throw ClientRefusal(.nothingToSnooze, "job '\(id)' has nothing to snooze")
        }
        if let until {
            // Bounded against now: a time said in words ends the snooze no later than its length
            // from now (a minute's slack for the time between saying and doing it).
            guard until <= now + length + Self.snoozeSlack else {
                throw ClientRefusal(.invalid, "the snooze's end \(ISO8601.format(until, offsetSeconds: 0, zulu: true)) is further than its length from now")
            }
            guard until > target.occurrence else {
                throw ClientRefusal(.beforeOwnTime, "the time is before the job's own time \(ISO8601.format(target.occurrence, offsetSeconds: 0, zulu: true)): use 'herald reschedule' to move it earlier")
            }
            target.snoozedUntil = until
        }
        return target
    }

    /// A snooze's history line: only for an occurrence that was shown (putting off one that has
    /// not fired yet is a reschedule, with no line).
    public static func snoozeRecord(_ target: JobFileName, lastShown: Instant?, job: Job, schedule: JobSchedule, now: Instant) -> HistoryRecord? {
        guard let until = target.snoozedUntil, lastShown == target.occurrence else { return nil }
        return record(target.id, occurrence: target.occurrence, .snoozed, job: job, schedule: schedule, now: now,
                      note: "until \(ISO8601.format(until, offsetSeconds: 0, zulu: true))")
    }

    /// A cancel's history line: only when the job's popup was on screen (it ends dismissed).
    public static func cancelRecord(_ pending: JobFileName, popup: Instant?, job: Job, schedule: JobSchedule, now: Instant) -> HistoryRecord? {
        guard let popup else { return nil }
        return record(pending.id, occurrence: popup, .dismissed, job: job, schedule: schedule, now: now, note: "herald cancel")
    }

    /// `herald habit done`'s log entry: the day done, or `amount` added to it. Nil when the
    /// day is done already (nothing to write).
    public static func habitEntry(day: LocalDate, amount: Double?, log: HabitLog.Contents, now: Instant, by: String) -> HabitLog.Entry? {
        if let amount { return HabitLog.Entry(date: day, change: .add(amount), at: now, by: by) }
        guard !log.days.contains(day) else { return nil }
        return HabitLog.Entry(date: day, change: .done(true), at: now, by: by)
    }

    static func record(_ id: String, occurrence: Instant, _ outcome: HistoryRecord.Outcome, job: Job, schedule: JobSchedule,
                       now: Instant, note: String?) -> HistoryRecord {
        HistoryRecord(time: now, id: id, kind: job.kind, role: schedule.role(of: occurrence), due: occurrence, outcome: outcome,
                      title: HistoryRecord.title(of: job), note: note)
    }
}
