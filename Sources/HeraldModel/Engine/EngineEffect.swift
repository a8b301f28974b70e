/// Something the engine wants done, returned by `Engine.handle(_:now:)`. The engine has already
/// updated its state as if it succeeded; a failure comes back as an event.
///
/// Each case names the queue it belongs on (see ARCHITECTURE.md): the scheduler's queue never
/// waits for the disk or the notification server.
public enum EngineEffect: Sendable, Equatable {
    /// Notifier (GLib thread): show this popup; answer with `.shown`.
    case show(NotificationRequest)
    /// Spool queue: read a job file (and its habit log); answer with `.loaded`.
    case load(LoadRequest)
    /// Spool queue: carry out a file operation; answer only a failure, with `.operationFailed`.
    case spool(SpoolOperation)
    /// Spool queue: list `jobs/`; answer with `.jobsListed`.
    case listJobs
    /// Intake queue: read and check these files from `new/` (nil: all of them); answer with
    /// `.intakeRead`, in chunks.
    case readIntake(IntakeRequest)
    /// Intake queue: move or write accepted jobs into `jobs/`, sync, refuse the rest; answer
    /// with `.filed`.
    case file(FilingPlan)
    /// Notifier: take job `jobID`'s popup off the screen (it was handled elsewhere).
    case close(jobID: String)
    /// A background queue: open a tracking page with the desktop's opener (`xdg-open`).
    case open(url: String)
    /// Calendar queue: write a Dismiss or Snooze into the item's file (RFC 9074).
    case writeBack(CalendarWriteBack)
    /// Scheduler's queue: arm the wall-clock timer for this instant (nil: disarm); answer with
    /// `.timerFired`.
    case armTimer(Instant?)
    /// heraldd's wake alarm (a `CLOCK_REALTIME_ALARM` timer): wake the machine from suspend at
    /// this instant (nil: disarm).
    case armWake(Instant?)
    /// Spool queue, after every effect before it: answer the CLI's request `ticket` (its
    /// changes are on disk by then; a failed one turns the answer into a refusal).
    case reply(ticket: UInt64, ClientAnswer)
    /// heraldd's command runner: mark this occurrence of a run job started on disk, then start
    /// it; answer with `.runStarted`, and `.runEnded` when it ends.
    case startRun(RunStart)
    /// The command runner: run job `id`'s run `run` once more, as it was (a popup's Run again).
    case runAgain(id: String, run: Int, at: Instant)
    /// The command runner: end job `id`'s run `run` as a cancel does (it was cancelled while
    /// it was being started), even if its runner has not started the command yet.
    case stopRun(id: String, run: Int)
    /// Any queue: log this line (the engine logs nothing itself).
    case log(LogLine)
}

/// A change to the daemon's own part of the spool. Each is one atomic rename or an appended line.
public enum SpoolOperation: Sendable, Equatable {
    /// A pending job moves to its next state within `jobs/`.
    case advance(from: JobFileName, to: JobFileName)
    /// A job whose last occurrence fired moves to `done/`.
    case finish(JobFileName)
    /// A finished job (in `done/` as `from`) comes back to `jobs/` as `to`: a snooze after the end.
    case restore(from: JobFileName, to: JobFileName)
    /// A file in `jobs/` that cannot be trusted moves to `failed/` with its reason.
    case quarantine(name: String, reason: String)
    case appendHistory(HistoryRecord)
    case appendHabitLog(id: String, HabitLog.Entry)
    /// A pending job moves to `cancelled/` (`herald cancel`).
    case cancel(JobFileName)
    /// A run's end is in the history (the line before this one on the same queue): its files
    /// are marked collected, so a restart does not report it again; old runs beyond
    /// `RunFiles.keptRuns` are removed.
    case runCollected(id: String, run: Int)

    /// The job the operation is about, if any.
    public var jobID: String? {
        switch self {
        case .advance(let from, _): return from.id
        case .finish(let name), .cancel(let name): return name.id
        case .restore(let from, _): return from.id
        case .appendHabitLog(let id, _): return id
        case .appendHistory(let record): return record.id
        case .runCollected(let id, _): return id
        case .quarantine: return nil
        }
    }
}

/// Which files in `new/` to read, and how to read their times.
public struct IntakeRequest: Sendable, Equatable {
    /// The names to read; nil for everything in `new/`.
    public var names: [String]?
    public var localZone: TimeZoneRules
    /// The configured heads-up lead, for deliveries without their own.
    public var defaultLead: Span
    public init(names: [String]?, localZone: TimeZoneRules, defaultLead: Span) {
        self.names = names; self.localZone = localZone; self.defaultLead = defaultLead
    }
    /// The same request for other files.
    public func with(names: [String]) -> IntakeRequest {
        IntakeRequest(names: names, localZone: localZone, defaultLead: defaultLead)
    }
}

