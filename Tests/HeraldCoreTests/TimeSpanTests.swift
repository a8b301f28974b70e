import Testing
@testable import HeraldCore
@testable import HeraldModel

struct TimeSpanTests {
    /// Expected values are what `systemd-analyze timespan` prints for each input.
    @Test(arguments: [
        ("15m", 900_000_000), ("1h 30min", 5_400_000_000), ("1h30m", 5_400_000_000), ("90", 90_000_000),
        ("1.5h", 5_400_000_000), ("2 days", 172_800_000_000), ("0", 0), ("1M", 2_629_800_000_000),
        ("1y", 31_557_600_000_000), ("500ms", 500_000), ("3 weeks", 1_814_400_000_000), (" 5 m", 300_000_000),
        ("5 m 3", 303_000_000), ("5 M", 13_149_000_000_000), ("0.5", 500_000), (".5s", 500_000), ("10us", 10),
        ("2µs", 2), ("1 hour", 3_600_000_000), ("1min 30s", 90_000_000),
    ] as [(String, Int64)])
    func parsesLikeSystemd(text: String, microseconds: Int64) throws {
        #expect(try TimeSpan.parse(text) == Span(microseconds: microseconds))
    }

    /// Every unit name `systemd-analyze timespan` accepts, with what one of it is worth.
    @Test func knowsEveryUnitNameSystemdKnows() throws {
        let units: [(names: [String], microseconds: Int64)] = [
            (["usec", "us", "µs", "μs"], 1), (["msec", "ms"], 1_000), (["seconds", "second", "sec", "s"], 1_000_000),
            (["minutes", "minute", "min", "m"], 60_000_000), (["hours", "hour", "hr", "h"], 3_600_000_000),
            (["days", "day", "d"], 86_400_000_000), (["weeks", "week", "w"], 604_800_000_000),
            (["months", "month", "M"], 2_629_800_000_000), (["years", "year", "y"], 31_557_600_000_000),
        ]
        for (names, microseconds) in units {
            for name in names {
                #expect(try TimeSpan.parse("3" + name) == Span(microseconds: 3 * microseconds), "\(name)")
                #expect(TimeSpan.microseconds(inUnit: name) == microseconds)
            }
        }
        for name in ["sek", "H", "mo", "Y", "min.", "", "µ", "hours "] {
            #expect(TimeSpan.microseconds(inUnit: name) == nil, "\(name)")
        }
    }

    @Test(arguments: [
        ("", TimeSpan.ParseError.empty), ("   ", .empty), ("-5m", .negative), ("5mins", .unknownUnit("mins")),
        ("1.5.3s", .expectedNumber(".3s")), ("5.", .expectedNumber("5.")), ("infinity", .infinite),
        ("1e3s", .unknownUnit("e")), ("abc", .expectedNumber("abc")), ("99999999999999999999s", .outOfRange), ("9223372036854.775808", .outOfRange),
    ])
    func refusesWhatSystemdRefuses(text: String, error: TimeSpan.ParseError) {
        #expect(throws: error) { try TimeSpan.parse(text) }
    }

    @Test func formatsLikeSystemd() {
        #expect(TimeSpan.format(Span(microseconds: 5_400_000_000)) == "1h 30min")
        #expect(TimeSpan.format(Span(microseconds: 90_000_000)) == "1min 30s")
        #expect(TimeSpan.format(Span(microseconds: 172_800_000_000)) == "2d")
        #expect(TimeSpan.format(Span(microseconds: 500_000)) == "500ms")
        #expect(TimeSpan.format(.zero) == "0")
        #expect(TimeSpan.format(.minutes(15)) == "15min")
    }

    @Test func formattedSpansParseBack() throws {
        for us: Int64 in [1, 999, 1_000, 61_000_000, 3_600_000_001, 86_400_000_000 * 9, 2_629_800_000_000 + 7] {
            let span = Span(microseconds: us)
            #expect(try TimeSpan.parse(TimeSpan.format(span)) == span)
        }
    }

    @Test func speaksSpansInWords() {
        #expect(TimeSpan.spoken(.minutes(30)) == "30 minutes")
        #expect(TimeSpan.spoken(.minutes(90)) == "1 hour 30 minutes")
        #expect(TimeSpan.spoken(.seconds(1)) == "1 second")
        #expect(TimeSpan.humanize(.minutes(130)) == "2 h 10 min")
        #expect(TimeSpan.humanize(.seconds(45)) == "45 s")
    }
}
