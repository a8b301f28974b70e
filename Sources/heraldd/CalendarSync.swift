import CHeraldSys
import Dispatch
import Glibc
import HeraldCore
import Logging

/// Keeps the calendar jobs in `jobs/` in step with the configured calendars. Each source is
/// read by its own `CalendarSourceReader` (its own queue: a source on a hung mount holds up no
/// other, and a read that does not come back within `readDeadline` is reported); what it read
/// is reconciled with the source's jobs by `CalendarReconciliation` (pure: which jobs to
/// submit, replace and remove, within the source's share of the spool), and this class writes
/// the answer into the spool as the CLI would (new jobs into `new/`, changed ones with
/// `Spool.replace`, gone ones removed). The engine hears of each change through its own watch
/// on the spool. Sources are read at start, on a change (inotify, 100 ms debounce), before a
/// job's listed alarms run out, and at least daily.
final class CalendarSync: @unchecked Sendable {
    private let queue = DispatchQueue(label: "herald.calendar", qos: .utility)
    private let spool: Spool
    private let logger: Logger
    /// How long a source's read may take before it is reported as not answering.
    private let readDeadline: DispatchTimeInterval
    // Queue-confined state.
    private var sources: [HeraldConfig.CalendarSource] = []
    private var grace: Span = .minutes(60)
    private var maxJobs = HeraldConfig().maxJobs
    private var limit = HeraldConfig().calendarLimit
    /// The synced collection, whose items this machine wrote keep their room (`Spool.ownSyncedUIDs`).
    private var syncCalendar: String?
    private var localZone: TimeZoneRules
    /// Each source's reader, a process of its own (`CalendarSourceProcess`).
    private var readers: [String: CalendarSourceProcess] = [:]
    /// Sources whose folders are watched already (a watch is added once: adding one walks the
    /// path, which a hung mount would hold).
    private var watchedFolders: Set<String> = []
    /// Reads under way, by source: since when, the deadline's timer, and whether to read again after.
    private var reading: [String: (since: Instant, deadline: DispatchSourceTimer, again: Bool)] = [:]
    private var pending: Set<String> = []
    private var inotify: Int32 = -1
    private var readSource: DispatchSourceRead?
    private var watches: [Int32: String] = [:]  // watch descriptor → source
    private var refill: DispatchSourceTimer?
    /// Which source each calendar job was planned from (read from the job files once).
    private var owners: [String: String] = [:]
    private var ownersLoaded = false
    /// A hash of each calendar job's document as last written or read, to compare without reading it.
    private var written: [String: Int] = [:]
    private var problems = ProblemLog()
    /// The files set aside because heraldd died twice planning them (by path: the version set aside).
    private var setAside: [String: String] = [:]
    private var setAsidePath: String { spool.root + "/.planning-aside" }
    /// What `herald status` shows of each source.
    private var statuses: [String: CalendarSourceStatus] = [:]
    private var onStatus: (@Sendable ([CalendarSourceStatus]) -> Void)?

    init(spool: Spool, localZone: TimeZoneRules, logger: Logger, readDeadline: DispatchTimeInterval = .seconds(30)) {
        self.spool = spool
        self.localZone = localZone
        self.logger = logger
        self.readDeadline = readDeadline
        loadSetAside()
    }

    /// The queue the watchdog checks: it only ever waits for the spool, never for a calendar's folder.
    var queueForWatchdog: DispatchQueue { queue }

    /// Where each source stands, whenever it changes (called on the calendar queue).
    func onStatusChange(_ body: @escaping @Sendable ([CalendarSourceStatus]) -> Void) {
        queue.async { [self] in onStatus = body }
    }

    // MARK: the crash-loop breaker