/// A file from `new/` as `IntakeReader` found it.
public enum IntakeFile: Sendable, Equatable {
    /// One job (`*.json`).
    case single(file: String, IntakeCandidate)
    /// Part of a batch (`*.jsonl`) whose every line is valid, claimed for filing.
    case batch(BatchPart)
    /// A valid batch whose name is still claimed by one being filed: read again later.
    case waiting(file: String)
    /// Not a valid job (or batch): moves to `failed/`.
    case refused(file: String, IntakeRefusal)
    /// Gone before it could be read (taken by an earlier read).
    case gone(file: String)
}

/// Part of a claimed batch: `total` jobs in all, sent in order; the last part has `isLast`.
public struct BatchPart: Sendable, Equatable {
    /// The claimed name in `new/` (`.filing-<name>`).
    public var file: String
    public var candidates: [IntakeCandidate]
    public var total: Int
    public var isFirst: Bool
    public var isLast: Bool
    /// Claimed before this heraldd started: it was admitted then, and partly filed.
    public var resumed: Bool
    public init(file: String, candidates: [IntakeCandidate], total: Int, isFirst: Bool, isLast: Bool, resumed: Bool = false) {
        self.file = file; self.candidates = candidates; self.total = total
        self.isFirst = isFirst; self.isLast = isLast; self.resumed = resumed
    }
}

/// A valid job waiting in `new/`.
public struct IntakeCandidate: Sendable, Equatable {
    /// The job's own id; nil when it has none (the engine picks one).
    public var id: String?
    public var kind: Job.Kind
    /// Its `wake` field (nil: the config's default for the kind).
    public var wake: Bool?
    /// When it first fires, counted from when it was read.
    public var first: Instant
    /// A single file's permission bits (it is made 0600 when they differ).
    public var mode: UInt32
    /// A batch line's bytes, written as the job file.
    public var line: [UInt8]
    /// A single file's inode as it was read (0: not known): only that file is moved.
    public var inode: UInt64
    public init(id: String?, kind: Job.Kind, first: Instant, mode: UInt32 = 0o600, line: [UInt8] = [], wake: Bool? = nil, inode: UInt64 = 0) {
        self.id = id; self.kind = kind; self.first = first; self.mode = mode; self.line = line; self.wake = wake; self.inode = inode
    }
}

/// Why a file in `new/` is refused: the whole reason for `failed/`, and one without values
/// quoted from the file for logs above debug.
public struct IntakeRefusal: Sendable, Equatable {
    public var reason: String
    public var redacted: String
    public init(reason: String, redacted: String) { self.reason = reason; self.redacted = redacted }
}

/// What the intake queue does with accepted and refused files from `new/`.
public struct FilingPlan: Sendable, Equatable {
    public struct Move: Sendable, Equatable {
        public var file: String
        public var name: JobFileName
        public var fixMode: Bool
        /// The inode that was checked (0: any): a file put there since is not moved unchecked.
        public var inode: UInt64 = 0
    }
    public struct Write: Sendable, Equatable {
        public var name: JobFileName
        public var line: [UInt8]
    }
    public struct Refusal: Sendable, Equatable {
        public var file: String
        public var reason: String
    }
    /// Single files: `new/<file>` → `jobs/<name>`.
    public var moves: [Move] = []
    /// Batch lines: written as `jobs/<name>`.
    public var writes: [Write] = []
    /// Files moved to `failed/`.
    public var refusals: [Refusal] = []
    /// The batch the writes come from, and whether they are its last part.
    public var batch: String?
    public var isLastPart = false
    /// A batch whose every job is in `jobs/`: the disk is synced, then the batch removed from `new/`.
    public var removeBatch: String?
    public init() {}
    public var isEmpty: Bool {
        moves.isEmpty && writes.isEmpty && refusals.isEmpty && batch == nil && removeBatch == nil
    }
}

/// What came of a `FilingPlan`.
public struct FilingResult: Sendable, Equatable {
    /// Now in `jobs/`.
    public var filed: [JobFileName] = []
    /// Could not be put there (the file vanished, or the disk failed).
    public var failed: [JobFileName] = []
    /// Echoed from the plan.
    public var batch: String?
    public var isLastPart = false
    public var removedBatch: String?
    /// The files of `new/` the plan moved or refused, whatever came of each.
    public var settledFiles: [String] = []
    public init() {}
}

extension IntakeFile {
    /// A batch being filed is claimed as `.filing-<name>` first: hidden from other readers, and
    /// recognisable as half-filed if heraldd stops before it is done.
    public static let claimPrefix = ".filing-"

    public static func isClaimedBatch(_ name: String) -> Bool { name.hasPrefix(claimPrefix) && name.hasSuffix(".jsonl") }

    /// The name a writer gave a file in `new/`, claimed or not.
    public static func unclaimedName(_ name: String) -> String {
        isClaimedBatch(name) ? String(name.dropFirst(claimPrefix.count)) : name
    }
}
