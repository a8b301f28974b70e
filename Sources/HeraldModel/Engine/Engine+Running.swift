/// Run jobs (`herald run`): a due occurrence is handed to heraldd's `CommandRunner`
/// (`.startRun`), which marks it started on disk before it spawns anything and answers
/// `.runStarted`; the job then moves on as a shown popup would. The command's end comes back
/// as `.runEnded`, perhaps after a restart of heraldd: one history line, and a popup per the
/// job's `notify`. The runner owns the runs (`runs/<id>/`); the engine owns the job's file
/// and the result popup.
public struct RunStart: Sendable, Equatable {
    public var id: String
    /// The occurrence it runs for: at most one run each (for Run again, when it was pressed).
    public var occurrence: Instant
    public var title: String
    public var command: Job.RunCommand
    public init(id: String, occurrence: Instant, title: String, command: Job.RunCommand) {
        self.id = id; self.occurrence = occurrence; self.title = title; self.command = command
    }
}

/// What the runner did with a `.startRun` (or a Run again).
public enum RunStartOutcome: Sendable, Equatable {
    /// Marked started on disk and spawned as run `run`.
    case started(run: Int)
    /// This occurrence was marked started before (heraldd stopped before the job moved on):
    /// not run again; the runner reports that run's end.
    case alreadyStarted(run: Int)
    /// The job's previous run is still going: this occurrence is skipped, as systemd does.
    case stillRunning(run: Int)
    /// Not run: the reason (the spool cannot be written, the runner is missing, commands are off).
    case refused(String)
}

/// How a run ended, as the runner found it (`runs/<id>/<run>.result`).
public struct RunEnd: Sendable, Equatable {
    public enum Ending: Sendable, Equatable {
        /// It ran and ended: its exit status or the signal that ended it.
        case exited(Int)
        case signalled(Int)
        /// It never started: the program or directory could not be used (the runner's words).
        case notStarted(String)
        /// It started, but its end was never recorded (the machine went down while it ran).
        case noResult
        /// It was marked started but whether it ran cannot be told.
        case unknown
    }
    public var id: String
    public var run: Int
    public var occurrence: Instant
    public var title: String
    public var notify: Job.RunCommand.Notify
    public var ending: Ending
    public var started: Instant?
    public var ended: Instant?
    public var timedOut = false
    public var cancelled = false
    /// The output was cut at `commands.maxOutput`.
    public var cut = false
    /// The log's path, and its last lines (for the popup).
    public var log: String
    public var tail: String = ""

    public init(id: String, run: Int, occurrence: Instant, title: String, notify: Job.RunCommand.Notify, ending: Ending,
                started: Instant? = nil, ended: Instant? = nil, log: String) {
        self.id = id; self.run = run; self.occurrence = occurrence; self.title = title; self.notify = notify
        self.ending = ending; self.started = started; self.ended = ended; self.log = log
    }

    public var succeeded: Bool { if case .exited(0) = ending { return true } else { return false } }
    public var duration: Span? {
        guard let started, let ended, ended >= started else { return nil }
        return ended - started
    }

    /// "failed (exit 3) after 2 min 10 s", "finished after 4 s", "timed out after 10 min".
    public var phrase: String {
        let after = duration.map { " after " + Self.format($0) } ?? ""
        // Ended by its timeout or a cancel, whatever it did then (a script that traps TERM exits 143).
        switch ending {
        case .exited, .signalled:
            if timedOut { return "timed out" + after }
            if cancelled { return "was cancelled" + after }
        default: break
        }
        switch ending {
        case .exited(0): return "finished" + after
        case .exited(let status): return "failed (exit \(status))" + after
        case .signalled(let signal):
            if timedOut { return "timed out" + after }
            if cancelled { return "was cancelled" + after }
            return "was killed by \(Self.signalName(signal))" + after
        case .notStarted: return cancelled ? "was cancelled before it started" : "could not start"
        case .noResult: return "ended without a result"
        case .unknown: return "is not known to have run"
        }
    }

    /// The history's outcome and note.
    public var outcome: HistoryRecord.Outcome {
        switch ending {
        case .exited(0): return .ran
        case .exited, .signalled, .notStarted: return .failed
        case .noResult, .unknown: return .unknown
        }
    }

    public var note: String {
        var parts = [phrase]
        if case .notStarted(let why) = ending, !cancelled { parts.append(why) }
        if case .noResult = ending { parts.append("the machine or the runner stopped while it ran") }
        if case .unknown = ending { parts.append("heraldd stopped between marking it started and starting it") }
        if cut { parts.append("output cut") }
        return parts.joined(separator: "; ")
    }

