import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// Warnings, several schedules, `herald reschedule` and `herald edit` with the real binaries on
/// a private bus (python-dbusmock's notification server), and `herald when` for every example
/// in the README.
@Suite(.serialized)
struct TimePhraseEndToEndTests {
    func shown(_ scene: Scene, _ id: String) -> [HistoryRecord] {
        scene.history().filter { $0.id == id && $0.outcome == .shown }
    }

    @Test func warningsComeAheadOfTheReminderAtTheirInstants() throws {
        let scene = try Scene()
        try scene.startDaemon()
        // The first warning 2 s ahead: time for the command and heraldd to take the job in first.
        let added = try scene.herald("remind", "--in", "5s", "--warn", "3s,2s", "--id", "dentist", "Dentist")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("warned 3s, 2s ahead"), "\(added.stdout)")
        let server = try #require(scene.server)
        let popups = try server.waitForNotifications(3, timeout: 20)
        #expect(popups.map(\.summary) == ["in 3 s: Dentist", "in 2 s: Dentist", "Dentist"])
        #expect(popups[0].actions == ["got-it", "Got it", "default", "Acknowledge"])  // a warning is a heads-up
        #expect(popups[2].actions.first == "done")
        #expect(popups[1].replaces == 1 && popups[2].replaces == 1)  // one popup, updated in place
        #expect(waitUntil { self.shown(scene, "dentist").count == 3 })
        let records = shown(scene, "dentist")
        let at = try #require(records.last?.due)
        #expect(records.map(\.due) == [at - .seconds(3), at - .seconds(2), at])
        #expect(records.map { $0.role?.rawValue } == ["warning", "warning", "reminder"])
        for r in records { #expect(r.time - r.due < .milliseconds(900), "\(r.time) for \(r.due)") }
    }

    @Test func severalSchedulesFireAtTheirUnionOnceWhereTheyMeet() throws {
        let scene = try Scene()
        try scene.startDaemon()
        // Every 2 s and every 3 s: both at each multiple of 6 s, where it must fire once.
        let added = try scene.herald("remind", "--every", "*:*:0/2", "--every", "*:*:0/3", "--id", "tick", "Tick")
        #expect(added.status == 0, "\(added.stderr)")
        // A warning that falls on a main occurrence is that occurrence, shown once, as itself.
        #expect(try scene.herald("remind", "--every", "*:*:0/2", "--warn", "2s", "--id", "even", "Even").status == 0)
        #expect(waitUntil(timeout: 30) { self.shown(scene, "tick").count >= 8 })
        let dues = shown(scene, "tick").map(\.due)
        #expect(dues == dues.sorted() && Set(dues).count == dues.count, "doubled: \(dues)")
        let seconds = dues.map { $0.seconds }
        #expect(seconds.allSatisfy { $0 % 2 == 0 || $0 % 3 == 0 })
        let union = (seconds.first!...seconds.last!).filter { $0 % 2 == 0 || $0 % 3 == 0 }
        #expect(seconds == union, "missing or extra: \(seconds) against \(union)")
        #expect(seconds.contains { $0 % 6 == 0 })
        let even = shown(scene, "even")
        #expect(!even.isEmpty && even.allSatisfy { $0.role == .reminder && $0.due.seconds % 2 == 0 })
        #expect(Set(even.map(\.due)).count == even.count)
    }

