/// A habit as Loop Habit Tracker (iSoron/uhabits) stores it, in its backup database and its
/// CSV export: what Herald maps to and from.
public struct LoopHabit: Sendable, Equatable {
    public var name: String
    public var question = ""
    public var description = ""
    public var numerator = 1
    public var denominator = 1
    public var isNumerical = false
    public var targetType: HabitTarget.Kind = .atLeast
    public var targetValue = 0.0
    public var unit = ""
    public var archived = false
    public var position = 0
    /// A reminder: hour, minute and Loop's weekday bits (bit 0 Saturday, bit 1 Sunday ... bit 6 Friday).
    public struct Reminder: Sendable, Equatable {
        public var hour: Int, minute: Int, days: Int
        public init(hour: Int, minute: Int, days: Int) { self.hour = hour; self.minute = minute; self.days = days }
    }
    public var reminder: Reminder?
    /// Loop's entry values by day: 2 done, 3 skipped, 1 filled in, 0 no, -1 unknown; for a
    /// numerical habit the amount × 1000 (3 still means skipped).
    public var entries: [LocalDate: Int] = [:]

    public init(name: String) { self.name = name }

    /// Loop's entry codes.
    public static let yesManual = 2, yesAuto = 1, no = 0, skip = 3, unknown = -1

    static let codeNames = [yesManual: "YES_MANUAL", yesAuto: "YES_AUTO", no: "NO", skip: "SKIP", unknown: "UNKNOWN"]
}

/// Why a Loop file cannot be taken: names the file, the line or habit, and the reason.
public struct LoopImportError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

// MARK: Herald → Loop

extension LoopHabit {
    /// The Loop form of a Herald habit and its log, as of `today`. A paused day is written as
    /// skipped (Loop has no pause); the days Loop fills in are left for Loop to compute.
    public init(job: Job, contents: HabitLog.Contents, history: HabitHistory, position: Int) {
        self.init(name: job.title ?? job.id ?? "habit")
        self.position = position
        question = job.text ?? ""
        let fraction = (job.times ?? .daily).loopFraction
        numerator = fraction.numerator
        denominator = fraction.denominator
        if let t = job.target {
            isNumerical = true
            targetType = t.kind
            targetValue = t.amount
            unit = t.unit
        }
        var days = Set(contents.days).union(contents.skipped).union(contents.amounts.keys)
        if let first = history.first {
            var d = first
            while d <= history.today { if contents.isPaused(on: d) { days.insert(d) }; d = d.adding(days: 1) }
        }
        for day in days where day <= history.today {
            if contents.skipped.contains(day) || contents.isPaused(on: day) {
                entries[day] = Self.skip
            } else if isNumerical {
                // Loop keeps thousandths in an Int; an amount past what that holds is written as the most it holds.
                let milli = (history.amount(on: day) * 1000).rounded()
                entries[day] = milli.isFinite && abs(milli) < 9e15 ? Int(milli) : (milli > 0 ? Int(9e15) : 0)
            } else if contents.days.contains(day) {
                entries[day] = Self.yesManual
            }
        }
    }

    /// The Herald job (not yet given an id) and log entries for this Loop habit. Loop's filled-in
    /// days are recomputed by Herald, "no" and "unknown" days are simply not done.
    public func heraldHabit(now: Instant, zone: TimeZoneRules) throws(LoopImportError) -> (job: Job, log: [HabitLog.Entry], note: String?) {
        let title = name.trimmingSpaces
        guard !title.isEmpty else { throw LoopImportError("habit at position \(position) has no name") }
        // N in M days is counted over a window of M days: a year at most, as `--times` takes it.
        guard numerator >= 1, denominator >= 1, numerator <= denominator, denominator <= 366 else {
            throw LoopImportError("habit '\(title)': frequency \(numerator)/\(denominator) is not one Herald can keep (N times in M days, N ≤ M)")
        }
        var job = Job(kind: .habit, title: title)
        if !question.trimmingSpaces.isEmpty { job.text = question }
        if numerator != denominator {
            job.times = HabitFrequency(loopNumerator: numerator, denominator: denominator)
        } else if let r = reminder, r.days & 0x7F != 0x7F {
            job.times = .daily  // Loop expects every day, whatever days it reminds on
        }
        if isNumerical {
            guard targetValue > 0, targetValue <= 1_000_000 else {
                throw LoopImportError("habit '\(title)': a numerical target of \(HabitTarget.format(targetValue)) cannot be kept (Herald needs a target above 0)")
            }
            guard numerator == 1 || numerator == denominator else {
                throw LoopImportError("habit '\(title)': a numerical habit counted \(numerator) times in \(denominator) days cannot be kept (Herald counts an amount per period)")
            }
            job.target = HabitTarget(amount: targetValue, unit: String(unit.prefix(32)), kind: targetType)
        }
        var note: String?
        if let r = reminder, (0...23).contains(r.hour), (0...59).contains(r.minute), r.days & 0x7F != 0 {
            job.every = [Self.calendar(hour: r.hour, minute: r.minute, days: r.days)]
        } else {
            job.every = ["*-*-* 09:00"]
            note = "no reminder in Loop: reminds daily at 09:00"
        }
        var log: [HabitLog.Entry] = []
        for (day, value) in entries.sorted(by: { $0.key < $1.key }) {
            if value == Self.skip {
                log.append(HabitLog.Entry(date: day, change: .skip(true), at: now, by: "import"))
            } else if isNumerical {
                if value > 0 { log.append(HabitLog.Entry(date: day, change: .amount(Double(value) / 1000), at: now, by: "import")) }
            } else if value == Self.yesManual {
                log.append(HabitLog.Entry(date: day, change: .done(true), at: now, by: "import"))
            }
        }
        if archived {
            log.append(HabitLog.Entry(date: LocalDate(now, in: zone), change: .pause(true), at: now, by: "import"))
            note = [note, "archived in Loop: paused"].compactMap { $0 }.joined(separator: "; ")
        }
        return (job, log, note)
    }

