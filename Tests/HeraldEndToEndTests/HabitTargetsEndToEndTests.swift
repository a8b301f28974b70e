import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// Loop-style habits with the real binaries on a private bus (python-dbusmock): targets per
/// week, measurable habits and their "+1" button, skipped days, and Loop backups built to
/// Loop's schema with sqlite3.
@Suite(.serialized)
struct HabitTargetsEndToEndTests {
    func habitJSON(_ scene: Scene) throws -> [[String: Any]] {
        let r = try scene.herald("habit", "list", "--json")
        return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    /// "HH:MM:SS" a few seconds from now in the scenes' zone (Europe/Berlin).
    func clockTime(in seconds: Int) throws -> String {
        try runCommand("/bin/date", ["-d", "+\(seconds) seconds", "+%H:%M:%S"], environment: ["TZ": "Europe/Berlin"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A week boundary `seconds` from now, on the real clock: a POSIX zone whose local time is
    /// just before midnight, and a week that starts on the coming day (`habits.weekStart`).
    func weekEnding(in seconds: Int64) -> (tz: String, midnight: Instant, today: LocalDate, weekStart: String) {
        let now = SystemClock().now
        let midnight = Instant(seconds: now.seconds + seconds)
        var offset = (86_400 - midnight.seconds % 86_400) % 86_400  // east of UTC, making `midnight` 00:00 local
        if offset > 43_200 { offset -= 86_400 }
        let sign = offset >= 0 ? "-" : "+"  // POSIX writes offsets west of UTC
        let a = abs(offset)
        let tz = "HRL\(sign)\(a / 3600):\(String(format: "%02d", a / 60 % 60)):\(String(format: "%02d", a % 60))"
        let zone = TimeZoneRules(posix: tz)!
        let today = LocalDate(now, in: zone)
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        return (tz, midnight, today, names[today.adding(days: 1).weekday])
    }

    @Test func aThreeTimesAWeekHabitStopsAfterTheThirdDoneAndStartsAgainNextWeek() throws {
        let scene = try Scene()
        let week = weekEnding(in: 40)
        scene.extraEnvironment["TZ"] = week.tz
        try scene.writeConfig("habits:\n  weekStart: \(week.weekStart)\n")
        try scene.startDaemon()
        let add = try scene.herald("habit", "add", "Gym", "--times", "3/week", "--every", "*:*:0/2")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.hasPrefix("Habit 'Gym' (gym): 3 times a week; reminders *-*-* *:*:00/2, first reminder "))
        for back in [2, 1] {
            let done = try scene.herald("habit", "done", "Gym", "--date", week.today.adding(days: -back).description)
            #expect(done.status == 0, "\(done.stderr)")
        }
        let server = try #require(scene.server)
        let first = try #require(try server.waitForNotifications(1).first)
        #expect(first.summary == "Gym")
        #expect(first.body.hasPrefix("2 of 3 this week"), "\(first.body)")
        try server.press("done", onNotification: 1)
        #expect(waitUntil { scene.history().contains { $0.outcome == .skipped && $0.note == "3 of 3 this week" } },
                "\(scene.history().map { "\($0.outcome) \($0.note ?? "")" })")
        #expect(try habitJSON(scene).first?["periodDone"] as? Int == 3)
        // Quiet for the rest of the week: the next popup comes with the new week, at its midnight.
        let again = try server.waitForNotifications(2, timeout: 60)
        #expect(again.count == 2)
        #expect(again.last?.body.hasPrefix("0 of 3 this week") == true, "\(again.last?.body ?? "")")
        let shown = scene.history().filter { $0.outcome == .shown }
        #expect(shown.count == 2)
        #expect(shown.last.map { $0.due >= week.midnight } == true)
        // Between the third Done and midnight, every reminder was passed over: one record.
        #expect(scene.history().filter { $0.outcome == .skipped }.count == 1)
    }

    @Test func aMeasurableHabitsPlusOneMovesItsProgress() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let at = try clockTime(in: 4)
        let add = try scene.herald("habit", "add", "Water", "--target", "8", "--unit", "glasses", "--every", "*-*-* \(at)")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try scene.herald("habit", "done", "Water", "5").stdout.hasPrefix("'Water' on "))
        let server = try #require(scene.server)
        let first = try #require(try server.waitForNotifications(1).first)
        #expect(first.body.hasPrefix("5 of 8 glasses · done not yet · strength "), "\(first.body)")
        #expect(first.actions == ["done", "Done", "add-1", "+1", "snooze", "Snooze", "default", "Acknowledge"])
        try server.press("add-1", onNotification: 1)
        let both = try server.waitForNotifications(2)
        #expect(both.count == 2)
        #expect(both.last?.body.hasPrefix("6 of 8 glasses") == true, "\(both.last?.body ?? "")")
        #expect(both.last?.actions == first.actions)
        #expect(scene.read("habits/water.jsonl").contains("\"add\":1,"))
        #expect(try habitJSON(scene).first?["amountToday"] as? Double == 6)
        // One occurrence, one shown record: the +1 redraw is not a new firing.
        #expect(scene.history().filter { $0.outcome == .shown }.count == 1)
        // Done on the redrawn popup completes the day (at least the target).
        try server.press("done", onNotification: both.count)
        #expect(waitUntil { (try? habitJSON(scene).first?["doneToday"] as? Bool) == true })
    }

