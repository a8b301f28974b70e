/// The summary popup's own state machine: the jobs held for it (quiet time, one of a crowd
/// after a break, more popups than the server keeps), the one summary on its way, the lines of
/// the one on screen (a new summary replaces it in place, so it lists them too), and the
/// repeating reminders in it. The jobs themselves stay in their records (phases `held` and
/// `summarised`); this owns the order, and the engine asks it what to do.
struct Summary: Sendable {
    /// Jobs held for the summary, in the order they were held.
    private(set) var held: [String] = []
    /// The summary is in the outbox, or on its way to the screen with `inPopup`'s jobs.
    private(set) var isQueued = false
    /// The jobs in the summary on its way, in its order.
    private(set) var inPopup: [String] = []
    /// The lines of the summary on screen, and of the one being sent (kept when it is shown).
    private(set) var lines: [Line] = []
    private var linesSending: [Line] = []
    /// The repeating reminders in the summary on screen: they go on repeating (into the summary
    /// again while it is crowded) until a click on it, or its dismissal, acknowledges them.
    private(set) var repeating: [String: Firing] = [:]
    /// Why the summary holds its popups (its heading).
    private(set) var reason: MessageRenderer.SummaryReason = .away
    /// When the quiet time holding popups ends (a wake-up), if known.
    private(set) var quietEnds: Instant?

    /// One job's line in the summary popup.
    struct Line: Sendable, Equatable {
        var id: String
        var kind: Job.Kind
        var due: Instant
        var title: String
    }

    /// The most lines a summary lists, and the most repeating reminders it remembers.
    static let maximumLines = 1000

    /// Job `id` is held for the summary, because of `reason` (the first held decides the
    /// heading); the quiet time it is in ends at `quietEnds`, if that is known.
    mutating func hold(_ id: String, reason: MessageRenderer.SummaryReason, quietEnds: Instant?) {
        if held.isEmpty && !isQueued { self.reason = reason }
        held.append(id)
        self.quietEnds = quietEnds
    }

    /// When the engine must wake for the held jobs (the end of the quiet time holding them).
    var wakeup: Instant? { held.isEmpty ? nil : quietEnds }

    /// Whether the summary goes into the outbox now: something is held, nothing is still being
    /// gathered, none is queued already, and it is not quiet.
    func isReady(gathering: Int, quiet: Bool) -> Bool { !held.isEmpty && gathering == 0 && !isQueued && !quiet }

    /// The summary went into the outbox.
    mutating func queue() {
        isQueued = true
        quietEnds = nil
    }

    /// Its turn in the outbox came: the held jobs (those `stillHeld` says are) go into it.
    /// Returns its lines, or nil when none is left (it is then no longer queued).
    mutating func send(_ firings: [Firing], title: (Firing) -> String) -> [Line]? {
        held.removeAll()
        guard !firings.isEmpty else {
            isQueued = false
            return nil
        }
        inPopup += firings.map(\.name.id)
        // A job already listed (a repeat held again) keeps one line, its latest.
        let fresh = Set(firings.map(\.name.id))
        let all = lines.filter { !fresh.contains($0.id) } + firings.map { f in
            Line(id: f.name.id, kind: f.job.kind, due: f.name.occurrence, title: title(f))
        }
        linesSending = Array(all.suffix(Self.maximumLines))  // a server that never reports it closed
        return all
    }

    /// The jobs in the summary that went out (or failed), in its order; they leave it.
    mutating func takeSent() -> [String] {
        defer { inPopup.removeAll() }
        return inPopup
    }

    /// The summary was shown: its lines are on screen; `repeats` are its repeating reminders.
    mutating func shown(repeats: [Firing]) {
        for f in repeats where repeating.count < Self.maximumLines || repeating[f.name.id] != nil { repeating[f.name.id] = f }
        isQueued = false
        lines = linesSending
        linesSending = []
    }

    /// The summary could not be shown: its jobs are held again, first, for the retry.
    mutating func failed(heldAgain ids: [String]) { held = ids + held }

    /// The summary left the screen; the repeating reminders it held, in id order.
    mutating func ended() -> [Firing] {
        lines = []
        defer { repeating = [:] }
        return repeating.values.sorted { $0.name.id < $1.name.id }
    }

    /// The server left with the summary on screen.
    mutating func serverGone() {
        lines = []
        repeating = [:]
    }
}
