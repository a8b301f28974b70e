import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// The shell's file work for the engine, on a real temporary spool.
struct SpoolWorkerTests {
    let dir = TemporaryDirectory()
    let logs = MemoryLogHandlerBox()
    let now = ISO8601.parseInstant("2026-11-22T08:00:00Z")!
    var spool: Spool { Spool(root: dir.path + "/spool") }
    var worker: SpoolWorker { SpoolWorker(spool: spool, logger: logs.logger()) }

    func line(_ id: String, _ at: String) -> String {
        "{\"version\":1,\"kind\":\"reminder\",\"id\":\"\(id)\",\"at\":\"\(at)\",\"text\":\"\(id)\"}"
    }

    @Test func aRenameOfAFileThatIsGoneComesBackAsAFailure() throws {
        try spool.prepare()
        let from = JobFileName(id: "a", occurrence: now), to = JobFileName(id: "a", occurrence: now + .seconds(60))
        guard case .operationFailed(let op, let error)? = worker.carryOut(.advance(from: from, to: to), now: now) else {
            Issue.record("no failure reported"); return
        }
        #expect(op == .advance(from: from, to: to) && error.isNotFound)
        dir.write("spool/jobs/\(from)", line("a", "2026-11-22T08:00:00Z"))
        #expect(worker.carryOut(.advance(from: from, to: to), now: now) == nil)
        #expect(files(in: spool.jobs) == [to.description])
    }

    @Test func filingMovesWritesAndRefusesAndRemovesABatchLast() throws {
        try spool.prepare()
        dir.write("spool/new/one.json", line("one", "2026-11-22T09:00:00Z"), mode: 0o644)
        dir.write("spool/new/bad.json", "{")
        dir.write("spool/new/b.jsonl", line("b1", "2026-11-22T09:00:00Z") + "\n")
        var plan = FilingPlan()
        let one = JobFileName(id: "one", occurrence: now + .minutes(60)), b1 = JobFileName(id: "b1", occurrence: now + .minutes(60))
        plan.moves = [.init(file: "one.json", name: one, fixMode: true)]
        plan.writes = [.init(name: b1, line: Array((line("b1", "2026-11-22T09:00:00Z") + "\n").utf8))]
        plan.refusals = [.init(file: "bad.json", reason: "not JSON")]
        plan.batch = "b.jsonl"
        plan.isLastPart = true
        guard case .filed(let result) = worker.file(plan, now: now) else { Issue.record("no result"); return }
        #expect(result.filed == [one, b1] && result.failed.isEmpty && result.batch == "b.jsonl" && result.isLastPart)
        #expect(files(in: spool.new) == ["b.jsonl"])  // a batch goes only when told
        #expect(mode(of: spool.path(of: one)) == 0o600)
        #expect(files(in: spool.failed) == ["bad.json", "bad.json.reason"])
        var removal = FilingPlan()
        removal.removeBatch = "b.jsonl"
        guard case .filed(let removed) = worker.file(removal, now: now) else { Issue.record("no result"); return }
        #expect(removed.removedBatch == "b.jsonl" && files(in: spool.new).isEmpty)
        #expect(result.settledFiles == ["bad.json", "one.json"])
    }

    /// A file renamed over the one that was read and checked is not moved into jobs/ unchecked:
    /// the move fails, and the file stays in new/ for its own event.
    @Test func aFileReplacedAfterItWasReadIsNotMoved() throws {
        try spool.prepare()
        dir.write("spool/new/x.json", line("x", "2026-11-22T09:00:00Z"))
        var st = stat()
        #expect(lstat(spool.new + "/x.json", &st) == 0)
        let checked = UInt64(st.st_ino)
        dir.write("spool/tmp/other.json", line("y", "2026-11-22T09:00:00Z"))
        #expect(rename(spool.tmp + "/other.json", spool.new + "/x.json") == 0)
        let x = JobFileName(id: "x", occurrence: now + .minutes(60))
        var plan = FilingPlan()
        plan.moves = [.init(file: "x.json", name: x, fixMode: false, inode: checked)]
        guard case .filed(let result) = worker.file(plan, now: now) else { Issue.record("no result"); return }
        #expect(result.filed.isEmpty && result.failed == [x] && result.settledFiles == ["x.json"])
        #expect(files(in: spool.new) == ["x.json"] && files(in: spool.jobs).isEmpty)
        // The file that was checked is moved.
        #expect(lstat(spool.new + "/x.json", &st) == 0)
        plan.moves[0].inode = UInt64(st.st_ino)
        guard case .filed(let moved) = worker.file(plan, now: now) else { Issue.record("no result"); return }
        #expect(moved.filed == [x] && files(in: spool.jobs) == [x.description])
    }

