import Logging
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The daemon's logic without its shell: takes jobs in from the spool, decides what is due,
/// renders popups, and records what was shown. It owns no timer and no thread: the daemon
/// calls it on one serial queue, performs the `Effect`s it returns, and arms its timer for
/// `nextWakeup`. Tests drive it with a manual clock and a recording notifier.
///
/// Not thread-safe: every call must come from the same serial queue.
public final class Engine: @unchecked Sendable {
    /// Something the shell must do for the engine.
    public enum Effect: Equatable, Sendable {
        /// Show this popup, then call `showFinished(_:result:)` with the job id.
        case show(NotificationRequest)
    }

    struct InFlight {
        var name: JobFileName
        var job: Job
        var schedule: JobSchedule
        var due: Instant
    }

    public let spool: Spool
    public private(set) var config: HeraldConfig
    /// The zone for jobs that name none (the system's; changes with /etc/localtime).
    public private(set) var localZone: TimeZoneRules
    let clock: any WallClock
    var logger: Logger

    var scheduler = Scheduler()
    var outbox = Outbox()
    /// Every pending job, by id: its current file name in `jobs/`.
    var pending: [String: JobFileName] = [:]
    var inFlight: [String: InFlight] = [:]
    public private(set) var lastError: NotifierError?
    public private(set) var lastErrorAt: Instant?

    public init(spool: Spool, config: HeraldConfig, localZone: TimeZoneRules = .utc, clock: any WallClock, logger: Logger) {
        self.spool = spool
        self.config = config
        self.localZone = localZone
        self.clock = clock
        self.logger = logger
    }

    // MARK: queries

    /// How many jobs are pending (scheduled, waiting for the server, or being shown).
    public var pendingCount: Int { pending.count }
    /// The id and file name of every pending job.
    public var pendingJobs: [String: JobFileName] { pending }
    /// Whether popups are held back because the notification server failed.
    public var isBlocked: Bool { outbox.isBlocked }
    public var retryAt: Instant? { outbox.retryAt }

    /// When the engine next needs `tick()`: the earliest due job or notifier retry.
    public func nextWakeup() -> Instant? {
        let due = outbox.isBlocked ? nil : scheduler.nextDeadline()
        return [due, outbox.retryAt].compactMap { $0 }.min()
    }

    /// The earliest due time of any scheduled job (for status), ignoring retries.
    public func nextDue() -> Instant? { scheduler.nextDeadline() }

    // MARK: events

    /// Loads `jobs/`, takes in whatever waits in `new/`, and fires what is already due.
    public func start() throws(FileSystemError) -> [Effect] {
        try spool.prepare()
        let listing = try spool.pendingJobs()
        var best: [String: JobFileName] = [:]
        for name in listing.jobs {
            if let other = best[name.id] {
                // Two states of one job can only come from outside interference: keep the later one.
                let (keep, drop) = other.occurrence >= name.occurrence ? (other, name) : (name, other)
                best[name.id] = keep
                quarantine(directory: spool.jobs, name: drop.description, reason: "a second copy of job '\(drop.id)'")
            } else {
                best[name.id] = name
            }
        }
        for stray in listing.strays where !stray.hasPrefix(".") {
            quarantine(directory: spool.jobs, name: stray, reason: "not a job file name (<id>@<time>.json)")
        }
        pending = best
        scheduler.schedule(contentsOf: best.values.map { ($0.id, $0.fireAt) })
        logger.info("Spool loaded", metadata: ["spool": "\(spool.root)", "jobs.pending": "\(pending.count)"])
        var effects = intake(names: (try? FileSystem.list(spool.new)) ?? [])
        effects += tick()
        return effects
    }

    /// Files appeared in or left `jobs/` (inotify). The engine's own renames are recognised
    /// and ignored; anything else (a cancel, a snooze by the CLI) updates the schedule.
    public func jobsChanged(removed: [String], added: [String]) -> [Effect] {
        for raw in removed {
            guard let name = JobFileName(parsing: raw), pending[name.id] == name else { continue }
            forget(name.id)
            logger.info("Job removed from the spool", metadata: ["job.id": "\(name.id)"])
        }
        for raw in added {
            guard let name = JobFileName(parsing: raw), pending[name.id] != name else { continue }
            guard FileSystem.exists(spool.path(of: name)) else { continue }
            if let old = pending[name.id], FileSystem.exists(spool.path(of: old)) { continue }
            adopt(name)
            logger.info("Job rescheduled", metadata: ["job.id": "\(name.id)", "job.due": "\(name.fireAt)"])
        }
        return tick()
    }

