import Foundation
import HeraldTestSupport
import Testing

/// The first five minutes: doctor, the demo, history, listings, suggestions, install.
@Suite(.serialized)
struct NewcomerEndToEndTests {
    /// With heraldd running; the last says whether alarms can wake the machine (heraldd, as root
    /// here, holds CAP_WAKE_ALARM).
    static let checkNames = ["session bus", "notification server", "spool", "config", "daemon", "systemd unit", "time zone",
                             "wake from suspend", "commands"]

    /// Installs the unit into the scene's ~/.config/systemd/user and enables it the way
    /// `systemctl --user enable` does (a symlink in graphical-session.target.wants/).
    func installUnit(_ scene: Scene) throws {
        let dir = scene.directory + "/.config/systemd/user"
        try FileManager.default.createDirectory(atPath: dir + "/graphical-session.target.wants", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Binaries.repositoryRoot + "/systemd/heraldd.service", toPath: dir + "/heraldd.service")
        try FileManager.default.createSymbolicLink(atPath: dir + "/graphical-session.target.wants/heraldd.service",
                                                   withDestinationPath: dir + "/heraldd.service")
    }

    struct Check: Decodable { var name: String; var ok: Bool; var detail: String; var fix: String? }
    struct Report: Decodable { var ok: Bool; var checks: [Check] }

