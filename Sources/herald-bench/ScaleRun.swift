import Foundation
import HeraldCore
import HeraldTestSupport

/// One point of the scale curve (`make bench-scale`): the figures that grow with the queue.
struct ScaleRow: Codable {
    var jobs: Int
    var importSeconds: Double
    var intakeSeconds: Double
    /// file-floor's as many files on the same file system, just before (Floors).
    var intakeFloorSeconds: Double
    var readyMs: Double
    var rssMiB: Double
    var latenessP99Ms: Double
    var latenessMaxMs: Double
    /// notify-floor's p99 over the same instants, right after.
    var latenessFloorP99Ms: Double
    /// Medians (ms) of the CLI commands, each run `runs` times against the running heraldd.
    var cancelMs: Double
    var showMs: Double
    var snoozeMs: Double
    var rescheduleMs: Double
    var statusMs: Double
    var listHeadMs: Double
    var listNextMs: Double
    var listAllMs: Double
    var listJSONMs: Double?
}

extension BenchRun {
    /// Imports the queue, starts heraldd, restarts it, measures lateness, memory and the CLI.
    func measureScale(runs: Int) throws(BenchError) -> ScaleRow {
        settleDisk()
        let n = plan.jobs
        let queueFile = directory + "/queue.jsonl"
        writeFile(Workload.queue(count: n, start: TimestampingServer.wallClock() + .minutes(120), spread: .minutes(60))
            .joined(separator: "\n") + "\n", to: queueFile)
        let floor = try fileFloor(n)
        settleDisk()
        let importNs = try runHerald(["import", "--spool", spool, queueFile])
        settleDisk()
        // Until the batch is gone from new/: heraldd removes it once every job is in jobs/ and
        // synced. Not until status.json counts them: that count is rewritten at most once a
        // second, which was most of the figure at 1,000 and 10,000 jobs.
        let started = monotonicNanoseconds()
        try startDaemon()
        try waitForIntake(of: n)
        let intake = Double(monotonicNanoseconds() - started) / 1e9
        try waitForPending(n, what: "the \(Format.count(n)) imported jobs")
        try stopDaemon()
        settleDisk()
        let ready = try startDaemon()
        try waitForPending(n, what: "the queue after a restart")
        let fired = try fire()
        let lateness = fired.lateness
        sleep(milliseconds: 500)
        let memory = try rss()

        // The CLI, against the running heraldd. Each single-job command gets an id of its own.
        func median(_ arguments: (Int) -> [String], times: Int) throws(BenchError) -> Double {
            var samples: [Double] = []
            for k in 0..<times { samples.append(Double(try runHerald(arguments(k) + ["--spool", spool])) / 1e6) }
            return samples.sorted()[samples.count / 2]
        }
        func id(_ k: Int, _ slot: Int) -> String { "bench-Q\((k * 5 + slot) * max(n / (runs * 5 + 1), 1))" }
        let show = try median({ ["show", id($0, 0)] }, times: runs)
        let cancel = try median({ ["cancel", id($0, 1)] }, times: runs)
        let snooze = try median({ ["snooze", id($0, 2), "20m"] }, times: runs)
        let reschedule = try median({ ["reschedule", id($0, 3), "--in", "5h"] }, times: runs)
        let status = try median({ _ in ["status"] }, times: runs)
        let head = try median({ _ in ["list", "-n", "20"] }, times: runs)
        let next = try median({ _ in ["list", "--next"] }, times: runs)
        let all = try median({ _ in ["list"] }, times: 3)
        let json = n <= 100_000 ? try median({ _ in ["list", "--json"] }, times: 3) : nil
        return ScaleRow(jobs: n, importSeconds: Double(importNs) / 1e9, intakeSeconds: intake, intakeFloorSeconds: floor, readyMs: Double(ready) / 1e6,
                        rssMiB: Double(memory) / 1024, latenessP99Ms: lateness.p99 / 1000, latenessMaxMs: lateness.max / 1000,
                        latenessFloorP99Ms: fired.floorLateness.p99 / 1000,
                        cancelMs: cancel, showMs: show, snoozeMs: snooze, rescheduleMs: reschedule, statusMs: status,
                        listHeadMs: head, listNextMs: next, listAllMs: all, listJSONMs: json)
    }
}

enum ScaleReport {
    static let begin = "<!-- herald-bench-scale: begin (written by herald-bench --scale; edits between these lines are replaced) -->"
    static let end = "<!-- herald-bench-scale: end -->"

    static func table(_ rows: [ScaleRow], machine: String, date: String, command: String) -> String {
        func ms(_ v: Double) -> String { v >= 100 ? String(format: "%.0f", v) : String(format: "%.1f", v) }
        var lines = ["Run on \(date) by `\(command)`.", "", "Machine: \(machine)", ""]
        lines.append("| jobs | import | intake (file-floor, ratio) | READY after restart | RSS | lateness p99 / max (floor p99) | cancel | show | snooze | reschedule | status | list -n 20 | list --next | list (all) | list --json |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows {
            lines.append("| \(Format.count(r.jobs)) | \(String(format: "%.2f", r.importSeconds)) s | \(String(format: "%.2f", r.intakeSeconds)) s (\(String(format: "%.2f", r.intakeFloorSeconds)) s, \((r.intakeSeconds / r.intakeFloorSeconds).ratioText)) | "
                         + "\(ms(r.readyMs)) ms | \(String(format: "%.1f", r.rssMiB)) MiB | \(String(format: "%.2f", r.latenessP99Ms)) / \(String(format: "%.2f", r.latenessMaxMs)) ms (\(String(format: "%.2f", r.latenessFloorP99Ms))) | "
                         + "\(ms(r.cancelMs)) ms | \(ms(r.showMs)) ms | \(ms(r.snoozeMs)) ms | \(ms(r.rescheduleMs)) ms | \(ms(r.statusMs)) ms | "
                         + "\(ms(r.listHeadMs)) ms | \(ms(r.listNextMs)) ms | \(ms(r.listAllMs)) ms | \(r.listJSONMs.map { ms($0) + " ms" } ?? "-") |")
        }
        return lines.joined(separator: "\n")
    }

    /// Replaces the text between the markers in `path` (appending a section when they are missing).
    static func write(_ table: String, to path: String) throws {
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let block = begin + "\n" + table + "\n" + end
        if let a = text.range(of: begin), let b = text.range(of: end, range: a.upperBound..<text.endIndex) {
            text.replaceSubrange(a.lowerBound..<b.upperBound, with: block)
        } else {
            text += "\n## Scale\n\n" + block + "\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
