import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Time as it really behaves: late daemons, clocks set back and forth, zones that change.
struct EngineClockTests {
    let dir = TemporaryDirectory()
    let clock = ManualClock(ISO8601.parseInstant("2026-11-22T08:00:00Z")!)
    let logs = MemoryLogHandlerBox()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    func at(_ text: String) -> Instant { ISO8601.parseInstant(text)! }

    func engine(_ config: HeraldConfig = HeraldConfig(), zone: TimeZoneRules = .utc) -> EngineDriver {
        EngineDriver(spool: spool, config: config, localZone: zone, clock: clock, logger: logs.logger())
    }

    @discardableResult
    func show(_ shown: [NotificationRequest], _ driver: EngineDriver) -> [NotificationRequest] { shown }

    func submit(_ jobs: Job...) throws {
        try spool.prepare()
        for job in jobs { try spool.submit(job) }
    }

    /// Down from 08:00 to 10:10: the job due 09:40 is within the hour's grace and shows,
    /// marked late; the one due 08:05 is older and is recorded as missed.
    @Test func jobsDueWhileDownShowWithinTheGraceAndAreMissedAfterIt() throws {
        try submit(Job(kind: .reminder, id: "recent", at: at("2026-11-22T09:40:00Z"), text: "Recent"),
                   Job(kind: .reminder, id: "old", at: at("2026-11-22T08:05:00Z"), text: "Old"))
        clock.set(at("2026-11-22T10:10:00Z"))
        let e = engine()
        let shown = show(try e.start(), e)
        #expect(shown.map(\.summary) == ["Recent"])
        #expect(shown.first?.body == "(late by 30 min)")
        let history = spool.history()
        #expect(history.map(\.outcome) == [.missed, .shown])
        #expect(history.first?.note == "late by 2 h 5 min")
        #expect(files(in: spool.done).count == 2)  // both are finished: nothing left to fire
    }

    @Test func aMissedRecurrenceIsRecordedAndTheScheduleGoesOn() throws {
        try submit(Job(kind: .reminder, id: "daily", every: "*-*-* 08:30", text: "Standup"))
        do { _ = try engine().start() }
        clock.set(at("2026-11-22T23:00:00Z"))
        let e = engine()
        #expect(show(try e.start(), e).isEmpty)
        #expect(spool.history().map(\.outcome) == [.missed])
        #expect(e.nextWakeup() == at("2026-11-23T08:30:00Z"))
    }

    /// The clock set back an hour: nothing fires early; set forward past the due time: it
    /// fires, nothing is skipped.
    @Test func clockStepsNeverFireEarlyAndNeverSkip() throws {
        try submit(Job(kind: .reminder, id: "r", at: at("2026-11-22T08:10:00Z"), text: "On time"))
        let e = engine()
        _ = try e.start()
        clock.set(at("2026-11-22T08:09:59Z"))
        #expect(e.tick().isEmpty)
        clock.set(at("2026-11-22T07:09:59Z"))  // stepped back an hour
        #expect(e.clockChanged().isEmpty)
        #expect(e.nextWakeup() == at("2026-11-22T08:10:00Z"))
        clock.set(at("2026-11-22T08:12:00Z"))  // stepped forward past the due time
        #expect(show(e.clockChanged(), e).map(\.summary) == ["On time"])
        #expect(logs.lines.contains { $0.hasPrefix("notice: Clock changed; re-evaluating due times") })
    }

    /// A schedule that follows the local zone moves with it: 09:00 in Berlin, then 09:00 in New York.
    @Test func aTimeZoneChangeMovesLocalRecurrences() throws {
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        let newYork = try TimeZoneRules.named("America/New_York")
        try submit(Job(kind: .reminder, id: "local", every: "*-*-* 09:00", text: "Morning"),
                   Job(kind: .reminder, id: "pinned", every: "*-*-* 09:00", timezone: "Europe/Berlin", text: "Pinned"))
        let e = engine(zone: berlin)
        _ = try e.start()
        #expect(e.pendingJobs["local"]?.occurrence == at("2026-11-23T08:00:00Z"))
        let jobs = spool.localZoneRecurrences(localZone: newYork)
        #expect(jobs.map(\.name.id) == ["local"])
        _ = e.localZoneChanged(to: newYork, jobs: jobs)
        #expect(e.pendingJobs["local"]?.occurrence == at("2026-11-22T14:00:00Z"))
        #expect(e.pendingJobs["pinned"]?.occurrence == at("2026-11-23T08:00:00Z"))
        #expect(try spool.jobFiles().jobs.contains(JobFileName(id: "local", occurrence: at("2026-11-22T14:00:00Z"))))
    }

    @Test func jobsPastTheLimitAreRefused() throws {
        var config = HeraldConfig()
        config.maxJobs = 2
        try submit(Job(kind: .reminder, id: "a", at: at("2026-11-22T09:00:00Z"), text: "a"),
                   Job(kind: .reminder, id: "b", at: at("2026-11-22T09:00:00Z"), text: "b"),
                   Job(kind: .reminder, id: "c", at: at("2026-11-22T09:00:00Z"), text: "c"))
        let e = engine(config)
        _ = try e.start()
        #expect(e.pendingCount == 2)
        #expect(try String(contentsOfFile: spool.failed + "/c.json.reason", encoding: .utf8)
            .hasSuffix("new/c.json: the spool already holds 2 jobs, its limit (limits.jobs)\n"))
    }
}

