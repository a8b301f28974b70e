/// The daemon's decisions, without its shell: given an event and the time, what changes and
/// what must be done. A value-type state machine in the style of hummingbird's: it does no I/O,
/// reads no clock and owns no timer. heraldd feeds it events on one serial queue and carries out
/// the `EngineEffect`s it returns on the queues that suit them; tests drive it with a manual clock.
///
/// The engine's picture of the spool runs ahead of the disk: it updates its state as it asks
/// for a rename, and a failed rename comes back as `.operationFailed`.
public struct Engine: Sendable {
    public private(set) var config: HeraldConfig
    /// The zone for jobs that name none (the system's; changes with /etc/localtime).
    public internal(set) var localZone: TimeZoneRules
    /// What this event logged so far (returned as `.log` effects).
    var logger: EngineLog

    /// One record per job, by id, with the one index of their due times (JobRecords.swift);
    /// it counts the pending jobs itself.
    var records = JobRecords()
    /// Due jobs on their way to the notifier, and the retry after a failure (Outbox.swift).
    var outbox = Outbox()
    /// Names the engine asked to create in `jobs/`, until inotify reports them: so its own
    /// renames, reported late, are not taken for someone else's. Not a job's state (that is
    /// its record) but an echo filter on the directory.
    var ownNames: Set<JobFileName> = []
    /// The summary popup: the jobs held for it, the one on its way, the one on screen.
    var summary = Summary()
    /// Batches of `new/` being taken in, part by part.
    var batches = BatchIntake()
    /// Single files of `new/` being moved or refused (Engine+Intake.swift, `FilesInFlight`).
    var filesInFlight = FilesInFlight()
    /// Quiet hours, the do-not-disturb switch and the desktop's do-not-disturb.
    var quiet: QuietState
    /// The notification server as the engine knows it.
    var server = ServerView()
    /// The wake-up last asked of the shell.
    var armedWakeup = ArmedWakeup.neverAsked
    /// Popups that ring (alarms), until when (Engine+Ringing.swift).
    var rings = Rings()
    /// The pending jobs that wake the machine from suspend, and the wake last asked for.
    var wakers = Set<String>()
    var armedWake = ArmedWakeup.asked(nil)  // heraldd starts with its wake timer disarmed
    /// A waking job changed (or the set did) since the wake was last worked out: it is worked
    /// out again only then, or once its instant has passed, never by a walk at every event.
    var wakeDirty = false
    /// The run jobs known as such (from their intake, a read, or the pack scan at start): due,
    /// they go straight to their document and the runner, never waiting in the popups' outbox.
    var commandJobs = Set<String>()
    /// Run jobs cancelled while their run was being started: the run is stopped once started.
    var stopWhenStarted = Set<String>()
    /// Result popups of commands on screen, by job (Engine+Running.swift).
    var runPopups: [String: RunEnd] = [:]
    /// Where ids for job files without one come from.
    var ids: SeededGenerator

    /// The notification server's traits, once the notifier has described it.
    public var serverTraits: ServerTraits? { server.traits }
    /// The desktop's do-not-disturb as last reported (kept when `quietWithDesktop` is off, for status).
    public var desktopQuiet: DesktopQuiet? { quiet.reported }
    /// The last notification failure, while it is unresolved, and when it came.
    public var lastError: NotifierError? { server.lastError }
    public var lastErrorAt: Instant? { server.lastErrorAt }

    /// - Parameters:
    ///   - logLevel: the least level of the `.log` effects it returns.
    ///   - seed: the start of the ids it draws for job files without one (heraldd passes a
    ///     random one; the engine itself draws nothing from the system).
    public init(config: HeraldConfig, localZone: TimeZoneRules = .utc, logLevel: HeraldConfig.LogLevel = .info, seed: UInt64 = 0) {
        self.config = config
        self.localZone = localZone
        self.logger = EngineLog(level: logLevel)
        self.ids = SeededGenerator(seed: seed)
        self.quiet = QuietState(hours: config.quietHours)
    }

