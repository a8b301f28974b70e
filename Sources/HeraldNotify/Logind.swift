import CLibNotify
import Glibc
import HeraldCore
import Logging

/// logind on the system bus: its PrepareForSleep signal (the machine suspends, or resumed) and
/// its inhibitor locks (a ringing alarm keeps the screen from blanking: `idle`, `block`). GLib
/// thread only. Without a system bus or logind, nothing is reported and no lock is taken.
final class Logind {
    private let connection: OpaquePointer  // GDBusConnection *
    private let logger: Logger
    private var subscription: UInt32 = 0
    private var sleepReport: ((Bool) -> Void)?

    init?(logger: Logger) {
        self.logger = logger
        var error: UnsafeMutablePointer<GError>? = nil
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, nil, &error) else {
            logger.debug("No system bus: no sleep signals or inhibitor locks",
                         metadata: ["error": "\(error.map { String(cString: $0.pointee.message) } ?? "-")"])
            if let error { g_error_free(error) }
            return nil
        }
        // The system bus going away must not end heraldd (GIO's default for a bus singleton).
        g_dbus_connection_set_exit_on_close(bus, 0)
        connection = bus
    }

    /// Reports PrepareForSleep: true as the machine goes to sleep, false when it resumed.
    func watchSleep(_ report: @escaping (Bool) -> Void) {
        sleepReport = report
        let me = Unmanaged.passUnretained(self).toOpaque()
        subscription = herald_watch_prepare_for_sleep(connection, { _, _, _, _, _, parameters, data in
            let logind = Unmanaged<Logind>.fromOpaque(data!).takeUnretainedValue()
            let value = herald_reply_boolean(parameters)
            guard value >= 0 else { return }
            logind.sleepReport?(value == 1)
        }, me)
    }

    /// Asks for an `idle` block lock; `taken` gets its descriptor (the lock lasts until it is
    /// closed), or nothing when logind refuses or does not answer.
    func inhibitIdle(why: String, taken: @escaping (Int32) -> Void) {
        let box = Unmanaged.passRetained(InhibitAnswer(connection: connection, logger: logger, taken: taken)).toOpaque()
        herald_logind_inhibit(connection, "idle", NotificationRequest.appName, why, "block", { _, result, data in
            let answer = Unmanaged<InhibitAnswer>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>? = nil
            let fd = herald_logind_inhibit_finish(answer.connection, result, &error)
            if fd >= 0 { return answer.taken(fd) }
            answer.logger.notice("logind refused an idle inhibitor; the screen may blank while the alarm rings",
                                 metadata: ["error": "\(error.map { String(cString: $0.pointee.message) } ?? "-")"])
            if let error { g_error_free(error) }
        }, box)
    }

    deinit {
        if subscription != 0 { g_dbus_connection_signal_unsubscribe(connection, subscription) }
        g_object_unref(UnsafeMutableRawPointer(connection))
    }
}

private final class InhibitAnswer {
    let connection: OpaquePointer
    let logger: Logger
    let taken: (Int32) -> Void
    init(connection: OpaquePointer, logger: Logger, taken: @escaping (Int32) -> Void) {
        self.connection = connection; self.logger = logger; self.taken = taken
    }
}
