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
    /// The buttons, in order.
    public var actions: [PopupAction]

    public init(jobID: String, occurrence: Instant = .epoch, summary: String, body: String, icon: String? = nil,
                urgency: Job.Urgency = .normal, category: String, actions: [PopupAction] = []) {
        self.jobID = jobID; self.occurrence = occurrence; self.summary = summary; self.body = body; self.icon = icon
        self.urgency = urgency; self.category = category; self.actions = actions
    }

    /// The `desktop-entry` hint: Herald's desktop file, `herald.desktop`.
    public static let desktopEntry = "herald"
    /// The application name sent with every notification.
    public static let appName = "Herald"
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

/// Shows notifications. Implementations call `completion` exactly once, on any thread.
public protocol Notifier: Sendable {
    func show(_ request: NotificationRequest, completion: @escaping @Sendable (Result<Void, NotifierError>) -> Void)
    /// Where button presses go; notifiers without buttons never call it.
    func onAction(_ handler: @escaping @Sendable (NotificationAction) -> Void)
}

extension Notifier {
    public func onAction(_ handler: @escaping @Sendable (NotificationAction) -> Void) {}
}
