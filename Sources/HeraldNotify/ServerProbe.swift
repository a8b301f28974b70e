import CLibNotify
import HeraldCore

/// Asks the session bus and the notification server about themselves, for `heraldd --probe`
/// (read by `herald doctor`), directly over GDBus with a short timeout (libnotify's own calls
/// wait 25 s for a frozen server).
public enum ServerProbe {
    /// Asks the session bus and the server; each call waits at most `timeoutMs`.
    /// Runs GLib calls on the calling thread only (no main loop needed for sync calls).
    public static func run(busAddress: String, timeoutMs: Int32 = 3000) -> ProbeAnswer {
        var probe = ProbeAnswer(bus: busAddress)
        var error: UnsafeMutablePointer<GError>? = nil
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            probe.busError = take(error) ?? "cannot connect"
            return probe
        }
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        let service = "org.freedesktop.Notifications"

        // Who owns the name (no activation: a missing server is reported, not started).
        var args = [g_variant_new_string(service)]
        if let reply = g_dbus_connection_call_sync(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                   "GetNameOwner", g_variant_new_tuple(&args, 1), nil, G_DBUS_CALL_FLAGS_NONE,
                                                   timeoutMs, nil, &error) {
            let child = g_variant_get_child_value(reply, 0)
            probe.serverOwner = String(cString: g_variant_get_string(child, nil))
            g_variant_unref(child)
            g_variant_unref(reply)
        } else {
            let noOwner = error.map { LibNotifyNotifier.classify($0, busReachable: true).kind == .noServer } ?? true
            let message = take(error) ?? "no owner"
            probe.serverError = noOwner ? "no program owns \(service) on the session bus" : message
            return probe
        }
        error = nil

        guard let info = call(bus, service, "GetServerInformation", timeoutMs, &error) else {
            probe.serverError = "GetServerInformation: " + (take(error) ?? "no answer")
            return probe
        }
        // Fields a server left out of its own description read as "" (capabilities as none).
        var server = ServerInfoReply.identity(info) ?? ServerInfo(name: "", vendor: "", version: "", specVersion: "", capabilities: [])
        g_variant_unref(info)
        error = nil
        if let caps = call(bus, service, "GetCapabilities", timeoutMs, &error) {
            server.capabilities = Array(ServerInfoReply.capabilities(caps) ?? [])
            g_variant_unref(caps)
        } else {
            probe.serverError = "GetCapabilities: " + (take(error) ?? "no answer")
        }
        server.capabilities.sort()
        probe.server = server
        return probe
    }

    private static func call(_ bus: OpaquePointer, _ service: String, _ method: String, _ timeoutMs: Int32,
                             _ error: inout UnsafeMutablePointer<GError>?) -> OpaquePointer? {
        g_dbus_connection_call_sync(bus, service, "/org/freedesktop/Notifications", service, method, nil, nil,
                                    G_DBUS_CALL_FLAGS_NO_AUTO_START, timeoutMs, nil, &error)
    }

    private static func take(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }
}