    /// A batch part's jobs are written as unnamed files and linked in (or, where those do not
    /// work, staged in tmp/): each job file whole, private, with its record in the pack first
    /// (same inode), nothing left behind in tmp/, and a name already taken left as it is.
    @Test(arguments: [false, true])
    func batchJobsAreWrittenWholeWithTheirPackRecords(stagedInTmp: Bool) throws {
        try spool.prepare()
        var worker = self.worker
        worker.stagesInTmp = stagedInTmp
        let names = (0..<600).map { JobFileName(id: "j\($0)", occurrence: now + .seconds(Int64($0)), snoozedUntil: $0 % 7 == 0 ? now : nil) }
        let taken = names[5]
        dir.write("spool/jobs/\(taken)", "already here")
        var plan = FilingPlan()
        plan.writes = names.map { .init(name: $0, line: Array((line($0.id, "2026-11-22T09:00:00Z") + "\n").utf8)) }
        plan.batch = ".filing-b.jsonl"
        guard case .filed(let result) = worker.file(plan, now: now) else { Issue.record("no result"); return }
        #expect(result.filed == names && result.failed.isEmpty)
        #expect(Set(files(in: spool.jobs)) == Set(names.map(\.description)))
        #expect(files(in: spool.tmp).isEmpty)
        let pack = try #require(JobDocPack(spool: spool).read())
        for name in names where name != taken {
            let path = spool.path(of: name)
            var st = stat()
            #expect(lstat(path, &st) == 0 && st.st_nlink == 1 && st.st_mode & 0o777 == 0o600)
            let bytes = try FileSystem.read(path)
            #expect(bytes == Array((line(name.id, "2026-11-22T09:00:00Z") + "\n").utf8))
            #expect(pack.document(id: name.id, inode: UInt64(st.st_ino)).map(Array.init) == bytes)
        }
        #expect(try FileSystem.read(spool.path(of: taken)) == Array("already here".utf8))
    }

    /// The name a batch job's file gets is its `description`, built without a String.
    @Test func jobFileNamesAreBuiltOnTheStackAsTheirDescription() {
        let names = [JobFileName(id: "a", occurrence: Instant(microseconds: 0)),
                     JobFileName(id: "order-42.x_y", occurrence: Instant(microseconds: 1_764_032_717_733_201)),
                     JobFileName(id: String(repeating: "z", count: 64), occurrence: Instant(microseconds: -86_400_000_001),
                                 snoozedUntil: Instant(microseconds: Int64.max)),
                     JobFileName(id: "m", occurrence: Instant(microseconds: Int64.min), snoozedUntil: Instant(microseconds: 7))]
        for name in names {
            #expect(name.withCString { String(cString: $0) } == name.description)
            #expect(name.withCString(prefix: ".batch.") { String(cString: $0) } == ".batch." + name.description)
        }
    }

    @Test func aHabitIsLoadedWithItsLog() throws {
        try spool.prepare()
        let name = JobFileName(id: "water", occurrence: now)
        dir.write("spool/jobs/\(name)", "{\"version\":1,\"kind\":\"habit\",\"id\":\"water\",\"every\":\"hourly\",\"title\":\"Water\"}")
        try HabitLog(spool: spool, id: "water").append(.init(date: LocalDate(now, in: .utc), done: true, at: now, by: "cli"))
        guard case .loaded(_, .success(let loaded)) = worker.load(LoadRequest(name: name, purpose: .fire(due: now)), localZone: .utc)
        else { Issue.record("not loaded"); return }
        #expect(loaded.habitLog?.days == [LocalDate(now, in: .utc)])
    }
}

