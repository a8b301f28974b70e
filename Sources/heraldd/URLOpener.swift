import HeraldCore
import Logging

/// Opens a delivery's tracking page with the desktop's opener (`xdg-open`, or `$HERALD_OPENER`
/// for tests), from a thread of its own: an opener may stay until the browser exits, and it is
/// reaped there rather than left a zombie.
enum URLOpener {
    static func open(_ url: String, opener: String, environment: [String: String], logger: Logger) {
        let started = DetachedThread.start(name: "herald.opener") {
            let status: ProcessStatus
            do throws(SpawnError) { status = try ChildProcess.run(opener, [url], environment: environment, searchPath: true) } catch {
                logger.warning("Cannot open the tracking page", metadata: ["opener": "\(opener)", "error": "\(error.reason)"])
                return
            }
            if status != .exited(0) {
                logger.notice("The opener failed on the tracking page", metadata: ["opener": "\(opener)", "status": "\(status)"])
            }
        }
        if !started { logger.warning("Cannot open the tracking page", metadata: ["opener": "\(opener)", "error": "no thread"]) }
    }
}
