import CHeraldSys
import Dispatch
import Glibc
import HeraldCore
import HeraldNotify
import Logging
import Synchronization

/// The daemon's shell around `Engine`: it turns timers, inotify, signals and the notifier's
/// answers into events for the engine, and carries out the effects the engine returns, each on
/// the queue that suits it (ARCHITECTURE.md has the table):
///
/// - `herald.scheduler`: the engine itself, the one wall-clock timer, inotify, signals.
/// - `herald.spool`: small file work for the engine (read a job, rename it, append history).
/// - `herald.intake`: reading, checking and filing what arrives in `new/`, however large.
/// - the notifier's GLib thread: popups.
///
/// Everything runs on serial Dispatch queues, never on libdispatch's global concurrent queues
/// or Swift's global executor: on Linux those start a thread-pool monitor that wakes the
/// process every second for good (BENCHMARKS.md, "Idle wake-ups"). Idle, heraldd sleeps.
final class Daemon: @unchecked Sendable {
    struct Settings {
        var spool: Spool
        var config: HeraldConfig
        var configPath: String
        var configExplicit: Bool
        var environment: Environment
        var notifierName: String
    }

    private let queue = DispatchQueue(label: "herald.scheduler", qos: .userInteractive)
    private let spoolQueue = DispatchQueue(label: "herald.spool", qos: .userInitiated)
    private let intakeQueue = DispatchQueue(label: "herald.intake", qos: .utility)
    /// Small files of new/ are read here, so that reading a large batch never delays them.
    private let smallIntakeQueue = DispatchQueue(label: "herald.intake.small", qos: .utility)
    /// Accepted jobs are put into jobs/ here, soonest due first (FilingQueue).
    private let filingQueue = DispatchQueue(label: "herald.filing", qos: .utility)
    /// Writes half of each large batch part beside the filing queue (see `file`).
    private let filingHelper = DispatchQueue(label: "herald.filing.helper", qos: .utility)
    /// Starts the disk's writeback of filed batch jobs while later parts are filed (see `file`).
    private let writeback = DispatchQueue(label: "herald.writeback", qos: .utility)
    /// Batch jobs filed since the last early writeback, and whether one is under way (filing queue).
    private var filedSinceWriteback = 0
    private let writebackRunning = Atomic<Bool>(false)
    private let filing = FilingQueue()
    private let notifier: any Notifier
    private let settings: Settings
    private let logger: Logger
    private let lock: SpoolLock
    private let levelBox: LogLevelBox
    private let startedAt: Instant
    private let clock = SystemClock()
    private let worker: SpoolWorker
    /// The readers of large batches and of small files, each with its own crash-loop note.
    private let reader: IntakeReader
    private let smallReader: IntakeReader
    private let calendars: CalendarSync
    // Queue-confined state.
    private var engine: Engine
    private var timer: DispatchSourceTimer?
    private var watcher: SpoolWatcher?
    private var queryServer: QueryServer?
    /// CLI requests handed to the engine, waiting for its `.reply` (scheduler queue).
    private var replies: [UInt64: (id: String, reply: @Sendable (ClientAnswer) -> Void)] = [:]
    private var nextTicket: UInt64 = 0
    /// Jobs with a request under way whose spool operation failed (spool queue).
    private var spoolFailures: Set<String> = []
    private let queryQueue = DispatchQueue(label: "herald.query", qos: .userInitiated)
    private var clockWatcher: ClockChangeWatcher?
    private var zoneWatcher: LocaltimeWatcher?
    private var watchdog: DispatchSourceTimer?
    private var maintenance: DispatchSourceTimer?
    /// The jobs that wake the machine were looked for in the pack (scheduler queue).
    private var wakersLooked = false
    private var signalSources: [any DispatchSourceSignal] = []
    private var statusDue = false
    private var readySent = false
    private let background = DispatchQueue(label: "herald.maintenance", qos: .utility)
    /// Writes status.json, in order, off the scheduler's queue (see `writeStatus`).
    private let statusWriter = DispatchQueue(label: "herald.status", qos: .utility)
    private var writtenStatus: DaemonStatus?
    /// The calendar sources as `CalendarSync` last told them (for status.json).
    private var calendarStatus: [CalendarSourceStatus] = []
    private let systemd: ServiceNotifier
    /// The timer that wakes the machine from suspend for alarms and `wake` jobs.
    private let wakeAlarm: WakeAlarm
    /// Starts run jobs' commands and collects their ends (CommandRunner.swift).
    private var commands: CommandRunner!
    private var sentServiceStatus = ""
    private var serviceStatusSentAt = DispatchTime(uptimeNanoseconds: 0)
    private var serviceStatusDue = false

