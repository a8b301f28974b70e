import CHeraldSys
import Dispatch
import Glibc
import HeraldCore
import Logging

/// Keeps the calendar jobs in `jobs/` in step with the configured calendars: it watches each
/// source (inotify on the vdir and its collection folders, or on a file's folder), and on a
/// change, at start and before any job's listed alarms run out, plans the source again with
/// `CalendarPlanner` and writes the difference into the spool as the CLI would (new jobs into
/// `new/`, changed ones with `Spool.replace`, gone ones removed). The engine hears of each
/// change through its own watch on the spool, so calendar alarms fire, snooze, catch up and
/// appear in `herald list` and the history as every job does.
final class CalendarSync: @unchecked Sendable {
    private let queue = DispatchQueue(label: "herald.calendar", qos: .utility)
    private let spool: Spool
    private let logger: Logger
    // Queue-confined state.
    private var sources: [HeraldConfig.CalendarSource] = []
    private var grace: Span = .minutes(60)
    private var localZone: TimeZoneRules
    private var inotify: Int32 = -1
    private var readSource: DispatchSourceRead?
    private var watches: [Int32: Int] = [:]  // watch descriptor → source index
    private var pending: Set<Int> = []
    private var refill: DispatchSourceTimer?
    /// Which source each calendar job was planned from (read from the job files once).
    private var owners: [String: String] = [:]
    private var ownersLoaded = false
    /// Problems already logged, by file, so that a bad file is reported once, not at each sync.
    private var reported: [String: String] = [:]
    /// Each file's alarms as last read, kept while the file is unchanged and its window still
    /// covers the plan's: an edit re-reads one file, not the whole calendar.
    private var files: [String: FileAlarms] = [:]
    /// A hash of each calendar job's document as last written or read, to compare without reading it.
    private var written: [String: Int] = [:]
    /// The crash-loop breaker's note of the file being planned, and the files set aside
    /// because heraldd died twice planning them (by path: the version set aside).
    private let claim: WorkClaim?
    private var setAside: [String: String] = [:]
    private var setAsidePath: String { spool.root + "/.planning-aside" }

    struct FileAlarms {
        var stamp: String
        var until: Instant
        var items: Int
        var byUID: [(uid: String, alarms: [CalendarAlarm])]
    }

    init(spool: Spool, localZone: TimeZoneRules, logger: Logger) {
        self.spool = spool
        self.localZone = localZone
        self.logger = logger
        claim = WorkClaim(spool: spool, name: WorkClaim.calendar)
        loadSetAside()
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    // MARK: the crash-loop breaker

    /// Reads the files set aside before, and adds the one a heraldd that died twice on it was planning.
    private func loadSetAside() {
        if case .success(let bytes) = spool.readChecked(setAsidePath, limit: 1 << 20) {
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                let text = String(decoding: line, as: UTF8.self)
                if let (version, file) = Self.splitNote(text) { setAside[file] = version }
            }
        }
        guard let (what, strikes) = WorkClaim.leftover(spool: spool, name: WorkClaim.calendar),
              let (version, file) = Self.splitNote(what) else { return }
        guard strikes >= WorkClaim.strikesToSetAside else {
            logger.warning("heraldd stopped while planning a calendar file; planning it once more", metadata: ["file": "\(file)"])
            claim?.suspect(what, strikes: strikes)
            return
        }
        setAside[file] = version
        saveSetAside()
    }