    /// Reads the files set aside before, and the one an earlier heraldd that died was planning
    /// (the note of one source: `claimLeftover`).
    private func loadSetAside() {
        if case .success(let bytes) = spool.readChecked(setAsidePath, limit: 1 << 20) {
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                let text = String(decoding: line, as: UTF8.self)
                if let (version, file) = Self.splitNote(text) { setAside[file] = version }
            }
        }
        // A heraldd before sources had notes of their own.
        if let leftover = WorkClaim.leftover(spool: spool, name: WorkClaim.calendar) { claimLeftover(leftover, reader: nil) }
    }

    /// Takes up what a heraldd that died left in a note: one death is forgiven (the file is
    /// planned once more, its count noted), a second sets the file aside.
    private func claimLeftover(_ leftover: (what: String, strikes: Int), reader: CalendarSourceProcess?) {
        guard let (version, file) = Self.splitNote(leftover.what) else { return }
        guard leftover.strikes >= WorkClaim.strikesToSetAside else {
            logger.warning("heraldd stopped while planning a calendar file; planning it once more", metadata: ["file": "\(file)"])
            reader?.suspect(leftover.what, strikes: leftover.strikes)
            return
        }
        setAside[file] = version
        saveSetAside()
    }

    private func saveSetAside() {
        let text = setAside.map { "\($0.value) \($0.key)\n" }.sorted().joined()
        do {
            try AtomicReplace.write(text.utf8, to: setAsidePath, options: .spool(staging: spool.tmp))
        } catch {
            logger.error("Cannot record the calendar files set aside", metadata: ["error": "\(error)"])
        }
    }

    /// `"<version> <path>"`: the file's stamp (inode, size, modification time) and its path.
    static func splitNote(_ text: String) -> (version: String, file: String)? {
        guard let space = text.firstIndex(of: " ") else { return nil }
        let file = String(text[text.index(after: space)...])
        return file.hasPrefix("/") ? (String(text[..<space]), file) : nil
    }

    /// The notes a clean stop clears: the legacy one and each source's.
    static func notes(in spool: Spool) throws(FileSystemError) -> [String] {
        try [WorkClaim.calendar] + FileSystem.list(spool.root).filter {
            $0.hasPrefix(WorkClaim.calendar + "-") && $0 != ".planning-aside" && !$0.hasPrefix(".planning-aside.")
        }
    }

    // MARK: configuration

    /// Takes the configured sources (at start and after a reload) and plans each at once.
    func configure(_ config: HeraldConfig, localZone: TimeZoneRules) {
        queue.async { [self] in
            let removed = sources.map(\.path).filter { p in !config.calendars.contains { $0.path == p } }
            sources = config.calendars
            grace = config.catchUpGrace
            maxJobs = config.maxJobs
            limit = config.calendarLimit
            syncCalendar = config.syncCalendar
            self.localZone = localZone
            for source in sources {
                if let reader = readers[source.path], reader.source == source { continue }
                let first = readers[source.path] == nil
                let reader = CalendarSourceProcess(source: source, spool: spool)
                let leftover = first ? WorkClaim.leftover(spool: spool, name: reader.noteName) : nil
                if let leftover { claimLeftover(leftover, reader: reader) }
                readers[source.path]?.stop()
                readers[source.path] = reader
            }
            for path in removed {
                readers.removeValue(forKey: path)?.stop()
                statuses.removeValue(forKey: path)
                removeJobs(ofSource: path)
            }
            startWatching()
            pending.formUnion(sources.map(\.path))
            syncPending()
            publishStatus()
        }
    }

    /// Writes a Dismiss or Snooze back into an item's file: only a file that a configured
    /// source with `writeBack` lists now, whatever the job document says; on the source's own
    /// queue, reached from its folder.
    func writeBack(_ change: CalendarWriteBack) {
        queue.async { [self] in
            guard let source = sources.first(where: { $0.path == change.source }), source.writeBack, let reader = readers[source.path] else {
                logger.notice("A calendar job asked for a write-back its source does not allow; nothing written")
                return
            }
            let logger = logger
            reader.queue.async {
                let (done, message) = reader.writeBack(change)
                if done { logger.info("\(message)") } else { logger.notice("\(message)") }
            }
        }
    }

    /// Stops watching and planning, and ends the readers; never waits for a source's read (one
    /// may never return).
    func cancel() {
        queue.async { [self] in
            readSource?.cancel()
            refill?.cancel()
            for read in reading.values { read.deadline.cancel() }
            for reader in readers.values { reader.stop() }
        }
    }

    /// Waits until the queue has done what it was given, and every source its read (tests and
    /// the bench measure after this).
    func drain() {
        queue.sync {}
        for reader in queue.sync(execute: { Array(readers.values) }) { reader.queue.sync {} }
        queue.sync {}
    }

    // MARK: watching

    private static let watchMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF)

    private func startWatching() {
        readSource?.cancel()
        readSource = nil
        watches = [:]
        watchedFolders = []
        guard !sources.isEmpty else { return }
        guard let watcher = Descriptor(inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))) else {
            logger.error("Cannot start inotify for calendars"); return
        }
        let fd = watcher.raw
        inotify = fd
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [unowned self] in drain(fd) }
        source.setCancelHandler { watcher.close() }
        source.resume()
        readSource = source
    }

    private func drain(_ fd: Int32) {
        var touched = false
        readInotifyEvents(fd) { wd, mask, name in
            if mask & UInt32(IN_Q_OVERFLOW) != 0 { pending.formUnion(sources.map(\.path)); touched = true; return }
            guard let path = watches[wd] else { return }
            // Temporary files of vdirsyncer, khal and Herald itself are not items.
            if !name.isEmpty, mask & UInt32(IN_ISDIR) == 0, name.hasPrefix(".") || !name.hasSuffix(".ics") { return }
            pending.insert(path)
            touched = true
        }
        // A sync run writes many files at once: plan once they have settled.
        if touched { queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [weak self] in self?.syncPending() } }  // monotonic: a debounce
    }

    // MARK: reading

    /// Starts a read of each source that asked for one; a source still being read is read
    /// again when that read is back.
    private func syncPending() {
        guard !pending.isEmpty else { return }
        let todo = sources.filter { pending.contains($0.path) }
        pending.removeAll()
        let now = SystemClock().now
        for source in todo {
            guard let reader = readers[source.path] else { continue }
            if reading[source.path] != nil { reading[source.path]!.again = true; continue }
            let deadline = DispatchSource.makeTimerSource(queue: queue)
            deadline.schedule(deadline: .now() + readDeadline)  // monotonic: a budget for the read, not a time of day
            deadline.setEventHandler { [unowned self] in notAnswering(source.path) }
            deadline.resume()
            reading[source.path] = (now, deadline, false)
            let (grace, aside, fd, watched) = (grace, setAside, inotify, watchedFolders)
            reader.queue.async { [weak self] in
                let outcome = reader.read(now: now, grace: grace, setAside: aside)
                // Watched once: only after the folder answered (adding a watch walks the path).
                // A read that failed has no folders to watch yet; readDone reports it.
                var fresh: [String] = []
                if case .success(let snapshot) = outcome { fresh = snapshot.folders.filter { !watched.contains($0) } }
                let wds = fresh.map { ($0, inotify_add_watch(fd, $0, Self.watchMask)) }
                guard let self else { return }
                queue.async { self.readDone(reader, outcome, watches: wds, now: now) }
            }
        }
    }

    /// A read that did not come back in time: the source is on a hung mount, or its disk stalls.
    private func notAnswering(_ path: String) {
        guard let read = reading[path] else { return }
        read.deadline.cancel()
        logger.warning("A calendar source does not answer; its jobs are kept, the other sources go on", metadata: ["source": "\(path)"])
        statuses[path, default: CalendarSourceStatus(source: path)].notAnsweringSince = read.since
        publishStatus()
    }

    private func readDone(_ reader: CalendarSourceProcess, _ outcome: Result<SourceSnapshot, CalendarSourceProcess.Failure>,
                          watches wds: [(String, Int32)], now started: Instant) {
        let path = reader.source.path
        guard let read = reading.removeValue(forKey: path) else { return }
        read.deadline.cancel()
        for (folder, wd) in wds where wd >= 0 {
            watches[wd] = path
            watchedFolders.insert(folder)
        }
        // Removed from the config, or replaced by another reader, meanwhile.
        guard readers[path] === reader, let source = sources.first(where: { $0.path == path }) else { return }
        let snapshot: SourceSnapshot
        switch outcome {
        case .success(let s): snapshot = s
        case .failure(.stopped(let leftover)):
            // The reader died (on a file: its note says which, and a second death sets that
            // file aside), or was ended because it did not answer.
            logger.warning("A calendar source's reader stopped", metadata: ["source": "\(path)"])
            if let leftover {
                claimLeftover(leftover, reader: reader)
                if statuses[path]?.notAnsweringSince == nil { pending.insert(path) }
            }
            publishStatus()
            if !pending.isEmpty { syncPending() }
            return
        case .failure(.cannotStart(let why)):
            logger.error("Cannot start a calendar source's reader", metadata: ["source": "\(path)", "error": "\(why)"])
            statuses[path, default: CalendarSourceStatus(source: path)].unreadable = why
            publishStatus()
            return
        }
        if statuses[path]?.notAnsweringSince != nil {
            logger.notice("A calendar source answers again", metadata: ["source": "\(path)"])
            statuses[path]?.notAnsweringSince = nil
        }
        let now = SystemClock().now
        let refillAt = apply(snapshot, of: source, now: now)
        if read.again { pending.insert(path) }
        scheduleRefill(refillAt ?? now + .seconds(86_400), now: now)
        publishStatus()
        // A plan of a large calendar frees as much as it allocated; hand it back (as after a batch).
        herald_release_free_memory()
        if !pending.isEmpty { syncPending() }
    }

    // MARK: planning

    /// Reconciles what a source's files hold with its jobs and writes the difference. Returns
    /// when to plan again.
    private func apply(_ snapshot: SourceSnapshot, of source: HeraldConfig.CalendarSource, now: Instant) -> Instant? {
        var status = statuses[source.path] ?? CalendarSourceStatus(source: source.path)
        status.unreadable = snapshot.listingError
        defer { statuses[source.path] = status }
        if let error = snapshot.listingError {
            // A folder that is missing (unmounted, being re-created) keeps its jobs until it is back.
            problems.report(source.path, key: "", version: "", message: error, logger: logger)
            return nil
        }
        problems.forget(source.path)
        problems.keep(files: Set(snapshot.files), under: source.path)
        for file in snapshot.clean { problems.forget(file) }
        for p in snapshot.problems { problems.report(p.file, key: p.key, version: p.version, message: p.message, logger: logger) }
        let listing: [JobFileName]
        do { listing = try spool.jobFiles().jobs } catch {
            // Never taken for "no jobs" (that would submit the whole calendar again): tried again.
            logger.error("Cannot list jobs/ to plan a calendar; trying again in 5 s", metadata: ["error": "\(error)"])
            queue.asyncAfter(deadline: .now() + .seconds(5)) { [weak self] in  // monotonic: a retry
                self?.pending.insert(source.path)
                self?.syncPending()
            }
            return nil
        }
        guard loadOwners(listing) else { return nil }
        var existing: [String: CalendarReconciliation.Existing] = [:]
        for name in listing where owners[name.id] == source.path {
            if written[name.id] == nil, case .success(let bytes) = spool.readChecked(spool.path(of: name), limit: Job.maximumFileSize) {
                written[name.id] = String(decoding: bytes, as: UTF8.self).hashValue
            }
            existing[name.id] = .init(name: name, written: written[name.id])
        }
        var items = snapshot.items
        if source.path == syncCalendar {
            let own = spool.ownSyncedUIDs()
            for k in items.indices where own.contains(items[k].uid) { items[k].own = true }
        }
        let needsHandled = items.contains { existing[CalendarPlanner.jobID(source: source.path, file: $0.file, uid: $0.uid)] == nil }
        let share = CalendarShares.sourceShare(maxJobs: maxJobs, sources: sources.count, limit: limit)
        let intake = (try? FileSystem.count(spool.new, hidden: false)) ?? 0
        let room = CalendarReconciliation.Room(share: share, spool: max(0, maxJobs - listing.count - intake))
        let plan = CalendarReconciliation.plan(source: source, items: items, existing: existing,
                                               handled: needsHandled ? handledThrough() : [:], now: now, grace: grace,
                                               localZone: localZone, room: room)
        for p in plan.problems {
            problems.report(p.file + "#", key: p.uid, version: "", message: "\(p.file): \(p.reason)", logger: logger)
        }
        var changed = 0
        for (current, planned) in plan.replace {
            guard let first = planned.job.alarms.first else { continue }
            do {
                try spool.replace(current, with: planned.job, zone: localZone, next: JobFileName(id: current.id, occurrence: first.at))
                written[current.id] = planned.hash
                changed += 1
            } catch {
                logger.notice("A calendar job changed while it was rewritten; planning again", metadata: ["job.id": "\(current.id)"])
                written.removeValue(forKey: current.id)
                queue.asyncAfter(deadline: .now() + .milliseconds(200)) { [weak self] in  // monotonic: a retry
                    self?.pending.insert(source.path)
                    self?.syncPending()
                }
            }
        }
        for name in plan.remove {
            spool.withdraw(name)
            owners.removeValue(forKey: name.id)
            written.removeValue(forKey: name.id)
        }
        if !plan.submit.isEmpty { submit(plan.submit, source: source.path) }
        status.files = snapshot.files.count
        status.items = snapshot.itemCount
        reportShare(plan, share: share, status: &status)
        logger.info("Calendar planned", metadata: ["files": "\(snapshot.files.count)", "items": "\(snapshot.itemCount)", "jobs.new": "\(plan.submit.count)",
                                                   "jobs.changed": "\(changed)", "jobs.removed": "\(plan.remove.count)",
                                                   "ms": "\(snapshot.took.microseconds / 1000)"])
        return [plan.refillAt, snapshot.completeUntil].compactMap { $0 }.min()
    }

    /// One log line when a source goes over its share (or the spool is full), and one when it
    /// is back within it; `herald status` has the numbers as they are now.
    private func reportShare(_ plan: CalendarReconciliation.Plan, share: Int, status: inout CalendarSourceStatus) {
        let wasOver = status.overShare > 0 || status.waitingForRoom > 0
        status.wanted = plan.wanted
        status.planned = plan.planned
        status.share = share
        status.overShare = plan.overShare
        status.waitingForRoom = plan.spoolFull
        let isOver = plan.overShare > 0 || plan.spoolFull > 0
        if isOver && !wasOver {
            logger.warning("A calendar source holds more than its share; the items nearest in time are planned, the rest skipped",
                           metadata: ["source": "\(status.source)", "items": "\(plan.wanted)", "planned": "\(plan.planned)",
                                      "share": "\(share)", "spool.full": "\(plan.spoolFull)"])
        } else if !isOver && wasOver {
            logger.notice("A calendar source is within its share again", metadata: ["source": "\(status.source)"])
        }
    }

    private func publishStatus() {
        let list = sources.compactMap { statuses[$0.path] }
        onStatus?(list)
    }

    /// Plans again before the first job's listed alarms run out, and at least daily (the horizon moves on).
    private func scheduleRefill(_ at: Instant, now: Instant) {
        if let current = refillDue, current <= at, current > now, refill != nil { return }
        refill?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let when = max(at, now + .seconds(1))
        refillDue = when
        timer.schedule(wallDeadline: DispatchWallTime(timespec: timespec(tv_sec: Int(when.seconds), tv_nsec: 0)), repeating: .never, leeway: .seconds(1))
        timer.setEventHandler { [unowned self] in
            refillDue = nil
            refill = nil
            pending.formUnion(sources.map(\.path))
            syncPending()
        }
        timer.resume()
        refill = timer
    }
    private var refillDue: Instant?

    /// New calendar jobs go in through `new/` like anyone's: one file, or one batch for many.
    private func submit(_ jobs: [CalendarReconciliation.Planned], source: String) {
        do {
            if jobs.count == 1, let id = jobs[0].job.id {
                try spool.submit(jobs[0].document, name: id + ".json")
            } else {
                try spool.submit(jobs.map(\.document).joined(), name: "calendar-" + String(UInt32.random(in: 0...UInt32.max), radix: 36) + ".jsonl")
            }
            for planned in jobs {
                guard let id = planned.job.id else { continue }
                written[id] = planned.hash
                owners[id] = source
            }
        } catch {
            logger.error("Cannot write calendar jobs into the spool", metadata: ["error": "\(error)"])
        }
    }

    /// The latest alarm each calendar job already fired (done/) or was cancelled at
    /// (cancelled/): an item planned anew starts after it, so nothing is shown twice.
    private func handledThrough() -> [String: Instant] {
        var out: [String: Instant] = [:]
        for dir in [spool.done, spool.cancelled] {
            for file in (try? FileSystem.list(dir)) ?? [] where file.hasPrefix("cal-") {
                guard let name = JobFileName(parsing: file) else { continue }
                // A snoozed alarm was handled when its snooze ended (a snooze alarm the item gained then is that one).
                out[name.id] = max(out[name.id] ?? name.fireAt, name.fireAt)
            }
        }
        return out
    }

    /// Which source each calendar job in `jobs/` came from, read from the files once; false
    /// when it cannot be known yet.
    private func loadOwners(_ listing: [JobFileName]) -> Bool {
        guard !ownersLoaded else { return true }
        for name in listing where CalendarPlanner.isCalendarJobID(name.id) {
            switch spool.loadJob(name, localZone: localZone) {
            case .success(let job): if let source = job.calendar?.source { owners[name.id] = source }
            case .failure(.missing): continue  // fired or removed meanwhile
            case .failure(let error):
                logger.notice("A calendar job cannot be read; its source is not known", metadata: ["job.id": "\(name.id)", "error": "\(error.redacted)"])
            }
        }
        ownersLoaded = true
        return true
    }

    private func removeJobs(ofSource path: String) {
        guard let listing = try? spool.jobFiles().jobs, loadOwners(listing) else {
            logger.error("Cannot list jobs/ to remove a calendar source's jobs; trying again in 5 s")
            queue.asyncAfter(deadline: .now() + .seconds(5)) { [weak self] in  // monotonic: a retry
                guard let self, !self.sources.contains(where: { $0.path == path }) else { return }
                self.removeJobs(ofSource: path)
            }
            return
        }
        for name in listing where owners[name.id] == path {
            spool.withdraw(name)
            owners.removeValue(forKey: name.id)
            written.removeValue(forKey: name.id)
        }
        logger.info("Calendar source removed from the config; its jobs are gone")
    }
}

