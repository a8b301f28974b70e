import Foundation

/// What /proc says about a running process: its memory, and how often its threads woke.
public enum ProcessInfoReader {
    /// A field of /proc/PID/status in KiB (VmRSS, VmHWM).
    public static func kibibytes(_ field: String, pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    /// Context switches (voluntary and not) of every thread of the process, by thread id.
    public static func contextSwitches(pid: pid_t) -> [Int: Int] {
        var result: [Int: Int] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let tid = Int(task), let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            var total = 0
            for line in text.split(separator: "\n") where line.contains("ctxt_switches:") {  // voluntary_ and nonvoluntary_
                total += Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).last ?? "") ?? 0
            }
            result[tid] = total
        }
        return result
    }

    /// The name of thread `tid` of `pid` (its comm), or the id when it has gone.
    public static func threadName(pid: pid_t, tid: Int) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8)) ?? "\(tid)")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
