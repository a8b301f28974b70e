import Foundation
import HeraldTestSupport
import Testing

/// `herald` as a user meets it: exit codes, one-line refusals, nothing written on bad input.
@Suite(.serialized)
struct CLIEndToEndTests {
    /// Each refusal names the value and the reason, exits 64 or 65, and writes nothing.
    @Test(arguments: [
        (["remind", "--in", "5x", "tea"], 64, "herald: --in: '5x' is not a time span: unknown unit 'x' (use us, ms, s, min, h, d, w, M, y)"),
        (["remind", "--at", "25:99", "tea"], 64, "herald: --at: '25:99' is not a time of day; use 00:00 to 23:59"),
        (["remind", "--at", "2020-01-01T10:00Z", "tea"], 64, "herald: --at: '2020-01-01T10:00Z' means 2020-01-01T11:00:00+01:00, which is in the past"),
        (["remind", "--at", "tomorrow fooday", "tea"], 64, "herald: --at: 'fooday' does not fit in 'tomorrow fooday'; try 'tomorrow 9am' or 'in 2 hours'"),
        (["remind", "--in", "5m", "--warn", "1h,0", "tea"], 64, "herald: --warn: '0' is outside 1 second to 366 days"),
        (["when", "teatime", "Mars/Olympus"], 64, "herald: 'Mars/Olympus' is not a known time zone (see /usr/share/zoneinfo)"),
        (["reschedule", "nosuchjob", "--in", "5m"], 65, "herald: no pending job 'nosuchjob' (see 'herald list')"),
        (["edit", "nosuchjob"], 65, "herald: no pending job 'nosuchjob' (see 'herald list')"),
        (["snooze", "nosuchjob", "soonish"], 64, "herald: SPAN: 'soonish' is neither a span (10m, 1h 30min) nor a time: 'soonish' is not a time; try 'tomorrow 9am' or 'in 2 hours'"),
        (["remind", "--in", "5m"], 64, "herald: the reminder text is empty"),
        (["remind", "--in", "5m", "  "], 64, "herald: the reminder text is empty"),
        (["remind", "tea"], 64, "herald: say when: --at TIME or --in SPAN"),
        (["remind", "--in", "5m", "--at", "10:00", "tea"], 64, "herald: use either --at or --in, not both"),
        (["remind", "--in", "5m", "--id", "a b", "tea"], 64, "herald: --id: 'a b' is not a valid id: use 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'"),
        (["remind", "--in", "5m", "--id", ".hidden", "tea"], 64, "herald: --id: '.hidden' is not a valid id: use 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'"),
        (["deliver", "--in", "30m", "--lead=-5m", "--name", "A", "--address", "B"], 64, "herald: --lead: '-5m' is not a time span: it is negative"),
        (["deliver", "--in", "30m"], 64, "herald: no recipient name: pass --name NAME, or set profile.name in the config (or HERALD_PROFILE_NAME)"),
        (["deliver", "--in", "30m", "--name", "A"], 64, "herald: no delivery address: pass --address ADDRESS, or set profile.address in the config (or HERALD_PROFILE_ADDRESS)"),
        (["deliver", "--in", "30m", "--name", "A", "--address", "B", "--item", "milk x0"], 64, "herald: --item: 'milk x0' has a quantity outside 1 to 1000000"),
        (["timer", "0", "tea"], 64, "herald: SPAN: '0' must be longer than 0"),
        (["cancel", "nosuchjob"], 65, "herald: no pending job 'nosuchjob' (see 'herald list')"),
        (["show", "nosuchjob"], 65, "herald: no pending job 'nosuchjob' (see 'herald list')"),
        (["remind", "--config", "/nonexistent.yaml", "--in", "5m", "tea"], 65, "herald: cannot read config '/nonexistent.yaml': no such file"),
    ] as [([String], Int32, String)])
    func badInputIsRefusedWithOneLine(arguments: [String], status: Int32, message: String) throws {
        let scene = try Scene(server: false)
        let r = try runCommand(Binaries.herald, arguments, environment: scene.environment)
        #expect(r.status == status)
        #expect(r.stderr == message + "\n")
        #expect(r.stdout.isEmpty)
        #expect(scene.files("new").isEmpty)
        #expect(scene.files("jobs").isEmpty)
    }

