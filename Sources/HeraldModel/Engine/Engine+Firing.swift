extension Engine {
    /// Takes up the outbox's actions (the popups whose turn it is): each due job's document is
    /// asked for; a job that is gone meanwhile is settled at once.
    mutating func takeUp(_ actions: [Outbox.Action], now: Instant) -> [EngineEffect] {
        var effects: [EngineEffect] = []
        var queue = actions
        while !queue.isEmpty {
            guard case .show(let item) = queue.removeFirst() else { continue }
            switch item.subject {
            case .run: continue  // never queued
            case .summary:
                // Those still held (not cancelled or changed meanwhile) go into the summary.
                var firings: [Firing] = []
                for id in summary.held {
                    guard let record = records[id], case .held(let f) = record.phase, record.name == f.name else { continue }
                    update(id) { $0.phase = .summarised(f) }
                    firings.append(f)
                }
                guard let lines = summary.send(firings, title: { f in Self.title(of: f.job, role: f.schedule.role(of: f.name.occurrence)) }) else {
                    queue += outbox.shown(.summary)
                    continue
                }
                effects.append(.show(MessageRenderer(config: config).summary(of: lines.map { ($0.kind, $0.due, $0.title) },
                                                                             reason: summary.reason, zone: localZone, now: now)))
            case .job(let id):
                guard let name = name(of: id) else {  // cancelled meanwhile
                    queue += outbox.shown(item.subject)
                    continue
                }
                let ahead = update(id) { record -> LoadedJob? in
                    defer { record.readAhead = nil }
                    guard case .read(let read, let job)? = record.readAhead, read == name else {
                        record.phase = .loading(due: item.due)
                        return nil
                    }
                    return job
                }
                if let ahead {
                    effects += decide(ahead, name: name, due: item.due, now: now)
                    continue
                }
                effects.append(.load(LoadRequest(name: name, purpose: .fire(due: item.due))))
            }
        }
        return effects
    }

    mutating func loaded(_ request: LoadRequest, _ result: Result<LoadedJob, SpoolFileError>, now: Instant) -> [EngineEffect] {
        switch request.purpose {
        case .readAhead:
            // Kept only while it is still the job's state; few records hold one (the job due
            // next, and the next few waiting their turn in a burst).
            if case .success(let loaded) = result, loaded.job.kind != .habit, name(of: request.id) == request.name {
                // Its turn came while it was read: this read serves it (the second read's answer
                // then finds it no longer loading, and is dropped).
                if case .loading(let due)? = records[request.id]?.phase {
                    return self.loaded(LoadRequest(name: request.name, purpose: .fire(due: due)), result, now: now)
                }
                update(request.id) { if !$0.isBusy { $0.readAhead = .read(name: request.name, job: loaded) } }
            }
            return []
        case .action(let action, let occurrence):
            guard case .success(let loaded) = result else {
                logger.notice("Button pressed for a job that is gone", metadata: ["job.id": "\(request.id)"])
                return []
            }
            return completeAction(action, job: loaded, id: request.id, occurrence: occurrence, now: now)
        case .request(let ticket, let clientRequest):
            return requestLoaded(clientRequest, ticket: ticket, load: request, result, now: now)
        case .fire:
            let id = request.id
            let due: Instant? = update(id) { record in
                guard case .loading(let due) = record.phase else { return nil }
                record.phase = .idle
                return due
            }
            guard let due else { return [] }
            let name = request.name
            guard self.name(of: id) == name else {
                // Cancelled, or snoozed or rescheduled from the CLI, while it was read.
                if let moved = self.name(of: id) { records.schedule(id, at: moved.fireAt) }
                return takeUp(outbox.shown(.job(id)), now: now)
            }
            switch result {
            case .success(let loaded):
                return decide(loaded, name: name, due: due, now: now)
            case .failure(.missing):
                // Moved or removed by another program as it was read; inotify reports where to.
                forget(id)
                return takeUp(outbox.shown(.job(id)), now: now)
            case .failure(let error):
                forget(id)
                let effects = [
                    quarantineJobFile(name.description, reason: error.description, redacted: error.redacted),
                    EngineEffect.spool(.appendHistory(HistoryRecord(time: now, id: id, kind: nil, role: nil, due: due,
                                                                    outcome: .failed, note: error.redacted))),
                ]
                return effects + takeUp(outbox.shown(.job(id)), now: now)
            }
        }
    }

    /// Asks for the next due job's document ahead of its time, once per state of that job.
    mutating func readAheadOfNext() -> EngineEffect? {
        guard !outbox.isBlocked, let next = records.next() else { return nil }
        return readAhead(next.id)
    }

    /// Asks for job `id`'s document ahead of its turn, unless it is busy, being filed, or has
    /// it (or asked for it) in its current state: one read under way per job at most.
    mutating func readAhead(_ id: String) -> EngineEffect? {
        guard let record = records[id], let name = record.name, !record.isBusy, !record.isFiling else { return nil }
        switch record.readAhead {
        case .read(let read, _)? where read == name, .asked(let read)? where read == name: return nil
        default: break
        }
        update(id) { $0.readAhead = .asked(name: name) }
        return .load(LoadRequest(name: name, purpose: .readAhead))
    }

    /// How many jobs waiting their turn in the outbox have their documents read ahead.
    static let readAheadDepth = 16

    /// Asks for the documents of the next jobs waiting their turn (a burst of due popups), so
    /// each goes to the notifier as soon as the one before is shown, without a read between.
    mutating func readAheadOfOutbox() -> [EngineEffect] {
        guard !outbox.isBlocked else { return [] }  // nothing goes out until the server is back
        var effects: [EngineEffect] = []
        for case .job(let id) in outbox.unseenUpcoming(Self.readAheadDepth).map(\.subject) {
            if let load = readAhead(id) { effects.append(load) }
        }
        return effects
    }

    /// Decides what becomes of a due occurrence whose document was read: shown, held for the
    /// summary, or settled without a popup (missed, skipped).
    mutating func decide(_ loaded: LoadedJob, name: JobFileName, due: Instant, now: Instant) -> [EngineEffect] {
        let job = loaded.job
        let schedule: JobSchedule
        do { schedule = try JobSchedule(job, localZone: localZone, defaultLead: config.lead) } catch {
            forget(name.id)
            return [quarantineJobFile(name.description, reason: error.description, redacted: error.reason)]
                + takeUp(outbox.shown(.job(name.id)), now: now)
        }
        let firing = Firing(name: name, job: job, schedule: schedule, due: due)
        noteWaker(name.id, kind: job.kind, wake: job.wake)
        let occurrence = DueOccurrence(job: job, schedule: schedule, name: name, habitLog: loaded.habitLog, weekStart: config.weekStart)
        if let log = loaded.habitLog { reportLogProblems(log, id: name.id) }
        let settled: [EngineEffect]
        let wasGathered = update(name.id) { record -> Bool in defer { record.gathered = false }; return record.gathered }
        let crowd = crowded(name.id)
        if let limit = server.traits?.perAppLimit {
            logger.debug("Popups on screen", metadata: ["job.id": "\(name.id)", "limit": "\(limit)", "crowded": "\(crowd)",
                                                        "own": "\(records[name.id]?.popup != nil)"])
        }
        // Quiet time holds popups, never commands: a run too late is missed whatever the hour.
        if now - name.fireAt > config.catchUpGrace && (job.kind == .run || !heldByQuiet(name.fireAt, now: now)) && !occurrence.isStillAhead(now: now) {
            // Came due while Herald was down or the machine asleep, too long ago to show.
            settled = settle(firing, outcome: .missed, now: now, note: "late by \(TimeSpan.humanize(now - name.fireAt))")
        } else if let skip = Self.passedWarning(occurrence, now: now) ?? job.kind.rules.skipReason(occurrence, now: now) {
            settled = settle(firing, outcome: .skipped, now: now, note: skip.note, resumeAfter: skip.resumeAfter)
        } else if job.kind == .run {
            return startRunning(firing, now: now)
        } else if !job.kind.rules.ringsWhenQuiet(job, config: config)
                    && (!Self.showsWhenQuiet(job, config: config) && (wasGathered || quiet.isQuiet(at: now, zone: localZone)) || crowd) {
            // Quiet time, one of a crowd after a break, or more popups than the server keeps
            // (GNOME Shell: 3 per app, the oldest closed for room): kept for one summary popup.
            // The file keeps its name, so a restart meanwhile holds it again (never lost).
            update(name.id) { $0.phase = .held(firing) }
            let ends: Instant? = { if case .some(let end?) = quiet.end(containing: now, zone: localZone) { return end } else { return nil } }()
            summary.hold(name.id, reason: !wasGathered && !quiet.isQuiet(at: now, zone: localZone) ? .crowd : .away, quietEnds: ends)
            logger.info("Popup held for a summary", metadata: ["job.id": "\(name.id)", "quiet": "\(!wasGathered)"])
            return takeUp(outbox.shown(.job(name.id)) + releaseHeld(now: now), now: now)
        } else {
            update(name.id) { $0.phase = .showing(firing) }
            let request = MessageRenderer(config: config).render(occurrence, now: now)
            logger.debug("Showing notification",
                         metadata: ["job.id": "\(name.id)", "summary": "\(request.summary)", "body": "\(request.body)"])
            return [.show(request)]
        }
        // Settled without a popup: the next occurrence may be due already (an arrival after its skipped heads-up).
        if job.kind == .run { return settled + releaseOutboxSlot(name.id, now: now) + tick(now: now) }
        return settled + takeUp(outbox.shown(.job(name.id)), now: now) + tick(now: now)
    }

    /// The notifier finished with a popup.
    mutating func shown(_ subject: PopupSubject, _ result: Result<Void, NotifierError>, now: Instant) -> [EngineEffect] {
        switch result {
        case .success:
            if server.lastError != nil {
                logger.notice("Notifications are getting through again")
                server.lastError = nil
                server.lastErrorAt = nil
            }
            var effects: [EngineEffect] = []
            switch subject {
            case .run: break  // routed to runPopupShown
            case .summary:
                var repeats: [Firing] = []
                for f in takeSummarised() {
                    // A repeating reminder goes on repeating, as its own popup would.
                    effects += settle(f, outcome: .shown, now: now, note: "in a summary")
                    if repeatTime(f, now: now) != nil, name(of: f.name.id)?.snoozedUntil != nil { repeats.append(f) }
                }
                summary.shown(repeats: repeats)
            case .job(let id):
                guard let record = records[id] else { break }
                if case .refreshing(let firing)? = record.popup {
                    update(id) { $0.popup = .onScreen(firing) }  // the same occurrence with a new amount: no new history line
                } else if case .showing(let firing) = record.phase {
                    // One popup per job: the server replaced the one still on screen in place.
                    if let previous = record.popup { effects.append(ending(previous.firing, .replaced, now: now)) }
                    update(id) { $0.phase = .idle; $0.popup = .onScreen(firing) }
                    notePopup(id)
                    startRinging(firing, now: now)
                    effects += self.settle(firing, outcome: .shown, now: now)
                }
            }
            return effects + takeUp(outbox.shown(subject), now: now)
        case .failure(let error):
            switch subject {
            case .run: break
            case .summary:  // shown again at the retry
                let back = takeSummarised()
                for f in back { update(f.name.id) { $0.phase = .held(f) } }
                summary.failed(heldAgain: back.map(\.name.id))
            case .job(let id):
                update(id) { record in
                    if case .showing = record.phase { record.phase = .idle }
                    if case .refreshing? = record.popup { record.popup = nil }
                }
            }
            let actions = outbox.failed(subject, now: now)
            if server.lastError != error {
                logger.warning("Cannot show notifications; due jobs wait and are retried",
                               metadata: ["error": "\(error)", "retry.at": "\(outbox.retryAt.map { "\($0)" } ?? "-")"])
            }
            server.lastError = error
            server.lastErrorAt = now
            return takeUp(actions, now: now)
        }
    }

    /// Moves a job past the occurrence that just fired (or was skipped) and logs it; with
    /// `resumeAfter`, a recurring job skips everything up to that time.
    /// A run's start writes no line (`history: false`): its end does.
    mutating func settle(_ f: Firing, outcome: HistoryRecord.Outcome, now: Instant, note: String? = nil,
                         resumeAfter: Instant? = nil, mayRepeat: Bool = true, history: Bool = true) -> [EngineEffect] {
        let id = f.name.id
        let role = f.schedule.role(of: f.name.occurrence)
        var effects: [EngineEffect] = history ? [
            .spool(.appendHistory(HistoryRecord(time: now, id: id, kind: f.job.kind, role: role, due: f.name.occurrence,
                                                outcome: outcome, title: HistoryRecord.title(of: f.job) ?? f.job.command?.label(title: nil),
                                                note: note))),
        ] : []
        guard name(of: id) == f.name else {
            if let moved = name(of: id) {
                records.schedule(id, at: moved.fireAt)  // snoozed or rescheduled while it fired
            } else {
                logger.info("Job was cancelled while it fired", metadata: ["job.id": "\(id)"])
            }
            return effects
        }
        let next = f.schedule.next(after: max(f.name.occurrence, resumeAfter ?? f.name.occurrence), now: now)
        if outcome == .shown, mayRepeat, let again = repeatTime(f, now: now), next.map({ again < $0 }) ?? true {
            // Shows again until acknowledged; the state is a snooze of the same occurrence.
            effects.append(move(f.name, to: JobFileName(id: id, occurrence: f.name.occurrence, snoozedUntil: again)))
            logger.info("Job fired; repeats until acknowledged", metadata: ["job.id": "\(id)", "again": "\(again)"])
            return effects
        }
        if let next {
            effects.append(move(f.name, to: JobFileName(id: id, occurrence: next)))
        } else {
            update(id) { $0.name = nil }
            records.unschedule(id)
            effects.append(.spool(.finish(f.name)))
        }
        let lateMs = (now - f.due).microseconds / 1000
        logger.info(outcome == .shown || outcome == .ran ? "Job fired" : outcome == .missed ? "Job occurrence missed" : "Job occurrence skipped",
                    metadata: ["job.id": "\(id)", "job.kind": "\(f.job.kind.rawValue)", "job.role": "\(role.rawValue)",
                               "late.ms": "\(lateMs)"])
        return effects
    }

    /// When a `repeat` reminder shown at `now` shows again; nil when it does not (no repeat,
    /// or `popups.maxRepeats` reached: the count is the time since the occurrence over the span).
    func repeatTime(_ f: Firing, now: Instant) -> Instant? {
        // A popup that rings keeps its file at the ring's end until it is stopped (or the ring
        // ends, `ringsRanOut`): a heraldd stopped meanwhile rings it again then, never loses it.
        if f.schedule.role(of: f.name.occurrence) != .warning, let ring = f.job.kind.rules.ringsFor(f.job, config: config) {
            return now + ring
        }
        guard let span = f.job.repeat, f.job.kind == .reminder, span > .zero,
              f.schedule.role(of: f.name.occurrence) == .reminder else { return nil }  // warnings do not repeat
        let shownAgain = (f.name.fireAt - f.name.occurrence).microseconds / span.microseconds  // 0 at the first popup
        guard shownAgain < Int64(config.popups.maxRepeats) else { return nil }
        return now + span
    }

    /// Whether an occurrence due at `due` was held back by quiet time that is still on or ended
    /// within the catch-up grace: it goes into the summary instead of being missed.
    func heldByQuiet(_ due: Instant, now: Instant) -> Bool {
        guard case .some(let end) = quiet.end(containing: due, zone: localZone) else { return false }
        guard let end else { return true }
        return now < end || now - end <= config.catchUpGrace
    }

    /// Puts the summary of held popups in the outbox once nothing more is being gathered and
    /// it is no longer quiet.
    mutating func releaseHeld(now: Instant) -> [Outbox.Action] {
        guard summary.isReady(gathering: records.gatheredCount, quiet: quiet.isQuiet(at: now, zone: localZone)) else { return [] }
        logger.info("Showing a summary of held popups", metadata: ["count": "\(summary.held.count)"])
        summary.queue()
        return outbox.enqueue([Outbox.Item(.summary, due: now)])
    }

    /// A server that never reports its popups closed must not make the engine remember them
    /// all: past `maximumPopups`, the oldest are forgotten (a button on one is then only logged).
    mutating func notePopup(_ id: String) {
        server.popupOrder.append(id)
        guard server.popupOrder.count > 2 * Self.maximumPopups else { return }
        var order = server.popupOrder.filter { records[$0]?.popup != nil }
        var seen = Set<String>()
        order = order.reversed().filter { seen.insert($0).inserted }.reversed()
        while order.count > Self.maximumPopups { update(order.removeFirst()) { $0.popup = nil } }
        server.popupOrder = order
    }

    static let maximumPopups = 4096

    /// The summary left the screen: clicked or dismissed, it acknowledges the repeating
    /// reminders in it; otherwise (expired, closed by Herald, the server gone) they go on.
    mutating func summaryEnded(acknowledged: Bool, now: Instant) -> [EngineEffect] {
        let repeating = summary.ended()
        guard acknowledged else { return [] }
        var effects: [EngineEffect] = []
        for f in repeating {
            effects.append(ending(f, .done, now: now, note: "the summary"))
            effects += acknowledge(f, now: now)
        }
        return effects.isEmpty ? [] : effects + tick(now: now)
    }

    /// Whether job `id`'s popup would be one more than the server keeps from Herald: one place
    /// is kept for the summary that takes the rest (a popup that replaces the job's own, in
    /// place, takes none).
    func crowded(_ id: String) -> Bool {
        guard let limit = server.traits?.perAppLimit, limit >= 2, records[id]?.popup == nil else { return false }
        var seen = Set<String>()
        // Popups handed to the notifier and not yet answered (the outbox's window) will be on
        // screen as soon as they are.
        for case .job(let other) in outbox.inFlightSubjects where other != id {
            if case .showing? = records[other]?.phase { seen.insert(other) }
        }
        if seen.count >= limit - 1 { return true }
        for other in server.popupOrder.reversed() where records[other]?.popup != nil && seen.insert(other).inserted {
            if seen.count >= limit - 1 { return true }
        }
        return false
    }

    /// The jobs in the summary popup, in its order; they are no longer `.summarised`.
    mutating func takeSummarised() -> [Firing] {
        summary.takeSent().compactMap { id in
            update(id) { record -> Firing? in
                guard case .summarised(let f) = record.phase else { return nil }
                record.phase = .idle
                return f
            }
        }
    }

    /// A line for the history saying how a popup ended.
    func ending(_ f: Firing, _ outcome: HistoryRecord.Outcome, now: Instant, note: String? = nil) -> EngineEffect {
        .spool(.appendHistory(HistoryRecord(time: now, id: f.name.id, kind: f.job.kind, role: f.schedule.role(of: f.name.occurrence),
                                            due: f.name.occurrence, outcome: outcome, title: HistoryRecord.title(of: f.job),
                                            note: note)))
    }

    /// Whether quiet time lets the job's popup through: a critical one does, except a kind
    /// that rings and is configured to be held (`alarms.duringQuiet: hold`).
    static func showsWhenQuiet(_ job: Job, config: HeraldConfig) -> Bool {
        if job.kind.rules.ringsFor(job, config: config) != nil { return job.kind.rules.ringsWhenQuiet(job, config: config) }
        return job.effectiveUrgency(config) == .critical
    }

    /// A warning whose occurrence is already due would only repeat it.
    static func passedWarning(_ occurrence: DueOccurrence, now: Instant) -> Skip? {
        guard occurrence.role == .warning, occurrence.name.snoozedUntil == nil,
              let target = occurrence.schedule.target(ofWarning: occurrence.occurrence), now >= target else { return nil }
        return Skip(note: "already due")
    }

    /// The job's line in a summary popup: its history title, else what it is.
    static func title(of job: Job, role: OccurrenceRole?) -> String {
        if let t = HistoryRecord.title(of: job), !t.isEmpty { return t }
        if job.kind == .delivery { return role == .headsUp ? "Delivery heads-up" : "Delivery" }
        return job.kind.rawValue
    }

    mutating func reportLogProblems(_ log: HabitLog.Contents, id: String) {
        guard !log.problems.isEmpty else { return }
        logger.warning("Habit log has unreadable lines; they are ignored",
                       metadata: ["job.id": "\(id)", "file": "habits/\(id).jsonl", "problem": "\(log.problems[0])"])
    }
}
