import CLibNotify
import Glibc
import HeraldCore

/// One notification Herald showed and the server still has: the one owner of everything that
/// lives exactly as long as the popup. It holds the libnotify object (kept alive until the
/// server closes the popup, or its buttons go dead and its closing is not heard) and lets go
/// of it in `deinit`; the notifier keeps indexes over these objects (by job, by the server's
/// id, by libnotify pointer), never tables of their parts. GLib thread only.
final class ShownPopup {
    let notification: UnsafeMutablePointer<NotifyNotification>
    /// The job and occurrence it shows.
    var jobID: String
    var occurrence: Instant
    /// The id the server gave it (a reused id means the server replaced the popup holding it).
    var serverID: Int32?
    /// The server will close it for room (it keeps a few per app and got one more).
    var pushedOut = false
    /// A button of it was reported already (GNOME Shell emits ActionInvoked twice).
    var acted = false
    /// Its ringing (an alarm's looping sound and idle inhibitor), which ends with it.
    var ringing: Ringing?

    init(_ notification: UnsafeMutablePointer<NotifyNotification>, jobID: String, occurrence: Instant) {
        self.notification = notification
        self.jobID = jobID
        self.occurrence = occurrence
    }

    /// libnotify's `notify_notification_close`: asks the server to take it off the screen.
    func close() {
        ringing?.end()
        var error: UnsafeMutablePointer<GError>? = nil
        _ = notify_notification_close(notification, &error)
        if let error { g_error_free(error) }
    }

    deinit {
        ringing?.end()
        herald_notification_unref(notification)
    }
}

/// What a ringing popup holds: its sound played again and again, and logind's idle inhibitor
/// (the screen stays on). Both end together, when the popup does (`ShownPopup` ends it wherever
/// it goes: a button, a close, the server leaving, heraldd letting it go). GLib thread only.
final class Ringing {
    private let sounds: SoundPlayer
    private let loop: UInt64?
    private var inhibitor: Int32 = -1
    private(set) var ended = false

    init(sounds: SoundPlayer, loop: UInt64?) { self.sounds = sounds; self.loop = loop }

    /// The inhibitor's descriptor came: kept until the end (closed at once if that was already).
    func hold(inhibitor fd: Int32) {
        if ended { Glibc.close(fd) } else { inhibitor = fd }
    }

    func end() {
        guard !ended else { return }
        ended = true
        if let loop { sounds.stopLoop(loop) }
        if inhibitor >= 0 { Glibc.close(inhibitor); inhibitor = -1 }
    }

    deinit { end() }
}

/// The popups on screen, oldest first, with their indexes: the one place a popup is added and
/// let go. GLib thread only.
struct ShownPopups {
    private(set) var live: [ShownPopup] = []
    private var byJob: [String: ShownPopup] = [:]
    private var byServerID: [Int32: ShownPopup] = [:]
    private var byNotification: [UnsafeMutablePointer<NotifyNotification>: ShownPopup] = [:]

    var count: Int { live.count }
    func of(job id: String) -> ShownPopup? { byJob[id] }
    func of(serverID id: Int32) -> ShownPopup? { byServerID[id] }
    func of(_ notification: UnsafeMutablePointer<NotifyNotification>) -> ShownPopup? { byNotification[notification] }

    /// A popup just shown for the first time: it is live until the server closes it.
    mutating func add(_ popup: ShownPopup) {
        live.append(popup)
        byNotification[popup.notification] = popup
    }

    /// `popup` now shows `jobID` (a new popup, or one updated in place for the job's next one).
    mutating func assign(_ popup: ShownPopup, job jobID: String, occurrence: Instant) {
        if byJob[popup.jobID] === popup, popup.jobID != jobID { byJob.removeValue(forKey: popup.jobID) }
        popup.jobID = jobID
        popup.occurrence = occurrence
        byJob[jobID] = popup
    }

    /// The server gave `popup` the id `id`.
    mutating func assign(_ popup: ShownPopup, serverID id: Int32) {
        if let old = popup.serverID, old != id, byServerID[old] === popup { byServerID.removeValue(forKey: old) }
        popup.serverID = id
        byServerID[id] = popup
    }

    /// Takes `popup` out of every index; it is released when the last reference goes.
    mutating func remove(_ popup: ShownPopup) {
        popup.ringing?.end()
        guard let k = live.firstIndex(where: { $0 === popup }) else { return }
        live.remove(at: k)
        byNotification.removeValue(forKey: popup.notification)
        if let id = popup.serverID, byServerID[id] === popup { byServerID.removeValue(forKey: id) }
        if byJob[popup.jobID] === popup { byJob.removeValue(forKey: popup.jobID) }
    }

    /// Lets every popup go (the server that showed them left).
    mutating func removeAll() {
        for popup in live { popup.ringing?.end() }
        self = ShownPopups()
    }
}