    init(settings: Settings, notifier: any Notifier, lock: SpoolLock, logger: Logger, levelBox: LogLevelBox) {
        self.settings = settings
        self.notifier = notifier
        self.lock = lock
        self.logger = logger
        self.levelBox = levelBox
        self.startedAt = SystemClock().now
        self.engine = Engine(config: settings.config, localZone: TimeZoneRules.local(environment: settings.environment),
                             logger: logger)
        self.worker = SpoolWorker(spool: settings.spool, logger: logger)
        self.reader = IntakeReader(spool: settings.spool, claim: WorkClaim(spool: settings.spool, name: WorkClaim.intake))
        self.smallReader = IntakeReader(spool: settings.spool, claim: WorkClaim(spool: settings.spool, name: WorkClaim.smallIntake))
        // A test may shorten the time a calendar source's read is given (a hung mount is noticed sooner).
        let deadline = settings.environment["HERALD_CALENDAR_READ_DEADLINE_MS"].flatMap(Int.init).map { DispatchTimeInterval.milliseconds(max(100, $0)) }
        self.calendars = CalendarSync(spool: settings.spool, localZone: TimeZoneRules.local(environment: settings.environment), logger: logger,
                                      readDeadline: deadline ?? .seconds(30))
        self.systemd = ServiceNotifier(environment: settings.environment)
        self.wakeAlarm = WakeAlarm(socketPath: WakeAlarm.socketPath(settings.environment), logger: logger)
        self.commands = CommandRunner(spool: settings.spool, environment: settings.environment, logger: logger,
                                      post: { [unowned self] event in self.post(event) })
    }

