import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Values from outside at the edges of what Herald takes: each is refused with its value and
/// reason, never a trap.
struct BoundsTests {
    @Test(arguments: ["*:*:0/0.001", "*:*:0/0.5", "*-*-* *:*:0..10/0.25", "*:*:0.2,0.7", "*:*:59.5,0", "*:0..1:59.5,0"])
    func aCalendarExpressionFiringMoreThanOnceASecondIsRefused(expression: String) {
        #expect {
            try CalendarEvent.parse(expression)
        } throws: { error in
            "\(error)".contains("Herald fires at most once a second")
        }
    }

    @Test func theRefusalNamesTheRepetition() throws {
        let error = try #require(throws: CalendarError.self) { try CalendarEvent.parse("*:*:0/0.001") }
        #expect(error.description == "the seconds repetition in '0/0.001' is shorter than a second: Herald fires at most once a second")
    }

    @Test(arguments: ["*:*:*", "*:*:0/10.5", "*:*:0/1", "*-*-* 09:00:59.5,0", "*:*:0.5/1", "*:0/2:59.5,0"])
    func onceASecondOrLessIsAccepted(expression: String) throws {
        _ = try CalendarEvent.parse(expression)
    }

    @Test func aJobWhoseScheduleFiresEveryMillisecondIsRefused() {
        let json = #"{"version":1,"kind":"reminder","every":"*:*:0/0.001","text":"x"}"#
        #expect(throws: JobError.self) { try Job.decode(Array(json.utf8)) }
    }

    func config(_ yaml: String) throws(ConfigError) -> HeraldConfig {
        try ConfigLoader.load(contents: Array(yaml.utf8), path: "/c.yaml", environment: [:])
    }

    @Test func configSpansAreBounded() throws {
        #expect(throws: ConfigError("config '/c.yaml': key 'defaults.lead': \"9223372036854775807us\" is out of range: at most 366 days")) {
            try config("defaults:\n  lead: 9223372036854775807us\n")
        }
        #expect(throws: ConfigError("config '/c.yaml': key 'catchUp.grace': \"367d\" is out of range: at most 366 days")) {
            try config("catchUp:\n  grace: 367d\n")
        }
        #expect(throws: ConfigError("config '/c.yaml': key 'limits.retention': \"3661d\" is out of range: from 1h to 3660 days")) {
            try config("limits:\n  retention: 3661d\n")
        }
        #expect(throws: ConfigError("config '/c.yaml': key 'popups.snoozeChoices': \"400d\" is out of range: at most 366 days")) {
            try config("popups:\n  snoozeChoices: 5m, 400d\n")
        }
        #expect(throws: ConfigError.self) { try config("defaults:\n  snooze: 9223372036854775807us\n") }
        #expect(throws: ConfigError("config '/c.yaml': key 'defaults.snooze': the snooze span must be longer than 0")) {
            try config("defaults:\n  snooze: 0\n")
        }
        #expect(throws: ConfigError("config '/c.yaml': key 'limits.retention': keep records at least 1h")) {
            try config("limits:\n  retention: 5m\n")
        }
        let edges = try config("defaults:\n  lead: 366d\n  snooze: 366d\ncatchUp:\n  grace: 0\nlimits:\n  retention: 3660d\n")
        #expect(edges.lead == .seconds(366 * 86_400) && edges.retention == .seconds(3660 * 86_400))
    }

    @Test func aConfigFileIsAtMost256KiB() {
        let big = String(repeating: "# padding\n", count: 30_000)
        #expect(throws: ConfigError("cannot read config '/c.yaml': it is 300000 bytes; the most is 262144")) { try config(big) }
    }

    @Test func manyKeysAreCheckedInLinearTime() throws {
        // 20,000 distinct keys: the duplicate check once compared each with all before it.
        let yaml = (0..<20_000).map { "k\($0): v" }.joined(separator: "\n")
        let entries = try ConfigYAML.parse(yaml)
        #expect(entries.count == 20_000)
        #expect(throws: ConfigYAML.SyntaxError(line: 2, reason: "key 'a' appears twice")) { try ConfigYAML.parse("a: 1\na: 2\n") }
    }

    @Test func aDeliveryLeadBeyondAYearIsRefusedBySchedule() throws {
        var job = Job(kind: .delivery)
        job.at = Instant(seconds: 1_795_352_730)
        job.lead = Span.seconds(400 * 86_400)
        let error = try #require(throws: JobError.self) { try JobSchedule(job, localZone: .utc) }
        #expect(error.description.hasPrefix("field 'lead' is out of range ('"))
        #expect(error.description.hasSuffix("'): longer than 366 days"))
    }

    @Test func anInstantIsReadOnlyWhenItsUTCYearHasFourDigits() {
        #expect(ISO8601.parseInstant("9999-12-31T23:00:00-14:00") == nil)
        #expect(ISO8601.parseInstant("0000-01-01T00:00:00+01:00") == nil)
        #expect(ISO8601.parseInstant("9999-12-31T23:59:59.999999Z") != nil)
        #expect(ISO8601.parseInstant("0000-01-01T00:00:00Z") != nil)
    }

    @Test func minutesLeftAtTheEndOfTimeDoesNotOverflow() {
        #expect(MessageRenderer.minutesLeft(until: Instant(microseconds: .max), now: .epoch) == Int(Int64.max / 60_000_000 + 1))
        #expect(MessageRenderer.minutesLeft(until: Instant(seconds: 120), now: .epoch) == 2)
        #expect(MessageRenderer.minutesLeft(until: Instant(seconds: 121), now: .epoch) == 3)
    }

    @Test func loopBackupValuesAreCheckedBeforeTheyBecomeIntegers() {
        for (ms, value) in [("1e300", "2"), ("0", "1e300"), ("-1e20", "2"), ("0", "0.5")] {
            let json = #"{"habits":[{"name":"Run","repetitions":[["# + ms + "," + value + "]]}]}"
            #expect(throws: LoopImportError.self) { try LoopHabit.fromBackupJSON(Array(json.utf8), zone: .utc) }
        }
    }

    @Test func loopPositionsAndFrequenciesAreBounded() throws {
        let header = LoopCSV.habitsHeader
        for (position, den) in [("-9223372036854775808", "1"), ("0", "1")] {
            let habits = header + "\n" + "\(position),Run,YES_NO,,,1,\(den),#000,,AT_LEAST,0,false\n"
            #expect(throws: LoopImportError.self) {
                try LoopCSV.read { (name: String) throws(LoopImportError) -> String? in name == "Habits.csv" ? habits : "" }
            }
        }
        var habit = LoopHabit(name: "Run")
        habit.numerator = 1
        habit.denominator = 400
        #expect(throws: LoopImportError.self) { try habit.heraldHabit(now: .epoch, zone: .utc) }
    }
}
