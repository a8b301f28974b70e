#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
/// Reads and checks files from `new/` for the engine, on the intake queue: the costly part of
/// taking jobs in (reading, decoding, working out first occurrences) never runs on the
/// scheduler's queue. It moves nothing; the engine decides and `SpoolWorker` files.
public struct IntakeReader: Sendable {
    public let spool: Spool
    /// How many jobs of a batch go to the engine in one part (each part is one short step on
    /// the scheduler's queue; see BENCHMARKS.md, "Intake off the scheduler's path").
    public var partSize: Int
    /// The crash-loop breaker's note (heraldd's; nil in tests and tools).
    public var claim: WorkClaim?
    public init(spool: Spool, partSize: Int = 1_000, claim: WorkClaim? = nil) {
        self.spool = spool
        self.partSize = partSize
        self.claim = claim
    }

    /// Reads `request`'s files at `now` and hands the engine's events to `deliver`: single
    /// files together, a batch in parts once all of it has been checked.
    public func read(_ request: IntakeRequest, now: Instant, deliver: (EngineEvent) -> Void) {
        let names = request.names ?? spool.intakeNames()
        var singles: [IntakeFile] = []
        // Once each: two events for one file come as its name twice.
        for name in Set(names).sorted() where !name.hasPrefix(".") || Self.isClaimedBatch(name) {
            claim?.begin("new/" + Self.unclaimedName(name))  // one name for a batch, claimed or not
            defer { claim?.end() }
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
        switch spool.readCheckedFile(path, limit: Job.maximumFileSize, whenComplete: true) {
        case .failure(let error):
            // Still being written: its IN_CLOSE_WRITE brings it back.
            if error == .missing || error == .beingWritten { return .gone(file: file) }
            return .refused(file: file, IntakeRefusal(reason: error.description, redacted: error.redacted))
        case .success(let (bytes, mode, inode)):
            do {
                let job = try Job.decode(bytes, localZone: request.localZone)
                let first = try Self.firstOccurrence(of: job, request, now: now)
                return .single(file: file, IntakeCandidate(id: job.id, kind: job.kind, first: first, mode: UInt32(mode), wake: job.wake,
                                                           inode: UInt64(inode)))
            } catch {
                return .refused(file: file, IntakeRefusal(reason: error.description, redacted: error.reason))
            }
        }
    }

    /// Every line is checked before any part goes to the engine: a batch is taken whole or not
    /// at all. A valid batch is then claimed (see `claimPrefix`) and its parts carry that name.
    /// A claimed batch found again (heraldd stopped while filing it) is resumed: its jobs that
    /// have since been filed, finished, cancelled or refused stay as they are.
    func readBatch(_ file: String, _ request: IntakeRequest, now: Instant, retried: Bool = false,
                   deliver: (EngineEvent) -> Void) {
        let path = spool.new + "/" + file
        let opened: TrustedFile
        switch spool.openChecked(path, limit: Self.maximumBatchSize, whenComplete: true) {
        case .success(let file): opened = file
        case .failure(let error):
            if error == .missing || error == .beingWritten { return deliver(.intakeRead([.gone(file: file)])) }
            return deliver(.intakeRead([.refused(file: file, IntakeRefusal(reason: error.description, redacted: error.redacted))]))
        }
        let fd = opened.descriptor.raw, st = opened.status, inode = opened.status.st_ino
        defer { withExtendedLifetime(opened) {} }  // the descriptor stays open while fd is read
        let resumed = Self.isClaimedBatch(file)
        let stem = String(file.dropLast(6).dropFirst(resumed ? Self.claimPrefix.count : 0))
        if resumed { dropUnclaimedCopy(stem + ".jsonl", inode: inode) }
        let settled = resumed ? settledSinceClaim(path) : []
        // Checked line by line as it is read; a candidate keeps where its line is, not its
        // bytes, which are read again a part at a time as the parts go out.
        var checked = checkLines(fd, size: Int(clamping: st.st_size), stem: stem, settled: settled, request, now: now)
        var problems = checked.problems
        let problemCount = checked.problemCount
        let candidates = checked.candidates
        checked = Checked()
        // A resumed batch was whole when it was claimed; a line that no longer fits (a schedule
        // that has ended since) has nothing left to show.
        if !problems.isEmpty && !resumed {
            problems.sort { $0.line < $1.line }
            let reason = problems.prefix(20).map(\.description).joined(separator: "; ") + (problemCount > 20 ? "; ... (\(problemCount) problems)" : "")
            let redacted = problems.prefix(5).map { "line \($0.line): \($0.redacted)" }.joined(separator: "; ")
            return deliver(.intakeRead([.refused(file: file, IntakeRefusal(reason: reason, redacted: redacted))]))
        }
        var claimed = file
        if !resumed {
            claimed = Self.claimPrefix + file
            switch claim(file, as: claimed, inode: inode) {
            case .claimed: break
            case .taken: return deliver(.intakeRead([.waiting(file: file)]))
            case .gone: return deliver(.intakeRead([.gone(file: file)]))
            case .replaced:
                // A writer put another file under this name after it was read: read that one.
                guard !retried else { return deliver(.intakeRead([.waiting(file: file)])) }
                return readBatch(file, request, now: now, retried: true, deliver: deliver)
            }
        }
        // Parts go out soonest first, wherever their lines sit in the file: each job is
        // scheduled as its part is accepted, and filed in that order, so the jobs due while a
        // large batch is filed are filed first (a stable sort: ties keep the file's order).
        let order = candidates.indices.sorted { (candidates[$0].first, $0) < (candidates[$1].first, $1) }
        var start = 0
        repeat {
            let end = min(start + partSize, order.count)
            var part = order[start..<end].map { IntakeCandidate(id: candidates[$0].id, kind: candidates[$0].kind, first: candidates[$0].first,
                                                                           wake: candidates[$0].wake) }
            // Read in file order (the part's lines are usually a few stretches), kept in due order.
            let byOffset = (0..<part.count).sorted { order[start + $0] < order[start + $1] }
            var k = 0
            while k < byOffset.count {
                // One read for a run of adjacent lines, of at most a megabyte (or one line).
                let from = Int(candidates[order[start + byOffset[k]]].offset)
                var last = k
                while last + 1 < byOffset.count, order[start + byOffset[last + 1]] == order[start + byOffset[last]] + 1 {
                    let next = candidates[order[start + byOffset[last + 1]]]
                    guard Int(next.offset) + Int(next.length) - from <= 1 << 20 else { break }
                    last += 1
                }
                let final = candidates[order[start + byOffset[last]]]
                let to = Int(final.offset) + Int(final.length)
                var bytes = [UInt8](repeating: 0, count: to - from)
                let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, off_t(from)) }
                guard n == bytes.count else {
                    // Changed under us (only a hostile writer rewrites a file in new/): what is
                    // filed stays filed, the rest waits for the file's next event.
                    return deliver(.intakeRead([.waiting(file: claimed)]))
                }
                for j in k...last {
                    let place = candidates[order[start + byOffset[j]]]
                    let line = bytes[(Int(place.offset) - from)..<(Int(place.offset) - from + Int(place.length))]
                    // Only what was checked is filed: a file rewritten in place (against the
                    // maildir rule) since is left for its next event.
                    guard Self.hash(line) == place.hash else { return deliver(.intakeRead([.waiting(file: claimed)])) }
                    part[byOffset[j]].line = Array(line) + [UInt8(ascii: "\n")]
                }
                k = last + 1
            }
            deliver(.intakeRead([.batch(BatchPart(file: claimed, candidates: part, total: order.count,
                                                  isFirst: start == 0, isLast: end == order.count, resumed: resumed))]))
            start = end
        } while start < order.count
    }

    /// What the check of a batch's lines (or of a stretch of them) found. Only the first
    /// problems are told (the reason quotes 20): a batch of ten million bad lines must not hold
    /// ten million messages.
    struct Checked: Sendable {
        var candidates: [CheckedLine] = []
        var problems: [JobBatch.Problem] = []
        var problemCount = 0
        var ids = Set<String>()
        /// In a stretch after the first: lines without an id (their index in `candidates`, their
        /// number in the stretch), whose ids are made from line numbers once the stretch
        /// before is counted.
        var unnamed: [(index: Int, line: Int)] = []
        var lines = 0

        mutating func problem(_ p: JobBatch.Problem) { problemCount += 1; if problems.count < 100 { problems.append(p) } }
    }

    private static let halfQueue = DispatchQueue(label: "herald.intake.half", qos: .utility)

    /// A batch this large is checked in two halves side by side (the check is a fifth of the
    /// time a batch takes in: BENCHMARKS.md, "Intake throughput").
    static let twoHalvesSize = 1 << 20

    /// Checks every line of `fd`. A large batch is split after the newline nearest its middle
    /// and its halves checked on two threads, then joined as one pass would have found them:
    /// the second half's line numbers, and the ids made from them, follow the first's. When
    /// the halves share an id (a refused batch, whose message must name the right line), or a
    /// made id is taken, the batch is checked again in one pass.
    func checkLines(_ fd: Int32, size: Int, stem: String, settled: Set<String>, _ request: IntakeRequest, now: Instant) -> Checked {
        func onePass() -> Checked {
            var whole = checkStretch(fd, from: 0, to: nil, first: true, stem: stem, settled: settled, request, now: now)
            whole.ids = []  // 4 MB at 100,000 ids, not needed while the batch is filed
            return whole
        }
        guard size >= Self.twoHalvesSize, let split = Self.lineStart(after: size / 2, in: fd, size: size) else { return onePass() }
        // The second half on a serial queue of its own: the global concurrent queues
        // (`concurrentPerform`) start libdispatch's worker-pool monitor, a timer that then wakes
        // heraldd every second for good (`make bench`'s idle row).
        let secondHalf = Mutex<Checked?>(nil)
        let done = DispatchSemaphore(value: 0)
        Self.halfQueue.async { [self] in
            let half = checkStretch(fd, from: split, to: nil, first: false, stem: stem, settled: settled, request, now: now)
            secondHalf.withLock { $0 = half }
            done.signal()
        }
        var joined = checkStretch(fd, from: 0, to: split, first: true, stem: stem, settled: settled, request, now: now)
        done.wait()
        var second = secondHalf.withLock { $0 } ?? Checked()
        let base = joined.lines
        for (index, line) in second.unnamed {
            let id = JobBatch.defaultID(stem: stem, line: base + line)
            guard !settled.contains(id), Job.isValidID(id), !joined.ids.contains(id), second.ids.insert(id).inserted else {
                return onePass()
            }
            second.candidates[index].id = id
        }
        guard joined.ids.isDisjoint(with: second.ids) else { return onePass() }
        joined.ids = []
        joined.candidates += second.candidates
        joined.problems += second.problems.map { var p = $0; p.line += base; return p }
        joined.problems.sort { $0.line < $1.line }
        joined.problems = Array(joined.problems.prefix(100))
        joined.problemCount += second.problemCount
        joined.lines += second.lines
        return joined
    }

    /// Checks the lines from `start` to `end` (the file's end when nil). In the first stretch a
    /// line without an id gets one from its number; later stretches leave that to `checkLines`.
    func checkStretch(_ fd: Int32, from start: Int, to end: Int?, first: Bool, stem: String, settled: Set<String>,
                      _ request: IntakeRequest, now: Instant) -> Checked {
        var checked = Checked()
        checked.lines = JobBatch.forEachLine(fd, from: start, to: end, { line, offset in
            let job: Job
            switch JobBatch.decodeLine(line, localZone: request.localZone) {
            case .success(let j): job = j
            case .failure(let p): return checked.problem(p)
            }
            var id = job.id
            if id == nil && first { id = JobBatch.defaultID(stem: stem, line: line.number) }
            if let id {
                if settled.contains(id) { return }
                guard Job.isValidID(id), checked.ids.insert(id).inserted else {
                    let message = "id '\(id)' appears twice"
                    return checked.problem(.init(line: line.number, message: message, redacted: message))
                }
            }
            do throws(JobError) {
                let firstTime = try Self.firstOccurrence(of: job, request, now: now)
                // Past 4 GiB only if the file grew while it was read (it was at most 1 GiB).
                guard let at = UInt32(exactly: offset), let length = UInt32(exactly: line.bytes.count) else {
                    return checked.problem(.init(line: line.number, message: "the file grew past 1 GiB while it was read", redacted: "file too large"))
                }
                if id == nil { checked.unnamed.append((checked.candidates.count, line.number)) }
                checked.candidates.append(CheckedLine(id: id, first: firstTime, hash: Self.hash(line.bytes), offset: at, length: length, kind: job.kind, wake: job.wake))
            } catch {
                checked.problem(.init(line: line.number, message: error.description, redacted: error.reason))
            }
        }, tooLong: { checked.problem($0) })
        return checked
    }

    /// Where the first line starting after `offset` starts; nil when none does before `size`.
    static func lineStart(after offset: Int, in fd: Int32, size: Int) -> Int? {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var at = offset
        while at < size {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, off_t(at)) }
            guard n > 0 else { return nil }
            if let newline = chunk[0..<n].firstIndex(of: UInt8(ascii: "\n")) {
                return at + newline + 1 < size ? at + newline + 1 : nil
            }
            at += n
        }
        return nil
    }

    /// A checked line of a batch: where it lies and what its part tells the engine. 48 bytes
    /// (its bytes are read again as its part goes out); a batch is at most 1 GiB, so 32 bits
    /// place it.
    struct CheckedLine {
        var id: String?
        var first: Instant
        var hash: UInt64
        var offset: UInt32
        var length: UInt32
        var kind: Job.Kind
        var wake: Bool?
    }

    /// FNV-1a of a line: enough to see that the bytes read again are the bytes checked.
    static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0100_0000_01b3 }
        return h
    }

    /// The largest batch file taken (it is read in parts; this bounds the time one file takes).
    public static let maximumBatchSize = 1 << 30

    enum Claim { case claimed, taken, gone, replaced }

    /// Links `new/<file>` to `new/<claimed>` (never replacing one), checks it is the file that
    /// was read, and removes the unclaimed name.
    func claim(_ file: String, as claimed: String, inode: ino_t) -> Claim {
        let from = spool.new + "/" + file, to = spool.new + "/" + claimed
        guard link(from, to) == 0 else { return errno == EEXIST ? .taken : .gone }
        var st = stat()
        guard lstat(to, &st) == 0, st.st_ino == inode else {
            unlink(to)
            return .replaced
        }
        unlink(from)
        return .claimed
    }

    /// After a stop between claiming a batch and removing its first name, both names are left.
    func dropUnclaimedCopy(_ file: String, inode: ino_t) {
        var st = stat()
        let path = spool.new + "/" + file
        if lstat(path, &st) == 0, st.st_ino == inode { unlink(path) }
    }

    /// Ids of jobs that left `jobs/` (finished, cancelled, refused) since the batch at `path`
    /// was claimed: the claim and those moves each set the file's change time.
    func settledSinceClaim(_ path: String) -> Set<String> {
        var st = stat()
        guard lstat(path, &st) == 0 else { return [] }
        let claimedAt = st.st_ctim
        var ids = Set<String>()
        for dir in [spool.done, spool.cancelled, spool.failed] {
            for name in (try? FileSystem.list(dir)) ?? [] {
                guard let job = JobFileName(parsing: name), lstat(dir + "/" + name, &st) == 0 else { continue }
                if (st.st_ctim.tv_sec, st.st_ctim.tv_nsec) >= (claimedAt.tv_sec, claimedAt.tv_nsec) { ids.insert(job.id) }
            }
        }
        return ids
    }

    public static var claimPrefix: String { IntakeFile.claimPrefix }
    public static func isClaimedBatch(_ name: String) -> Bool { IntakeFile.isClaimedBatch(name) }
    public static func unclaimedName(_ name: String) -> String { IntakeFile.unclaimedName(name) }

    /// When a job taken in now first fires.
    ///
    /// - Throws: `JobError` when it never will.
    static func firstOccurrence(of job: Job, _ request: IntakeRequest, now: Instant) throws(JobError) -> Instant {
        let schedule = try JobSchedule(job, localZone: request.localZone, defaultLead: request.defaultLead)
        guard let first = schedule.first(now: now) else {
            throw JobError("field 'every' never elapses after now", value: job.every.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        return first
    }
}
