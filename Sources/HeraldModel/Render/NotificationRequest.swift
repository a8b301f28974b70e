/// One popup, ready for a notifier: what the user sees and the hints that go with it.
public struct NotificationRequest: Sendable, Equatable {
    public var jobID: String
    /// The occurrence this popup is for (a habit's day, a snooze's subject).
    public var occurrence: Instant
    public var summary: String
    /// Plain text; a notifier escapes it when the server takes markup.
    public var body: String
    public var icon: String?
    public var urgency: Job.Urgency
    /// The freedesktop category hint, e.g. `x-herald.delivery`.
    public var category: String
    /// The buttons, in order (`.body` is the click on the popup's body, drawn as no button).
    public var actions: [PopupAction]
    /// How long the server keeps it on screen.
    public var expiry: Expiry
    /// What it plays; nil: silent.
    public var sound: Sound?
    /// Rings: the sound plays again and again while the popup is on screen, for at most this
    /// long (an alarm's `alarms.ringFor`; the engine ends it then), and the screen is kept from
    /// blanking meanwhile. nil: the sound plays once.
    public var ringFor: Span?

    public init(jobID: String, occurrence: Instant = .epoch, summary: String, body: String, icon: String? = nil,
                urgency: Job.Urgency = .normal, category: String, actions: [PopupAction] = [],
                expiry: Expiry = .serverDefault, sound: Sound? = nil, ringFor: Span? = nil) {
        self.jobID = jobID; self.occurrence = occurrence; self.summary = summary; self.body = body; self.icon = icon
        self.urgency = urgency; self.category = category; self.actions = actions; self.expiry = expiry; self.sound = sound
        self.ringFor = ringFor
    }


    /// The `desktop-entry` hint: Herald's desktop file, `herald.desktop`.
    public static let desktopEntry = "herald"
    /// The application name sent with every notification.
    public static let appName = "Herald"
}

/// How long a popup stays: the spec's `expire_timeout`.
public enum Expiry: Sendable, Equatable, CustomStringConvertible {
    /// 0: until the user closes it.
    case never
    /// -1: as long as the server likes (xfce4-notifyd: 10 s).
    case serverDefault
    case after(Span)

    /// The `expire_timeout` value in milliseconds.
    public var milliseconds: Int32 {
        switch self {
        case .never: return 0
        case .serverDefault: return -1
        case .after(let span): return Int32(clamping: max(1, span.microseconds / 1000))
        }
    }

    /// As the config writes it: `never`, `default`, or a span.
    public var description: String {
        switch self {
        case .never: return "never"
        case .serverDefault: return "default"
        case .after(let span): return TimeSpan.format(span)
        }
    }

    /// Parses `never`, `default` or a span above zero.
    public init?(parsing text: String) {
        switch text.trimmingSpaces {
        case "never": self = .never
        case "default": self = .serverDefault
        default:
            guard let span = try? TimeSpan.parse(text), span >= .milliseconds(1) else { return nil }
            self = .after(span)
        }
    }
}

/// A popup's sound: a freedesktop sound-theme name (`alarm-clock-elapsed`) or an absolute file path.
public enum Sound: Sendable, Equatable, CustomStringConvertible {
    case themed(String)
    case file(String)

    /// A job's or the config's `sound` value; nil for `none` (silent).
    public init?(parsing text: String) {
        let t = text.trimmingSpaces
        if t.isEmpty || t == "none" { return nil }
        self = t.hasPrefix("/") ? .file(t) : .themed(t)
    }

    /// A file, which heraldd opens and plays itself (`SoundFile`), rather than a theme name.
    public var isFile: Bool {
        if case .file = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .themed(let name): return name
        case .file(let path): return path
        }
    }
}

/// Why a notification could not be shown.
public struct NotifierError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case noBus = "no session bus"
        case noServer = "notification server unavailable"
        case timeout = "notification server not responding"
        case failed = "notification failed"
    }
    public var kind: Kind
    public var detail: String
    public init(_ kind: Kind, detail: String) { self.kind = kind; self.detail = detail }
    public var description: String { detail.isEmpty ? kind.rawValue : "\(kind.rawValue): \(detail)" }
}

/// A button the user pressed on a popup.
public struct NotificationAction: Sendable, Equatable {
    public var jobID: String
    public var occurrence: Instant
    public var action: PopupAction
    public init(jobID: String, occurrence: Instant, action: PopupAction) {
        self.jobID = jobID; self.occurrence = occurrence; self.action = action
    }
}

/// How a popup left the screen, from the spec's NotificationClosed reasons.
public enum CloseReason: Sendable, Equatable {
    /// 1: the server's timeout ran out.
    case expired
    /// 2: the user closed it.
    case dismissed
    /// 3: Herald closed it (after a button, or when asked to).
    case closedByHerald
    /// 4, or anything else.
    case undefined
    /// 1 from a server that keeps a few popups per app, for the oldest when Herald sent one
    /// more (the notifier tells this from `expired`).
    case forRoom

    public init(code: Int32) {
        switch code {
        case 1: self = .expired
        case 2: self = .dismissed
        case 3: self = .closedByHerald
        default: self = .undefined
        }
    }
}

/// What happened to a popup on screen, reported by a notifier.
public enum PopupEvent: Sendable, Equatable {
    /// A button was pressed, or the body clicked.
    case action(NotificationAction)
    /// It left the screen without a button.
    case closed(jobID: String, occurrence: Instant, CloseReason)
}

/// Shows notifications. Implementations call `completion` exactly once, on any thread.
///
/// One popup per job is on screen: showing another for the same job replaces it in place
/// (`replaces_id`).
public protocol Notifier: Sendable {
    func show(_ request: NotificationRequest, completion: @escaping @Sendable (Result<Void, NotifierError>) -> Void)
    /// Takes job `jobID`'s popup off the screen, if it is there.
    func close(jobID: String)
    /// Where button presses and closings go; notifiers without buttons never call it.
    func onEvent(_ handler: @escaping @Sendable (PopupEvent) -> Void)
    /// Gives now the answers of shows the notifier holds back (a burst's), from any thread.
    func giveHeldAnswers()
}

extension Notifier {
    public func giveHeldAnswers() {}
    public func close(jobID: String) {}
    public func onEvent(_ handler: @escaping @Sendable (PopupEvent) -> Void) {}
}
