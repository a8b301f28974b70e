import Testing
@testable import HeraldModel

/// Hints name the commands of the installation at hand: apt for the package, make install with
/// its PREFIX for an install from source.
struct InstallationTests {
    @Test func thePackagedBinaryIsThePackage() {
        let i = Installation.classify(executable: "/usr/bin/herald", packaged: true) { _ in true }
        #expect(i == .package)
        #expect(i.exampleConfig == "/usr/share/herald/config.yaml.example")
        #expect(i.reinstall(home: "/home/a") == "sudo apt install --reinstall herald")
    }

    @Test func makeInstallIsNamedWithItsPrefix() {
        let own = Installation.classify(executable: "/home/a/.local/bin/herald", packaged: false) { $0 == "/home/a/.local" }
        #expect(own == .prefix("/home/a/.local"))
        #expect(own.reinstall(home: "/home/a") == "make install")
        #expect(own.exampleConfig == "/home/a/.local/share/herald/config.yaml.example")
        let local = Installation.classify(executable: "/usr/local/bin/herald", packaged: false) { $0 == "/usr/local" }
        #expect(local.reinstall(home: "/home/a") == "make install PREFIX=/usr/local")
        // /usr/bin/herald that dpkg does not know (copied there by hand, or make install PREFIX=/usr).
        #expect(Installation.classify(executable: "/usr/bin/herald", packaged: false) { $0 == "/usr" } == .prefix("/usr"))
    }

    @Test func aBuildFolderIsTheSourceTree() {
        #expect(Installation.classify(executable: "/src/herald/.build/release/herald", packaged: false) { _ in true } == .build)
        #expect(Installation.classify(executable: "/opt/x/bin/herald", packaged: false) { _ in false } == .build)
        #expect(Installation.classify(executable: "herald", packaged: false) { _ in true } == .build)
        #expect(Installation.build.exampleConfig == "config/config.yaml in Herald's source tree")
    }
}

/// heraldd's own command line: what it accepts, and one clear message for what it does not.
struct DaemonArgumentsTests {
    @Test func acceptsEachOptionBothWays() throws {
        let a = try DaemonArguments.parse(["--spool", "/s", "--config=/c.yaml", "--notifier", "console", "--log-level=debug"])
        #expect(a.action == .run && a.spool == "/s" && a.config == "/c.yaml" && a.notifier == .console && a.logLevel == .debug)
        let d = try DaemonArguments.parse([])
        #expect(d.action == .run && d.spool == nil && d.notifier == .libnotify && d.logLevel == nil)
        #expect(try DaemonArguments.parse(["--spool", "-odd-dir"]).spool == "-odd-dir")
        #expect(try DaemonArguments.parse(["--spool="]).spool == "")
    }

    @Test func helpVersionAndProbe() throws {
        #expect(try DaemonArguments.parse(["--probe"]).action == .probe)
        #expect(try DaemonArguments.parse(["--spool", "/s", "--help", "--bogus"]).action == .help)
        #expect(try DaemonArguments.parse(["-h"]).action == .help)
        #expect(try DaemonArguments.parse(["--version"]).action == .version)
        #expect(DaemonArguments.help.contains("--notifier <notifier>"))
    }

    @Test func refusesWhatItDoesNotKnowNamingIt() {
        func message(_ args: [String]) -> String? {
            do { _ = try DaemonArguments.parse(args); return nil } catch { return error.description }
        }
        #expect(message(["--verbose"]) == "unknown option '--verbose'")
        #expect(message(["extra"]) == "unexpected argument 'extra'")
        #expect(message(["--spool"]) == "missing value for '--spool'")
        #expect(message(["--config", "--probe"]) == "missing value for '--config'")
        #expect(message(["--notifier", "dbus"]) == "'dbus' is not a notifier for '--notifier': use libnotify or console")
        #expect(message(["--log-level", "loud"]) == "'loud' is not a log level: use trace, debug, info, notice, warning, error, critical")
        #expect(message(["--probe=yes"]) == "'--probe' takes no value")
    }
}