struct SpoolMaintenanceTests {
    let dir = TemporaryDirectory()
    var spool: Spool { Spool(root: dir.path + "/spool") }

    @Test func pruningRemovesOldRecordsAndKeepsNewOnes() throws {
        try spool.prepare()
        let now = Instant(seconds: 1_795_352_700)
        for d in ["done", "cancelled", "failed"] { dir.write("spool/\(d)/x@1.json", "{}") }
        dir.write("spool/tmp/partial.123", "{\"version\":")
        for (k, age) in [40, 20, 1].enumerated() {
            let record = HistoryRecord(time: now - .minutes(Int64(age * 24 * 60)), id: "h\(k)", kind: .reminder, role: .reminder,
                                       due: now, outcome: .shown)
            try FileSystem.appendLine(record.jsonLine, to: spool.historyPath)
        }
        // Now: files just written are kept; of the history, only the 40-day-old line goes.
        let first = spool.prune(olderThan: .minutes(30 * 24 * 60), now: now)
        #expect(first == Spool.PruneReport(files: 0, historyLines: 1))
        #expect(spool.history().map(\.id) == ["h1", "h2"])
        // A month and a half later the files are old too; tmp/ leftovers go after 36 h.
        let later = Instant(seconds: Int64(Date().timeIntervalSince1970)) + .minutes(45 * 24 * 60)
        let report = spool.prune(olderThan: .minutes(30 * 24 * 60), now: later)
        #expect(report.files == 4)
        for d in ["done", "cancelled", "failed", "tmp"] { #expect(files(in: spool.root + "/" + d).isEmpty) }
    }

    /// Pruning streams the file under its lock while others append: every line appended
    /// meanwhile is in the result, and a line longer than a read chunk passes through whole.
    @Test func pruningLosesNoLineAppendedMeanwhile() throws {
        try spool.prepare()
        let now = Instant(seconds: 1_795_352_700)
        let long = String(repeating: "x", count: 600_000)  // over two 256 KiB chunks
        try FileSystem.appendLine(long, to: spool.historyPath)
        for k in 0..<20_000 {
            let age: Int64 = k % 2 == 0 ? 40 : 1
            let record = HistoryRecord(time: now - .minutes(age * 24 * 60), id: "old\(k)", kind: .reminder, role: .reminder, due: now, outcome: .shown)
            try FileSystem.appendLine(record.jsonLine, to: spool.historyPath)
        }
        let appended = 2_000
        let path = spool.historyPath
        let finished = DispatchSemaphore(value: 0)
        let writer = Thread {
            for k in 0..<appended {
                let record = HistoryRecord(time: now, id: "new\(k)", kind: .reminder, role: .reminder, due: now, outcome: .shown)
                try? FileSystem.appendLine(record.jsonLine, to: path)
            }
            finished.signal()
        }
        writer.start()
        var dropped = 0
        for _ in 0..<5 { dropped += spool.prune(olderThan: .minutes(30 * 24 * 60), now: now).historyLines }
        finished.wait()  // the writer's last line is in before the final prune and the count
        dropped += spool.prune(olderThan: .minutes(30 * 24 * 60), now: now).historyLines
        #expect(dropped == 10_000)
        let ids = spool.history().map(\.id)
        #expect(ids.filter { $0.hasPrefix("new") }.count == appended, "lines appended during the prune were lost")
        #expect(ids.filter { $0.hasPrefix("old") }.count == 10_000)
        let text = try String(contentsOfFile: spool.historyPath, encoding: .utf8)
        #expect(text.hasPrefix(long + "\n"), "the long line was not kept whole")
    }

    @Test func anOpenSpoolIsTightenedTo0700() throws {
        try spool.prepare()
        chmod(spool.root, 0o755)
        chmod(spool.jobs, 0o750)
        chmod(spool.new, 0o770)  // writable by the group: refused with its chmod, not changed
        let changed = spool.tightenPermissions()
        #expect(Set(changed.map(\.path)) == [spool.root, spool.jobs])
        #expect(throws: SpoolPermissionError.self) { try spool.checkPermissions() }
        chmod(spool.new, 0o700)
        var st = stat()
        #expect(stat(spool.root, &st) == 0 && st.st_mode & 0o777 == 0o700)
        #expect(spool.tightenPermissions().isEmpty)
    }

    @Test func anUnsafeSpoolIsRefused() throws {
        try spool.prepare()
        try spool.checkPermissions()
        chmod(spool.new, 0o777)
        #expect(throws: SpoolPermissionError(description: "spool directory '\(spool.new)' is writable by group or others (mode 0777): run chmod 700 '\(spool.new)'")) {
            try spool.checkPermissions()
        }
        chmod(spool.new, 0o700)
        try #require(chown(spool.root, 65534, 65534) == 0, "chown needs root")
        #expect(throws: SpoolPermissionError(description: "spool directory '\(spool.root)' is owned by uid 65534, not by this user (uid \(geteuid()))")) {
            try spool.checkPermissions()
        }
    }
}