    @Test func aBadConfigIsRefusedNamingFileKeyAndReason() throws {
        let scene = try Scene(server: false)
        try scene.writeConfig("defaults:\n  lead: 15 minutess\n")
        let r = try scene.herald("remind", "--in", "5m", "tea")
        #expect(r.status == 65)
        #expect(r.stderr == "herald: config '\(scene.configPath)': key 'defaults.lead': \"15 minutess\" is not a time span: unknown unit 'minutess' (use us, ms, s, min, h, d, w, M, y)\n")
        #expect(scene.files("new").isEmpty)
    }

    @Test func jobsPastTheLimitAreRefusedWithAClearError() throws {
        let scene = try Scene(server: false)
        try scene.writeConfig("limits:\n  jobs: 2\n")
        #expect(try scene.herald("remind", "--in", "1h", "one").status == 0)
        #expect(try scene.herald("remind", "--in", "1h", "two").status == 0)
        let third = try scene.herald("remind", "--in", "1h", "three")
        #expect(third.status == 1)
        #expect(third.stderr == "herald: the spool holds 2 jobs and its limit is 2 (limits.jobs in the config): cancel some, or raise the limit\n")
        #expect(scene.files("new").count == 2)
        let batch = try scene.herald("import", "-", stdin: "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2099-01-01T00:00Z\",\"text\":\"x\"}\n")
        #expect(batch.status == 1)
    }

    @Test func unknownFlagsGetSuggestions() throws {
        let scene = try Scene(server: false)
        let r = try scene.herald("remind", "--inn", "5m", "tea")
        #expect(r.status == 64)
        #expect(r.stderr.contains("Unknown option '--inn'"))
    }

