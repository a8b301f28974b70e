import Dispatch
import Glibc
import HeraldCore

/// `heraldd --notifier console`: prints each popup on stdout instead of using D-Bus,
/// for machines with no desktop. One block per notification, flushed at once, written on a
/// queue of its own (as libnotify's popups go out on their own thread): stdout may be a file
/// on a busy disk.
final class ConsoleNotifier: Notifier, @unchecked Sendable {
    private let queue = DispatchQueue(label: "herald.console", qos: .userInitiated)
    private let zone: TimeZoneRules
    private let clock: any WallClock

    init(zone: TimeZoneRules, clock: any WallClock) {
        self.zone = zone
        self.clock = clock
    }

    func show(_ request: NotificationRequest, completion: @escaping @Sendable (Result<Void, NotifierError>) -> Void) {
        // The renderer stripped controls for the server; a terminal needs the bidi reorderings
        // shown too, and whatever else `visible` catches.
        var text = "[\(ISO8601.format(clock.now, in: zone))] \(TextSafety.visible(request.summary, whitespace: .spaces))"
        if request.urgency != .normal { text += " (\(request.urgency.rawValue))" }
        text += "\n"
        for line in request.body.split(separator: "\n", omittingEmptySubsequences: false) where !request.body.isEmpty {
            text += "    \(TextSafety.visible(String(line)))\n"
        }
        let bytes = Array(text.utf8)
        queue.async {
            let written = bytes.withUnsafeBytes { write(1, $0.baseAddress!, $0.count) }
            completion(written == bytes.count ? .success(()) : .failure(NotifierError(.failed, detail: "cannot write to stdout")))
        }
    }
}
