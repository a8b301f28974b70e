import Foundation
import HeraldCore
import HeraldFuzz
import HeraldTestSupport
import Testing

/// Faults injected into the real thing: kills, a server that is missing, broken, frozen or
/// restarted, a bus that goes away, clocks and zones that change, unsafe spools.
@Suite(.serialized)
struct FaultEndToEndTests {
    func iso(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    func drop(_ scene: Scene, _ name: String, _ json: String) throws {
        for dir in ["", "/tmp", "/new"] {
            try FileManager.default.createDirectory(atPath: scene.spoolPath + dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let tmp = scene.spoolPath + "/tmp/" + name
        try json.write(toFile: tmp, atomically: false, encoding: .utf8)
        chmod(tmp, 0o600)
        rename(tmp, scene.spoolPath + "/new/" + name)
    }

    /// A few hundred jobs due over several seconds; heraldd killed with SIGKILL at seeded
    /// random moments and restarted. None may be lost; each kill may repeat at most one popup.
    @Test func sigkillLosesNothingAndRepeatsAtMostOnePopupPerKill() throws {
        let scene = try Scene()
        let server = try #require(scene.server)
        // Each popup its own, however far a busy machine falls behind: more than summaryAfter
        // popups over a second overdue at a start would become one summary popup, and the
        // count waited for below would never be reached.
        try scene.writeConfig("popups:\n  summaryAfter: 10000\n")
        try scene.startDaemon()
        let start = Date().addingTimeInterval(2)
        let count = 300
        let lines = (0..<count).map { k in
            "{\"version\":1,\"kind\":\"reminder\",\"id\":\"c\(k)\",\"at\":\"\(iso(start.addingTimeInterval(Double(k) * 0.02)))\",\"text\":\"crash \(k)\"}"
        }
        #expect(try scene.herald("import", "-", stdin: lines.joined(separator: "\n")).status == 0)
        // Each kill lands while popups are coming: once the server has received a seeded random
        // number more of them (one is due every 20 ms), wherever the clock has got to.
        var rng = SeededGenerator(seed: 4_2026)
        var kills = 0
        var next = Int.random(in: 10...60, using: &rng)
        while next < count {
            try #require(try waitUntil(timeout: 30) { try server.notifications().count >= next }, "popup \(next) never arrived")
            scene.daemon?.stop(SIGKILL)
            kills += 1
            try scene.startDaemon()
            next += Int.random(in: 15...75, using: &rng)
        }
        #expect(kills >= 4)
        #expect(waitUntil(timeout: 30) { scene.files("done").count == count })
        let shown = try server.notifications().map(\.summary)
        let distinct = Set(shown)
        #expect(distinct == Set((0..<count).map { "crash \($0)" }), "lost: \(Set((0..<count).map { "crash \($0)" }).subtracting(distinct).sorted())")
        #expect(shown.count - distinct.count <= kills, "\(shown.count - distinct.count) repeats after \(kills) kills")
        #expect(scene.files("jobs").isEmpty)
        #expect(scene.files("failed").isEmpty)
    }

    /// The file size limit stops `herald import` in the middle of writing its batch (SIGXFSZ
    /// kills it, or, where the signal is blocked, the write fails and it cleans up): either
    /// way new/ never sees a partial file.
    @Test func aCommandKilledMidWriteLeavesNoPartialJob() throws {
        let scene = try Scene()
        let future = iso(Date().addingTimeInterval(3600))
        let lines = (0..<20_000).map { "{\"version\":1,\"kind\":\"reminder\",\"at\":\"\(future)\",\"text\":\"bulk \($0) with some padding to grow the batch\"}" }
        let killed = try runCommand("/bin/sh", ["-c", "ulimit -f 512; exec \"$0\" import -", Binaries.herald],
                                    environment: scene.environment, stdin: lines.joined(separator: "\n"))
        #expect(killed.status != 0)
        #expect(scene.files("new").isEmpty)
        #expect(scene.files("tmp").count <= 1)  // a partial write is left for pruning after 36 h
        try scene.startDaemon()
        #expect(try scene.herald("list", "--json").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]" ||
                (try scene.herald("list").stdout) == "No pending jobs.\n")
        #expect(scene.files("failed").isEmpty)
    }

    @Test func overdueJobsShowLateWithinTheGraceAndAreMissedAfterIt() throws {
        let scene = try Scene()
        try drop(scene, "recent.json", "{\"version\":1,\"kind\":\"reminder\",\"at\":\"\(iso(Date().addingTimeInterval(-1800)))\",\"text\":\"Half an hour ago\"}")
        try drop(scene, "old.json", "{\"version\":1,\"kind\":\"reminder\",\"at\":\"\(iso(Date().addingTimeInterval(-3 * 3600)))\",\"text\":\"Three hours ago\"}")
        try scene.startDaemon()
        let shown = try #require(scene.server).waitForNotifications(1)
        #expect(shown.map(\.summary) == ["Half an hour ago"])
        #expect(shown.first?.body == "(late by 30 min)")
        #expect(waitUntil { scene.files("done").count == 2 })
        let history = try scene.herald("history").stdout
        #expect(history.contains("old") && history.contains("missed") && history.contains("late by 3 h"))
        #expect(try scene.herald("status").stdout.contains("missed:  1 in the last 24 h, too late to show (see 'herald history')"))
        #expect(try scene.server!.notifications().count == 1)
    }

    /// Setting the clock (to the same time: harmless) cancels heraldd's TFD_TIMER_CANCEL_ON_SET timerfd.
    @Test func settingTheClockMakesTheDaemonReevaluate() throws {
        let scene = try Scene()
        let daemon = try scene.startDaemon()
        // Every heraldd on the machine sees it: not while a test watches one idle.
        systemClockQuiet.lock()
        defer { systemClockQuiet.unlock() }
        let set = try runCommand("/usr/bin/python3", ["-c", "import time; time.clock_settime(time.CLOCK_REALTIME, time.clock_gettime(time.CLOCK_REALTIME))"],
                                 environment: ["PATH": "/usr/bin:/bin"])
        try #require(set.status == 0, "setting the clock needs CAP_SYS_TIME: \(set.stderr)")
        #expect(waitUntil { daemon.log.contains("notice: Clock changed; re-evaluating due times") })
    }

    /// A schedule without a zone follows /etc/localtime (here a stand-in named by HERALD_LOCALTIME).
    @Test func aTimeZoneChangeReschedulesLocalRecurrences() throws {
        let scene = try Scene()
        let localtime = scene.directory + "/localtime"
        symlink("/usr/share/zoneinfo/Europe/Berlin", localtime)
        scene.removedEnvironment = ["TZ"]
        scene.extraEnvironment = ["HERALD_LOCALTIME": localtime]
        let daemon = try scene.startDaemon()
        #expect(try scene.herald("remind", "--every", "*-*-* 09:00", "--id", "morning", "Morning").status == 0)
        #expect(waitUntil { scene.files("jobs").first?.hasPrefix("morning@") == true })
        let berlinNext = try #require(scene.files("jobs").first)
        symlink("/usr/share/zoneinfo/America/New_York", localtime + ".new")
        rename(localtime + ".new", localtime)
        #expect(waitUntil { daemon.log.contains("notice: Time zone changed; rescheduling local-time recurrences") })
        #expect(waitUntil { scene.files("jobs").first != berlinNext })
        let micros = try #require(Int64(scene.files("jobs").first!.dropFirst("morning@".count).dropLast(5)))
        let next = Date(timeIntervalSince1970: Double(micros) / 1e6)
        let hour = try runCommand("/bin/date", ["-d", "@\(micros / 1_000_000)", "+%H:%M"], environment: ["TZ": "America/New_York"]).stdout
        #expect(hour == "09:00\n")
        #expect(next.timeIntervalSinceNow > 0 && next.timeIntervalSinceNow <= 86_400)
    }

    @Test func withoutASessionBusJobsWaitAndStatusSaysWhy() throws {
        let scene = try Scene(server: false)
        scene.removedEnvironment = ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY"]
        try scene.startDaemon()
        try scene.herald("remind", "--in", "1s", "Waits")
        #expect(waitUntil { (try? scene.herald("status").stdout.contains("notifications: failing: no session bus")) == true })
        #expect(scene.files("jobs").count == 1)
        #expect(scene.files("done").isEmpty)
    }

    @Test func aServerThatFailsIsRetriedUntilItWorks() throws {
        let scene = try Scene()
        let server = try #require(scene.server)
        try server.control("break")
        try scene.startDaemon()
        try scene.herald("remind", "--in", "1s", "--id", "retry", "Eventually")
        #expect(waitUntil { (try? scene.herald("status").stdout.contains("notifications: failing: notification failed")) == true })
        #expect(scene.files("jobs").count == 1)  // not marked fired
        try server.control("fix")
        #expect(waitUntil(timeout: 40) { scene.files("done").count == 1 })
        #expect(try scene.herald("history", "--json").stdout.components(separatedBy: "\"outcome\": \"shown\"").count == 2)
        #expect(try scene.herald("status").stdout.contains("notifications: ok"))
    }

    /// libnotify blocks while the server is frozen; the scheduler goes on taking jobs in and
    /// pinging the watchdog; after the thaw everything is shown once.
    @Test func aFrozenServerDelaysPopupsButNotTheScheduler() throws {
        let scene = try Scene()
        let socket = try NotifySocket(directory: scene.directory)
        scene.extraEnvironment = ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000"]
        let daemon = try scene.startDaemon(["--log-level", "debug"])  // logs each popup as it goes to libnotify
        let server = try #require(scene.server)
        server.freeze()
        try scene.herald("remind", "--in", "1s", "--id", "first", "First")
        #expect(waitUntil { daemon.logged("debug: Showing notification", "job.id=first") })  // now stuck in libnotify
        let stuck = socket.mark
        try scene.herald("remind", "--in", "1s", "--id", "second", "Second")
        // Both within libnotify's 25 s, while "first" is still stuck: the scheduler takes jobs
        // in and pings the watchdog.
        #expect(waitUntil { daemon.logged("info: Job accepted", "job.id=second") })
        #expect(waitUntil { socket.messages(after: stuck).filter { $0.text == "WATCHDOG=1" }.count >= 3 })
        server.thaw()
        let shown = try server.waitForNotifications(2, timeout: 30)
        #expect(shown.map(\.summary) == ["First", "Second"])
        // Nothing is shown twice: a marker due after them is the next popup.
        try scene.herald("remind", "--in", "1s", "--id", "marker", "Marker")
        #expect(try server.waitForNotifications(3, timeout: 30).map(\.summary) == ["First", "Second", "Marker"])
    }

    /// A burst's answers are held back while many popups are queued behind them, and given to
    /// the engine together (BENCHMARKS.md, "Ratios to the floor"), but never for longer than
    /// a moment: with the server stuck on a later popup, every popup it answered is recorded,
    /// not kept waiting behind the stuck one. Then the rest go out, each once.
    @Test func aBurstsAnsweredPopupsAreRecordedWhileTheServerIsStuckOnALaterOne() throws {
        let scene = try Scene()
        let server = try #require(scene.server)
        try scene.writeConfig("popups:\n  summaryAfter: 10000\n")
        try scene.startDaemon()
        let count = 60, stuck = 24
        // The server holds popup 24 until the test lets it go (a FIFO it reads).
        let release = scene.directory + "/release"
        #expect(mkfifo(release, 0o600) == 0)
        try server.control("stall", String(stuck), release)
        let at = iso(Date().addingTimeInterval(2))
        let lines = (0..<count).map { "{\"version\":1,\"kind\":\"reminder\",\"id\":\"b\($0)\",\"at\":\"\(at)\",\"text\":\"burst \($0)\"}" }
        #expect(try scene.herald("import", "-", stdin: lines.joined(separator: "\n")).status == 0)
        // While the server holds popup 24, the 23 it answered are all in done/.
        #expect(waitUntil(timeout: 10) { scene.files("done").count >= stuck - 1 }, "done: \(scene.files("done").count)")
        #expect(scene.files("done").count < count)
        // Let go: a writer opens the FIFO and closes it (non-blocking: the server must be reading it).
        #expect(Descriptor.open(release, O_WRONLY | O_NONBLOCK) != nil, "the server is not held on popup \(stuck)")
        #expect(waitUntil(timeout: 40) { scene.files("done").count == count })
        let shown = try server.waitForNotifications(count, timeout: 10).map(\.summary)
        #expect(shown.count == count && Set(shown).count == count, "\(shown.count) shown, \(Set(shown).count) distinct")
    }

    /// Left frozen, the server makes libnotify give up after its 25 s timeout; status says so.
    @Test func aServerThatNeverAnswersIsReportedAndRetried() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let server = try #require(scene.server)
        server.freeze()
        try scene.herald("remind", "--in", "1s", "Patience")
        var status = ""
        #expect(waitUntil(timeout: 35) {
            status = (try? scene.herald("status").stdout) ?? ""
            return status.contains("notifications: failing: notification server not responding")
        }, "\(status)")
        #expect(scene.files("jobs").count == 1)
        server.thaw()
        #expect(waitUntil(timeout: 40) { scene.files("done").count == 1 })
    }

    /// When a server takes the name on the bus, waiting popups go out at once, not at the
    /// next retry of the backoff.
    @Test func aServerTakingTheNameGetsWaitingPopupsAtOnce() throws {
        let scene = try Scene(server: false)
        let daemon = try scene.startDaemon()
        try scene.herald("remind", "--in", "1s", "Welcome back")
        #expect(waitUntil { daemon.logged("Cannot show notifications", "error=\"notification server unavailable") })
        // Failed tries 1 s, 2 s, 4 s apart: status.json says when the next one is 8 s away.
        var retryAt: Instant?
        #expect(waitUntil(timeout: 30) {
            guard let status = scene.status(), let retry = status.retryAt, let failed = status.lastErrorAt else { return false }
            retryAt = retry
            return retry - failed >= .seconds(8)
        })
        scene.server = try NotificationServer(bus: scene.bus, directory: scene.directory)
        // The retry pending once the server has the name (a later one, had a slow start let that one fail too).
        let latest = [retryAt, scene.status()?.retryAt].compactMap { $0 }.max()
        let pending = try #require(latest)
        _ = try scene.server!.waitForNotifications(1, timeout: 30)
        #expect(daemon.logged("notice: A notification server took the name on the bus"))
        let shown = try #require(scene.history().first { $0.title == "Welcome back" && $0.outcome == .shown })
        #expect(shown.time < pending, "shown at \(shown.time), not before the retry due at \(pending)")
    }

    @Test func losingTheBusExitsNonZeroAndKeepsEveryJob() throws {
        let scene = try Scene()
        let daemon = try scene.startDaemon()
        try scene.herald("remind", "--in", "1h", "--id", "later", "Later")
        try scene.herald("remind", "--in", "1s", "Now")
        #expect(try scene.server!.waitForNotifications(1).count == 1)  // connected, and working
        scene.bus.stop()
        #expect(waitUntil(timeout: 10) { !daemon.isRunning })
        #expect(daemon.stop() == 69)
        #expect(daemon.log.contains("critical: Lost the session bus; exiting so that heraldd is restarted"))
        #expect(scene.files("jobs").contains { $0.hasPrefix("later@") })
    }

    @Test func theServiceContractOnTheNotifySocket() throws {
        let scene = try Scene()
        let socket = try NotifySocket(directory: scene.directory)
        scene.extraEnvironment = ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "200000"]
        try scene.herald("remind", "--in", "1h", "Pending")
        let daemon = try scene.startDaemon()
        #expect(waitUntil { socket.messages().contains { $0.text.hasPrefix("READY=1") } })
        let ready = try #require(socket.messages().first { $0.text.hasPrefix("READY=1") })
        #expect(ready.text.contains("STATUS=1 job pending, next "))
        let spoolLoaded = try #require(daemon.log.range(of: "Spool loaded"))
        #expect(!spoolLoaded.isEmpty)
        let afterReady = socket.mark
        #expect(waitUntil { socket.messages(after: afterReady).filter { $0.text == "WATCHDOG=1" }.count >= 5 })
        let beforeReload = socket.mark
        daemon.signal(SIGHUP)
        var messages: [String] = []
        #expect(waitUntil {
            messages = socket.messages(after: beforeReload).map(\.text).filter { $0 != "WATCHDOG=1" }
            return messages.contains("READY=1")
        })
        #expect(messages.first == "RELOADING=1")
        let beforeStop = socket.mark
        #expect(daemon.stop(SIGTERM) == 0)
        // Sent before the exit; the socket's reader may take a moment to pass it on.
        #expect(waitUntil { socket.messages(after: beforeStop).contains { $0.text == "STOPPING=1" } })
    }

    @Test func anUnsafeSpoolIsRefusedAtStart() throws {
        let scene = try Scene(server: false)
        try scene.herald("remind", "--in", "1h", "x")
        chmod(scene.spoolPath + "/jobs", 0o777)
        let loose = try runCommand(Binaries.heraldd, [], environment: scene.environment, timeout: 10)
        #expect(loose.status == 77)
        #expect(loose.stderr == "heraldd: spool directory '\(scene.spoolPath)/jobs' is writable by group or others (mode 0777): run chmod 700 '\(scene.spoolPath)/jobs'\n")
        let cli = try scene.herald("remind", "--in", "1h", "y")
        #expect(cli.status == 1)
        #expect(cli.stderr.hasPrefix("herald: spool directory '\(scene.spoolPath)/jobs' is writable by group or others"))
        chmod(scene.spoolPath + "/jobs", 0o700)
        try #require(chown(scene.spoolPath, 65534, 65534) == 0, "chown needs root")
        let foreign = try runCommand(Binaries.heraldd, [], environment: scene.environment, timeout: 10)
        #expect(foreign.status == 77)
        #expect(foreign.stderr.contains("is owned by uid 65534, not by this user"))
        chown(scene.spoolPath, getuid(), getgid())
    }

    @Test func infoLogsHoldNoPersonalDataAndCarryJournalPriorities() throws {
        let scene = try Scene()
        try scene.writeConfig("profile:\n  name: Zoë Secretname\n  address: 9 Hidden Lane\n")
        scene.extraEnvironment = ["JOURNAL_STREAM": "8:12345"]
        let daemon = try scene.startDaemon()
        try scene.herald("deliver", "--in", "2s", "--lead", "1s", "--item", "Private pills")
        try scene.herald("remind", "--in", "1s", "--title", "Diary", "Call Dr. Confidential")
        try drop(scene, "bad.json", "{\"version\":1,\"kind\":\"delivery\",\"at\":\"2030-01-01T00:00Z\",\"recipient\":\"Zoë Secretname\"}")
        _ = try scene.server!.waitForNotifications(3)
        #expect(daemon.stop(SIGTERM) == 0)
        let log = daemon.log
        #expect(log.contains("Job fired"))
        for secret in ["Zoë", "Secretname", "Hidden", "Private pills", "Confidential", "Diary"] {
            #expect(!log.contains(secret), "'\(secret)' in the log")
        }
        let lines = log.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("<") }, "\(lines.filter { !$0.hasPrefix("<") })")
        #expect(lines.contains { $0.hasPrefix("<6>info: Job fired") })
        #expect(lines.contains { $0.hasPrefix("<4>warning: Bad job file moved to failed/") })
    }
}