    private func saveSetAside() {
        let text = setAside.map { "\($0.value) \($0.key)\n" }.sorted().joined()
        do {
            try FileSystem.writeAtomically(Array(text.utf8), tmpPath: spool.tmp + "/.planning-aside." + String(UInt32.random(in: 0...UInt32.max), radix: 36),
                                           finalPath: setAsidePath)
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

    /// Takes the configured sources (at start and after a reload) and plans each at once.
    func configure(_ config: HeraldConfig, localZone: TimeZoneRules) {
        queue.async { [self] in
            let removed = sources.map(\.path).filter { p in !config.calendars.contains { $0.path == p } }
            sources = config.calendars
            grace = config.catchUpGrace
            self.localZone = localZone
            startWatching()
            for path in removed { removeJobs(ofSource: path) }
            pending.formUnion(sources.indices)
            syncPending()
        }
    }

    /// Writes a Dismiss or Snooze back into an item's file: only a file that a configured
    /// source with `writeBack` lists now, whatever the job document says.
    func writeBack(_ change: CalendarWriteBack) {
        queue.async { [self] in
            guard let source = sources.first(where: { $0.path == change.source }), source.writeBack else {
                logger.notice("A calendar job asked for a write-back its source does not allow; nothing written")
                return
            }
            // Listed by the source, and really inside it: a symlinked folder in a vdir may point anywhere.
            guard ((try? CalendarFiles.list(source.path)) ?? []).contains(change.file),
                  let real = Self.realPath(change.file), let root = Self.realPath(source.path),
                  real == root || real.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
                logger.notice("A calendar job asked for a write-back to a file its source does not hold; nothing written")
                return
            }
            do {
                if try change.perform(localZone: localZone) {
                    logger.info("Wrote the alarm's \(change.change.label) state into its calendar item")
                } else {
                    logger.notice("The calendar item or its alarm is gone; nothing written back")
                }
            } catch {
                logger.warning("Cannot write back to a calendar item", metadata: ["error": "\(error)"])
            }
        }
    }

    func cancel() {
        queue.sync {
            readSource?.cancel()
            refill?.cancel()
        }
    }

    /// Waits until the queue has done what it was given (tests and the bench measure after this).
    func drain() { queue.sync {} }

    // MARK: watching

    private func startWatching() {
        readSource?.cancel()
        readSource = nil
        watches = [:]
        guard !sources.isEmpty else { return }
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { logger.error("Cannot start inotify for calendars"); return }
        inotify = fd
        addWatches()
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [unowned self] in drain(fd) }
        source.setCancelHandler { close(fd) }
        source.resume()
        readSource = source
    }

