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
    /// kinds' own (`JobKindRules.config`). Holds what the configuration set; the rest is the
    /// kinds' defaults, looked up when asked for (not at every start of the CLI).
    public struct Templates: Sendable, Equatable {
        var set: [String: Message] = [:]
        public init() {}
        /// The template `name`, else its kind's default.
        public subscript(name: String) -> Message {
            get { set[name] ?? Self.spec(name)?.defaults ?? Message(summary: Template(valid: ""), body: Template(valid: "")) }
            set { self.set[name] = newValue }
        }
        static func spec(_ name: String) -> KindConfig.TemplateSpec? {
            for kind in Job.Kind.allCases { if let t = kind.rules.config.templates.first(where: { $0.name == name }) { return t } }
            return nil
        }
        /// The template names, in the kinds' order.
        public static var names: [String] { Job.Kind.allCases.flatMap { $0.rules.config.templates.map(\.name) } }
        /// The placeholders template `name` may use beside `Template.placeholders`.
        public static func extraPlaceholders(_ name: String) -> [String] { spec(name)?.placeholders ?? [] }
        /// Equal when every template reads the same, set or default.
        public static func == (a: Templates, b: Templates) -> Bool { names.allSatisfy { a[$0] == b[$0] } }
    }

    /// A calendar heraldd watches (`calendars.sources`): a vdir or an `.ics` file.
    public struct CalendarSource: Sendable, Equatable {
        public var path: String
        /// Dismiss and Snooze are written into the item (RFC 9074), for sync to carry (`calendars.writeBack`).
        public var writeBack: Bool
        /// Its alarms wake the machine from suspend (`calendars.wake`).
        public var wake = false
        public init(path: String, writeBack: Bool = false, wake: Bool = false) { self.path = path; self.writeBack = writeBack; self.wake = wake }
    }

    /// swift-log's levels, least first (the engine's log lines carry them too).
    public enum LogLevel: String, Sendable, CaseIterable, Comparable {
        case trace, debug, info, notice, warning, error, critical
        public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rank < b.rank }
        var rank: Int {
            switch self {
            case .trace: 0
            case .debug: 1
            case .info: 2
            case .notice: 3
            case .warning: 4
            case .error: 5
            case .critical: 6
            }
        }
    }

    /// What a popup is, for the per-kind popup settings (`popups.expire.*`, `popups.sound.*`):
    /// each kind names its own (`JobKindRules.config`).
    public struct PopupClass: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        init(_ rawValue: String) { self.rawValue = rawValue }
        /// Every kind's classes, in the kinds' order.
        public static var allCases: [PopupClass] { Job.Kind.allCases.flatMap { $0.rules.config.popupClasses.map(\.popupClass) } }
        var spec: KindConfig.PopupClassSpec? {
            for kind in Job.Kind.allCases { if let c = kind.rules.config.popupClasses.first(where: { $0.popupClass == self }) { return c } }
            return nil
        }
    }

    /// Per popup class: what the configuration set, else the kind's default (looked up when
    /// asked for, not at every start of the CLI).
    public struct PerClass<Value: Sendable & Equatable>: Sendable, Equatable {
        var set: [PopupClass: Value?] = [:]
        let defaultValue: @Sendable (KindConfig.PopupClassSpec) -> Value?
        public subscript(c: PopupClass) -> Value? {
            get { if let v = set[c] { return v }; return c.spec.flatMap(defaultValue) }
            set { set[c] = .some(newValue) }
        }
        public var values: [Value] { PopupClass.allCases.compactMap { self[$0] } }
        /// Equal when every class reads the same, set or default.
        public static func == (a: PerClass, b: PerClass) -> Bool { PopupClass.allCases.allSatisfy { a[$0] == b[$0] } }
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
        public var expire = PerClass<Expiry>(defaultValue: { $0.expire })
        /// Each class's sound when the job names none (`popups.sound.*`; nil: silent);
        /// `repeating` is for reminders with `repeat`.
        public var sound = PerClass<Sound>(defaultValue: { $0.sound })
        public var repeatingSound: Sound? = .themed("alarm-clock-elapsed")
        public init() {}
    }

    /// How alarms ring, and which jobs wake the machine from suspend (`alarms.*`).
    public struct Alarms: Sendable, Equatable {
        /// How long an alarm's Snooze puts it off (`alarms.snooze`).
        public var snooze: Span = .minutes(10)
        /// How long an alarm rings unanswered before it is recorded `unanswered` and snoozes
        /// itself (`alarms.ringFor`).
        public var ringFor: Span = .minutes(10)
        /// How often an unanswered alarm snoozes itself before it gives up (`alarms.autoSnooze`).
        public var autoSnooze = 3
        /// How long before a waking job's time the machine is woken, so the session is back
        /// when it fires (`alarms.wakeAhead`).
        public var wakeAhead: Span = .seconds(60)
        /// Whether an alarm rings in quiet hours and the desktop's do-not-disturb, as a
        /// phone's does (`alarms.duringQuiet: ring`), or is held like any popup (`hold`).
        public var ringsWhenQuiet = true
        /// The kinds whose jobs wake the machine unless their `wake` says otherwise (`alarms.wake`).
        public var wakeKinds: Set<Job.Kind> = [.alarm]
        public init() {}

        /// Whether `job` wakes the machine from suspend.
        public func wakes(_ job: Job) -> Bool { job.wake ?? wakeKinds.contains(job.kind) }
        public func wakes(kind: Job.Kind, wake: Bool?) -> Bool { wake ?? wakeKinds.contains(kind) }
    }

    /// Run jobs (`herald run`): whether they run at all (`commands: off` refuses them) and how
    /// much of a run's output is kept (`commands.maxOutput`).
    public struct Commands: Sendable, Equatable {
        public var enabled = true
        public var maxOutput = 1 << 20
        public static let maxOutputRange = 1024...(1 << 30)
        public init() {}
    }

    public var profile = Profile()
    public var popups = Popups()
    public var alarms = Alarms()
    public var commands = Commands()
    /// Daily quiet time (`quietHours`), in the local zone.
    public var quietHours: QuietHours?
    /// The desktop's do-not-disturb holds popups as quiet time does (`quietWithDesktop`).
    public var quietWithDesktop = true
    /// How long before a delivery's arrival its heads-up fires (`defaults.lead`).
    public var lead: Span = .minutes(15)
    public var urgency: Job.Urgency = .normal
    /// How long Snooze (the button, or `herald snooze` without a span) puts a popup off.
    public var snooze: Span = .minutes(10)
    public var templates = Templates()
    /// A job that comes due while heraldd is down (or the machine asleep) still shows when
    /// at most this late; later ones are recorded as missed (`catchUp.grace`).
    public var catchUpGrace: Span = .minutes(60)
    /// How long done, cancelled and failed files and history lines are kept (`limits.retention`).
    public var retention: Span = .minutes(60 * 24 * 30)
    /// The most jobs the spool accepts; past it new jobs are refused (`limits.jobs`).
    public var maxJobs = 200_000
    /// The most items one calendar source plans (`calendars.limit`): within its share of the
    /// spool (`CalendarShares`), the items nearest in time.
    public var calendarLimit = 5000
    /// The first day of a habit's week (0 = Monday ... 6 = Sunday), for targets such as 3/week.
    public var weekStart = 0
    /// The calendars whose alarms heraldd shows (the synced collection among them, written back).
    public var calendars: [CalendarSource] = []
    /// The vdir collection Herald's synced jobs are stored in (`sync.calendar`), if any.
    public var syncCalendar: String?
    /// Whether a new reminder, timer or delivery is synced unless `--local` says otherwise (`sync.default`).
    public var syncByDefault = false
    /// The spool directory, if configured (else the XDG default).
    public var spool: String?
    public var logLevel: LogLevel = .info

    public init() {}
}
