#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Carries out the engine's file effects on a spool and turns what came of them into events.
/// heraldd calls it on its spool and intake queues; engine tests call it inline.
public struct SpoolWorker: Sendable {
    public let spool: Spool
    let logger: Logger

    public init(spool: Spool, logger: Logger) {
        self.spool = spool
        self.logger = logger
    }

    /// What `jobs/` holds, for `.started` or `.jobsListed`.
    public func listJobs() throws(FileSystemError) -> (jobs: [JobFileName], strays: [String]) {
        try spool.jobFiles()
    }

    /// Performs one operation; returns `.operationFailed` when it failed.
    public func perform(_ operation: SpoolOperation, now: Instant) -> EngineEvent? {
        do {
            switch operation {
            case .advance(let from, let to): try spool.advance(from, to: to)
            case .finish(let name): try spool.finish(name)
            case .cancel(let name): try spool.cancel(name)
            case .restore(let from, let to): try FileSystem.move(spool.done + "/" + from.description, to: spool.path(of: to))
            case .quarantine(let name, let reason): try spool.quarantine(directory: spool.jobs, name: name, reason: reason, now: now)
            case .appendHistory(let record): try FileSystem.appendLine(record.jsonLine, to: spool.historyPath)
            case .appendHabitLog(let id, let entry): try HabitLog(spool: spool, id: id).append(entry)
            }
            return nil
        } catch {
            return .operationFailed(operation, error)
        }
    }

    /// Reads a job's document, and a habit's log with it.
    public func load(_ request: LoadRequest, localZone: TimeZoneRules) -> EngineEvent {
        let document = request.finished ? spool.loadFinishedJob(request.name, localZone: localZone)
            : spool.loadJob(request.name, localZone: localZone)
        return .loaded(request, document.map { job in
            LoadedJob(job: job, habitLog: job.kind == .habit ? HabitLog(spool: spool, id: request.id).read() : nil)
        })
    }

    /// Files what the engine accepted from `new/` and refuses the rest. Single files are made
    /// durable at once (one fsync of `jobs/`); a batch's files once it is whole (`removeBatch`:
    /// one sync(2), then the batch goes).
    public func file(_ plan: FilingPlan, now: Instant) -> EngineEvent {
        var result = FilingResult()
        result.batch = plan.batch
        result.isLastPart = plan.isLastPart
        for refusal in plan.refusals {
            do {
                try spool.quarantine(directory: spool.new, name: refusal.file, as: IntakeReader.unclaimedName(refusal.file),
                                     reason: refusal.reason, now: now)
            } catch {
                if !error.isNotFound {
                    logger.error("Cannot move a bad job file to failed/", metadata: ["file": "\(refusal.file)", "error": "\(error)"])
                }
            }
        }
        let pack = JobDocPack(spool: spool)
        for move in plan.moves {
            let target = spool.path(of: move.name)
            do throws(FileSystemError) {
                // The document goes into the pack before the file goes into jobs/ (see JobDocPack).
                let source = spool.new + "/" + move.file
                let fd = open(source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
                var st = stat()
                let doc = fd >= 0 && fstat(fd, &st) == 0 ? try? FileSystem.readAll(fd, path: source, limit: Job.maximumFileSize) : nil
                if let doc, st.st_nlink > 1 {
                    // A hard link (a maildir writer's link(2), or `ln`): the job gets a file of its
                    // own, so writing through the other name cannot change it.
                    close(fd)
                    let copy = spool.tmp + "/.linked." + move.name.description
                    let inode = try FileSystem.writeStaged(doc, tmpPath: copy)
                    pack.append([JobDocPack.Record(id: move.name.id, inode: inode, document: doc)])
                    do throws(FileSystemError) { try FileSystem.move(copy, to: target) } catch { unlink(copy); throw error }
                    unlink(source)
                } else {
                    if let doc { pack.appendRecord(id: move.name.id, fd: fd, document: doc) }
                    if fd >= 0 { close(fd) }
                    try FileSystem.move(source, to: target)
                }
                if move.fixMode { chmod(target, 0o600) }  // job files are the user's alone
                result.filed.append(move.name)
            } catch {
                if !error.isNotFound { logger.error("Cannot accept a job file", metadata: ["file": "\(move.file)", "error": "\(error)"]) }
                result.failed.append(move.name)
            }
        }
        if !result.filed.isEmpty { try? FileSystem.syncDirectoryOf(spool.jobs + "/.") }
        // A batch part's files are written first, their records go into the pack in one
        // append, and only then are the files linked into jobs/ (see JobDocPack).
        var staged: [(write: FilingPlan.Write, tmp: String)] = []
        var records: [JobDocPack.Record] = []
        for write in plan.writes {
            let tmp = spool.tmp + "/.batch." + write.name.description
            do {
                let inode = try FileSystem.writeStaged(write.line, tmpPath: tmp)
                staged.append((write, tmp))
                records.append(JobDocPack.Record(id: write.name.id, inode: inode, document: write.line))
            } catch {
                logger.error("Cannot write a job from a batch", metadata: ["file": "\(plan.batch ?? "-")", "error": "\(error)"])
                result.failed.append(write.name)
            }
        }
        pack.append(records)
        for (write, tmp) in staged {
            do {
                try FileSystem.linkStaged(tmp, finalPath: spool.path(of: write.name))
                result.filed.append(write.name)
            } catch {
                logger.error("Cannot write a job from a batch", metadata: ["file": "\(plan.batch ?? "-")", "error": "\(error)"])
                result.failed.append(write.name)
            }
        }
        if let batch = plan.removeBatch {
            FileSystem.syncFileSystem(of: spool.jobs)
            unlink(spool.new + "/" + batch)
            result.removedBatch = batch
        }
        return .filed(result)
    }
}
