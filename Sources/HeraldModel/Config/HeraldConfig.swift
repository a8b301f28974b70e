/// Herald's settings: from `config.yaml`, overridden by `HERALD_*` environment variables.
/// `config/config.yaml` in the repository documents every key.
public struct HeraldConfig: Sendable, Equatable {
    public struct Profile: Sendable, Equatable {
        public var name: String?
        public var address: String?
        public init(name: String? = nil, address: String? = nil) { self.name = name; self.address = address }
    }

    /// Summary and body of one kind of popup.
    public struct Message: Sendable, Equatable {
        public var summary: Template
        public var body: Template
        public init(summary: Template, body: Template) { self.summary = summary; self.body = body }
    }

    public struct Templates: Sendable, Equatable {
        public var headsUp: Message
        public var arrival: Message
        public var reminder: Message
        public var habit: Message
        public var calendar: Message
        public init(headsUp: Message, arrival: Message, reminder: Message, habit: Message, calendar: Message) {
            self.headsUp = headsUp; self.arrival = arrival; self.reminder = reminder; self.habit = habit; self.calendar = calendar
        }
    }

    /// A calendar heraldd watches (`calendars.sources`): a vdir or an `.ics` file.
    public struct CalendarSource: Sendable, Equatable {
        public var path: String
        /// Dismiss and Snooze are written into the item (RFC 9074), for sync to carry (`calendars.writeBack`).
        public var writeBack: Bool
        public init(path: String, writeBack: Bool = false) { self.path = path; self.writeBack = writeBack }
    }

    public enum LogLevel: String, Sendable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    /// What a popup is, for the per-kind popup settings (`popups.expire.*`, `popups.sound.*`).
    public enum PopupClass: String, Sendable, CaseIterable {
        case reminder, timer, habit, headsUp, arrival
    }

    /// How popups behave (`popups.*`).
    public struct Popups: Sendable, Equatable {
        /// The extra snooze buttons on reminders and timers (`popups.snoozeChoices`).
        public var snoozeChoices: [Span] = [.minutes(5), .minutes(60)]
        /// How often a `repeat` reminder shows again at most (`popups.maxRepeats`).
        public var maxRepeats = 12
        /// More popups than this due at once after heraldd or the machine was down become
        /// one summary popup (`popups.summaryAfter`).
        public var summaryAfter = 3
        /// How long each class of popup stays (`popups.expire.*`).
        public var expire: [PopupClass: Expiry] = [.reminder: .never, .timer: .never, .habit: .never, .arrival: .never,
                                                    .headsUp: .serverDefault]
        /// Each class's sound when the job names none (`popups.sound.*`; nil: silent);
        /// `repeating` is for reminders with `repeat`.
        public var sound: [PopupClass: Sound] = [.timer: .themed("alarm-clock-elapsed")]
        public var repeatingSound: Sound? = .themed("alarm-clock-elapsed")
        public init() {}
    }

    public var profile = Profile()
    public var popups = Popups()
    /// Daily quiet time (`quietHours`), in the local zone.
    public var quietHours: QuietHours?
    /// How long before a delivery's arrival its heads-up fires (`defaults.lead`).
    public var lead: Span = .minutes(15)
    public var urgency: Job.Urgency = .normal
    /// How long Snooze (the button, or `herald snooze` without a span) puts a popup off.
    public var snooze: Span = .minutes(10)
    public var templates: Templates = HeraldConfig.defaultTemplates
    /// A job that comes due while heraldd is down (or the machine asleep) still shows when
    /// at most this late; later ones are recorded as missed (`catchUp.grace`).
    public var catchUpGrace: Span = .minutes(60)
    /// How long done, cancelled and failed files and history lines are kept (`limits.retention`).
    public var retention: Span = .minutes(60 * 24 * 30)
    /// The most jobs the spool accepts; past it new jobs are refused (`limits.jobs`).
    public var maxJobs = 200_000
    /// The first day of a habit's week (0 = Monday ... 6 = Sunday), for targets such as 3/week.
    public var weekStart = 0
    /// The calendars whose alarms heraldd shows.
    public var calendars: [CalendarSource] = []
    /// The spool directory, if configured (else the XDG default).
    public var spool: String?
    public var logLevel: LogLevel = .info

    public init() {}

    // The defaults are constant, valid templates (a test parses each).
    public static let defaultTemplates = Templates(
        headsUp: Message(summary: Template(valid: "Delivery in {minutes} min"),
                         body: Template(valid: "{name}, your order arrives at {address} in {minutes} min.\n{items}")),
        arrival: Message(summary: Template(valid: "Your delivery is here"),
                         body: Template(valid: "{name}, your order is arriving at {address} now.\n{items}")),
        reminder: Message(summary: Template(valid: "{title}"),
                          body: Template(valid: "{text}")),
        habit: Message(summary: Template(valid: "{title}"),
                       body: Template(valid: "{progress} · done {total} · strength {score}")),
        calendar: Message(summary: Template(valid: "{title} {when}"),
                          body: Template(valid: "{location}"))
    )
}
