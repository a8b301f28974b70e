extension Engine {
    /// A one-job command from the CLI (`heraldd.sock`). The engine reads the job's document
    /// first (the decision needs it), then decides in `requestLoaded`; the answer goes out as
    /// `.reply` behind the changes it made.
    mutating func request(_ request: ClientRequest, ticket: UInt64, now: Instant) -> [EngineEffect] {
        let id = request.id
        logger.info("Client request", metadata: ["job.id": "\(id)", "request": "\(request.verb)"])
        if let record = records[id], let name = record.name {
            guard !record.isFiling else {
                return [.reply(ticket: ticket, .refused(ClientRefusal(.changed, "job '\(id)' is still being taken in; try again")))]
            }
            return [.load(LoadRequest(name: name, purpose: .request(ticket: ticket, request)))]
        }
        if case .snooze(_, _, _, _, let finished?) = request, finished.id == id {
            return [.load(LoadRequest(name: finished, purpose: .request(ticket: ticket, request), finished: true))]
        }
        return [.reply(ticket: ticket, .refused(ClientRefusal(.unknownJob, "no pending job '\(id)' (see 'herald list')")))]
    }

    /// The document a request asked for: decide with the same functions the CLI uses without
    /// heraldd (`JobDecision`), end the job's popup when the request settles it, and answer.
    mutating func requestLoaded(_ request: ClientRequest, ticket: UInt64, load: LoadRequest, _ result: Result<LoadedJob, SpoolFileError>,
                                now: Instant) -> [EngineEffect] {
        let id = request.id
        func refuse(_ code: ClientRefusal.Code, _ message: String) -> [EngineEffect] {
            logger.info("Client request refused", metadata: ["job.id": "\(id)", "reason": "\(code.rawValue)"])
            return [.reply(ticket: ticket, .refused(ClientRefusal(code, message)))]
        }
        // Still the state that was read (the job may have fired or changed meanwhile).
        let current = name(of: id)
        guard load.finished ? current == nil : current == load.name else { return refuse(.changed, "job '\(id)' just changed (it fired?); try again") }
        let loaded: LoadedJob
        switch result {
        case .success(let l): loaded = l
        case .failure(.missing): return refuse(.changed, "job '\(id)' just changed (it fired?); try again")
        case .failure(let error): return refuse(.invalid, "job '\(id)': \(error.redacted)")
        }
        let job = loaded.job
        guard let schedule = try? JobSchedule(job, localZone: localZone, defaultLead: config.lead) else {
            return refuse(.invalid, "job '\(id)' has no valid schedule")
        }
        let onScreen: Firing? = { if case .onScreen(let f)? = records[id]?.popup { return f } else { return nil } }()
        var effects: [EngineEffect] = []
        /// Takes the popup of `occurrence` off the screen: the request settled it.
        func endPopup(of occurrence: Instant) -> Firing? {
            guard let f = onScreen, f.name.occurrence == occurrence else { return nil }
            update(id) { $0.popup = nil }
            rings.stop(id, answered: true)
            effects.append(.close(jobID: id))
            return f
        }
        let answer: ClientAnswer
        switch request {
        case .ack:
            let pending = load.name
            guard let step = JobDecision.acknowledge(pending, job: job, schedule: schedule, now: now) else {
                return refuse(.notWaiting, "job '\(id)' is not waiting to repeat: nothing to acknowledge (only reminders with --repeat and ringing or snoozed alarms wait for one)")
            }
            let popup = endPopup(of: pending.occurrence)
            effects.append(.spool(.appendHistory(JobDecision.ackRecord(pending, job: job, schedule: schedule, now: now))))
            if let popup { effects += writeBack(popup, .acknowledged, now: now) }
            effects.append(take(step, from: pending))
            if case .move(let next) = step { answer = .acknowledged(next: next) } else { answer = .acknowledged(next: nil) }
        case .snooze(_, let length, let until, let hint, _):
            let pending = load.finished ? nil : load.name
            // The engine's own popup says best what was shown last; else the CLI's reading of the
            // history, taken only when it is one of the job's own times, and past.
            let hinted = hint.flatMap { h in h <= now && schedule.firing(after: h - Span(microseconds: 1)) == h ? h : nil }
            let lastShown = onScreen?.name.occurrence ?? hinted ?? (load.finished ? load.name.occurrence : nil)
            let target: JobFileName
            do { target = try JobDecision.snooze(id: id, pending: pending, lastShown: lastShown, now: now, length: length, until: until) } catch {
                return refuse(error.code, error.message)
            }
            let popup = endPopup(of: target.occurrence)
            if let line = JobDecision.snoozeRecord(target, lastShown: lastShown, job: job, schedule: schedule, now: now) {
                effects.append(.spool(.appendHistory(line)))
            }
            if let popup { effects += writeBack(popup, .snoozed(until: target.fireAt), now: now) }
            noteWaker(id, kind: job.kind, wake: job.wake)  // a finished one-shot comes back waking
            if let pending {
                effects.append(move(pending, to: target))
            } else {
                ownNames.insert(target)
                adopt(target)
                effects.append(.spool(.restore(from: load.name, to: target)))
            }
            answer = .snoozed(target)
        case .cancel:
            let pending = load.name
            let popup = onScreen.flatMap { endPopup(of: $0.name.occurrence) }
            if let line = JobDecision.cancelRecord(pending, popup: popup?.name.occurrence, job: job, schedule: schedule, now: now) {
                effects.append(.spool(.appendHistory(line)))
            }
            // A run being started now cannot be recalled: it is stopped as soon as it is.
            if case .starting? = records[id]?.phase { stopWhenStarted.insert(id) }
            forget(id)
            effects.append(.spool(.cancel(pending)))
            answer = .cancelled(pending)
        case .habitDone(_, let day, let amount):
            guard job.kind == .habit else { return refuse(.notHabit, "job '\(id)' is not a habit") }
            // Bounded against now, as the CLI is: never a day to come (a day's slack for zones).
            guard day <= LocalDate(now, in: schedule.zone).adding(days: 1) else {
                return refuse(.invalid, "\(day) is in the future")
            }
            guard let entry = JobDecision.habitEntry(day: day, amount: amount, log: loaded.habitLog ?? .init(), now: now, by: "cli") else {
                answer = .habitDone(already: true)
                break
            }
            // Done for the day on screen settles that popup, as its own Done button would.
            if amount == nil, let f = onScreen, LocalDate(f.name.occurrence, in: schedule.zone) == day, let popup = endPopup(of: f.name.occurrence) {
                effects.append(ending(popup, .done, now: now, note: "herald habit done"))
            }
            effects.append(.spool(.appendHabitLog(id: id, entry)))
            answer = .habitDone(already: false)
        }
        logger.info("Client request done", metadata: ["job.id": "\(id)", "request": "\(request.verb)"])
        return effects + [.reply(ticket: ticket, answer)] + tick(now: now)
    }
}

extension ClientRequest {
    /// The request's word on the wire and in logs.
    public var verb: String {
        switch self {
        case .ack: return "ack"
        case .snooze: return "snooze"
        case .cancel: return "cancel"
        case .habitDone: return "habit-done"
        }
    }
}
