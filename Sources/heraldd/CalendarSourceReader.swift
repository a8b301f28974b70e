import CHeraldSys
import Glibc
import HeraldCore

/// Reads one calendar source, in a process of its own (`heraldd --calendar-reader`, driven by
/// `CalendarSourceProcess`): its files (through `SourceFolder`: no link below the source, no
/// FIFO waited on) parsed into the alarms of a window, one cached per file until the file
/// changes. Everything that touches the source's folder happens here, write-backs included,
/// so a source on a hung mount holds up this process alone (the kernel may keep a thread
/// waiting on such a mount even from SIGKILL: then it is this process, not heraldd).
final class CalendarSourceReader {
    let source: HeraldConfig.CalendarSource
    /// The crash-loop breaker's note of the file being planned, one per source.
    private let claim: WorkClaim?
    /// Each file's alarms as last read, while the file is unchanged and its window still
    /// covers the plan's: an edit re-reads one file, not the whole calendar.
    private var cache: [String: FileAlarms] = [:]

    struct FileAlarms {
        var version: String
        /// How far its alarms are known: the window's end, or sooner where an item is dense
        /// (read over a short window) or recurs more often than `keptAhead` alarms cover.
        var until: Instant
        var items: Int
        var byUID: [(uid: String, alarms: [CalendarAlarm])]
        var readAt: Instant

        /// Whether it still serves a plan at `now`: read within a day (the horizon moves on),
        /// and its alarms known for a few minutes more.
        func isFresh(now: Instant) -> Bool { now - readAt <= .seconds(86_400) && until - now >= .seconds(300) }
    }

    typealias Snapshot = SourceSnapshot
    typealias Problem = SourceSnapshot.Problem

    init(source: HeraldConfig.CalendarSource, spool: Spool) {
        self.source = source
        claim = WorkClaim(spool: spool, name: Self.noteName(source.path))
    }

    /// Remembers that heraldd already died once while planning `what` (a note left at start).
    func suspect(_ what: String, strikes: Int) { claim?.suspect(what, strikes: strikes) }

    /// The crash-loop note of a source: `.planning-` and a hash of its path.
    static func noteName(_ path: String) -> String {
        WorkClaim.calendar + "-" + String(CalendarPlanner.jobID(source: path, file: "", uid: "").dropFirst(4))
    }

    /// Reads every file of the source. `setAside`: the files heraldd died on twice, by path,
    /// with the version set aside.
    func read(now: Instant, grace: Span, localZone: TimeZoneRules, setAside: [String: String]) -> Snapshot {
        let started = SystemClock().now
        var snapshot = Snapshot()
        let folder: SourceFolder
        let list: [[String]]
        do {
            folder = try SourceFolder(source: source.path)
            list = try folder.list()
        } catch {
            snapshot.listingError = "\(error)"
            snapshot.took = SystemClock().now - started
            return snapshot
        }
        snapshot.folders = folder.folders()
        let from = now - grace - Span.seconds(86_400)
        let until = now + CalendarPlanner.horizon + .seconds(86_400)
        var seen: Set<String> = []
        for names in list {
            let file = folder.path(of: names)
            seen.insert(file)
            snapshot.files.append(file)
            guard let version = folder.version(of: names) else { cache.removeValue(forKey: file); continue }
            if let aside = setAside[file], aside == version {
                snapshot.problems.append(Problem(file: file, key: "", version: version, message: "\(file): \(WorkClaim.reason)"))
                continue
            }
            let read: FileAlarms
            if let cached = cache[file], cached.version == version, cached.isFresh(now: now) {
                read = cached
            } else {
                claim?.begin(version + " " + file)
                defer { claim?.end() }
                guard let fresh = parse(names, in: folder, version: version, from: from, until: until, now: now, localZone: localZone,
                                        into: &snapshot) else {
                    cache.removeValue(forKey: file)
                    continue
                }
                read = fresh
                cache[file] = fresh
            }
            if read.until < until, read.until < now + CalendarPlanner.horizon {
                let replan = read.until - .seconds(120)  // a plan again before the kept alarms run out
                snapshot.completeUntil = min(snapshot.completeUntil ?? replan, replan)
            }
            snapshot.itemCount += read.items
            let collection = names.count == 2 ? names[0] : ""
            for (uid, alarms) in read.byUID {
                snapshot.items.append(CalendarReconciliation.Item(file: file, collection: collection, uid: uid, alarms: alarms))
            }
        }
        for file in cache.keys where !seen.contains(file) { cache.removeValue(forKey: file) }
        snapshot.took = SystemClock().now - started
        return snapshot
    }

    /// How many of an item's next alarms are kept (a job lists 32): past them, the file is read
    /// again when the kept ones run out.
    static let keptAhead = 2 * CalendarPlanner.maximumEntries

    /// Problems of one file listed in full; the rest are counted in one line.
    static let problemsListed = 10