/// Problems with calendar files, each logged once per version of its file, and forgotten when
/// the file reads cleanly or is gone: bounded by what the calendars hold now, never growing
/// with every file that ever came and went.
struct ProblemLog {
    /// By file (`FILE#` for its items' fitting problems): each problem's key and what was logged (version + message).
    private var byFile: [String: [String: String]] = [:]
    private var count = 0
    /// Past this many remembered problems, all are forgotten (a problem may then be logged again).
    static let maximum = 10_000

    mutating func report(_ file: String, key: String, version: String, message: String, logger: Logger) {
        let logged = version + message
        guard byFile[file]?[key] != logged else { return }
        if byFile[file]?[key] == nil { count += 1 }
        if count > Self.maximum {
            byFile = [:]
            count = 1
        }
        byFile[file, default: [:]][key] = logged
        logger.warning("Calendar file skipped", metadata: ["problem": "\(message)"])
    }

    mutating func forget(_ file: String) {
        if let gone = byFile.removeValue(forKey: file) { count -= gone.count }
    }

    /// Forgets the files under `source` that it no longer holds.
    mutating func keep(files: Set<String>, under source: String) {
        for file in byFile.keys where file.hasPrefix(source + "/") && !files.contains(file.hasSuffix("#") ? String(file.dropLast()) : file) {
            forget(file)
        }
    }

    var remembered: Int { count }
}