    @Test func listShowAndCancelWorkWithoutTheDaemon() throws {
        let scene = try Scene(server: false)
        try scene.writeConfig("profile:\n  name: Alice\n  address: 12 Elm St\n")
        let d = try scene.herald("deliver", "--in", "2h", "--id", "order-1", "--item", "apple", "--item", "milk ×2")
        #expect(d.status == 0, "\(d.stderr)")
        try scene.herald("remind", "--in", "1h", "--id", "tea", "Tea time")
        let list = try scene.herald("list")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("ID"))
        #expect(lines[1].hasPrefix("tea ") && lines[1].hasSuffix("reminder           Tea time"))
        #expect(lines[2].hasPrefix("order-1") && lines[2].contains("delivery/heads-up"))
        // The WHAT column is "arrives <time>, at <address>, <items>", cut to 60 characters with
        // "…": how much of the items fits depends on the time's length ("tomorrow 00:18:41" when
        // run within 2 h of midnight).
        let time = try #require(lines[2].range(of: "arrives ").flatMap { start in
            lines[2].range(of: ", at 12 Elm St", range: start.upperBound..<lines[2].endIndex).map { lines[2][start.upperBound..<$0.lowerBound] }
        })
        let what = "arrives \(time), at 12 Elm St, 3 items: apple, milk ×2"
        #expect(lines[2].hasSuffix(what.count > 60 ? String(what.prefix(59)) + "…" : what), "\(lines[2])")
        let json = try scene.herald("list", "--json")
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.map { $0["id"] as? String } == ["tea", "order-1"])
        #expect((parsed?[1]["job"] as? [String: Any])?["kind"] as? String == "delivery")
        let show = try scene.herald("show", "ord")
        #expect(show.status == 0)
        #expect(show.stdout.contains("id:       order-1"))
        #expect(show.stdout.contains("\"name\": \"milk\""))
        let cancel = try scene.herald("cancel", "tea", "order-1")
        #expect(cancel.stdout == "Cancelled tea (reminder)\nCancelled order-1 (delivery/heads-up)\n")
        #expect(try scene.herald("list").stdout == "No pending jobs.\n")
        #expect(scene.files("cancelled") == ["order-1.json", "tea.json"])
    }

    @Test func validateChecksFilesAgainstTheFormat() throws {
        let scene = try Scene(server: false)
        let good = scene.directory + "/good.json", bad = scene.directory + "/bad.json", lines = scene.directory + "/jobs.jsonl"
        try "{\"version\":1,\"kind\":\"reminder\",\"id\":\"a\",\"at\":\"2030-01-01T09:00:00+01:00\",\"text\":\"x\"}".write(toFile: good, atomically: true, encoding: .utf8)
        try "{\"version\":1,\"kind\":\"reminder\",\"at\":\"tomorrow\",\"text\":\"x\"}".write(toFile: bad, atomically: true, encoding: .utf8)
        try "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2030-01-01T09:00Z\",\"text\":\"x\"}\n\n{\"version\":1}\n".write(toFile: lines, atomically: true, encoding: .utf8)
        let ok = try scene.herald("validate", good)
        #expect(ok.status == 0)
        #expect(ok.stdout == "\(good): ok (reminder a)\n")
        let r = try scene.herald("validate", good, bad, lines)
        #expect(r.status == 65)
        #expect(r.stdout == "\(good): ok (reminder a)\n\(bad): field 'at' is not an ISO-8601 time with offset or Z (\"tomorrow\")\n\(lines):3: missing field 'kind'\n")
        let schema = Binaries.repositoryRoot + "/schema/job-v1.schema.json"
        #expect(FileManager.default.fileExists(atPath: schema))
    }

    @Test func importValidatesEverythingBeforeWritingAnything() throws {
        let scene = try Scene()
        let future = ISO8601DateFormatter().string(from: Date().addingTimeInterval(2))
        let good = (1...50).map { "{\"version\":1,\"kind\":\"reminder\",\"at\":\"\(future)\",\"text\":\"bulk \($0)\"}" }
        let withBad = good + ["{\"version\":1,\"kind\":\"reminder\",\"at\":\"\(future)\"}"]
        let refused = try scene.herald("import", "-", stdin: withBad.joined(separator: "\n"))
        #expect(refused.status == 65)
        #expect(refused.stderr == "herald: line 51: a reminder needs a non-empty 'text' or 'title'\nherald: nothing imported: 1 problem in '-'\n")
        #expect(scene.files("new").isEmpty)
        let imported = try scene.herald("import", "-", stdin: good.joined(separator: "\n") + "\n")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Imported 50 jobs (new/import-"))
        #expect(try scene.herald("list", "--json").stdout.components(separatedBy: "\"kind\": \"reminder\"").count == 51)
        try scene.startDaemon()
        let received = try #require(scene.server).waitForNotifications(50)
        #expect(Set(received.map(\.summary)) == Set((1...50).map { "bulk \($0)" }))
        #expect(scene.files("done").count == 50)
    }

    /// An import whose id is pending already is refused, whether the job is in jobs/, a file
    /// of new/, or a line of a batch waiting there (one without an id counts as the id the
    /// intake gives it), and nothing is written.
    @Test func importRefusesIdsAlreadyPending() throws {
        let scene = try Scene()
        let future = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
        func line(_ id: String?) -> String {
            "{\"version\":1,\"kind\":\"reminder\",\(id.map { "\"id\":\"\($0)\"," } ?? "")\"at\":\"\(future)\",\"text\":\"t\"}"
        }
        #expect(try scene.herald("remind", "--in", "1h", "--id", "tea", "Tea").status == 0)
        let batch = try scene.herald("import", "-", stdin: line("a1") + "\n" + line(nil) + "\n")
        #expect(batch.status == 0, "\(batch.stderr)")
        // A batch another program wrote: its line without an id gets "other-2" at intake.
        try (line("b1") + "\n" + line(nil) + "\n").write(toFile: scene.spoolPath + "/new/other.jsonl", atomically: false, encoding: .utf8)
        let waiting = scene.files("new")
        for id in ["tea", "a1", "b1", "other-2"] {
            let refused = try scene.herald("import", "-", stdin: line("fresh") + "\n" + line(id) + "\n")
            #expect(refused.status == 65)
            #expect(refused.stderr == "herald: nothing imported: id '\(id)' is already pending\n")
            #expect(scene.files("new") == waiting)
        }
        // Taken in by heraldd: the ids now come from jobs/.
        try scene.startDaemon()
        #expect(waitUntil { scene.files("new").isEmpty && scene.files("jobs").count == 5 })
        let inJobs = try scene.herald("import", "-", stdin: line("a1") + "\n")
        #expect(inJobs.stderr == "herald: nothing imported: id 'a1' is already pending\n")
        #expect(try scene.herald("import", "-", stdin: line("fresh") + "\n").status == 0)
    }

    @Test func helpExplainsEachCommand() throws {
        let scene = try Scene(server: false)
        let help = try scene.herald("deliver", "--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("--lead <span>"))
        #expect(help.stdout.contains("herald deliver --in 40m --item apple --item \"milk x2\""))
        let daemonHelp = try runCommand(Binaries.heraldd, ["--help"], environment: scene.environment)
        #expect(daemonHelp.status == 0)
        #expect(daemonHelp.stdout.contains("--notifier <notifier>"))
        #expect(try runCommand(Binaries.heraldd, ["--version"], environment: scene.environment).stdout
                == (try scene.herald("--version").stdout))
        let bad = try runCommand(Binaries.heraldd, ["--notifier", "dbus"], environment: scene.environment)
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("heraldd: 'dbus' is not a notifier for '--notifier': use libnotify or console\nUsage: heraldd "))
    }

    /// heraldd links no Foundation (only FoundationEssentials would come with swift-argument-parser,
    /// and all of Foundation brings ICU's data): 62 MB of the package before (BENCHMARKS.md,
    /// "Installed size"). The debug build links Swift's libraries dynamically, so its NEEDED
    /// entries say which it uses.
    @Test func theDaemonLinksNoFoundation() throws {
        let dynamic = try runCommand("/usr/bin/readelf", ["-d", Binaries.heraldd], environment: [:])
        #expect(dynamic.status == 0)
        let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("libnotify") })
        #expect(!needed.contains { $0.contains("Foundation") }, "\(needed)")
    }
}