    /// A calendar expression for Loop's reminder: "Mon,Wed,Fri 07:30" or "*-*-* 07:30".
    static func calendar(hour: Int, minute: Int, days: Int) -> String {
        let time = ISO8601.pad(hour, 2) + ":" + ISO8601.pad(minute, 2)
        if days & 0x7F == 0x7F { return "*-*-* " + time }
        // Loop's bit k is Saturday + k days; Herald's weekday 0 is Monday.
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let chosen = (0..<7).filter { days & (1 << (($0 + 2) % 7)) != 0 }.map { names[$0] }
        return chosen.joined(separator: ",") + " " + time
    }
}

// MARK: CSV

/// Loop Habit Tracker's CSV export (version 2.3): `Habits.csv`, a folder per habit
/// (`001 Name/Checkmarks.csv`, `Scores.csv`) and all habits side by side in the top-level
/// `Checkmarks.csv` and `Scores.csv`.
public enum LoopCSV {
    public static let habitsHeader = "Position,Name,Type,Question,Description,FrequencyNumerator,FrequencyDenominator,Color,Unit,Target Type,Target Value,Archived?"
    /// The older export's header (Loop 2.2 and before).
    static let oldHabitsHeader = "Position,Name,Question,Description,NumRepetitions,Interval,Color"
    /// Herald keeps no colour; Loop's teal.
    static let colour = "#00897B"

    /// A field quoted as opencsv does: only when it holds a comma, a quote or a line break.
    static func field(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingQuotes() + "\""
    }

    /// The folder of the habit at `index` (0-based): "001 Drink water", keeping Loop's characters.
    public static func folder(index: Int, name: String) -> String {
        let kept = name.unicodeScalars.filter {
            ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || " ._-".unicodeScalars.contains($0)
        }
        return (ISO8601.pad(index + 1, 3) + " " + String(String.UnicodeScalarView(kept.prefix(100)))).trimmingSpaces
    }

    static func loopDouble(_ x: Double) -> String {
        let s = HabitTarget.format(x)
        return s.contains(".") ? s : s + ".0"
    }

    /// Four decimals, as Loop writes scores.
    static func score(_ x: Double) -> String {
        let n = Int64((x * 10_000).rounded())
        return String(n / 10_000) + "." + ISO8601.pad(Int(n % 10_000), 4)
    }

    /// The value text of one checkmark: Loop's word for the codes, else the number.
    static func value(_ v: Int) -> String { LoopHabit.codeNames[v] ?? String(v) }

