import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

struct SpoolTests {
    let dir = TemporaryDirectory()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    @Test func preparesPrivateDirectories() throws {
        try spool.prepare()
        for d in ["tmp", "new", "jobs", "done", "cancelled", "failed"] {
            #expect(mode(of: spool.root + "/" + d) == 0o700)
        }
        #expect(mode(of: spool.root) == 0o700)
    }

    @Test func submitLeavesOnlyACompletePrivateFileInNew() throws {
        try spool.prepare()
        let job = Job(kind: .reminder, id: "r1", at: Instant(seconds: 100), text: "hi")
        let path = try spool.submit(job)
        #expect(path == spool.new + "/r1.json")
        #expect(mode(of: path) == 0o600)
        #expect(files(in: spool.tmp).isEmpty)
        #expect(try Job.decode(FileSystem.read(path)) == job)
        // A second file with the same name never replaces the first.
        let second = try spool.submit(job)
        #expect(second != path)
        #expect(files(in: spool.new).count == 2)
    }

    @Test func jobFileNamesCarryTheState() throws {
        let name = JobFileName(id: "a.b-c_1", occurrence: Instant(microseconds: 1_795_352_700_000_000))
        #expect(name.description == "a.b-c_1@1795352700000000.json")
        #expect(JobFileName(parsing: name.description) == name)
        let snoozed = JobFileName(id: "x", occurrence: Instant(seconds: 1), snoozedUntil: Instant(seconds: 5))
        #expect(JobFileName(parsing: snoozed.description) == snoozed)
        #expect(snoozed.fireAt == Instant(seconds: 5))
        for bad in ["x.json", "x@abc.json", "x@1", "a b@1.json", "x@1@2@3.json", ".tmp", "x@@1.json", "x@1@.json",
                    "@1.json", "x@+.json", "x@9223372036854775808.json", String(repeating: "a", count: 65) + "@1.json"] {
            #expect(JobFileName(parsing: bad) == nil)
        }
        #expect(JobFileName(parsing: "x@-9223372036854775808.json")?.occurrence == Instant(microseconds: .min))
    }

    /// The byte parser (no String split) accepts exactly what the String rules did: the id's
    /// pattern, an `Int64(String)` occurrence and snooze, `.json`.
    /// Only the one spelling heraldd writes is a job's name: what the byte parser takes is what
    /// the String rules take, and only when the name reads back the same (no `+`, no leading
    /// zeros, no `-0`: a path rebuilt from the value would name another file).
    @Test func jobFileNameBytesParseOnlyTheCanonicalSpelling() {
        func reference(_ name: String) -> JobFileName? {
            guard name.hasSuffix(".json") else { return nil }
            let parts = name.dropLast(5).split(separator: "@", omittingEmptySubsequences: false)
            // A file name's id is any 1 to 64 id bytes: a job written before ids lost their
            // leading dot still loads (Job.isValidID is for new ids).
            let idBytes = parts[0].utf8
            guard parts.count == 2 || parts.count == 3, (1...64).contains(idBytes.count), idBytes.allSatisfy(Job.isIDByte),
                  let occ = Int64(parts[1]) else { return nil }
            var snoozed: Instant?
            if parts.count == 3 {
                guard let s = Int64(parts[2]) else { return nil }
                snoozed = Instant(microseconds: s)
            }
            let parsed = JobFileName(id: String(parts[0]), occurrence: Instant(microseconds: occ), snoozedUntil: snoozed)
            return parsed.description == name ? parsed : nil
        }
        let pieces = ["a", "Z9", "@", "@", ".json", ".json", "json", ".", "-", "+", "_", "0", "17", "9223372036854775807",
                      "9223372036854775808", "-9223372036854775808", " ", "é", "e\u{301}", "\u{301}", "\r\n", "/", "\u{0}", "ſ"]
        var rng = SeededGenerator(seed: 20261127)
        var accepted = 0
        for _ in 0..<100_000 {
            var name = ""
            for _ in 0..<Int.random(in: 1...7, using: &rng) { name += pieces.randomElement(using: &rng)! }
            if Bool.random(using: &rng) {  // half shaped like a job file's name, with random pieces
                let numbers = ["17", "-3", "+0", "+5", "0", "-0", "007", "9223372036854775807", "", "1a"]
                name = "id" + name + "@" + numbers.randomElement(using: &rng)!
                if Bool.random(using: &rng) { name += "@" + numbers.randomElement(using: &rng)! }
            }
            if Bool.random(using: &rng) { name += ".json" }
            let expected = reference(name)
            #expect(JobFileName(parsing: name) == expected, "\(name.debugDescription)")
            if expected != nil { accepted += 1 }
        }
        #expect(accepted > 1_000)  // the names cover both answers
    }

