import Foundation
import HeraldTestSupport
import Testing

/// Habits and calendar schedules with the real binaries, a private bus and python-dbusmock:
/// the buttons are pressed from the server side (org.freedesktop.DBus.Mock.EmitSignal).
@Suite(.serialized)
struct HabitEndToEndTests {
    /// "HH:MM:SS" a few seconds from now in the scenes' zone (Europe/Berlin).
    func clockTime(in seconds: Int) throws -> String {
        try runCommand("/bin/date", ["-d", "+\(seconds) seconds", "+%H:%M:%S"], environment: ["TZ": "Europe/Berlin"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func habitJSON(_ scene: Scene) throws -> [[String: Any]] {
        let r = try scene.herald("habit", "list", "--json")
        return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    @Test func aHabitFiresWithItsIconAndButtonsAndDoneStopsItForTheDay() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let add = try scene.herald("habit", "add", "Drink water", "--every", "*:*:0/2", "--icon", "dialog-information")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.hasPrefix("Habit 'Drink water' (drink-water): *-*-* *:*:00/2, first reminder "))
        let server = try #require(scene.server)
        let first = try #require(server.waitForNotifications(1).first)
        #expect(first.summary == "Drink water")
        #expect(first.icon == "dialog-information")
        #expect(first.actions == ["done", "Done", "snooze", "Snooze", "default", "Acknowledge"])
        #expect(first.hints["category"] == .string("x-herald.habit"))
        #expect(first.body == "Start a streak today · done not yet · strength 0%")
        try server.press("done", onNotification: 1)
        #expect(waitUntil { (try? habitJSON(scene).first?["doneToday"] as? Bool) == true })
        #expect(waitUntil { (try? server.closed()) == [1] })  // Done closes the popup
        let shownByNow = try server.notifications().map(\.summary)
        // Two more scheduled occurrences pass before a marker comes due: the day is done, so
        // they stay quiet and the marker is the next popup.
        try scene.herald("remind", "--in", "5s", "--id", "marker", "Marker")
        #expect(try server.waitForNotifications(shownByNow.count + 1, timeout: 20).map(\.summary) == shownByNow + ["Marker"])
        let habit = try #require(try habitJSON(scene).first)
        #expect(habit["name"] as? String == "Drink water")
        #expect(habit["every"] as? String == "*:*:0/2")
        #expect(habit["icon"] as? String == "dialog-information")
        #expect(habit["total"] as? Int == 1)
        #expect(habit["streak"] as? Int == 1)
        #expect(habit["bestStreak"] as? Int == 1)
        #expect((habit["next"] as? String)?.hasPrefix(try runCommand("/bin/date", ["-d", "tomorrow", "+%Y-%m-%d"], environment: ["TZ": "Europe/Berlin"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == true)
        let log = scene.read("habits/drink-water.jsonl")
        #expect(log.contains("\"done\":true") && log.contains("\"by\":\"popup\""))
    }

    @Test func snoozeShowsItAgainAfterTheSpanAndSurvivesARestart() throws {
        let scene = try Scene()
        try scene.writeConfig("defaults:\n  snooze: 4s\n")
        let daemon = try scene.startDaemon()
        let at = try clockTime(in: 4)  // still to come when `herald habit add` reads it, even on a busy machine
        #expect(try scene.herald("habit", "add", "Stretch", "--every", "*-*-* \(at)").status == 0)
        let server = try #require(scene.server)
        #expect(try server.waitForNotifications(1).map(\.summary) == ["Stretch"])
        try server.press("snooze", onNotification: 1)
        // The snooze is in the spool (the job file's name) before the daemon goes down.
        #expect(waitUntil { scene.files("jobs").first?.split(separator: "@").count == 3 })
        #expect(daemon.stop(SIGTERM) == 0)
        try scene.startDaemon()
        let again = try server.waitForNotifications(2, timeout: 15)
        #expect(again.map(\.summary) == ["Stretch", "Stretch"])
        #expect(scene.files("jobs").first?.split(separator: "@").count == 2)  // back on its daily schedule
    }

    @Test func aFiredReminderCanBeSnoozedFromTheCommandLine() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let r = try scene.herald("remind", "--in", "1s", "--id", "tea", "Tea")
        #expect(r.status == 0)
        let server = try #require(scene.server)
        #expect(try server.waitForNotifications(1).count == 1)
        #expect(waitUntil { scene.files("done").count == 1 })
        let snooze = try scene.herald("snooze", "tea", "2s")
        #expect(snooze.status == 0, "\(snooze.stderr)")
        #expect(snooze.stdout.hasPrefix("Snoozed tea: shows again "))
        #expect(try server.waitForNotifications(2).map(\.summary) == ["Tea", "Tea"])
    }

    @Test func aRecurringReminderRepeats() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let r = try scene.herald("remind", "--every", "*:*:0/2", "--id", "blink", "Blink")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("Reminder blink: *-*-* *:*:00/2, first "))
        #expect(try #require(scene.server).waitForNotifications(3, timeout: 20).map(\.summary) == ["Blink", "Blink", "Blink"])
        #expect(try scene.herald("list").stdout.contains("blink"))
    }

    @Test func nextPrintsElapseTimes() throws {
        let scene = try Scene(server: false)
        let r = try scene.herald("next", "Mon..Fri 09:00", "-n", "3", "--from", "2026-11-20T10:00:00+01:00")
        #expect(r.stdout == "2026-11-23T09:00:00+01:00\n2026-11-24T09:00:00+01:00\n2026-11-25T09:00:00+01:00\n")
        let dst = try scene.herald("next", "*-*-* 02:30", "-n", "2", "--from", "2026-03-28T12:00")
        #expect(dst.stdout == "2026-03-30T02:30:00+02:00\n2026-03-31T02:30:00+02:00\n")  // 29 March has no 02:30
        let utc = try scene.herald("next", "daily UTC", "-n", "1", "--from", "2026-11-20T10:00:00Z")
        #expect(utc.stdout == "2026-11-21T00:00:00+00:00\n")
        let bad = try scene.herald("next", "Fri..Mon 10:00")
        #expect(bad.status == 65)
        #expect(bad.stderr == "herald: 'Fri..Mon 10:00' is not a calendar expression: the weekday range ending in 'Mon' runs backwards (write Mon..Fri, not Fri..Mon)\n")
    }

    /// Each refusal is one line with exit 64/65, and nothing is written.
    @Test(arguments: [
        (["habit", "done", "Nope"], 65, "herald: no habit named 'Nope' (habits: 'Read')"),
        (["habit", "add", "read", "--every", "daily"], 65, "herald: a habit named 'read' already exists (id read)"),
        (["habit", "done", "Read", "--date", "2999-01-01"], 64, "herald: --date: 2999-01-01 is in the future (today is "),
        (["habit", "done", "Read", "--date", "last tuesday"], 64, "herald: --date: 'last tuesday' is not a date (YYYY-MM-DD)"),
        (["habit", "undo", "Read"], 65, "herald: 'Read' was not done on "),
        (["habit", "add", "Walk", "--every", "25:00"], 65, "herald: --every: '25:00' is not a calendar expression: hour 25 is out of range 0..23"),
        (["habit", "add", "Walk", "--every", "daily", "--icon", "/nonexistent/walk.png"], 64, "herald: --icon: '/nonexistent/walk.png': it cannot be read: No such file or directory"),
        (["remind", "--every", "Mon..", "x"], 65, "herald: --every: 'Mon..' is not a calendar expression: the weekday range after 'Mon' has no end"),
        (["snooze", "nothing"], 65, "herald: no pending or fired job 'nothing' (see 'herald list')"),
    ] as [([String], Int32, String)])
    func badHabitInputIsRefused(arguments: [String], status: Int32, message: String) throws {
        let scene = try Scene(server: false)
        #expect(try scene.herald("habit", "add", "Read", "--every", "daily").status == 0)
        let before = (scene.files("new"), scene.files("habits"))
        let r = try runCommand(Binaries.herald, arguments, environment: scene.environment)
        #expect(r.status == status)
        #expect(r.stderr.hasPrefix(message), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(scene.files("new") == before.0)
        #expect(scene.files("habits") == before.1)
    }

    @Test func habitDoneUndoAndRemoveFromTheCommandLine() throws {
        let scene = try Scene(server: false)
        #expect(try scene.herald("habit", "add", "Read", "--every", "daily").status == 0)
        let yesterday = try runCommand("/bin/date", ["-d", "yesterday", "+%Y-%m-%d"], environment: ["TZ": "Europe/Berlin"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try scene.herald("habit", "done", "read", "--date", yesterday).stdout == "Done: 'Read' on \(yesterday) (1 in a row, once in all)\n")
        #expect(try scene.herald("habit", "done", "Read").stdout.contains("(2 in a row, 2 times in all)"))
        #expect(try scene.herald("habit", "done", "Read").stdout.hasPrefix("'Read' was already done on "))
        let list = try scene.herald("habit", "list").stdout
        #expect(list.contains("Read  each reminder day  Done today  2       2     2      10%       "), "\(list)")
        #expect(try scene.herald("habit", "undo", "Read").status == 0)
        #expect(try scene.herald("habit", "show", "Read").stdout.contains("done:     once; streak 1, best 1; today not yet"))
        #expect(try scene.herald("habit", "rm", "Read").stdout == "Removed habit 'Read'; its log is kept in habits/removed/\n")
        #expect(scene.files("habits/removed").count == 1)
        #expect(try scene.herald("habit", "list").stdout.hasPrefix("No habits yet."))
    }
}