/// Reading new/ for the engine.
struct IntakeReaderTests {
    let dir = TemporaryDirectory()
    let now = ISO8601.parseInstant("2026-11-22T08:00:00Z")!
    var spool: Spool { Spool(root: dir.path + "/spool") }
    var request: IntakeRequest { IntakeRequest(names: nil, localZone: .utc, defaultLead: .minutes(15)) }

    func read(partSize: Int = 2_000) -> [IntakeFile] {
        // As heraldd does, read once the writers are done (see waitUntilWritten).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: spool.new)) ?? [] {
            _ = waitUntilWritten(spool.new + "/" + name)
        }
        var files: [IntakeFile] = []
        IntakeReader(spool: spool, partSize: partSize).read(request, now: now) { event in
            if case .intakeRead(let f) = event { files += f }
        }
        return files
    }

    @Test func aBatchComesInPartsAfterEveryLineIsChecked() throws {
        try spool.prepare()
        let lines = (1...5).map { "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T09:00:0\($0)Z\",\"text\":\"n\($0)\"}" }
        dir.write("spool/new/x.jsonl", lines.joined(separator: "\n") + "\n")
        let parts = read(partSize: 2)
        #expect(parts.count == 3)
        guard case .batch(let first) = parts[0], case .batch(let last) = parts[2] else { Issue.record("not in parts: \(parts)"); return }
        #expect(first.isFirst && !first.isLast && last.isLast && !last.isFirst && !first.resumed)
        #expect(first.total == 5 && first.candidates.map(\.id) == ["x-1", "x-2"])
        // Claimed before the first part went out: hidden from other readers under its new name.
        #expect(first.file == ".filing-x.jsonl" && files(in: spool.new) == [".filing-x.jsonl"])
    }

    @Test func oneBadLineRefusesTheWholeBatchAndSinglesAreReadOnTheirOwn() throws {
        try spool.prepare()
        dir.write("spool/new/y.jsonl", "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T09:00Z\",\"text\":\"ok\"}\n{\"version\":1}\n")
        dir.write("spool/new/z.json", "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T09:00Z\",\"text\":\"z\"}", mode: 0o640)
        let files = read()
        #expect(files.count == 2)
        guard case .refused("y.jsonl", let refusal) = files[0] else { Issue.record("batch not refused: \(files)"); return }
        #expect(refusal.reason == "line 2: missing field 'kind'")
        guard case .single("z.json", let z) = files[1] else { Issue.record("no single: \(files)"); return }
        #expect(z.id == nil && z.mode == 0o640 && z.first == ISO8601.parseInstant("2026-11-22T09:00:00Z"))
    }

    /// A large batch is checked in two halves side by side: what comes out is what one pass
    /// finds, whatever falls where. Lines without ids (whose ids are their line numbers, and
    /// one collides with an id written in the file), a line longer than the read chunk across
    /// the middle, blank lines, and bad lines in either half. (Shapes 1 and 3 are checked
    /// again in one pass, for their messages; the others are joined from the halves.)
    @Test(arguments: [0, 1, 2, 3, 4, 5])
    func twoHalvesFindWhatOnePassFinds(shape: Int) throws {
        func line(_ id: String, _ at: String) -> String {
            "{\"version\":1,\"kind\":\"reminder\",\"id\":\"\(id)\",\"at\":\"\(at)\",\"text\":\"\(id)\"}"
        }
        try spool.prepare()
        var lines: [String] = []
        for k in 1...40_000 {
            let at = "2026-11-22T\(10 + k % 10):\(10 + k % 50):00Z"
            switch (shape, k) {
            case (1, _) where k % 7 == 0, (5, _) where k % 7 == 0: lines.append("{\"version\":1,\"kind\":\"reminder\",\"at\":\"\(at)\",\"text\":\"no id \(k)\"}")
            case (1, 39_990): lines.append(line("b-35000", at))  // the id line 35,000 gets: twice
            case (2, 20_000): lines.append(line("long", at).replacingOccurrences(of: "\"long\"}", with: "\"" + String(repeating: "x", count: 300_000) + "\"}"))
            case (2, _) where k % 1_000 == 0: lines.append("   ")
            case (3, 3): lines.append("{")
            case (3, 38_000): lines.append(line("late", "not a time"))
            case (3, 39_000): lines.append(line("j-5", at))  // the same id as line 5
            case (4, 1_000), (4, 38_000), (4, 38_001): lines.append("{\"version\":1,\"kind\":\"reminder\",\"at\":\"\(at)\"}")
            default: lines.append(line("j-\(k)", at))
            }
        }
        dir.write("spool/new/b.jsonl", lines.joined(separator: "\n") + "\n")
        let path = spool.new + "/b.jsonl"
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let size = Int(lseek(fd, 0, SEEK_END))
        #expect(size >= IntakeReader.twoHalvesSize)
        let reader = IntakeReader(spool: spool)
        let halves = reader.checkLines(fd, size: size, stem: "b", settled: [], request, now: now)
        var onePass = reader.checkStretch(fd, from: 0, to: nil, first: true, stem: "b", settled: [], request, now: now)
        onePass.ids = []
        #expect(halves.candidates.map(\.id) == onePass.candidates.map(\.id))
        #expect(halves.candidates.map(\.offset) == onePass.candidates.map(\.offset))
        #expect(halves.candidates.map(\.first) == onePass.candidates.map(\.first))
        #expect(halves.problems == onePass.problems && halves.problemCount == onePass.problemCount)
        #expect(halves.lines == 40_000)
        switch shape {
        case 1: #expect(halves.problems.map(\.line) == [39_990])
        case 2: #expect(halves.problems.map(\.line) == [20_000] && halves.candidates.count == 40_000 - 39 - 1)
        case 3: #expect(halves.problems.map(\.line) == [3, 38_000, 39_000])
        case 4: #expect(halves.problems.map(\.line) == [1_000, 38_000, 38_001])
        case 5: #expect(halves.problems.isEmpty && halves.candidates.contains { $0.id == "b-35000" } && halves.candidates.allSatisfy { $0.id != nil })
        default: #expect(halves.problems.isEmpty && halves.candidates.count == 40_000 && halves.candidates.allSatisfy { $0.id != nil })
        }
    }

}

