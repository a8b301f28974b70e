import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// `herald ack`, `snooze`, `cancel` and `habit done` handed to the engine over `heraldd.sock`
/// (`EngineEvent.request`): it reads the job, decides with `JobDecision` (what the CLI does
/// without heraldd), ends the popup, and answers after its changes (`.reply` comes last).
struct EngineRequestTests {
    let t0 = ISO8601.parseInstant("2026-11-22T08:00:00Z")!

    func name(_ id: String, _ at: Instant, snoozed: Instant? = nil) -> JobFileName {
        JobFileName(id: id, occurrence: at, snoozedUntil: snoozed)
    }
    func history(_ effects: [EngineEffect]) -> [HistoryRecord] {
        effects.compactMap { if case .spool(.appendHistory(let r)) = $0 { return r } else { return nil } }
    }
    func reply(_ effects: [EngineEffect]) -> ClientAnswer? {
        effects.lazy.compactMap { if case .reply(_, let a) = $0 { return a } else { return nil } }.first
    }

    /// An engine whose job `id` (`job`, due at t0) is on screen: started, due, read, shown.
    func onScreen(_ job: Job, id: String) -> (Engine, JobFileName) {
        var e = Engine(config: HeraldConfig(), logLevel: .critical)
        let first = name(id, t0)
        _ = e.handle(.started(jobs: [first], strays: []), now: t0 - .minutes(1))
        _ = e.handle(.timerFired, now: t0)
        _ = e.handle(.loaded(LoadRequest(name: first, purpose: .fire(due: t0)), .success(LoadedJob(job: job, habitLog: job.kind == .habit ? .init() : nil))), now: t0)
        _ = e.handle(.shown(jobID: id, .success(())), now: t0)
        return (e, e.currentNames[id] ?? first)
    }

    /// Sends the request, checks it asks for the job's file, and hands it the document.
    func decide(_ e: inout Engine, _ request: ClientRequest, pending: JobFileName, job: Job, log: HabitLog.Contents? = nil,
                now: Instant) -> [EngineEffect] {
        let asked = e.handle(.request(ticket: 7, request), now: now)
        let load = LoadRequest(name: pending, purpose: .request(ticket: 7, request))
        #expect(asked.first == .load(load))
        return e.handle(.loaded(load, .success(LoadedJob(job: job, habitLog: log))), now: now)
    }

    @Test func ackOfARepeatingReminderEndsItsPopupMovesItOnAndAnswersLast() {
        let job = Job(kind: .reminder, id: "r", every: "hourly", text: "Stretch", repeat: .minutes(5))
        var (e, pending) = onScreen(job, id: "r")
        #expect(pending == name("r", t0, snoozed: t0 + .minutes(5)))  // waiting to repeat
        let now = t0 + .minutes(1)
        let effects = decide(&e, .ack(id: "r"), pending: pending, job: job, now: now)
        let next = name("r", t0 + .minutes(60))
        #expect(effects.contains(.close(jobID: "r")))
        #expect(history(effects).map(\.outcome) == [.done])
        #expect(history(effects).first?.note == "herald ack")
        let moved = effects.firstIndex(of: .spool(.advance(from: pending, to: next)))
        let answered = effects.firstIndex(of: .reply(ticket: 7, .acknowledged(next: next)))
        #expect(moved != nil && answered != nil && moved! < answered!)
        #expect(e.currentNames["r"] == next)
        // The engine's own rename, reported by inotify, is not a change from outside.
        #expect(!e.handle(.jobsChanged([.removed(pending.description), .added(next.description)]), now: now).contains(.close(jobID: "r")))
    }

    /// The history line is the one the CLI writes without heraldd (`JobDecision.ackRecord`).
    @Test func ackWritesTheSameLineAsTheCLIWithoutHeraldd() throws {
        let job = Job(kind: .reminder, id: "r", at: t0, text: "Tea", repeat: .minutes(5))
        var (e, pending) = onScreen(job, id: "r")
        let now = t0 + .minutes(2)
        let effects = decide(&e, .ack(id: "r"), pending: pending, job: job, now: now)
        let schedule = try JobSchedule(job, localZone: .utc)
        #expect(history(effects) == [JobDecision.ackRecord(pending, job: job, schedule: schedule, now: now)])
        #expect(effects.contains(.spool(.finish(pending))))
        #expect(reply(effects) == .acknowledged(next: nil))
        #expect(e.pendingCount == 0)
    }