    /// The desktop's do-not-disturb counts as quiet time when the config says so.
    mutating func applyDesktopQuiet() { quiet.desktop = config.quietWithDesktop ? quiet.reported : nil }

    /// The do-not-disturb switch as heraldd starts (read before `.started`).
    public mutating func setQuietSwitch(_ manual: QuietSwitch?) { quiet.manual = manual }

    // MARK: queries

    /// How many jobs are pending (scheduled, being filed, waiting for the server, or being shown).
    public var pendingCount: Int { records.namedCount }
    /// Every accepted job's current file name, by id.
    public var currentNames: [String: JobFileName] {
        var names: [String: JobFileName] = [:]
        records.forEach { id, record in if let name = record.name { names[id] = name } }
        return names
    }
    /// Whether popups are held back because the notification server failed.
    public var isBlocked: Bool { outbox.isBlocked }
    public var retryAt: Instant? { outbox.retryAt }

    /// When the engine next needs `.timerFired`: the earliest due job or notifier retry.
    public func nextWakeup() -> Instant? {
        wakeup(due: outbox.isBlocked ? nil : records.peekDeadline())
    }

    private func wakeup(due: Instant?) -> Instant? {
        [due, outbox.retryAt, summary.wakeup, rings.nextEnd, wakeAheadEnds].compactMap { $0 }.min()
    }

    /// When the machine's wake, armed `alarms.wakeAhead` early, has passed: the engine looks
    /// again then, and arms the job's own time, so a machine put to sleep in between still
    /// wakes for it.
    var wakeAheadEnds: Instant? { if case .asked(let at?) = armedWake { return at } else { return nil } }

    /// The earliest due time of any scheduled job (for status), ignoring retries.
    public func nextDue() -> Instant? { records.peekDeadline() }

    // MARK: events

