/// Pictures of a habit's history for the terminal: a heat map of the last weeks (weekdays down,
/// weeks across, like Loop's history card) and a month calendar. With colour each day is a
/// coloured square; without (NO_COLOR, a pipe) a character says the same.
public struct HabitView {
    public let history: HabitHistory
    public let colored: Bool

    public init(history: HabitHistory, colored: Bool) { self.history = history; self.colored = colored }

    /// What a day was.
    public enum Cell: Equatable, Sendable {
        /// Done by hand, or a measurable target met.
        case done
        /// Part of a target: Loop's filled-in day for a frequency, or some of a measurable amount.
        case partial
        case skipped
        /// Scheduled, in the past, not done.
        case missed
        /// Before the first record, after today, or not scheduled.
        case none
    }

    public func cell(_ day: LocalDate) -> Cell {
        let today = history.today
        guard day <= today, let first = history.first, day >= first else {
            return day < today && history.contents.skipped.contains(day) ? .skipped : .none
        }
        if history.isMet(day) { return .done }
        if history.contents.skipped.contains(day) || history.contents.isPaused(on: day) { return .skipped }
        if !history.isScheduled(day) { return .none }
        if history.rules.target != nil {
            return history.amount(on: day) > 0 ? .partial : (day == today ? .none : .missed)
        }
        if history.mark(on: day) == .yesAuto { return .partial }
        return day == today ? .none : .missed
    }

    /// Plain characters: `#` done, `+` partly, `-` skipped or paused, `.` missed.
    static func character(_ cell: Cell) -> String {
        switch cell {
        case .done: return "#"
        case .partial: return "+"
        case .skipped: return "-"
        case .missed: return "."
        case .none: return " "
        }
    }

    /// 256-colour foregrounds: green, pale green, slate blue, dark grey.
    static func colour(_ cell: Cell) -> String? {
        switch cell {
        case .done: return "38;5;34"
        case .partial: return "38;5;114"
        case .skipped: return "38;5;67"
        case .missed: return "38;5;239"
        case .none: return nil
        }
    }

    func paint(_ text: String, _ code: String?) -> String {
        guard colored, let code else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    func square(_ cell: Cell) -> String {
        guard colored else { return Self.character(cell) }
        return cell == .none ? " " : paint("■", Self.colour(cell))
    }

    static let weekdayNames = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"]
    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]

    /// The last `weeks` weeks up to today: a row per weekday (from the configured first one), a
    /// column per week, month names above the week each month starts in.
    public func heatMap(weeks: Int = 20) -> String {
        let today = history.today
        let weekStart = history.rules.weekStart
        let thisWeek = today.adding(days: -((today.weekday - weekStart + 7) % 7))
        let firstWeek = thisWeek.adding(days: -7 * (weeks - 1))
        // Month labels: three letters over the column of the week in which the month begins.
        var header = [Character](repeating: " ", count: 3 + 2 * weeks)
        var lastLabelEnd = 0
        for w in 0..<weeks {
            let start = firstWeek.adding(days: 7 * w)
            let c = start.adding(days: 6).components
            let begins = w == 0 || start.components.month != c.month || start.components.day == 1
            let column = 3 + 2 * w
            if begins, column >= lastLabelEnd {
                let label = Array(Self.monthNames[c.month - 1].prefix(3))
                for (k, ch) in label.enumerated() where column + k < header.count { header[column + k] = ch }
                lastLabelEnd = column + label.count + 1
            }
        }
        var lines = [String(header).trimmedTrailing]
        for row in 0..<7 {
            var line = Self.weekdayNames[(weekStart + row) % 7] + " "
            for w in 0..<weeks {
                let day = firstWeek.adding(days: 7 * w + row)
                line += square(day > today ? .none : cell(day)) + (w < weeks - 1 ? " " : "")
            }
            lines.append(line.trimmedTrailing)
        }
        return lines.joined(separator: "\n")
    }

    /// The month holding `day` as a calendar, each day followed by its mark.
    public func month(containing day: LocalDate) -> String {
        let c = day.components
        let first = LocalDate(year: c.year, month: c.month, day: 1)
        let length = CivilCalendar.daysInMonth(year: c.year, month: c.month)
        let weekStart = history.rules.weekStart
        let title = "\(Self.monthNames[c.month - 1]) \(c.year)"
        let width = 7 * 4 - 1
        var lines = [String(repeating: " ", count: max(0, (width - title.count) / 2)) + title]
        lines.append((0..<7).map { " " + Self.weekdayNames[(weekStart + $0) % 7] + " " }.joined().trimmedTrailing)
        var line = String(repeating: "    ", count: (first.weekday - weekStart + 7) % 7)
        for d in 1...length {
            let date = first.adding(days: d - 1)
            let cell = cell(date)
            let number = (d < 10 ? " " : "") + String(d)
            line += paint(number, Self.colour(cell)) + (colored ? (cell == .none ? " " : paint(Self.character(cell), Self.colour(cell))) : Self.character(cell)) + " "
            if (date.weekday - weekStart + 7) % 7 == 6 || d == length {
                lines.append(line.trimmedTrailing)
                line = ""
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The key to the characters or colours.
    public var legend: String {
        [(Cell.done, "done"), (.partial, history.rules.target != nil ? "some" : "covered"), (.skipped, "skipped/paused"),
         (.missed, "missed")].map { square($0.0) + " " + $0.1 }.joined(separator: "  ")
    }
}

extension String {
    var trimmedTrailing: String {
        var s = self
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }
}
