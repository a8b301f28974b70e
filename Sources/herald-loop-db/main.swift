// Reads a Loop Habit Tracker backup (SQLite) and prints its habits and repetitions as JSON for
// `herald habit import`. A program of its own so that `herald` itself stays free of SQLite
// and full Foundation (its start-up time, BENCHMARKS.md "CLI start").
import Foundation
import GRDB

/// Loop's newest schema version (Constants.DATABASE_VERSION); its importer takes 8...25.
let newestSchema = 25

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("herald-loop-db: \(message)\n".utf8))
    exit(65)
}

let arguments = CommandLine.arguments
guard arguments.count == 2, !arguments[1].hasPrefix("-") else {
    FileHandle.standardError.write(Data("usage: herald-loop-db FILE.db (prints the backup's habits as JSON)\n".utf8))
    exit(64)
}
let path = arguments[1]
guard let handle = FileHandle(forReadingAtPath: path) else { fail("\(path): cannot be opened") }
let magic = handle.readData(ofLength: 16)
handle.closeFile()
guard magic.starts(with: Data("SQLite format 3".utf8)) else { fail("\(path): not an SQLite database (a Loop backup is one)") }

var configuration = Configuration()
configuration.readonly = true
do {
    let db = try DatabaseQueue(path: path, configuration: configuration)
    let output: [String: Any] = try db.read { db in
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('Habits', 'Repetitions')")
        guard Set(tables) == ["Habits", "Repetitions"] else {
            fail("\(path): no Habits and Repetitions tables: not a Loop Habit Tracker backup")
        }
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard (8...newestSchema).contains(version) else {
            fail("\(path): Loop schema version \(version); Herald reads versions 8 to \(newestSchema)")
        }
        let columns = Set(try db.columns(in: "Habits").map(\.name))
        for needed in ["id", "name", "freq_num", "freq_den", "archived", "position"] where !columns.contains(needed) {
            fail("\(path): the Habits table has no '\(needed)' column")
        }
        func column(_ name: String) -> String { columns.contains(name) ? name : "NULL AS \(name)" }
        let wanted = ["id", "name", "question", "description", "freq_num", "freq_den", "type", "target_type", "target_value",
                      "unit", "archived", "position", "reminder_hour", "reminder_min", "reminder_days"]
        var habits: [[String: Any]] = []
        var repetitions: [Int64: [[Any]]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT habit, timestamp, value FROM Repetitions ORDER BY habit, timestamp") {
            let habit: Int64 = row["habit"]
            repetitions[habit, default: []].append([row["timestamp"] as Int64, row["value"] as Int64])
        }
        for row in try Row.fetchAll(db, sql: "SELECT \(wanted.map(column).joined(separator: ", ")) FROM Habits ORDER BY position") {
            var habit: [String: Any] = [:]
            for name in wanted {
                let value = row[name] as DatabaseValue
                switch value.storage {
                case .int64(let n): habit[name] = n
                case .double(let x): habit[name] = x
                case .string(let s): habit[name] = s
                case .null, .blob: break
                }
            }
            let id: Int64 = row["id"]
            habit["repetitions"] = repetitions[id] ?? []
            habits.append(habit)
        }
        return ["schema": version, "habits": habits]
    }
    let data = try JSONSerialization.data(withJSONObject: output, options: [.sortedKeys])
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
} catch let error as DatabaseError {
    fail("\(path): \(error.message ?? "\(error)")")
} catch {
    fail("\(path): \(error)")
}
