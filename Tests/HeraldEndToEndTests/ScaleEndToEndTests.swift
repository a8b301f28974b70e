import Foundation
import HeraldCore
import HeraldFuzz
import HeraldTestSupport
import Testing

/// The CLI's fast paths (heraldd.sock, index/docs.pack) against the spool itself, across kills,
/// a missing or damaged pack and a stale socket; and everything that can appear in new/.
@Suite(.serialized)
struct ScaleEndToEndTests {
    /// One reminder line for a batch, due `hours` from now.
    func line(_ id: String, _ text: String, hours: Int) -> String {
        let f = ISO8601DateFormatter()
        return "{\"version\":1,\"kind\":\"reminder\",\"id\":\"\(id)\",\"at\":\"\(f.string(from: Date().addingTimeInterval(Double(hours) * 3600)))\",\"text\":\"\(text)\"}"
    }

    /// What `jobs/` holds, read file by file: id → the reminder's text.
    func truth(_ scene: Scene) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in scene.files("jobs") {
            guard let parsed = JobFileName(parsing: name) else { continue }
            let job = try Job.decode(Array(scene.read("jobs/" + name).utf8))
            result[parsed.id] = job.text
        }
        return result
    }

    /// What `herald list --json` says: id → the reminder's text.
    func listed(_ scene: Scene) throws -> [String: String] {
        let r = try scene.herald("list", "--json")
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        var result: [String: String] = [:]
        for row in rows {
            let id = try #require(row["id"] as? String)
            let job = try #require(row["job"] as? [String: Any], "row \(id) has no document: \(row)")
            result[id] = job["text"] as? String
        }
        return result
    }

    func pendingCount(_ scene: Scene) -> Int? { scene.status()?.pending }

    /// heraldd killed with SIGKILL while it files a batch, at seeded moments; after each restart
    /// the listing (from the pack) and the one-job commands (from heraldd's table) agree with
    /// the job files.
    @Test func indexStaysRightAcrossKillsDuringIntake() throws {
        let scene = try Scene()
        var rng = SeededGenerator(seed: 18)
        var expected: [String: String] = [:]
        for round in 0..<3 {
            try scene.startDaemon()
            let lines = (0..<3_000).map { k in line("r\(round)-\(k)", "round \(round) job \(k)", hours: 2 + k % 50) }
            for k in lines.indices { expected["r\(round)-\(k)"] = "round \(round) job \(k)" }
            #expect(try scene.herald("import", "-", stdin: lines.joined(separator: "\n")).status == 0)
            // Killed somewhere between a few and all of this batch's jobs filed.
            let target = Int.random(in: 50..<3_000, using: &rng)
            _ = waitUntil(timeout: 20, pollMilliseconds: 1) { scene.files("jobs").count >= expected.count - 3_000 + target }
            _ = scene.daemon?.stop(SIGKILL)
            try scene.startDaemon()
            #expect(waitUntil(timeout: 60) { scene.files("new").isEmpty && pendingCount(scene) == expected.count },
                    "round \(round): \(scene.files("new")) in new/, status says \(pendingCount(scene).map(String.init) ?? "nothing")")
            #expect(try truth(scene) == expected)
            #expect(try listed(scene) == expected)
            _ = scene.daemon?.stop(SIGKILL)
        }
        // The socket an earlier heraldd left behind answers nobody: herald lists jobs/ itself.
        #expect(FileManager.default.fileExists(atPath: scene.spoolPath + "/heraldd.sock"))
        let shown = try scene.herald("show", "r1-7")
        #expect(shown.status == 0 && shown.stdout.contains("round 1 job 7"), "\(shown.stdout)\(shown.stderr)")
        let status = try scene.herald("status", "--json")
        #expect(status.stdout.contains("\"pending\" : 9000") || status.stdout.contains("\"pending\": 9000"), "\(status.stdout)")
    }

    /// The pack deleted, or cut short and holding jobs long gone: listings stay right, and
    /// heraldd writes a whole pack again at its next start.
    @Test func missingOrStalePackIsRebuiltFromTheSpool() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let lines = (0..<500).map { k in line("p\(k)", "pack \(k)", hours: 3) }
        #expect(try scene.herald("import", "-", stdin: lines.joined(separator: "\n")).status == 0)
        #expect(waitUntil(timeout: 20) { scene.files("new").isEmpty && pendingCount(scene) == 500 })
        let pack = scene.spoolPath + "/index/docs.pack"
        let full = try #require(FileManager.default.contents(atPath: pack))
        // Cut in the middle of a record, and 100 jobs cancelled (their records stay).
        try full.prefix(full.count / 2 + 7).write(to: URL(fileURLWithPath: pack))
        #expect(try scene.herald((0..<100).map { "p\($0)" }.prefixed(by: "cancel")).status == 0)
        var expected = Dictionary(uniqueKeysWithValues: (100..<500).map { ("p\($0)", "pack \($0)") })
        #expect(try listed(scene) == expected)
        // Deleted: read from the files; a restart writes it again, whole.
        try FileManager.default.removeItem(atPath: pack)
        #expect(try listed(scene) == expected)
        _ = scene.daemon?.stop(SIGTERM)
        let daemon = try scene.startDaemon()
        #expect(waitUntil(timeout: 20) { daemon.log.contains("Rewrote the document pack") }, "\(daemon.log)")
        let rebuilt = try #require(JobDocPack(spool: Spool(root: scene.spoolPath)).read())
        #expect(rebuilt.count == 400)
        #expect(try listed(scene) == expected)
        // A job edited since (a new file, so a new record) shows its new text.
        #expect(try scene.herald("reschedule", "p200", "--in", "5h").status == 0)
        expected["p200"] = "pack 200"
        #expect(try listed(scene) == expected)
    }

    /// The one-job commands and the short listings with heraldd running, against what a full
    /// listing of jobs/ says; a cancel is seen by the very next command.
    @Test func oneJobCommandsAndShortListingsFollowTheSpool() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let lines = (0..<200).map { k in line("q\(String(format: "%03d", k))", "query \(k)", hours: 1 + k) }
        #expect(try scene.herald("import", "-", stdin: lines.joined(separator: "\n")).status == 0)
        #expect(waitUntil(timeout: 20) { scene.files("new").isEmpty && pendingCount(scene) == 200 })
        let head = try scene.herald("list", "-n", "3")
        #expect(head.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: " ")[0]) } == ["q000", "q001", "q002"],
                "\(head.stdout)")
        #expect(try scene.herald("cancel", "q000").status == 0)
        let next = try scene.herald("list", "--next")
        #expect(next.stdout.contains("q001") && !next.stdout.contains("q000"), "\(next.stdout)")
        let status = try scene.herald("status")
        #expect(status.stdout.contains("pending: 199 jobs") && status.stdout.contains("next:    q001"), "\(status.stdout)")
        // A prefix: unique, ambiguous (counted in full), unknown.
        #expect(try scene.herald("show", "q19").stdout.contains("ambiguous") == false)
        let ambiguous = try scene.herald("show", "q1")
        #expect(ambiguous.status == 65 && ambiguous.stderr.contains("matches 100 jobs"), "\(ambiguous.stderr)")
        let unknown = try scene.herald("show", "nope")
        #expect(unknown.status == 65 && unknown.stderr.contains("no pending job 'nope'"), "\(unknown.stderr)")
        #expect(try scene.herald("snooze", "q005", "20m").status == 0)
        #expect(try scene.herald("list", "--snoozed").stdout.contains("q005"))
        #expect(try scene.herald("reschedule", "q006", "--in", "30m").status == 0)
        #expect(try scene.herald("list", "--next").stdout.contains("q006"))
        // And without heraldd: the same answers from jobs/ itself.
        _ = scene.daemon?.stop(SIGTERM)
        #expect(try scene.herald("list", "--next").stdout.contains("q006"))
        #expect(try scene.herald("show", "q007").stdout.contains("query 7"))
        let n = try scene.herald("list", "-n", "0")
        #expect(n.status == 64 && n.stderr.contains("-n: 0"), "\(n.stderr)")
    }

    // MARK: new/

    func makeSpool(_ scene: Scene) throws -> String {
        try scene.startDaemon()
        return scene.spoolPath + "/new"
    }

    let valid = "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2030-01-01T10:00:00Z\",\"text\":\"odd\"}\n"

    /// Waits until `name` has gone from new/ and returns the reason heraldd gave in failed/.
    func refusal(_ scene: Scene, _ name: String) -> String? {
        guard waitUntil(timeout: 10, { scene.files("failed").contains(name + ".reason") }) else { return nil }
        #expect(!scene.files("new").contains(name))
        #expect(scene.files("failed").contains(name))
        return scene.read("failed/" + name + ".reason")
    }

    func jobTexts(_ scene: Scene) throws -> [String] {
        try scene.files("jobs").map { try Job.decode(Array(scene.read("jobs/" + $0).utf8)).text ?? "" }
    }

    @Test func symlinkMadeInNewGoesToFailed() throws {
        let scene = try Scene()
        let new = try makeSpool(scene)
        try valid.write(toFile: scene.directory + "/target.json", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: new + "/link.json", withDestinationPath: scene.directory + "/target.json")
        #expect(refusal(scene, "link.json")?.contains("new/link.json: is a symbolic link") == true)
    }

    @Test func directoryMadeInNewGoesToFailed() throws {
        let scene = try Scene()
        let new = try makeSpool(scene)
        try FileManager.default.createDirectory(atPath: new + "/folder.json", withIntermediateDirectories: false)
        #expect(refusal(scene, "folder.json")?.contains("is a directory") == true)
    }

    @Test func fifoMadeInNewGoesToFailed() throws {
        let scene = try Scene()
        let new = try makeSpool(scene)
        #expect(mkfifo(new + "/pipe.json", 0o600) == 0)
        #expect(refusal(scene, "pipe.json")?.contains("is not a regular file") == true)
    }

    @Test func socketMadeInNewGoesToFailed() throws {
        let scene = try Scene()
        let new = try makeSpool(scene)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        #expect(SpoolQuery.withAddress(new + "/sock.json") { bind(fd, $0, $1) } == 0)
        #expect(refusal(scene, "sock.json")?.contains("is not a regular file") == true)
    }

    /// A hard link (how a maildir writer delivers) becomes a job with a file of its own: writing
    /// through the other name later does not change it.
    @Test func hardLinkBecomesAJobOfItsOwn() throws {
        let scene = try Scene()
        let new = try makeSpool(scene)
        let outside = scene.directory + "/outside.json"
        #expect(FileManager.default.createFile(atPath: outside, contents: Data(valid.utf8), attributes: [.posixPermissions: 0o600]))
        #expect(link(outside, new + "/linked.json") == 0)
        #expect(waitUntil(timeout: 10) { scene.files("new").isEmpty && scene.files("jobs").count == 1 })
        try valid.replacingOccurrences(of: "odd", with: "changed").write(toFile: outside, atomically: false, encoding: .utf8)
        #expect(try jobTexts(scene) == ["odd"])
        var st = stat()
        #expect(lstat(scene.spoolPath + "/jobs/" + scene.files("jobs")[0], &st) == 0 && st.st_nlink == 1)
    }

    /// A file created in new/ and written slowly is taken only once its writer closes it.
    @Test func fileStillBeingWrittenIsTakenWhenClosed() throws {
        let scene = try Scene()
        let new = try makeSpool(scene)
        let fd = open(new + "/slow.json", O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        let half = valid.utf8.count / 2
        _ = Array(valid.utf8).withUnsafeBytes { write(fd, $0.baseAddress!, half) }
        // heraldd has seen the file (IN_CREATE) and must leave it: half a job is not a job. A
        // job renamed in after it is read after it (one intake queue): once that one is filed,
        // the half-written file has been looked at.
        let marker = scene.directory + "/marker.json"
        try valid.replacingOccurrences(of: "odd", with: "marker").write(toFile: marker, atomically: false, encoding: .utf8)
        chmod(marker, 0o600)
        #expect(rename(marker, new + "/marker.json") == 0)
        #expect(waitUntil(timeout: 10) { scene.files("jobs").count == 1 })
        #expect(scene.files("failed").isEmpty)
        #expect(scene.files("new") == ["slow.json"])
        _ = Array(valid.utf8).withUnsafeBytes { write(fd, $0.baseAddress! + half, $0.count - half) }
        close(fd)
        #expect(waitUntil(timeout: 10) { scene.files("new").isEmpty && scene.files("jobs").count == 2 }, "\(scene.files("failed"))")
        #expect(scene.files("failed").isEmpty)
        #expect(Set(try jobTexts(scene)) == ["odd", "marker"])
    }

    /// Names with a newline or bytes that are not UTF-8 are renamed (their odd bytes as %XX):
    /// a valid job is taken, a bad one goes to failed/ under its new name with the reason.
    @Test func namesWithNewlinesOrInvalidUTF8AreHandled() throws {
        let scene = try Scene()
        let new = try makeSpool(scene)
        func create(_ raw: [UInt8], _ text: String) {
            var path = Array((new + "/").utf8) + raw
            path.append(0)
            let fd = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o600) } }
            #expect(fd >= 0)
            _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            close(fd)
        }
        create(Array("line\nbreak.json".utf8), valid.replacingOccurrences(of: "odd", with: "newline"))
        create(Array("latin".utf8) + [0xE9] + Array(".json".utf8), valid.replacingOccurrences(of: "odd", with: "latin-1"))
        create(Array("bad\nname.json".utf8), "not json")
        #expect(waitUntil(timeout: 10) { scene.files("new").isEmpty && scene.files("jobs").count == 2 })
        #expect(Set(try jobTexts(scene)) == ["newline", "latin-1"])
        #expect(refusal(scene, "bad%0Aname.json")?.contains("new/bad%0Aname.json:") == true)
    }
}

extension Array where Element == String {
    func prefixed(by first: String) -> [String] { [first] + self }
}
