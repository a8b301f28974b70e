#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// - Parameters:
    ///   - defaultLead: the configured heads-up lead, for deliveries not yet taken in.
    ///   - localZone: the zone for jobs (and calendar expressions) that name none.
    ///   - now: for when jobs not yet taken in will first fire.
    ///   - loadDocuments: whether to read each job's document (false: ids and times only).
    public func listPending(defaultLead: Span, localZone: TimeZoneRules = .utc, now: Instant = .epoch,
                            loadDocuments: Bool = true) -> [PendingJob] {
        func first(_ job: Job?) -> Instant? {
            job.flatMap { try? JobSchedule($0, localZone: localZone, defaultLead: defaultLead).first(now: now) }
        }
        var result: [PendingJob] = []
        if let listing = try? jobFiles() {
            for name in listing.jobs {
                var p = PendingJob(id: name.id, location: .jobs(name), fireAt: name.fireAt)
                if loadDocuments {
                    switch loadJob(name, localZone: localZone) {
                    case .success(let job): p.job = job
                    case .failure(let error): p.problem = error.description
                    }
                }
                result.append(p)
            }
        }
        for file in ((try? FileSystem.list(new)) ?? []).sorted() where !file.hasPrefix(".") {
            let limit = file.hasSuffix(".jsonl") ? 1 << 30 : Job.maximumFileSize
            guard case .success(let bytes) = readChecked(new + "/" + file, limit: limit) else {
                result.append(PendingJob(id: file, location: .intake(file), problem: "unreadable"))
                continue
            }
            if file.hasSuffix(".jsonl") {
                let stem = String(file.dropLast(6))
                for line in JobBatch.lines(bytes) {
                    let job = line.bytes.count <= Job.maximumFileSize ? try? Job.decode(Data(line.bytes), localZone: localZone) : nil
                    result.append(PendingJob(id: job?.id ?? JobBatch.defaultID(stem: stem, line: line.number),
                                             location: .batch(file, line: line.number), job: job, fireAt: first(job),
                                             problem: job == nil ? "not a valid job" : nil))
                }
            } else {
                do {
                    let job = try Job.decode(Data(bytes), localZone: localZone)
                    let stem = file.hasSuffix(".json") ? String(file.dropLast(5)) : file
                    result.append(PendingJob(id: job.id ?? stem, location: .intake(file), job: job, fireAt: first(job)))
                } catch {
                    result.append(PendingJob(id: file, location: .intake(file), problem: error.description))
                }
            }
        }
        return result.sorted { a, b in
            switch (a.fireAt, b.fireAt) {
            case let (x?, y?): return (x, a.id) < (y, b.id)
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return a.id < b.id
            }
        }
    }

    /// The pending jobs whose id is `query` or, failing that, starts with it.
    public func findPending(_ query: String, defaultLead: Span, localZone: TimeZoneRules = .utc, now: Instant = .epoch) -> [PendingJob] {
        let all = listPending(defaultLead: defaultLead, localZone: localZone, now: now)
        let exact = all.filter { $0.id == query }
        return exact.isEmpty ? all.filter { $0.id.hasPrefix(query) } : exact
    }
}
