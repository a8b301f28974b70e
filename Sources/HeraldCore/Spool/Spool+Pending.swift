import Dispatch
/// A job that has not finished, wherever it is: accepted into `jobs/`, or still waiting in
/// `new/` (alone or in a batch) for the daemon to take it in.
public struct PendingJob: Sendable {
    public enum Location: Sendable, Equatable {
        case jobs(JobFileName)
        case intake(String)
        case batch(String, line: Int)
    }

    public var id: String
    public var location: Location
    public var job: Job?
    /// When it fires next (nil when unknown: unreadable, or waiting for calendar support).
    public var fireAt: Instant?
    /// Why the job file cannot be read, if it cannot.
    public var problem: String?

    /// "jobs/abc@123.json", "new/x.json", "new/batch.jsonl:12".
    public var path: String {
        switch location {
        case .jobs(let name): return "jobs/" + name.description
        case .intake(let file): return "new/" + file
        case .batch(let file, let line): return "new/\(file):\(line)"
        }
    }
}

extension Spool {
    /// Every pending job, next due first (unknown due times last).
    ///
    /// Documents come from `index/docs.pack` where it has the job file's record (one read for
    /// all), else from the job files themselves.
    ///
    /// - Parameters:
    ///   - defaultLead: the configured heads-up lead, for deliveries not yet taken in.
    ///   - localZone: the zone for jobs (and calendar expressions) that name none.
    ///   - now: for when jobs not yet taken in will first fire.
    ///   - loadDocuments: whether to read each job's document (false: ids and times only).
    public func listPending(defaultLead: Span, localZone: TimeZoneRules = .utc, now: Instant = .epoch,
                            loadDocuments: Bool = true) throws(FileSystemError) -> [PendingJob] {
        // Sorted while they are names (small), then read: sorting 100,000 decoded jobs moved
        // megabytes around.
        var entries: [(name: JobFileName, inode: UInt64)] = []
        // A listing that fails is an error, never an empty list (no jobs is not what the user
        // has); a spool not made yet has no jobs.
        let listing: [(name: String, inode: UInt64)]
        do { listing = try FileSystem.listWithInodes(jobs) } catch where error.isNotFound { listing = [] }
        entries.reserveCapacity(listing.count)
        for entry in listing { if let name = JobFileName(parsing: entry.name) { entries.append((name, entry.inode)) } }
        entries.sort { ($0.name.fireAt, $0.name.id) < ($1.name.fireAt, $1.name.id) }
        var result = entries.map { PendingJob(id: $0.name.id, location: .jobs($0.name), fireAt: $0.name.fireAt) }
        let sortedEntries = entries
        if loadDocuments && !result.isEmpty {
            let pack = JobDocPack(spool: self).read()
            // Decoded on two threads (the machine in BENCHMARKS.md has two cores): decoding is
            // most of the time `herald list` takes at 100,000 jobs.
            let parts = result.count >= 2_000 ? 2 : 1
            result.withUnsafeMutableBufferPointer { rows in
                let rows = UncheckedSendable(rows)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let range = (rows.value.count * part / parts)..<(rows.value.count * (part + 1) / parts)
                    for i in range {
                        let (name, inode) = sortedEntries[i]
                        if let doc = pack?.document(id: name.id, inode: inode), let job = try? Job.decode(doc, localZone: localZone) {
                            rows.value[i].job = job
                        } else {
                            load(name, into: &rows.value[i], localZone: localZone)
                        }
                    }
                }
            }
        }
        let intake = intakePending(defaultLead: defaultLead, localZone: localZone, now: now)
        return intake.isEmpty ? result : Self.sorted(result + intake)
    }

    private func load(_ name: JobFileName, into p: inout PendingJob, localZone: TimeZoneRules) {
        switch loadJob(name, localZone: localZone) {
        case .success(let job): p.job = job
        case .failure(let error): p.problem = error.description
        }
    }

    static func sorted(_ jobs: [PendingJob]) -> [PendingJob] {
        jobs.sorted { a, b in
            switch (a.fireAt, b.fireAt) {
            case let (x?, y?): return (x, a.id) < (y, b.id)
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return a.id < b.id
            }
        }
    }

    /// The ids of every pending job, for the check that an import's ids are free: `jobs/`'s
    /// names, and the ids of what waits in `new/`, read without decoding the documents
    /// (`herald import` of 40 jobs with three batches of 50,000 waiting spent 0.5 s decoding
    /// them; BENCHMARKS.md "Ratios to the floor"). A line that is not a job counts under the
    /// id the intake would give it; heraldd checks every id again when it takes a batch in.
    public func pendingIDs() throws(FileSystemError) -> Set<String> {
        var ids = Set<String>()
        // A listing that fails is an error, never "nothing pending"; a spool not made yet has none.
        func list(_ directory: String) throws(FileSystemError) -> [String] {
            do { return try FileSystem.list(directory) } catch where error.isNotFound { return [] }
        }
        let listing = try list(jobs)
        ids.reserveCapacity(listing.count)
        for entry in listing { if let name = JobFileName(parsing: entry) { ids.insert(name.id) } }
        func ownID(_ bytes: ArraySlice<UInt8>) -> String? {
            guard bytes.count <= Job.maximumFileSize, case .object(let o)? = try? JSONValue.parse(bytes),
                  case .string(let id)? = o["id"], Job.isValidID(id) else { return nil }
            return id
        }
        for file in try list(new) where !file.hasPrefix(".") {
            let limit = file.hasSuffix(".jsonl") ? 1 << 30 : Job.maximumFileSize
            // One that cannot be read now (gone, still being written, too large) has no ids to
            // offer; heraldd checks every id again when it takes the file in.
            guard case .success(let bytes) = readChecked(new + "/" + file, limit: limit) else { continue }
            if file.hasSuffix(".jsonl") {
                let stem = String(file.dropLast(6))
                for line in JobBatch.lines(bytes) { ids.insert(ownID(line.bytes[...]) ?? JobBatch.defaultID(stem: stem, line: line.number)) }
            } else {
                ids.insert(ownID(bytes[...]) ?? (file.hasSuffix(".json") ? String(file.dropLast(5)) : file))
            }
        }
        return ids
    }

    /// The jobs waiting in `new/` (alone or in batches) for heraldd to take them in.
    public func intakePending(defaultLead: Span, localZone: TimeZoneRules = .utc, now: Instant = .epoch) -> [PendingJob] {
        func first(_ job: Job?) -> Instant? {
            job.flatMap { try? JobSchedule($0, localZone: localZone, defaultLead: defaultLead).first(now: now) }
        }
        var result: [PendingJob] = []
        for file in ((try? FileSystem.list(new)) ?? []).sorted() where !file.hasPrefix(".") {
            let limit = file.hasSuffix(".jsonl") ? 1 << 30 : Job.maximumFileSize
            guard case .success(let bytes) = readChecked(new + "/" + file, limit: limit) else {
                result.append(PendingJob(id: file, location: .intake(file), problem: "unreadable"))
                continue
            }
            if file.hasSuffix(".jsonl") {
                let stem = String(file.dropLast(6))
                for line in JobBatch.lines(bytes) {
                    let job = line.bytes.count <= Job.maximumFileSize ? try? Job.decode(line.bytes, localZone: localZone) : nil
                    result.append(PendingJob(id: job?.id ?? JobBatch.defaultID(stem: stem, line: line.number),
                                             location: .batch(file, line: line.number), job: job, fireAt: first(job),
                                             problem: job == nil ? "not a valid job" : nil))
                }
            } else {
                do {
                    let job = try Job.decode(bytes, localZone: localZone)
                    let stem = file.hasSuffix(".json") ? String(file.dropLast(5)) : file
                    result.append(PendingJob(id: job.id ?? stem, location: .intake(file), job: job, fireAt: first(job)))
                } catch {
                    result.append(PendingJob(id: file, location: .intake(file), problem: error.description))
                }
            }
        }
        return result
    }

    /// The pending jobs whose id is `query` or, failing that, starts with it.
    public func findPending(_ query: String, defaultLead: Span, localZone: TimeZoneRules = .utc,
                            now: Instant = .epoch) throws(FileSystemError) -> [PendingJob] {
        try findPendingCounted(query, defaultLead: defaultLead, localZone: localZone, now: now).jobs
    }

    /// `findPending`, with how many jobs match in all (only the first `SpoolQuery.findLimit`
    /// of a long list of prefix matches are read). A running heraldd says where the jobs are;
    /// without one, `jobs/` is listed.
    public func findPendingCounted(_ query: String, defaultLead: Span, localZone: TimeZoneRules = .utc,
                                   now: Instant = .epoch) throws(FileSystemError) -> (jobs: [PendingJob], total: Int) {
        func matching(_ ids: [String]) -> (exact: Bool, keep: (String) -> Bool) {
            ids.contains(query) ? (true, { $0 == query }) : (false, { $0.hasPrefix(query) })
        }
        let intake = intakePending(defaultLead: defaultLead, localZone: localZone, now: now)
        var names: [JobFileName]
        var total: Int
        if let answer = verifiedAnswer(.find(query)) {
            (names, total) = (answer.names, answer.total)
        } else {
            do { names = try jobFiles().jobs.filter { $0.id.hasPrefix(query) } } catch where error.isNotFound { names = [] }
            if names.contains(where: { $0.id == query }) { names = names.filter { $0.id == query } }
            names.sort { $0.id < $1.id }
            total = names.count
        }
        let rule = matching(names.map(\.id) + intake.map(\.id))
        let exactInJobs = names.contains { $0.id == query }
        if rule.exact && !exactInJobs { (names, total) = ([], 0) }
        var found: [PendingJob] = names.filter { rule.keep($0.id) }.map { name in
            var p = PendingJob(id: name.id, location: .jobs(name), fireAt: name.fireAt)
            load(name, into: &p, localZone: localZone)
            return p
        }
        // new/ was listed first: a job heraldd moved into jobs/ meanwhile is found in both; the
        // jobs/ one is where it is now (else `herald cancel` right after `herald run` says "2 jobs").
        let moved = Set(names.map(\.id))
        let fromIntake = intake.filter { rule.keep($0.id) && !moved.contains($0.id) }
        found += fromIntake
        return (Self.sorted(found), (rule.exact ? found.count : total + fromIntake.count))
    }

    /// The `n` pending jobs due soonest (with `total`, how many are pending), from a running
    /// heraldd; nil when none answers (then list them all).
    public func soonestPending(_ n: Int, defaultLead: Span, localZone: TimeZoneRules = .utc,
                               now: Instant = .epoch, loadDocuments: Bool = true) -> (jobs: [PendingJob], total: Int)? {
        guard let answer = verifiedAnswer(.head(n)) else { return nil }
        let intake = intakePending(defaultLead: defaultLead, localZone: localZone, now: now)
        let jobs = answer.names.map { name in
            var p = PendingJob(id: name.id, location: .jobs(name), fireAt: name.fireAt)
            if loadDocuments { load(name, into: &p, localZone: localZone) }
            return p
        }
        return (Array(Self.sorted(jobs + intake).prefix(n)), answer.total + intake.count)
    }

    /// heraldd's answer, once every name in it is found in `jobs/`. A name may be missing for a
    /// moment (heraldd renames a job it just showed, or files a batch); after three tries,
    /// nil (the caller lists `jobs/` itself).
    func verifiedAnswer(_ request: SpoolQuery.Request) -> SpoolQuery.Answer? {
        for _ in 0..<3 {
            guard let answer = SpoolQuery.ask(self, request) else { return nil }
            if answer.names.allSatisfy({ FileSystem.exists(path(of: $0)) }) { return answer }
        }
        return nil
    }
}

/// A value handed to `concurrentPerform`'s workers, each of which touches its own part only.
struct UncheckedSendable<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
