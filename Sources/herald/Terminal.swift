#if canImport(Glibc)
import Glibc
#endif
import HeraldCore

/// Colour for people, never for scripts: only when stdout is a terminal, `NO_COLOR` is unset
/// or empty (https://no-color.org) and `TERM` is not `dumb`.
enum Style {
    enum Color: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
    }

    nonisolated(unsafe) static var enabled: Bool = {
        let env = Environment.current()
        if let noColor = env["NO_COLOR"], !noColor.isEmpty { return false }
        if env["TERM"] == "dumb" { return false }
        return isatty(1) == 1
    }()

    static func paint(_ text: String, _ color: Color?) -> String {
        guard enabled, let color, !text.isEmpty else { return text }
        return "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m"
    }
}

/// Left-aligned columns separated by two spaces; the last column is not padded. The first
/// row is a header (bold on a terminal) when `header` is set; `color` picks a colour per
/// cell (row index counts the header), applied after padding so columns stay aligned. Every
/// cell is made visible first (`TextSafety.visible`): cells hold titles and ids from files.
enum Table {
    static func render(_ rows: [[String]], header: Bool = false, color: (Int, Int, String) -> Style.Color? = { _, _, _ in nil }) -> String {
        let rows = rows.map { $0.map { TextSafety.visible($0, whitespace: .spaces) } }
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (k, cell) in row.enumerated() where k < columns - 1 { widths[k] = max(widths[k], cell.count) } }
        return rows.enumerated().map { r, row in
            var line = ""
            var pending = ""  // padding held back so that trailing spaces are dropped
            for (k, cell) in row.enumerated() {
                if !cell.isEmpty {
                    line += pending
                    pending = ""
                    line += Style.paint(cell, header && r == 0 ? .bold : color(r, k, cell))
                }
                if k < row.count - 1 { pending += String(repeating: " ", count: widths[k] - cell.count) + "  " }
            }
            return line
        }.joined(separator: "\n")
    }
}
