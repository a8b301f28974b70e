/// Everything the engine knows about one job, in one place: its state on disk, where it is on
/// its way to the screen, its popup, and its document if it was read ahead. The engine keeps
/// one of these per job, with its place in the one index of due times (`JobRecords`, which
/// stores them packed), so a job cannot be "loading" in one table and "cancelled" in another.
struct JobRecord: Sendable {
    /// The job's file in `jobs/` (or the name it is being filed as); nil once it has left the
    /// spool while its popup is still up (a Snooze on it brings a finished one-shot back).
    var name: JobFileName?
    var phase: Phase = .idle
    /// Its popup, while the server has it.
    var popup: Popup?
    /// Its document, read ahead for the state `ahead.name` (never a habit's: its log changes).
    var readAhead: ReadAhead?
    /// One of a crowd overdue after a break: once read, it is held for the summary popup.
    var gathered = false

    init(name: JobFileName?, phase: Phase = .idle) {
        self.name = name
        self.phase = phase
    }

    /// Where the job is between its file and the screen.
    enum Phase: Sendable {
        /// Waiting for its time in the due index (or for nothing, once it has left the spool).
        case idle
        /// Read and checked in `new/`, and being put into `jobs/` by the intake queue. It is in
        /// the due index already; if it comes due first, it fires as soon as it is filed.
        case filing
        /// Due at `due`; its document is being read.
        case loading(due: Instant)
        /// With the notifier, until it answers.
        indirect case showing(Firing)
        /// Held back for one summary popup (quiet time, or a crowd after a break). The file
        /// keeps its name, so a restart holds it again.
        indirect case held(Firing)
        /// In the summary popup the notifier is showing.
        indirect case summarised(Firing)
        /// A run job's occurrence with the runner, until it answers that it is marked started.
        indirect case starting(Firing)
    }

    /// The popup the server has for this job.
    indirect enum Popup: Sendable {
        case onScreen(Firing)
        /// A habit's "+1" was pressed: its log is being read to show the new amount.
        case adding(Firing)
        /// Shown again with the new amount (the same occurrence: no new history line).
        case refreshing(Firing)

        var firing: Firing {
            switch self {
            case .onScreen(let f), .adding(let f), .refreshing(let f): return f
            }
        }
    }

    /// A document read ahead, for the job's state `name`.
    indirect enum ReadAhead: Sendable {
        /// Asked for (a job waiting its turn in a burst), not read yet.
        case asked(name: JobFileName)
        case read(name: JobFileName, job: LoadedJob)
    }

    /// Whether the job is being read or shown (its schedule waits for that to end).
    var isBusy: Bool {
        switch phase {
        case .loading, .showing, .starting: return true
        default: return false
        }
    }

    var isFiling: Bool { if case .filing = phase { return true } else { return false } }

    /// Nothing is left to remember: no file, nothing under way, no popup.
    var isEmpty: Bool {
        guard name == nil, popup == nil else { return false }
        switch phase {
        case .idle, .filing, .held: return true
        case .loading, .showing, .summarised, .starting: return false
        }
    }
}

/// One occurrence on its way to the screen: the job's state, its document and schedule, and
/// when it came due.
struct Firing: Sendable {
    var name: JobFileName
    var job: Job
    var schedule: JobSchedule
    var due: Instant
}
