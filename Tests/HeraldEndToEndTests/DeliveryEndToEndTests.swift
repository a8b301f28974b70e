import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// The real `herald` and `heraldd` against a private session bus and python-dbusmock's
/// notification server: what the server receives is what a user would see.
@Suite(.serialized)
struct DeliveryEndToEndTests {
    @Test func aDeliveryShowsHeadsUpAndArrivalWithNameAndAddress() throws {
        let scene = try Scene()
        try scene.writeConfig("""
            profile:
              name: "Zoë O'Brien & <co>"
              address: "12 \\"Elm\\" St, Flat 3 ✓"
            """)
        try scene.startDaemon()
        let r = try scene.herald("deliver", "--in", "3s", "--lead", "2s", "--item", "apple", "--item", "milk x2")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("Delivery "))
        let received = try #require(scene.server).waitForNotifications(2)
        #expect(received.count == 2)
        #expect(received.map(\.summary) == ["Delivery in 1 min", "Your delivery is here"])
        // The server takes body markup, so the body arrives escaped and renders verbatim.
        #expect(received[0].body == "Zoë O&apos;Brien &amp; &lt;co&gt;, your order arrives at 12 &quot;Elm&quot; St, Flat 3 ✓ in 1 min.\n3 items: apple, milk ×2")
        #expect(received[1].body.hasPrefix("Zoë O&apos;Brien &amp; &lt;co&gt;, your order is arriving at 12 &quot;Elm&quot; St, Flat 3 ✓ now."))
        for n in received {
            #expect(n.app == "Herald")
            #expect(n.hints["desktop-entry"] == .string("herald"))
            #expect(n.hints["category"] == .string("x-herald.delivery"))
            #expect(n.hints["urgency"] == .int(1))
        }
        #expect(scene.files("done").count == 1)
        #expect(scene.files("jobs").isEmpty)
    }

    @Test func textIsSentPlainToAServerWithoutMarkup() throws {
        let scene = try Scene(capabilities: "body")
        try scene.startDaemon()
        try scene.herald("remind", "--in", "1s", "--title", "A & <b> \"q\" é 🎉", "x < y & z")
        let received = try #require(scene.server).waitForNotifications(1)
        #expect(received.first?.summary == "A & <b> \"q\" é 🎉")
        #expect(received.first?.body == "x < y & z")
    }

    @Test func aReminderAndATimerFireWithUrgencyAndIcon() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let before = Date()
        try scene.herald("remind", "--in", "1s", "--urgency", "critical", "--icon", "dialog-warning", "Stand-up")
        try scene.herald("timer", "2s", "Tea")
        let received = try #require(scene.server).waitForNotifications(2)
        #expect(Date().timeIntervalSince(before) >= 1.9)
        #expect(received.map(\.summary) == ["Stand-up", "Tea"])
        #expect(received[0].hints["urgency"] == .int(2))
        #expect(received[0].icon == "dialog-warning")
        #expect(received[0].hints["category"] == .string("x-herald.reminder"))
        #expect(received[1].body == "2 seconds are up")
    }

    @Test func aJobEnqueuedWhileTheDaemonWasStoppedFiresAfterStart() throws {
        let scene = try Scene()
        try scene.writeConfig("{}\n")
        try scene.herald("remind", "--in", "1s", "Queued while stopped")
        #expect(scene.files("new").count == 1)
        let status = try scene.herald("status")
        #expect(status.status == 3)
        #expect(status.stdout.contains("heraldd: not running"))
        #expect(status.stdout.contains("pending: 1 job (1 not yet taken in by heraldd)"))
        // Overdue by the time heraldd starts: wait until its time (as `herald list` says) has passed.
        let listed = try JSONSerialization.jsonObject(with: Data(scene.herald("list", "--json").stdout.utf8)) as? [[String: Any]]
        let dueText = try #require(listed?.first?["due"] as? String)
        let due = try #require(ISO8601.parseInstant(dueText))
        #expect(waitUntil { SystemClock().now > due })
        try scene.startDaemon()
        let received = try #require(scene.server).waitForNotifications(1)
        #expect(received.map(\.summary) == ["Queued while stopped"])
    }

    @Test func aFileDroppedIntoNewByHandIsPickedUpAtOnce() throws {
        let scene = try Scene()
        let daemon = try scene.startDaemon()
        let at = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3))
        let job = "{\"version\":1,\"kind\":\"reminder\",\"at\":\"\(at)\",\"title\":\"By hand\",\"text\":\"dropped in\"}"
        let tmp = scene.spoolPath + "/tmp/hand.json"
        try job.write(toFile: tmp, atomically: false, encoding: .utf8)
        chmod(tmp, 0o600)
        #expect(rename(tmp, scene.spoolPath + "/new/hand.json") == 0)
        // heraldd never rescans new/ by itself: only its watcher can have taken the file in.
        #expect(waitUntil { daemon.logged("info: Job accepted", "job.id=hand ") })
        let received = try #require(scene.server).waitForNotifications(1)
        #expect(received.map(\.summary) == ["By hand"])
    }

    /// Files written in place in new/ (each an IN_CREATE and an IN_CLOSE_WRITE, often read
    /// together): every job is taken once. Before, about half were sent to failed/ as their
    /// own job "already pending", and lost.
    @Test func filesWrittenInPlaceInNewAreEachTakenOnce() throws {
        let scene = try Scene()
        let daemon = try scene.startDaemon()
        let at = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
        let ids = (0..<20).map { "inplace\($0)" }
        for id in ids {
            let path = scene.spoolPath + "/new/\(id).json"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            try #require(fd >= 0)
            let text = Array("{\"version\":1,\"kind\":\"reminder\",\"id\":\"\(id)\",\"at\":\"\(at)\",\"text\":\"t\"}\n".utf8)
            #expect(write(fd, text, text.count) == text.count)
            close(fd)
        }
        #expect(waitUntil { scene.files("jobs").count == ids.count && scene.files("new").isEmpty }, "\(scene.files("failed")) \(daemon.log)")
        #expect(Set(scene.files("jobs").map { String($0.prefix { $0 != "@" }) }) == Set(ids))
        #expect(scene.files("failed").isEmpty)
        #expect(!daemon.log.contains("already pending"))
    }

    @Test func badFilesAreQuarantinedWhileTheDaemonKeepsFiring() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let new = scene.spoolPath + "/new/"
        func drop(_ name: String, _ text: String, mode: mode_t = 0o600) throws {
            let tmp = scene.spoolPath + "/tmp/" + name
            try text.write(toFile: tmp, atomically: false, encoding: .utf8)
            chmod(tmp, mode)
            rename(tmp, new + name)
        }
        try drop("json.json", "{not json")
        try drop("types.json", "{\"version\":1,\"kind\":\"reminder\",\"at\":42,\"text\":\"x\"}")
        try drop("field.json", "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2030-01-01T00:00Z\",\"text\":\"x\",\"extra\":true}")
        try drop("version.json", "{\"version\":7,\"kind\":\"reminder\"}")
        try drop("writable.json", "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2030-01-01T00:00Z\",\"text\":\"x\"}", mode: 0o666)
        try drop("big.json", "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2030-01-01T00:00Z\",\"text\":\"" + String(repeating: "x", count: 70_000) + "\"}")
        try FileManager.default.createDirectory(atPath: scene.spoolPath + "/tmp/dir.json", withIntermediateDirectories: false)
        rename(scene.spoolPath + "/tmp/dir.json", new + "dir.json")
        symlink("/etc/passwd", scene.spoolPath + "/tmp/link.json")
        rename(scene.spoolPath + "/tmp/link.json", new + "link.json")
        try scene.herald("remind", "--in", "1s", "Still firing")
        let received = try #require(scene.server).waitForNotifications(1)
        #expect(received.map(\.summary) == ["Still firing"])
        #expect(waitUntil { scene.files("failed").count == 16 })
        let reasons = [
            "json.json": "not valid JSON", "types.json": "field 'at' is not a string (42)",
            "field.json": "unknown field 'extra'", "version.json": "unsupported version",
            "writable.json": "is writable by group or others (mode 0666)", "big.json": "is larger than 64 KiB",
            "dir.json": "is a directory", "link.json": "is a symbolic link",
        ]
        for (file, reason) in reasons {
            #expect(scene.read("failed/\(file).reason").contains(reason), "\(file): \(scene.read("failed/\(file).reason"))")
        }
        #expect(scene.files("new").isEmpty)
        #expect(scene.daemon?.isRunning == true)
        #expect(scene.daemon?.log.contains("warning: Bad job file moved to failed/") == true)
    }

    @Test func aServerThatAppearsLateStillGetsTheNotification() throws {
        let scene = try Scene(server: false)
        try scene.startDaemon()
        try scene.herald("remind", "--in", "1s", "Patience")
        #expect(waitUntil { scene.daemon!.log.contains("Cannot show notifications") })
        let status = try scene.herald("status")
        #expect(status.status == 1)
        #expect(status.stdout.contains("notifications: failing: notification server unavailable"))
        #expect(scene.files("jobs").count == 1)  // nothing marked fired that was not shown
        scene.server = try NotificationServer(bus: scene.bus, directory: scene.directory)
        let received = try #require(scene.server).waitForNotifications(1, timeout: 40)
        #expect(received.map(\.summary) == ["Patience"])
        #expect(waitUntil { (try? scene.herald("status").stdout.contains("notifications: ok")) == true })
        #expect(scene.files("jobs").isEmpty)
    }

    @Test func aCancelledJobDoesNotFire() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let r = try scene.herald("remind", "--in", "4s", "Never shown")
        let id = try #require(r.stdout.split(separator: " ").dropFirst().first.map { String($0.dropLast()) })
        #expect(waitUntil { scene.files("jobs").count == 1 })
        let c = try scene.herald("cancel", id)
        #expect(c.status == 0, "\(c.stderr)")
        #expect(c.stdout == "Cancelled \(id) (reminder)\n")
        // Each due a second after the one before (the cancelled job, then these two): popups go
        // out in due order, so had the cancelled job fired, it would come before them.
        try scene.herald("remind", "--in", "5s", "Shown")
        try scene.herald("remind", "--in", "6s", "Marker")
        let received = try #require(scene.server).waitForNotifications(2)
        #expect(received.map(\.summary) == ["Shown", "Marker"])
        #expect(scene.files("cancelled").count == 1)
    }

    @Test func theConsoleNotifierPrintsInsteadOfUsingDBus() throws {
        let scene = try Scene(server: false)
        try scene.writeConfig("profile:\n  name: Alice\n  address: 1 Main St\n")
        let daemon = try scene.startDaemon(["--notifier", "console"])
        try scene.herald("deliver", "--in", "1s", "--lead", "0", "--item", "soda x6")
        #expect(waitUntil { daemon.output.contains("Your delivery is here") })
        #expect(daemon.output.contains("    Alice, your order is arriving at 1 Main St now."))
        #expect(daemon.output.contains("    6 items: soda ×6"))
        #expect(daemon.stop(SIGTERM) == 0)
        #expect(daemon.log.contains("info: Stopped"))
    }

    /// status.json is written on a queue of its own; the last write, as heraldd stops, must
    /// be on disk by the time the process has exited.
    @Test func statusJsonSaysStoppedOnceHeralddHasExited() throws {
        let scene = try Scene(server: false)
        let daemon = try scene.startDaemon(["--notifier", "console"])
        func pid() -> Int? {
            let object = try? JSONSerialization.jsonObject(with: Data(scene.read("status.json").utf8)) as? [String: Any]
            return object?["pid"] as? Int
        }
        #expect(waitUntil { pid() == Int(daemon.pid) })
        try scene.herald("remind", "--in", "1h", "tea")
        #expect(daemon.stop(SIGTERM) == 0)
        #expect(pid() == 0, "status.json after exit: \(scene.read("status.json"))")
    }

    @Test func sighupReloadsTheConfigAndKeepsItWhenBad() throws {
        let scene = try Scene()
        try scene.writeConfig("profile:\n  name: Old\n  address: Old St\n")
        let daemon = try scene.startDaemon()
        try scene.writeConfig("profile:\n  name: New\n  address: New St\n")
        daemon.signal(SIGHUP)
        #expect(waitUntil { daemon.log.contains("Configuration reloaded") })
        try scene.writeConfig("profile:\n  nmae: typo\n")
        daemon.signal(SIGHUP)
        #expect(waitUntil { daemon.log.contains("Configuration not reloaded; keeping the old one") })
        #expect(daemon.log.contains("unknown key 'profile.nmae'"))
        // The job carries no recipient: the daemon's (reloaded, kept) profile fills it in.
        let at = ISO8601DateFormatter().string(from: Date().addingTimeInterval(1))
        try "{\"version\":1,\"kind\":\"delivery\",\"at\":\"\(at)\",\"lead\":\"0\"}".write(toFile: scene.spoolPath + "/tmp/d.json", atomically: false, encoding: .utf8)
        chmod(scene.spoolPath + "/tmp/d.json", 0o600)
        rename(scene.spoolPath + "/tmp/d.json", scene.spoolPath + "/new/d.json")
        let received = try #require(scene.server).waitForNotifications(1)
        #expect(received.first?.body == "New, your order is arriving at New St now.")
        #expect(daemon.isRunning)
    }

    @Test func aSecondDaemonOnTheSameSpoolIsRefused() throws {
        let scene = try Scene()
        let first = try scene.startDaemon()
        let second = try runCommand(Binaries.heraldd, [], environment: scene.environment, timeout: 10)
        #expect(second.status == 75)
        #expect(second.stderr.contains("another heraldd is already running on this spool (pid \(first.pid))"))
        #expect(first.isRunning)
    }
}
