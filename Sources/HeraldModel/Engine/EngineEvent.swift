/// Something that happened, told to `Engine.handle(_:now:)`: the world's side of the engine.
///
/// The shell (heraldd, or a test) turns timers, inotify, the notifier's answers and the results
/// of the file work it did for the engine into these, one at a time, on one queue.
public enum EngineEvent: Sendable {
    /// heraldd starts: what `jobs/` holds (listed by the shell before READY).
    case started(jobs: [JobFileName], strays: [String])
    /// The timer armed by `.armTimer` went off.
    case timerFired
    /// The wall clock was set (a step, or a resume from suspend).
    case clockChanged
    /// The machine resumed from suspend (logind's `PrepareForSleep(false)`).
    case resumed
    /// Pending jobs found to wake the machine (heraldd reads `index/docs.pack` for them after
    /// it starts; jobs taken in later are known from their intake).
    case wakersFound([(id: String, kind: Job.Kind, wake: Bool?)])
    /// Files appeared in `new/` (inotify).
    case intakeAppeared([String])
    /// Files from `new/`, read and checked by `IntakeReader`.
    case intakeRead([IntakeFile])
    /// Intake files the shell moved or wrote into `jobs/` for a `FilingPlan`.
    case filed(FilingResult)
    /// Files came or went in `jobs/` (inotify), in the order they did.
    case jobsChanged([JobsChange])
    /// inotify dropped events: the shell asks for `.readIntake(nil)` and `.listJobs` from this.
    case watchOverflowed
    /// What `jobs/` holds now (for `.listJobs`).
    case jobsListed([JobFileName])
    /// The job document (and habit log) asked for by `.load`.
    case loaded(LoadRequest, Result<LoadedJob, SpoolFileError>)
    /// The notifier finished with a popup.
    case shown(jobID: String, Result<Void, NotifierError>)
    /// The notification server that showed the popups left the bus, or another took its name:
    /// none of them is on screen any more (the notifier forgot them at the same point).
    case serverGone
    /// A notification server took the name on the bus.
    case serverAppeared
    /// What the notification server is (its traits: how many popups it keeps per app).
    case serverDescribed(ServerTraits)
    /// The desktop's do-not-disturb went on (what and since when) or off (nil).
    case desktopQuietChanged(DesktopQuiet?)
    /// A button on a popup was pressed, or a popup closed.
    case popup(PopupEvent)
    /// `herald quiet on|off` changed `quiet.json` (nil: no file).
    case quietSwitched(QuietSwitch?)
    /// The local zone changed; `jobs` are the recurring jobs that follow it
    /// (from `Spool.localZoneRecurrences`).
    case localZoneChanged(TimeZoneRules, jobs: [(name: JobFileName, job: Job)])
    /// SIGHUP brought a new configuration.
    case configReloaded(HeraldConfig)
    /// A file operation asked for by `.spool` failed.
    case operationFailed(SpoolOperation, FileSystemError)
    /// The command runner's answer to `.startRun` (or a Run again) for job `id`'s `occurrence`.
    case runStarted(id: String, occurrence: Instant, RunStartOutcome)
    /// A run ended, or was found ended (or unprovable) when heraldd started.
    case runEnded(RunEnd)
    /// A one-job command from the CLI on `heraldd.sock`; answered with `.reply(ticket:)`.
    case request(ticket: UInt64, ClientRequest)
}

/// One change in `jobs/` as inotify reported it.
public enum JobsChange: Sendable, Equatable {
    case added(String)
    case removed(String)
}

/// A job document read for the engine.
public struct LoadedJob: Sendable {
    public var job: Job
    /// A habit's log; nil for other kinds.
    public var habitLog: HabitLog.Contents?
    public init(job: Job, habitLog: HabitLog.Contents? = nil) { self.job = job; self.habitLog = habitLog }
}

/// Which job file to read, and why.
public struct LoadRequest: Sendable, Equatable {
    public enum Purpose: Sendable, Equatable {
        /// The job is due: decide what to show.
        case fire(due: Instant)
        /// A popup button needs the document (a habit's Done for `occurrence`).
        case action(PopupAction, occurrence: Instant)
        /// The job due next: read ahead, so that it shows without waiting for the spool queue.
        case readAhead
        /// A CLI request needs the document to decide.
        case request(ticket: UInt64, ClientRequest)
    }
    public var name: JobFileName
    public var purpose: Purpose
    /// Read from `done/` rather than `jobs/` (a finished job being snoozed).
    public var finished: Bool
    public var id: String { name.id }
    public init(name: JobFileName, purpose: Purpose, finished: Bool = false) {
        self.name = name; self.purpose = purpose; self.finished = finished
    }
}
