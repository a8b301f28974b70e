// The bus, notify socket, process and clock helpers are shared with the end-to-end tests;
// re-exported so that every file of the benchmark sees them.
import HeraldTestSupport
import Foundation

/// Why the benchmark stopped: a broken set-up, never a slow figure.
typealias BenchError = SetupError

/// Marks every inherited descriptor above stderr close-on-exec, so that no program this one
/// starts holds on to a pipe its caller waits on.
func closeInheritedDescriptorsOnExec() {
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
        if let fd = Int32(entry), fd > 2 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }
}

func sleep(milliseconds: Int) { usleep(useconds_t(milliseconds * 1000)) }