    /// Watches every source's folders (new collection folders are picked up at each sync).
    private func addWatches() {
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF)
        for (k, source) in sources.enumerated() {
            var folders = CalendarFiles.folders(source.path)
            if folders.isEmpty { folders = [parentDirectory(of: source.path)] }
            for folder in folders {
                let wd = inotify_add_watch(inotify, folder, mask)
                if wd >= 0 { watches[wd] = k }
            }
        }
    }

    private func drain(_ fd: Int32) {
        var touched = false
        readInotifyEvents(fd) { wd, mask, name in
            if mask & UInt32(IN_Q_OVERFLOW) != 0 { pending.formUnion(sources.indices); touched = true; return }
            guard let k = watches[wd] else { return }
            // Temporary files of vdirsyncer, khal and Herald itself are not items.
            if !name.isEmpty, mask & UInt32(IN_ISDIR) == 0, name.hasPrefix(".") || !name.hasSuffix(".ics") { return }
            pending.insert(k)
            touched = true
        }
        // A sync run writes many files at once: plan once they have settled.
        if touched { queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [weak self] in self?.syncPending() } }  // monotonic: a debounce
    }

    // MARK: planning

    private func syncPending() {
        guard !pending.isEmpty else { return }
        let todo = pending.sorted()
        pending.removeAll()
        addWatches()
        loadOwners()
        let now = SystemClock().now
        var refillAt: Instant? = nil
        for k in todo where k < sources.count {
            if let t = sync(sources[k], now: now) { refillAt = min(refillAt ?? t, t) }
        }
        scheduleRefill(refillAt ?? now + .seconds(86_400), now: now)
        // A plan of a large calendar frees as much as it allocated; hand it back (as after a batch).
        herald_release_free_memory()
    }

    /// Plans again before the first job's listed alarms run out, and at least daily (the horizon moves on).
    private func scheduleRefill(_ at: Instant, now: Instant) {
        refill?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let when = max(at, now + .seconds(1))
        timer.schedule(wallDeadline: DispatchWallTime(timespec: timespec(tv_sec: Int(when.seconds), tv_nsec: 0)), repeating: .never, leeway: .seconds(1))
        timer.setEventHandler { [unowned self] in
            pending.formUnion(sources.indices)
            syncPending()
        }
        timer.resume()
        refill = timer
    }

    /// Reads the source, plans its jobs and writes the difference. Returns when to plan again.
    private func sync(_ source: HeraldConfig.CalendarSource, now: Instant) -> Instant? {
        let started = SystemClock().now
        let files: [String]
        do { files = try CalendarFiles.list(source.path) } catch {
            // A folder that is missing (unmounted, being re-created) keeps its jobs until it is back.
            report(source.path, "\(error)")
            return nil
        }
        reported.removeValue(forKey: source.path)
        let pendingNames = (try? spool.jobFiles().jobs) ?? []
        var existing: [String: JobFileName] = [:]
        for name in pendingNames where CalendarPlanner.isCalendarJobID(name.id) { existing[name.id] = name }
        var handled: [String: Instant]? = nil  // listed only when an item has no job yet
        var batch: [Job] = []
        var wanted: Set<String> = []
        var refillAt: Instant? = nil
        var counts = (items: 0, changed: 0, removed: 0)
        let from = now - grace - Span.seconds(86_400)
        let horizonEnd = now + CalendarPlanner.horizon
        var seen: Set<String> = []
        for file in files {
            seen.insert(file)
            guard let version = version(of: file) else { self.files.removeValue(forKey: file); continue }
            if let aside = setAside[file] {
                if aside == version {
                    report(file, "\(file): \(WorkClaim.reason)", version: version)
                    continue
                }
                forgetSetAside(file)  // changed since: read it again
            }
            claim?.begin(version + " " + file)
            defer { claim?.end() }
            guard let read = alarms(of: file, version: version, from: from, now: now) else { continue }
            counts.items += read.items
            for (uid, all) in read.byUID {
                // The file's alarms are kept a day past the horizon; a job lists those within it.
                let alarms = all.filter { $0.at < horizonEnd }
                guard !alarms.isEmpty else { continue }
                let id = CalendarPlanner.jobID(source: source.path, file: file, uid: uid)
                let current = existing[id]
                let since: Instant
                if let current {
                    since = min(current.occurrence, now)
                } else {
                    if handled == nil { handled = handledThrough() }
                    since = max(now - grace, handled?[id].map { $0 + Span(microseconds: 1) } ?? from)
                }
                guard let (planned, truncated) = CalendarPlanner.job(for: alarms, file: file, source: source, since: since, localZone: localZone) else { continue }
                // One item that does not make a good job is skipped alone, reported once per
                // version of its file; it never rides in a batch that would then be refused whole.
                if let current, written[id] == nil,
                   case .success(let bytes) = spool.readChecked(spool.path(of: current), limit: Job.maximumFileSize) {
                    written[id] = String(decoding: bytes, as: UTF8.self).hashValue
                }
                let job: Job, encoded: String
                switch fitted(planned, written: written[id]) {
                case .success(let fit): (job, encoded) = fit
                case .failure(let problem):
                    report(file + "#" + uid, "\(file): an item's alarms cannot be a job: \(problem.reason)", version: version)
                    continue
                }
                wanted.insert(id)
                owners[id] = source.path
                if truncated, let last = job.alarms.last?.at { refillAt = min(refillAt ?? last, last) }
                guard let current else {
                    batch.append(job)
                    written[id] = encoded.hashValue
                    continue
                }
                // A snoozed job keeps its snooze; it is planned again once it has fired.
                guard current.snoozedUntil == nil else { continue }
                if written[id] == encoded.hashValue { continue }
                do {
                    try spool.replace(current, with: job, zone: localZone, next: JobFileName(id: id, occurrence: job.alarms[0].at))
                    written[id] = encoded.hashValue
                    counts.changed += 1
                } catch {
                    logger.notice("A calendar job changed while it was rewritten; planning again", metadata: ["job.id": "\(id)"])
                    pending.insert(sources.firstIndex(of: source) ?? 0)
                    queue.asyncAfter(deadline: .now() + .milliseconds(200)) { [weak self] in self?.syncPending() }  // monotonic: a retry
                }
            }
        }
        for (id, name) in existing where owners[id] == source.path && !wanted.contains(id) {
            // Derived from the calendar, which no longer has these alarms: the job goes.
            unlink(spool.path(of: name))
            owners.removeValue(forKey: id)
            written.removeValue(forKey: id)
            counts.removed += 1
        }
        for file in self.files.keys where file.hasPrefix(source.path) && !seen.contains(file) { self.files.removeValue(forKey: file) }
        if !batch.isEmpty { submit(batch, source: source.path) }
        let took = SystemClock().now - started
        logger.info("Calendar planned", metadata: ["files": "\(files.count)", "items": "\(counts.items)", "jobs.new": "\(batch.count)",
                                                   "jobs.changed": "\(counts.changed)", "jobs.removed": "\(counts.removed)",
                                                   "ms": "\(took.microseconds / 1000)"])
        return refillAt
    }

    /// A file's version: its inode, size and modification time (nil: it is gone).
    private func version(of file: String) -> String? {
        var st = stat()
        guard stat(file, &st) == 0 else { return nil }
        return "\(st.st_ino):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
    }


    private func forgetSetAside(_ file: String) {
        setAside.removeValue(forKey: file)
        saveSetAside()
    }

    /// The planned job as it will be written, and its document: titles and texts cut to fit a
    /// job file, and checked by the same decoder heraldd's intake uses (unless it is the
    /// document already written, `written` being its hash: checked then).
    private func fitted(_ planned: Job, written known: Int?) -> Result<(job: Job, encoded: String), JobError> {
        var job = planned
        let first = job.encoded(zone: localZone) + "\n"
        if first.hashValue == known { return .success((job, first)) }
        if first.utf8.count > Job.maximumFileSize {
            func cut(_ s: String?) -> String? { s.map { $0.count > Self.fittedText ? String($0.prefix(Self.fittedText)) + "…" : $0 } }
            job.title = cut(job.title)
            job.text = cut(job.text)
            for i in job.alarms.indices {
                job.alarms[i].summary = cut(job.alarms[i].summary)
                job.alarms[i].location = cut(job.alarms[i].location)
            }
        }
        let encoded = job.encoded(zone: localZone) + "\n"
        guard encoded.utf8.count <= Job.maximumFileSize else {
            return .failure(JobError("longer than \(Job.maximumFileSize / 1024) KiB even with its texts cut"))
        }
        do { return .success((try Job.decode(Array(encoded.utf8), localZone: localZone), encoded)) } catch { return .failure(error) }
    }

    /// Problems of one file logged in full; the rest are counted in one line.
    static let problemsLogged = 10

    /// The most characters of a title, text, summary or location a calendar job keeps when the
    /// whole would not fit a job file (a popup shows far fewer).
    static let fittedText = 500

    /// A file's alarms from `from` to the horizon and a day beyond, read again only when the
    /// file changed (inode, size, modification time) or the day has passed.
    private func alarms(of file: String, version: String, from: Instant, now: Instant) -> FileAlarms? {
        let stamp = version
        if let cached = files[file], cached.stamp == stamp, cached.until >= now + CalendarPlanner.horizon { return cached }
        let calendar: ICalendarFile
        switch CalendarFiles.read(file) {
        case .failure(let problem):
            report(file, problem.description, version: version)
            files.removeValue(forKey: file)
            return nil
        case .success(let c): calendar = c
        }
        let until = now + CalendarPlanner.horizon + .seconds(86_400)
        let result = calendar.alarms(from: from, to: until, localZone: localZone)
        if !result.problems.isEmpty {
            // Each item's problem once per version of its file (the rest of the file still
            // alarms), the first few of them: a file of thousands of bad items is one paragraph
            // in the journal, not thousands of lines.
            for problem in result.problems.prefix(Self.problemsLogged) {
                report(file + ":" + String(problem.line), CalendarFileError(path: file, line: problem.line, message: problem.message).description,
                       version: version)
            }
            if result.problems.count > Self.problemsLogged {
                report(file + ":more", "\(file): \(result.problems.count - Self.problemsLogged) more problems (herald calendar check lists them)",
                       version: version)
            }
        } else {
            reported.removeValue(forKey: file)
        }
        var order: [String] = []
        var byUID: [String: [CalendarAlarm]] = [:]
        for alarm in result.alarms {
            if byUID[alarm.uid] == nil { order.append(alarm.uid) }
            byUID[alarm.uid, default: []].append(alarm)
        }
        let read = FileAlarms(stamp: stamp, until: until, items: calendar.items.count, byUID: order.map { ($0, byUID[$0]!) })
        files[file] = read
        return read
    }

    /// New calendar jobs go in through `new/` like anyone's: one file, or one batch for many.
    private func submit(_ jobs: [Job], source: String) {
        do {
            if jobs.count == 1 {
                try spool.submit(jobs[0], zone: localZone)
            } else {
                let text = jobs.map { $0.encoded(zone: localZone) }.joined(separator: "\n") + "\n"
                try spool.submit(text, name: "calendar-" + String(UInt32.random(in: 0...UInt32.max), radix: 36) + ".jsonl")
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

    /// Which source each calendar job in `jobs/` came from, read from the files once.
    private func loadOwners() {
        guard !ownersLoaded else { return }
        ownersLoaded = true
        for name in (try? spool.jobFiles().jobs) ?? [] where CalendarPlanner.isCalendarJobID(name.id) {
            if case .success(let job) = spool.loadJob(name, localZone: localZone), let source = job.calendar?.source { owners[name.id] = source }
        }
    }

    private func removeJobs(ofSource path: String) {
        loadOwners()
        for name in (try? spool.jobFiles().jobs) ?? [] where owners[name.id] == path {
            unlink(spool.path(of: name))
            owners.removeValue(forKey: name.id)
        }
        logger.info("Calendar source removed from the config; its jobs are gone")
    }

    /// Logs a problem with a calendar file once per version of the file (paths, lines and
    /// reasons; item texts stay out of the log).
    private func report(_ key: String, _ message: String, version: String = "") {
        guard reported[key] != version + message else { return }
        reported[key] = version + message
        logger.warning("Calendar file skipped", metadata: ["problem": "\(message)"])
    }
}
