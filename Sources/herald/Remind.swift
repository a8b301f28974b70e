#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import HeraldCore

extension Herald {
    struct Remind: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remind",
            abstract: "Schedule a reminder, once or on a calendar schedule.",
            discussion: """
                --at takes a time as you would say it ('tomorrow 9am', 'fri 17:00', 'noon', \
                'in 2 hours'; see 'herald when'). --every takes a systemd calendar expression \
                (see 'herald next' to try one), and may be given more than once: the reminder \
                fires at each of their times, once where they meet. --at then says when the \
                schedule starts. --warn shows a popup ahead of each time ("in 15 min: Dentist"). \
                A reminder whose times came and went while heraldd was down shows once, marked \
                late, then keeps to its schedule.

                Examples:
                  herald remind --in 15m Take the bread out
                  herald remind --at 'tomorrow 9am' --urgency critical "Stand-up meeting"
                  herald remind --at 'fri 14:30' --warn 1d,1h,15m Dentist
                  herald remind --every "Mon..Fri 17:30" Leave work
                  herald remind --every 08:00 --every 16:00 Take the pills
                  herald remind --in 1h --repeat 5m Take the pills   (again every 5 min until Done)

                Popups carry Done, Snooze and the config's snooze choices (popups.snoozeChoices) and \
                stay on screen until handled (popups.expire.reminder).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var when: WhenOptions

        @Option(help: ArgumentHelp("Repeat on a calendar schedule: 'daily', 'Mon..Fri 09:00', '*:0/30'. Give it again for more times.", valueName: "expression"))
        var every: [String] = []

        @Option(help: ArgumentHelp("Warn ahead of each time: spans such as 15m or 1d,1h,15m.", valueName: "spans"))
        var warn: String?

        @Option(help: ArgumentHelp("A title for the popup (the text is its body then).", valueName: "title"))
        var title: String?

        @Option(name: .customLong("repeat"), help: ArgumentHelp("Show the popup again every SPAN until Done, dismissed or 'herald ack' (at most popups.maxRepeats times).", valueName: "span"))
        var repeatSpan: String?

        @OptionGroup var popup: PopupOptions
        @OptionGroup var sound: SoundOptions
        @OptionGroup var waking: WakeOption
        @OptionGroup var syncing: SyncOptions

        @Argument(help: "What to be reminded of.")
        var text: [String] = []

        /// What was asked, as the fast path would have read it.
        func request() throws -> RemindRequest {
            RemindRequest(spool: global.spool, config: global.config, at: when.at, inSpan: when.inSpan, every: every,
                          title: title, urgency: popup.urgency, icon: popup.icon, id: popup.id, text: text,
                          repeatSpan: repeatSpan, sound: sound.sound, silent: sound.silent, warn: warn, sync: try syncing.choice(),
                          wake: waking.value)
        }

        func run() throws { try request().run() }
    }

    struct TimerCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "timer",
            abstract: "Start a countdown; a popup says when the time is up.",
            discussion: """
                Examples:
                  herald timer 25m Pomodoro
                  herald timer "1h 30min" Shopping timer
                  herald timer 10m --repeat 1m Tea        (rings every minute until Done)

                Timers ring (popups.sound.timer, default alarm-clock-elapsed) and stay on screen until handled.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: "low, normal or critical (default: the config's, normal).")
        var urgency: Job.Urgency?

        @Option(name: .customLong("repeat"), help: ArgumentHelp("Show the popup again every SPAN until Done, dismissed or 'herald ack'.", valueName: "span"))
        var repeatSpan: String?

        @Option(help: ArgumentHelp("Warn ahead: spans such as 5m or 10m,1m.", valueName: "spans"))
        var warn: String?

        @OptionGroup var sound: SoundOptions
        @OptionGroup var waking: WakeOption
        @OptionGroup var syncing: SyncOptions

        @Argument(help: "How long: a span such as 30m or 1h 30min.")
        var span: String

        @Argument(help: "A label for the popup (default: Timer).")
        var label: [String] = []

        func run() throws {
            let length = try parseSpan(span, option: "SPAN")
            guard length > .zero else { throw CLIError.usage("SPAN: '\(span)' must be longer than 0") }
            guard Job.inRange.contains(length) else { throw CLIError.usage("SPAN: '\(span)' is more than 100 years") }
            let repeating = try parseRepeat(repeatSpan)
            let warnings = try parseWarnings(warn)
            let soundValue = try sound.value()
            let ctx = try CLIContext.load(global)
            let name = label.joined(separator: " ")
            let jobID = ctx.newID()
            var job = Job(kind: .reminder, id: jobID, at: ctx.fromNow(length), timezone: ctx.zone.identifierForJobs,
                          title: name.isEmpty ? "Timer" : name, text: Self.upText(length), icon: "alarm-symbolic",
                          urgency: urgency, tags: [Job.timerTag], repeat: repeating, sound: soundValue, warn: warnings)
            job.wake = waking.value
            let synced = try ctx.place(job, sync: try syncing.choice())
            say("Timer \(jobID): \(TimeSpan.format(length)), until \(ctx.when(ctx.fromNow(length)))" + ctx.syncedNote(synced))
        }

        /// "30 minutes are up", "1 hour is up", "1 hour 30 minutes are up".
        static func upText(_ span: Span) -> String {
            let phrase = TimeSpan.spoken(span)
            return phrase + (phrase.hasPrefix("1 ") && !phrase.includes(" and ") && phrase.split(separator: " ").count == 2 ? " is up" : " are up")
        }
    }
}