/// A step's history lines, appended together.
extension SpoolWorkerTests {
    func records(_ count: Int, title: String = "t") -> [HistoryRecord] {
        (0..<count).map { HistoryRecord(time: now, id: "h\($0)", kind: .reminder, role: .reminder, due: now, outcome: .shown, title: title) }
    }

    /// Whole lines of history.jsonl, in order.
    func lines() throws -> [String] {
        try String(decoding: FileSystem.read(spool.historyPath), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func linesLandWholeInOrderAfterWhatWasThere() throws {
        try spool.prepare()
        try FileSystem.appendLine(records(1)[0].jsonLine, to: spool.historyPath)
        let batch = records(20)
        #expect(worker.appendHistory(batch).isEmpty)
        #expect(try lines() == [records(1)[0].jsonLine] + batch.map(\.jsonLine) + [""])
    }

    @Test func moreThanAPieceIsWrittenInPiecesOfWholeLines() throws {
        try spool.prepare()
        // About 1 KB a line: 300 lines are several pieces.
        let batch = records(300, title: String(repeating: "x", count: 1_000))
        #expect(batch.map(\.jsonLine.utf8.count).reduce(0, +) > 4 * SpoolWorker.historyPiece)
        #expect(worker.appendHistory(batch).isEmpty)
        #expect(try lines() == batch.map(\.jsonLine) + [""])
        #expect(try lines().allSatisfy { $0.isEmpty || HistoryRecord(jsonLine: Substring($0)) != nil })
    }

    @Test func aLineThatCannotBeWrittenComesBackAsAFailureEach() throws {
        try spool.prepare()
        // Something that is not a file where the history goes: nothing is written, each line fails.
        #expect(mkdir(spool.historyPath, 0o700) == 0)
        let batch = records(3)
        let failed = worker.appendHistory(batch).compactMap { event -> String? in
            if case .operationFailed(.appendHistory(let record), _) = event { record.id } else { nil }
        }
        #expect(failed == ["h0", "h1", "h2"])
    }
}