    /// Re-reads `new/` and `jobs/` after inotify dropped events (queue overflow).
    public func rescan() -> [Effect] {
        var effects = intake(names: (try? FileSystem.list(spool.new)) ?? [])
        guard let listing = try? spool.pendingJobs() else { return effects }
        let onDisk = Set(listing.jobs)
        let removed = pending.values.filter { !onDisk.contains($0) }.map(\.description)
        let known = Set(pending.values)
        let added = listing.jobs.filter { !known.contains($0) }.map(\.description)
        effects += jobsChanged(removed: removed, added: added)
        return effects
    }

    /// Fires everything due: the timer went off, or something changed.
    public func tick() -> [Effect] {
        let now = clock.now
        var actions = outbox.retry(now: now)
        let due = scheduler.takeDue(now: now)
        if !due.isEmpty { actions += outbox.enqueue(due.map { Outbox.Item(id: $0.id, due: $0.due) }) }
        return perform(actions, now: now)
    }

    /// The notifier finished with job `id`'s popup.
    public func showFinished(_ id: String, result: Result<Void, NotifierError>) -> [Effect] {
        let now = clock.now
        switch result {
        case .success:
            if lastError != nil {
                logger.notice("Notifications are getting through again")
                lastError = nil
                lastErrorAt = nil
            }
            let actions = outbox.shown(id)
            if let f = inFlight.removeValue(forKey: id) {
                record(f, outcome: .shown, now: now)
            }
            return perform(actions, now: now)
        case .failure(let error):
            let actions = outbox.failed(id, now: now)
            if lastError != error {
                logger.warning("Cannot show notifications; due jobs wait and are retried",
                               metadata: ["error": "\(error)", "retry.at": "\(outbox.retryAt.map { "\($0)" } ?? "-")"])
            }
            lastError = error
            lastErrorAt = now
            return perform(actions, now: now)
        }
    }

    /// A notification server appeared on the bus: retry at once.
    public func serverAppeared() -> [Effect] {
        perform(outbox.serverAppeared(), now: clock.now)
    }

    /// The wall clock was set (a step, or a resume from suspend): fire what is now due.
    /// Nothing fires early: due times are wall-clock instants and `tick` compares with now.
    public func clockChanged() -> [Effect] {
        logger.notice("Clock changed; re-evaluating due times", metadata: ["now": "\(clock.now)"])
        return tick()
    }

    /// The local time zone changed: recurring jobs read in it get their next occurrence from
    /// the new zone. `jobs` are those jobs (found by `Spool.localZoneRecurrences`).
    public func localZoneChanged(to zone: TimeZoneRules, jobs: [(name: JobFileName, job: Job)]) -> [Effect] {
        logger.notice("Time zone changed; rescheduling local-time recurrences",
                      metadata: ["zone": "\(zone.identifier)", "jobs": "\(jobs.count)"])
        localZone = zone
        let now = clock.now
        for (name, job) in jobs where pending[name.id] == name && inFlight[name.id] == nil && name.snoozedUntil == nil {
            guard let schedule = try? JobSchedule(job, localZone: zone),
                  let next = schedule.recurrence(after: now), next != name.occurrence else { continue }
            let moved = JobFileName(id: name.id, occurrence: next)
            do {
                try spool.advance(name, to: moved)
                adopt(moved)
            } catch {
                logger.error("Cannot reschedule a job", metadata: ["job.id": "\(name.id)", "error": "\(error)"])
            }
        }
        return tick()
    }

    /// Uses a new configuration from now on (SIGHUP).
    public func reload(config: HeraldConfig) {
        self.config = config
    }

    // MARK: firing

    func perform(_ actions: [Outbox.Action], now: Instant) -> [Effect] {
        var effects: [Effect] = []
        var queue = actions
        while !queue.isEmpty {
            let action = queue.removeFirst()
            guard case .show(let item) = action else { continue }
            switch prepare(item, now: now) {
            case .show(let request): effects.append(.show(request))
            case .done: queue += outbox.shown(item.id)
            }
        }
        return effects
    }

    enum Preparation { case show(NotificationRequest), done }

