import Foundation
import HeraldCore

/// `heraldd --notifier console`: prints each popup on stdout instead of using D-Bus,
/// for machines with no desktop. One block per notification, flushed at once.
final class ConsoleNotifier: Notifier, @unchecked Sendable {
    private let lock = NSLock()
    private let zone: TimeZoneRules
    private let clock: any WallClock

    init(zone: TimeZoneRules, clock: any WallClock) {
        self.zone = zone
        self.clock = clock
    }

    func show(_ request: NotificationRequest, completion: @escaping @Sendable (Result<Void, NotifierError>) -> Void) {
        var text = "[\(ISO8601.format(clock.now, in: zone))] \(request.summary)"
        if request.urgency != .normal { text += " (\(request.urgency.rawValue))" }
        text += "\n"
        for line in request.body.split(separator: "\n", omittingEmptySubsequences: false) where !request.body.isEmpty {
            text += "    \(line)\n"
        }
        lock.lock()
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(1, $0.baseAddress!, $0.count) }
        lock.unlock()
        completion(written == bytes.count ? .success(()) : .failure(NotifierError(.failed, detail: "cannot write to stdout")))
    }
}
