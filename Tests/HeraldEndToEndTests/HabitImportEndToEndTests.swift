import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// Loop Habit Tracker backups and exports: a backup made by the test with sqlite3 to Loop's
/// schema (version 25), read by `herald habit import` (herald-loop-db, C on the system's SQLite), then exported
/// and imported again.
@Suite(.serialized)
struct HabitImportEndToEndTests {
    /// Six kinds of habit, five of each: (frequency numerator, denominator, numerical, at most).
    static let kinds: [(String, Int, Int, Bool, Bool)] = [
        ("Daily", 1, 1, false, false), ("Thrice weekly", 3, 7, false, false), ("Every third day", 1, 3, false, false),
        ("Ten a month", 10, 30, false, false), ("Glasses", 1, 1, true, false), ("Coffee limit", 1, 7, true, true),
    ]

    struct Generated {
        var sql = ""
        /// Per habit name: Loop values by day number.
        var entries: [String: [Int64: Int]] = [:]
        var numerical: Set<String> = []
    }

    /// A year of history for 30 habits, from a fixed seed.
    static func generate(today: LocalDate) -> Generated {
        var g = Generated()
        var seed: UInt64 = 0x5EED
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        g.sql = """
            CREATE TABLE Habits (id integer primary key autoincrement, archived integer, color integer, description text,
              freq_den integer, freq_num integer, highlight integer, name text, position integer, reminder_hour integer,
              reminder_min integer, reminder_days integer not null default 127, type integer not null default 0,
              target_type integer not null default 0, target_value real not null default 0, unit text not null default "",
              question text, uuid text);
            CREATE TABLE Repetitions (id integer primary key autoincrement, habit integer not null references habits(id),
              timestamp integer not null, value integer not null, notes text);
            CREATE UNIQUE INDEX idx_repetitions_habit_timestamp on Repetitions(habit, timestamp);
            CREATE TABLE Events (id integer primary key autoincrement, timestamp integer, message text, server_id integer);
            PRAGMA user_version = 25;
            BEGIN;

            """
        var id = 0
        for (kind, num, den, numerical, atMost) in kinds {
            for k in 1...5 {
                id += 1
                let name = "\(kind) \(k)"
                let reminder = k == 2 ? "NULL, NULL, 0" : k == 3 ? "7, 30, 21" : "\(8 + k), 15, 127"  // 21: Sat, Mon, Wed
                let archived = kind == "Daily" && k == 5 ? 1 : 0
                g.sql += "INSERT INTO Habits VALUES (\(id), \(archived), \(k), 'made by the test', \(den), \(num), 0, '\(name)', \(id - 1), \(reminder), \(numerical ? 1 : 0), \(atMost ? 1 : 0), \(numerical ? (atMost ? "20.0" : "8.0") : "0"), '\(numerical ? (atMost ? "cups" : "glasses") : "")', 'Did you?', '\(String(format: "%032x", id))');\n"
                if numerical { g.numerical.insert(name) }
                var values: [Int64: Int] = [:]
                for back in 1...365 {
                    let day = today.adding(days: -back).dayNumber
                    let roll = next(100)
                    let value: Int?
                    if numerical {
                        value = roll < 8 ? 3 : roll < 75 ? (1 + next(24)) * 500 : nil
                    } else {
                        value = roll < 6 ? 3 : roll < 10 ? 0 : roll < 60 ? 2 : nil
                    }
                    guard let value else { continue }
                    values[day] = value
                    g.sql += "INSERT INTO Repetitions (habit, timestamp, value) VALUES (\(id), \(day * 86_400_000), \(value));\n"
                }
                g.entries[name] = values
            }
        }
        g.sql += "COMMIT;\n"
        return g
    }

