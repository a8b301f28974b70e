extension Engine {
    /// Decides about files read from `new/`: valid jobs with a free id and room in the spool
    /// are accepted (and filed by the intake queue), the rest refused. A batch arrives in parts;
    /// its first part decides for all of it whether it fits under the limit.
    mutating func intake(_ files: [IntakeFile], now: Instant) -> [EngineEffect] {
        var plan = FilingPlan()
        var effects: [EngineEffect] = []
        var seen = Set<String>()
        for file in files {
            switch file {
            case .refused(let name, _), .single(let name, _):
                // Read again before its first reading was filed, or after (the same file, now
                // in jobs/): that reading decides.
                let inode: UInt64 = if case .single(_, let c) = file { c.inode } else { 0 }
                guard seen.insert(name).inserted, filesInFlight.take(name, inode: inode) else {
                    logger.debug("A file of new/ read again while it is being filed", metadata: ["file": "\(name)"])
                    continue
                }
            default: break
            }
            switch file {
            case .gone:
                continue
            case .refused(let name, let refusal):
                effects += refuse(name, refusal, in: &plan, now: now)
            case .single(let name, let candidate):
                let id = candidate.id ?? freshID(hint: name)
                if candidate.kind == .run && !config.commands.enabled {
                    let problem = "a run job, and commands are off in the config (commands: off)"
                    effects += refuse(name, IntakeRefusal(reason: problem, redacted: problem), in: &plan, now: now)
                    continue
                }
                if let problem = admissionProblem(id: id, adding: 1) {
                    effects += refuse(name, IntakeRefusal(reason: problem, redacted: problem), in: &plan, now: now)
                    continue
                }
                let target = JobFileName(id: id, occurrence: candidate.first)
                accept(target)
                noteWaker(id, kind: candidate.kind, wake: candidate.wake)
                ownNames.insert(target)  // the move into jobs/ comes back from inotify
                plan.moves.append(.init(file: name, name: target, fixMode: candidate.mode != 0o600, inode: candidate.inode))
                logger.info("Job accepted", metadata: ["job.id": "\(id)", "job.kind": "\(candidate.kind.rawValue)",
                                                       "job.due": "\(target.fireAt)"])
            case .waiting(let name):
                batches.wait(name)
            case .batch(let part):
                effects += intakeBatch(part, into: &plan, now: now)
            }
        }
        if !plan.isEmpty { effects.append(.file(plan)) }
        filesInFlight.planned(moves: plan.moves, refusals: plan.refusals.map(\.file))
        return effects
    }

    /// One part of a claimed batch. The first part decides for all of it whether it fits under
    /// the limit (a resumed batch was admitted before); a batch read again while it is being
    /// filed (seen both at start and by inotify) is ignored the second time.
    mutating func intakeBatch(_ part: BatchPart, into plan: inout FilingPlan, now: Instant) -> [EngineEffect] {
        let name = part.file
        switch batches.decide(part, fits: { records.namedCount + $0 <= config.maxJobs }) {
        case .ignore: return []
        case .refuse:
            let problem = "\(part.total) more jobs would pass the spool's limit of \(config.maxJobs) (limits.jobs)"
            return refuse(name, IntakeRefusal(reason: problem, redacted: problem), in: &plan, now: now)
        case .take: break
        }
        plan.batch = name
        plan.isLastPart = part.isLast
        var added = 0, skipped = 0
        for candidate in part.candidates {
            // A resumed batch skips the ids it already filed.
            guard let id = candidate.id, self.name(of: id) == nil else { skipped += 1; continue }
            let target = JobFileName(id: id, occurrence: candidate.first)
            accept(target)
            if !config.alarms.wakeKinds.isEmpty || candidate.wake != nil || candidate.kind == .run { noteWaker(id, kind: candidate.kind, wake: candidate.wake) }
            plan.writes.append(.init(name: target, line: candidate.line))
            added += 1
        }
        batches.count(name, added: added, skipped: skipped)
        return []
    }

    /// Jobs the intake queue has put into `jobs/` can be read now: one that came due while it
    /// was filed fires at once.
    mutating func filed(_ result: FilingResult, now: Instant) -> [EngineEffect] {
        for name in result.filed {
            // Snoozed or rescheduled by the CLI since it landed: that name counts.
            let current = update(name.id) { record -> JobFileName? in
                guard record.isFiling else { return nil }
                record.phase = .idle
                return record.name
            }
            // Taken from the index if it came due meanwhile: back in, to fire at the next tick.
            // (A job in the index is always there at its name's time: every `schedule` says so.)
            if let current, !records.isScheduled(current.id) { records.schedule(current.id, at: current.fireAt) }
        }
        for name in result.failed where records[name.id]?.isFiling ?? false {
            ownNames.remove(name)
            if self.name(of: name.id) == name { forget(name.id) } else { update(name.id) { $0.phase = .idle } }
        }
        var effects: [EngineEffect] = []
        let again = filesInFlight.settled(result.settledFiles, filed: result.filed)
        if !again.isEmpty { effects.append(.readIntake(intakeRequest(again))) }
        if let batch = result.batch, batches.counts(of: batch) != nil {
            batches.count(batch, failed: result.failed.count)
            if result.isLastPart, let counts = batches.counts(of: batch) {
                if counts.failed == 0 {
                    var plan = FilingPlan()
                    plan.removeBatch = batch
                    effects.append(.file(plan))
                } else {
                    batches.abandon(batch)
                    logger.error("Cannot write every job of a batch; the batch stays in new/",
                                 metadata: ["file": "\(batch)", "jobs.failed": "\(counts.failed)"])
                }
            }
        }
        if let batch = result.removedBatch, let (counts, waiting) = batches.finish(batch) {
            logger.info("Batch accepted", metadata: ["file": "\(batch)", "jobs.added": "\(counts.added)",
                                                     "jobs.skipped": "\(counts.skipped)"])
            // A batch of the same name waited for this one's claim to go.
            if !waiting.isEmpty { effects.append(.readIntake(intakeRequest(waiting))) }
        }
        return effects + tick(now: now)
    }

    /// Why a job with `id` cannot be taken in now, or nil when it can.
    func admissionProblem(id: String, adding: Int) -> String? {
        if records.namedCount + adding > config.maxJobs {
            return "the spool already holds \(records.namedCount) jobs, its limit (limits.jobs)"
        }
        if name(of: id) != nil { return "job id '\(id)' is already pending" }
        return nil
    }

    /// A job read and checked in `new/` is scheduled at once, while the intake queue files it
    /// (so no import delays a popup). A batch's jobs are linked into `jobs/`, which inotify does
    /// not report (see `FileSystem.writeStaged`).
    mutating func accept(_ name: JobFileName) {
        update(name.id) { record in
            record.name = name
            record.phase = .filing
        }
        records.schedule(name.id, at: name.fireAt)
    }

    /// Moves a file from `new/` to `failed/` (in the filing plan) and records it in the history.
    mutating func refuse(_ file: String, _ refusal: IntakeRefusal, in plan: inout FilingPlan, now: Instant) -> [EngineEffect] {
        plan.refusals.append(.init(file: file, reason: refusal.reason))
        let shown = IntakeFile.unclaimedName(file)
        logger.warning("Bad job file moved to failed/", metadata: ["file": "new/\(shown)", "reason": "\(refusal.redacted)"])
        logger.debug("Bad job file, full reason", metadata: ["file": "\(shown)", "reason": "\(refusal.reason)"])
        let stem = shown.hasSuffix(".json") ? String(shown.dropLast(5)) : shown
        return [.spool(.appendHistory(HistoryRecord(time: now, id: stem, kind: nil, role: nil, due: now, outcome: .failed,
                                                    note: "new/\(shown) moved to failed/: \(refusal.redacted)")))]
    }

    /// The id for a job file without one: its file name when that is a free, valid id, else a random one.
    mutating func freshID(hint fileName: String) -> String {
        let stem = fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName
        if Job.isValidID(stem), name(of: stem) == nil { return stem }
        while true {
            let id = JobID.random(using: &ids)
            if name(of: id) == nil { return id }
        }
    }
}

