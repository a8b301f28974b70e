extension Engine {
    /// A button was pressed on a popup. Snooze shows the popup again after the configured span
    /// (kept in the job's file name, so it survives a restart); Done needs the job's document
    /// first, and finishes in `completeAction`.
    mutating func actionInvoked(_ pressed: NotificationAction, now: Instant) -> [EngineEffect] {
        let id = pressed.jobID
        switch pressed.action {
        case .snooze:
            guard let target = JobFileName.snoozed(id: id, pending: current[id], lastShown: pressed.occurrence, now: now,
                                                   length: config.snooze) else { return [] }
            logger.info("Snoozed", metadata: ["job.id": "\(id)", "until": "\(target.fireAt)"])
            if let pending = current[id] { return [move(pending, to: target)] + tick(now: now) }
            // A one-shot that finished comes back from done/.
            ownNames.insert(target)
            adopt(target)
            return [.spool(.restore(from: JobFileName(id: id, occurrence: pressed.occurrence), to: target))] + tick(now: now)
        case .done:
            guard let name = current[id] else {
                logger.notice("Button pressed for a job that is gone", metadata: ["job.id": "\(id)"])
                return []
            }
            return [.load(LoadRequest(name: name, purpose: .action(.done, occurrence: pressed.occurrence)))]
        }
    }

    /// Done on a habit's popup records one completion for the popup's day, once.
    func completeAction(_ action: PopupAction, job loaded: LoadedJob, id: String, occurrence: Instant, now: Instant) -> [EngineEffect] {
        guard action == .done, loaded.job.kind == .habit, let schedule = try? JobSchedule(loaded.job, localZone: localZone) else {
            return []
        }
        let day = LocalDate(occurrence, in: schedule.zone)
        guard !(loaded.habitLog?.days.contains(day) ?? false) else { return [] }
        logger.info("Habit done", metadata: ["job.id": "\(id)", "day": "\(day)"])
        return [.spool(.appendHabitLog(id: id, HabitLog.Entry(date: day, done: true, at: now, by: "popup")))]
    }
}
