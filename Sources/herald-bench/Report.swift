import Foundation
import Histogram

/// Raw samples in microseconds, summarised with an HdrHistogram (3 significant digits).
struct Samples {
    private(set) var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    private(set) var raw: [Int64] = []

    mutating func record(microseconds: Int64) {
        raw.append(microseconds)
        _ = histogram.record(UInt64(Swift.max(0, microseconds)))
    }

    var count: Int { raw.count }
    /// Samples below zero (a popup before its due time): reported, never hidden.
    var negative: Int { raw.filter { $0 < 0 }.count }
    var p50: Double { Double(histogram.valueAtPercentile(50)) }
    var p99: Double { Double(histogram.valueAtPercentile(99)) }
    /// The true maximum of the raw samples (the histogram's is rounded to its precision).
    var max: Double { Double(raw.max() ?? 0) }
    /// The true minimum of the raw samples.
    var min: Double { Double(raw.min() ?? 0) }
    var median: Double { p50 }
}

/// One line of the table.
struct Figure {
    var name: String
    var how: String
    var result: String
    var target: String
    /// nil when the figure is informational or the run was a smoke run.
    var met: Bool?
}

/// Formatting of durations and sizes for the table.
enum Format {
    static func ms(_ microseconds: Double) -> String {
        let v = microseconds / 1000
        return v < 10 ? String(format: "%.2f ms", v) : v < 100 ? String(format: "%.1f ms", v) : String(format: "%.0f ms", v)
    }

    static func seconds(_ microseconds: Double) -> String { String(format: "%.2f s", microseconds / 1_000_000) }

    static func mib(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }

    static func count(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (k, c) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }
}

/// The table, the machine it ran on, and BENCHMARKS.md.
struct Report {
    var figures: [Figure]
    var notes: [String]
    var machine: String
    var date: String
    var command: String
    var smoke: Bool

    var table: String {
        var lines = ["| figure | how | result | target | |", "|---|---|---|---|---|"]
        for f in figures {
            let verdict = f.met.map { $0 ? "met" : "**missed**" } ?? "—"
            lines.append("| \(f.name) | \(f.how) | \(f.result) | \(f.target) | \(verdict) |")
        }
        return lines.joined(separator: "\n")
    }

    var section: String {
        var text = """
        Run on \(date) by `\(command)`.

        Machine: \(machine).


        """
        if smoke { text += "**Smoke run**: a reduced workload that checks the benchmark works; its figures are not judged.\n\n" }
        text += table + "\n"
        if !notes.isEmpty { text += "\n" + notes.map { "- " + $0 }.joined(separator: "\n") + "\n" }
        return text
    }

    static let begin = "<!-- herald-bench: begin (written by herald-bench; edits between these lines are replaced) -->"
    static let end = "<!-- herald-bench: end -->"

    /// Replaces the section between the markers in `path` (creating the file if needed),
    /// keeping everything outside them.
    func write(to path: String) throws {
        let fresh = Report.begin + "\n" + section + Report.end
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "# Benchmarks\n\n\(Report.begin)\n\(Report.end)\n"
        if let start = text.range(of: Report.begin), let stop = text.range(of: Report.end, range: start.upperBound..<text.endIndex) {
            text.replaceSubrange(start.lowerBound..<stop.upperBound, with: fresh)
        } else {
            text += "\n" + fresh + "\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// "Debian GNU/Linux 12 (bookworm), Linux 6.1.0 x86_64, AMD EPYC 7B13, 2 cores, 7.8 GiB RAM, Swift 6.3.1".
    static func describeMachine(swiftVersion: String?) -> String {
        var parts: [String] = []
        if let os = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
           let line = os.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") }) {
            parts.append(line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        }
        var u = utsname()
        uname(&u)
        func field<T>(_ value: inout T) -> String { withUnsafeBytes(of: &value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
        parts.append("Linux \(field(&u.release)) \(field(&u.machine))")
        if let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let model = cpu.split(separator: "\n").first(where: { $0.hasPrefix("model name") })?.split(separator: ":").last {
            parts.append(model.trimmingCharacters(in: .whitespaces))
        }
        parts.append("\(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores")
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        parts.append(String(format: "%.1f GiB RAM", Double(pages) * Double(size) / 1_073_741_824))
        if let swiftVersion { parts.append(swiftVersion) }
        return parts.joined(separator: ", ")
    }
}
