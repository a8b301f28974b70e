/// What to write into the spool for one calendar source: given the alarms its files hold now
/// and the calendar jobs already planned from it, which jobs to submit, to replace and to
/// remove. A decision like the engine's: no I/O, time passed in; heraldd's `CalendarSync`
/// reads the files and the spool and carries the plan out.
///
/// Items are planned one by one within the source's share of the spool (`CalendarShares`):
/// an item that cannot be a job is reported and skipped alone, and never rides in a batch
/// that would be refused whole.
public enum CalendarReconciliation {
    /// One item of the source and its alarms in the window, in order.
    public struct Item: Sendable {
        public var file: String
        /// The collection folder it is in ("" for the source's own folder or a single file).
        public var collection: String
        public var uid: String
        public var alarms: [CalendarAlarm]
        /// Written by this machine's `herald ... --sync`: planned before any other item of the
        /// source (a peer's flood, however near in time, never takes its place).
        public var own = false
        public init(file: String, collection: String, uid: String, alarms: [CalendarAlarm], own: Bool = false) {
            self.file = file; self.collection = collection; self.uid = uid; self.alarms = alarms; self.own = own
        }
    }

    /// A calendar job of this source in `jobs/`, and a hash of its document as last written or
    /// read (nil: not known; it is then rewritten if the plan differs in any way).
    public struct Existing: Sendable {
        public var name: JobFileName
        public var written: Int?
        public init(name: JobFileName, written: Int?) { self.name = name; self.written = written }
    }

    /// A job as it will be written: the document and its hash.
    public struct Planned: Sendable {
        public var job: Job
        public var document: String
        public var hash: Int { document.hashValue }
    }

    /// The room the plan may take.
    public struct Room: Sendable {
        /// The most jobs this source may have (`CalendarShares.sourceShare`).
        public var share: Int
        /// Jobs the spool can still take in (`limits.jobs` less what it holds): new jobs
        /// past it wait for room rather than being refused into `failed/`.
        public var spool: Int
        public init(share: Int, spool: Int) { self.share = share; self.spool = spool }
    }

    public struct Plan: Sendable {
        public var submit: [Planned] = []
        public var replace: [(current: JobFileName, planned: Planned)] = []
        public var remove: [JobFileName] = []
        /// Plan again before this, when a job lists fewer alarms than its item has.
        public var refillAt: Instant?
        /// Items with an alarm to show, jobs planned (kept, replaced or new), items left out
        /// for the source's share, and new ones waiting for room in the spool.
        public var wanted = 0
        public var planned = 0
        public var overShare = 0
        public var spoolFull = 0
        /// Items that cannot be jobs: the file, the UID and why.
        public var problems: [(file: String, uid: String, reason: String)] = []
    }

