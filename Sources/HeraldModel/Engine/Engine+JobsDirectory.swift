extension Engine {
    /// Files came or went in `jobs/`. The engine's own renames are recognised and ignored;
    /// anything else (a cancel, a snooze or a reschedule by the CLI) updates the schedule.
    mutating func jobsChanged(_ changes: [JobsChange], now: Instant) -> [EngineEffect] {
        var effects: [EngineEffect] = []
        for change in changes {
            switch change {
            case .removed(let raw):
                guard let name = JobFileName(parsing: raw), self.name(of: name.id) == name else { continue }
                forget(name.id)
                logger.info("Job removed from the spool", metadata: ["job.id": "\(name.id)"])
                effects += closeHandledElsewhere(name.id)
            case .added(let raw):
                guard let name = JobFileName(parsing: raw) else { continue }
                // Its own rename (or filing), reported now: already known.
                if ownNames.remove(name) != nil || self.name(of: name.id) == name { continue }
                adopt(name)
                logger.info("Job rescheduled", metadata: ["job.id": "\(name.id)", "job.due": "\(name.fireAt)"])
                effects += closeHandledElsewhere(name.id)
            }
        }
        return effects + tick(now: now)
    }

    /// A job on screen was cancelled, snoozed, rescheduled or acknowledged from the CLI (which
    /// records the outcome): its popup goes.
    mutating func closeHandledElsewhere(_ id: String) -> [EngineEffect] {
        let hadPopup = update(id) { record -> Bool in defer { record.popup = nil }; return record.popup != nil }
        guard hadPopup else { return [] }
        return [.close(jobID: id)]
    }

    /// After inotify lost events: what `jobs/` holds now against what the engine believes.
    /// Jobs still being filed are not on disk yet, and jobs that changed since the listing was
    /// asked for (their renames may be behind it on the spool queue) are left alone.
    mutating func jobsListed(_ names: [JobFileName], now: Instant) -> [EngineEffect] {
        let changed = records.takeChanges()
        let onDisk = Set(names)
        var known = Set<JobFileName>()
        var changes: [JobsChange] = []
        records.forEach { id, record in
            guard let name = record.name else { return }
            known.insert(name)
            if !onDisk.contains(name) && !record.isFiling && !changed.contains(id) { changes.append(.removed(name.description)) }
        }
        changes += names.filter { !known.contains($0) && !changed.contains($0.id) && !ownNames.contains($0) }
            .map { .added($0.description) }
        return jobsChanged(changes, now: now)
    }
}