    private func parse(_ names: [String], in folder: SourceFolder, version: String, from: Instant, until: Instant, now: Instant,
                       localZone: TimeZoneRules, into snapshot: inout Snapshot) -> FileAlarms? {
        let file = folder.path(of: names)
        let calendar: ICalendarFile
        switch CalendarFiles.read(names, in: folder) {
        case .failure(let problem):
            snapshot.problems.append(Problem(file: file, key: "", version: version, message: problem.description))
            return nil
        case .success(let c): calendar = c
        }
        let result = calendar.plannedAlarms(from: from, to: until, now: now, localZone: localZone)
        if result.problems.isEmpty { snapshot.clean.insert(file) }
        // Each item's problem once per version of its file (the rest of the file still
        // alarms), the first few of them: a file of thousands of bad items is one paragraph
        // in the journal, not thousands of lines.
        for problem in result.problems.prefix(Self.problemsListed) {
            snapshot.problems.append(Problem(file: file, key: String(problem.line), version: version,
                                             message: CalendarFileError(path: file, line: problem.line, message: problem.message).description))
        }
        if result.problems.count > Self.problemsListed {
            snapshot.problems.append(Problem(file: file, key: "more", version: version,
                                             message: "\(file): \(result.problems.count - Self.problemsListed) more problems (herald calendar check lists them)"))
        }
        var order: [String] = []
        var byUID: [String: [CalendarAlarm]] = [:]
        for alarm in result.alarms {
            if byUID[alarm.uid] == nil { order.append(alarm.uid) }
            byUID[alarm.uid, default: []].append(alarm)
        }
        // Kept per item: the latest alarm already past (its catch-up) and the next `keptAhead`;
        // a job lists 32, so memory follows the items, not how often they recur.
        var until = result.completeUntil
        let kept: [(uid: String, alarms: [CalendarAlarm])] = order.map { uid in
            let all = byUID[uid]!
            let firstAhead = all.firstIndex { $0.at >= now } ?? all.count
            let ahead = all[firstAhead...].prefix(Self.keptAhead)
            if all.count - firstAhead > Self.keptAhead, let last = ahead.last { until = min(until, last.at) }
            return (uid, (firstAhead > 0 ? [all[firstAhead - 1]] : []) + ahead)
        }
        return FileAlarms(version: version, until: until, items: calendar.items.count, byUID: kept, readAt: now)
    }

    /// Writes a Dismiss, Snooze or Done into an item's file: only a file this source lists now,
    /// reached from the source's folder. Returns what to log.
    func writeBack(_ change: CalendarWriteBack, localZone: TimeZoneRules) -> (written: Bool, message: String) {
        let folder: SourceFolder
        do { folder = try SourceFolder(source: source.path) } catch { return (false, "\(error)") }
        guard let names = folder.names(of: change.file), ((try? folder.list()) ?? []).contains(names) else {
            return (false, "A calendar job asked for a write-back to a file its source does not hold; nothing written")
        }
        do {
            return try change.write(in: folder, localZone: localZone)
                ? (true, "Wrote the alarm's \(change.change.label) state into its calendar item")
                : (false, "The calendar item or its alarm is gone; nothing written back")
        } catch {
            return (false, "Cannot write back to a calendar item: \(error)")
        }
    }
}

/// `heraldd --calendar-reader SOURCE --spool DIR [--write-back]`: one source's reader, a process
/// of its own. It takes one request a line on standard input (`SourceRequest`) and answers each
/// with one line on standard output (a `SourceSnapshot`, or `{"written":...}` for a write-back),
/// until its input ends.
enum CalendarReaderMain {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 3, arguments[1] == "--spool" else {
            LogWriter.write(Array("heraldd: --calendar-reader SOURCE --spool DIR [--write-back]\n".utf8))
            return 64
        }
        let source = HeraldConfig.CalendarSource(path: arguments[0], writeBack: arguments.contains("--write-back"))
        let reader = CalendarSourceReader(source: source, spool: Spool(root: arguments[2]))
        let input = LineReader(Descriptor(0)!), output = Descriptor(1)!
        while let line = input.next(limit: 64 << 20) {
            let answer: String
            switch SourceRequest(json: line) {
            case .read(let now, let grace, let setAside, let suspect)?:
                if let suspect { reader.suspect(suspect.what, strikes: suspect.strikes) }
                let snapshot = reader.read(now: now, grace: grace, localZone: TimeZoneRules.local(environment: Environment.current()),
                                           setAside: setAside)
                // The header, then the items' lines in writes of about 64 KiB.
                var chunk = Array((snapshot.header + "\n").utf8)
                for item in snapshot.items {
                    chunk += (SourceSnapshot.line(of: item) + "\n").utf8
                    if chunk.count >= 1 << 16 {
                        guard output.writeAll(chunk) else { return 1 }
                        chunk.removeAll(keepingCapacity: true)
                    }
                }
                guard output.writeAll(chunk) else { return 1 }
                herald_release_free_memory()
                continue
            case .writeBack(let change)?:
                let (written, message) = reader.writeBack(change, localZone: TimeZoneRules.local(environment: Environment.current()))
                answer = JSONWriter.render(.object([("written", .bool(written)), ("message", .string(message))]))
            case nil:
                answer = JSONWriter.render(.object([("error", .string("not a request"))]))
            }
            guard output.writeAll(Array((answer + "\n").utf8)) else { return 1 }
            // A read parses and encodes far more than the cache it keeps: hand the rest back
            // (10,000 items held 60 MiB across heraldd and its reader without it).
            herald_release_free_memory()
        }
        return 0
    }
}
