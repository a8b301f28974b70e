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

    /// Each kind's templates by name (`templates.<name>`): the names and defaults are the
    /// kinds' own (`JobKindRules.config`).
    public struct Templates: Sendable, Equatable {
        var byName: [String: Message]
        public init(_ byName: [String: Message]) { self.byName = byName }
        /// The template `name`, else the default (every kind's name has one).
        public subscript(name: String) -> Message {
            get { byName[name] ?? HeraldConfig.defaultTemplates.byName[name] ?? Message(summary: Template(valid: ""), body: Template(valid: "")) }
            set { byName[name] = newValue }
        }
        /// The template names, in the kinds' order.
        public static var names: [String] { Job.Kind.allCases.flatMap { $0.rules.config.templates.map(\.name) } }
        /// The placeholders template `name` may use beside `Template.placeholders`.
        public static func extraPlaceholders(_ name: String) -> [String] {
            Job.Kind.allCases.lazy.compactMap { $0.rules.config.templates.first { $0.name == name }?.placeholders }.first ?? []
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

    /// What a popup is, for the per-kind popup settings (`popups.expire.*`, `popups.sound.*`):
    /// each kind names its own (`JobKindRules.config`).
    public struct PopupClass: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        init(_ rawValue: String) { self.rawValue = rawValue }
        /// Every kind's classes, in the kinds' order.
        public static var allCases: [PopupClass] { Job.Kind.allCases.flatMap { $0.rules.config.popupClasses.map(\.0) } }
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
        public var expire: [PopupClass: Expiry] = Popups.defaultExpire
        /// Each class's sound when the job names none (`popups.sound.*`; nil: silent);
        /// `repeating` is for reminders with `repeat`.
        public var sound: [PopupClass: Sound] = Popups.defaultSound
        public var repeatingSound: Sound? = .themed("alarm-clock-elapsed")
        public init() {}

        /// The kinds' defaults, built once.
        static let defaultExpire = Dictionary(
            Job.Kind.allCases.flatMap { $0.rules.config.popupClasses.map { ($0.0, $0.expire) } }, uniquingKeysWith: { a, _ in a })
        static let defaultSound = Dictionary(
            Job.Kind.allCases.flatMap { $0.rules.config.popupClasses.compactMap { c in c.sound.map { (c.0, $0) } } },
            uniquingKeysWith: { a, _ in a })
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

    /// The kinds' default templates (constant and valid: a test parses each).
    public static let defaultTemplates = Templates(Dictionary(
        Job.Kind.allCases.flatMap { $0.rules.config.templates.map { ($0.name, $0.default) } }, uniquingKeysWith: { a, _ in a }))
}
