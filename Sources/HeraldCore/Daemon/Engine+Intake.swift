import Logging
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Engine {
    /// Takes in files from `new/`: valid jobs move to `jobs/`, anything else to `failed/`.
    /// Once they are in, `jobs/` is synced: from then on they survive a power cut.
    public func intake(names: [String]) -> [Effect] {
        let before = pending.count
        for name in names.sorted() where !name.hasPrefix(".") {
            if name.hasSuffix(".jsonl") { intakeBatch(name) } else { intakeOne(name) }
        }
        if pending.count != before { try? FileSystem.syncDirectoryOf(spool.jobs + "/.") }
        return tick()
    }

    func intakeOne(_ fileName: String) {
        let path = spool.new + "/" + fileName
        let bytes: [UInt8]
        let mode: mode_t
        switch spool.readCheckedFile(path, limit: Job.maximumFileSize) {
        case .success(let file): (bytes, mode) = file
        case .failure(let error):
            if case .unreadable = error, !FileSystem.exists(path) { return }  // already taken
            quarantine(directory: spool.new, name: fileName, reason: error.description, redacted: error.redacted)
            return
        }
        let job: Job
        let first: Instant
        do {
            job = try Job.decode(Data(bytes), localZone: localZone)
            first = try firstOccurrence(of: job)
        } catch {
            quarantine(directory: spool.new, name: fileName, reason: error.description, redacted: error.reason)
            return
        }
        let id = job.id ?? freshID(hint: fileName)
        if pending.count >= config.maxJobs {
            quarantine(directory: spool.new, name: fileName, reason: "the spool already holds \(pending.count) jobs, its limit (limits.jobs)")
            return
        }
        if pending[id] != nil {
            quarantine(directory: spool.new, name: fileName, reason: "job id '\(id)' is already pending")
            return
        }
        let name = JobFileName(id: id, occurrence: first)
        do {
            try FileSystem.move(path, to: spool.path(of: name))
            if mode != 0o600 { chmod(spool.path(of: name), 0o600) }  // job files are the user's alone
        } catch {
            if !error.isNotFound { logger.error("Cannot accept a job file", metadata: ["file": "\(fileName)", "error": "\(error)"]) }
            return
        }
        adopt(name)
        logger.info("Job accepted", metadata: ["job.id": "\(id)", "job.kind": "\(job.kind.rawValue)", "job.due": "\(name.fireAt)"])
    }

    /// When a job taken in now first fires.
    ///
    /// - Throws: `JobError` when it never will.
    func firstOccurrence(of job: Job) throws(JobError) -> Instant {
        let schedule = try JobSchedule(job, localZone: localZone)
        guard let first = schedule.first(now: clock.now, defaultLead: config.lead) else {
            throw JobError("field 'every' never elapses after now", value: job.every.map { "\"\($0)\"" })
        }
        return first
    }

    /// A `.jsonl` batch: every line is validated first; then all are written, synced once,
    /// and the batch removed. A batch taken in again after a crash skips ids already pending.
    func intakeBatch(_ fileName: String) {
        let path = spool.new + "/" + fileName
        let bytes: [UInt8]
        switch spool.readChecked(path, limit: 1 << 30) {
        case .success(let b): bytes = b
        case .failure(let error):
            if case .unreadable = error, !FileSystem.exists(path) { return }
            quarantine(directory: spool.new, name: fileName, reason: error.description, redacted: error.redacted)
            return
        }
        let stem = String(fileName.dropLast(6))
        var accepted: [(name: JobFileName, line: ArraySlice<UInt8>)] = []
        var problems: [String] = []
        var redacted: [String] = []
        var lineNumber = 0
        var seen = Set<String>()
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            do {
                let job = try Job.decode(Data(line), localZone: localZone)
                let id = job.id ?? "\(stem)-\(lineNumber)"
                guard Job.isValidID(id), seen.insert(id).inserted else {
                    problems.append("line \(lineNumber): id '\(id)' appears twice"); redacted.append(problems.last!); continue
                }
                accepted.append((JobFileName(id: id, occurrence: try firstOccurrence(of: job)), line))
            } catch {
                problems.append("line \(lineNumber): \(error)")
                redacted.append("line \(lineNumber): \(error.reason)")
            }
        }
        if problems.isEmpty, pending.count + accepted.count > config.maxJobs {
            problems.append("\(accepted.count) more jobs would pass the spool's limit of \(config.maxJobs) (limits.jobs)")
            redacted.append(problems.last!)
        }
        if !problems.isEmpty {
            quarantine(directory: spool.new, name: fileName,
                       reason: problems.prefix(20).joined(separator: "; ") + (problems.count > 20 ? "; ..." : ""),
                       redacted: redacted.prefix(5).joined(separator: "; "))
            return
        }
        var added: [(String, Instant)] = []
        var skipped = 0
        for (name, line) in accepted {
            if pending[name.id] != nil { skipped += 1; continue }
            let tmpPath = spool.tmp + "/.batch." + name.description
            do {
                var content = Array(line)
                content.append(UInt8(ascii: "\n"))
                try FileSystem.writeUnsynced(content, tmpPath: tmpPath, finalPath: spool.path(of: name))
            } catch {
                logger.error("Cannot write a job from a batch; the batch stays in new/",
                             metadata: ["file": "\(fileName)", "error": "\(error)"])
                return
            }
            pending[name.id] = name
            added.append((name.id, name.fireAt))
        }
        FileSystem.syncFileSystem(of: spool.jobs)
        unlink(path)
        scheduler.schedule(contentsOf: added)
        logger.info("Batch accepted", metadata: ["file": "\(fileName)", "jobs.added": "\(added.count)", "jobs.skipped": "\(skipped)"])
    }

    func freshID(hint fileName: String) -> String {
        let stem = fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName
        if Job.isValidID(stem), pending[stem] == nil { return stem }
        var rng = SystemRandomNumberGenerator()
        while true {
            let id = JobID.random(using: &rng)
            if pending[id] == nil { return id }
        }
    }

    func quarantine(directory: String, name: String, reason: String, redacted: String? = nil) {
        do {
            let target = try spool.quarantine(directory: directory, name: name, reason: reason, now: clock.now)
            logger.warning("Bad job file moved to failed/",
                           metadata: ["file": "\(spool.relative(directory))/\(name)", "moved.to": "\(spool.relative(target))",
                                      "reason": "\(redacted ?? reason)"])
            logger.debug("Bad job file, full reason", metadata: ["file": "\(name)", "reason": "\(reason)"])
            if directory == spool.new {  // refused at intake; a job failing when due records its own line
                let now = clock.now
                let stem = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
                appendHistory(HistoryRecord(time: now, id: stem, kind: nil, role: nil, due: now, outcome: .failed,
                                            note: "new/\(name) moved to failed/: \(redacted ?? reason)"))
            }
        } catch {
            if error.isNotFound { return }
            logger.error("Cannot move a bad job file to failed/", metadata: ["file": "\(name)", "error": "\(error)"])
        }
    }
}