    /// The files of an export, by path relative to the export folder.
    /// - Parameters:
    ///   - habits: each habit with its computed marks and scores (newest first, from today back).
    public static func export(_ habits: [(habit: LoopHabit, history: HabitHistory)]) -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        var list = habitsHeader + "\n"
        for (k, (h, _)) in habits.enumerated() {
            list += [ISO8601.pad(k + 1, 3), field(h.name), h.isNumerical ? "NUMERICAL" : "YES_NO", field(h.question), field(h.description),
                     String(h.numerator), String(h.denominator), colour, h.isNumerical ? field(h.unit) : "",
                     h.isNumerical ? (h.targetType == .atLeast ? "AT_LEAST" : "AT_MOST") : "",
                     h.isNumerical ? loopDouble(h.targetValue) : "", h.archived ? "true" : "false"].joined(separator: ",") + "\n"
        }
        files.append(("Habits.csv", list))
        var columns: [[LocalDate: (mark: String, score: String)]] = []
        var oldest: LocalDate?
        var today: LocalDate?
        for (k, (h, history)) in habits.enumerated() {
            let dir = folder(index: k, name: h.name)
            var marks = "Date,Value,Notes\n", scores = "Date,Score\n"
            var column: [LocalDate: (String, String)] = [:]
            today = history.today
            if let first = history.first {
                let series = history.scores(through: history.today)
                var d = history.today
                while d >= first {
                    let v = computedValue(h, history, d)
                    let s = score(series[Int(d.dayNumber - first.dayNumber)])
                    if v != LoopHabit.unknown || h.entries[d] != nil { marks += d.description + "," + value(v) + ",\n" }
                    scores += d.description + "," + s + "\n"
                    column[d] = (String(v), s)
                    d = d.adding(days: -1)
                }
            }
            if let e = h.entries.keys.min() { oldest = min(oldest ?? e, e) }
            columns.append(column)
            files.append((dir + "/Checkmarks.csv", marks))
            files.append((dir + "/Scores.csv", scores))
        }
        let header = "Date," + habits.map { $0.habit.name + "," }.joined() + "\n"
        var allMarks = header, allScores = header
        if let oldest, var d = today {
            while d >= oldest {
                allMarks += d.description + "," + columns.map { ($0[d]?.mark ?? "-1") + "," }.joined() + "\n"
                allScores += d.description + "," + columns.map { ($0[d]?.score ?? "0.0000") + "," }.joined() + "\n"
                d = d.adding(days: -1)
            }
        }
        files.append(("Scores.csv", allScores))
        files.append(("Checkmarks.csv", allMarks))
        return files
    }

    /// A day's value as Loop computes it: filled-in days for frequencies, amounts for numbers.
    static func computedValue(_ h: LoopHabit, _ history: HabitHistory, _ d: LocalDate) -> Int {
        if h.isNumerical { return h.entries[d] ?? LoopHabit.unknown }
        if let e = h.entries[d], e == LoopHabit.yesManual || e == LoopHabit.skip { return e }
        return history.mark(on: d) == .yesAuto ? LoopHabit.yesAuto : LoopHabit.unknown
    }

    // MARK: Reading

    /// Splits CSV text into rows of fields (RFC 4180 quoting, CRLF or LF).
    static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = ""
        var quoted = false, wasQuoted = false
        var it = Array(text.unicodeScalars)[...]
        while let c = it.popFirst() {
            if quoted {
                if c == "\"" {
                    if it.first == "\"" { field.unicodeScalars.append("\""); it.removeFirst() } else { quoted = false }
                } else { field.unicodeScalars.append(c) }
            } else if c == "\"" && field.isEmpty && !wasQuoted {
                quoted = true; wasQuoted = true
            } else if c == "," {
                row.append(field); field = ""; wasQuoted = false
            } else if c == "\n" || c == "\r" {
                if c == "\r", it.first == "\n" { it.removeFirst() }
                row.append(field); field = ""; wasQuoted = false
                rows.append(row); row = []
            } else { field.unicodeScalars.append(c) }
        }
        if !field.isEmpty || !row.isEmpty || wasQuoted { row.append(field); rows.append(row) }
        return rows
    }

    /// Reads an export folder: `Habits.csv` and each habit's `Checkmarks.csv`.
    /// - Parameter read: gives a file's text by path relative to the folder, nil when absent.
    public static func read(_ read: (String) throws(LoopImportError) -> String?) throws(LoopImportError) -> [LoopHabit] {
        guard let list = try read("Habits.csv") else { throw LoopImportError("Habits.csv: not found (is this a Loop CSV export folder?)") }
        let rows = rows(list)
        guard let header = rows.first?.joined(separator: ",") else { throw LoopImportError("Habits.csv: empty") }
        let modern = header == habitsHeader
        guard modern || header == oldHabitsHeader else {
            throw LoopImportError("Habits.csv: line 1 is not Loop's header (\(habitsHeader))")
        }
        var habits: [LoopHabit] = []
        for (k, r) in rows.dropFirst().enumerated() where !(r.count == 1 && r[0].isEmpty) {
            let line = k + 2
            guard r.count == (modern ? 12 : 7) else {
                throw LoopImportError("Habits.csv: line \(line) has \(r.count) fields, not \(modern ? 12 : 7)")
            }
            var h = LoopHabit(name: r[1])
            guard let position = Int(r[0]), let num = Int(r[modern ? 5 : 4]), let den = Int(r[modern ? 6 : 5]) else {
                throw LoopImportError("Habits.csv: line \(line): position or frequency is not a number")
            }
            // Bounded so position − 1 and the folder number cannot overflow.
            guard (1...99_999).contains(position) else {
                throw LoopImportError("Habits.csv: line \(line): position '\(r[0])' is out of range: from 1 to 99999")
            }
            h.position = position - 1
            h.numerator = num
            h.denominator = den
            h.question = r[modern ? 3 : 2]
            h.description = r[modern ? 4 : 3]
            if modern {
                switch r[2] {
                case "YES_NO": break
                case "NUMERICAL": h.isNumerical = true
                default: throw LoopImportError("Habits.csv: line \(line): type '\(r[2])' is not YES_NO or NUMERICAL")
                }
                if h.isNumerical {
                    h.unit = r[8]
                    switch r[9] {
                    case "AT_LEAST": h.targetType = .atLeast
                    case "AT_MOST": h.targetType = .atMost
                    default: throw LoopImportError("Habits.csv: line \(line): target type '\(r[9])' is not AT_LEAST or AT_MOST")
                    }
                    guard let target = Double(r[10]) else { throw LoopImportError("Habits.csv: line \(line): target value '\(r[10])' is not a number") }
                    h.targetValue = target
                }
                h.archived = r[11] == "true"
            }
            let file = folder(index: position - 1, name: h.name) + "/Checkmarks.csv"
            guard let marks = try read(file) else { throw LoopImportError("\(file): not found") }
            for (j, m) in self.rows(marks).enumerated() where !(m.count == 1 && m[0].isEmpty) {
                if j == 0 && m.first == "Date" { continue }
                guard m.count >= 2, let day = LocalDate(parsing: m[0]) else {
                    throw LoopImportError("\(file): line \(j + 1) is not a date and a value")
                }
                guard let v = Int(m[1]) ?? LoopHabit.codeNames.first(where: { $0.value == m[1] })?.key else {
                    throw LoopImportError("\(file): line \(j + 1): '\(m[1])' is not a checkmark value")
                }
                h.entries[day] = v
            }
            habits.append(h)
        }
        return habits
    }
}

