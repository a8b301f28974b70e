import Foundation
import HeraldCore
import HeraldTestSupport

/// The floors a row is judged against (BENCHMARKS.md, "Ratios to the floor"): small C programs
/// that do only what the kernel and libnotify must do for that row, run in the same run, on
/// the same bus, server and file system as heraldd. Built at the start of a run from
/// `scripts/bench`, so that a ratio never compares against a figure from another day.
struct Floors {
    /// `notify-floor`: N synchronous `Notify` calls back to back, or one at each instant of a
    /// list on a CLOCK_REALTIME timerfd.
    let notify: String
    /// `file-floor`: N job-sized files made the way heraldd files a batch, then one sync.
    let file: String

    /// Compiles both programs from `sources` into `directory`, with `cc` or else the Swift
    /// toolchain's `clang`.
    static func build(sources: String, into directory: String) throws(BenchError) -> Floors {
        let compiler = ["/usr/bin/cc", "/usr/bin/clang"].first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? findOnPath("clang")
        guard let compiler else { throw BenchError("no C compiler (cc or clang) to build the floor programs with") }
        let floors = Floors(notify: directory + "/notify-floor", file: directory + "/file-floor")
        let builds = [
            (floors.notify, "notify-floor.c", "$(pkg-config --cflags --libs libnotify)"),
            (floors.file, "file-floor.c", "-pthread"),
        ]
        for (output, source, flags) in builds {
            let path = sources + "/" + source
            guard FileManager.default.fileExists(atPath: path) else {
                throw BenchError("no \(path): run from the source tree, or pass --floor-sources DIR")
            }
            let log = directory + "/floor-build.out"
            let line = "\(quoted(compiler)) -O2 -o \(quoted(output)) \(quoted(path)) \(flags)"
            let status: Int32
            do { (status, _) = try Spawned.timed("/bin/sh", ["-c", line], environment: ["PATH": "/usr/bin:/bin"], outputPath: log) } catch {
                throw BenchError("cannot run \(compiler): \(error)")
            }
            guard status == 0 else {
                let said = (try? String(contentsOfFile: log, encoding: .utf8)).map { ": " + $0 } ?? " (its output in \(log) cannot be read)"
                throw BenchError("building \(source) failed (\(line))" + said)
            }
        }
        return floors
    }

    private static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    private static func findOnPath(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

extension Double {
    /// "1.07×": a measured figure over its floor.
    var ratioText: String { String(format: "%.2f×", self) }
}
