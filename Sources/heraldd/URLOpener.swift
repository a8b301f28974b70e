import Foundation
import Logging

/// Opens a delivery's tracking page with the desktop's opener (`xdg-open`, or `$HERALD_OPENER`
/// for tests), from a thread of its own: an opener may stay until the browser exits, and it is
/// reaped there rather than left a zombie.
enum URLOpener {
    static func open(_ url: String, opener: String, environment: [String: String], logger: Logger) {
        let thread = Thread {
            var pid: pid_t = 0
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup(opener), strdup(url), nil]
            let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0.key + "=" + $0.value) } + [nil]
            defer { for p in argv + envp { free(p) } }
            let code = posix_spawnp(&pid, opener, nil, nil, argv, envp)
            guard code == 0 else {
                logger.warning("Cannot open the tracking page", metadata: ["opener": "\(opener)", "error": "\(String(cString: strerror(code)))"])
                return
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            if status != 0 { logger.notice("The opener failed on the tracking page", metadata: ["opener": "\(opener)", "status": "\(status)"]) }
        }
        thread.start()
    }
}