    func doctorJSON(_ scene: Scene) throws -> (CommandResult, Report) {
        let r = try scene.herald("doctor", "--json")
        let report = try JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8))
        return (r, report)
    }

    @Test func doctorOnAHealthySetUpPassesEveryCheck() throws {
        let scene = try Scene()
        try installUnit(scene)
        try scene.startDaemon()
        let r = try scene.herald("doctor")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 10)
        #expect(lines.prefix(8).allSatisfy { $0.hasPrefix("✓") }, "\(r.stdout)")
        #expect(lines.last == "All 9 checks passed.")
        #expect(r.stdout.contains("wake from suspend    available (heraldd holds CAP_WAKE_ALARM)"), "\(r.stdout)")
        #expect(r.stdout.contains("actions yes, body-markup yes"))
        #expect(r.stdout.contains("Europe/Berlin (from TZ)"))
        #expect(r.stdout.contains("enabled (wanted by graphical-session.target)"))
        #expect(!r.stdout.contains("\u{1B}["), "no colour into a pipe")

        let (j, report) = try doctorJSON(scene)
        #expect(j.status == 0)
        #expect(report.ok)
        #expect(report.checks.map(\.name) == Self.checkNames)
        #expect(report.checks.allSatisfy { $0.ok && $0.fix == nil })
        #expect(report.checks[4].detail.contains("heraldd \(try scene.herald("--version").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) runs"))
    }

    @Test func doctorNamesEachBrokenPartAndItsFix() throws {
        let scene = try Scene(server: false)  // a bus, but no notification server
        #expect(try scene.herald("remind", "--in", "1h", "tea").status == 0)  // creates the spool
        #expect(chmod(scene.spoolPath, 0o777) == 0)
        try scene.writeConfig("defaults:\n  lead: soonish\n")
        scene.extraEnvironment["TZ"] = "Mars/Olympus_Mons"
        let (r, report) = try doctorJSON(scene)
        #expect(r.status == 1)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(!report.ok)
        let checks = Dictionary(uniqueKeysWithValues: report.checks.map { ($0.name, $0) })
        #expect(checks["session bus"]?.ok == true)
        #expect(checks["notification server"]?.ok == false)
        #expect(checks["notification server"]?.detail.contains("no program owns org.freedesktop.Notifications") == true)
        #expect(checks["notification server"]?.fix?.contains("start a notification daemon") == true)
        #expect(checks["spool"]?.ok == false)
        #expect(checks["spool"]?.detail.contains("mode 0777") == true)
        #expect(checks["spool"]?.fix == "chmod 700 '\(scene.spoolPath)'")
        #expect(checks["config"]?.ok == false)
        #expect(checks["config"]?.detail.contains("defaults.lead") == true, "\(checks["config"]?.detail ?? "")")
        #expect(checks["config"]?.detail.contains("soonish") == true)
        #expect(checks["daemon"]?.ok == false)
        #expect(checks["daemon"]?.fix?.contains("systemctl --user enable --now heraldd") == true)
        #expect(checks["systemd unit"]?.ok == false)
        #expect(checks["time zone"]?.ok == false)
        #expect(checks["time zone"]?.detail.contains("Mars/Olympus_Mons") == true)
        #expect(report.checks.filter { !$0.ok }.allSatisfy { !($0.fix ?? "").isEmpty })

        // The same as text: one ✗ line each, with its fix.
        let text = try scene.herald("doctor")
        #expect(text.status == 1)
        let failing = text.stdout.split(separator: "\n").filter { $0.hasPrefix("✗") }
        #expect(failing.count == 6, "\(text.stdout)")
        #expect(failing.allSatisfy { $0.contains(" → fix: ") })
        #expect(text.stdout.hasSuffix("6 of 8 checks failed.\n"))
    }

    @Test func doctorWithoutASessionBusOrASpool() throws {
        let scene = try Scene(server: false)
        scene.removedEnvironment = ["DBUS_SESSION_BUS_ADDRESS"]
        let (r, report) = try doctorJSON(scene)
        #expect(r.status == 1)
        #expect(report.checks[0].name == "session bus" && !report.checks[0].ok)
        #expect(report.checks[0].detail == "DBUS_SESSION_BUS_ADDRESS is not set")
        #expect(report.checks[1].detail == "cannot check without a session bus")
        #expect(report.checks[2].detail == "\(scene.spoolPath) does not exist yet")
        #expect(report.checks[3].ok, "no config file: the defaults apply")
    }

    @Test func demoLoadAndRemoveLeaveTheUsersOwnJobsAlone() throws {
        let scene = try Scene()
        try scene.writeConfig("profile:\n  name: Alice Smith\n  address: 12 Elm Street\n")
        #expect(try scene.herald("remind", "--in", "2h", "--id", "mine", "Call mum").status == 0)
        #expect(try scene.herald("habit", "add", "Stretch", "--every", "daily").status == 0)
        try scene.startDaemon()
        #expect(waitUntil { scene.files("jobs").count == 2 })
        let own = Dictionary(uniqueKeysWithValues: scene.files("jobs").map { ($0, scene.read("jobs/" + $0)) })

        let empty = try scene.herald("demo", "remove")
        #expect(empty.status == 0)
        #expect(empty.stdout == "Nothing to remove: no demo jobs are pending (load them with 'herald demo load').\n")

        let load = try scene.herald("demo", "load")
        #expect(load.status == 0, "\(load.stderr)")
        #expect(load.stdout.hasPrefix("Loaded the demo (3 jobs, tagged 'demo'):"))
        // The heads-up pops up now, greeting by name with the address and the seven items.
        let popups = try #require(scene.server).waitForNotifications(1)
        #expect(popups[0].body.contains("Alice Smith"))
        #expect(popups[0].body.contains("12 Elm Street"))
        #expect(popups[0].body.contains("apple, grapes, milk, muffin, popcorn, soda, strawberries"), "\(popups[0].body)")

        let again = try scene.herald("demo", "load")
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("The demo is already loaded (3 jobs"))

        struct Listed: Decodable {
            struct Job: Decodable { var kind: String; var tags: [String]?; var every: String?; var title: String? }
            var id: String
            var job: Job?
        }
        let listed = try JSONDecoder().decode([Listed].self, from: Data(try scene.herald("list", "--json").stdout.utf8))
        #expect(listed.count == 5)
        let demo = listed.filter { $0.job?.tags == ["demo"] }
        #expect(Set(demo.compactMap(\.job?.kind)) == ["delivery", "habit", "reminder"])
        #expect(demo.first { $0.job?.kind == "habit" }?.job?.every == "*-*-* 09..17:00")
        #expect(demo.first { $0.job?.kind == "habit" }?.job?.title == "Drink water")

        let remove = try scene.herald("demo", "remove")
        #expect(remove.status == 0)
        #expect(remove.stdout.hasPrefix("Removed the demo: "))
        #expect(waitUntil { scene.files("jobs").count == 2 })
        let after = Dictionary(uniqueKeysWithValues: scene.files("jobs").map { ($0, scene.read("jobs/" + $0)) })
        #expect(after == own, "the user's own job files are untouched")
        #expect(scene.files("cancelled").count == 3)
        #expect(try scene.herald("demo", "remove").stdout.hasPrefix("Nothing to remove"))
    }

    @Test func historyTellsWhatFiredAndFailedNewestFirst() throws {
        let scene = try Scene()
        try scene.startDaemon()
        #expect(try scene.herald("remind", "--in", "1s", "First tea").status == 0)
        _ = try #require(scene.server).waitForNotifications(1)
        #expect(try scene.herald("remind", "--in", "1s", "Second tea").status == 0)
        _ = try #require(scene.server).waitForNotifications(2)
        try "{\"version\": 1, \"kind\": \"reminder\"}".write(toFile: scene.spoolPath + "/tmp/bad.json", atomically: false, encoding: .utf8)
        #expect(rename(scene.spoolPath + "/tmp/bad.json", scene.spoolPath + "/new/bad.json") == 0)
        #expect(waitUntil { scene.files("failed").contains("bad.json") })

        struct Record: Decodable { var outcome: String; var title: String?; var lateMs: Int; var id: String }
        var records: [Record] = []
        #expect(waitUntil {
            records = (try? JSONDecoder().decode([Record].self, from: Data((try? scene.herald("history", "--json").stdout)?.utf8 ?? "".utf8))) ?? []
            return records.count == 3
        })
        #expect(records.map(\.outcome) == ["failed", "shown", "shown"])
        #expect(records.dropFirst().allSatisfy { $0.lateMs >= 0 })  // never early; how late depends on the machine

        let text = try scene.herald("history")
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("WHEN"))
        #expect(lines[1].contains("failed"))
        #expect(lines[2].contains("Second tea") && lines[2].contains("shown"))
        #expect(lines[3].contains("First tea") && (lines[3].contains("on time") || records[2].lateMs >= 1000))
        #expect(lines[2].contains("s ago") || lines[2].contains("now"))

        let since = try scene.herald("history", "--since", "1h")
        #expect(since.stdout == text.stdout)
        let bad = try scene.herald("history", "--since", "lately")
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("herald: --since: 'lately' is not a time span"))
    }

    /// Colour on a terminal (a pseudo-terminal from script(1)); never with NO_COLOR; never into a pipe.
    @Test func colourOnlyOnATerminalAndNeverWithNoColor() throws {
        let scene = try Scene(server: false)
        #expect(try scene.herald("remind", "--in", "14m", "Tea").status == 0)
        func onTerminal(_ extra: [String: String]) throws -> String {
            var env = scene.environment
            env["TERM"] = "xterm"
            env.merge(extra) { _, new in new }
            let r = try runCommand("/usr/bin/script", ["-qec", "\(Binaries.herald) list", "/dev/null"], environment: env)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout
        }
        let coloured = try onTerminal([:])
        #expect(coloured.contains("\u{1B}[1mID\u{1B}[0m"), "\(coloured.debugDescription)")
        #expect(coloured.contains("in 14 min") || coloured.contains("in 13 min"))
        let plain = try onTerminal(["NO_COLOR": "1"])
        #expect(!plain.contains("\u{1B}"), "\(plain.debugDescription)")
        #expect(plain.contains("Tea"))
        #expect(!(try onTerminal(["TERM": "dumb"])).contains("\u{1B}"))
        let piped = try scene.herald("list")
        #expect(!piped.stdout.contains("\u{1B}"))
        #expect(piped.stdout.hasPrefix("ID "))
    }

    @Test(arguments: [
        (["lsit"], "Error: Unknown command 'lsit'. Did you mean 'list'?"),
        (["habit", "ad"], "Error: Unknown command 'ad'. Did you mean 'add'?"),
        (["doctr"], "Error: Unknown command 'doctr'. Did you mean 'doctor'?"),
        (["list", "--jsno"], "Error: Unknown option '--jsno'. Did you mean '--json'?"),
    ])
    func unknownCommandsAndFlagsGetSuggestions(arguments: [String], message: String) throws {
        let scene = try Scene(server: false)
        let r = try runCommand(Binaries.herald, arguments, environment: scene.environment)
        #expect(r.status == 64)
        #expect(r.stderr.hasPrefix(message), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    /// `make install` (the file-copying half, from the debug build) then `make uninstall`.
    @Test func installPutsEverythingUnderPrefixAndUninstallLeavesNothing() throws {
        let manual = Binaries.directory + "/generate-manual"
        try #require(FileManager.default.isExecutableFile(atPath: manual),
                     "no \(manual): 'make test' builds it (swift build --product generate-manual)")
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("herald-prefix-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let env = ["PATH": "/usr/bin:/bin", "HOME": prefix]
        let install = try runCommand("/usr/bin/make", ["-C", Binaries.repositoryRoot, "--no-print-directory", "install-built", "PREFIX=" + prefix,
                                                      "BUILD_DIR=" + Binaries.directory, "GENERATE_MANUAL=" + manual],
                                     environment: env, timeout: 120)
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        func contents(_ path: String) -> String { (try? String(contentsOfFile: prefix + "/" + path, encoding: .utf8)) ?? "" }
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/herald"))
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/heraldd"))
        #expect(contents("share/systemd/user/heraldd.service").contains("ExecStart=\(prefix)/bin/heraldd\n"))
        #expect(contents("share/systemd/user/heraldd.service").contains("WantedBy=graphical-session.target"))
        #expect(contents("share/man/man1/herald.1").contains(".Dt HERALD 1"))
        #expect(contents("share/man/man1/herald.1").contains("doctor"))
        // The grammar of time phrases, and the commands to change a job.
        #expect(contents("share/man/man1/herald.1").contains("noon, midnight, teatime"))
        #expect(contents("share/man/man1/herald.1").contains("reschedule") && contents("share/man/man1/herald.1").contains("edit"))
        #expect(contents("share/man/man1/heraldd.1").contains("probe"))
        #expect(contents("share/bash-completion/completions/herald").contains("doctor"))
        #expect(contents("share/bash-completion/completions/heraldd").contains("--notifier"))
        #expect(contents("share/zsh/site-functions/_herald").hasPrefix("#compdef herald"))
        #expect(contents("share/fish/vendor_completions.d/herald.fish").contains("demo"))
        #expect(!contents("share/herald/config.yaml.example").isEmpty)
        #expect(!contents("share/herald/job-v1.schema.json").isEmpty)
        #expect(!contents("share/applications/herald.desktop").isEmpty)
        let installed = try runCommand(prefix + "/bin/herald", ["--version"], environment: env)
        #expect(installed.status == 0 && !installed.stdout.isEmpty)

        let uninstall = try runCommand("/usr/bin/make", ["-C", Binaries.repositoryRoot, "--no-print-directory", "uninstall", "PREFIX=" + prefix],
                                       environment: env, timeout: 60)
        #expect(uninstall.status == 0, "\(uninstall.stdout)\(uninstall.stderr)")
        let left = FileManager.default.enumerator(atPath: prefix)?.allObjects as? [String] ?? ["?"]
        #expect(left.isEmpty, "left behind: \(left)")
    }
}
