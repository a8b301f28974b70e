import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// The document pack, the query wire format and heraldd's job table, and the intake's name and
/// writer checks: the parts of issue 18's fast paths that are pure enough to test alone.
struct JobIndexTests {
    let dir = TemporaryDirectory()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    /// Files a job in jobs/ the way heraldd does (record first), returning its name.
    @discardableResult
    func file(_ id: String, text: String, at seconds: Int64 = 1_000) throws -> JobFileName {
        let name = JobFileName(id: id, occurrence: Instant(seconds: seconds))
        let doc = Array((Job(kind: .reminder, id: id, at: Instant(seconds: seconds), text: text).encoded(zone: .utc) + "\n").utf8)
        let tmp = spool.tmp + "/.stage-" + id
        let inode = try FileSystem.writeStaged(doc, tmpPath: tmp)
        JobDocPack(spool: spool).append([.init(id: id, inode: inode, document: doc)])
        try FileSystem.linkStaged(tmp, finalPath: spool.path(of: name))
        return name
    }

    func texts(_ pending: [PendingJob]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: pending.map { ($0.id, $0.job?.text ?? "<none>") })
    }

    @Test func packRecordsAreReadBackAndTheLastOneWins() throws {
        try spool.prepare()
        let pack = JobDocPack(spool: spool)
        pack.append([.init(id: "a", inode: 7, document: Array("first".utf8)), .init(id: "b", inode: 8, document: Array("bee".utf8))])
        pack.append([.init(id: "a", inode: 7, document: Array("second".utf8))])
        let contents = try #require(pack.read())
        #expect(contents.count == 2)
        #expect(contents.document(id: "a", inode: 7).map { Array($0) } == Array("second".utf8))
        #expect(contents.document(id: "a", inode: 9) == nil)  // another file of the same id
        #expect(contents.document(id: "b", inode: 8).map { Array($0) } == Array("bee".utf8))
    }

    @Test func aTornOrDamagedRecordEndsTheReadableRecords() throws {
        try spool.prepare()
        let pack = JobDocPack(spool: spool)
        pack.append([.init(id: "a", inode: 1, document: Array("one".utf8)), .init(id: "b", inode: 2, document: Array("two".utf8))])
        var bytes = try #require(FileManager.default.contents(atPath: pack.path))
        bytes[bytes.count - 1] ^= 0xFF  // b's document damaged: its checksum fails
        try bytes.write(to: URL(fileURLWithPath: pack.path))
        #expect(try #require(pack.read()).count == 1)
        try bytes.prefix(bytes.count - 10).write(to: URL(fileURLWithPath: pack.path))  // torn
        #expect(try #require(pack.read()).document(id: "a", inode: 1) != nil)
        #expect(try #require(pack.read()).count == 1)
    }

    @Test func listingTakesDocumentsFromThePackAndFilesForTheRest() throws {
        try spool.prepare()
        try file("one", text: "from the pack")
        try file("two", text: "also packed")
        // A job whose file came without a record (an older heraldd, or the pack lost).
        let three = JobFileName(id: "three", occurrence: Instant(seconds: 5))
        try AtomicReplace.write((Job(kind: .reminder, id: "three", at: Instant(seconds: 5), text: "from its file")
            .encoded(zone: .utc) + "\n").utf8, to: spool.path(of: three), options: .spool(staging: spool.tmp))
        #expect(texts(try spool.listPending(defaultLead: .zero)) == ["one": "from the pack", "two": "also packed", "three": "from its file"])
        // The pack's word is checked against the listing's inode: a record for another file of
        // the same id is not used.
        JobDocPack(spool: spool).append([.init(id: "three", inode: 1, document: Array("{\"wrong\":1}".utf8))])
        #expect(texts(try spool.listPending(defaultLead: .zero))["three"] == "from its file")
        try FileManager.default.removeItem(atPath: JobDocPack(spool: spool).path)
        #expect(texts(try spool.listPending(defaultLead: .zero)).count == 3)
    }

    @Test func rewriteKeepsOneRecordPerPendingJob() throws {
        try spool.prepare()
        let gone = try file("gone", text: "cancelled")
        try file("kept", text: "kept")
        try spool.cancel(gone)
        let orphan = JobFileName(id: "orphan", occurrence: Instant(seconds: 9))
        try AtomicReplace.write((Job(kind: .reminder, id: "orphan", at: Instant(seconds: 9), text: "no record")
            .encoded(zone: .utc) + "\n").utf8, to: spool.path(of: orphan), options: .spool(staging: spool.tmp))
        let pack = JobDocPack(spool: spool)
        #expect(!pack.needsRewrite(pendingJobs: 2))
        let result = try #require(pack.rewrite())
        #expect(result.records == 2 && result.read == 1)
        let contents = try #require(pack.read())
        #expect(contents.recordCount == 2)
        #expect(texts(try spool.listPending(defaultLead: .zero)) == ["kept": "kept", "orphan": "no record"])
        try FileManager.default.removeItem(atPath: pack.path)
        #expect(pack.needsRewrite(pendingJobs: 2))
    }

    /// A pack of several megabytes (read a megabyte at a time): many records of jobs long gone,
    /// a live job recorded more than once (its last record is kept), a record of a big
    /// document across a chunk's end, and a torn tail; appends made after it was read survive.
    @Test func rewriteStreamsALargeStalePack() throws {
        try spool.prepare()
        let pack = JobDocPack(spool: spool)
        for k in 0..<40 {
            try file("live\(k)", text: k == 7 ? String(repeating: "x", count: 60_000) : "live \(k)", at: 1_000 + Int64(k))
        }
        var dead: [JobDocPack.Record] = []
        for k in 0..<30_000 { dead.append(.init(id: "gone\(k)", inode: UInt64(1_000_000 + k), document: Array(String(repeating: "d", count: 100).utf8))) }
        pack.append(dead)
        // live3 recorded again, later: that record is the one kept.
        let names = files(in: spool.jobs).compactMap(JobFileName.init(parsing:))
        let live3 = try #require(names.first { $0.id == "live3" })
        var st = stat()
        #expect(lstat(spool.path(of: live3), &st) == 0)
        let again = Array("{\"again\":true}\n".utf8)
        pack.append([.init(id: "live3", inode: UInt64(st.st_ino), document: again)])
        pack.append(dead.prefix(5_000).map { $0 })
        // A torn record at the end, as a kill in the middle of an append leaves.
        let fd = open(pack.path, O_WRONLY | O_APPEND)
        #expect(fd >= 0 && write(fd, [UInt8](repeating: 0x48, count: 10), 10) == 10)
        close(fd)
        #expect(pack.needsRewrite(pendingJobs: 40))
        let result = try #require(pack.rewrite())
        #expect(result.records == 40 && result.read == 0)
        let contents = try #require(pack.read())
        #expect(contents.recordCount == 40 && contents.count == 40)
        #expect(contents.document(id: "live3", inode: UInt64(st.st_ino)).map(Array.init) == again)
        let texts = texts(try spool.listPending(defaultLead: .zero))
        #expect(texts.count == 40 && texts["live7"]?.count == 60_000 && texts["live12"] == "live 12")
        var packed = stat()
        #expect(stat(pack.path, &packed) == 0 && packed.st_size < 70_000)  // was about 4 MB
    }

    @Test func replacingADocumentRecordsTheNewOne() throws {
        try spool.prepare()
        let name = try file("edit", text: "before")
        let job = Job(kind: .reminder, id: "edit", at: Instant(seconds: 2_000), text: "after")
        let next = JobFileName(id: "edit", occurrence: Instant(seconds: 2_000))
        try spool.replace(name, with: job, zone: .utc, next: next)
        #expect(texts(try spool.listPending(defaultLead: .zero)) == ["edit": "after"])
    }

    @Test func queryWireFormatRoundTrips() throws {
        #expect(SpoolQuery.parse("v1 find k3x9") == .find("k3x9"))
        #expect(SpoolQuery.parse("v1 head 20") == .head(20))
        #expect(SpoolQuery.encode(.find("k3x9")) == "v1 find k3x9\n" && SpoolQuery.encode(.head(20)) == "v1 head 20\n")
        for bad in ["find k3x9", "head 20", "v2 find k3x9", "v1 find", "v1 find a b", "v1 find ../x", "v1 head -1", "v1 head x",
                    "v1 list 3", "v1 ack k3x9", ""] { #expect(SpoolQuery.parse(bad) == nil) }
        let answer = SpoolQuery.Answer(total: 3, names: [JobFileName(id: "a", occurrence: Instant(seconds: 1)),
                                                         JobFileName(id: "b", occurrence: Instant(seconds: 2), snoozedUntil: Instant(seconds: 3))])
        #expect(SpoolQuery.decodeAnswer(SpoolQuery.encode(answer)) == answer)
        #expect(SpoolQuery.decodeAnswer(Array("v1 ok 3\na@1.json\n".utf8)) == nil)  // cut short
        #expect(SpoolQuery.decodeAnswer(Array("ok 1\na@1.json\nend\n".utf8)) == nil)  // no version
    }

    @Test func jobTableFindsIdsAndTheSoonest() throws {
        var names = ShardedDictionary<String, JobFileName>()
        for k in 10..<500 {  // no job4: the prefix below matches only longer ids
            let id = "job\(k)"
            // Due in an order unlike the ids', some snoozed.
            let occurrence = Instant(seconds: Int64((k * 7919) % 500))
            names[id] = JobFileName(id: id, occurrence: occurrence, snoozedUntil: k % 10 == 0 ? occurrence + .seconds(1_000) : nil)
        }
        var records = JobRecords()
        names.forEach { id, name in records[id] = JobRecord(name: name) }
        records["gone"] = JobRecord(name: nil, phase: .loading(due: Instant(seconds: 0)))  // its popup outlived its file: not pending
        let table = JobTable(records: records, count: names.count)
        #expect(table.find("job42", limit: 50).names.map(\.id) == ["job42"])
        let prefix = table.find("job4", limit: 5)
        #expect(prefix.total == 110 && prefix.names.map(\.id) == ["job40", "job400", "job401", "job402", "job403"])
        #expect(table.find("nope", limit: 5).total == 0)
        let all = names.values.sorted { ($0.fireAt, $0.id) < ($1.fireAt, $1.id) }
        for n in [1, 20, 489, 490, 900] {
            let soonest = table.soonest(n)
            #expect(soonest.total == 490)
            #expect(soonest.names == Array(all.prefix(n)))
        }
    }

    @Test func oddNamesInNewAreRenamedSafely() throws {
        try spool.prepare()
        #expect(Spool.safeName(Array("plain-ü.json".utf8)) == "plain-ü.json")
        #expect(Spool.safeName(Array("a\nb".utf8)) == nil)
        #expect(Spool.safeName([0x61, 0xFF]) == nil)
        for (raw, expected) in [(Array("a\nb.json".utf8), "a%0Ab.json"), ([0x78, 0xE9, 0x2E, 0x6A], "x%E9.j"), (Array("ü\t.json".utf8), "ü%09.json")] {
            var path = Array((spool.new + "/").utf8) + raw
            path.append(0)
            let fd = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o600) } }
            #expect(fd >= 0)
            close(fd)
            #expect(spool.intakeNames() == [expected])
            #expect(FileSystem.exists(spool.new + "/" + expected))
            unlink(spool.new + "/" + expected)
        }
        // Never over another file: the second gets a suffix.
        FileManager.default.createFile(atPath: spool.new + "/c%0A", contents: Data("first".utf8))
        FileManager.default.createFile(atPath: spool.new + "/c\n", contents: Data("second".utf8))
        #expect(spool.intakeNames().sorted() == ["c%0A", "c%0A.1"])
        #expect(try String(contentsOfFile: spool.new + "/c%0A", encoding: .utf8) == "first")
    }

    @Test func aFileStillOpenForWritingIsNotTaken() throws {
        try spool.prepare()
        let path = spool.new + "/w.json"
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        #expect(spool.readCheckedFile(path, limit: 100, whenComplete: true).map(\.bytes) == .failure(.beingWritten))
        #expect(spool.readCheckedFile(path, limit: 100).map(\.bytes) == .success([]))  // without the check
        close(fd)
        // Taken once the last writer is gone: a child another test forked meanwhile may hold a
        // copy of the descriptor until it execs (heraldd reads the file at its IN_CLOSE_WRITE).
        #expect(waitUntilWritten(path))
        #expect(spool.readCheckedFile(path, limit: 100, whenComplete: true).map(\.bytes) == .success([]))
    }
}