    @Test func untrustworthyFilesAreRefused() throws {
        try spool.prepare()
        dir.write("spool/new/ok.json", "{}")
        dir.write("spool/new/shared.json", "{}", mode: 0o620)
        dir.write("spool/new/big.json", String(repeating: " ", count: Job.maximumFileSize + 1))
        try FileManager.default.createSymbolicLink(atPath: spool.new + "/link.json", withDestinationPath: spool.new + "/ok.json")
        try FileManager.default.createDirectory(atPath: spool.new + "/dir.json", withIntermediateDirectories: false)
        #expect(try spool.readChecked(spool.new + "/ok.json", limit: Job.maximumFileSize).get() == Array("{}".utf8))
        #expect(throws: SpoolFileError.writableByOthers(mode: 0o620)) { try spool.readChecked(spool.new + "/shared.json", limit: 65536).get() }
        #expect(throws: SpoolFileError.tooLarge(size: 65537, limit: 65536)) { try spool.readChecked(spool.new + "/big.json", limit: 65536).get() }
        #expect(throws: SpoolFileError.symlink) { try spool.readChecked(spool.new + "/link.json", limit: 65536).get() }
        #expect(throws: SpoolFileError.directory) { try spool.readChecked(spool.new + "/dir.json", limit: 65536).get() }
        // Someone else's file (the tests run as root, who can give a file away).
        dir.write("spool/new/theirs.json", "{}")
        try #require(chown(spool.new + "/theirs.json", 65534, 65534) == 0, "chown needs root")
        #expect(throws: SpoolFileError.foreignOwner(uid: 65534, expected: geteuid())) {
            try spool.readChecked(spool.new + "/theirs.json", limit: 65536).get()
        }
    }

    @Test func quarantineKeepsEveryFileAndSaysWhy() throws {
        try spool.prepare()
        let now = Instant(seconds: 1_795_352_700)
        for round in 0..<3 {
            dir.write("spool/new/bad.json", "round \(round)")
            try spool.quarantine(directory: spool.new, name: "bad.json", reason: "not valid JSON", now: now)
        }
        #expect(files(in: spool.failed) == ["bad.json", "bad.json.1", "bad.json.1.reason", "bad.json.2", "bad.json.2.reason", "bad.json.reason"])
        let reason = try String(contentsOfFile: spool.failed + "/bad.json.reason", encoding: .utf8)
        #expect(reason == "2026-11-22T13:05:00Z new/bad.json: not valid JSON\n")
        #expect(try String(contentsOfFile: spool.failed + "/bad.json.2", encoding: .utf8) == "round 2")
    }

    @Test func listsPendingJobsFromJobsAndIntake() throws {
        try spool.prepare()
        let a = JobFileName(id: "a", occurrence: Instant(seconds: 300))
        dir.write("spool/jobs/" + a.description, Job(kind: .reminder, at: Instant(seconds: 300), text: "a").encoded())
        try spool.submit(Job(kind: .reminder, id: "b", at: Instant(seconds: 200), text: "b"))
        try spool.submit([Job(kind: .reminder, id: "c", at: Instant(seconds: 100), text: "c").encoded(),
                          Job(kind: .reminder, at: Instant(seconds: 400), text: "d").encoded()].joined(separator: "\n"),
                         name: "batch.jsonl")
        let pending = try spool.listPending(defaultLead: .minutes(15))
        #expect(pending.map(\.id) == ["c", "b", "a", "batch-2"])
        #expect(pending.map(\.path) == ["new/batch.jsonl:1", "new/b.json", "jobs/a@300000000.json", "new/batch.jsonl:2"])
        #expect(try spool.findPending("bat", defaultLead: .zero).map(\.id) == ["batch-2"])
    }

    @Test func theLockAdmitsOneDaemon() throws {
        try spool.prepare()
        #expect(SpoolLock.runningDaemon(spool) == nil)
        let lock = try SpoolLock.acquire(spool).get()
        #expect(SpoolLock.runningDaemon(spool) == getpid())
        #expect(throws: SpoolLockError.held(pid: getpid())) { try SpoolLock.acquire(spool).get() }
        withExtendedLifetime(lock) {}
    }
}