/// The systemd user unit passes `systemd-analyze --user verify`.
struct SystemdUnitTests {
    @Test func theUserUnitVerifies() throws {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("herald-xdg-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        // verify resolves ExecStart=, so point it at the built binary through a copy of the unit;
        // the man pages it names are installed by `make install`, not here.
        let unit = try String(contentsOfFile: Binaries.repositoryRoot + "/systemd/heraldd.service", encoding: .utf8)
        #expect(unit.contains("Type=notify") || unit.contains("Type=simple"))
        for key in ["MemoryMax=", "MemoryHigh=", "NoNewPrivileges=yes", "LockPersonality=yes", "RestrictRealtime=yes",
                    "SystemCallArchitectures=native", "SystemCallFilter=", "UMask=0077"] {
            #expect(unit.contains("\n" + key), "the unit lacks \(key)")
        }
        let copy = runtime + "/heraldd.service"
        try unit.replacingOccurrences(of: "%h/.local/bin/heraldd", with: Binaries.heraldd).write(toFile: copy, atomically: true, encoding: .utf8)
        let r = try runCommand("/usr/bin/systemd-analyze", ["--user", "--man=no", "verify", copy],
                               environment: ["XDG_RUNTIME_DIR": runtime, "PATH": "/usr/bin:/bin", "HOME": runtime])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(!r.stderr.contains("heraldd.service:"), "\(r.stderr)")
    }
}