    @Test func rescheduleMovesAJobAndCountsItsWarningsAgain() throws {
        let scene = try Scene()
        try scene.startDaemon()
        #expect(try scene.herald("remind", "--at", "now + 1 hour", "--warn", "2s", "--id", "call", "Call Bob").status == 0)
        #expect(waitUntil { scene.files("jobs").count == 1 })
        // Snoozed to a time phrase, then rescheduled: the snooze is gone, the warning counted again.
        let snoozed = try scene.herald("snooze", "call", "now + 2 hours")
        #expect(snoozed.status == 0 && snoozed.stdout.contains("(in 2 h)"), "\(snoozed.stdout)\(snoozed.stderr)")
        #expect(waitUntil { scene.files("jobs").first?.split(separator: "@").count == 3 })
        let moved = try scene.herald("reschedule", "call", "--in", "3s")
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout.hasPrefix("Rescheduled call: "), "\(moved.stdout)")
        #expect(scene.files("jobs").first?.split(separator: "@").count == 2)
        let server = try #require(scene.server)
        #expect(try server.waitForNotifications(2, timeout: 20).map(\.summary) == ["in 2 s: Call Bob", "Call Bob"])
        let records = shown(scene, "call")
        #expect(records.count == 2 && records[1].due - records[0].due == .seconds(2))
        #expect(waitUntil { scene.files("jobs").isEmpty })
        let gone = try scene.herald("reschedule", "call", "--at", "tomorrow 9am")
        #expect(gone.status == 65 && gone.stderr.contains("no pending job 'call'"), "\(gone.stderr)")
        let past = try scene.herald("reschedule", "call", "--at", "2020-01-01T09:00")
        #expect(past.status == 64 && past.stderr.contains("in the past"), "\(past.stderr)")
    }

    @Test func warnAndSeveralSchedulesOnEveryCommandThatMakesAJob() throws {
        let scene = try Scene(server: false)
        let habit = try scene.herald("habit", "add", "Water", "--every", "09:00", "--every", "15:00", "--warn", "10m")
        #expect(habit.status == 0 && habit.stdout.contains("*-*-* 09:00:00; *-*-* 15:00:00"), "\(habit.stdout)\(habit.stderr)")
        let show = try scene.herald("habit", "show", "Water")
        #expect(show.stdout.contains("every:    09:00  (*-*-* 09:00:00)\n          15:00  (*-*-* 15:00:00)\n"), "\(show.stdout)")
        #expect(show.stdout.contains("warn:     10min ahead"))
        let delivery = try scene.herald("deliver", "--at", "now + 2 hours", "--warn", "1h", "--lead", "15m", "--name", "A",
                                        "--address", "B", "--id", "box")
        #expect(delivery.status == 0, "\(delivery.stderr)")
        let headsUps = try #require(delivery.stdout.split(separator: "heads-ups ").last)
        #expect(headsUps.split(separator: ",").count == 2, "\(delivery.stdout)")  // an hour before, and the lead
        #expect(try scene.herald("timer", "30m", "--warn", "10m", "Tea").status == 0)
        #expect(scene.files("new").contains { scene.read("new/" + $0).contains(#""warn":["10min"]"#) })
        // Made 30 minutes ahead with a 1-hour warning: the warning shows at once, and is listed as one.
        #expect(try scene.herald("remind", "--in", "30m", "--warn", "1h", "--id", "soon", "Soon").status == 0)
        #expect(try scene.herald("list").stdout.contains("reminder/warning"))
        #expect(try scene.herald("list", "--json").stdout.contains(#""role": "warning""#))
    }

    /// An editor script: `body` runs with the file as $1.
    func editor(_ scene: Scene, _ name: String, _ body: String) throws -> String {
        let path = scene.directory + "/" + name
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    func jobFile(_ scene: Scene) -> String {
        guard let name = scene.files("jobs").first else { return "" }
        return scene.read("jobs/" + name)
    }

    @Test func aGoodEditReplacesTheJobAndHeralddShowsTheNewText() throws {
        let scene = try Scene()
        try scene.startDaemon()
        // Due far enough ahead that the edit (herald, a shell, sed, herald again) lands first.
        #expect(try scene.herald("remind", "--in", "8s", "--id", "note", "Old text").status == 0)
        #expect(waitUntil { scene.files("jobs").count == 1 })
        let before = scene.files("jobs")
        scene.extraEnvironment["EDITOR"] = try editor(scene, "good.sh", "sed -i 's/Old text/New text/' \"$1\"")
        let edit = try scene.herald("edit", "note")
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(edit.stdout.hasPrefix("Updated note: next "), "\(edit.stdout)")
        #expect(scene.files("jobs") == before)  // only the text changed: same place in the schedule
        #expect(jobFile(scene).contains("New text"))
        let server = try #require(scene.server)
        #expect(try server.waitForNotifications(1, timeout: 20).first?.summary == "New text")
        // An editor that changes nothing changes nothing.
        #expect(try scene.herald("remind", "--in", "1h", "--id", "later", "Later").status == 0)
        #expect(waitUntil { scene.files("jobs").count == 1 })
        scene.extraEnvironment["EDITOR"] = "true"
        let unchanged = try scene.herald("edit", "later")
        #expect(unchanged.status == 0 && unchanged.stdout == "No changes; job later unchanged.\n", "\(unchanged.stdout)")
    }

    @Test func aBadEditIsRefusedWithTheReasonAndOfferedAgain() throws {
        let scene = try Scene()
        try scene.startDaemon()
        #expect(try scene.herald("remind", "--at", "tomorrow 9am", "--id", "plan", "Old plan").status == 0)
        #expect(waitUntil { scene.files("jobs").count == 1 })
        let original = jobFile(scene)
        // First round: a field misspelt; second round (the same file again): fixed, and a new time.
        scene.extraEnvironment["EDITOR"] = try editor(scene, "twice.sh", """
            if [ -e "\(scene.directory)/round" ]; then
              sed -i 's/"kidn"/"kind"/; s/Old plan/Fixed plan/; s/"at": "[^"]*"/"at": "2099-01-01T09:00:00Z"/' "$1"
            else
              touch "\(scene.directory)/round"; sed -i 's/"kind"/"kidn"/' "$1"
            fi
            """)
        let retried = try scene.herald("edit", "plan", stdin: "y\n")
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stderr.contains("herald: job plan: unknown field 'kidn'"), "\(retried.stderr)")
        #expect(retried.stderr.contains("Edit again? [y/N]"))
        #expect(jobFile(scene).contains("Fixed plan") && jobFile(scene).contains("2099-01-01"))
        #expect(scene.files("jobs").first?.hasPrefix("plan@4070941200000000") == true, "\(scene.files("jobs"))")
        // Refused and not retried: the job as it was, exit 65.
        let fixed = jobFile(scene)
        scene.extraEnvironment["EDITOR"] = try editor(scene, "bad.sh", "sed -i 's/\"at\": \"[^\"]*\"/\"at\": \"2001-01-01T09:00:00Z\"/' \"$1\"")
        let refused = try scene.herald("edit", "plan", stdin: "n\n")
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("'at' 2001-01-01T10:00:00+01:00 is in the past"), "\(refused.stderr)")
        #expect(refused.stderr.contains("edit abandoned; job plan unchanged"))
        #expect(jobFile(scene) == fixed)
        _ = original
    }

    @Test func aKilledEditorLeavesTheJobIntact() throws {
        let scene = try Scene()
        try scene.startDaemon()
        #expect(try scene.herald("remind", "--in", "1h", "--id", "keep", "Keep me").status == 0)
        #expect(waitUntil { scene.files("jobs").count == 1 })
        let before = (scene.files("jobs"), jobFile(scene))
        scene.extraEnvironment["EDITOR"] = try editor(scene, "killed.sh", "sed -i 's/Keep me/Lost/' \"$1\"; kill -9 $$")
        let killed = try scene.herald("edit", "keep")
        #expect(killed.status == 1)
        #expect(killed.stderr.contains("was killed (signal 9); job keep unchanged"), "\(killed.stderr)")
        #expect(scene.files("jobs") == before.0 && jobFile(scene) == before.1)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/herald-edit-keep-\(getpid()).json"))
    }

    /// The README's table of phrases, each asked of `herald when` from the table's base time.
    @Test func everyExamplePhraseInTheReadmeMeansWhatTheReadmeSays() throws {
        let readme = try String(contentsOfFile: Binaries.repositoryRoot + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- when-examples -->"))
        let end = try #require(readme.range(of: "<!-- /when-examples -->"))
        let rows = readme[start.upperBound..<end.lowerBound].split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.count >= 20)
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let phrase = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let meaning = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let result = try runCommand(Binaries.herald, ["when", "--from", "2026-11-23T10:15:30", phrase],
                                        environment: ["TZ": "Europe/Berlin", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"])
            #expect(result.status == 0 && result.stdout == meaning + "\n", "'\(phrase)': \(result.stdout)\(result.stderr)")
        }
    }
}
