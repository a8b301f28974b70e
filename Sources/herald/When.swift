import ArgumentParser
import HeraldCore

extension Herald {
    struct When: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "when",
            abstract: "Print the instant a time phrase means (what --at would take).",
            discussion: """
                Every --at takes these phrases. They are at(1)'s, with the same answers as 'at', \
                and the orders people type that 'at' refuses:

                  noon, midnight, teatime        12:00, 00:00, 16:00 (the next one)
                  9am, 4:30pm, 17:00, 1700       the next such time (today or tomorrow)
                  today 17:00, tomorrow 9am      a day and a time, in either order
                  fri 17:00, next friday         the next Friday (a week on, said on a Friday)
                  Jul 31, 31 Jul 2027, Jul 31, 27
                  12/31/27, 31.12.2027, 2027-12-31
                  10am Jul 31, noon Dec 24       a time and a date
                  now + 15 min, 4pm + 3 days     minutes, hours, days, weeks, months, years
                  next week, next month          the same time a week or a month on
                  in 2 hours, in 90 min, in 1h 30min
                  2026-12-24T09:00[+01:00]       ISO-8601
                  9am Europe/London, noon UTC    a zone at the end

                A date without a time keeps the current time of day, as in 'at'. Minutes and hours \
                count elapsed time across daylight-saving changes; days and longer keep the wall \
                time. A time the clocks skip is refused; one they repeat means the first. Times \
                before the current minute are refused.

                Examples:
                  herald when 'tomorrow 9am'
                  herald when 'teatime' --from 2026-11-23T17:00 --json
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("Read the phrase as if said at this time instead of now (ISO-8601).", valueName: "time"))
        var from: String?

        @Flag(help: "Print JSON: the phrase, the instant with its offset, the zone and UTC.")
        var json = false

        @Argument(help: "A time phrase; quote it or give it as several words.")
        var phrase: [String]

        func validate() throws {
            if phrase.isEmpty { throw ValidationError("say a time, such as 'tomorrow 9am'") }
        }

        func run() throws {
            let ctx = try CLIContext.load(global)
            let base = try ctx.from(from)
            let text = phrase.joined(separator: " ")
            let meaning = try ctx.phrase(text, option: "", from: base)
            let local = ISO8601.format(meaning.instant, in: meaning.zone)
            if json {
                say(JSONWriter.render(.object([
                    ("phrase", .string(text)),
                    ("at", .string(local)),
                    ("zone", .string(meaning.zone.identifier)),
                    ("offset", .string(ISO8601.formatOffset(meaning.zone.offset(at: meaning.instant)))),
                    ("utc", .string(ISO8601.format(meaning.instant, offsetSeconds: 0, zulu: true))),
                    ("from", .string(ISO8601.format(base, in: ctx.zone))),
                ]), pretty: true))
            } else {
                say(local)
            }
        }
    }
}
