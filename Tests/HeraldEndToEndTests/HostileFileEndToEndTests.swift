import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// Nothing a job file can hold stops Herald: escape sequences reach no terminal as controls,
/// and a sound that names a FIFO or a device holds up no popup.
@Suite struct HostileFileEndToEndTests {
    /// ESC [31m, BEL, a C1 CSI (U+009B), an OSC that would retitle the terminal, and the
    /// right-to-left override that would show "x" before the rest.
    static let title = "Tea \u{1B}[31mred\u{1B}[0m\u{07}\u{9B}2J\u{202E}x"
    static let text = "Steep \u{1B}]0;owned\u{07} now\u{2066}"

    /// Writes a job into new/ as any program may (tmp/, then a rename), due `seconds` from now
    /// (to the millisecond: a whole second would leave heraldd as little as none to take it in).
    func drop(_ scene: Scene, _ id: String, in seconds: TimeInterval, _ fields: [(String, JSONWriter.Value)]) throws {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let at = format.string(from: Date().addingTimeInterval(seconds))
        var object: [(String, JSONWriter.Value)] = [("version", .int(1)), ("kind", .string("reminder")), ("id", .string(id)),
                                                    ("at", .string(at))]
        object += fields
        let job = JSONWriter.render(.object(object))
        let tmp = scene.spoolPath + "/tmp/\(id).json"
        try job.write(toFile: tmp, atomically: false, encoding: .utf8)
        chmod(tmp, 0o600)
        #expect(rename(tmp, scene.spoolPath + "/new/\(id).json") == 0)
    }

    /// Whether `output` holds a character a terminal would obey (or reorder text by).
    func obeyed(_ output: String) -> [String] {
        output.unicodeScalars.filter { s in
            (s.value < 0x20 && s != "\n" && s != "\t") || (0x7F...0x9F).contains(s.value)
                || (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
        }.map { String(format: "U+%04X", $0.value) }
    }

    @Test func historyListAndShowPrintEscapeSequencesAsTextNotAsControls() throws {
        let scene = try Scene()
        try scene.startDaemon()
        try drop(scene, "evil", in: 1, [("title", .string(Self.title)), ("text", .string(Self.text))])
        try drop(scene, "evil-later", in: 3600, [("title", .string(Self.title)), ("text", .string(Self.text))])
        _ = try #require(scene.server).waitForNotifications(1)
        #expect(waitUntil { scene.history().contains { $0.id == "evil" && $0.outcome == .shown } })

        let history = try scene.herald("history")
        #expect(history.status == 0)
        #expect(obeyed(history.stdout) == [])
        #expect(history.stdout.contains("Tea ^[[31mred^[[0m^G\\u{9b}2J\\u{202e}x"), "\(history.stdout)")

        let list = try scene.herald("list")
        #expect(list.status == 0)
        #expect(obeyed(list.stdout) == [])
        // WHAT is cut at 60 characters.
        #expect(list.stdout.contains("Tea ^[[31mred^[[0m^G\\u{9b}2J\\u{202e}x: Steep ^[]0;owned"), "\(list.stdout)")

        let show = try scene.herald("show", "evil-later")
        #expect(show.status == 0)
        #expect(obeyed(show.stdout) == [])
        #expect(show.stdout.contains(#""title": "Tea \u001b[31mred\u001b[0m\u0007\u009b2J\u202ex""#), "\(show.stdout)")

        for json in [try scene.herald("history", "--json"), try scene.herald("list", "--json")] {
            #expect(json.status == 0)
            #expect(obeyed(json.stdout) == [])
            #expect(json.stdout.contains(#"Tea \u001b[31mred"#))
        }

        // An error that quotes a value from the command line or a file shows it too.
        let missing = try scene.herald("show", "no\u{1B}]0;x\u{07}such")
        #expect(missing.status == 65)
        #expect(obeyed(missing.stderr) == [])
        #expect(missing.stderr.contains("'no^[]0;x^Gsuch'"))
    }

    @Test func theConsoleNotifierAndTheLogShowEscapeSequencesAsText() throws {
        let scene = try Scene(server: false)
        let daemon = try scene.startDaemon(["--notifier", "console", "--log-level", "debug"])
        try drop(scene, "evil", in: 1, [("title", .string(Self.title)), ("text", .string(Self.text))])
        #expect(waitUntil { daemon.output.contains("Steep") })
        #expect(obeyed(daemon.output) == [])
        // The popup's renderer drops control characters; the reorderings are shown.
        #expect(daemon.output.contains("] Tea [31mred[0m2J\\u{202e}x\n"), "\(daemon.output)")
        #expect(daemon.output.contains("    Steep ]0;owned now\\u{2066}\n"))
        // The debug log quotes the popup: shown there too.
        #expect(waitUntil { daemon.logged("Showing notification", "job.id=evil", "\\u{202e}x") }, "\(daemon.log)")
        #expect(obeyed(daemon.log) == [])
    }

    /// The sound file is opened without waiting and checked on its descriptor: a FIFO that
    /// nobody writes, a symbolic link and a device are refused, logged without their path, and
    /// every popup, those and the ones after them, shows on time. With a sound server to play
    /// to: without one libcanberra gives up before it opens the file, and a FIFO blocked
    /// nothing even before the check.
    @Test func aSoundThatIsNotARegularFileHoldsUpNoPopup() throws {
        let scene = try Scene()
        let pulse = try NullSinkRecorder(directory: scene.directory)
        defer { pulse.stop() }
        scene.extraEnvironment["PULSE_SERVER"] = pulse.server
        let fifo = scene.directory + "/alarm.oga"
        #expect(mkfifo(fifo, 0o600) == 0)
        let real = scene.directory + "/real.oga"
        FileManager.default.createFile(atPath: real, contents: Data(repeating: 0, count: 64))
        let link = scene.directory + "/link.oga"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)

        // The CLI tells at once; heraldd checks again when it plays.
        let refused = try scene.herald("remind", "--in", "1h", "--sound", fifo, "Tea")
        #expect(refused.status == 64)
        #expect(refused.stderr == "herald: --sound: cannot play '\(fifo)': not a regular file (a FIFO)\n")

        let daemon = try scene.startDaemon()
        try drop(scene, "fifo", in: 1, [("title", .string("FIFO sound")), ("sound", .string(fifo))])
        try drop(scene, "after", in: 2, [("title", .string("Right after"))])
        try drop(scene, "link", in: 3, [("title", .string("Linked sound")), ("sound", .string(link))])
        try drop(scene, "device", in: 4, [("title", .string("Device sound")), ("sound", .string("/dev/zero"))])
        try drop(scene, "last", in: 5, [("title", .string("Last"))])
        let shown = try #require(scene.server).waitForNotifications(5)
        #expect(shown.map(\.summary) == ["FIFO sound", "Right after", "Linked sound", "Device sound", "Last"])
        // A file is never handed to the server to open; the server is told to play nothing.
        #expect(shown.allSatisfy { $0.hints["sound-file"] == nil })
        #expect(shown.map { $0.hints["suppress-sound"] != nil } == [true, false, true, true, false])
        #expect(waitUntil { scene.history().filter { $0.outcome == .shown }.count == 5 })
        for record in scene.history() where record.outcome == .shown {
            #expect(record.lateness < .seconds(1), "\(record.id) was \(record.lateness) late")
        }
        #expect(waitUntil { daemon.logged("Cannot play the popup's sound file", "job.id=device", "a device") })
        #expect(daemon.logged("Cannot play the popup's sound file", "job.id=fifo", "not a regular file (a FIFO)"))
        #expect(daemon.logged("Cannot play the popup's sound file", "job.id=link", "a symbolic link"))
        for name in ["alarm.oga", "link.oga", "/dev/zero"] {
            #expect(!daemon.log.contains(name), "a path above debug level: \(daemon.log)")
        }
    }

