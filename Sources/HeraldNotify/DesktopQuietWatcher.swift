import CLibNotify
import HeraldCore

/// Follows the desktop's do-not-disturb where the notification server exposes it
/// (`DoNotDisturbSource`): a signal where there is one, else (mako) a poll every two seconds.
/// GLib thread only; `report` is called with the state when it is first read and on each change.
final class DesktopQuietWatcher {
    private let source: DoNotDisturbSource
    private let report: (Bool) -> Void
    private var connection: OpaquePointer?  // GDBusConnection *
    private var settings: UnsafeMutablePointer<GSettings>?
    private var subscription: UInt32 = 0
    private var pollSource: UInt32 = 0
    private var last: Bool?
    /// A read is scheduled: signals that come meanwhile add none (a server that floods them
    /// costs one read per 50 ms at most, never one each).
    private var readPending: UInt32 = 0

    static let pollMilliseconds: UInt32 = 2000

    init?(source: DoNotDisturbSource, report: @escaping (Bool) -> Void) {
        self.source = source
        self.report = report
        var error: UnsafeMutablePointer<GError>? = nil
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            if let error { g_error_free(error) }
            return nil
        }
        connection = bus
        let me = Unmanaged.passUnretained(self).toOpaque()
        switch source {
        case .gnomeShowBanners:
            // The shell's Do Not Disturb switch is this key (dconf tells every reader of it).
            guard let s = herald_settings_if_installed("org.gnome.desktop.notifications", "show-banners") else { return nil }
            settings = s
            _ = herald_settings_on_changed(s, "changed::show-banners", { _, _, data in
                Unmanaged<DesktopQuietWatcher>.fromOpaque(data!).takeUnretainedValue().changed()
            }, me)
        case .plasmaInhibited, .dunstPaused:
            subscription = g_dbus_connection_signal_subscribe(
                bus, "org.freedesktop.Notifications", "org.freedesktop.DBus.Properties", "PropertiesChanged",
                "/org/freedesktop/Notifications", nil, G_DBUS_SIGNAL_FLAGS_NONE, { _, _, _, _, _, parameters, data in
                    let watcher = Unmanaged<DesktopQuietWatcher>.fromOpaque(data!).takeUnretainedValue()
                    if herald_properties_changed_names(parameters, watcher.propertyName) != 0 { watcher.changed() }
                }, me, nil)
        case .swayncDnd:
            // swaync 0.7 says each change with OnDndToggle(b) on the notification object (twice);
            // it has no PropertiesChanged.
            subscription = g_dbus_connection_signal_subscribe(
                bus, "org.freedesktop.Notifications", "org.freedesktop.Notifications", "OnDndToggle", "/org/freedesktop/Notifications", nil,
                G_DBUS_SIGNAL_FLAGS_NONE, { _, _, _, _, _, _, data in
                    Unmanaged<DesktopQuietWatcher>.fromOpaque(data!).takeUnretainedValue().changed()
                }, me, nil)
        case .makoMode:
            // mako 1.7 says nothing when its modes change: ListModes is asked every 2 s.
            pollSource = g_timeout_add_full(G_PRIORITY_DEFAULT, Self.pollMilliseconds, { data in
                Unmanaged<DesktopQuietWatcher>.fromOpaque(data!).takeUnretainedValue().refresh()
                return 1  // G_SOURCE_CONTINUE
            }, me, nil)
        }
        refresh()
    }

    deinit {
        if subscription != 0, let connection { g_dbus_connection_signal_unsubscribe(connection, subscription) }
        if pollSource != 0 { g_source_remove(pollSource) }
        if readPending != 0 { g_source_remove(readPending) }
        if let settings { g_object_unref(UnsafeMutableRawPointer(settings)) }
        if let connection { g_object_unref(UnsafeMutableRawPointer(connection)) }
    }

    private var propertyName: String { source == .dunstPaused ? "paused" : "Inhibited" }

    /// A signal said the state changed: it is read 50 ms later, once for any number of signals.
    func changed() {
        guard readPending == 0 else { return }
        readPending = g_timeout_add_full(G_PRIORITY_DEFAULT, 50, { data in
            let watcher = Unmanaged<DesktopQuietWatcher>.fromOpaque(data!).takeUnretainedValue()
            watcher.readPending = 0
            watcher.refresh()
            return 0  // G_SOURCE_REMOVE
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    /// Reads the state and reports it when it changed.
    func refresh() {
        guard let on = read(), on != last else { return }
        last = on
        report(on)
    }

    /// The state now; nil when it cannot be read (the server is asked again at the next change).
    private func read() -> Bool? {
        switch source {
        case .gnomeShowBanners:
            guard let settings else { return nil }
            return g_settings_get_boolean(settings, "show-banners") == 0
        case .plasmaInhibited:
            return property("org.freedesktop.Notifications", "Inhibited")
        case .dunstPaused:
            return property("org.dunstproject.cmd0", "paused")
        case .swayncDnd:
            return call("org.erikreider.swaync.cc", "/org/erikreider/swaync/cc", "org.erikreider.swaync.cc", "GetDnd", nil)
        case .makoMode:
            guard let connection else { return nil }
            var error: UnsafeMutablePointer<GError>? = nil
            guard let reply = g_dbus_connection_call_sync(connection, "org.freedesktop.Notifications", "/fr/emersion/Mako", "fr.emersion.Mako",
                                                          "ListModes", nil, nil, G_DBUS_CALL_FLAGS_NO_AUTO_START, 500, nil, &error) else {
                if let error { g_error_free(error) }
                return nil
            }
            defer { g_variant_unref(reply) }
            let listed = herald_reply_lists(reply, "do-not-disturb")
            return listed < 0 ? nil : listed == 1
        }
    }

    private func property(_ interface: String, _ name: String) -> Bool? {
        var args = [g_variant_new_string(interface), g_variant_new_string(name)]
        return call("org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.DBus.Properties", "Get",
                    g_variant_new_tuple(&args, 2))
    }

    /// A method call answered with one boolean; at most 500 ms (a frozen server is not waited for).
    private func call(_ name: String, _ path: String, _ interface: String, _ method: String, _ parameters: OpaquePointer?) -> Bool? {
        guard let connection else { return nil }
        var error: UnsafeMutablePointer<GError>? = nil
        guard let reply = g_dbus_connection_call_sync(connection, name, path, interface, method, parameters, nil,
                                                      G_DBUS_CALL_FLAGS_NO_AUTO_START, 500, nil, &error) else {
            if let error { g_error_free(error) }
            return nil
        }
        defer { g_variant_unref(reply) }
        let value = herald_reply_boolean(reply)
        return value < 0 ? nil : value == 1
    }
}