    /// "850 ms", "4 s", "2 min 10 s", "1 h 5 min".
    public static func format(_ span: Span) -> String {
        let ms = span.microseconds / 1000
        if ms < 1000 { return "\(ms) ms" }
        let s = ms / 1000
        if s < 60 { return "\(s) s" }
        if s < 3600 { return s % 60 == 0 ? "\(s / 60) min" : "\(s / 60) min \(s % 60) s" }
        return TimeSpan.humanize(span)
    }

    static func signalName(_ n: Int) -> String {
        let names = [1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM"]
        return names[n].map { "signal \(n) (\($0))" } ?? "signal \(n)"
    }
}

extension Engine {
    /// A run job's occurrence is due and not missed or skipped: the runner is asked to start it
    /// (quiet time and the notification server have no say: nothing is shown now). The job
    /// moves on when the runner answers that it is marked started.
    mutating func startRunning(_ f: Firing, now: Instant) -> [EngineEffect] {
        let id = f.name.id
        let release = releaseOutboxSlot(id, now: now)
        guard config.commands.enabled else {
            return settle(f, outcome: .skipped, now: now, note: "commands are off in the config") + release + tick(now: now)
        }
        guard let command = f.job.command else {
            return settle(f, outcome: .failed, now: now, note: "not a run job") + release + tick(now: now)
        }
        update(id) { $0.phase = .starting(f) }
        logger.info("Starting a command", metadata: ["job.id": "\(id)", "late.ms": "\((now - f.due).microseconds / 1000)"])
        return [.startRun(RunStart(id: id, occurrence: f.name.occurrence, title: command.label(title: f.job.title), command: command))] + release
    }

    /// A run job's firing came through the outbox (it was not yet known to be one): it takes no
    /// place in the popups' window.
    mutating func releaseOutboxSlot(_ id: String, now: Instant) -> [EngineEffect] {
        guard outbox.inFlightSubjects.contains(.job(id)) else { return [] }
        return takeUp(outbox.shown(.job(id)), now: now)
    }

    /// The runner's answer to `.startRun` (nil `occurrence`-less Run again answers are only logged).
    mutating func runStarted(id: String, occurrence: Instant, _ outcome: RunStartOutcome, now: Instant) -> [EngineEffect] {
        let firing: Firing? = update(id) { record in
            guard case .starting(let f) = record.phase, f.name.occurrence == occurrence else { return nil }
            record.phase = .idle
            return f
        }
        guard let f = firing else {
            if case .refused(let why) = outcome {
                logger.warning("A command could not be run again", metadata: ["job.id": "\(id)", "reason": "\(why)"])
            }
            return []
        }
        if stopWhenStarted.remove(id) != nil {
            // Cancelled while it was being started: the job is in cancelled/ already, and the
            // run, if it started, ends as a cancel ends it.
            logger.info("Command cancelled as it started", metadata: ["job.id": "\(id)"])
            if case .started(let run) = outcome { return [.stopRun(id: id, run: run)] + tick(now: now) }
            return tick(now: now)
        }
        switch outcome {
        case .started(let run):
            logger.info("Command started", metadata: ["job.id": "\(id)", "run": "\(run)"])
            return settle(f, outcome: .ran, now: now, history: false) + tick(now: now)
        case .alreadyStarted(let run):
            logger.notice("Command was started before heraldd stopped; not run again", metadata: ["job.id": "\(id)", "run": "\(run)"])
            return settle(f, outcome: .ran, now: now, history: false) + tick(now: now)
        case .stillRunning(let run):
            return settle(f, outcome: .skipped, now: now, note: "skipped (still running: run \(run))") + tick(now: now)
        case .refused(let why):
            logger.warning("Command not run", metadata: ["job.id": "\(id)", "reason": "\(why)"])
            var effects = settle(f, outcome: .failed, now: now, note: "not run: " + why)
            // Said as a run that could not start is said, unless the job wants no popups.
            if let command = f.job.command, command.notify != .never {
                effects += showRunPopup(RunEnd(id: id, run: 0, occurrence: occurrence, title: command.label(title: f.job.title),
                                               notify: command.notify, ending: .notStarted(why), log: ""), now: now)
            }
            return effects + tick(now: now)
        }
    }