    @Test func ackOfAJobNotWaitingToRepeatIsRefusedAndChangesNothing() {
        let job = Job(kind: .reminder, id: "r", every: "hourly", text: "Stretch")
        var (e, pending) = onScreen(job, id: "r")
        let effects = decide(&e, .ack(id: "r"), pending: pending, job: job, now: t0 + .minutes(1))
        guard case .refused(let r)? = reply(effects) else { Issue.record("not refused: \(effects)"); return }
        #expect(r.code == .notWaiting)
        #expect(history(effects).isEmpty && !effects.contains(.close(jobID: "r")))
        #expect(e.currentNames["r"] == pending)
    }

    @Test func aRequestForAnUnknownJobIsRefusedAtOnce() {
        var e = Engine(config: HeraldConfig(), logLevel: .critical)
        _ = e.handle(.started(jobs: [], strays: []), now: t0)
        for request: ClientRequest in [.ack(id: "nope"), .cancel(id: "nope"), .snooze(id: "nope", length: .minutes(5), until: nil, lastShown: nil, finished: nil),
                                       .habitDone(id: "nope", day: LocalDate(t0, in: .utc), amount: nil)] {
            let effects = e.handle(.request(ticket: 1, request), now: t0)
            guard case .refused(let r)? = reply(effects) else { Issue.record("not refused: \(effects)"); continue }
            #expect(r.code == .unknownJob)
            #expect(!effects.contains { if case .spool = $0 { return true } else { return false } })
        }
    }

    @Test func snoozeShowsTheOccurrenceOnScreenAgainAndEndsItsPopup() {
        let job = Job(kind: .reminder, id: "s", every: "daily", text: "Plants")
        var (e, pending) = onScreen(job, id: "s")
        #expect(pending.occurrence > t0 && pending.snoozedUntil == nil)  // moved on after it was shown
        let now = t0 + .minutes(1)
        // The CLI's hint is older; the engine's popup says what is on screen.
        let request = ClientRequest.snooze(id: "s", length: .minutes(10), until: nil, lastShown: t0 - .minutes(24 * 60), finished: nil)
        let effects = decide(&e, request, pending: pending, job: job, now: now)
        let target = name("s", t0, snoozed: now + .minutes(10))
        #expect(effects.contains(.close(jobID: "s")))
        #expect(history(effects).map(\.outcome) == [.snoozed])
        #expect(effects.contains(.spool(.advance(from: pending, to: target))))
        #expect(effects.last { if case .reply = $0 { return true } else { return false } } == .reply(ticket: 7, .snoozed(target)))
        #expect(e.currentNames["s"] == target)
    }

    @Test func snoozeWithoutAPopupPutsOffThePendingOccurrenceWithoutALine() {
        var e = Engine(config: HeraldConfig(), logLevel: .critical)
        let pending = name("p", t0 + .minutes(30))
        _ = e.handle(.started(jobs: [pending], strays: []), now: t0)
        let job = Job(kind: .reminder, id: "p", at: t0 + .minutes(30), text: "Later")
        let request = ClientRequest.snooze(id: "p", length: .minutes(10), until: nil, lastShown: nil, finished: nil)
        let effects = decide(&e, request, pending: pending, job: job, now: t0)
        let target = name("p", t0 + .minutes(30), snoozed: t0 + .minutes(40))
        #expect(history(effects).isEmpty)
        #expect(reply(effects) == .snoozed(target))
        #expect(e.nextWakeup() == target.fireAt)
    }

    @Test func cancelWithThePopupUpEndsItDismissedAndMovesTheFileToCancelled() {
        let job = Job(kind: .reminder, id: "c", every: "daily", text: "Bins")
        var (e, pending) = onScreen(job, id: "c")
        let effects = decide(&e, .cancel(id: "c"), pending: pending, job: job, now: t0 + .minutes(1))
        #expect(effects.contains(.close(jobID: "c")))
        #expect(history(effects).map(\.outcome) == [.dismissed] && history(effects).first?.note == "herald cancel")
        let cancelled = effects.firstIndex(of: .spool(.cancel(pending)))
        let answered = effects.firstIndex(of: .reply(ticket: 7, .cancelled(pending)))
        #expect(cancelled != nil && answered != nil && cancelled! < answered!)
        #expect(e.pendingCount == 0 && e.nextWakeup() == nil)
        // inotify's report of the move is no news.
        #expect(e.handle(.jobsChanged([.removed(pending.description)]), now: t0 + .minutes(1)).isEmpty)
    }

