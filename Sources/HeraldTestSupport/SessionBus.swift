import Foundation

/// A private D-Bus session bus, one per test scene or benchmark run, so that no desktop's bus
/// and no other run sees or disturbs what heraldd sends.
///
/// Its configuration has no `<standard_session_servicedirs/>`: the bus activates no service
/// but those in `serviceDirectory`, so nothing owns org.freedesktop.Notifications until the
/// test or benchmark starts its own server (or puts one there to be started on the first call).
/// The limits are the stock session.conf's, far above dbus-daemon's built-in ones.
public final class SessionBus {
    /// The address for DBUS_SESSION_BUS_ADDRESS.
    public let address: String
    private let daemon: Spawned

    /// Starts dbus-daemon listening in `directory` (its configuration and output go there too).
    public init(directory: String, serviceDirectory: String? = nil) throws(SetupError) {
        let config = directory + "/bus.conf"
        let output = directory + "/dbus-daemon.out"
        do {
            try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(directory)</listen>
              <auth>EXTERNAL</auth>
              \(serviceDirectory.map { "<servicedir>\($0)</servicedir>" } ?? "")
              <limit name="max_incoming_bytes">1000000000</limit>
              <limit name="max_outgoing_bytes">1000000000</limit>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow receive_sender="*"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(toFile: config, atomically: true, encoding: .utf8)
        } catch { throw SetupError("cannot write \(config): \(error)") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else {
            throw SetupError("/usr/bin/dbus-daemon is missing (install dbus-daemon, or run 'make bench', which installs it)")
        }
        let daemon = try Spawned.start("/usr/bin/dbus-daemon", ["--config-file=" + config, "--nofork", "--print-address=1"],
                                       environment: ["PATH": "/usr/bin:/bin"], outputPath: output)
        var line = ""
        _ = waitUntil(timeout: 10, pollMilliseconds: 10) {
            line = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").first.map(String.init) ?? ""
            return line.hasPrefix("unix:") || daemon.poll() != nil
        }
        guard line.hasPrefix("unix:") else {
            daemon.signal(SIGKILL)
            daemon.wait()
            throw SetupError("dbus-daemon did not start: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        }
        self.daemon = daemon
        address = line
    }

    /// Ends the bus (SIGTERM, then SIGKILL after 2 s): every connection to it is lost.
    public func stop() {
        daemon.signal(SIGTERM)
        if waitUntil(timeout: 2, pollMilliseconds: 10, { daemon.poll() != nil }) { return }
        daemon.signal(SIGKILL)
        daemon.wait()
    }
}
