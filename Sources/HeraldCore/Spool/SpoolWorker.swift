#if canImport(Glibc)
import Glibc
#endif
import CHeraldSys
import Logging
import Synchronization

/// Carries out the engine's file effects on a spool and turns what came of them into events.
/// heraldd calls it on its spool and intake queues; engine tests call it inline.
public struct SpoolWorker: Sendable {
    public let spool: Spool
    let logger: Logger
    /// Stage batch jobs in `tmp/` even where unnamed files work (tests of that way).
    var stagesInTmp = false

    public init(spool: Spool, logger: Logger) {
        self.spool = spool
        self.logger = logger
    }

    /// What `jobs/` holds, for `.started` or `.jobsListed`.
    public func listJobs() throws(FileSystemError) -> (jobs: [JobFileName], strays: [String]) {
        try spool.jobFiles()
    }

    /// Performs one operation; returns `.operationFailed` when it failed.
    public func carryOut(_ operation: SpoolOperation, now: Instant) -> EngineEvent? {
        do {
            switch operation {
            case .advance(let from, let to): try spool.advance(from, to: to)
            case .finish(let name): try spool.finish(name)
            case .cancel(let name): try spool.cancel(name)
            case .restore(let from, let to): try FileSystem.move(spool.done + "/" + from.description, to: spool.path(of: to))
            case .quarantine(let name, let reason): try spool.quarantine(directory: spool.jobs, name: name, reason: reason, now: now)
            case .appendHistory(let record): try FileSystem.appendLine(record.jsonLine, to: spool.historyPath)
            case .appendHabitLog(let id, let entry): try HabitLog(spool: spool, id: id).append(entry)
            case .runCollected(let id, let run): try RunFiles(spool: spool).collected(id, run)
            }
            return nil
        } catch {
            return .operationFailed(operation, error)
        }
    }

    /// Appends history lines in as few writes as they fit (pieces of whole lines, at most
    /// `historyPiece` bytes each): a burst's step takes one open, lock and write, not seven
    /// system calls per popup. Returns `.operationFailed` for each line that was not written.
    public func appendHistory(_ records: [HistoryRecord]) -> [EngineEvent] {
        var failures: [EngineEvent] = []
        var piece: [HistoryRecord] = [], text = ""
        func write() {
            guard !piece.isEmpty else { return }
            do { try FileSystem.appendLine(text, to: spool.historyPath) } catch {
                failures += piece.map { .operationFailed(.appendHistory($0), error) }
            }
            piece = []
            text = ""
        }
        for record in records {
            let line = record.jsonLine
            if !piece.isEmpty && text.utf8.count + 1 + line.utf8.count > Self.historyPiece { write() }
            text += piece.isEmpty ? line : "\n" + line
            piece.append(record)
        }
        write()
        return failures
    }

    /// 64 KB: a catch-up of thousands of missed occurrences is not one allocation of megabytes.
    static let historyPiece = 64 << 10

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
        result.settledFiles = plan.refusals.map(\.file) + plan.moves.map(\.file)
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
                // The intake checked this file; it is opened again, with the same check, to
                // take its document and inode from the descriptor that is read.
                let opened = try? TrustedFile.open(source, rules: FileRules(maximumSize: Job.maximumFileSize, ownedByUser: true)).get()
                // Put there after it was checked (renamed over): not moved unchecked; it has an
                // event of its own, and the job read from the file before is dropped.
                if move.inode != 0, let opened, UInt64(opened.status.st_ino) != move.inode {
                    opened.descriptor.close()
                    logger.info("A file of new/ was replaced after it was read; the new one is read on its own", metadata: ["file": "\(move.file)"])
                    throw FileSystemError(operation: "accept (the file was replaced after it was read)", path: source, code: ENOENT)
                }
                let doc = opened.flatMap { try? $0.readAll().get() }
                if let opened, let doc, opened.status.st_nlink > 1 {
                    // A hard link (a maildir writer's link(2), or `ln`): the job gets a file of its
                    // own, so writing through the other name cannot change it.
                    opened.descriptor.close()
                    let copy = spool.tmp + "/.linked." + move.name.description
                    let inode = try FileSystem.writeStaged(doc, tmpPath: copy)
                    pack.append([JobDocPack.Record(id: move.name.id, inode: inode, document: doc)])
                    do throws(FileSystemError) { try FileSystem.move(copy, to: target) } catch { unlink(copy); throw error }
                    unlink(source)
                } else {
                    if let opened, let doc {
                        pack.append([JobDocPack.Record(id: move.name.id, inode: UInt64(opened.status.st_ino), document: doc)])
                        opened.descriptor.close()
                    }
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
        if !plan.writes.isEmpty { writeBatchJobs(plan.writes, batch: plan.batch, pack: pack, into: &result) }
        if let batch = plan.removeBatch {
            FileSystem.syncFileSystem(of: spool.jobs)
            unlink(spool.new + "/" + batch)
            result.removedBatch = batch
        }
        return .filed(result)
    }

    /// How many jobs of a part are written before their records go into the pack and they are
    /// linked: each is an open file until then.
    static let filingGroup = 256

    /// Whether unnamed files (O_TMPFILE) and linking them work here; set false at the first
    /// failure that says they do not (an old kernel, a file system without them).
    static let unnamedFiles = Atomic<Bool>(true)