/// Single files of `new/` with a move or refusal planned and not yet carried out, and those of
/// them read again meanwhile. A file is read twice when two events name it (IN_CREATE and
/// IN_CLOSE_WRITE, or the start's listing and inotify); the second reading found its own job
/// "already pending" and sent the file to failed/, before its own move when both were in one
/// plan, and the job was lost.
///
/// A reading that reaches the engine after the first one's move was done (it was read before
/// the move, and its request went on reading other files) is known by its inode: the file it
/// read is the job's file now. The last `recentLimit` files moved are kept for that (only those
/// moved: one whose move failed is still in new/, and is read again at its next event).
struct FilesInFlight {
    /// By file: the inode read (0: not known) and, for a move, the job file it becomes.
    private var planned: [String: (inode: UInt64, target: JobFileName?)] = [:]
    private var readAgain = Set<String>()
    private var recent: [FileKey] = []
    private var recentSet = Set<FileKey>()
    static let recentLimit = 256

    private struct FileKey: Hashable { var name: String; var inode: UInt64 }

    /// Whether a reading of `file` (`inode`, 0 when not known) is to be decided on: not while
    /// an earlier reading is being filed, nor when it read a file that has been moved already.
    mutating func take(_ file: String, inode: UInt64) -> Bool {
        if planned[file] != nil {
            readAgain.insert(file)
            return false
        }
        return inode == 0 || !recentSet.contains(FileKey(name: file, inode: inode))
    }

    mutating func planned(moves: [FilingPlan.Move], refusals: [String]) {
        for move in moves { planned[move.file] = (move.inode, move.name) }
        for file in refusals { planned[file] = (0, nil) }
    }

    /// The plan that moved or refused `files` is done: those read again meanwhile are to be
    /// read once more (another file may have taken the name since; usually it is gone).
    mutating func settled(_ files: [String], filed: [JobFileName]) -> [String] {
        var again: [String] = []
        for file in files {
            guard let (inode, target) = planned.removeValue(forKey: file) else { continue }
            if inode != 0, let target, filed.contains(target), recentSet.insert(FileKey(name: file, inode: inode)).inserted {
                recent.append(FileKey(name: file, inode: inode))
                if recent.count > Self.recentLimit { recentSet.remove(recent.removeFirst()) }
            }
            if readAgain.remove(file) != nil { again.append(file) }
        }
        return again
    }
}