    @Test func habitDoneForTheDayOnScreenEndsThePopupAndAppendsTheLogOnce() {
        let job = Job(kind: .habit, id: "h", every: "*-*-* 08:00", title: "Gym")
        var (e, pending) = onScreen(job, id: "h")
        let day = LocalDate(t0, in: .utc)
        let now = t0 + .minutes(3)
        let effects = decide(&e, .habitDone(id: "h", day: day, amount: nil), pending: pending, job: job, log: .init(), now: now)
        #expect(effects.contains(.close(jobID: "h")))
        #expect(history(effects).map(\.outcome) == [.done])
        #expect(effects.contains(.spool(.appendHabitLog(id: "h", HabitLog.Entry(date: day, done: true, at: now, by: "cli")))))
        #expect(reply(effects) == .habitDone(already: false))
        // Done already: nothing written, and the answer says so.
        var done = HabitLog.Contents()
        done.apply(HabitLog.Entry(date: day, done: true, at: now, by: "cli"))
        let again = decide(&e, .habitDone(id: "h", day: day, amount: nil), pending: pending, job: job, log: done, now: now)
        #expect(reply(again) == .habitDone(already: true))
        #expect(!again.contains { if case .spool = $0 { return true } else { return false } })
    }

    @Test func habitDoneOnAJobThatIsNoHabitIsRefused() {
        let job = Job(kind: .reminder, id: "r", every: "hourly", text: "x")
        var (e, pending) = onScreen(job, id: "r")
        let effects = decide(&e, .habitDone(id: "r", day: LocalDate(t0, in: .utc), amount: nil), pending: pending, job: job, now: t0)
        guard case .refused(let r)? = reply(effects) else { Issue.record("not refused"); return }
        #expect(r.code == .notHabit)
    }

    /// The job fired (or was changed) while its file was read for the request: nothing is
    /// decided on the old state.
    @Test func aRequestWhoseJobChangedWhileItWasReadIsRefused() {
        var e = Engine(config: HeraldConfig(), logLevel: .critical)
        let pending = name("x", t0 + .minutes(30))
        _ = e.handle(.started(jobs: [pending], strays: []), now: t0)
        let asked = e.handle(.request(ticket: 3, .cancel(id: "x")), now: t0)
        guard case .load(let load)? = asked.first else { Issue.record("no load"); return }
        let moved = name("x", t0 + .minutes(90))
        _ = e.handle(.jobsChanged([.removed(pending.description), .added(moved.description)]), now: t0)
        let effects = e.handle(.loaded(load, .success(LoadedJob(job: Job(kind: .reminder, id: "x", text: "x")))), now: t0)
        guard case .refused(let r)? = reply(effects) else { Issue.record("not refused"); return }
        #expect(r.code == .changed)
        #expect(e.currentNames["x"] == moved)
    }
}

/// The request wire on `heraldd.sock`: every field checked, everything else refused.
struct SpoolRequestWireTests {
    let t0 = ISO8601.parseInstant("2026-11-22T08:00:00Z")!