    /// A job file in jobs/ renamed to a spelling heraldd never writes (`lz@0<instant>.json`:
    /// a leading zero) is not taken for the job: it is put into failed/ with why at start, and
    /// neither heraldd nor `herald list` lists it as pending.
    @Test func aJobFileNameNotSpelledAsHeralddWritesItIsQuarantined() throws {
        let scene = try Scene(server: false)
        try scene.startDaemon(["--notifier", "console"])
        #expect(try scene.herald("remind", "--id", "lz", "--in", "1h", "Leading zero").status == 0)
        #expect(waitUntil { scene.files("jobs").contains { $0.hasPrefix("lz@") } })
        _ = scene.daemon?.stop(SIGTERM)
        let name = try #require(scene.files("jobs").first { $0.hasPrefix("lz@") })
        let odd = "lz@0" + name.dropFirst(3)
        #expect(rename(scene.spoolPath + "/jobs/" + name, scene.spoolPath + "/jobs/" + odd) == 0)
        #expect(!(try scene.herald("list").stdout.contains("lz")))
        try scene.startDaemon(["--notifier", "console"])
        #expect(waitUntil { scene.files("failed").contains(odd) })
        // The reason is written just after the move, and status.json's count up to a second later.
        #expect(waitUntil { scene.read("failed/" + odd + ".reason").contains("no sign or leading zeros") })
        #expect(scene.files("jobs").isEmpty)
        #expect(waitUntil { scene.status()?.pending == 0 })
    }

    /// A `jobs/` that cannot be listed is said, never shown as an empty list: `herald list`,
    /// `show` and `cancel` name the folder and why, exit 74, and change nothing.
    @Test func aSpoolThatCannotBeListedIsSaidNotEmpty() throws {
        let scene = try Scene(server: false)
        #expect(try scene.herald("remind", "--id", "kept", "--in", "1h", "Kept").status == 0)
        #expect(try scene.herald("list").stdout.contains("kept"))
        // Not a folder any more (root reads any folder, so a mode would not stop the listing).
        #expect(rename(scene.spoolPath + "/jobs", scene.directory + "/jobs.aside") == 0)
        #expect(FileManager.default.createFile(atPath: scene.spoolPath + "/jobs", contents: Data()))
        for arguments in [["list"], ["show", "kept"], ["cancel", "kept"]] {
            let r = try scene.herald(arguments)
            #expect(r.status == 74, "\(arguments): \(r.status) \(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("cannot list '\(scene.spoolPath)/jobs': Not a directory"), "\(arguments): \(r.stderr)")
            #expect(!r.stdout.contains("ID "), "\(arguments): an empty listing was printed")
        }
        #expect(scene.files("new").count == 1)  // the reminder, not yet taken in, is still there
    }
}
