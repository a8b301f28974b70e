import Logging

extension Engine {
    /// A button was pressed on a popup: Done records the day's completion, Snooze shows the
    /// popup again after the snooze span (kept in the spool, so it survives a restart).
    public func actionInvoked(_ action: NotificationAction) -> [Effect] {
        let now = clock.now
        switch action.key {
        case "done":
            guard let name = pending[action.jobID], case .success(let job) = spool.loadJob(name, localZone: localZone),
                  let schedule = try? JobSchedule(job, localZone: localZone) else {
                logger.notice("Done pressed for a job that is gone", metadata: ["job.id": "\(action.jobID)"])
                return []
            }
            let day = LocalDate(action.occurrence, in: schedule.zone)
            let log = HabitLog(spool: spool, id: action.jobID)
            guard !log.read().days.contains(day) else { return [] }
            do {
                try log.append(.init(date: day, done: true, at: now, by: "popup"))
                logger.info("Habit done", metadata: ["job.id": "\(action.jobID)", "day": "\(day)"])
            } catch {
                logger.error("Cannot record a habit completion", metadata: ["job.id": "\(action.jobID)", "error": "\(error)"])
            }
            return []
        case "snooze":
            do {
                let name = try snooze(action.jobID, occurrence: action.occurrence, until: now + config.snooze)
                logger.info("Snoozed", metadata: ["job.id": "\(action.jobID)", "until": "\(name.fireAt)"])
            } catch {
                logger.error("Cannot snooze", metadata: ["job.id": "\(action.jobID)", "error": "\(error)"])
            }
            return tick()
        default:
            return []
        }
    }

    /// Moves job `id` to fire again at `until` for `occurrence`, from `jobs/` (a recurring job
    /// already advanced past it) or from `done/` (a one-shot that finished).
    func snooze(_ id: String, occurrence: Instant, until: Instant) throws(FileSystemError) -> JobFileName {
        let target = JobFileName(id: id, occurrence: occurrence, snoozedUntil: until)
        if let current = pending[id] {
            try spool.advance(current, to: target)
        } else {
            try FileSystem.move(spool.done + "/" + JobFileName(id: id, occurrence: occurrence).description,
                                to: spool.path(of: target))
        }
        scheduler.remove(id)
        adopt(target)
        return target
    }

    /// Totals and streaks, with "scheduled" meaning the calendar has a reminder that day.
    func habitStats(_ schedule: JobSchedule, done: Set<LocalDate>, today: LocalDate) -> HabitStats {
        guard let calendar = schedule.calendar else {
            return HabitStats.compute(done: done, today: today) { _ in true }
        }
        return HabitStats.compute(done: done, today: today) { calendar.elapses(on: $0, in: schedule.zone) }
    }

    func reportLogProblems(_ log: HabitLog.Contents, id: String) {
        guard !log.problems.isEmpty else { return }
        logger.warning("Habit log has unreadable lines; they are ignored",
                       metadata: ["job.id": "\(id)", "file": "habits/\(id).jsonl", "problem": "\(log.problems[0])"])
    }
}
