/// A button on a popup, or a click on its body. `key` is the action key sent to the
/// notification server and read back from its `ActionInvoked` signal.
public enum PopupAction: Sendable, Hashable {
    /// Done: the reminder is handled (a habit's day is marked done).
    case done
    /// A delivery's "Got it".
    case gotIt
    /// An alarm's "Stop": it stops ringing and is handled.
    case stop
    /// A calendar alarm's "Dismiss" (written back into the item when its source allows).
    case dismiss
    /// Snooze: back after `span`, or after the configured `defaults.snooze` when nil.
    case snooze(Span?)
    /// A delivery's "Track": opens the job's `url`.
    case track
    /// A measurable habit's "+1": adds this amount to the day and shows the popup again.
    case add(Int)
    /// A command's result popup: open its output, or run it once more.
    case showOutput
    case runAgain
    /// A click on the popup's body (the spec's `default` action): acknowledges it.
    case body

    /// The key sent to the server: `done`, `got-it`, `snooze`, `snooze-300` (seconds),
    /// `track`, `add-1`, `default`.
    public var key: String {
        switch self {
        case .done: return "done"
        case .gotIt: return "got-it"
        case .stop: return "stop"
        case .dismiss: return "dismiss"
        case .snooze(nil): return "snooze"
        case .snooze(let span?): return "snooze-" + String(span.microseconds / 1_000_000)
        case .track: return "track"
        case .add(let n): return "add-" + String(n)
        case .showOutput: return "show-output"
        case .runAgain: return "run-again"
        case .body: return "default"
        }
    }

    /// Reads a key back; nil for keys Herald never sends.
    public init?(key: String) {
        switch key {
        case "done": self = .done
        case "got-it": self = .gotIt
        case "stop": self = .stop
        case "dismiss": self = .dismiss
        case "snooze": self = .snooze(nil)
        case "track": self = .track
        case "default": self = .body
        case "show-output": self = .showOutput
        case "run-again": self = .runAgain
        default:
            if key.hasPrefix("add-") {
                guard let n = Int(key.dropFirst(4)), n >= 1, n <= 1000 else { return nil }
                self = .add(n)
                return
            }
            guard key.hasPrefix("snooze-"), let seconds = Int64(key.dropFirst(7)), seconds > 0, seconds < 100 * 366 * 86_400 else {
                return nil
            }
            self = .snooze(.seconds(seconds))
        }
    }

    /// The button's label ("5 min", "1 h" for snooze choices). Servers draw no button for the
    /// body click (`default`), but libnotify wants a label for every action.
    public var label: String {
        switch self {
        case .done: return "Done"
        case .gotIt: return "Got it"
        case .stop: return "Stop"
        case .dismiss: return "Dismiss"
        case .snooze(nil): return "Snooze"
        case .snooze(let span?): return TimeSpan.humanize(span)
        case .track: return "Track"
        case .add(let n): return "+" + String(n)
        case .showOutput: return "Show output"
        case .runAgain: return "Run again"
        case .body: return "Acknowledge"
        }
    }
}

extension PopupAction {
    /// The `herald` command that does what this button does, for a popup that cannot draw it.
    public func command(jobID: String, habit: Bool) -> String? {
        switch self {
        case .done: return habit ? "herald habit done \(jobID)" : "herald ack \(jobID)"
        case .gotIt, .dismiss, .body, .stop: return "herald ack \(jobID)"
        case .snooze(nil): return "herald snooze \(jobID)"
        case .snooze(let span?): return "herald snooze \(jobID) \(TimeSpan.format(span))"
        case .track, .showOutput, .runAgain: return nil
        case .add(let n): return "herald habit done \(jobID) \(n)"
        }
    }
}
