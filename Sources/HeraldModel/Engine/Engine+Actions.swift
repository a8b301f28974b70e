extension Engine {
    /// A button was pressed on a popup, or its body clicked. Each ends the popup with an outcome
    /// in the history. Snooze shows it again after the chosen span (kept in the job's file
    /// name, so it survives a restart); Done, Got it and the body click acknowledge it (a
    /// repeating reminder stops); Track also opens the job's `url`; a habit's Done needs the
    /// job's log first and finishes in `completeAction`.
    mutating func actionInvoked(_ pressed: NotificationAction, now: Instant) -> [EngineEffect] {
        guard case .job(let id) = PopupSubject(key: pressed.jobID) else {  // the summary's lines are recorded already
            return summaryEnded(acknowledged: true, now: now)
        }
        // The button's popup, if it is still the one on screen; pressing ends it.
        let popup: Firing? = update(id) { record in
            guard case .onScreen(let f)? = record.popup, f.name.occurrence == pressed.occurrence else { return nil }
            record.popup = nil
            return f
        }
        switch pressed.action {
        case .snooze(let span):
            if popup != nil { rings.stop(id) }
            let length = span ?? popup.map { $0.job.kind.rules.snoozeSpan(of: $0.job, config: config) } ?? config.snooze
            return snooze(id, occurrence: pressed.occurrence, popup: popup, length: length, outcome: .snoozed, now: now) + tick(now: now)
        case .add(let amount):
            guard let popup, popup.job.target != nil, let name = name(of: id) else { return [] }
            update(id) { $0.popup = .adding(popup) }
            return [.load(LoadRequest(name: name, purpose: .action(.add(amount), occurrence: pressed.occurrence)))]
        case .showOutput, .runAgain:  // a result popup's (routed before this); a job's popup has none
            return []
        case .done, .gotIt, .dismiss, .body, .track, .stop:
            if popup != nil { rings.stop(id, answered: true) }
            var effects: [EngineEffect] = []
            if pressed.action == .track, let url = popup?.job.url { effects.append(.open(url: url)) }
            if let popup {
                // A habit's body click closes it without marking the day.
                let outcome: HistoryRecord.Outcome = pressed.action == .body && popup.job.kind == .habit ? .dismissed : .done
                effects.append(ending(popup, outcome, now: now, note: pressed.action == .track ? "tracked" : nil))
                effects += acknowledge(popup, now: now)
                effects += writeBack(popup, pressed.action == .done ? .completed : .acknowledged, now: now)
            }
            if pressed.action == .done, popup.map({ $0.job.kind == .habit }) ?? true, let name = name(of: id) {
                effects.append(.load(LoadRequest(name: name, purpose: .action(.done, occurrence: pressed.occurrence))))
            } else if popup == nil {
                logger.notice("Button pressed for a popup no longer known", metadata: ["job.id": "\(id)"])
            }
            return effects + tick(now: now)
        }
    }

    /// A popup left the screen without a button: the server's time ran out (expired), or the
    /// user closed it (dismissed, which acknowledges a repeating reminder).
    mutating func popupClosed(_ subject: PopupSubject, occurrence: Instant, _ reason: CloseReason, now: Instant) -> [EngineEffect] {
        // Herald closes a popup only after it has already settled it (a button, or a change from
        // the CLI); that closing, which may come late, says nothing about the popup now on screen.
        guard case .job(let id) = subject else { return summaryEnded(acknowledged: reason == .dismissed, now: now) }
        let popup: Firing? = update(id) { record in
            guard reason != .closedByHerald, case .onScreen(let f)? = record.popup, f.name.occurrence == occurrence else { return nil }
            record.popup = nil
            return f
        }
        guard let popup else { return [] }
        rings.stop(id, answered: reason == .dismissed)
        if reason == .expired { return [ending(popup, .expired, now: now)] }
        // The server closed it to make room for a newer one (GNOME Shell keeps 3 per app): it was
        // seen as much as any; not acknowledged.
        if reason == .forRoom { return [ending(popup, .replaced, now: now, note: "closed by the server for room")] }
        return [ending(popup, .dismissed, now: now)] + acknowledge(popup, now: now) + writeBack(popup, .acknowledged, now: now)
            + tick(now: now)
    }

    /// Puts job `id` off for `length` from now (its popup of `occurrence`, if any, ends with
    /// `outcome`): the button, or an alarm that rang unanswered.
    mutating func snooze(_ id: String, occurrence: Instant, popup: Firing?, length: Span, outcome: HistoryRecord.Outcome,
                         note: String? = nil, now: Instant) -> [EngineEffect] {
        guard let target = JobFileName.snoozed(id: id, pending: name(of: id), lastShown: occurrence, now: now, length: length) else { return [] }
        logger.info("Snoozed", metadata: ["job.id": "\(id)", "until": "\(target.fireAt)"])
        var effects = popup.map { [ending($0, outcome, now: now, note: (note.map { $0 + "; " } ?? "") + "until \(target.fireAt)")] } ?? []
        if let popup {
            effects += writeBack(popup, .snoozed(until: target.fireAt), now: now)
            noteWaker(id, kind: popup.job.kind, wake: popup.job.wake)  // a finished one-shot comes back
        }
        if let pending = name(of: id) { return effects + [move(pending, to: target)] }
        // A one-shot that finished comes back from done/, under the name it finished with (a
        // snoozed one's too).
        ownNames.insert(target)
        adopt(target)
        effects.append(.spool(.restore(from: popup?.name ?? JobFileName(id: id, occurrence: occurrence), to: target)))
        return effects
    }

    /// A repeating reminder was acknowledged: it stops repeating and moves on to its next
    /// occurrence (or finishes).
    mutating func acknowledge(_ popup: Firing, now: Instant) -> [EngineEffect] {
        let id = popup.name.id
        guard popup.job.repeat != nil || popup.job.rings, let record = records[id], let pending = record.name,
              pending.occurrence == popup.name.occurrence,
              pending.snoozedUntil != nil, !record.isBusy else { return [] }
        guard let step = JobDecision.acknowledge(pending, job: popup.job, schedule: popup.schedule, now: now) else { return [] }
        logger.info("Repeats acknowledged", metadata: ["job.id": "\(id)"])
        return [take(step, from: pending)]
    }

    /// Carries out a `JobDecision.Step` for the pending state `pending`.
    mutating func take(_ step: JobDecision.Step, from pending: JobFileName) -> EngineEffect {
        switch step {
        case .move(let to): return move(pending, to: to)
        case .finish:
            forget(pending.id)
            return .spool(.finish(pending))
        }
    }

    /// Done on a habit's popup records one completion for the popup's day, once; "+1" adds to
    /// a measurable habit's day and shows the popup again with the new amount.
    mutating func completeAction(_ action: PopupAction, job loaded: LoadedJob, id: String, occurrence: Instant, now: Instant) -> [EngineEffect] {
        guard loaded.job.kind == .habit, let schedule = try? JobSchedule(loaded.job, localZone: localZone) else { return [] }
        let day = LocalDate(occurrence, in: schedule.zone)
        switch action {
        case .done:
            guard !(loaded.habitLog?.days.contains(day) ?? false) else { return [] }
            logger.info("Habit done", metadata: ["job.id": "\(id)", "day": "\(day)"])
            return [.spool(.appendHabitLog(id: id, HabitLog.Entry(date: day, done: true, at: now, by: "popup")))]
        case .add(let amount):
            let entry = HabitLog.Entry(date: day, change: .add(Double(amount)), at: now, by: "popup")
            var effects: [EngineEffect] = [.spool(.appendHabitLog(id: id, entry))]
            logger.info("Habit amount added", metadata: ["job.id": "\(id)", "day": "\(day)"])
            let popup: Firing? = update(id) { record in
                guard case .adding(let f)? = record.popup else { return nil }
                record.popup = nil
                return f
            }
            guard let popup else { return effects }
            var contents = loaded.habitLog ?? .init()
            contents.apply(entry)
            let again = Firing(name: popup.name, job: loaded.job, schedule: schedule, due: popup.due)
            update(id) { $0.popup = .refreshing(again) }
            let shown = DueOccurrence(job: loaded.job, schedule: schedule, name: popup.name, habitLog: contents, weekStart: config.weekStart)
            effects.append(.show(MessageRenderer(config: config).render(shown, now: now)))
            return effects
        default:
            return []
        }
    }
}
