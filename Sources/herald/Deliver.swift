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
    struct Deliver: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deliver",
            abstract: "Schedule a delivery: a heads-up before it arrives and a notice when it does.",
            discussion: """
                Both popups greet the recipient by name and give the delivery address and the items. \
                Name and address come from --name/--address or the config's profile. If the heads-up \
                time has already passed, the heads-up fires at once with the real minutes left. \
                --warn adds more heads-ups further ahead (--warn 1d,1h): the lead is the last of them.

                Examples:
                  herald deliver --in 40m --item apple --item "milk x2"
                  herald deliver --at 18:30 --lead 10m --name "Alice Smith" --address "12 Elm St"
                  herald deliver --at 'tomorrow 10am' --warn 1d,1h --item "new sofa"
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var when: WhenOptions

        @Option(help: ArgumentHelp("How long before arrival the heads-up fires; 0 for none (default: the config's, 15m).",
                                   valueName: "span"))
        var lead: String?

        @Option(help: ArgumentHelp("More heads-ups, further ahead: spans such as 1d,1h.", valueName: "spans"))
        var warn: String?

        @Option(help: ArgumentHelp("The recipient's name (default: the config's profile.name).", valueName: "name"))
        var name: String?

        @Option(help: ArgumentHelp("The delivery address (default: the config's profile.address).", valueName: "address"))
        var address: String?

        @Option(name: .customLong("item"), help: ArgumentHelp("An item, with an optional quantity: \"milk x2\". Repeatable.",
                                                                 valueName: "item"))
        var items: [String] = []

        @Option(help: ArgumentHelp("The tracking page (http or https): the popup gets a Track button that opens it.", valueName: "url"))
        var url: String?

        @OptionGroup var popup: PopupOptions
        @OptionGroup var syncing: SyncOptions
        @OptionGroup var sound: SoundOptions
        @OptionGroup var waking: WakeOption

        func run() throws {
            if let url, !Job.isValidURL(url) { throw CLIError.usage("--url: '\(url)' is not an http or https URL") }
            let soundValue = try sound.value()
            let warnings = try parseWarnings(warn)
            let ctx = try CLIContext.load(global)
            let arrival = try when.resolve(ctx)
            guard arrival > ctx.now else {
                throw CLIError.usage("the arrival time \(ISO8601.format(arrival, in: ctx.zone)) is in the past")
            }
            let leadSpan = try lead.map { try parseLead($0) } ?? ctx.config.lead
            let recipientName = name ?? ctx.config.profile.name
            let recipientAddress = address ?? ctx.config.profile.address
            guard let recipientName, !recipientName.trimmingSpaces.isEmpty else {
                throw CLIError.usage("no recipient name: pass --name NAME, or set profile.name in the config (or HERALD_PROFILE_NAME)")
            }
            guard let recipientAddress, !recipientAddress.trimmingSpaces.isEmpty else {
                throw CLIError.usage("no delivery address: pass --address ADDRESS, or set profile.address in the config (or HERALD_PROFILE_ADDRESS)")
            }
            let parsedItems = try items.map(Self.parseItem)
            let jobID = try popup.jobID(ctx)
            var job = Job(kind: .delivery, id: jobID, at: arrival, timezone: ctx.zone.identifierForJobs, icon: try popup.checkedIcon(),
                          urgency: popup.urgency, recipient: .init(name: recipientName, address: recipientAddress),
                          items: parsedItems, lead: leadSpan, url: url, sound: soundValue, warn: warnings)
            job.wake = waking.value
            let synced = try ctx.place(job, sync: try syncing.choice())
            var line = "Delivery \(jobID): arrives \(ctx.when(arrival))"
            let schedule = try JobSchedule(job, localZone: ctx.zone, defaultLead: ctx.config.lead)
            if let first = schedule.first(now: ctx.now), first < arrival {
                var headsUps = [first]
                while let next = schedule.next(after: headsUps.last!, now: ctx.now), next < arrival { headsUps.append(next) }
                line += ", heads-up" + (headsUps.count > 1 ? "s " : " ")
                    + headsUps.map { $0 <= ctx.now ? "now" : RelativeTime.clock($0, zone: ctx.zone, now: ctx.now) }.joined(separator: ", ")
            }
            if !parsedItems.isEmpty { line += "; " + MessageRenderer.itemsPhrase(parsedItems) }
            say(line + ctx.syncedNote(synced))
        }

        /// "milk x2", "milk ×2", "milk*2", "milk x 2" → milk, 2; "apple" → apple, 1. An `x` counts
        /// only after a space, so "box2" stays a name.
        static func parseItem(_ text: String) throws -> Job.Item {
            let trimmed = text.trimmingSpaces
            guard !trimmed.isEmpty else { throw CLIError.usage("--item: an item needs a name") }
            var chars = Array(trimmed)
            var digits = ""
            while let last = chars.last, last.isASCII, last.isNumber { digits = String(last) + digits; chars.removeLast() }
            while chars.last == " " { chars.removeLast() }
            guard !digits.isEmpty, let marker = chars.last, "xX×*".contains(marker) else { return Job.Item(name: trimmed) }
            chars.removeLast()
            if marker == "x" || marker == "X" { guard chars.last == " " else { return Job.Item(name: trimmed) } }
            let name = String(chars).trimmingSpaces
            guard !name.isEmpty else { return Job.Item(name: trimmed) }
            guard let quantity = Int(digits), quantity >= 1, quantity <= 1_000_000 else {
                throw CLIError.usage("--item: '\(text)' has a quantity outside 1 to 1000000")
            }
            return Job.Item(name: name, quantity: quantity)
        }
    }
}

/// `--sound` and `--silent`: what `remind`, `timer` and `deliver` share.
struct SoundOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Play this with the popup: a sound-theme name (alarm-clock-elapsed, bell, message) or an absolute file path (default: the config's popups.sound for the kind).", valueName: "sound"))
    var sound: String?

    @Flag(help: "Play no sound, whatever the config says.")
    var silent = false

    /// The job's `sound` field: the name, `none` for --silent, nil for the config's default.
    func value() throws -> String? { try Self.value(sound: sound, silent: silent) }

    static func value(sound: String?, silent: Bool) throws -> String? {
        if silent {
            if sound != nil { throw CLIError.usage("--sound and --silent contradict each other; give one") }
            return "none"
        }
        guard let sound else { return nil }
        guard Job.isValidSound(sound) else {
            throw CLIError.usage("--sound: '\(sound)' is not a sound-theme name (letters, digits, - _ .) or an absolute path")
        }
        // heraldd checks the file again when it plays it (it may change meanwhile); this
        // check tells the user now.
        if sound.hasPrefix("/") {
            do throws(SoundFileError) { _ = try SoundFile(path: sound) } catch { throw CLIError.usage("--sound: cannot play '\(sound)': \(error.reason)") }
        }
        return sound
    }
}

/// `--wake` for remind, timer, habit add and deliver: the job wakes the machine from suspend.
struct WakeOption: ParsableArguments {
    @Flag(help: "Wake the machine from suspend for it, as an alarm does (alarms.wakeAhead before; see 'herald doctor').")
    var wake = false

    /// The job's `wake` field: true, or nil for the config's default (`alarms.wake`).
    var value: Bool? { wake ? true : nil }
}

/// `--repeat SPAN` for `remind` and `timer`.
func parseRepeat(_ text: String?) throws -> Span? {
    guard let text else { return nil }
    let span = try parseSpan(text, option: "--repeat")
    guard span >= Job.repeatRange.lowerBound else { throw CLIError.usage("--repeat: '\(text)' is shorter than 1 second") }
    guard span <= Job.repeatRange.upperBound else { throw CLIError.usage("--repeat: '\(text)' is longer than 366 days") }
    return span
}

/// `--lead SPAN` for `deliver`: up to 366 days.
func parseLead(_ text: String) throws -> Span {
    let span = try parseSpan(text, option: "--lead")
    guard Job.leadRange.contains(span) else { throw CLIError.usage("--lead: '\(text)' is longer than 366 days") }
    return span
}

/// `--warn 1d,1h,15m`: warnings ahead of each occurrence.
func parseWarnings(_ text: String?) throws -> [Span] {
    guard let text else { return [] }
    var spans: [Span] = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
        let span = try parseSpan(String(part).trimmingSpaces, option: "--warn")
        guard Job.warningRange.contains(span) else {
            throw CLIError.usage("--warn: '\(String(part).trimmingSpaces)' is outside 1 second to 366 days")
        }
        if !spans.contains(span) { spans.append(span) }
    }
    guard spans.count <= Job.maximumWarnings else {
        throw CLIError.usage("--warn: '\(text)' has \(spans.count) warnings; the most is \(Job.maximumWarnings)")
    }
    return spans
}

/// `--urgency`, `--icon` and `--id`: what `deliver` and `remind` share.
struct PopupOptions: ParsableArguments {
    @Option(help: "low, normal or critical (default: the config's, normal).")
    var urgency: Job.Urgency?

    @Option(help: ArgumentHelp("A freedesktop icon name or an absolute image path for the popup.", valueName: "icon"))
    var icon: String?

    @Option(help: ArgumentHelp("Use this job id instead of a random one.", valueName: "id"))
    var id: String?

    /// `--id` if valid, else a new random id.
    func jobID(_ ctx: CLIContext) throws -> String { try Self.jobID(id, ctx) }

    static func jobID(_ id: String?, _ ctx: CLIContext) throws -> String {
        guard let id else { return ctx.newID() }
        guard Job.isValidID(id) else {
            throw CLIError.usage("--id: '\(id)' is not a valid id: use 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'")
        }
        guard !CalendarPlanner.isCalendarJobID(id) else { throw CLIError.usage("--id: '\(id)' starts with 'cal-', which is kept for calendar jobs") }
        // heraldd would refuse it into failed/ after this said yes: say no here.
        if let (found, _) = try? ctx.spool.findPendingCounted(id, defaultLead: ctx.config.lead, localZone: ctx.zone, now: ctx.now),
           found.contains(where: { $0.id == id }) {
            throw CLIError.usage("--id: a job '\(id)' is pending already (see 'herald show \(id)'); nothing written")
        }
        return id
    }

    /// `--icon` when it is an icon name or an existing image file.
    func checkedIcon() throws -> String? { try icon.map(validateIcon) }
}

/// A freedesktop icon name as is; an image path must be absolute and name a regular file
/// (`PopupIcon`: heraldd checks an icon from a job file the same way).
func validateIcon(_ icon: String) throws -> String {
    if let problem = PopupIcon.problem(icon) { throw CLIError.usage("--icon: '\(icon)': \(problem)") }
    return icon
}

extension TimeZoneRules {
    /// The zone name to store in a job: an IANA name, or nil when the local zone has none.
    var identifierForJobs: String? {
        identifier == "localtime" || !TimeZoneRules.isPlausibleName(identifier) || identifier.contains(",") ? nil : identifier
    }
}