    @Test func aSkippedDayKeepsTheStreak() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let at = try clockTime(in: 4)
        #expect(try scene.herald("habit", "add", "Read", "--every", "*-*-* \(at)").status == 0)
        let today = LocalDate(SystemClock().now, in: try TimeZoneRules.named("Europe/Berlin"))
        for back in [3, 2] { #expect(try scene.herald("habit", "done", "Read", "--date", today.adding(days: -back).description).status == 0) }
        let skip = try scene.herald("habit", "skip", "Read", "--date", today.adding(days: -1).description)
        #expect(skip.stdout == "Skipped: 'Read' on \(today.adding(days: -1)) (streak stays 2; 'herald habit undo' takes it back)\n")
        let server = try #require(scene.server)
        let popup = try #require(try server.waitForNotifications(1).first)
        #expect(popup.body.hasPrefix("Day 3 in a row · done 2 times · strength "), "\(popup.body)")
        #expect(try habitJSON(scene).first?["streak"] as? Int == 2)
        // Without the skip, yesterday would have broken it.
        #expect(try scene.herald("habit", "undo", "Read", "--date", today.adding(days: -1).description).status == 0)
        #expect(try habitJSON(scene).first?["streak"] as? Int == 0)
    }

    @Test func aPausedHabitIsQuietAndResumes() throws {
        let scene = try Scene()
        // Added and paused before heraldd starts: with it running, a loaded machine could let
        // the first occurrence (at most 2 s away) fire between the two commands.
        #expect(try scene.herald("habit", "add", "Walk", "--every", "*:*:0/2").status == 0)
        #expect(try scene.herald("habit", "pause", "Walk").stdout.hasPrefix("Paused: 'Walk' from "))
        try scene.startDaemon()
        #expect(waitUntil(timeout: 10) { scene.history().contains { $0.outcome == .skipped && $0.note == "paused" } })
        #expect(try #require(scene.server).notifications().isEmpty)
        #expect(try habitJSON(scene).first?["paused"] as? Bool == true)
        #expect(try scene.herald("habit", "pause", "Walk").stderr == "herald: 'Walk' is paused already\n")
        #expect(try scene.herald("habit", "list").stdout.contains("paused"))
        #expect(try scene.herald("habit", "resume", "Walk").stdout.hasPrefix("Resumed: 'Walk' from "))
        #expect(try #require(scene.server).waitForNotifications(1).map(\.summary) == ["Walk"])
        #expect(try habitJSON(scene).first?["paused"] as? Bool == false)
    }

    @Test func heatMapAndStatsOnTheCommandLine() throws {
        let scene = try Scene(server: false)
        #expect(try scene.herald("habit", "add", "Read", "--every", "daily").status == 0)
        let today = LocalDate(SystemClock().now, in: try TimeZoneRules.named("Europe/Berlin"))
        for back in [3, 1] { #expect(try scene.herald("habit", "done", "Read", "--date", today.adding(days: -back).description).status == 0) }
        #expect(try scene.herald("habit", "skip", "Read", "--date", today.adding(days: -2).description).status == 0)
        let show = try scene.herald("habit", "show", "Read", "--weeks", "4")
        #expect(show.status == 0)
        #expect(!show.stdout.contains("\u{1B}["))  // a pipe: no colour
        let weekdays = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"]
        let row = show.stdout.split(separator: "\n").first { $0.hasPrefix(weekdays[today.adding(days: -2).weekday] + " ") }
        #expect(row.map { $0.contains("-") } == true, "\(show.stdout)")
        #expect(show.stdout.contains("# done  + covered  - skipped/paused  . missed"))
        // Colour on a terminal (script(1) gives herald one).
        var env = scene.environment
        env["TERM"] = "xterm-256color"
        let tty = try runCommand("/usr/bin/script", ["-qec", "\(Binaries.herald) habit show Read --weeks 4", "/dev/null"], environment: env)
        #expect(tty.stdout.contains("\u{1B}[38;5;34m■\u{1B}[0m"), "\(tty.stdout)")
        #expect(tty.stdout.contains("\u{1B}[38;5;67m■\u{1B}[0m"))
        let stats = try scene.herald("habit", "stats")
        #expect(stats.stdout.hasPrefix("NAME  GOAL               WEEK  MONTH  STRENGTH  STREAK  BEST  TOTAL\nRead  each reminder day  "), "\(stats.stdout)")
    }

    @Test func refusalsAreClear() throws {
        let scene = try Scene(server: false)
        #expect(try scene.herald("habit", "add", "Water", "--target", "8").status == 0)
        for (args, code, message) in [
            (["habit", "add", "Gym", "--times", "8/week"], Int32(64), "herald: --times: '8/week': 8 times do not fit in 7 days (one completion a day)\n"),
            (["habit", "add", "Gym", "--unit", "km"], 64, "herald: --unit and --at-most are for measurable habits: add --target AMOUNT\n"),
            (["habit", "add", "Gym", "--target", "0"], 64, "herald: --target: '0' is not a number above 0 and at most 1000000\n"),
            (["habit", "add", "Run", "--target", "20", "--times", "3/week"], 64,
             "herald: --times: a measurable habit counts its amount once per period: write 1/week, not 3/week\n"),
            (["habit", "done", "Water", "lots"], 64, "herald: 'lots' is not an amount (a number such as 2 or 0.5, not 0)\n"),
            (["habit", "import", "/nonexistent.db"], 65, "herald: '/nonexistent.db': no such file or folder\n"),
            (["habit", "export", "--csv", scene.spoolPath], 65, "herald: --csv: '\(scene.spoolPath)' is not an empty folder (nothing written)\n"),
        ] {
            let r = try scene.herald(args)
            #expect(r.status == code, "\(args)")
            #expect(r.stderr == message, "\(args)")
        }
    }
}