/// Everything `herald remind` was asked, whichever parser read the command line
/// (ArgumentParser, or `FastPath` for plain invocations).
struct RemindRequest: Equatable {
    var spool: String?
    var config: String?
    var at: String?
    var inSpan: String?
    var every: [String]
    var title: String?
    var urgency: Job.Urgency?
    var icon: String?
    var id: String?
    var text: [String]
    var repeatSpan: String? = nil
    var sound: String? = nil
    var silent = false
    var warn: String? = nil
    /// --sync or --local; nil: the config's sync.default (the fast path never reads them).
    var sync: Bool? = nil
    /// --wake: true; nil for the config's default (the fast path never reads it).
    var wake: Bool? = nil

    func run() throws {
        var message = ""  // the words joined by spaces (joined(separator:) costs a runtime type lookup)
        for k in text.indices { message += k == text.startIndex ? text[k] : " " + text[k] }
        guard !message.trimmingSpaces.isEmpty else { throw CLIError.usage("the reminder text is empty") }
        let ctx = try CLIContext.load(spool: spool, config: config)
        let jobID = try PopupOptions.jobID(id, ctx)
        let icon = try icon.map(validateIcon)
        let repeating = try parseRepeat(repeatSpan)
        let soundValue = try SoundOptions.value(sound: sound, silent: silent)
        let warnings = try parseWarnings(warn)
        if !every.isEmpty {
            if inSpan != nil { throw CLIError.usage("--in does not go with --every: use --at to say when the schedule starts") }
            let calendars = try every.map { try ctx.calendar($0, option: "--every") }
            let start = try at.map { _ in try WhenOptions.resolve(at: at, inSpan: nil, ctx) }
            // No timezone: a schedule follows the local zone, also after it changes.
            var job = Job(kind: .reminder, id: jobID, at: start, title: title, text: message, icon: icon, urgency: urgency,
                          repeat: repeating, sound: soundValue, warn: warnings)
            job.wake = wake
            job.every = every
            job.resolveZones()
            guard let first = try JobSchedule(job, localZone: ctx.zone).first(now: ctx.now) else {
                throw CLIError.data("--every: '\(every.joined(separator: "', '"))' never elapses after \(ISO8601.format(max(start ?? ctx.now, ctx.now), in: ctx.zone))")
            }
            let synced = try ctx.place(job, sync: sync)
            say("Reminder \(jobID): \(calendars.map(\.description).joined(separator: "; ")), first \(ctx.when(first))" + ctx.syncedNote(synced))
            return
        }
        let due = try WhenOptions.resolve(at: at, inSpan: inSpan, ctx)
        guard due > ctx.now else { throw CLIError.usage("--at: \(ISO8601.format(due, in: ctx.zone)) is in the past") }
        var job = Job(kind: .reminder, id: jobID, at: due, timezone: ctx.zone.identifierForJobs, title: title,
                      text: message, icon: icon, urgency: urgency, repeat: repeating, sound: soundValue, warn: warnings)
        job.wake = wake
        let synced = try ctx.place(job, sync: sync)
        say("Reminder \(jobID): \(ctx.when(due))" + (warnings.isEmpty ? "" : ", warned " + warnings.map(TimeSpan.format).joined(separator: ", ") + " ahead")
            + ctx.syncedNote(synced))
    }
}