    func exportFiles(_ dir: String) throws -> [String: String] {
        var files: [String: String] = [:]
        let e = FileManager.default.enumerator(atPath: dir)
        while let path = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + path, isDirectory: &isDir), !isDir.boolValue {
                files[path] = try String(contentsOfFile: dir + "/" + path, encoding: .utf8)
            }
        }
        return files
    }

    @Test func aLoopBackupImportsWithEveryKindAndAYearOfHistoryAndRoundTrips() throws {
        let scene = try Scene(server: false)
        let today = LocalDate(SystemClock().now, in: try TimeZoneRules.named("Europe/Berlin"))
        let generated = Self.generate(today: today)
        let db = scene.directory + "/Loop Habits Backup 2026-11-20 101500.db"
        let made = try runCommand("/usr/bin/sqlite3", [db], environment: [:], stdin: generated.sql)
        #expect(made.status == 0, "\(made.stderr)")

        let dry = try scene.herald("habit", "import", "--dry-run", db)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(scene.files("new").isEmpty && scene.files("habits").isEmpty)  // a dry run writes nothing
        let imported = try scene.herald("habit", "import", db)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasSuffix("Imported 30 habits from \(db)\n"))
        #expect(imported.stdout.contains("Importing 'Thrice weekly 1' (thrice-weekly-1): 3 times a week, "))
        #expect(imported.stdout.contains("Importing 'Coffee limit 1' (coffee-limit-1): every 7 days, at most 20 cups, "))
        #expect(imported.stdout.contains("'Daily 2' (daily-2): daily, ") && imported.stdout.contains("no reminder in Loop: reminds daily at 09:00"))
        #expect(imported.stdout.contains("archived in Loop: paused"))

        let list = try JSONSerialization.jsonObject(with: Data(try scene.herald("habit", "list", "--json").stdout.utf8)) as! [[String: Any]]
        let byName = Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as! String, $0) })
        #expect(byName.count == 30)
        #expect(byName["Daily 3"]?["every"] as? String == "Mon,Wed,Sat 07:30")
        #expect(byName["Daily 1"]?["every"] as? String == "*-*-* 09:15")
        #expect(byName["Ten a month 4"]?["times"] as? String == "10/month")
        #expect(byName["Every third day 1"]?["times"] as? String == "1/3days")
        #expect(byName["Glasses 2"]?["target"] as? Double == 8 && byName["Glasses 2"]?["unit"] as? String == "glasses")
        #expect(byName["Coffee limit 5"]?["targetType"] as? String == "at-most")
        #expect(byName["Daily 5"]?["paused"] as? Bool == true)

        // The history as exported equals what the backup holds, day by day.
        let first = scene.directory + "/export-1"
        #expect(try scene.herald("habit", "export", "--csv", first).status == 0)
        let files = try exportFiles(first)
        #expect(files["Habits.csv"]?.hasPrefix(LoopCSV.habitsHeader + "\n001,Coffee limit 1,NUMERICAL,Did you?,,1,7,#00897B,cups,AT_MOST,20.0,false\n") == true)
        for (index, name) in byName.keys.sorted(by: { $0.lowercased() < $1.lowercased() }).enumerated() {
            let path = LoopCSV.folder(index: index, name: name) + "/Checkmarks.csv"
            let text = try #require(files[path], "\(path)")
            var exported: [Int64: Int] = [:]
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: ",", omittingEmptySubsequences: false)
                let day = LocalDate(parsing: String(f[0]))!.dayNumber
                let words = ["YES_MANUAL": 2, "YES_AUTO": 1, "NO": 0, "SKIP": 3, "UNKNOWN": -1]
                exported[day] = words[String(f[1])] ?? Int(f[1])!
            }
            var expected = generated.entries[name]!.filter { $0.value == 3 || (generated.numerical.contains(name) ? $0.value > 3 : $0.value == 2) }
            if name == "Daily 5" { expected[today.dayNumber] = 3 }  // paused from today: a skipped day to Loop
            let kept = exported.filter { $0.value == 3 || (generated.numerical.contains(name) ? $0.value > 3 : $0.value == 2) }
            #expect(kept == expected, "\(name)")
        }

        // Export → import into another spool → export: the same files.
        let other = try Scene(server: false)
        let again = try other.herald("habit", "import", first)
        #expect(again.status == 0, "\(again.stderr)")
        let second = other.directory + "/export-2"
        #expect(try other.herald("habit", "export", "--csv", second).status == 0)
        let secondFiles = try exportFiles(second)
        #expect(secondFiles.keys.sorted() == files.keys.sorted())
        for (path, text) in files { #expect(secondFiles[path] == text, "\(path)") }
    }

    @Test func whatCannotBeMappedIsRefusedAndNothingIsImported() throws {
        let scene = try Scene(server: false)
        let db = scene.directory + "/bad.db"
        var sql = Self.generate(today: LocalDate(parsing: "2026-11-23")!).sql
        sql = sql.replacingOccurrences(of: "COMMIT;", with: "UPDATE Habits SET target_value = 0 WHERE name = 'Glasses 3';\nCOMMIT;")
        #expect(try runCommand("/usr/bin/sqlite3", [db], environment: [:], stdin: sql).status == 0)
        let r = try scene.herald("habit", "import", db)
        #expect(r.status == 65)
        #expect(r.stderr == "herald: '\(db)': habit 'Glasses 3': a numerical target of 0 cannot be kept (Herald needs a target above 0) (nothing imported)\n")
        #expect(scene.files("new").isEmpty && scene.files("habits").isEmpty)

        let notLoop = scene.directory + "/other.db"
        #expect(try runCommand("/usr/bin/sqlite3", [notLoop], environment: [:], stdin: "CREATE TABLE t (x);").status == 0)
        let other = try scene.herald("habit", "import", notLoop)
        #expect(other.stderr == "herald: \(notLoop): no Habits and Repetitions tables: not a Loop Habit Tracker backup (nothing imported)\n")
        // A hostile backup: an oversized name is refused by the reader with the column and the
        // bound; a view posing as a table does not count (views are off in the reader).
        let huge = scene.directory + "/huge.db"
        var hostile = Self.generate(today: LocalDate(parsing: "2026-11-23")!).sql
        hostile = hostile.replacingOccurrences(of: "COMMIT;", with: "UPDATE Habits SET name = printf('%.*c', 70000, 'x') WHERE id = 1;\nCOMMIT;")
        #expect(try runCommand("/usr/bin/sqlite3", [huge], environment: [:], stdin: hostile).status == 0)
        let refused = try scene.herald("habit", "import", huge)
        #expect(refused.status == 65)
        #expect(refused.stderr == "herald: \(huge): habit column 'name' holds 70000 bytes; Herald reads at most 65536 (nothing imported)\n")
        let viewed = scene.directory + "/view.db"
        #expect(try runCommand("/usr/bin/sqlite3", [viewed], environment: [:],
                               stdin: "PRAGMA user_version = 25; CREATE TABLE Repetitions (habit, timestamp, value); CREATE TABLE t (x); CREATE VIEW Habits AS SELECT x FROM t;").status == 0)
        #expect(try scene.herald("habit", "import", viewed).stderr == "herald: \(viewed): no Habits and Repetitions tables: not a Loop Habit Tracker backup (nothing imported)\n")
        #expect(scene.files("habits").isEmpty)

        let text = scene.directory + "/notes.txt"
        try "hello\n".write(toFile: text, atomically: true, encoding: .utf8)
        #expect(try scene.herald("habit", "import", text).stderr == "herald: \(text): not an SQLite database (a Loop backup is one) (nothing imported)\n")

        // A name already taken refuses the whole import.
        #expect(try scene.herald("habit", "add", "Daily 4", "--every", "daily").status == 0)
        let good = scene.directory + "/good.db"
        #expect(try runCommand("/usr/bin/sqlite3", [good], environment: [:], stdin: Self.generate(today: LocalDate(parsing: "2026-11-23")!).sql).status == 0)
        let taken = try scene.herald("habit", "import", good)
        #expect(taken.stderr == "herald: '\(good)': a habit named 'Daily 4' exists already; remove or rename it first (nothing imported)\n")
        #expect(scene.files("habits").isEmpty)
    }
}