    /// The plan for `source`.
    ///
    /// - Parameters:
    ///   - items: every item of the source with alarms, in the files' order.
    ///   - existing: this source's calendar jobs in `jobs/`, by id.
    ///   - handled: for items without a job, the latest alarm a job of theirs already fired or
    ///     was cancelled at (`done/`, `cancelled/`): a job planned anew starts after it.
    ///   - grace: the catch-up grace: a new job starts no earlier than this before now.
    public static func plan(source: HeraldConfig.CalendarSource, items: [Item], existing: [String: Existing],
                            handled: [String: Instant], now: Instant, grace: Span, localZone: TimeZoneRules, room: Room) -> Plan {
        var plan = Plan()
        let horizonEnd = now + CalendarPlanner.horizon
        let from = now - grace - Span.seconds(86_400)
        // Each item's job as the calendar has it now.
        var jobs: [(id: String, item: Int, job: Job, truncated: Bool)] = []
        var seen: Set<String> = []
        for (k, item) in items.enumerated() {
            // The file's alarms are kept a day past the horizon; a job lists those within it.
            let alarms = item.alarms.filter { $0.at < horizonEnd }
            guard !alarms.isEmpty else { continue }
            let id = CalendarPlanner.jobID(source: source.path, file: item.file, uid: item.uid)
            guard seen.insert(id).inserted else {
                // Two items whose job ids meet (a hash can be made to): the second is not planned, and said.
                plan.problems.append((item.file, item.uid, "its job id \(id) is another item's; it is not planned"))
                continue
            }
            let since = existing[id].map { min($0.name.occurrence, now) }
                ?? max(now - grace, handled[id].map { $0 + Span(microseconds: 1) } ?? from)
            guard let (job, truncated) = CalendarPlanner.job(for: alarms, file: item.file, source: source, since: since, now: now,
                                                             localZone: localZone)
            else { continue }
            jobs.append((id, k, job, truncated))
        }
        plan.wanted = jobs.count
        // A snoozed job keeps its snooze (it is planned again once it has fired), and its room;
        // so does your own synced reminder.
        let first = jobs.indices.filter { existing[jobs[$0].id]?.name.snoozedUntil != nil || items[jobs[$0].item].own }
        let snoozed = first.filter { existing[jobs[$0].id]?.name.snoozedUntil != nil }
        let own = first.filter { existing[jobs[$0].id]?.name.snoozedUntil == nil }
        let others = jobs.indices.filter { existing[jobs[$0].id]?.name.snoozedUntil == nil && !items[jobs[$0].item].own }
        let candidates = others.map { j in
            CalendarShares.Candidate(collection: items[jobs[j].item].collection, file: items[jobs[j].item].file, first: jobs[j].job.alarms[0].at)
        }
        let kept = own.prefix(max(0, room.share - snoozed.count))
            + CalendarShares.select(candidates, room: max(0, room.share - snoozed.count - own.count)).map { others[$0] }
        plan.overShare = others.count + own.count - kept.count
        var wanted: Set<String> = Set(snoozed.map { jobs[$0].id })
        var spoolRoom = room.spool
        // New jobs take the spool's room nearest first.
        for j in kept.sorted(by: { (jobs[$0].job.alarms[0].at, $0) < (jobs[$1].job.alarms[0].at, $1) }) {
            let (id, k, job, truncated) = jobs[j]
            let current = existing[id]
            let planned: Planned
            switch fitted(job, written: current?.written, localZone: localZone) {
            case .success(let p): planned = p
            case .failure(let problem):
                plan.problems.append((items[k].file, items[k].uid, "an item's alarms cannot be a job: \(problem.reason)"))
                continue
            }
            guard let current else {
                guard spoolRoom > 0 else { plan.spoolFull += 1; continue }
                spoolRoom -= 1
                wanted.insert(id)
                plan.submit.append(planned)
                if truncated, let last = planned.job.alarms.last?.at { plan.refillAt = min(plan.refillAt ?? last, last) }
                continue
            }
            wanted.insert(id)
            if truncated, let last = planned.job.alarms.last?.at { plan.refillAt = min(plan.refillAt ?? last, last) }
            if current.written != planned.hash { plan.replace.append((current.name, planned)) }
        }
        plan.planned = wanted.count
        // Derived from the calendar, which no longer has these alarms (or no room for them): the job goes.
        plan.remove = existing.filter { !wanted.contains($0.key) }.map(\.value.name).sorted { $0.description < $1.description }
        return plan
    }

    /// The most characters of a title, text, summary or location a calendar job keeps when the
    /// whole would not fit a job file (a popup shows far fewer).
    public static let fittedText = 500

    /// The planned job as it will be written, and its document: titles and texts cut to fit a
    /// job file, and checked by the same decoder heraldd's intake uses (unless it is the
    /// document already written, `written` being its hash: checked then).
    public static func fitted(_ job: Job, written known: Int?, localZone: TimeZoneRules) -> Result<Planned, JobError> {
        var job = job
        let first = job.encoded(zone: localZone) + "\n"
        if first.hashValue == known { return .success(Planned(job: job, document: first)) }
        if first.utf8.count > Job.maximumFileSize {
            func cut(_ s: String?) -> String? { s.map { $0.count > fittedText ? String($0.prefix(fittedText)) + "…" : $0 } }
            job.title = cut(job.title)
            job.text = cut(job.text)
            for i in job.alarms.indices {
                job.alarms[i].summary = cut(job.alarms[i].summary)
                job.alarms[i].location = cut(job.alarms[i].location)
            }
        }
        do { return .success(Planned(job: job, document: try job.checkedDocument(zone: localZone, localZone: localZone))) } catch {
            return .failure(error)
        }
    }
}