    /// Takes one event at `now` and returns what to do, ending with `.armTimer` when the next
    /// wake-up moved.
    public mutating func handle(_ event: EngineEvent, now: Instant) -> [EngineEffect] {
        var effects: [EngineEffect]
        switch event {
        case .started(let jobs, let strays): effects = start(jobs: jobs, strays: strays, now: now)
        case .timerFired: effects = tick(now: now)
        case .clockChanged:
            logger.notice("Clock changed; re-evaluating due times", metadata: ["now": "\(now)"])
            effects = tick(now: now, afterBreak: true)
        case .resumed:
            logger.notice("Resumed from sleep; re-evaluating due times", metadata: ["now": "\(now)"])
            effects = tick(now: now, afterBreak: true)
        case .wakersFound(let found):
            for (id, kind, wake) in found where records[id]?.name != nil { noteWaker(id, kind: kind, wake: wake) }
            effects = []
        case .intakeAppeared(let names):
            let visible = names.filter { !$0.hasPrefix(".") }
            effects = visible.isEmpty ? [] : [.readIntake(intakeRequest(visible))]
        case .intakeRead(let files): effects = intake(files, now: now)
        case .filed(let result): effects = filed(result, now: now)
        case .jobsChanged(let changes): effects = jobsChanged(changes, now: now)
        case .watchOverflowed:
            logger.notice("inotify queue overflowed; rescanning the spool")
            // Jobs that change while jobs/ is listed are left out of the comparison.
            records.recordChanges()
            effects = [.readIntake(intakeRequest(nil)), .listJobs]
        case .jobsListed(let names): effects = jobsListed(names, now: now)
        case .loaded(let request, let result): effects = loaded(request, result, now: now)
        case .shown(let key, let result):
            if case .run(let id) = PopupSubject(key: key) { effects = runPopupShown(id, result); break }
            effects = shown(PopupSubject(key: key), result, now: now)
        case .serverGone: effects = serverGone()
        case .serverAppeared:
            // Popups on screen now are the new server's (it may have been started by one of them).
            effects = takeUp(outbox.serverAppeared(), now: now)
        case .serverDescribed(let traits):
            server.traits = traits
            effects = []
        case .desktopQuietChanged(let desktop):
            guard desktop != nil || quiet.reported != nil else { effects = []; break }
            quiet.reported = desktop.map { DesktopQuiet(since: min($0.since, now), source: $0.source) }
            applyDesktopQuiet()
            logger.info(desktop == nil ? "The desktop's do-not-disturb went off" : "The desktop's do-not-disturb went on",
                        metadata: ["source": "\(desktop?.source ?? "-")", "followed": "\(config.quietWithDesktop)"])
            effects = tick(now: now)
        case .popup(.action(let action)):
            if case .run(let id) = PopupSubject(key: action.jobID) { effects = runPopupAction(id, action, now: now); break }
            effects = actionInvoked(action, now: now)
        case .popup(.closed(let key, let occurrence, let reason)):
            if case .run(let id) = PopupSubject(key: key) {
                if runPopups[id]?.occurrence == occurrence { runPopups[id] = nil }
                effects = []
                break
            }
            effects = popupClosed(PopupSubject(key: key), occurrence: occurrence, reason, now: now)
        case .runStarted(let id, let occurrence, let outcome): effects = runStarted(id: id, occurrence: occurrence, outcome, now: now)
        case .runEnded(let end): effects = runEnded(end, now: now)
        case .quietSwitched(let manual):
            quiet.manual = manual
            logger.info(manual.map { $0.contains(now) ? "Quiet switched on" : "Quiet switched off" } ?? "Quiet switch removed")
            effects = tick(now: now)
        case .localZoneChanged(let zone, let jobs): effects = localZoneChanged(to: zone, jobs: jobs, now: now)
        case .configReloaded(let config):
            // Other kinds wake the machine now: heraldd looks for the waking jobs again
            // (`wakersFound`); until then only those it knows from their own `wake` would.
            if config.alarms.wakeKinds != self.config.alarms.wakeKinds { wakers.removeAll() }
            wakeDirty = true
            self.config = config
            logger = EngineLog(level: config.logLevel)  // as heraldd's own logger
            quiet.hours = config.quietHours
            applyDesktopQuiet()
            effects = tick(now: now)
        case .operationFailed(let operation, let error): effects = operationFailed(operation, error)
        case .request(let ticket, let clientRequest): effects = request(clientRequest, ticket: ticket, now: now)
        }
        if let ahead = readAheadOfNext() { effects.append(ahead) }
        effects += readAheadOfOutbox()
        // Stale entries leave the top of the due index here, so queries on copies stay O(1).
        let wake = wakeup(due: outbox.isBlocked ? nil : records.nextDeadline())
        if armedWakeup != .asked(wake) {
            armedWakeup = .asked(wake)
            effects.append(.armTimer(wake))
        }
        let wakePassed: Bool = { if case .asked(let at?) = armedWake { return at <= now } else { return false } }()
        if wakeDirty || wakePassed {
            wakeDirty = false
            let machine = nextWake(now: now)
            if armedWake != .asked(machine) {
                armedWake = .asked(machine)
                effects.append(.armWake(machine))
            }
        }
        return logger.lines.isEmpty ? effects : logger.drain() + effects
    }

    /// Adopts what `jobs/` holds, asks for `new/` to be read, and fires what is already due.
    mutating func start(jobs: [JobFileName], strays: [String], now: Instant) -> [EngineEffect] {
        var effects: [EngineEffect] = []
        // Straight into the records (no second table of all names: at a million jobs it was
        // the start's peak memory).
        records = JobRecords()
        for drop in records.load(jobs) {
            effects.append(quarantineJobFile(drop.description, reason: "a second copy of job '\(drop.id)'"))
        }
        for stray in strays where !stray.hasPrefix(".") {
            effects.append(quarantineJobFile(stray, reason: "not a job file name as heraldd writes them (<id>@<microseconds>[@<microseconds>].json, no sign or leading zeros)"))
        }
        records.scheduleAllNamed()
        logger.info("Spool loaded", metadata: ["jobs.pending": "\(records.namedCount)"])
        effects.append(.readIntake(intakeRequest(nil)))
        return effects + tick(now: now, afterBreak: true)
    }

