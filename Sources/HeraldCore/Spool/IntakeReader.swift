#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads and checks files from `new/` for the engine, on the intake queue: the costly part of
/// taking jobs in (reading, decoding, working out first occurrences) never runs on the
/// scheduler's queue. It moves nothing; the engine decides and `SpoolWorker` files.
public struct IntakeReader: Sendable {
    public let spool: Spool
    /// How many jobs of a batch go to the engine in one part (each part is one short step on
    /// the scheduler's queue; see BENCHMARKS.md, "Intake off the scheduler's path").
    public var partSize: Int

    public init(spool: Spool, partSize: Int = 1_000) {
        self.spool = spool
        self.partSize = partSize
    }

    /// Reads `request`'s files at `now` and hands the engine's events to `deliver`: single
    /// files together, a batch in parts once all of it has been checked.
    public func read(_ request: IntakeRequest, now: Instant, deliver: (EngineEvent) -> Void) {
        let names = request.names ?? ((try? FileSystem.list(spool.new)) ?? [])
        var singles: [IntakeFile] = []
        for name in names.sorted() where !name.hasPrefix(".") || Self.isClaimedBatch(name) {
            if name.hasSuffix(".jsonl") {
                if !singles.isEmpty { deliver(.intakeRead(singles)); singles = [] }
                readBatch(name, request, now: now, deliver: deliver)
            } else {
                singles.append(readSingle(name, request, now: now))
            }
        }
        if !singles.isEmpty { deliver(.intakeRead(singles)) }
    }

    func readSingle(_ file: String, _ request: IntakeRequest, now: Instant) -> IntakeFile {
        let path = spool.new + "/" + file
        switch spool.readCheckedFile(path, limit: Job.maximumFileSize) {
        case .failure(let error):
            if case .unreadable = error, !FileSystem.exists(path) { return .gone(file: file) }
            return .refused(file: file, IntakeRefusal(reason: error.description, redacted: error.redacted))
        case .success(let (bytes, mode)):
            do {
                let job = try Job.decode(Data(bytes), localZone: request.localZone)
                let first = try Self.firstOccurrence(of: job, request, now: now)
                return .single(file: file, IntakeCandidate(id: job.id, kind: job.kind, first: first, mode: UInt32(mode)))
            } catch {
                return .refused(file: file, IntakeRefusal(reason: error.description, redacted: error.reason))
            }
        }
    }

    /// Every line is checked before any part goes to the engine: a batch is taken whole or not at all.
    func readBatch(_ file: String, _ request: IntakeRequest, now: Instant, deliver: (EngineEvent) -> Void) {
        let path = spool.new + "/" + file
        let bytes: [UInt8]
        switch spool.readChecked(path, limit: 1 << 30) {
        case .success(let b): bytes = b
        case .failure(let error):
            if case .unreadable = error, !FileSystem.exists(path) { return deliver(.intakeRead([.gone(file: file)])) }
            return deliver(.intakeRead([.refused(file: file, IntakeRefusal(reason: error.description, redacted: error.redacted))]))
        }
        let resumed = Self.isClaimedBatch(file)
        let stem = String(file.dropLast(6).dropFirst(resumed ? Self.claimPrefix.count : 0))
        // A batch heraldd had begun to file before it stopped: its jobs that fired and
        // finished meanwhile are in done/ and must not come back.
        let finished = resumed ? Set(((try? FileSystem.list(spool.done)) ?? []).compactMap { JobFileName(parsing: $0)?.id }) : []
        let decoded = JobBatch.decode(bytes, localZone: request.localZone)
        var problems = decoded.problems
        var candidates: [IntakeCandidate] = []
        candidates.reserveCapacity(decoded.jobs.count)
        var seen = Set<String>()
        for (line, job) in decoded.jobs {
            let id = job.id ?? JobBatch.defaultID(stem: stem, line: line.number)
            if finished.contains(id) { continue }
            guard Job.isValidID(id), seen.insert(id).inserted else {
                let message = "id '\(id)' appears twice"
                problems.append(.init(line: line.number, message: message, redacted: message))
                continue
            }
            do {
                let first = try Self.firstOccurrence(of: job, request, now: now)
                var text = Array(line.bytes)
                text.append(UInt8(ascii: "\n"))
                candidates.append(IntakeCandidate(id: id, kind: job.kind, first: first, line: text))
            } catch {
                problems.append(.init(line: line.number, message: error.description, redacted: error.reason))
            }
        }
        if !problems.isEmpty {
            problems.sort { $0.line < $1.line }
            let reason = problems.prefix(20).map(\.description).joined(separator: "; ") + (problems.count > 20 ? "; ..." : "")
            let redacted = problems.prefix(5).map { "line \($0.line): \($0.redacted)" }.joined(separator: "; ")
            return deliver(.intakeRead([.refused(file: file, IntakeRefusal(reason: reason, redacted: redacted))]))
        }
        var start = 0
        repeat {
            let end = min(start + partSize, candidates.count)
            deliver(.intakeRead([.batch(file: file, Array(candidates[start..<end]), total: candidates.count,
                                        isFirst: start == 0, isLast: end == candidates.count)]))
            start = end
        } while start < candidates.count
    }

    /// A batch being filed is renamed to `.filing-<name>` first: hidden from other readers, and
    /// recognisable as half-filed if heraldd stops before it is done.
    public static let claimPrefix = ".filing-"

    public static func isClaimedBatch(_ name: String) -> Bool { name.hasPrefix(claimPrefix) && name.hasSuffix(".jsonl") }

    /// When a job taken in now first fires.
    ///
    /// - Throws: `JobError` when it never will.
    static func firstOccurrence(of job: Job, _ request: IntakeRequest, now: Instant) throws(JobError) -> Instant {
        let schedule = try JobSchedule(job, localZone: request.localZone)
        guard let first = schedule.first(now: now, defaultLead: request.defaultLead) else {
            throw JobError("field 'every' never elapses after now", value: job.every.map { "\"\($0)\"" })
        }
        return first
    }
}
