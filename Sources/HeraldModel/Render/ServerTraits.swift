/// What a notification server does that the spec leaves open, measured on each server
/// (`make compat`, scripts/desktop/FINDINGS.md), in one place. Herald adapts to the server it
/// finds by what it reports: GetServerInformation's name and its capabilities.
public struct ServerTraits: Sendable, Equatable {
    /// Which server this is, for `herald status` and the logs.
    public var label: String
    /// Action buttons it draws at most (the body click is not a button); nil: all.
    public var maximumButtons: Int?
    /// Notifications it keeps from one app: one more closes the oldest (GNOME Shell: 3).
    public var perAppLimit: Int?
    /// It plays `sound-name` itself (the `sound` capability, where that was found true): Herald
    /// then does not; otherwise Herald plays it and tells the server not to (`suppress-sound`).
    public var playsSound: Bool
    /// Its refusal of a notification identical to one sent just before (KDE Plasma: 1 s).
    public var refusesRepeatWithin: Span?
    /// xfce4-notifyd before 0.8 draws the body click (`default`) as a button.
    public var drawsDefaultAction: Bool
    /// Where its do-not-disturb state is read, if it has one Herald knows.
    public var doNotDisturb: DoNotDisturbSource?

    public init(label: String, maximumButtons: Int? = nil, perAppLimit: Int? = nil, playsSound: Bool = false,
                refusesRepeatWithin: Span? = nil, drawsDefaultAction: Bool = false,
                doNotDisturb: DoNotDisturbSource? = nil) {
        self.label = label; self.maximumButtons = maximumButtons; self.perAppLimit = perAppLimit; self.playsSound = playsSound
        self.refusesRepeatWithin = refusesRepeatWithin
        self.drawsDefaultAction = drawsDefaultAction; self.doNotDisturb = doNotDisturb
    }

    /// The traits of the server that answered GetServerInformation with `name` and `version`
    /// and GetCapabilities with `capabilities`. An unknown server gets the spec's defaults.
    public static func of(name: String, vendor: String = "", version: String, capabilities: Set<String>) -> ServerTraits {
        // Any program may own the name: what it says goes into status.json and the logs cut
        // short, by Unicode scalars (a character may hold any number of combining marks).
        func cut(_ s: String, _ n: Int) -> String { String(String.UnicodeScalarView(s.unicodeScalars.prefix(n))) }
        let version = cut(version, 40), shortName = cut(name, 80)
        var t = ServerTraits(label: version.isEmpty ? shortName : "\(shortName) \(version)", playsSound: capabilities.contains("sound"))
        switch name {
        case "gnome-shell":
            t.label = "GNOME Shell \(version)"
            t.maximumButtons = 3
            t.perAppLimit = 3
            t.doNotDisturb = .gnomeShowBanners
        case "Plasma":
            t.label = "KDE Plasma \(version)"
            t.refusesRepeatWithin = .seconds(1)
            t.doNotDisturb = .plasmaInhibited
        case "SwayNotificationCenter":
            t.label = "swaync \(version)"
            t.doNotDisturb = .swayncDnd
        case "dunst":
            t.doNotDisturb = .dunstPaused
        case "mako":
            t.doNotDisturb = .makoMode
        case "Notification Daemon":
            // notification-daemon 3.20 (GNOME) and mate-notification-daemon 1.26 list `sound` but
            // play no `sound-name` (make compat, with a PulseAudio they can reach): Herald plays it.
            t.playsSound = false
        case "Xfce Notify Daemon":
            let parts = version.split(separator: ".").map { Int($0) ?? 0 }
            t.drawsDefaultAction = (parts.first ?? 0, parts.dropFirst().first ?? 0) < (0, 8)
        default:
            break
        }
        return t
    }
}

/// Where a server keeps its do-not-disturb switch (read by heraldd, which holds popups then).
public enum DoNotDisturbSource: String, Sendable, Equatable {
    /// GSettings `org.gnome.desktop.notifications show-banners` false.
    case gnomeShowBanners = "GNOME's show-banners setting"
    /// The `Inhibited` property of org.freedesktop.Notifications (KDE Plasma).
    case plasmaInhibited = "Plasma's Inhibited property"
    /// `GetDnd` on org.erikreider.swaync.cc.
    case swayncDnd = "swaync's GetDnd"
    /// The `paused` property of org.dunstproject.cmd0.
    case dunstPaused = "dunst's paused property"
    /// mako's `do-not-disturb` mode.
    case makoMode = "mako's do-not-disturb mode"
}

/// The desktop's do-not-disturb, on: since when, and where it was read.
public struct DesktopQuiet: Sendable, Equatable {
    public var since: Instant
    public var source: String
    public init(since: Instant, source: String) { self.since = since; self.source = source }
}

extension NotificationRequest {
    /// The request as a server that draws at most `maximumButtons` can show it: the first
    /// buttons (the order is the kinds' order of importance), and a line in the body for each
    /// one left out, saying the command that does the same (`1 h: herald snooze ID 1h`).
    public func fitted(maximumButtons: Int?) -> NotificationRequest {
        guard let maximum = maximumButtons else { return self }
        let buttons = actions.filter { $0 != .body }
        guard buttons.count > maximum else { return self }
        let kept = Array(buttons.prefix(max(0, maximum)))
        var fitted = self
        fitted.actions = actions.filter { $0 == .body || kept.contains($0) }
        let habit = category == "x-herald.habit"
        let lines = buttons.dropFirst(kept.count).compactMap { action in
            action.command(jobID: jobID, habit: habit).map { "\(action.label): \($0)" }
        }
        if !lines.isEmpty { fitted.body += (body.isEmpty ? "" : "\n") + lines.joined(separator: "\n") }
        return fitted
    }
}
