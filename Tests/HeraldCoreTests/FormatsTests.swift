import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// status.json: what heraldd writes, herald and herald-bench read back.
struct DaemonStatusTests {
    let started = ISO8601.parseInstant("2026-11-22T08:00:00Z")!

    @Test func roundTripsEveryField() throws {
        let status = DaemonStatus(pid: 42, version: "0.1.0", startedAt: started, notifier: "libnotify", pending: 7,
                                  lastError: "no server", lastErrorAt: started + .seconds(5), retryAt: started + .seconds(6))
        let back = try #require(DaemonStatus(json: Array(status.json.utf8)))
        #expect(back == status)
    }

    /// The quick read the CLI makes on every enqueue does not depend on how the file is spaced.
    @Test func thePendingCountIsFoundHoweverTheFileIsSpaced() {
        for text in ["{\"pid\":1,\"pending\":12}", "{ \"pending\" :\n 12 }", DaemonStatus(pid: 1, version: "v", startedAt: started,
                                                                                        notifier: "x", pending: 12).json] {
            #expect(DaemonStatus.pendingCount(json: Array(text.utf8)) == 12, "\(text)")
        }
        #expect(DaemonStatus.pendingCount(json: Array("{\"lastError\":\"\\\"pending\\\": 3\",\"pid\":1}".utf8)) == nil)
        #expect(DaemonStatus.pendingCount(json: Array("{\"pending\":\"x\"}".utf8)) == nil)
    }
}

/// history.jsonl lines.
struct HistoryRecordTests {
    @Test func aLineRoundTripsAndACutLineIsSkipped() throws {
        let due = ISO8601.parseInstant("2026-11-22T08:00:00Z")!
        let record = HistoryRecord(time: due + .milliseconds(3), id: "r1", kind: .reminder, role: .reminder, due: due,
                                   outcome: .shown, title: "Tea & \"cake\"", note: "late")
        let line = record.jsonLine
        #expect(HistoryRecord(jsonLine: Substring(line)) == record)
        #expect(HistoryRecord(jsonLine: Substring(line.dropLast(4))) == nil)
        #expect(record.lateness == .milliseconds(3))
    }

    @Test func aTitleIsTheFirstLineCutAt80Characters() {
        #expect(HistoryRecord.title("Call mum\nabout Sunday") == "Call mum")
        let long = String(repeating: "x", count: 100)
        #expect(HistoryRecord.title(long).count == 80 && HistoryRecord.title(long).hasSuffix("…"))
    }
}

/// JSON Lines batches: the one reader for new/*.jsonl, `herald import` and `herald validate`.
struct JobBatchTests {
    @Test func blankLinesAreSkippedAndLinesKeepTheirNumbers() {
        let text = "{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T10:00Z\",\"text\":\"a\"}\n\n  \r\n{\"version\":1}\n"
        let (jobs, problems) = JobBatch.decode(Array(text.utf8), localZone: .utc)
        #expect(jobs.map(\.line.number) == [1])
        #expect(problems.map(\.line) == [4])
        #expect(problems.first?.description == "line 4: missing field 'kind'")
    }

    @Test func aLineLongerThanAJobFileIsAProblem() {
        let long = "{\"text\":\"" + String(repeating: "x", count: Job.maximumFileSize) + "\"}"
        let (_, problems) = JobBatch.decode(Array(long.utf8), localZone: .utc)
        #expect(problems.map(\.message) == ["longer than 64 KiB"])
    }
}

/// The snooze rule shared by the popup's button and `herald snooze`.
struct SnoozeRuleTests {
    let t0 = ISO8601.parseInstant("2026-11-22T08:00:00Z")!

    @Test func theOccurrenceShownLastComesBack() {
        let next = JobFileName(id: "h", occurrence: t0 + .minutes(60))
        #expect(JobFileName.snoozed(id: "h", pending: next, lastShown: t0, now: t0 + .minutes(1), length: .minutes(10))
            == JobFileName(id: "h", occurrence: t0, snoozedUntil: t0 + .minutes(11)))
        // A finished one-shot: nothing pending.
        #expect(JobFileName.snoozed(id: "h", pending: nil, lastShown: t0, now: t0, length: .minutes(5))
            == JobFileName(id: "h", occurrence: t0, snoozedUntil: t0 + .minutes(5)))
    }

    @Test func aJobNotShownYetIsPutOff() {
        let pending = JobFileName(id: "r", occurrence: t0 + .minutes(30))
        #expect(JobFileName.snoozed(id: "r", pending: pending, lastShown: nil, now: t0, length: .minutes(10))
            == JobFileName(id: "r", occurrence: t0 + .minutes(30), snoozedUntil: t0 + .minutes(40)))
        #expect(JobFileName.snoozed(id: "r", pending: nil, lastShown: nil, now: t0, length: .minutes(10)) == nil)
    }
}
