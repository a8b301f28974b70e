/// A button on a popup. The raw value is the action key sent to the notification server.
public enum PopupAction: String, Sendable, CaseIterable, Equatable {
    case done
    case snooze

    /// The button's label.
    public var label: String {
        switch self {
        case .done: return "Done"
        case .snooze: return "Snooze"
        }
    }
}
