import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// A shared calendar is written by others (issue 38): each test plays one way a hostile peer,
/// or a hostile local program, tried to switch Herald off, against the real heraldd and herald.
@Suite struct SharedCalendarEndToEndTests {
    typealias Hostile = HostileEndToEndTests

    /// A calendar item with one alarm at its start, `seconds` from now.
    static func item(_ uid: String, in seconds: Double, summary: String? = nil) -> String {
        let start = Hostile.icsTime(Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up)))
        return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//peer//EN\r\nBEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20261101T000000Z\r\n"
            + "DTSTART:\(start)\r\nSUMMARY:\(summary ?? uid)\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:PT0S\r\n"
            + "END:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    /// A scene whose synced collection (and only calendar) is `cal/family`.
    static func synced(_ extra: String = "") throws -> (Scene, String) {
        let scene = try Scene()
        let vdir = scene.directory + "/cal/family"
        try FileManager.default.createDirectory(atPath: vdir, withIntermediateDirectories: true)
        try scene.writeConfig("sync:\n  calendar: \(vdir)\n" + extra)
        return (scene, vdir)
    }

    static func write(_ text: String, to path: String) throws {
        try text.write(toFile: path + ".tmp", atomically: false, encoding: .utf8)
        rename(path + ".tmp", path)
    }

    func calendarJobs(_ scene: Scene) -> [String] { scene.files("jobs").filter { $0.hasPrefix("cal-") } }

    // 1

    /// A flood of 1,001 one-item files in the shared collection, with `limits.jobs: 1000`: the
    /// source plans its share (the nearest 500), your own synced reminder gets a job and fires,
    /// nothing lands in failed/ (then or at a re-plan), and status and doctor say so, once.
    @Test func aFloodInASharedCalendarLeavesRoomForYourOwnReminder() throws {
        let (scene, vdir) = try Self.synced("limits:\n  jobs: 1000\n")
        for k in 0..<1001 { try Self.item("flood-\(k)", in: 2 * 86_400 + Double(k)).write(toFile: vdir + "/flood-\(k).ics", atomically: false, encoding: .utf8) }
        try scene.startDaemon()
        #expect(waitUntil(timeout: 60) { calendarJobs(scene).count == 500 }, "\(calendarJobs(scene).count) calendar jobs")
        let made = try scene.herald("remind", "--sync", "--in", "8s", "Take the pills")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(waitUntil(timeout: 40) { scene.history().contains { $0.title == "Take the pills" && $0.outcome == .shown } },
                "your reminder did not fire: \(scene.daemon!.log.suffix(1500))")
        #expect(scene.files("failed").isEmpty)
        let overLines = scene.daemon!.log.components(separatedBy: "holds more than its share").count
        // A change re-plans the source: still nothing refused, and nothing logged again.
        try Self.item("flood-0", in: 2 * 86_400 + 5).write(toFile: vdir + "/flood-0.ics", atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 20) { scene.daemon!.log.components(separatedBy: "Calendar planned").count >= 4 })
        #expect(scene.files("failed").isEmpty)
        #expect(calendarJobs(scene).count <= 500)
        let status = try scene.herald("status")
        #expect(status.stdout.contains("calendar: attention: ~/cal/family: 1,00"), "\(status.stdout)")
        #expect(status.stdout.contains("500 planned (its share is 500)"), "\(status.stdout)")
        let doctor = try scene.herald("doctor")
        #expect(doctor.stdout.contains("calendars.limit"), "\(doctor.stdout)")
        #expect(scene.daemon!.log.components(separatedBy: "holds more than its share").count == overLines, "logged once per change, not per plan")
    }

    // 2

    /// A peer's item named like a local job (`herald-stretch.ics`) never takes its commands:
    /// `herald cancel stretch` cancels the local job and leaves the item alone, with a note.
    /// Ids of calendar jobs (`cal-`) are theirs alone.
    @Test func aSyncedItemNamedLikeALocalJobNeverTakesItsCommands() throws {
        let (scene, vdir) = try Self.synced()
        try scene.startDaemon()
        #expect(try scene.herald("remind", "--id", "stretch", "--in", "1h", "Stretch").status == 0)
        try Self.write(Self.item("herald-stretch", in: 7200, summary: "Peer's"), to: vdir + "/herald-stretch.ics")
        #expect(waitUntil(timeout: 20) { calendarJobs(scene).count == 1 })
        let show = try scene.herald("show", "stretch")
        #expect(show.stdout.contains("kind:     reminder") && show.stderr.contains("is left alone"), "\(show.stdout) \(show.stderr)")
        let cancel = try scene.herald("cancel", "stretch")
        #expect(cancel.status == 0 && cancel.stdout == "Cancelled stretch (reminder)\n", "\(cancel.stdout) \(cancel.stderr)")
        #expect(cancel.stderr.contains("the synced item \(vdir)/herald-stretch.ics of that name is left alone"), "\(cancel.stderr)")
        #expect(FileManager.default.fileExists(atPath: vdir + "/herald-stretch.ics"), "the peer's item was deleted")
        #expect(scene.files("cancelled").contains { $0.hasPrefix("stretch@") })
        #expect(calendarJobs(scene).count == 1)

        let reserved = try scene.herald("remind", "--id", "cal-0123", "--in", "1h", "Mine")
        #expect(reserved.status == 64 && reserved.stderr.contains("'cal-0123' starts with 'cal-'"), "\(reserved.stderr)")
        let forged = #"{"version":1,"kind":"reminder","id":"cal-forged","at":"\#(Hostile.iso(Date().addingTimeInterval(3600)))","text":"x"}"#
        try forged.write(toFile: scene.spoolPath + "/tmp/f.json", atomically: false, encoding: .utf8)
        chmod(scene.spoolPath + "/tmp/f.json", 0o600)
        rename(scene.spoolPath + "/tmp/f.json", scene.spoolPath + "/new/f.json")
        #expect(waitUntil { scene.files("failed").contains("f.json.reason") })
        #expect(scene.read("failed/f.json.reason").contains("only calendar jobs may"))
    }

    // 3

    /// A calendar job in new/ that names `<collection>/../../victim.txt`: cancel, reschedule
    /// and edit act on the job, never on a file outside the collection.
    @Test func commandsNeverTouchAFileOutsideTheCollection() throws {
        let (scene, vdir) = try Self.synced()
        let victim = scene.directory + "/victim.txt"
        try "keep me\n".write(toFile: victim, atomically: true, encoding: .utf8)
        try scene.startDaemon()
        // After the source's first plan: that plan would take the forged job (no item of the
        // calendar's) away before the commands below could be tried on it.
        #expect(waitUntil { scene.daemon!.log.contains("Calendar planned") })
        let at = Hostile.iso(Date().addingTimeInterval(3600))
        let forged = #"{"version":1,"kind":"calendar","id":"cal-forged3","title":"Forged","calendar":{"file":"\#(vdir)/../../victim.txt","uid":"herald-x","source":"\#(vdir)","writeBack":true},"alarms":[{"at":"\#(at)","start":"\#(at)","alarm":0}]}"#
        try forged.write(toFile: scene.spoolPath + "/tmp/c.json", atomically: false, encoding: .utf8)
        chmod(scene.spoolPath + "/tmp/c.json", 0o600)
        rename(scene.spoolPath + "/tmp/c.json", scene.spoolPath + "/new/c.json")
        #expect(waitUntil { scene.files("jobs").contains { $0.hasPrefix("cal-forged3@") } })
        _ = try scene.herald("reschedule", "cal-forged3", "--in", "2h")
        let cancel = try scene.herald("cancel", "cal-forged3")
        #expect(cancel.status == 0 && cancel.stdout.hasPrefix("Cancelled cal-forged3 (calendar"), "\(cancel.stdout) \(cancel.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")
        #expect(scene.files("cancelled").contains { $0.hasPrefix("cal-forged3@") })
    }

    // 4

    /// A FIFO (and a link to one) in a calendar folder stops nothing: the folder's other items
    /// and every reminder fire, `herald calendar check` names them at once, SIGTERM ends heraldd
    /// within a second.
    @Test func aFifoInACalendarFolderStopsNothing() throws {
        let (scene, vdir) = try Self.synced()
        #expect(mkfifo(vdir + "/fifo.ics", 0o600) == 0)
        #expect(symlink(vdir + "/fifo.ics", vdir + "/link.ics") == 0)
        try Self.item("good", in: 4, summary: "Good item").write(toFile: vdir + "/good.ics", atomically: false, encoding: .utf8)
        let daemon = try scene.startDaemon()
        #expect(try scene.herald("remind", "--in", "2s", "Probe").status == 0)
        #expect(waitUntil(timeout: 20) { ["Probe", "Good item"].allSatisfy { t in scene.history().contains { $0.title == t && $0.outcome == .shown } } },
                "\(daemon.log.suffix(1500))")
        let started = Date()
        let check = try scene.herald("calendar", "check", vdir)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(check.stderr.contains("fifo.ics: it is not a regular file") && check.stderr.contains("link.ics: it is a symbolic link"), "\(check.stderr)")
        let stopped = Date()
        _ = daemon.stop(SIGTERM, timeout: 5)
        #expect(Date().timeIntervalSince(stopped) < 1.5, "heraldd took \(Date().timeIntervalSince(stopped)) s to stop")
    }

    /// A calendar on a mount that hangs (a FUSE file system whose reads never return) costs
    /// that source alone: the other source plans, reminders fire, `herald status` says the
    /// source does not answer, and SIGTERM still ends heraldd within a second.
    @Test func aCalendarOnAHungMountCostsThatSourceAlone() throws {
        let scene = try Scene()
        let hung = scene.directory + "/hung", vdir = scene.directory + "/cal"
        for dir in [hung, vdir] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let fs = Process()
        fs.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        fs.arguments = [Binaries.supportDirectory + "/hangfs.py", hung]
        try fs.run()
        defer {
            _ = try? runCommand("/usr/bin/fusermount", ["-u", "-z", hung], environment: [:])
            kill(fs.processIdentifier, SIGKILL)
        }
        try #require(waitUntil { (try? FileManager.default.contentsOfDirectory(atPath: hung)) == ["stuck.ics"] }, "the FUSE mount did not come up")
        try Self.item("other", in: 4, summary: "Other source").write(toFile: vdir + "/other.ics", atomically: false, encoding: .utf8)
        try scene.writeConfig("calendars:\n  sources: \(hung), \(vdir)\n")
        scene.extraEnvironment["HERALD_CALENDAR_READ_DEADLINE_MS"] = "1500"
        let daemon = try scene.startDaemon()
        #expect(try scene.herald("remind", "--in", "3s", "Probe").status == 0)
        #expect(waitUntil(timeout: 20) { ["Probe", "Other source"].allSatisfy { t in scene.history().contains { $0.title == t && $0.outcome == .shown } } },
                "\(daemon.log.suffix(1500))")
        #expect(waitUntil(timeout: 10) { scene.status()?.calendars.first { $0.source == hung }?.notAnsweringSince != nil })
        let status = try scene.herald("status")
        #expect(status.stdout.contains("calendar: attention: ~/hung: not answering since"), "\(status.stdout)")
        #expect(daemon.logged("A calendar source does not answer", hung))
        let stopped = Date()
        _ = daemon.stop(SIGTERM, timeout: 5)
        #expect(Date().timeIntervalSince(stopped) < 1.5, "heraldd took \(Date().timeIntervalSince(stopped)) s to stop")
    }

    // 5

    /// `--sync --every minutely` (the README's once a minute) is planned and fires; so is `*:0/5`.
    @Test func aSyncedReminderEveryMinuteFires() throws {
        let (scene, _) = try Self.synced()
        try scene.startDaemon()
        let every = try scene.herald("remind", "--sync", "--every", "minutely", "Blink")
        #expect(every.status == 0, "\(every.stderr)")
        let five = try scene.herald("remind", "--sync", "--every", "*:0/5", "Look away")
        #expect(five.status == 0, "\(five.stderr)")
        #expect(waitUntil(timeout: 20) { calendarJobs(scene).count == 2 }, "\(scene.daemon!.log.suffix(1500))")
        #expect(waitUntil(timeout: 75) { scene.history().contains { $0.title == "Blink" && $0.outcome == .shown } })
        #expect(!scene.daemon!.log.contains("is skipped"))
    }

    // 6

    /// What herald accepts heraldd shows: a text that is too long once written out (control
    /// characters take six bytes, quotes two) is refused with the reason, and nothing written.
    @Test func theCLIRefusesAJobHeralddWouldRefuse() throws {
        let scene = try Scene(server: false)
        for text in [String(repeating: "\u{1}", count: 12_000), String(repeating: "\"", count: 40_000), String(repeating: "a", count: 70_000)] {
            let r = try scene.herald("remind", "--in", "1h", text)
            #expect(r.status == 65 && r.stderr.contains("more than the 64 KiB heraldd takes (its text takes"), "\(r.stderr.prefix(300))")
        }
        #expect(scene.files("new").isEmpty)
        let fits = try scene.herald("remind", "--in", "1h", String(repeating: "\u{1}", count: 10_000))
        #expect(fits.status == 0, "\(fits.stderr.prefix(300))")
        try scene.startDaemon(["--notifier", "console"])
        #expect(waitUntil { scene.files("jobs").count == 1 })
        #expect(scene.files("failed").isEmpty)
    }

    // 7

    /// An icon from a job file that is a FIFO, a device or past its bounds is dropped with a log
    /// line (the popup still shows); the CLI refuses them.
    @Test func iconsFromJobFilesGetTheCLIsChecks() throws {
        let scene = try Scene()
        let fifo = scene.directory + "/icon.png"
        #expect(mkfifo(fifo, 0o600) == 0)
        let daemon = try scene.startDaemon()
        let icons = [fifo, "/dev/zero", String(repeating: "i", count: 60_000), "alarm-symbolic"]
        for (k, icon) in icons.enumerated() {
            let job = #"{"version":1,"kind":"reminder","id":"icon\#(k)","at":"\#(Hostile.iso(Date().addingTimeInterval(2)))","text":"Icon \#(k)","icon":"\#(icon)"}"#
            try job.write(toFile: scene.spoolPath + "/tmp/i\(k).json", atomically: false, encoding: .utf8)
            chmod(scene.spoolPath + "/tmp/i\(k).json", 0o600)
            rename(scene.spoolPath + "/tmp/i\(k).json", scene.spoolPath + "/new/i\(k).json")
        }
        let shown = try #require(scene.server).waitForNotifications(4, timeout: 20)
        #expect(shown.count == 4, "\(daemon.log.suffix(1500))")
        #expect(shown.filter { $0.icon.isEmpty }.count == 3 && shown.contains { $0.icon == "alarm-symbolic" }, "\(shown.map(\.icon.count))")
        #expect(daemon.log.components(separatedBy: "A popup's icon is dropped").count - 1 == 3)
        for icon in [fifo, "/dev/zero", String(repeating: "i", count: 60_000)] {
            let r = try scene.herald("remind", "--in", "1h", "--icon", icon, "x")
            #expect(r.status == 64 && r.stderr.contains("--icon"), "\(r.stderr.prefix(200))")
        }
    }

    // 8

    /// Bad files that come and go are forgotten with them: heraldd's memory stays flat over
    /// six rounds of 5,000 uniquely named bad files made and removed.
    @Test func problemsOfFilesThatCameAndWentAreForgotten() throws {
        let (scene, vdir) = try Self.synced()
        let daemon = try scene.startDaemon()
        var rss: [Int] = []
        func plans(of files: Int) -> Int { daemon.log.components(separatedBy: "files=\(files) items=").count - 1 }
        for round in 0..<6 {
            let full = plans(of: 5000), empty = plans(of: 0)
            for k in 0..<5000 {
                try "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:bad-\(round)-\(k)\r\nDTSTART:20270105T090000Z\r\nRRULE:FREQ=SOMETIMES\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
                    .write(toFile: vdir + "/bad-\(round)-\(k).ics", atomically: false, encoding: .utf8)
            }
            #expect(waitUntil(timeout: 60) { plans(of: 5000) > full }, "round \(round) was not planned")
            for k in 0..<5000 { unlink(vdir + "/bad-\(round)-\(k).ics") }
            #expect(waitUntil(timeout: 60) { plans(of: 0) > empty }, "round \(round)'s removal was not planned")
            rss.append(ProcessInfoReader.kibibytes("VmRSS", pid: daemon.pid) ?? 0)
        }
        // Before the change, each round kept about 1.7 MB: 6.6 MB over these four.
        #expect(rss[5] - rss[1] < 3 * 1024, "heraldd grew \(rss[1]) → \(rss[5]) KiB over four rounds: \(rss)")
    }

    // 9

    /// More clients than heraldd serves at once hold the socket: `herald cancel` waits its turn
    /// (or says heraldd is busy), and never dies of SIGPIPE.
    @Test func aCrowdOnTheSocketNeverKillsTheCLI() throws {
        let scene = try Scene()
        try scene.startDaemon()
        for k in 0..<5 { #expect(try scene.herald("remind", "--id", "crowd\(k)", "--in", "1h", "x").status == 0) }
        #expect(waitUntil { scene.files("jobs").count == 5 })
        let path = scene.spoolPath + "/heraldd.sock"
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<40 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            if SpoolQuery.withAddress(path, { connect(fd, $0, $1) }) == 0 { held.append(fd) } else { close(fd) }
        }
        #expect(held.count >= 33)
        for k in 0..<5 {
            let r = try scene.herald("cancel", "crowd\(k)")
            #expect(r.status == 0, "exit \(r.status): \(r.stderr)")
        }
        #expect(scene.files("jobs").isEmpty)
    }

    // 10

    /// The socket bounds a snooze against now: one to the year 9999 is refused, and a hint of
    /// what was last shown that is no time of the job is not taken.
    @Test func theSocketBoundsASnoozeAgainstNow() throws {
        let scene = try Scene()
        try scene.startDaemon()
        #expect(try scene.herald("remind", "--id", "tgt", "--in", "1h", "Target").status == 0)
        #expect(waitUntil { scene.files("jobs").count == 1 })
        let before = scene.files("jobs")
        func ask(_ line: String) -> String {
            guard case .answered(let bytes) = SpoolSocket.exchange(Spool(root: scene.spoolPath), line, timeout: 5, maximumAnswer: 4096) else { return "" }
            return String(decoding: bytes, as: UTF8.self)
        }
        let far = ask("v1 snooze tgt 600000000 9999-12-31T23:59:59Z 0000-01-01T00:00:00Z tgt@1.json\n")
        #expect(far.hasPrefix("v1 refused invalid"), "\(far)")
        #expect(scene.files("jobs") == before)
        let hinted = ask("v1 snooze tgt 600000000 - 0001-01-01T00:00:00Z -\n")
        #expect(hinted.hasPrefix("v1 ok snoozed tgt@"), "\(hinted)")
        let name = try #require(scene.files("jobs").first)
        #expect(name.hasPrefix(String(before[0].dropLast(5))), "the occurrence stays the job's own: \(before) → \(name)")
    }

    // 11

    /// `herald edit` takes back only a regular file: an editor that leaves a FIFO hangs
    /// nothing and leaves nothing behind, and an edit over 64 KiB is refused with its size.
    @Test func editTakesBackOnlyARegularFileOfItsSize() throws {
        let scene = try Scene(server: false)
        #expect(try scene.herald("remind", "--id", "tgt", "--in", "1h", "Target").status == 0)
        try scene.startDaemon(["--notifier", "console"])
        #expect(waitUntil { scene.files("jobs").count == 1 })
        let tmp = scene.directory + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        scene.extraEnvironment["TMPDIR"] = tmp
        let fifoEditor = scene.directory + "/fifo-editor.sh", bigEditor = scene.directory + "/big-editor.sh"
        try "#!/bin/sh\nrm -f \"$1\" && mkfifo \"$1\"\n".write(toFile: fifoEditor, atomically: true, encoding: .utf8)
        try "#!/bin/sh\nhead -c 70000 /dev/zero | tr '\\\\0' a > \"$1\"\n".write(toFile: bigEditor, atomically: true, encoding: .utf8)
        chmod(fifoEditor, 0o755)
        chmod(bigEditor, 0o755)
        scene.extraEnvironment["EDITOR"] = fifoEditor
        let started = Date()
        let fifo = try scene.herald("edit", "tgt")
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(fifo.status == 1 && fifo.stderr.contains("it is not a regular file"), "\(fifo.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty, "left behind in TMPDIR")
        scene.extraEnvironment["EDITOR"] = bigEditor
        let big = try scene.herald("edit", "tgt", stdin: "n\n")
        #expect(big.status == 65 && big.stderr.contains("the edited job is 70000 bytes; a job file holds at most 64 KiB"), "\(big.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }
}