extension String {
    func replacingQuotes() -> String {
        var out = ""
        for c in self { out += c == "\"" ? "\"\"" : String(c) }
        return out
    }
}

// MARK: Backup database

extension LoopHabit {
    /// Reads the JSON that `herald-loop-db` prints for a Loop backup database.
    public static func fromBackupJSON(_ data: [UInt8], zone: TimeZoneRules) throws(LoopImportError) -> [LoopHabit] {
        guard let value = try? JSONValue.parse(data), case .object(let o) = value, case .array(let list)? = o["habits"] else {
            throw LoopImportError("the database reader's output is not the expected JSON")
        }
        var habits: [LoopHabit] = []
        for entry in list {
            guard case .object(let h) = entry else { continue }
            func text(_ k: String) -> String { if case .string(let s)? = h[k] { return s }; return "" }
            func int(_ k: String) -> Int? { if case .number(let n)? = h[k], n == n.rounded(), abs(n) < 1e15 { return Int(n) }; return nil }
            func number(_ k: String) -> Double { if case .number(let n)? = h[k] { return n }; return 0 }
            var habit = LoopHabit(name: text("name"))
            habit.question = text("question")
            habit.description = text("description")
            habit.numerator = int("freq_num") ?? 1
            habit.denominator = int("freq_den") ?? 1
            habit.isNumerical = int("type") == 1
            habit.targetType = int("target_type") == 1 ? .atMost : .atLeast
            habit.targetValue = number("target_value")
            habit.unit = text("unit")
            habit.archived = (int("archived") ?? 0) != 0
            habit.position = int("position") ?? habits.count
            if let hour = int("reminder_hour"), let minute = int("reminder_min") {
                habit.reminder = Reminder(hour: hour, minute: minute, days: int("reminder_days") ?? 127)
            }
            if case .array(let reps)? = h["repetitions"] {
                for r in reps {
                    guard case .array(let pair) = r, pair.count == 2, case .number(let ms) = pair[0], case .number(let v) = pair[1] else {
                        throw LoopImportError("habit '\(habit.name)': a repetition is not a timestamp and a value")
                    }
                    // Loop stores the local day as that day's midnight in UTC, in milliseconds;
                    // both numbers are checked before they become integers (years 1 to 9999).
                    guard ms.isFinite, ms >= -62_135_596_800_000, ms < 253_402_300_800_000 else {
                        throw LoopImportError("habit '\(habit.name)': repetition time '\(ms)' is out of range: years 1 to 9999")
                    }
                    guard v.isFinite, v == v.rounded(), abs(v) < 1e15 else {
                        throw LoopImportError("habit '\(habit.name)': repetition value '\(v)' is not a whole number below 10^15")
                    }
                    habit.entries[LocalDate(dayNumber: Int64((ms / 86_400_000).rounded(.down)))] = Int(v)
                }
            }
            habits.append(habit)
        }
        return habits.sorted { $0.position < $1.position }
    }
}