    /// Writes a batch part's jobs into `jobs/`. Each document is written to an unnamed file in
    /// `jobs/` (O_TMPFILE), a group's records go into the pack in one append (see `JobDocPack`),
    /// then each file is given its name with `linkat`: a job file appears whole, after its
    /// record; one whose heraldd dies before its link leaves nothing behind. A link raises
    /// IN_CREATE, which heraldd's watch on `jobs/` ignores (the engine hears of these jobs
    /// from this result; 100,000 events would overflow inotify's queue). Every call is relative
    /// to `jobs/`'s descriptor and each name is built on the stack: no path is walked or String
    /// made per job. Where unnamed files do not work, each job is staged in `tmp/` and linked
    /// from there instead.
    func writeBatchJobs(_ writes: [FilingPlan.Write], batch: String?, pack: JobDocPack, into result: inout FilingResult) {
        guard let jobsDir = Descriptor.open(spool.jobs, O_RDONLY | O_DIRECTORY) else {
            logger.error("Cannot write a job from a batch", metadata: ["file": "\(batch ?? "-")", "error": "\(FileSystem.fail("open", spool.jobs))"])
            result.failed += writes.map(\.name)
            return
        }
        let jobsFD = jobsDir.raw
        var tmpDir: Descriptor?
        defer { withExtendedLifetime((jobsDir, tmpDir)) {} }  // open while their raw numbers are used
        func failed(_ write: FilingPlan.Write, _ error: FileSystemError) {
            logger.error("Cannot write a job from a batch", metadata: ["file": "\(batch ?? "-")", "error": "\(error)"])
            result.failed.append(write.name)
        }
        // A job that found unnamed files missing goes the old way: staged in tmp/ and linked.
        func fileStaged(_ write: FilingPlan.Write) {
            if tmpDir == nil { tmpDir = Descriptor.open(spool.tmp, O_RDONLY | O_DIRECTORY) }
            let tmpFD = tmpDir?.raw ?? -1
            do throws(FileSystemError) {
                let inode = try write.name.withCString(prefix: ".batch.") { tmp throws(FileSystemError) in
                    guard let file = Descriptor(openat(tmpFD, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)) else {
                        throw FileSystem.fail("create", spool.tmp + "/.batch.\(write.name)")
                    }
                    var st = stat()
                    guard file.writeAll(write.line), fstat(file.raw, &st) == 0 else {
                        let error = FileSystem.fail("write", spool.tmp + "/.batch.\(write.name)")
                        unlinkat(tmpFD, tmp, 0)
                        throw error
                    }
                    return UInt64(st.st_ino)
                }
                pack.append([JobDocPack.Record(id: write.name.id, inode: inode, document: write.line)])
                try write.name.withCString(prefix: ".batch.") { tmp throws(FileSystemError) in
                    defer { unlinkat(tmpFD, tmp, 0) }
                    try write.name.withCString { name throws(FileSystemError) in
                        guard linkat(tmpFD, tmp, jobsFD, name, 0) == 0 || errno == EEXIST else {
                            throw FileSystem.fail("link into place", spool.path(of: write.name))
                        }
                    }
                }
                result.filed.append(write.name)
            } catch {
                failed(write, error)
            }
        }
        var unnamed: [(write: FilingPlan.Write, file: Descriptor)] = []
        unnamed.reserveCapacity(Self.filingGroup)
        var records: [JobDocPack.Record] = []
        records.reserveCapacity(Self.filingGroup)
        var start = 0
        while start < writes.count {
            let group = writes[start..<min(start + Self.filingGroup, writes.count)]
            start = group.endIndex
            for write in group {
                guard !stagesInTmp, Self.unnamedFiles.load(ordering: .relaxed) else { fileStaged(write); continue }
                guard let file = Descriptor(herald_open_unnamed(jobsFD)) else {
                    if errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL {
                        Self.unnamedFiles.store(false, ordering: .relaxed)
                        fileStaged(write)
                    } else {
                        failed(write, FileSystem.fail("create a file in", spool.jobs))
                    }
                    continue
                }
                var st = stat()
                guard file.writeAll(write.line), fstat(file.raw, &st) == 0 else {
                    failed(write, FileSystem.fail("write", spool.path(of: write.name)))
                    continue
                }
                unnamed.append((write, file))
                records.append(JobDocPack.Record(id: write.name.id, inode: UInt64(st.st_ino), document: write.line))
            }
            pack.append(records)
            records.removeAll(keepingCapacity: true)
            for (write, file) in unnamed {
                let linked = write.name.withCString { herald_link_unnamed(file.raw, jobsFD, $0) == 0 || errno == EEXIST }
                let error = errno
                file.close()
                if linked {
                    result.filed.append(write.name)
                } else if error == ENOENT || error == EPERM || error == EXDEV {
                    // The link itself is refused (no /proc, say): unnamed files cannot be named here.
                    Self.unnamedFiles.store(false, ordering: .relaxed)
                    fileStaged(write)
                } else {
                    errno = error
                    failed(write, FileSystem.fail("link into place", spool.path(of: write.name)))
                }
            }
            unnamed.removeAll(keepingCapacity: true)
        }
    }
}