    /// Fires everything due: the timer went off, or something changed. `afterBreak`: heraldd
    /// just started or the machine woke, so a crowd of overdue popups becomes one summary.
    mutating func tick(now: Instant, afterBreak: Bool = false) -> [EngineEffect] {
        let rang = rings.isEmpty ? [] : ringsRanOut(now: now)
        var actions = outbox.retry(now: now)
        var due: [Outbox.Item] = []
        var direct: [EngineEffect] = []
        for (id, at) in records.takeDue(now: now) {
            // A job still being filed fires once it is in jobs/ (`filed` schedules it again).
            if records[id]?.isFiling ?? true { continue }
            if !commandJobs.isEmpty, commandJobs.contains(id), let name = name(of: id), !(records[id]?.isBusy ?? true) {
                update(id) { $0.phase = .loading(due: at); $0.readAhead = nil }
                direct.append(.load(LoadRequest(name: name, purpose: .fire(due: at))))
                continue
            }
            due.append(Outbox.Item(.job(id), due: at))
        }
        if afterBreak {
            let overdue = due.filter { now - $0.due > .seconds(1) }
            if overdue.count > config.popups.summaryAfter {
                for case .job(let id) in overdue.map(\.subject) { update(id) { $0.gathered = true } }
            }
        }
        if !due.isEmpty { actions += outbox.enqueue(due) }
        return rang + direct + takeUp(actions + releaseHeld(now: now), now: now)
    }

    /// The local time zone changed: recurring jobs read in it get their next occurrence from the new zone.
    mutating func localZoneChanged(to zone: TimeZoneRules, jobs: [(name: JobFileName, job: Job)], now: Instant) -> [EngineEffect] {
        logger.notice("Time zone changed; rescheduling local-time recurrences",
                      metadata: ["zone": "\(zone.identifier)", "jobs": "\(jobs.count)"])
        localZone = zone
        var effects: [EngineEffect] = []
        // `jobs` comes from a listing of jobs/: a job still `filing` is already there under this
        // name, so it can be renamed too (its `filed` then adopts the new name).
        for (name, job) in jobs where name.snoozedUntil == nil {
            guard let record = records[name.id], record.name == name, !record.isBusy,
                  let schedule = try? JobSchedule(job, localZone: zone, defaultLead: config.lead), schedule.isRecurring,
                  let next = schedule.firing(after: now), next != name.occurrence else { continue }
            effects.append(move(name, to: JobFileName(id: name.id, occurrence: next)))
        }
        return effects + tick(now: now)
    }

    /// The server left: its popups went with it, and none is answered, replaced or refreshed
    /// ("+1") again. A popup being shown again with a new amount, like any popup on its way,
    /// goes to the next server and is recorded when shown.
    mutating func serverGone() -> [EngineEffect] {
        var ids: [String] = []
        records.forEach { id, record in
            switch record.popup {
            case .onScreen?, .adding?: ids.append(id)
            case .refreshing?, nil: break
            }
        }
        for id in ids { update(id) { $0.popup = nil } }
        summary.serverGone()
        rings.removeAll()
        server.traits = nil
        return []
    }

    // MARK: the record

    /// The job's current file name (nil: not pending).
    func name(of id: String) -> JobFileName? { records[id]?.name }

    /// Changes job `id`'s record in place (made if missing), dropping a record that has
    /// nothing left in it.
    @discardableResult
    mutating func update<T>(_ id: String, _ body: (inout JobRecord) -> T) -> T {
        var record = records[id] ?? JobRecord(name: nil)
        let result = body(&record)
        if !wakers.isEmpty && wakers.contains(id) { wakeDirty = true }
        if record.name == nil { record.gathered = false }  // left the spool: not waited for any more
        if record.isEmpty {
            records.removeValue(forKey: id)
            if !commandJobs.isEmpty { commandJobs.remove(id) }  // learnt again when it comes back
        } else {
            records[id] = record
        }
        return result
    }

    /// Takes `name` as the job's current state and schedules it (unless it is being read or
    /// shown: it is scheduled when that ends).
    mutating func adopt(_ name: JobFileName) {
        let schedule = update(name.id) { record -> Bool in
            record.name = name
            if case .held = record.phase { record.phase = .idle }  // changed from outside: held again if due
            return !record.isBusy
        }
        if schedule { records.schedule(name.id, at: name.fireAt) }
    }

