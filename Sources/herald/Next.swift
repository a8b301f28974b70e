import ArgumentParser
import HeraldCore

extension Herald {
    struct Next: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "next",
            abstract: "Print the next times a calendar expression elapses.",
            discussion: """
                The syntax is systemd's (systemd.time(7), "CALENDAR EVENTS"), with the same \
                answers as 'systemd-analyze calendar': weekdays (Mon..Fri), dates (*-*-01, \
                *-02~3 for the third-last day of February), times with lists, ranges and \
                repetitions (09..17:00/30, *:0/15), shorthands (daily, weekly, quarterly, ...), \
                and a trailing zone (UTC, Europe/Berlin). Without one, the local zone is used.

                Examples:
                  herald next 'Mon..Fri 09:00' -n 3
                  herald next '*-*~1' --from 2028-02-01
                """)

        @OptionGroup var global: GlobalOptions

        @Option(name: .short, help: "How many elapse times to print.")
        var n = 5

        @Option(help: ArgumentHelp("Start after this time instead of now (ISO-8601).", valueName: "time"))
        var from: String?

        @Argument(help: "A calendar expression; quote it.")
        var expression: String

        func validate() throws {
            if n < 1 || n > 100_000 { throw ValidationError("-n: '\(n)' must be from 1 to 100000") }
        }

        func run() throws {
            let ctx = try CLIContext.load(global)
            let event = try ctx.calendar(expression, option: "")
            let start = try ctx.from(from)
            let zone: TimeZoneRules
            switch event.zone {
            case .utc: zone = .utc
            case .named(_, let rules): zone = rules
            case .local, .localAbbreviation: zone = ctx.zone
            }
            let times = event.elapses(after: start, count: n, in: ctx.zone)
            say(times.map { ISO8601.format($0, in: zone) }.joined(separator: "\n"), emptyMeansNothing: true)
            if times.isEmpty { warn("'\(expression)' never elapses after \(ISO8601.format(start, in: zone))") }
        }
    }
}