    /// Loads the job for a due item and renders it, or settles it without a popup.
    func prepare(_ item: Outbox.Item, now: Instant) -> Preparation {
        guard let name = pending[item.id] else { return .done }  // cancelled meanwhile
        let job: Job
        let schedule: JobSchedule
        do {
            job = try spool.loadJob(name, localZone: localZone).get()
            schedule = try JobSchedule(job, localZone: localZone)
        } catch {
            let reason = (error as? SpoolFileError)?.description ?? "\(error)"
            let redacted = (error as? SpoolFileError)?.redacted ?? (error as? JobError)?.reason ?? reason
            forget(item.id)
            quarantine(directory: spool.jobs, name: name.description, reason: reason, redacted: redacted)
            appendHistory(HistoryRecord(time: now, id: item.id, kind: nil, role: nil, due: item.due, outcome: .failed,
                                        note: redacted))
            return .done
        }
        let flight = InFlight(name: name, job: job, schedule: schedule, due: item.due)
        let role = job.role(of: name.occurrence)
        if now - name.fireAt > config.catchUpGrace {
            // Came due while Herald was down or the machine asleep, too long ago to show.
            record(flight, outcome: .missed, now: now, note: "late by \(TimeSpan.humanize(now - name.fireAt))")
            return .done
        }
        if role == .headsUp, name.snoozedUntil == nil, let arrival = job.at, now >= arrival {
            // The arrival itself is due: a heads-up now would only repeat it.
            record(flight, outcome: .skipped, now: now, note: "arrival already due")
            return .done
        }
        var stats: HabitStats? = nil
        if job.kind == .habit {
            let day = LocalDate(name.occurrence, in: schedule.zone)
            let log = HabitLog(spool: spool, id: item.id).read()
            reportLogProblems(log, id: item.id)
            if log.days.contains(day) {
                // Quiet for the rest of that day: resume with the next day's first reminder.
                record(flight, outcome: .skipped, now: now, note: "done for the day",
                       resumeAfter: day.adding(days: 1).start(in: schedule.zone) - Span(microseconds: 1))
                return .done
            }
            stats = habitStats(schedule, done: log.days, today: day)
        }
        inFlight[item.id] = flight
        let request = MessageRenderer(config: config).render(job, id: item.id, due: name.occurrence, now: now, stats: stats)
        logger.debug("Showing notification",
                     metadata: ["job.id": "\(item.id)", "summary": "\(request.summary)", "body": "\(request.body)"])
        return .show(request)
    }

    /// Moves a job past the occurrence that just fired (or was skipped) and logs it; with
    /// `resumeAfter`, a recurring job skips everything up to that time.
    func record(_ f: InFlight, outcome: HistoryRecord.Outcome, now: Instant, note: String? = nil, resumeAfter: Instant? = nil) {
        let id = f.name.id
        let role = f.job.role(of: f.name.occurrence)
        let lateMs = (now - f.due).microseconds / 1000
        appendHistory(HistoryRecord(time: now, id: id, kind: f.job.kind, role: role, due: f.name.occurrence,
                                    outcome: outcome, title: f.job.title ?? f.job.text.map(Self.historyTitle), note: note))
        guard pending[id] == f.name else {
            if let moved = pending[id] {
                scheduler.schedule(id, at: moved.fireAt)  // snoozed or rescheduled while it fired
            } else {
                logger.info("Job was cancelled while it fired", metadata: ["job.id": "\(id)"])
            }
            return
        }
        do {
            if let next = f.schedule.next(after: max(f.name.occurrence, resumeAfter ?? f.name.occurrence), now: now) {
                let newName = JobFileName(id: id, occurrence: next)
                try spool.advance(f.name, to: newName)
                adopt(newName)
            } else {
                pending.removeValue(forKey: id)
                try spool.finish(f.name)
            }
            logger.info(outcome == .shown ? "Job fired" : outcome == .missed ? "Job occurrence missed" : "Job occurrence skipped",
                        metadata: ["job.id": "\(id)", "job.kind": "\(f.job.kind.rawValue)", "job.role": "\(role.rawValue)",
                                   "late.ms": "\(lateMs)"])
        } catch {
            if error.isNotFound {
                forget(id)
                logger.info("Job was cancelled while it fired", metadata: ["job.id": "\(id)"])
            } else {
                // Keep the in-memory state; the file still says "due", so a restart repeats it
                // (at-least-once) rather than losing it.
                logger.error("Cannot record a fired job", metadata: ["job.id": "\(id)", "error": "\(error)"])
            }
        }
    }

    /// Takes `name` as the job's current state and schedules it (unless it is being shown).
    func adopt(_ name: JobFileName) {
        pending[name.id] = name
        if inFlight[name.id] == nil { scheduler.schedule(name.id, at: name.fireAt) }
    }

    func forget(_ id: String) {
        pending.removeValue(forKey: id)
        scheduler.remove(id)
        outbox.remove(id)
    }

    /// A reminder's text as its history title: the first line, at most 80 characters.
    static func historyTitle(_ text: String) -> String {
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: true).first.map(String.init) ?? ""
        return line.count > 80 ? String(line.prefix(79)) + "…" : line
    }

    func appendHistory(_ record: HistoryRecord) {
        do { try FileSystem.appendLine(record.jsonLine, to: spool.historyPath) } catch {
            logger.error("Cannot append to history", metadata: ["error": "\(error)"])
        }
    }
}
