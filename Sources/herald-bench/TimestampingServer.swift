import CLibNotify
import Foundation
import HeraldCore
import HeraldTestSupport
import Synchronization

/// A notification server (org.freedesktop.Notifications) on a bus, written with GDBus, that
/// notes the wall-clock time each Notify call reaches it.
///
/// The time is taken in a GDBus message filter, on the connection's worker thread, as soon as
/// the message has been read off the socket: before it waits for any main loop. The server
/// answers on its own thread and GLib main context, like a desktop's notification daemon.
final class TimestampingServer: @unchecked Sendable {
    struct Received: Sendable {
        var at: Instant
        var summary: String
        var body: String
    }

    private let received = Mutex<[Received]>([])
    private let arrivals = DispatchSemaphore(value: 0)
    /// How many arrivals in all the waiter waits for (`waitForArrivals`).
    private let wanted = Atomic<Int>(.max)
    private let nextID = Atomic<UInt32>(1)
    private var context: OpaquePointer?
    private var loop: OpaquePointer?
    private var connection: OpaquePointer?

    /// Connects to the bus at `address`, exports the server and takes the well-known name.
    ///
    /// - Throws: `BenchError` when the bus cannot be reached or the name is taken.
    init(address: String) throws(BenchError) {
        let started = DispatchSemaphore(value: 0)
        let outcome = Mutex<String?>(nil)
        let thread = Thread { [unowned self] in
            let context = g_main_context_new()
            g_main_context_push_thread_default(context)
            self.context = context
            if let problem = self.connect(address) {
                outcome.withLock { $0 = problem }
                started.signal()
                return
            }
            self.loop = g_main_loop_new(context, 0)
            started.signal()
            g_main_loop_run(self.loop)
        }
        thread.name = "bench.server"
        thread.start()
        started.wait()
        if let problem = outcome.withLock({ $0 }) { throw BenchError("notification server: \(problem)") }
    }

    /// Everything received so far, in order.
    var all: [Received] { received.withLock { $0 } }
    var count: Int { received.withLock { $0.count } }

    /// Waits until `count` Notify calls in all have arrived, or `limit` passes. The waiter is
    /// woken once, not at each arrival: while heraldd's burst is timed, the bench must not take
    /// CPU that it does not take while notify-floor's is (it waits for that program to exit).
    func waitForArrivals(count: Int, until limit: DispatchTime) {
        wanted.store(count, ordering: .sequentiallyConsistent)
        // No signals pile up for the next wait from arrivals no one waits for.
        defer { wanted.store(Int.max, ordering: .sequentiallyConsistent) }
        while self.count < count {
            if arrivals.wait(timeout: limit) == .timedOut { return }
        }
    }

    func stop() {
        if let loop { g_main_loop_quit(loop) }
    }

    // MARK: - GDBus

    private func connect(_ address: String) -> String? {
        var error: UnsafeMutablePointer<GError>? = nil
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
            | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            return "cannot connect to \(address): \(take(error))"
        }
        self.connection = connection
        let me = Unmanaged.passUnretained(self).toOpaque()
        g_dbus_connection_add_filter(connection, { _, message, incoming, data in
            if incoming != 0, let message, let data {
                Unmanaged<TimestampingServer>.fromOpaque(data).takeUnretainedValue().inspect(message)
            }
            return message
        }, me, nil)

        guard let node = g_dbus_node_info_new_for_xml(Self.introspection, &error) else { return "bad interface XML: \(take(error))" }
        let vtable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)  // lives as long as the process
        vtable.initialize(to: GDBusInterfaceVTable())
        vtable.pointee.method_call = { _, _, _, _, method, parameters, invocation, data in
            guard let method, let invocation, let data else { return }
            Unmanaged<TimestampingServer>.fromOpaque(data).takeUnretainedValue()
                .answer(String(cString: method), parameters, invocation)
        }
        let registered = g_dbus_connection_register_object(connection, "/org/freedesktop/Notifications",
                                                            node.pointee.interfaces[0], vtable, me, nil, &error)
        guard registered != 0 else { return "cannot export the server object: \(take(error))" }

        var name = [g_variant_new_string("org.freedesktop.Notifications"), g_variant_new_uint32(4)]  // DO_NOT_QUEUE
        let request = g_variant_new_tuple(&name, 2)
        guard let reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                      "org.freedesktop.DBus", "RequestName", request, nil,
                                                      G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error) else {
            return "cannot request org.freedesktop.Notifications: \(take(error))"
        }
        let result = g_variant_get_child_value(reply, 0)
        let code = g_variant_get_uint32(result)
        g_variant_unref(result)
        g_variant_unref(reply)
        guard code == 1 else { return "org.freedesktop.Notifications is already owned on the bench bus (RequestName → \(code))" }
        return nil
    }

    /// The filter: notes when a Notify call arrives, with its summary and body.
    private func inspect(_ message: OpaquePointer) {
        guard g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL,
              let member = g_dbus_message_get_member(message), strcmp(member, "Notify") == 0 else { return }
        let now = Self.wallClock()
        var summary = "", body = ""
        if let parameters = g_dbus_message_get_body(message), String(cString: g_variant_get_type_string(parameters)) == "(susssasa{sv}i)" {
            summary = Self.string(parameters, 3)
            body = Self.string(parameters, 4)
        }
        let count = received.withLock { $0.append(Received(at: now, summary: summary, body: body)); return $0.count }
        if count >= wanted.load(ordering: .sequentiallyConsistent) { arrivals.signal() }
    }

    private func answer(_ method: String, _ parameters: OpaquePointer?, _ invocation: OpaquePointer) {
        switch method {
        case "Notify":
            var id = [g_variant_new_uint32(nextID.add(1, ordering: .relaxed).oldValue)]
            g_dbus_method_invocation_return_value(invocation, g_variant_new_tuple(&id, 1))
        case "GetCapabilities":
            let names = [strdup("body"), strdup("actions")]
            defer { names.forEach { free($0) } }
            var capabilities: [UnsafePointer<CChar>?] = names.map { $0.map { UnsafePointer($0) } }
            var list = [g_variant_new_strv(&capabilities, gssize(capabilities.count))]
            g_dbus_method_invocation_return_value(invocation, g_variant_new_tuple(&list, 1))
        case "GetServerInformation":
            var info: [OpaquePointer?] = []
            for text in ["herald-bench", "Herald", HeraldVersion.string, "1.2"] { info.append(g_variant_new_string(text)) }
            g_dbus_method_invocation_return_value(invocation, g_variant_new_tuple(&info, 4))
        default:  // CloseNotification
            g_dbus_method_invocation_return_value(invocation, nil)
        }
    }

    private static func string(_ tuple: OpaquePointer, _ index: Int) -> String {
        let child = g_variant_get_child_value(tuple, gsize(index))
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }

    static func wallClock() -> Instant { SystemClock().now }

    private func take(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }

    private static let introspection = """
        <node>
          <interface name="org.freedesktop.Notifications">
            <method name="GetCapabilities"><arg type="as" direction="out"/></method>
            <method name="Notify">
              <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
              <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
              <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/>
            </method>
            <method name="CloseNotification"><arg type="u" direction="in"/></method>
            <method name="GetServerInformation">
              <arg type="s" direction="out"/><arg type="s" direction="out"/>
              <arg type="s" direction="out"/><arg type="s" direction="out"/>
            </method>
            <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
            <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
          </interface>
        </node>
        """
}
