import Foundation
import ArgumentParser
import HeraldCore

extension Herald {
    struct Remind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Schedule a reminder, once or on a calendar schedule.",
            discussion: """
                --every takes a systemd calendar expression (see 'herald next' to try one); \
                --at then says when the schedule starts. A reminder whose times came and went \
                while heraldd was down shows once, marked late, then keeps to its schedule.

                Examples:
                  herald remind --in 15m Take the bread out
                  herald remind --at 09:00 --urgency critical "Stand-up meeting"
                  herald remind --every "Mon..Fri 17:30" Leave work
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var when: WhenOptions

        @Option(help: ArgumentHelp("Repeat on a calendar schedule: 'daily', 'Mon..Fri 09:00', '*:0/30'.", valueName: "expression"))
        var every: String?

        @Option(help: ArgumentHelp("A title for the popup (the text is its body then).", valueName: "title"))
        var title: String?

        @OptionGroup var popup: PopupOptions

        @Argument(help: "What to be reminded of.")
        var text: [String] = []

        func run() async throws {
            let message = text.joined(separator: " ")
            guard !message.trimmingSpacesForCLI.isEmpty else { throw CLIError.usage("the reminder text is empty") }
            let ctx = try await CLIContext.load(global)
            if let every {
                if when.inSpan != nil { throw CLIError.usage("--in does not go with --every: use --at to say when the schedule starts") }
                let calendar = try ctx.calendar(every, option: "--every")
                let start = try when.at.map { _ in try when.resolve(ctx) }
                // No timezone: a schedule follows the local zone, also after it changes.
                let job = Job(kind: .reminder, id: try popup.jobID(ctx), at: start, every: every,
                              title: title, text: message, icon: try popup.checkedIcon(), urgency: popup.urgency)
                guard let first = try JobSchedule(job, localZone: ctx.zone).first(now: ctx.now, defaultLead: ctx.config.lead) else {
                    throw CLIError.data("--every: '\(every)' never elapses after \(ISO8601.format(max(start ?? ctx.now, ctx.now), in: ctx.zone))")
                }
                try ctx.submit(job)
                say("Reminder \(job.id!): \(calendar), first \(ctx.when(first))")
                return
            }
            let at = try when.resolve(ctx)
            guard at > ctx.now else { throw CLIError.usage("--at: \(ISO8601.format(at, in: ctx.zone)) is in the past") }
            let jobID = try popup.jobID(ctx)
            let job = Job(kind: .reminder, id: jobID, at: at, timezone: ctx.zone.identifierForJobs, title: title,
                          text: message, icon: try popup.checkedIcon(), urgency: popup.urgency)
            try ctx.submit(job)
            say("Reminder \(jobID): \(ctx.when(at))")
        }
    }

    struct TimerCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "timer",
            abstract: "Start a countdown; a popup says when the time is up.",
            discussion: """
                Examples:
                  herald timer 25m Pomodoro
                  herald timer "1h 30min" Shopping timer
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: "low, normal or critical (default: the config's, normal).")
        var urgency: Job.Urgency?

        @Argument(help: "How long: a span such as 30m or 1h 30min.")
        var span: String

        @Argument(help: "A label for the popup (default: Timer).")
        var label: [String] = []

        func run() async throws {
            let length = try parseSpan(span, option: "SPAN")
            guard length > .zero else { throw CLIError.usage("SPAN: '\(span)' must be longer than 0") }
            let ctx = try await CLIContext.load(global)
            let name = label.joined(separator: " ")
            let jobID = ctx.newID()
            let job = Job(kind: .reminder, id: jobID, at: ctx.fromNow(length), timezone: ctx.zone.identifierForJobs,
                          title: name.isEmpty ? "Timer" : name, text: Self.upText(length), icon: "alarm-symbolic",
                          urgency: urgency)
            try ctx.submit(job)
            say("Timer \(jobID): \(TimeSpan.format(length)), until \(ctx.when(ctx.fromNow(length)))")
        }

        /// "30 minutes are up", "1 hour is up", "1 hour 30 minutes are up".
        static func upText(_ span: Span) -> String {
            let phrase = TimeSpan.spoken(span)
            return phrase + (phrase.hasPrefix("1 ") && !phrase.contains(" and ") && phrase.split(separator: " ").count == 2 ? " is up" : " are up")
        }
    }
}

extension String {
    var trimmingSpacesForCLI: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