    /// Starts, then serves until SIGTERM or SIGINT (a clean stop, status 0); SIGHUP reloads
    /// the configuration. Never returns.
    func run() -> Never {
        // Two malloc arenas, not one per thread: the intake queue's large, short-lived
        // allocations otherwise stay resident in an arena of their own (BENCHMARKS.md, "Memory").
        // Tables of 128 kB or more (the job table's parts, the due heap) are mapped apart and
        // unmapped when they grow: 4-6 MB off the peak while a batch files ("Memory per pending job").
        herald_tune_malloc(2, 128 << 10)
        // Signals are taken over before Ready: SIGHUP's default action would end the process.
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { [unowned self] in
                if sig == SIGHUP {
                    reloadConfig()
                } else {
                    stopOnQueue()
                    logger.info("Stopped")
                    LogWriter.flush()
                    exit(0)
                }
            }
            source.resume()
            signalSources.append(source)
        }
        queue.async {
            do { try self.startOnQueue() } catch {
                self.logger.critical("Stopped on an error", metadata: ["error": "\(error)"])
                LogWriter.flush()
                exit(1)
            }
        }
        dispatchMain()
    }

    // MARK: queue only

    /// Hands one event to the engine and carries out what it returns.
    private func send(_ event: EngineEvent) {
        apply(engine.handle(event, now: clock.now))
    }

    /// `send`, from any thread.
    private func post(_ event: EngineEvent) {
        queue.async { [self] in send(event) }
    }

    /// The notifier's answers waiting for the queue: a burst's answers come a few at a time
    /// and are handled as one step, their spool work one block (BENCHMARKS.md, "Ratios to the floor").
    private let answers = Mutex<[EngineEvent]>([])

    /// heraldd is going (queue only): no popup is sent any more, since its answer could not be
    /// recorded, and one not sent is simply shown after the next start.
    private var stopping = false

    /// Takes what the notifier holds and what waits in `answers` now, as heraldd stops
    /// (queue only): the spool work it makes is queued before the caller's `spoolQueue.sync`.
    private func recordAnswers() {
        stopping = true
        notifier.giveHeldAnswers()
        handleAnswers()
    }

    /// `post` for the notifier's answers (any thread).
    private func answered(_ event: EngineEvent) {
        let first = answers.withLock { waiting in
            waiting.append(event)
            return waiting.count == 1
        }
        if first { queue.async { [self] in handleAnswers() } }
    }

    /// The answers waiting in `answers`, as one engine step (queue only).
    private func handleAnswers() {
        let events = answers.withLock { waiting in
            defer { waiting = [] }
            return waiting
        }
        if !events.isEmpty { handleTogether(events) }
    }

    /// Events that came together, as one engine step (queue only). A burst's sixteen answers or
    /// documents are a millisecond of work: the core is given away between them (`CoreSharing`).
    private func handleTogether(_ events: [EngineEvent]) {
        var effects: [EngineEffect] = []
        for (index, event) in events.enumerated() {
            if index > 0 { CoreSharing.shared.between() }
            effects += engine.handle(event, now: clock.now)
        }
        apply(effects)
    }

    private func startOnQueue() throws {
        let timer = DispatchSource.makeTimerSource(flags: [], queue: queue)
        timer.setEventHandler { [unowned self] in send(.timerFired) }
        timer.resume()
        self.timer = timer
        watcher = try SpoolWatcher(spool: settings.spool, queue: queue, clock: { DispatchTime.now().uptimeNanoseconds }) { [unowned self] changes in
            if changes.quietChanged { send(.quietSwitched(settings.spool.quietSwitch())) }
            if changes.overflowed { return send(.watchOverflowed) }
            if !changes.intake.isEmpty { send(.intakeAppeared(changes.intake)) }
            if !changes.jobs.isEmpty { send(.jobsChanged(changes.jobs)) }
        }
        notifier.onEvent { [weak self] event in self?.post(.popup(event)) }
        if let libnotify = notifier as? LibNotifyNotifier {
            libnotify.onBusEvents(serverGone: { [weak self] in
                self?.logger.notice("The notification server went away; its popups are forgotten")
                self?.post(.serverGone)
            }, serverAppeared: { [weak self] in
                self?.logger.notice("A notification server took the name on the bus")
                self?.post(.serverAppeared)
            }, busLost: { [weak self] why in
                // Everything is on disk; systemd (Restart=on-failure) starts us again. On the
                // scheduler's queue, so that the answers given just before are recorded first.
                guard let self else { return }
                logger.critical("Lost the session bus; exiting so that heraldd is restarted", metadata: ["error": "\(why)"])
                queue.async { [self] in
                    recordAnswers()
                    spoolQueue.sync {}
                    systemd.send("STOPPING=1")
                    LogWriter.flush()
                    exit(69)
                }
            })
        }
        if let libnotify = notifier as? LibNotifyNotifier {
            libnotify.onServer(described: { [weak self] traits in
                self?.post(.serverDescribed(traits))
            }, desktopQuiet: { [weak self] on, source in
                guard let self else { return }
                queue.async { [self] in
                    send(.desktopQuietChanged(on == true ? DesktopQuiet(since: clock.now, source: source) : nil))
                    writeStatus()
                }
            })
        }
        wakeAlarm.onChange { [weak self] in
            guard let self else { return }
            queue.async { [self] in writeStatus() }
        }
        clockWatcher = try ClockChangeWatcher(queue: queue) { [unowned self] in send(.clockChanged) }
        if let libnotify = notifier as? LibNotifyNotifier {
            libnotify.onSleep { [weak self] sleeping in
                guard let self else { return }
                if sleeping { return logger.info("The machine is going to sleep") }
                post(.resumed)
            }
        }
        let localtime = settings.environment["HERALD_LOCALTIME"] ?? "/etc/localtime"
        zoneWatcher = try? LocaltimeWatcher(path: localtime, queue: queue) { [unowned self] in localtimeChanged(localtime) }
        // jobs/ is listed here; new/ is read and filed on the intake queues.
        setAsideLeftover()
        let listing = try worker.listJobs()
        if let manual = settings.spool.quietSwitch() { engine.setQuietSwitch(manual) }
        apply(engine.handle(.started(jobs: listing.jobs, strays: listing.strays), now: clock.now))
        calendars.onStatusChange { [weak self] list in
            guard let self else { return }
            queue.async { [self] in
                calendarStatus = list
                writeStatus()
            }
        }
        calendars.configure(engine.config, localZone: engine.localZone)
        queryServer = QueryServer(spool: settings.spool, queue: queryQueue, logger: logger, snapshot: { [unowned self] in
            queue.sync {
                watcher?.handleQueuedEvents()
                return engine.jobTable
            }
        }, submit: { [unowned self] request, reply in
            queue.async { [self] in
                // The CLI's own renames made before it asked are known first.
                watcher?.handleQueuedEvents()
                nextTicket += 1
                replies[nextTicket] = (request.id, reply)
                let id = request.id
                spoolQueue.async { [self] in spoolFailures.remove(id) }  // only failures from here on count
                send(.request(ticket: nextTicket, request))
            }
        })
        herald_release_free_memory()
        // Ready once jobs/ is loaded and the small files of new/ are read and accepted (one
        // `herald remind` made while heraldd was stopped counts as pending): large batches are
        // checked and everything is filed behind it, each job scheduled as soon as it is
        // checked. The fallback only bounds a new/ of many thousand single files.
        smallIntakeQueue.async { [self] in queue.async { [self] in sendReady() } }
        queue.asyncAfter(wallDeadline: .now() + 1) { [self] in sendReady() }
    }

    /// The crash-loop breaker: the file of `new/` a heraldd that died was reading is read once
    /// more, and set aside in `failed/` when heraldd died on it twice in a row.
    private func setAsideLeftover() {
        for (note, reader) in [(WorkClaim.intake, reader), (WorkClaim.smallIntake, smallReader)] { setAsideLeftover(note, reader) }
    }

    private func setAsideLeftover(_ note: String, _ reader: IntakeReader) {
        guard let (what, strikes) = WorkClaim.leftover(spool: settings.spool, name: note), what.hasPrefix("new/") else { return }
        // The note is only a hint: just a plain name in new/ is ever acted on, never a path.
        let unclaimed = String(what.dropFirst(4))
        guard !unclaimed.isEmpty, !unclaimed.contains("/"), unclaimed != ".", unclaimed != ".." else { return }
        let name = FileSystem.exists(settings.spool.new + "/" + unclaimed) || !unclaimed.hasSuffix(".jsonl")
            ? unclaimed : IntakeReader.claimPrefix + unclaimed
        guard strikes >= WorkClaim.strikesToSetAside else {
            logger.warning("heraldd stopped while reading a file of new/; reading it once more", metadata: ["file": "\(what)"])
            reader.claim?.suspect(what, strikes: strikes)
            return
        }
        do {
            try settings.spool.quarantine(directory: settings.spool.new, name: name, as: IntakeReader.unclaimedName(name),
                                          reason: WorkClaim.reason, now: clock.now)
            logger.error("heraldd stopped twice while reading a file of new/; it is in failed/", metadata: ["file": "\(what)"])
        } catch {
            logger.error("Cannot set aside a file heraldd stopped on", metadata: ["file": "\(what)", "error": "\(error)"])
        }
    }

    /// READY=1, once: the spool is loaded.
    private func sendReady() {
        guard !readySent else { return }
        readySent = true
        systemd.send("READY=1\nSTATUS=\(serviceStatus())\nMAINPID=\(getpid())")
        logger.info("Ready", metadata: ["notifier": "\(settings.notifierName)", "jobs.pending": "\(engine.pendingCount)",
                                        "version": "\(HeraldVersion.string)"])
        startWatchdog()
        startMaintenance()
        commands.recover()
    }

    /// Carries out the engine's effects, then refreshes status.json and systemd's status line.
    /// The spool's part goes to the spool queue as one block, in order, and what it finds comes
    /// back as one step: a burst's records and reads wake each queue once per step, not per popup.
    private func apply(_ effects: [EngineEffect]) {
        // The step's log lines go out together, once its effects are carried out.
        LogWriter.holding { carryOut(effects) }
    }

    private func carryOut(_ effects: [EngineEffect]) {
        var spoolWork: [@Sendable () -> [EngineEvent]] = []
        // A step's history lines go in one append, at the place of its first: each still lands
        // before the rename it records (BENCHMARKS.md, "Issue 41: heraldd's own renames"). A
        // reply ends a group: what it says about failures is about the work before it alone.
        var historyGroups: [[HistoryRecord]] = [[]]
        for effect in effects {
            if case .spool(.appendHistory(let record)) = effect { historyGroups[historyGroups.count - 1].append(record) }
            if case .reply = effect { historyGroups.append([]) }
        }
        var historyGroup = 0, historyQueued = false
        for effect in effects {
            switch effect {
            case .show(let request):
                guard !stopping else { break }
                notifier.show(request) { [weak self] result in self?.answered(.shown(jobID: request.jobID, result)) }
            case .load(let request):
                let zone = engine.localZone
                spoolWork.append { [self] in [worker.load(request, localZone: zone)] }
            case .spool(.appendHistory):
                guard !historyQueued else { break }
                historyQueued = true
                let history = historyGroups[historyGroup]
                spoolWork.append { [self] in
                    let failures = worker.appendHistory(history)
                    for case .operationFailed(let operation, _) in failures {
                        if let id = operation.jobID, spoolFailures.count < 1024 { spoolFailures.insert(id) }
                    }
                    return failures
                }
            case .spool(let operation):
                spoolWork.append { [self] in
                    guard let failure = worker.carryOut(operation, now: clock.now) else { return [] }
                    if let id = operation.jobID, spoolFailures.count < 1024 { spoolFailures.insert(id) }
                    return [failure]
                }
            case .reply(let ticket, let answer):
                historyGroup += 1
                historyQueued = false
                guard let (id, reply) = replies.removeValue(forKey: ticket) else { break }
                // The spool queue is serial: the request's renames and lines are done by now.
                spoolWork.append { [self] in
                    reply(spoolFailures.remove(id) != nil ? .refused(ClientRefusal(.failed, "heraldd could not change the spool (see its log)")) : answer)
                    return []
                }
            case .listJobs:
                spoolWork.append { [self] in
                    do { return [.jobsListed(try worker.listJobs().jobs)] } catch {
                        logger.error("Cannot list jobs/", metadata: ["error": "\(error)"])
                        return []
                    }
                }
            case .readIntake(let request):
                readIntake(request)
            case .file(let plan):
                filing.add(plan)
                filingQueue.async { [self] in
                    guard let plan = filing.takeFirst() else { return }
                    post(file(plan))
                    filing.done(plan)
                    startWriteback(after: plan)
                    // malloc keeps what a large batch freed; hand it back so RSS does not stay at the peak.
                    if plan.removeBatch != nil { herald_release_free_memory() }
                }
            case .log(let line):
                logger.log(line)
            case .close(let jobID):
                notifier.close(jobID: jobID)
            case .open(let url):
                var environment = settings.environment.dictionary(withPrefix: "")
                environment.removeValue(forKey: "NOTIFY_SOCKET")
                URLOpener.open(url, opener: settings.environment["HERALD_OPENER"] ?? "xdg-open", environment: environment, logger: logger)
            case .writeBack(let change):
                calendars.writeBack(change)
            case .armTimer(let wake):
                rearm(wake)
            case .armWake(let instant):
                wakeAlarm.arm(instant)
            case .startRun(let start):
                commands.start(start, maxOutput: engine.config.commands.maxOutput)
            case .runAgain(let id, let run, let at):
                commands.runAgain(id: id, run: run, at: at)
            case .stopRun(let id, let run):
                commands.stop(id: id, run: run)
            }
        }
        if !spoolWork.isEmpty {
            let work = spoolWork
            spoolQueue.async { [self] in
                var found: [EngineEvent] = []
                for (index, item) in work.enumerated() {
                    if index > 0 { CoreSharing.shared.between() }
                    found += item()
                }
                guard !found.isEmpty else { return }
                let events = found
                queue.async { [self] in handleTogether(events) }
            }
        }
        writeStatus()
        sendServiceStatus()
    }

    /// Carries out a filing plan (filing queue). A batch part's jobs are written by two threads,
    /// half each: most of a job's filing is the kernel creating and writing its file, which
    /// runs side by side on two cores (only the link into jobs/ takes the directory's lock).
    /// The result is the plan's whole result, given once both halves are in jobs/.
    private func file(_ plan: FilingPlan) -> EngineEvent {
        let now = clock.now
        guard plan.writes.count >= 64, plan.moves.isEmpty, plan.refusals.isEmpty, plan.removeBatch == nil else {
            return worker.file(plan, now: now)
        }
        let half = plan.writes.count / 2
        var first = plan, rest = FilingPlan()
        first.writes = Array(plan.writes[..<half])
        rest.writes = Array(plan.writes[half...])
        rest.batch = plan.batch
        let second = rest
        let helped = Mutex<EngineEvent?>(nil)
        let done = DispatchSemaphore(value: 0)
        filingHelper.async { [worker] in
            let event = worker.file(second, now: now)
            helped.withLock { $0 = event }
            done.signal()
        }
        let event = worker.file(first, now: now)
        done.wait()
        guard case .filed(var result) = event, case .filed(let other)? = helped.withLock({ $0 }) else { return event }
        result.filed += other.filed
        result.failed += other.failed
        return .filed(result)
    }

    /// A batch is removed from new/ only after one sync(2) has made all its jobs durable, and
    /// that sync has a block per file to write (BENCHMARKS.md, "Why the code is as it is"). Every 10,000 jobs filed, a `syncfs` on a queue of its own starts that writing early,
    /// beside the filing, so that the last sync finds little left. Durability does not depend
    /// on it (filing queue).
    private func startWriteback(after plan: FilingPlan) {
        filedSinceWriteback += plan.writes.count
        guard filedSinceWriteback >= 10_000, !writebackRunning.exchange(true, ordering: .acquiring) else { return }
        filedSinceWriteback = 0
        let jobs = settings.spool.jobs
        writeback.async { [self] in
            if let folder = Descriptor.open(jobs, O_RDONLY | O_DIRECTORY) { _ = herald_syncfs(folder.raw) }
            writebackRunning.store(false, ordering: .releasing)
        }
    }

    /// Reads files of new/ on the intake queues: small ones (most imports, every single job)
    /// apart from large batches, whose check can take seconds.
    private func readIntake(_ request: IntakeRequest) {
        let spool = settings.spool
        smallIntakeQueue.async { [self] in
            let names = request.names ?? spool.intakeNames()
            let isLarge = names.map { name in
                var st = stat()
                return name.hasSuffix(".jsonl") && lstat(spool.new + "/" + name, &st) == 0 && st.st_size > Self.smallBatch
            }
            let small = zip(names, isLarge).filter { !$0.1 }.map(\.0), large = zip(names, isLarge).filter(\.1).map(\.0)
            if !small.isEmpty { smallReader.read(request.with(names: small), now: clock.now) { deliverPaced($0, lane: .small) } }
            if !large.isEmpty { intakeQueue.async { [self] in reader.read(request.with(names: large), now: clock.now) { deliverPaced($0, lane: .large) } } }
        }
    }

    /// Hands an intake event to the engine and waits until it has been handled: a batch's parts
    /// then reach the scheduler's queue one at a time, with timers and popups between them,
    /// instead of a hundred queued at once ahead of a popup due meanwhile.
    /// A large batch's part also waits until few parts are left to file (`FilingQueue.waitForRoom`).
    private func deliverPaced(_ event: EngineEvent, lane: FilingQueue.Lane) {
        if case .intakeRead(let files) = event, files.contains(where: { if case .batch = $0 { true } else { false } }) {
            filing.waitForRoom(lane)
        }
        let handled = DispatchSemaphore(value: 0)
        queue.async { [self] in
            send(event)
            handled.signal()
        }
        handled.wait()
    }

    /// A batch up to this size (about 10,000 jobs) is read on the small files' queue.
    static let smallBatch = 1 << 20

    private func stopOnQueue() {
        // Whatever a queue is doing (a read on a hung mount, a disk that stalls), heraldd is
        // gone within a second of SIGTERM: what is on disk is all it needs to start again.
        let lock = self.lock
        _ = DetachedThread.start(name: "herald.stop") {
            usleep(900_000)
            LogWriter.flush()
            lock.release()
            _exit(0)
        }
        systemd.send("STOPPING=1")
        for source in [watchdog, maintenance, timer] { source?.cancel() }
        watcher?.cancel()
        watcher = nil
        queryServer?.stop()
        calendars.cancel()
        clockWatcher?.cancel()
        zoneWatcher?.cancel()
        // What was shown is recorded before heraldd goes (a burst's held answers too); an intake
        // in progress is simply taken up again at the next start (a clean stop is no strike
        // against its file).
        recordAnswers()
        spoolQueue.sync {}
        for note in WorkClaim.intakeNotes { WorkClaim.clear(spool: settings.spool, name: note) }
        do {
            for note in try CalendarSync.notes(in: settings.spool) { WorkClaim.clear(spool: settings.spool, name: note) }
        } catch {
            // Left in place: the next start reads them as a stop mid-plan, one strike each, no more.
            logger.error("Cannot list the spool to clear the calendar readers' notes", metadata: ["error": "\(error)"])
        }
        writeStatus(force: true, running: false)
        // The process may outlive this (a thread on a hung mount): the next heraldd may start.
        lock.release()
    }

    /// WATCHDOG=1 every half of WatchdogSec, sent from the scheduler's queue while the queues
    /// heraldd cannot work without answer: each tick hands the spool queue and the calendar
    /// queue a check, and one not run by the next-but-one tick (a queue stuck on a hung disk)
    /// stops the pings, so systemd restarts heraldd. (A calendar source's own reads are
    /// watched by `CalendarSync`: a hung mount costs that source, not a restart.)
    private func startWatchdog() {
        guard let interval = systemd.watchdogInterval else { return }
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now(), repeating: .microseconds(Int(interval / 2)), leeway: .microseconds(Int(interval / 20)))  // monotonic: systemd's watchdog counts CLOCK_MONOTONIC; no pings are owed across a suspend
        let watched: [(name: String, queue: DispatchQueue)] = [("spool", spoolQueue), ("calendar", calendars.queueForWatchdog)]
        let unanswered = Mutex<[String: Int]>([:])
        source.setEventHandler { [unowned self] in
            var stuck: [String] = []
            for (name, watchedQueue) in watched {
                let ticks = unanswered.withLock { seen -> Int in
                    defer { seen[name, default: 0] += 1 }
                    return seen[name] ?? 0
                }
                if ticks == 0 { watchedQueue.async { unanswered.withLock { $0[name] = nil } } }
                if ticks >= 2 { stuck.append(name) }
            }
            guard stuck.isEmpty else {
                if !watchdogWithheld { logger.critical("A queue does not answer; systemd's watchdog will restart heraldd", metadata: ["queues": "\(stuck)"]) }
                watchdogWithheld = true
                return
            }
            watchdogWithheld = false
            systemd.send("WATCHDOG=1")
        }
        source.resume()
        watchdog = source
    }
    private var watchdogWithheld = false

    /// Prunes old records, and rewrites the document pack when it is missing or mostly stale,
    /// now and once a day, off the scheduler's queue.
    /// The jobs that wake the machine, among those pending (jobs taken in later are known from
    /// their intake): read from the document pack on the maintenance queue, so after its first
    /// run has rebuilt a pack that was missing. At start, and when `alarms.wake` changed.
    private func findWakers() {
        let (spool, kinds) = (settings.spool, engine.config.alarms.wakeKinds)
        background.async { [self] in
            guard let found = JobDocPack(spool: spool).wakeFields(kinds: kinds) else { return }
            if !found.isEmpty { post(.wakersFound(found)) }
        }
    }

    /// Prunes old records and rewrites the document pack when it is missing or mostly stale:
    /// now, then daily. The first run then looks for the jobs that wake the machine.
    private func startMaintenance() {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(wallDeadline: .now(), repeating: .seconds(86_400), leeway: .seconds(60))
        source.setEventHandler { [unowned self] in
            let (spool, retention, now, pending) = (settings.spool, engine.config.retention, clock.now, engine.pendingCount)
            background.async { [logger] in
                let report = spool.prune(olderThan: retention, now: now)
                if report.files > 0 || report.historyLines > 0 {
                    logger.info("Pruned old records", metadata: ["files": "\(report.files)", "history.lines": "\(report.historyLines)"])
                }
                let pack = JobDocPack(spool: spool)
                if pack.needsRewrite(pendingJobs: pending), let result = pack.rewrite(), result.records > 0 {
                    logger.info("Rewrote the document pack", metadata: ["records": "\(result.records)", "files.read": "\(result.read)"])
                    herald_release_free_memory()
                }
            }
            // After the first run (on the same serial queue): the pack is there by then.
            if !wakersLooked {
                wakersLooked = true
                findWakers()
            }
        }
        source.resume()
        maintenance = source
    }

    /// /etc/localtime changed: re-read the zone and reschedule local-time recurrences.
    private func localtimeChanged(_ path: String) {
        var environment = settings.environment
        if environment["TZ"] != nil { return }  // TZ wins over /etc/localtime
        environment["TZ"] = nil
        let zone = TimeZoneRules.local(environment: environment, localtime: path)
        guard zone != engine.localZone else { return }
        let spool = settings.spool
        calendars.configure(engine.config, localZone: zone)
        background.async { [weak self] in
            guard let self else { return }
            self.post(.localZoneChanged(zone, jobs: spool.localZoneRecurrences(localZone: zone)))
        }
    }

    /// Tells systemd the status line when it changed, at most once a second (a burst of a
    /// thousand popups sends a few messages, not a thousand).
    private func sendServiceStatus(deferred: Bool = false) {
        guard systemd.isActive, readySent, deferred || !serviceStatusDue else { return }
        serviceStatusDue = false
        let text = serviceStatus()
        guard text != sentServiceStatus else { return }
        let next = serviceStatusSentAt + .seconds(1)
        if !deferred && next > .now() {
            serviceStatusDue = true
            queue.asyncAfter(deadline: next) { [weak self] in self?.sendServiceStatus(deferred: true) }  // monotonic: a rate limit, not a user's time
            return
        }
        sentServiceStatus = text
        serviceStatusSentAt = .now()
        systemd.send("STATUS=" + text)
    }

    /// The one-line status systemd shows: "3 jobs pending, next 2026-11-22T14:05:00Z".
    private func serviceStatus() -> String {
        var text = "\(engine.pendingCount) job\(engine.pendingCount == 1 ? "" : "s") pending"
        if let next = engine.nextDue() { text += ", next \(next)" }
        if let error = engine.lastError { text += "; notifications failing: \(error.kind.rawValue)" }
        return text
    }

    /// Arms the one wall-clock timer (CLOCK_REALTIME: a clock step or a suspend moves it with the wall).
    private func rearm(_ wake: Instant?) {
        if let wake {
            let spec = timespec(tv_sec: Int(wake.seconds), tv_nsec: Int(wake.microsecondOfSecond) * 1000)
            timer?.schedule(wallDeadline: DispatchWallTime(timespec: spec), repeating: .never, leeway: .nanoseconds(0))
        } else {
            timer?.schedule(wallDeadline: .distantFuture, repeating: .never, leeway: .seconds(1))
        }
    }

    /// Writes status.json now when what it says about notifications changed, and the
    /// pending count at most once a second (the CLI reads it to enforce limits.jobs).
    private func writeStatus(force: Bool = false, running: Bool = true) {
        var status = DaemonStatus(pid: running ? getpid() : 0, version: HeraldVersion.string, startedAt: startedAt,
                                  notifier: settings.notifierName, pending: engine.pendingCount)
        status.server = engine.serverTraits?.label
        status.calendars = calendarStatus
        let wake = wakeAlarm.current
        switch wake.holder {
        case .heraldd: status.wakeHolder = "heraldd"
        case .helper: status.wakeHolder = "herald-wake"
        case .nobody(let why): status.wakeProblem = why
        }
        status.wakeAt = wake.at
        if let dnd = engine.desktopQuiet {
            status.doNotDisturb = dnd.source
            status.doNotDisturbSince = dnd.since
            status.doNotDisturbFollowed = engine.config.quietWithDesktop
        }
        if let error = engine.lastError {
            status.lastError = error.description
            status.lastErrorAt = engine.lastErrorAt
            status.retryAt = engine.retryAt
        }
        guard force || status != writtenStatus else { return }
        if !force, var previous = writtenStatus {
            previous.pending = status.pending
            if previous == status {  // only the count moved: batch it
                if !statusDue {
                    statusDue = true
                    queue.asyncAfter(wallDeadline: .now() + 1) { [weak self] in
                        self?.statusDue = false
                        self?.writeStatus(force: true)
                    }
                }
                return
            }
        }
        writtenStatus = status
        // Not fsynced (status.json is advice), and written on a queue of its own: replacing it
        // can wait for the disk (BENCHMARKS.md, "Lateness tails").
        // The last write, as heraldd stops, is waited for.
        let (bytes, tmp, path) = (Array(status.json.utf8), settings.spool.tmp, settings.spool.statusPath)
        let write: @Sendable () -> Void = { [logger] in
            do { try AtomicReplace.write(bytes, to: path, options: .spool(staging: tmp, sync: false)) } catch {
                logger.error("Cannot write status.json", metadata: ["error": "\(error)"])
            }
        }
        if running { statusWriter.async(execute: write) } else { statusWriter.sync(execute: write) }
    }

    // MARK: reload

    private func reloadConfig() {
        logger.info("SIGHUP: reloading the configuration", metadata: ["config": "\(settings.configPath)"])
        systemd.send("RELOADING=1")
        defer { systemd.send("READY=1") }
        do {
            let config = try ConfigLoader.load(path: settings.configPath, explicit: settings.configExplicit,
                                               environment: settings.environment)
            for (dir, mode) in settings.spool.tightenPermissions() {
                logger.warning("Spool directory was open to other users; made it 0700", metadata: ["path": "\(dir)", "mode.was": "0\(String(mode, radix: 8))"])
            }
            let wakeKindsChanged = config.alarms.wakeKinds != engine.config.alarms.wakeKinds
            send(.configReloaded(config))
            // Which pending jobs wake the machine follows from the new `alarms.wake`: the engine
            // forgot them (configReloaded), and the pack says again.
            if wakeKindsChanged { findWakers() }
            calendars.configure(config, localZone: engine.localZone)
            levelBox.level = Logger.Level(config.logLevel)
            logger.info("Configuration reloaded")
        } catch {
            logger.error("Configuration not reloaded; keeping the old one", metadata: ["error": "\(error)"])
        }
    }
}

/// The log level, shared by every logger so SIGHUP can change it.
final class LogLevelBox: Sendable {
    private let current: Mutex<Logger.Level>
    init(_ level: Logger.Level) { current = Mutex(level) }
    var level: Logger.Level {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