    /// Renames a pending job within `jobs/` and adopts the new name.
    mutating func move(_ from: JobFileName, to: JobFileName) -> EngineEffect {
        ownNames.insert(to)
        records.unschedule(from.id)
        adopt(to)
        return .spool(.advance(from: from, to: to))
    }

    /// The job left the spool (or was changed from outside): nothing of it waits any more.
    /// What is under way (a read, a popup in flight) finishes and finds it gone.
    mutating func forget(_ id: String) {
        update(id) { record in
            record.name = nil  // `update` stops waiting for it if it was gathered
            record.readAhead = nil
            switch record.phase {
            case .held, .filing: record.phase = .idle
            default: break
            }
        }
        records.unschedule(id)
        outbox.remove(.job(id))
    }

    func intakeRequest(_ names: [String]?) -> IntakeRequest {
        IntakeRequest(names: names, localZone: localZone, defaultLead: config.lead)
    }

    /// Moves a file in `jobs/` to `failed/`, and says so in the log.
    mutating func quarantineJobFile(_ name: String, reason: String, redacted: String? = nil) -> EngineEffect {
        logger.warning("Bad job file moved to failed/", metadata: ["file": "jobs/\(name)", "reason": "\(redacted ?? reason)"])
        return .spool(.quarantine(name: name, reason: reason))
    }

    mutating func operationFailed(_ operation: SpoolOperation, _ error: FileSystemError) -> [EngineEffect] {
        let id = operation.jobID ?? "-"
        switch operation {
        case .advance(let from, let to), .restore(let from, let to):
            ownNames.remove(to)
            guard name(of: id) == to else { break }
            if error.isNotFound {
                forget(id)
                logger.info("Job was cancelled while it fired", metadata: ["job.id": "\(id)"])
                return []
            }
            // The file still says `from`, so a restart repeats that occurrence (at-least-once)
            // rather than losing it; until then the job waits.
            update(id) { $0.name = operation.isAdvance ? from : nil }
            records.unschedule(id)
        case .finish, .quarantine, .cancel:
            guard error.isNotFound else { break }
            if case .finish = operation { logger.info("Job was cancelled while it fired", metadata: ["job.id": "\(id)"]) }
            return []
        case .appendHistory, .appendHabitLog, .runCollected:
            break
        }
        logger.error("Cannot change the spool", metadata: ["job.id": "\(id)", "error": "\(error)"])
        return []
    }
}

extension SpoolOperation {
    var isAdvance: Bool { if case .advance = self { return true } else { return false } }
}

/// The notification server as the engine knows it: what it is, whether showing fails, and the
/// jobs it has popups of, oldest first (with repeats), which bounds how many the engine
/// remembers and says when one more would be a crowd.
struct ServerView: Sendable {
    var traits: ServerTraits?
    var lastError: NotifierError?
    var lastErrorAt: Instant?
    var popupOrder: [String] = []
}

/// What a popup is of: a job's, or the summary's. At the notifier, one popup per key.
public enum PopupSubject: Hashable, Sendable {
    case job(String)
    case summary
    /// The popup that tells how a job's command ended (it never goes through the outbox).
    case run(String)

    /// The summary's key at the notifier: `@` is in no job id.
    public static let summaryKey = "@summary"
    static let runPrefix = "@run:"

    public init(key: String) {
        if key == Self.summaryKey { self = .summary } else if key.hasPrefix(Self.runPrefix) { self = .run(String(key.dropFirst(Self.runPrefix.count))) } else { self = .job(key) }
    }

    public var key: String {
        switch self {
        case .job(let id): return id
        case .summary: return Self.summaryKey
        case .run(let id): return Self.runPrefix + id
        }
    }
}

/// The engine's last word to the shell's one wall-clock timer.
enum ArmedWakeup: Equatable, Sendable {
    case neverAsked
    /// Armed for that time; nil: disarmed (nothing is due).
    case asked(Instant?)
}