    @Test func everyRequestAndAnswerRoundTrips() {
        let requests: [ClientRequest] = [
            .ack(id: "k7f3"), .cancel(id: "a-b_c"),
            .snooze(id: "k7f3", length: .minutes(10), until: t0, lastShown: t0 - .minutes(5), finished: JobFileName(id: "k7f3", occurrence: t0)),
            .snooze(id: "k7f3", length: .seconds(1), until: nil, lastShown: nil, finished: nil),
            .habitDone(id: "gym", day: LocalDate(t0, in: .utc), amount: nil), .habitDone(id: "water", day: LocalDate(t0, in: .utc), amount: -1.5),
        ]
        for r in requests {
            let line = SpoolQuery.encode(r)
            #expect(line.hasSuffix("\n"))
            #expect(SpoolQuery.parseRequest(String(line.dropLast())) == r)
        }
        let answers: [ClientAnswer] = [
            .acknowledged(next: nil), .acknowledged(next: JobFileName(id: "r", occurrence: t0)),
            .snoozed(JobFileName(id: "r", occurrence: t0, snoozedUntil: t0 + .minutes(1))), .cancelled(JobFileName(id: "r", occurrence: t0)),
            .habitDone(already: true), .habitDone(already: false), .refused(ClientRefusal(.unknownJob, "no pending job 'r'")),
        ]
        for a in answers { #expect(SpoolQuery.decodeClientAnswer(SpoolQuery.encode(a)) == a) }
    }

    @Test func hostileRequestsAreRefused() {
        let bad = [
            "", "v1", "v1 ack", "v2 ack k7f3", "V1 ack k7f3", "v1 ack ../etc", "v1 ack k7f3 extra", "v1  ack k7f3", "v1 ack k7f3 ",
            "v1 reboot k7f3", "v1 cancel " + String(repeating: "a", count: 300),
            "v1 snooze k7f3 0 - - -", "v1 snooze k7f3 -5 - - -", "v1 snooze k7f3 99999999999999999999 - - -",
            "v1 snooze k7f3 600000000 - - -", // longer than 366 days... in microseconds: 600 s is fine, see below
            "v1 snooze k7f3 60000000 yesterday - -", "v1 snooze k7f3 60000000 2026-11-22T08:00:00+01:00 - -",
            "v1 snooze k7f3 60000000 - - other@2026-11-22T08:00:00Z.json", "v1 snooze k7f3 60000000 - - k7f3@garbage",
            "v1 snooze k7f3 60000000 - -", "v1 habit-done gym 2026-13-01 -", "v1 habit-done gym 2026-11-22 nan",
            "v1 habit-done gym 2026-11-22 inf", "v1 habit-done gym 2026-11-22 0", "v1 habit-done gym 2026-11-22 1e9",
            "v1 habit-done gym 2026-11-22", "v1 habit-done gym 26-11-22 -",
        ]
        for line in bad where line != "v1 snooze k7f3 600000000 - - -" {
            #expect(SpoolQuery.parseRequest(line) == nil, "accepted: \(line)")
        }
        #expect(SpoolQuery.parseRequest("v1 snooze k7f3 600000000 - - -") != nil)  // ten minutes
        #expect(SpoolQuery.parseRequest("v1 snooze k7f3 \(Int64(400) * 86_400_000_000) - - -") == nil)  // past 366 days
    }

    @Test func answersThatAreNotOursAreNotTaken() {
        for text in ["", "v1 ok\n", "v1 ok snoozed\n", "v1 ok snoozed garbage\n", "v1 refused nonsense x\n", "v2 ok cancelled r@2026-11-22T08:00:00Z.json\n",
                     "v1 ok acknowledged -", "error unknown request\n", String(repeating: "v", count: 400) + "\n"] {
            #expect(SpoolQuery.decodeClientAnswer(Array(text.utf8)) == nil, "taken: \(text)")
        }
    }
}

/// `herald snooze` reads the history backwards and stops at the first match.
struct BackwardsReadTests {
    @Test func linesComeLastFirstAcrossBlocksAndStopAtTheLimit() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-back-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/history.jsonl"
        let lines = (0..<5000).map { "line \($0) " + String(repeating: "x", count: $0 % 97) }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        var seen: [String] = []
        FileSystem.forEachLineBackwards(path, limit: .max) { seen.append(String($0)); return true }
        #expect(seen == lines.reversed())
        var first: [String] = []
        FileSystem.forEachLineBackwards(path, limit: .max) { first.append(String($0)); return first.count < 3 }
        #expect(first == Array(lines.reversed().prefix(3)))
        // A limit reads only the end; the line it cuts is not passed.
        var tail: [String] = []
        FileSystem.forEachLineBackwards(path, limit: 1000) { tail.append(String($0)); return true }
        let bytes = tail.reduce(0) { $0 + $1.utf8.count + 1 }
        #expect(!tail.isEmpty && bytes <= 1000 && tail == Array(lines.reversed().prefix(tail.count)))
        var none = 0
        FileSystem.forEachLineBackwards(dir + "/missing", limit: .max) { _ in none += 1; return true }
        #expect(none == 0)
    }
}
