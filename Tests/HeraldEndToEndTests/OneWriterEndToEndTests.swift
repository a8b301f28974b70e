import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// One decision, one writer: with heraldd running, `herald ack`, `snooze`, `cancel` and
/// `habit done` go through `heraldd.sock`; heraldd decides, writes the history (and the habit
/// log) and closes the popup. Without heraldd the CLI applies the same `JobDecision`.
@Suite(.serialized)
struct OneWriterEndToEndTests {
    func clockTime(in seconds: Int) throws -> String {
        try runCommand("/bin/date", ["-d", "+\(seconds) seconds", "+%H:%M:%S"], environment: ["TZ": "Europe/Berlin"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Four popups on screen: a repeating reminder (pills), a one-shot that finished (tea), a
    /// second repeating reminder (bins) and a habit (Gym). Returns once all four are shown and
    /// recorded, and the jobs are in their after-popup state.
    func fourPopups(_ scene: Scene) throws -> NotificationServer {
        try scene.startDaemon()
        #expect(try scene.herald("remind", "--in", "1s", "--repeat", "1h", "--id", "pills", "Pills").status == 0)
        #expect(try scene.herald("remind", "--in", "1s", "--id", "tea", "Tea").status == 0)
        #expect(try scene.herald("remind", "--in", "1s", "--repeat", "1h", "--id", "bins", "Bins").status == 0)
        // Read just before `herald habit add`, and far enough ahead to be still to come when it
        // reads it on a busy machine (else the habit's first reminder is tomorrow's).
        let at = try clockTime(in: 4)
        #expect(try scene.herald("habit", "add", "Gym", "--every", "*-*-* \(at)").status == 0)
        let server = try #require(scene.server)
        #expect(try Set(server.waitForNotifications(4, timeout: 20).map(\.summary)) == ["Pills", "Tea", "Bins", "Gym"])
        #expect(waitUntil { scene.history().filter { $0.outcome == .shown }.count == 4 })
        #expect(waitUntil { scene.files("done").count == 1 && scene.files("jobs").filter { $0.split(separator: "@").count == 3 }.count == 2 })
        return server
    }

    /// What the four commands add to the history, without times (which differ between runs).
    func lines(_ scene: Scene, after count: Int) -> [String] {
        scene.history().dropFirst(count).map { r in
            [r.id, r.kind?.rawValue ?? "-", r.role?.rawValue ?? "-", r.outcome.rawValue, r.title ?? "-",
             r.note.map { $0.hasPrefix("until ") ? "until" : $0 } ?? "-"].joined(separator: " ")
        }.sorted()
    }

    func runTheFourCommands(_ scene: Scene) throws {
        let ack = try scene.herald("ack", "pills")
        #expect(ack.status == 0 && ack.stdout == "Acknowledged pills: finished\n", "\(ack.stderr)")
        let snooze = try scene.herald("snooze", "tea", "1h")
        #expect(snooze.status == 0 && snooze.stdout.hasPrefix("Snoozed tea: shows again "), "\(snooze.stderr)")
        let cancel = try scene.herald("cancel", "bins")
        #expect(cancel.status == 0 && cancel.stdout.hasPrefix("Cancelled bins"), "\(cancel.stderr)")
        let done = try scene.herald("habit", "done", "Gym")
        #expect(done.status == 0 && done.stdout.hasPrefix("Done: 'Gym' on "), "\(done.stderr)")
    }

    @Test func withHeralddTheDaemonDecidesWritesOnceAndClosesEachPopup() throws {
        let scene = try Scene()
        let server = try fourPopups(scene)
        let daemon = try #require(scene.daemon)
        let before = scene.history().count
        try runTheFourCommands(scene)
        // heraldd made each decision (the CLI did not fall back to writing itself)...
        for id in ["pills", "tea", "bins", "gym"] {
            // (heraldd's log is written on a queue of its own: the line may follow the answer)
            #expect(waitUntil { daemon.logged("Client request done", "job.id=\(id)") }, "heraldd did not handle \(id): \(daemon.log)")
        }
        // ... and wrote one line for each, the popup's end, before it answered (no waiting here).
        #expect(lines(scene, after: before) == [
            "bins reminder reminder dismissed Bins herald cancel",
            "gym habit habit done Gym herald habit done",
            "pills reminder reminder done Pills herald ack",
            "tea reminder reminder snoozed Tea until",
        ])
        #expect(scene.read("habits/gym.jsonl").components(separatedBy: "\"done\":true").count == 2)  // one entry
        // Every popup left the screen.
        #expect(waitUntil { (try? server.closed().sorted()) == [1, 2, 3, 4] })
        #expect(scene.files("cancelled").count == 1 && scene.files("cancelled")[0].hasPrefix("bins@"))
        #expect(scene.files("jobs").contains { $0.hasPrefix("tea@") && $0.split(separator: "@").count == 3 })
        // A second ack is refused by heraldd, with nothing written.
        let again = try scene.herald("ack", "pills")
        #expect(again.status == 65 && again.stderr.contains("no pending job 'pills'"))
        let habitAgain = try scene.herald("habit", "done", "Gym")
        #expect(habitAgain.stdout.contains("was already done"))
        #expect(scene.history().count == before + 4)
    }

    /// Without heraldd the same commands work, and write the same lines for ack and snooze;
    /// a cancel or a habit's done writes no popup ending (no popup is known without heraldd).
    @Test func withoutHeralddTheCLIAppliesTheSameDecisions() throws {
        let scene = try Scene()
        _ = try fourPopups(scene)
        #expect(scene.daemon!.stop(SIGTERM) == 0)
        #expect(!FileManager.default.fileExists(atPath: scene.spoolPath + "/heraldd.sock"))
        let before = scene.history().count
        try runTheFourCommands(scene)
        #expect(lines(scene, after: before) == [
            "pills reminder reminder done Pills herald ack",
            "tea reminder reminder snoozed Tea until",
        ])
        #expect(scene.files("cancelled").count == 1)
        #expect(scene.read("habits/gym.jsonl").components(separatedBy: "\"done\":true").count == 2)
    }

    /// The socket is hostile input: a request that is cut short, malformed or too long changes
    /// nothing, is answered with a refusal, and heraldd serves the next client.
    @Test func hostileRequestsOnTheSocketAreRefused() throws {
        let scene = try Scene()
        try scene.startDaemon()
        #expect(try scene.herald("remind", "--in", "1h", "--id", "keep", "Keep").status == 0)
        #expect(waitUntil { scene.files("jobs").count == 1 })  // heraldd takes it from new/ on its own time
        let keep = try #require(scene.files("jobs").first)
        func exchange(_ bytes: String) -> String {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            guard SpoolQuery.withAddress(scene.spoolPath + "/heraldd.sock", { connect(fd, $0, $1) }) == 0 else { return "no connection" }
            _ = bytes.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            shutdown(fd, Int32(SHUT_WR))
            var answer: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                answer += buffer[0..<n]
            }
            return String(decoding: answer, as: UTF8.self)
        }
        for bad in ["v1 cancel keep", "v1 cancel ../keep\n", "v1 cancel keep extra\n", "v1 snooze keep 0 - - -\n",
                    "v1 snooze keep 60000000 - - ../../etc@2026-01-01T00:00:00Z.json\n", "v1 habit-done keep 2026-02-30 -\n",
                    "v1 cancel " + String(repeating: "k", count: 400) + "\n", "v1 cancel k\u{0}eep\n", "v9 cancel keep\n"] {
            let answer = exchange(bad)
            #expect(answer.hasPrefix("v1 refused invalid ") || answer == "error unknown request\n", "\(bad.debugDescription) → \(answer)")
        }
        #expect(scene.files("jobs") == [keep] && scene.files("cancelled").isEmpty)
        #expect(exchange("v1 ack nosuchjob\n").hasPrefix("v1 refused unknown-job "))
        // The file is in jobs/ a moment before heraldd hears it was filed: until then it
        // refuses with "changed" and nothing done, and the CLI asks again; so does this test.
        var ack = ""
        _ = waitUntil(timeout: 5) {
            ack = exchange("v1 ack keep\n")
            return !ack.hasPrefix("v1 refused changed ")
        }
        #expect(ack.hasPrefix("v1 refused not-waiting "), "\(ack)")
        #expect(exchange("v1 cancel keep\n") == "v1 ok cancelled \(keep)\n")
        #expect(scene.files("jobs").isEmpty && scene.files("cancelled") == [keep])
        #expect(scene.daemon!.isRunning)
    }

    /// A command right after `herald remind` finds the job still being filed: heraldd refuses
    /// with nothing done, and the CLI asks again rather than failing.
    @Test func aCommandRightAfterRemindWaitsForTheFiling() throws {
        let scene = try Scene()
        try scene.startDaemon()
        for k in 0..<5 {
            #expect(try scene.herald("remind", "--in", "1h", "--id", "quick\(k)", "Quick").status == 0)
            let cancel = try scene.herald("cancel", "quick\(k)")
            #expect(cancel.status == 0 && cancel.stdout.hasPrefix("Cancelled quick\(k)"), "\(cancel.stderr)")
        }
        #expect(waitUntil { scene.files("jobs").isEmpty && scene.files("cancelled").count == 5 })
    }
}
