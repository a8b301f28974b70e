import Foundation
import HeraldCore
import HeraldTestSupport

/// One benchmark run: a working directory with a spool, a private bus with the timestamping
/// server, and the daemon under test.
final class BenchRun {
    let plan: Plan
    let directory: String
    let socketDirectory: String
    let herald: String
    let heraldd: String
    let spool: String
    private let bus: SessionBus
    private let server: TimestampingServer
    private let notify: NotifySocket
    private let floors: Floors
    private var daemon: Spawned?
    private var daemonRuns = 0
    private var notes: [String] = []
    /// How far into `server.all` popups have been matched to keys.
    private var matched = 0
    private var arrivals: [Workload.Key: Instant] = [:]
    private var duplicates: [Workload.Key] = []
    private var strangers: [String] = []

    /// Where the last full run notes when it removed its working directory.
    let cleanupMarker: String

    init(binaries: String, workDirectory: String?, plan: Plan, floorSources: String) throws(BenchError) {
        self.plan = plan
        herald = binaries + "/herald"
        heraldd = binaries + "/heraldd"
        for path in [herald, heraldd] where !FileManager.default.isExecutableFile(atPath: path) {
            throw BenchError("no executable \(path) (build first, or pass --bin DIR)")
        }
        let parent = workDirectory ?? Self.defaultWorkParent()
        cleanupMarker = parent + "/.herald-bench-cleanup"
        let waited = plan.smoke || !plan.waitForCleanup ? 0 : Self.waitForEarlierCleanup(marker: cleanupMarker)
        // A scale curve keeps each size's directory until the last has run: one each.
        let base = parent + "/herald-bench-\(getpid())" + (plan.scale ? "-\(plan.jobs)" : "")
        do { try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true) } catch {
            throw BenchError("cannot create \(base): \(error)")
        }
        chmod(base, 0o700)
        directory = base
        spool = base + "/spool"
        // The bus and notify sockets need a short path: sockaddr_un holds 108 bytes.
        let sockets = "/tmp/herald-bench-\(getpid())"
        do { try FileManager.default.createDirectory(atPath: sockets, withIntermediateDirectories: true) } catch {
            throw BenchError("cannot create \(sockets): \(error)")
        }
        socketDirectory = sockets
        let floorDirectory = base + "/floors"
        mkdir(floorDirectory, 0o700)
        floors = try Floors.build(sources: floorSources, into: floorDirectory)
        bus = try SessionBus(directory: sockets)
        do { server = try TimestampingServer(address: bus.address) } catch { bus.stop(); throw error }
        notify = try NotifySocket(directory: sockets)
        notes.append("Working directory \(base) (\(Self.fileSystemType(base))); as a user's spool in ~/.local/state, "
                     + "it is on the disk, like `at`'s /var/spool/cron.")
        if waited > 0 {
            notes.append("Waited \(waited) s before starting: an earlier run removed its files less than "
                         + "\(Int(Self.deletionQuarantine)) s before (see BENCHMARKS.md, quirks).")
        }
    }

    /// How long ext4 without a journal keeps a freed inode out of use while its inode table
    /// block is not yet written back (300 s, plus 60 s once it is): a file created in a block
    /// group full of such inodes makes the kernel check each of them, up to a millisecond.
    static let deletionQuarantine: Double = 360

    /// When the last full run removed its 100,000 job files less than `deletionQuarantine`
    /// ago, waits out the rest, so that this run's file creation (bulk import, `herald remind`)
    /// does not measure the previous run's clean-up. Returns the seconds waited.
    static func waitForEarlierCleanup(marker: String) -> Int {
        guard let text = try? String(contentsOfFile: marker, encoding: .utf8),
              let then = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return 0 }
        let left = deletionQuarantine - (Date().timeIntervalSince1970 - then)
        guard left > 0, left <= deletionQuarantine else { return 0 }
        let seconds = Int(left.rounded(.up))
        FileHandle.standardError.write(Data(("herald-bench: an earlier run removed its files \(Int(deletionQuarantine) - seconds) s ago; "
            + "waiting \(seconds) s until the file system reuses their inodes (ext4 without a journal is slow to create files next to them)\n").utf8))
        Thread.sleep(forTimeInterval: Double(seconds))
        return seconds
    }

    /// `$XDG_CACHE_HOME` or ~/.cache: on the disk where a user's spool lives. Not /tmp, which
    /// may be a tmpfs (faster than any spool) or, on some machines, watched and slower.
    static func defaultWorkParent() -> String {
        let env = ProcessInfo.processInfo.environment
        if let cache = env["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache }
        return (env["HOME"] ?? NSHomeDirectory()) + "/.cache"
    }

    /// The type of the file system `path` is on, from /proc/mounts (the longest mount point
    /// that holds it).
    static func fileSystemType(_ path: String) -> String {
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return "unknown file system" }
        var best: (point: String, type: String)? = nil
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2 else { continue }
            let point = String(fields[1])
            let holds = point == "/" || path == point || path.hasPrefix(point + "/")
            if holds, point.count >= (best?.point.count ?? -1) { best = (point, String(fields[2])) }
        }
        return best.map { "\($0.type) at \($0.point)" } ?? "unknown file system"
    }

    func tearDown(keep: Bool) {
        if daemon != nil, (try? stopDaemon()) == nil { daemon?.wait() }
        server.stop()
        bus.stop()
        try? FileManager.default.removeItem(atPath: socketDirectory)
        if !keep { removeDirectory() }
    }

    /// Removes the working directory (the spool and logs).
    func removeDirectory() {
        try? FileManager.default.removeItem(atPath: directory)
        settleDisk()
        // A full run removed its queue (100,000 files by default): the next one waits until the file system reuses
        // their inodes (see waitForEarlierCleanup).
        if !plan.smoke { try? "\(Date().timeIntervalSince1970)\n".write(toFile: cleanupMarker, atomically: true, encoding: .utf8) }
    }

    /// Waits until everything written so far is on the disk (sync(2)), so that writeback
    /// from one phase (or from a build before the run) does not land in the next one's timings.
    /// Not in a smoke run: its figures are not judged, and it runs among other tests.
    func settleDisk() {
        guard !plan.smoke else { return }
        sync()
    }

    /// The environment both programs run with: nothing of the caller's Herald settings.
    var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": directory, "LANG": "C.UTF-8", "USER": "bench", "LOGNAME": "bench",
         "XDG_CONFIG_HOME": directory + "/config", "XDG_STATE_HOME": directory + "/state",
         "DBUS_SESSION_BUS_ADDRESS": bus.address,
         // Room for the queue and the large imports after it (a batch filed across a restart, the
         // second import, the two around the ticks imported behind a filing batch, and three of
         // half the size before a small one), with room to spare. A variable, so that the enqueue row can run both without a config file and with one
         // (BENCHMARKS.md, "Configuration: one reader").
         "HERALD_LIMITS_JOBS": String(8 * plan.jobs + 10_000)]
    }

    // MARK: - The run

    func measure(command: String) throws(BenchError) -> Report {
        var figures: [Figure] = []
        let judged = !plan.smoke
        settleDisk()

        // Bulk: herald import of the whole queue, due an hour or more from now, and in it a few
        // jobs that come due while the first start is still filing the queue: at its head, in
        // its middle, at its end and at random places (a job's place in a batch must not matter).
        let queueStart = TimestampingServer.wallClock() + .minutes(60)
        let queueFile = directory + "/queue.jsonl"
        let firstLead = Span.seconds(plan.smoke ? 1 : 4), firstSpread = Span.seconds(2)
        let firstDue = TimestampingServer.wallClock() + firstLead + .seconds(2)
        let markers = (0..<plan.firstStartJobs).map { k in
            (Workload.place(ofMarker: k), Workload.line(Workload.Key(.firstStart, k), at: firstMarkerDue(k, firstDue, firstSpread)))
        }
        writeFile(Workload.batch(queue: Workload.queue(count: plan.jobs, start: queueStart, spread: .minutes(60)), markers: markers)
                    .joined(separator: "\n") + "\n", to: queueFile)
        // The file system's floor for filing as many jobs, just before heraldd does it here.
        let floorFiling = try fileFloor(plan.jobs)
        settleDisk()
        let bulk = try runHerald(["import", "--spool", spool, queueFile])
        figures.append(Figure(name: "bulk", how: "`herald import` of \(Format.count(plan.jobs)) jobs (validate, write one batch)",
                              result: Format.seconds(Double(bulk) / 1000), target: "≤ 2 s", met: judged ? bulk <= 2_000_000_000 : nil))

        // First start, `firstLead` before the first marker is due (as soon as the import is done
        // when it took longer): heraldd takes the batch in behind READY; the markers must show on time.
        let untilStart = (firstDue - firstLead) - TimestampingServer.wallClock()
        if untilStart > .zero { sleep(milliseconds: Int(untilStart.microseconds / 1000)) }
        let startedAt = TimestampingServer.wallClock()
        let firstReady = try startDaemon()
        let intakeStart = monotonicNanoseconds()
        let earlyKeys = Set((0..<plan.firstStartJobs).map { Workload.Key(.firstStart, $0) })
        // Filed once the batch is gone from new/ (heraldd removes it when every job is in jobs/
        // and synced); status.json's count is rewritten at most once a second.
        try waitForIntake(of: plan.jobs)
        let filed = Double(monotonicNanoseconds() - intakeStart + firstReady) / 1000
        try waitForPending(plan.jobs, what: "the \(Format.count(plan.jobs)) imported jobs", ignoringDone: true)
        try awaitKeys(earlyKeys, until: firstDue + .seconds(30), what: "jobs due during the first start")
        try waitForPending(plan.jobs, what: "the queue once the early jobs are done")
        var earlyLateness = Samples()
        var byPlace: [Workload.Place: Samples] = [:]
        for key in earlyKeys {
            let late = (arrivals[key]! - firstMarkerDue(key.index, firstDue, firstSpread)).microseconds
            earlyLateness.record(microseconds: late)
            byPlace[Workload.place(ofMarker: key.index), default: Samples()].record(microseconds: late)
        }
        let leadSeconds = Double((firstDue - startedAt).microseconds) / 1_000_000
        figures.append(Figure(name: "first start", how: "start with a \(Format.count(plan.jobs))-job batch in `new/` → READY=1 "
                                + "(all in `jobs/` after \(Format.seconds(filed)))",
                              result: "READY \(Format.ms(Double(firstReady) / 1000))",
                              target: "READY ≤ 2 s", met: judged ? firstReady <= 2_000_000_000 : nil))
        let intakeRatio = filed / 1_000_000 / floorFiling
        figures.append(Figure(name: "intake", how: "that start's \(Format.count(plan.jobs)) jobs filed (start → all in `jobs/`) "
                                + "against file-floor's as many files (two threads, one sync) beside the spool, just before",
                              result: "\(Format.seconds(filed)) · floor \(Format.seconds(floorFiling * 1_000_000)) → \(intakeRatio.ratioText)",
                              target: "≤ 1.2× floor", met: judged ? intakeRatio <= 1.2 : nil))
        figures.append(Figure(name: "markers in a batch",
                              how: "\(plan.firstStartJobs) jobs of that batch, at its head, middle, end and random places, due "
                                + String(format: "%.1f–%.1f s", leadSeconds, leadSeconds + Double(firstSpread.microseconds) / 1_000_000)
                                + " after the start, while it files: due → received",
                              result: "all \(plan.firstStartJobs) shown, late max \(Format.ms(earlyLateness.max)) ("
                                + Workload.Place.allCases.compactMap { place in byPlace[place].map { "\(place.rawValue) \(Format.ms($0.max))" } }
                                    .joined(separator: " · ") + ")"
                                + (earlyLateness.negative > 0 ? " · \(earlyLateness.negative) early" : ""),
                              target: "none lost, late ≤ 20 ms",
                              met: judged ? earlyLateness.max <= 20_000 && earlyLateness.negative == 0 : nil))

        // Lateness and burst.
        settleDisk()
        let fired = try fire()
        let lateness = fired.lateness, floorLateness = fired.floorLateness
        figures.append(Figure(name: "fire lateness", how: "due → server receives Notify, \(Format.count(plan.lateness)) jobs over \(Int(plan.spread)) s, \(Format.count(plan.jobs)) queued; "
                                + "floor: notify-floor, one libnotify call at each of as many instants on a CLOCK_REALTIME timerfd, right after",
                              result: "p50 \(Format.ms(lateness.p50)) · p99 \(Format.ms(lateness.p99)) · max \(Format.ms(lateness.max))"
                                + (lateness.negative > 0 ? " · \(lateness.negative) early" : "")
                                + "; floor p50 \(Format.ms(floorLateness.p50)) · p99 \(Format.ms(floorLateness.p99)) · max \(Format.ms(floorLateness.max))"
                                + " → p99 \((lateness.p99 / max(floorLateness.p99, 1)).ratioText)",
                              target: "p99 ≤ 2 ms, max ≤ 20 ms",
                              met: judged ? lateness.p99 <= 2000 && lateness.max <= 20_000 && lateness.negative == 0 : nil))
        let burstRatio = fired.bursts.median / max(fired.floorBursts.median, 1)
        let rounds = fired.bursts.count
        func each(_ samples: Samples) -> String { rounds > 1 ? " (" + samples.raw.map { Format.ms(Double($0)) }.joined(separator: ", ") + ")" : "" }
        figures.append(Figure(name: "burst", how: "\(Format.count(plan.burst)) jobs due at one instant: due → last received; "
                                + "floor: notify-floor's \(Format.count(plan.burst)) synchronous libnotify calls (the Notify call heraldd makes for a reminder: its buttons and hints) to the same server, right after"
                                + (rounds > 1 ? "; \(rounds) of each, interleaved, medians" : ""),
                              result: Format.ms(fired.bursts.median) + each(fired.bursts) + ", first popup \(Format.ms(fired.firstOfBurst)) · floor \(Format.ms(fired.floorBursts.median))"
                                + each(fired.floorBursts) + " → " + burstRatio.ratioText,
                              target: "≤ 1.2× floor", met: judged ? burstRatio <= 1.2 : nil))

        // Pickup.
        settleDisk()
        let pickup = try pickups()
        figures.append(Figure(name: "pickup", how: "a job due now renamed into `new/` → received, \(Format.count(plan.pickups)) times",
                              result: "p50 \(Format.ms(pickup.p50)) · p99 \(Format.ms(pickup.p99)) · max \(Format.ms(pickup.max))",
                              target: "p99 ≤ 10 ms", met: judged ? pickup.p99 <= 10_000 : nil))

        // Memory after the run, and idle.
        let rssAfterRun = try rss()
        let (switches, threads, busy) = try idleSwitches()

        // Start-up: restarts with the queue in jobs/.
        var startups: [UInt64] = []
        var rssAfterRestart = 0
        for _ in 0..<plan.restarts {
            try stopDaemon()
            startups.append(try startDaemon())
            try waitForPending(plan.jobs, what: "the queue after a restart")
        }
        sleep(milliseconds: 500)
        rssAfterRestart = try rss()
        let worstStart = Double(startups.max()!) / 1000
        figures.append(Figure(name: "start-up", how: "restart with \(Format.count(plan.jobs)) jobs in the spool → READY=1",
                              result: Format.ms(worstStart) + (startups.count > 1 ? " (worst of \(startups.count); "
                                + startups.map { Format.ms(Double($0) / 1000) }.joined(separator: ", ") + ")" : ""),
                              target: "≤ 0.5 s", met: judged ? worstStart <= 500_000 : nil))
        let rssWorst = max(rssAfterRun, rssAfterRestart)
        figures.append(Figure(name: "memory", how: "heraldd RSS with \(Format.count(plan.jobs)) jobs queued",
                              result: "\(Format.mib(rssWorst)) (after the run \(Format.mib(rssAfterRun)), after a restart \(Format.mib(rssAfterRestart)))",
                              target: "≤ 64 MiB", met: judged ? rssWorst <= 64 * 1024 : nil))
        figures.append(Figure(name: "idle", how: "context switches of all \(threads) heraldd threads over \(Int(plan.idle)) s, next job an hour away",
                              result: "\(switches)" + (busy.isEmpty ? "" : " (\(busy))"), target: "0", met: judged ? switches == 0 : nil))

        // Enqueue: herald remind against at, interleaved.
        settleDisk()
        let (heraldTimes, profileTimes, atTimes, runTimes) = try enqueue()
        let ratio = heraldTimes.median / atTimes.median, profileRatio = profileTimes.median / atTimes.median
        figures.append(Figure(name: "enqueue", how: "`herald remind --in 2d` vs `echo true \\| at now + 2 days`, no config file, "
                                + "medians of \(plan.enqueues) interleaved runs",
                              result: "herald \(Format.ms(heraldTimes.median)) · at \(Format.ms(atTimes.median)) → ratio \(String(format: "%.2f", ratio))",
                              target: "ratio ≤ 1.1", met: judged ? ratio <= 1.1 : nil))
        figures.append(Figure(name: "enqueue with a profile",
                              how: "the same, `HERALD_CONFIG` naming a config file that holds a profile (name, address), "
                                + "interleaved with both of the above",
                              result: "herald \(Format.ms(profileTimes.median)) · at \(Format.ms(atTimes.median)) → ratio \(String(format: "%.2f", profileRatio))",
                              target: "ratio ≤ 1.1", met: judged ? profileRatio <= 1.1 : nil))
        let runRatio = runTimes.median / atTimes.median
        figures.append(Figure(name: "enqueue a command",
                              how: "`herald run --in 2d -- true` vs `echo true \\| at now + 2 days` (both keep the directory, umask and "
                                + "environment), interleaved with both of the above",
                              result: "herald \(Format.ms(runTimes.median)) · at \(Format.ms(atTimes.median)) → ratio \(String(format: "%.2f", runRatio))",
                              target: "ratio ≤ 1.1", met: judged ? runRatio <= 1.1 : nil))

        // Commands: how late each starts (the runner's fork) after its time.
        settleDisk()
        let started = try runStarts()
        figures.append(Figure(name: "command start",
                              how: "\(started.count) `/bin/true` run jobs due every 50 ms (`herald import`): due → herald-runner forks the "
                                + "command (its `N.running`), each marked started on disk first",
                              result: "p50 \(Format.ms(started.p50)) · p99 \(Format.ms(started.p99)) · max \(Format.ms(started.max))"
                                + (started.negative > 0 ? " · \(started.negative) early" : ""),
                              target: "p99 ≤ 10 ms", met: judged ? started.p99 <= 10_000 && started.negative == 0 : nil))

        // A restart while a large batch is being filed, then a burst imported in that state.
        settleDisk()
        let resumed = try restartWhileFiling()
        figures.append(Figure(name: "restart while filing",
                              how: "heraldd stopped and started while it files a \(Format.count(plan.jobs))-job `herald import` "
                                + "(`jobs/` held \(Format.count(resumed.held)), \(resumed.batchLeft ? "the batch still in `new/`" : "**the batch was already filed**")) "
                                + "→ READY=1; then \(Format.count(plan.burst)) jobs due at one instant, imported "
                                + "\(Format.seconds(resumed.burstLead)) ahead: due → last received "
                                + "(the batch all filed \(Format.seconds(resumed.filedAfter)) after READY)",
                              result: "READY \(Format.ms(resumed.ready)) · burst last \(Format.ms(resumed.burst.max)) (first \(Format.ms(resumed.burst.min))) "
                                + "· RSS then \(Format.mib(resumed.rss))",
                              target: "READY ≤ 0.5 s, last ≤ 1 s",
                              met: judged ? resumed.ready <= 500_000 && resumed.burst.max <= 1_000_000 && resumed.burst.negative == 0 : nil))

        // Popups due every 50 ms while a second queue of the same size is imported.
        settleDisk()
        let (ticks, intakeMicroseconds, held) = try importWhileTicking()
        figures.append(Figure(name: "import lateness",
                              how: "popups due every 50 ms while heraldd takes in a second \(Format.count(plan.jobs))-job `herald import` "
                                + "(intake \(Format.seconds(intakeMicroseconds)), \(ticks.count) popups over it, \(Format.count(held)) queued)",
                              result: "p50 \(Format.ms(ticks.p50)) · p99 \(Format.ms(ticks.p99)) · max \(Format.ms(ticks.max))"
                                + (ticks.negative > 0 ? " · \(ticks.negative) early" : ""),
                              target: "p99 ≤ 20 ms, max ≤ 100 ms",
                              met: judged ? ticks.p99 <= 20_000 && ticks.max <= 100_000 && ticks.negative == 0 : nil))

        // A small import right after a large one that is still being filed, and just before a second large one.
        settleDisk()
        let behind = try importBehindFiling()
        figures.append(Figure(name: "import behind a filing batch",
                              how: "\(behind.ticks.count) popups due every 50 ms, imported while heraldd files a \(Format.count(plan.jobs))-job "
                                + "`herald import` and just before a second one (both filed \(Format.seconds(behind.filed)) after the first import"
                                + ", the last popup due at \(Format.seconds(behind.lastDue)))",
                              result: "p50 \(Format.ms(behind.ticks.p50)) · p99 \(Format.ms(behind.ticks.p99)) · max \(Format.ms(behind.ticks.max))"
                                + (behind.ticks.negative > 0 ? " · \(behind.ticks.negative) early" : ""),
                              target: "p99 ≤ 20 ms, max ≤ 100 ms",
                              met: judged ? behind.ticks.p99 <= 20_000 && behind.ticks.max <= 100_000 && behind.ticks.negative == 0 : nil))
        // A small import right after three large ones, imported back to back (issue 41).
        settleDisk()
        let after = try smallImportAfterBig()
        figures.append(Figure(name: "small import after big ones",
                              how: "three `herald import`s of \(Format.count(after.size)) jobs each, back to back, then one of "
                                + "\(after.late.count) reminders due 1–3 s later: due → received (the big ones all filed "
                                + "\(Format.seconds(after.filed)) after the first import)",
                              result: "all \(after.late.count) shown, p50 \(Format.ms(after.late.p50)) · max \(Format.ms(after.late.max))"
                                + (after.late.negative > 0 ? " · \(after.late.negative) early" : ""),
                              target: "max ≤ 100 ms",
                              met: judged ? after.late.max <= 100_000 && after.late.negative == 0 : nil))
        try checkNothingElseFired()

        let order = ["fire lateness", "burst", "pickup", "start-up", "first start", "intake", "markers in a batch", "import lateness",
                     "import behind a filing batch", "small import after big ones", "restart while filing", "memory", "idle", "enqueue", "enqueue with a profile", "enqueue a command", "command start", "bulk"]
        return Report(figures: order.compactMap { name in figures.first { $0.name == name } }, notes: notes,
                      machine: Report.describeMachine(swiftVersion: Self.swiftVersion()),
                      date: Self.today(), command: command, smoke: plan.smoke)
    }

    // MARK: - Phases

    /// What `fire` measured, each beside its floor.
    struct Fired {
        var lateness: Samples
        /// Each burst's due → last received, in the order timed; the first's due → first received (µs).
        var bursts: Samples
        var firstOfBurst: Double
        /// notify-floor's lateness over the same pattern of instants.
        var floorLateness: Samples
        /// notify-floor's bursts, each right after one of heraldd's: its first call → last received.
        var floorBursts: Samples
    }

    /// Schedules the lateness jobs and the burst, waits for all of them, and measures; then
    /// notify-floor does the same against the same server while heraldd holds its queue.
    func fire() throws(BenchError) -> Fired {
        let spread = Span(microseconds: Int64(plan.spread * 1_000_000))
        // Room to import them first: `herald import` lists jobs/ for ids in use (a second at a
        // million jobs).
        let t0 = TimestampingServer.wallClock() + .seconds(4 + Int64(plan.jobs / 100_000))
        var due: [Workload.Key: Instant] = [:]
        var lines: [String] = []
        for (k, at) in spacedInstants(from: t0, spread: spread).enumerated() {
            due[Workload.Key(.lateness, k)] = at
            lines.append(Workload.line(Workload.Key(.lateness, k), at: at))
        }
        let burstAt = t0 + spread + .seconds(1)
        for k in 0..<plan.burst {
            due[Workload.Key(.burst, k)] = burstAt
            lines.append(Workload.line(Workload.Key(.burst, k), at: burstAt))
        }
        let file = directory + "/timed.jsonl"
        writeFile(lines.joined(separator: "\n") + "\n", to: file)
        _ = try runHerald(["import", "--spool", spool, file])
        try waitForPending(plan.jobs + plan.lateness + plan.burst, what: "the lateness and burst jobs")
        let margin = t0 - TimestampingServer.wallClock()
        guard margin > .milliseconds(500) else {
            throw BenchError("set-up too slow: the timed jobs were taken in only \(margin) before the first was due")
        }
        let expected = Set(due.keys)
        try awaitKeys(expected, until: burstAt + .seconds(plan.smoke ? 10 : 30), what: "lateness and burst popups")

        var lateness = Samples()
        for k in 0..<plan.lateness {
            let key = Workload.Key(.lateness, k)
            lateness.record(microseconds: (arrivals[key]! - due[key]!).microseconds)
        }
        let burstArrivals = (0..<plan.burst).map { arrivals[Workload.Key(.burst, $0)]! }

        // The floors: one popup at each of the same pattern of instants, then the burst.
        let floorStart = TimestampingServer.wallClock() + .seconds(1)
        let floorDue = spacedInstants(from: floorStart, spread: spread)
        let instants = directory + "/floor-instants"
        writeFile(floorDue.map { "\($0.microseconds * 1000)\n" }.joined(), to: instants)
        _ = try runFloor([floors.notify, "timed", String(Workload.Group.floorTimed.rawValue), instants])
        let timedKeys = Set((0..<plan.lateness).map { Workload.Key(.floorTimed, $0) })
        try awaitKeys(timedKeys, until: floorStart + spread + .seconds(10), what: "notify-floor's timed popups")
        var floorLateness = Samples()
        for key in timedKeys { floorLateness.record(microseconds: (arrivals[key]! - floorDue[key.index]).microseconds) }
        var bursts = Samples(), floorBursts = Samples()
        bursts.record(microseconds: (burstArrivals.max()! - burstAt).microseconds)
        floorBursts.record(microseconds: try floorBurst(round: 0))
        for round in 1..<plan.burstRounds {
            bursts.record(microseconds: try burst(round: round))
            floorBursts.record(microseconds: try floorBurst(round: round))
        }
        return Fired(lateness: lateness, bursts: bursts, firstOfBurst: Double((burstArrivals.min()! - burstAt).microseconds),
                     floorLateness: floorLateness, floorBursts: floorBursts)
    }

    /// Another `plan.burst` jobs due at one instant, imported while heraldd holds its queue:
    /// due → last received, µs. Round `round` has keys of its own.
    private func burst(round: Int) throws(BenchError) -> Int64 {
        let at = TimestampingServer.wallClock() + .seconds(3 + Int64(plan.jobs / 100_000))
        let keys = (0..<plan.burst).map { Workload.Key(.burst, round * plan.burst + $0) }
        let file = directory + "/burst-\(round).jsonl"
        writeFile(keys.map { Workload.line($0, at: at) }.joined(separator: "\n") + "\n", to: file)
        _ = try runHerald(["import", "--spool", spool, file])
        let margin = at - TimestampingServer.wallClock()
        guard margin > .milliseconds(1_000) else {
            throw BenchError("set-up too slow: burst \(round + 1) was imported only \(margin) before it was due")
        }
        try awaitKeys(Set(keys), until: at + .seconds(30), what: "popups of burst \(round + 1)")
        return (keys.map { arrivals[$0]! }.max()! - at).microseconds
    }

    /// notify-floor's `plan.burst` synchronous calls: its first call → last received, µs.
    private func floorBurst(round: Int) throws(BenchError) -> Int64 {
        let first = round * plan.burst
        let printed = try runFloor([floors.notify, "burst", String(Workload.Group.floorBurst.rawValue), String(plan.burst), String(first)])
        guard let startNs = Int64(printed.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("notify-floor burst printed \(printed.debugDescription), not its start time")
        }
        let keys = Set((first..<first + plan.burst).map { Workload.Key(.floorBurst, $0) })
        try awaitKeys(keys, until: TimestampingServer.wallClock() + .seconds(30), what: "notify-floor's burst popups")
        return keys.map { arrivals[$0]! }.max()!.microseconds - startNs / 1000
    }

    /// `plan.lateness` instants spaced evenly over `spread` from `start`, each at a random
    /// microsecond within the first half of its slot: not on a millisecond tick.
    private func spacedInstants(from start: Instant, spread: Span) -> [Instant] {
        var rng = SystemRandomNumberGenerator()
        let spacing = spread.microseconds / Int64(plan.lateness)
        return (0..<plan.lateness).map { k in
            start + Span(microseconds: spacing * Int64(k) + Int64.random(in: 0..<max(spacing / 2, 1), using: &rng))
        }
    }

    /// Runs a floor program to its end; what it printed.
    func runFloor(_ argv: [String]) throws(BenchError) -> String {
        let output = directory + "/floor.out"
        let status: Int32
        do { (status, _) = try Spawned.timed(argv[0], Array(argv.dropFirst()), environment: environment, outputPath: output) } catch {
            throw BenchError("cannot run \(argv[0]): \(error)")
        }
        let printed: String
        do { printed = try String(contentsOfFile: output, encoding: .utf8) } catch {
            throw BenchError("cannot read what \(argv[0]) printed (\(output)): \(error)")
        }
        guard status == 0 else { throw BenchError("\(argv.prefix(2).joined(separator: " ")) failed (status \(status)): \(printed)") }
        return printed
    }

    /// file-floor: `count` job-sized files in a new directory beside the spool on two threads,
    /// then one sync; seconds, as it prints them.
    func fileFloor(_ count: Int) throws(BenchError) -> Double {
        let printed = try runFloor([floors.file, directory + "/file-floor-\(count)", String(count), "2"])
        guard let total = printed.split(separator: " ").first(where: { $0.hasPrefix("total=") }),
              let seconds = Double(total.dropFirst("total=".count).trimmingCharacters(in: CharacterSet(charactersIn: "s\n"))) else {
            throw BenchError("file-floor printed \(printed.debugDescription), not its total")
        }
        return seconds
    }

    /// Schedules ticks every 50 ms, then imports a second queue as large as the first while
    /// they come due. Returns the ticks' lateness and how long (µs) heraldd took to file the import.
    private func importWhileTicking() throws(BenchError) -> (Samples, Double, Int) {
        let before = try settledPending()
        let span = Span.seconds(plan.smoke ? 2 : 15)
        let count = Int(span.microseconds / 50_000)
        // Room to take the ticks in with two batches' worth of jobs held, on a busy machine.
        let t0 = TimestampingServer.wallClock() + .seconds(plan.smoke ? 3 : 5)
        let tickFile = directory + "/ticks.jsonl", backlogFile = directory + "/backlog.jsonl"
        writeFile(Workload.queue(.tick, count: count, start: t0, spread: span).joined(separator: "\n") + "\n", to: tickFile)
        writeFile(Workload.queue(.backlog, count: plan.jobs, start: t0 + .minutes(120), spread: .minutes(60)).joined(separator: "\n") + "\n",
                  to: backlogFile)
        _ = try runHerald(["import", "--spool", spool, tickFile])
        try waitForPending(before + count, what: "the ticks", shownMeanwhile: Set((0..<count).map { Workload.Key(.tick, $0) }))
        let lead = (t0 - .milliseconds(200)) - TimestampingServer.wallClock()
        guard lead > .zero else { throw BenchError("set-up too slow: the ticks were taken in only just before the first was due") }
        sleep(milliseconds: Int(lead.microseconds / 1000))
        let started = monotonicNanoseconds()
        _ = try runHerald(["import", "--spool", spool, backlogFile])
        try waitForPending(before + plan.jobs, what: "the second import", ignoringDone: true)
        let intake = Double(monotonicNanoseconds() - started) / 1000
        let keys = Set((0..<count).map { Workload.Key(.tick, $0) })
        try awaitKeys(keys, until: t0 + span + .seconds(30), what: "ticks")
        var samples = Samples()
        for key in keys {
            let due = t0 + Span(microseconds: span.microseconds * Int64(key.index) / Int64(count))
            samples.record(microseconds: (arrivals[key]! - due).microseconds)
        }
        return (samples, intake, before)
    }

    /// When first-start marker `k` is due: the markers are spread evenly over `spread` from `first`.
    private func firstMarkerDue(_ k: Int, _ first: Instant, _ spread: Span) -> Instant {
        first + Span(microseconds: spread.microseconds * Int64(k) / Int64(max(plan.firstStartJobs, 1)))
    }

    /// What a restart in the middle of filing a large batch measured.
    struct RestartWhileFiling {
        /// Job files in `jobs/` when heraldd started again.
        var held: Int
        /// Whether the batch was still (partly) in `new/` then.
        var batchLeft: Bool
        /// posix_spawn → READY=1, µs.
        var ready: Double
        /// How far ahead of its due time the burst was imported, µs.
        var burstLead: Double
        /// Each burst job's due → received.
        var burst: Samples
        /// heraldd's RSS (KiB) right after the burst was shown.
        var rss: Int
        /// READY → the batch all filed (status.json, refreshed once a second), µs.
        var filedAfter: Double
    }

    /// Imports a batch as large as the queue, stops heraldd a second into filing it and starts
    /// it again (READY=1 timed), then imports a burst due a few seconds later while the resumed
    /// batch is filed. The pattern of issue 27: READY came from the 1 s fallback and the burst
    /// was shown 1.7 s late.
    private func restartWhileFiling() throws(BenchError) -> RestartWhileFiling {
        let before = try settledPending()
        let file = directory + "/resumed.jsonl", burstFile = directory + "/filing-burst.jsonl"
        writeFile(Workload.queue(.resumed, count: plan.jobs, start: TimestampingServer.wallClock() + .minutes(240), spread: .minutes(60))
                    .joined(separator: "\n") + "\n", to: file)
        _ = try runHerald(["import", "--spool", spool, file])
        if try waitForFilingUnderWay(what: "the batch to restart over") { sleep(milliseconds: plan.smoke ? 0 : 1_000) }
        try stopDaemon()
        let batchLeft = !((try? FileManager.default.contentsOfDirectory(atPath: spool + "/new")) ?? []).isEmpty
        let held = (try? FileManager.default.contentsOfDirectory(atPath: spool + "/jobs"))?.count ?? 0
        let ready = try startDaemon()
        let readyAt = monotonicNanoseconds()

        let lead = Span.seconds(plan.smoke ? 2 : 4)
        let burstAt = TimestampingServer.wallClock() + lead
        writeFile((0..<plan.burst).map { Workload.line(Workload.Key(.filingBurst, $0), at: burstAt) }.joined(separator: "\n") + "\n",
                  to: burstFile)
        let importedAt = TimestampingServer.wallClock()
        _ = try runHerald(["import", "--spool", spool, burstFile])
        let keys = Set((0..<plan.burst).map { Workload.Key(.filingBurst, $0) })
        try awaitKeys(keys, until: burstAt + .seconds(30), what: "burst popups imported while a batch files")
        let memory = try rss()
        var burst = Samples()
        for key in keys { burst.record(microseconds: (arrivals[key]! - burstAt).microseconds) }
        try waitForPending(before + plan.jobs, what: "the batch filed across a restart", ignoringDone: true)
        return RestartWhileFiling(held: held, batchLeft: batchLeft, ready: Double(ready) / 1000,
                                  burstLead: Double((burstAt - importedAt).microseconds), burst: burst, rss: memory,
                                  filedAfter: Double(monotonicNanoseconds() - readyAt) / 1000)
    }

    /// Imports a batch as large as the queue; once heraldd files it, a small import of popups
    /// due every 50 ms from 2 s on, and right behind it a second large batch. The pattern of
    /// issue 27: the small import waited behind the first batch's filing (10.5 s late).
    /// Returns the popups' lateness, µs from the first import to both batches filed, and µs
    /// from the first import to the last popup's due time.
    private func importBehindFiling() throws(BenchError) -> (ticks: Samples, filed: Double, lastDue: Double) {
        let before = try settledPending()
        let firstFile = directory + "/first-batch.jsonl", secondFile = directory + "/second-batch.jsonl"
        let tickFile = directory + "/behind.jsonl"
        let far = TimestampingServer.wallClock() + .minutes(300)
        writeFile(Workload.queue(.firstBatch, count: plan.jobs, start: far, spread: .minutes(60)).joined(separator: "\n") + "\n", to: firstFile)
        writeFile(Workload.queue(.secondBatch, count: plan.jobs, start: far, spread: .minutes(60)).joined(separator: "\n") + "\n", to: secondFile)
        let startedWall = TimestampingServer.wallClock()
        let started = monotonicNanoseconds()
        _ = try runHerald(["import", "--spool", spool, firstFile])
        _ = try waitForFilingUnderWay(what: "the first batch")
        let count = plan.smoke ? 20 : 100
        let spacing = Span.milliseconds(50)
        let t0 = TimestampingServer.wallClock() + .seconds(2)
        writeFile(Workload.queue(.behind, count: count, start: t0, spread: Span(microseconds: spacing.microseconds * Int64(count)))
                    .joined(separator: "\n") + "\n", to: tickFile)
        _ = try runHerald(["import", "--spool", spool, tickFile])
        _ = try runHerald(["import", "--spool", spool, secondFile])
        try waitForPending(before + 2 * plan.jobs, what: "the two batches around a small import", ignoringDone: true)
        let filed = Double(monotonicNanoseconds() - started) / 1000
        let keys = Set((0..<count).map { Workload.Key(.behind, $0) })
        try awaitKeys(keys, until: t0 + Span(microseconds: spacing.microseconds * Int64(count)) + .seconds(30),
                      what: "popups imported behind a filing batch")
        var samples = Samples()
        for key in keys {
            samples.record(microseconds: (arrivals[key]! - (t0 + Span(microseconds: spacing.microseconds * Int64(key.index)))).microseconds)
        }
        let lastDue = t0 + Span(microseconds: spacing.microseconds * Int64(count - 1))
        return (samples, filed, Double((lastDue - startedWall).microseconds))
    }

    /// Three large imports back to back, then 40 reminders due 1–3 s after theirs: the small
    /// import must not wait behind the large ones' parts (their readers wait for room to file).
    private func smallImportAfterBig() throws(BenchError) -> (late: Samples, filed: Double, size: Int) {
        let before = try settledPending()
        let size = max(plan.jobs / 2, 10)
        let far = TimestampingServer.wallClock() + .minutes(400)
        var files: [String] = []
        for (k, group) in [Workload.Group.bigA, .bigB, .bigC].enumerated() {
            let file = directory + "/big-\(k).jsonl"
            writeFile(Workload.queue(group, count: size, start: far, spread: .minutes(60)).joined(separator: "\n") + "\n", to: file)
            files.append(file)
        }
        let smallFile = directory + "/after-big.jsonl"
        let started = monotonicNanoseconds()
        for file in files { _ = try runHerald(["import", "--spool", spool, file]) }
        let count = plan.smoke ? 10 : 40
        let t0 = TimestampingServer.wallClock() + .seconds(1)
        let due = (0..<count).map { t0 + Span(microseconds: 2_000_000 * Int64($0) / Int64(count)) }
        writeFile((0..<count).map { Workload.line(Workload.Key(.afterBig, $0), at: due[$0]) }.joined(separator: "\n") + "\n", to: smallFile)
        _ = try runHerald(["import", "--spool", spool, smallFile])
        let keys = Set((0..<count).map { Workload.Key(.afterBig, $0) })
        try awaitKeys(keys, until: t0 + .seconds(32), what: "a small import after three big ones")
        try waitForPending(before + 3 * size, what: "three big imports and a small one", ignoringDone: true)
        let filed = Double(monotonicNanoseconds() - started) / 1000
        var samples = Samples()
        for key in keys { samples.record(microseconds: (arrivals[key]! - due[key.index]).microseconds) }
        return (samples, filed, size)
    }

    /// Waits until heraldd has claimed the batch just imported (a `.filing-` link in `new/`), or
    /// has taken in everything (`new/` empty). Returns whether it is filing.
    private func waitForFilingUnderWay(what: String) throws(BenchError) -> Bool {
        let deadline = monotonicNanoseconds() + 60_000_000_000
        while monotonicNanoseconds() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: spool + "/new")) ?? []
            if names.isEmpty { return false }
            if names.contains(where: { $0.hasPrefix(".filing-") }) { return true }
            if let status = daemon?.poll() { throw BenchError("heraldd exited with status \(status): \(log())") }
            sleep(milliseconds: 5)
        }
        throw BenchError("heraldd did not start filing \(what) within 60 s: new/ holds \((try? FileManager.default.contentsOfDirectory(atPath: spool + "/new")) ?? [])")
    }

    /// The pending count once nothing is arriving: new/ empty and status.json a second old.
    private func settledPending() throws(BenchError) -> Int {
        sleep(milliseconds: 1_500)
        guard let bytes = FileManager.default.contents(atPath: spool + "/status.json"),
              let count = DaemonStatus.pendingCount(json: Array(bytes)) else { throw BenchError("status.json has no pending count") }
        return count
    }

    /// Renames jobs due now into new/, one at a time, timing each to its popup.
    private func pickups() throws(BenchError) -> Samples {
        var samples = Samples()
        for k in 0..<plan.pickups {
            let key = Workload.Key(.pickup, k)
            let tmp = spool + "/tmp/bench-\(k).json", new = spool + "/new/bench-\(k).json"
            writeFile(Workload.line(key, at: TimestampingServer.wallClock()) + "\n", to: tmp, sync: true)
            let renamed = TimestampingServer.wallClock()
            guard rename(tmp, new) == 0 else { throw BenchError("cannot rename \(tmp) into new/: \(String(cString: strerror(errno)))") }
            try awaitKeys([key], until: TimestampingServer.wallClock() + .seconds(10), what: "pickup popup \(k)")
            samples.record(microseconds: (arrivals[key]! - renamed).microseconds)
            sleep(milliseconds: 5)
        }
        return samples
    }

    /// Context switches of every daemon thread over the idle window.
    private func idleSwitches() throws(BenchError) -> (Int, Int, String) {
        guard let daemon else { throw BenchError("heraldd is not running") }
        sleep(milliseconds: 2_000)  // status.json is written at most a second after the last change
        let before = ProcessInfoReader.contextSwitches(pid: daemon.pid)
        sleep(milliseconds: Int(plan.idle * 1000))
        let after = ProcessInfoReader.contextSwitches(pid: daemon.pid)
        guard !before.isEmpty, daemon.poll() == nil else { throw BenchError("heraldd stopped during the idle window: \(log())") }
        var total = 0
        var busy: [String] = []
        for (tid, count) in after.sorted(by: { $0.key < $1.key }) {
            let delta = count - (before[tid] ?? 0)
            total += delta
            if delta > 0 { busy.append("\(ProcessInfoReader.threadName(pid: daemon.pid, tid: tid)): \(delta)") }
        }
        return (total, after.count, busy.joined(separator: ", "))
    }


    /// `herald remind` without a config file, `herald remind` with one that holds a profile,
    /// and `at`, in turn (which goes first rotates too), after warm-ups.
    private func enqueue() throws(BenchError) -> (Samples, Samples, Samples, Samples) {
        let at = "/usr/bin/at", atrm = "/usr/bin/atrm"
        guard FileManager.default.isExecutableFile(atPath: at) else {
            throw BenchError("\(at) is missing: install Debian's 'at' package ('make bench' does) to compare with it")
        }
        let input = directory + "/at-input"
        writeFile("true\n", to: input)
        // What most users have: a config file with their profile, for deliveries.
        let config = directory + "/profile.yaml"
        writeFile("# Who deliveries are for.\nprofile:\n  name: \"Alice Smith\"\n  address: \"12 Elm St\"\n", to: config)
        var withProfile = environment
        withProfile["HERALD_CONFIG"] = config
        let output = directory + "/enqueue.out"
        var heraldTimes = Samples(), profileTimes = Samples(), atTimes = Samples(), runTimes = Samples()
        let warmUps = 3
        enum Variant: CaseIterable { case herald, profile, at, run }
        for k in 0..<(warmUps + plan.enqueues) {
            var round: [(Variant, UInt64)] = []
            for step in 0..<Variant.allCases.count {
                let variant = Variant.allCases[(step + k) % Variant.allCases.count]
                switch variant {
                case .at:
                    let (status, ns) = try Spawned.timed(at, ["now", "+", "2", "days"], environment: environment,
                                                          stdinPath: input, outputPath: output)
                    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                    guard status == 0, let number = text.split(separator: "\n").compactMap({ line -> String? in
                        let words = line.split(separator: " ")
                        return words.first == "job" && words.count > 1 ? String(words[1]) : nil
                    }).first else { throw BenchError("at failed (status \(status)): \(text)") }
                    _ = try Spawned.timed(atrm, [number], environment: environment, outputPath: output)
                    round.append((variant, ns))
                case .run:
                    // Cancelled at once, by the id it printed ("Run ID: ..."): only the enqueue is
                    // measured, as atrm follows at (no --id: that costs a lookup of pending ids).
                    let (status, ns) = try Spawned.timed(herald, ["run", "--spool", spool, "--in", "2d", "--", "true"],
                                                          environment: environment, outputPath: output)
                    let text: String
                    do { text = try String(contentsOfFile: output, encoding: .utf8) } catch { throw BenchError("cannot read \(output): \(error)") }
                    let words = text.split(separator: " ")
                    guard status == 0, words.count > 1, words[0] == "Run" else { throw BenchError("herald run failed (status \(status)): " + text) }
                    _ = try Spawned.timed(herald, ["cancel", "--spool", spool, String(words[1].dropLast())], environment: environment, outputPath: output)
                    round.append((variant, ns))
                case .herald, .profile:
                    let key = Workload.Key(.enqueue, 2 * k + (variant == .profile ? 1 : 0))
                    let (status, ns) = try Spawned.timed(herald, ["remind", "--spool", spool, "--in", "2d", key.text],
                                                          environment: variant == .profile ? withProfile : environment, outputPath: output)
                    guard status == 0 else {
                        throw BenchError("herald remind\(variant == .profile ? " (with \(config))" : "") failed (status \(status)): "
                                         + ((try? String(contentsOfFile: output, encoding: .utf8)) ?? ""))
                    }
                    round.append((variant, ns))
                }
            }
            guard k >= warmUps else { continue }
            for (variant, ns) in round {
                switch variant {
                case .herald: heraldTimes.record(microseconds: Int64(ns / 1000))
                case .profile: profileTimes.record(microseconds: Int64(ns / 1000))
                case .at: atTimes.record(microseconds: Int64(ns / 1000))
                case .run: runTimes.record(microseconds: Int64(ns / 1000))
                }
            }
        }
        return (heraldTimes, profileTimes, atTimes, runTimes)
    }

    /// Run jobs of `/bin/true` due every 50 ms, imported as one batch; each one's start is the
    /// runner's fork (`runs/ID/1.running`) less its time (the spec's occurrence).
    private func runStarts() throws(BenchError) -> Samples {
        let count = plan.smoke ? 10 : 200
        let t0 = TimestampingServer.wallClock() + .seconds(2)
        let file = directory + "/runs.jsonl"
        writeFile((0..<count).map { k in
            let at = t0 + Span(microseconds: 50_000 * Int64(k))
            return "{\"version\":1,\"kind\":\"run\",\"id\":\"bench-run-\(k)\",\"at\":\"\(ISO8601.format(at, offsetSeconds: 0, zulu: true))\","
                + "\"command\":[\"/bin/true\"],\"directory\":\"/\",\"environment\":{\"PATH\":\"/usr/bin:/bin\"},\"notify\":\"never\"}"
        }.joined(separator: "\n") + "\n", to: file)
        _ = try runHerald(["import", "--spool", spool, file])
        let runs = RunFiles(spool: Spool(root: spool))
        let deadline = t0 + Span(microseconds: 50_000 * Int64(count)) + .seconds(30)
        var samples = Samples()
        for k in 0..<count {
            let id = "bench-run-\(k)"
            while !FileSystem.exists(runs.path(id, 1, "result")) {
                guard TimestampingServer.wallClock() < deadline else { throw BenchError("run job \(id) did not run within 30 s of its time") }
                usleep(2000)  // polls files another process writes; the figure is read from them, not from this loop
            }
            guard let started = runs.running(id, 1)?.start, let due = runs.readSpec(id, 1)?.occurrence else {
                throw BenchError("run job \(id) left no start or spec")
            }
            samples.record(microseconds: (started - due).microseconds)
        }
        return samples
    }

    // MARK: - Daemon

    /// Starts heraldd; nanoseconds from posix_spawn to READY=1 on the notify socket.
    @discardableResult
    func startDaemon() throws(BenchError) -> UInt64 {
        daemonRuns += 1
        var env = environment
        env["NOTIFY_SOCKET"] = notify.path
        let mark = notify.mark
        let start = monotonicNanoseconds()
        let child = try Spawned.start(heraldd, ["--spool", spool], environment: env, outputPath: logPath)
        daemon = child
        guard let ready = notify.wait(forLine: "READY=1", after: mark, from: child, timeoutSeconds: 60) else {
            let status = child.poll()
            throw BenchError("heraldd did not send READY=1" + (status.map { " (it exited with status \($0))" } ?? " within 60 s") + ": \(log())")
        }
        return ready - start
    }

    func stopDaemon() throws(BenchError) {
        guard let daemon else { return }
        daemon.signal(SIGTERM)
        let deadline = monotonicNanoseconds() + 20_000_000_000
        while daemon.poll() == nil {
            guard monotonicNanoseconds() < deadline else {
                daemon.signal(SIGKILL)
                throw BenchError("heraldd did not stop within 20 s of SIGTERM: \(log())")
            }
            sleep(milliseconds: 5)
        }
        self.daemon = nil
    }

    private var logPath: String { directory + "/heraldd-\(daemonRuns).log" }

    /// The end of the current daemon log, for error messages.
    private func log() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return String(text.suffix(2000))
    }

    func rss() throws(BenchError) -> Int {
        guard let daemon, let kib = ProcessInfoReader.kibibytes("VmRSS", pid: daemon.pid) else {
            throw BenchError("cannot read heraldd's memory from /proc")
        }
        return kib
    }

    /// Waits until `new/` holds nothing (the batch, claimed or not, is gone); polls every 2 ms.
    func waitForIntake(of count: Int) throws(BenchError) {
        let deadline = monotonicNanoseconds() + UInt64(max(120, count / 4_000)) * 1_000_000_000
        let new = spool + "/new"
        while monotonicNanoseconds() < deadline {
            if (try? FileSystem.count(new)) == 0 { return }
            if let status = daemon?.poll() { throw BenchError("heraldd exited with status \(status): \(log())") }
            sleep(milliseconds: 2)
        }
        throw BenchError("heraldd did not take in the \(Format.count(count)) imported jobs in time: \((try? FileSystem.list(new)) ?? []) in new/")
    }

    /// Waits until status.json says `count` jobs are pending and new/ is empty; stops on
    /// anything in failed/.
    /// With `ignoringDone`, the count may be higher by up to 10,000 (jobs not yet done); with
    /// `shownMeanwhile`, lower by as many of those jobs as were shown already (taken in late,
    /// they may fire before status.json, written at most once a second, counts them).
    func waitForPending(_ count: Int, what: String, ignoringDone: Bool = false,
                        shownMeanwhile: Set<Workload.Key> = []) throws(BenchError) {
        // A million jobs take over a minute to file.
        let seconds = max(120, count / 4_000)
        let deadline = monotonicNanoseconds() + UInt64(seconds) * 1_000_000_000
        var last: Int? = nil
        while monotonicNanoseconds() < deadline {
            if let failed = try? FileManager.default.contentsOfDirectory(atPath: spool + "/failed"), let first = failed.sorted().first {
                let reason = (try? String(contentsOfFile: spool + "/failed/" + first.replacingOccurrences(of: ".reason", with: "") + ".reason",
                                          encoding: .utf8)) ?? ""
                throw BenchError("heraldd refused \(what): failed/\(first): \(reason)")
            }
            if let bytes = FileManager.default.contents(atPath: spool + "/status.json") {
                last = DaemonStatus.pendingCount(json: Array(bytes))
                let waiting = (try? FileManager.default.contentsOfDirectory(atPath: spool + "/new"))?.count ?? 0
                var shown = 0
                if !shownMeanwhile.isEmpty {
                    collect()
                    shown = shownMeanwhile.count { arrivals[$0] != nil }
                }
                if waiting == 0, let last, last == count || (ignoringDone && last >= count && last <= count + 10_000)
                    || (shown > 0 && last < count && last + shown >= count) { return }
            }
            if let status = daemon?.poll() { throw BenchError("heraldd exited with status \(status): \(log())") }
            sleep(milliseconds: 20)
        }
        throw BenchError("heraldd did not take in \(what) within \(seconds) s (status.json says \(last.map(String.init) ?? "nothing") pending, expected \(count))")
    }

    // MARK: - Popups

    /// Waits until a popup has arrived for each key; stops on a missing or doubled one.
    private func awaitKeys(_ keys: Set<Workload.Key>, until deadline: Instant, what: String) throws(BenchError) {
        var missing = keys
        while true {
            collect()
            if !duplicates.isEmpty { throw BenchError("a popup arrived twice: \(duplicates.prefix(5).map(\.text))") }
            missing = missing.filter { arrivals[$0] == nil }
            if missing.isEmpty { return }
            let now = TimestampingServer.wallClock()
            if now >= deadline {
                throw BenchError("\(missing.count) of \(keys.count) \(what) never arrived (for example \(missing.prefix(3).map(\.text)))")
            }
            if let status = daemon?.poll() { throw BenchError("heraldd exited with status \(status): \(log())") }
            // Each missing key needs a popup of its own: sleep until that many more have come.
            server.waitForArrivals(count: matched + missing.count,
                                   until: .now() + .milliseconds(Int(min(200, (deadline - now).microseconds / 1000 + 1))))
        }
    }

    private func collect() {
        let all = server.all
        while matched < all.count {
            let popup = all[matched]
            matched += 1
            if let key = Workload.Key(popup: popup.body) ?? Workload.Key(popup: popup.summary) {
                if arrivals[key] == nil { arrivals[key] = popup.at } else { duplicates.append(key) }
            } else {
                strangers.append(popup.summary + " / " + popup.body)
            }
        }
    }

    /// No popup came for the queue (due later) or for anything unexpected.
    private func checkNothingElseFired() throws(BenchError) {
        collect()
        if let early = arrivals.keys.first(where: { Workload.Group.neverDue.contains($0.group) }) {
            throw BenchError("\(early.text) fired although it is not due during the run")
        }
        if !strangers.isEmpty { throw BenchError("unexpected popups: \(strangers.prefix(3))") }
    }

    // MARK: - Helpers

    func runHerald(_ arguments: [String]) throws(BenchError) -> UInt64 {
        let output = directory + "/herald.out"
        let (status, ns) = try Spawned.timed(herald, arguments, environment: environment, outputPath: output)
        guard status == 0 else {
            throw BenchError("herald \(arguments.first ?? "") failed (status \(status)): \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        }
        return ns
    }

    func writeFile(_ text: String, to path: String, sync: Bool = false) {
        guard let file = Descriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC), file.writeAll(text.utf8) else {
            Bench.fail(BenchError("cannot write \(path): \(String(cString: strerror(errno)))"))
        }
        if sync { fsync(file.raw) }
    }

    static func today() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm ZZZZZ"
        return formatter.string(from: Date())
    }

    static func swiftVersion() -> String? {
        for path in ["/usr/bin/swift", "/opt/swift/usr/bin/swift"] where FileManager.default.isExecutableFile(atPath: path) {
            let out = NSTemporaryDirectory() + "/herald-bench-swift-\(getpid())"
            defer { unlink(out) }
            guard let (status, _) = try? Spawned.timed(path, ["--version"], environment: ["PATH": "/usr/bin:/bin"], outputPath: out),
                  status == 0, let text = try? String(contentsOfFile: out, encoding: .utf8),
                  let range = text.range(of: #"Swift version [0-9.]+"#, options: .regularExpression) else { continue }
            return String(text[range]).replacingOccurrences(of: "Swift version", with: "Swift")
        }
        return nil
    }
}