    /// A run ended (or was found ended, or found unprovable, after a restart): its history line,
    /// then the runner may forget it (`runCollected`, after the line on the same queue), and
    /// a popup when the job's `notify` asks for one.
    mutating func runEnded(_ end: RunEnd, now: Instant) -> [EngineEffect] {
        // Its time is the command's start, so `lateMs` is how late it started; `duration` says the rest.
        let record = HistoryRecord(time: end.started ?? end.ended ?? now, id: end.id, kind: .run, role: .run, due: end.occurrence,
                                   outcome: end.outcome, title: end.title, note: end.note,
                                   run: .init(exitStatus: { if case .exited(let s) = end.ending { return s } else { return nil } }(),
                                              signal: { if case .signalled(let s) = end.ending { return s } else { return nil } }(),
                                              duration: end.duration, log: end.log))
        logger.info("Command ended", metadata: ["job.id": "\(end.id)", "run": "\(end.run)", "outcome": "\(end.outcome.rawValue)"])
        let effects: [EngineEffect] = [.spool(.appendHistory(record)), .spool(.runCollected(id: end.id, run: end.run))]
        let tell: Bool
        switch end.notify {
        case .always: tell = true
        case .failure: tell = !end.succeeded
        case .never: tell = false
        }
        guard tell else { return effects }
        return effects + showRunPopup(end, now: now)
    }

    /// A run's result popup, kept for its buttons.
    mutating func showRunPopup(_ end: RunEnd, now: Instant) -> [EngineEffect] {
        runPopups[end.id] = end
        if runPopups.count > Self.maximumRunPopups, let oldest = runPopups.values.min(by: { ($0.ended ?? .epoch) < ($1.ended ?? .epoch) }) {
            runPopups[oldest.id] = nil
        }
        return [.show(renderRunEnd(end, now: now))]
    }

    static let maximumRunPopups = 256

    func renderRunEnd(_ end: RunEnd, now: Instant) -> NotificationRequest {
        var output = end.tail
        switch end.ending {
        case .notStarted(let why): output = why
        case .noResult: output = "Its end was not recorded: the machine or its runner stopped while it ran. Its output so far is in the log."
        case .unknown: output = "heraldd stopped between marking it started and starting it, so it was not run again. See herald history."
        default: if output.isEmpty { output = end.cut ? "(output cut)" : "(no output)" }
        }
        let message = config.templates["runEnded"]
        let values = ["title": TextSafety.plainText(end.title), "result": end.phrase, "output": TextSafety.plainText(output), "text": "", "late": ""]
        var summary = TextSafety.stripControls(message.summary.render(values), keepNewlines: false).trimmingSpaces
        if summary.isEmpty { summary = end.title + " " + end.phrase }
        let body = TextSafety.stripControls(message.body.render(values)).trimmingSpaces
        var actions: [PopupAction] = []
        if case .notStarted = end.ending {} else if case .unknown = end.ending {} else { actions.append(.showOutput) }
        if end.run > 0 { actions.append(.runAgain) }  // a run that was never marked has nothing to run again
        return NotificationRequest(jobID: PopupSubject.run(end.id).key, occurrence: end.occurrence, summary: summary, body: body,
                                   icon: end.succeeded ? "utilities-terminal" : "dialog-error", urgency: .normal,
                                   category: end.succeeded ? "x-herald.run" : "x-herald.run.failed", actions: actions + [.body],
                                   expiry: config.popups.expire[.run] ?? .serverDefault, sound: config.popups.sound[.run])
    }

    /// The result popup was shown, or could not be (it is in the history either way).
    mutating func runPopupShown(_ id: String, _ result: Result<Void, NotifierError>) -> [EngineEffect] {
        if case .failure(let error) = result {
            logger.notice("Cannot show a command's result; it is in the history", metadata: ["job.id": "\(id)", "error": "\(error)"])
            runPopups[id] = nil
        }
        return []
    }

    /// A button on a result popup: Show output opens the log, Run again runs it once more now.
    mutating func runPopupAction(_ id: String, _ pressed: NotificationAction, now: Instant) -> [EngineEffect] {
        guard let end = runPopups[id], end.occurrence == pressed.occurrence else {
            logger.notice("Button pressed for a command's popup no longer known", metadata: ["job.id": "\(id)"])
            return []
        }
        switch pressed.action {
        case .showOutput:
            return FileURI.from(path: end.log).map { [.open(url: $0)] } ?? []
        case .runAgain:
            runPopups[id] = nil
            guard config.commands.enabled else {
                logger.notice("Run again pressed, but commands are off in the config", metadata: ["job.id": "\(id)"])
                return []
            }
            logger.info("Running a command again", metadata: ["job.id": "\(id)", "run": "\(end.run)"])
            return [.runAgain(id: id, run: end.run, at: now)]
        default:
            runPopups[id] = nil
            return []
        }
    }
}
