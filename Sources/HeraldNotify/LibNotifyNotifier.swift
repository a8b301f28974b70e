import CLibNotify
import Dispatch
import HeraldCore
import Logging
import Synchronization

/// Shows notifications through libnotify on a private GLib main-loop thread.
///
/// `notify_notification_show` is synchronous: a hung server blocks this thread (up to
/// libnotify's 25 s timeout) but never the caller, who gets a completion instead.
public final class LibNotifyNotifier: Notifier, @unchecked Sendable {
    private let glib: GLibThread
    private let logger: Logger
    // Touched only on the GLib thread.
    private var capabilities: Set<String>?
    /// What the server does that the spec leaves open (ServerTraits), once asked.
    private var traits: ServerTraits?
    /// Follows the server's do-not-disturb, when it has one Herald knows.
    private var quietWatcher: DesktopQuietWatcher?
    /// libnotify's log handler (removed with the notifier).
    private var logHandler: UInt32 = 0
    /// Counts the askings of `describeServer`: an answer to an older one is dropped.
    private var describing = 0
    /// The last popup sent (summary and body) and when, for a server that refuses the same one
    /// again within a moment (KDE Plasma: 1 s).
    private var lastSent: (key: String, at: UInt64)?
    /// When the last show failed, and how (monotonic nanoseconds).
    private var lastFailure: (at: UInt64, error: NotifierError)?
    /// Popups on screen, each the one owner of its libnotify object, oldest first; at most `liveLimit`.
    private var popups = ShownPopups()
    private let liveLimit = 1024
    /// Plays sounds the server does not, off the GLib thread.
    private let sounds: SoundPlayer
    /// Shows handed to the GLib thread and not yet answered (any thread).
    private let queuedShows = Atomic<Int>(0)
    /// Answers held back while a burst keeps the GLib thread busy: they go to the caller
    /// together, so the engine wakes once per few popups rather than once per popup, while the
    /// shows still queued keep the server busy (BENCHMARKS.md, "Ratios to the floor"). Every
    /// other report goes through a box that gives them first, so reports keep their order.
    private let heldAnswers = HeldAnswers()
    private let actionHandler: ActionHandlerBox
    /// Gives held answers after `holdAtMost` ms, should the GLib thread be kept waiting by a
    /// server that is slow to answer the show after them.
    private let answerTimer = DispatchQueue(label: "herald.answers", qos: .userInitiated)
    static let holdAtMost = 20
    /// Answers are held while at least this many shows are still queued behind them: half the
    /// outbox's window, so the engine hands out the next half while the first is being shown.
    static let holdAnswersWhileQueued = Outbox.Policy().window / 2
    /// New popups go out on these, up to `lanes.count` on the wire at once.
    private let lanes = ShowLanes(count: LibNotifyNotifier.laneCount, name: "herald.show")
    static let laneCount = 2
    /// Shows waiting to start, in order (GLib thread only): for a lane, or, for one that goes
    /// alone, for every lane's show to be answered.
    private var waitingShows: [WaitingShow] = []
    /// Shows on a lane, not yet answered (GLib thread only).
    private var onLanes: [LaneShow] = []
    /// Counts the times the popups were let go for a server that left: a lane's popup shown
    /// before that (by the server that left) is not kept.
    private var serverTurn = 0
    /// Lane shows started so far: each show's number, and when each early closing was heard.
    private var laneStarts = 0
    /// A show has been made here, on the GLib thread, so libnotify has made its D-Bus proxy and
    /// asked the server's spec version (it does both the first time, unlocked): lanes only after.
    private var libnotifyReady = false
    /// NotificationClosed signals for ids no popup holds yet, heard while shows are on lanes: a
    /// server may close a popup before its show's answer reaches the lane (libnotify, knowing no
    /// id yet, drops the signal). Each is kept while a show started before it was heard is on a
    /// lane; at most `earlyClosingLimit`, the oldest going first.
    private var earlyClosings: [(id: Int32, reason: Int32, heardAfter: Int)] = []
    static let earlyClosingLimit = 64
    private let busHandlers: BusHandlersBox
    private let serverHandlers: ServerHandlersBox
    /// logind on the system bus, for inhibitor locks and sleep signals (GLib thread only).
    private var logind: Logind?
    /// The session bus connection being watched (GLib thread only).
    private var watchedConnection: OpaquePointer?  // GDBusConnection *

    /// Starts the GLib thread and initialises libnotify with the app name "Herald".
    public init(logger: Logger) {
        self.logger = logger
        actionHandler = ActionHandlerBox(after: heldAnswers)
        busHandlers = BusHandlersBox(after: heldAnswers)
        serverHandlers = ServerHandlersBox(after: heldAnswers)
        sounds = SoundPlayer(logger: logger)
        glib = GLibThread()
        glib.sync { _ = notify_init(NotificationRequest.appName) }
        glib.sync { [self] in logind = Logind(logger: logger) }
        // libnotify warns on stderr for each signal it cannot place (a server may send any
        // number): those go to the log at debug level instead.
        let levels = G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_MESSAGE.rawValue | G_LOG_LEVEL_INFO.rawValue | G_LOG_LEVEL_DEBUG.rawValue
        logHandler = g_log_set_handler("libnotify", GLogLevelFlags(rawValue: levels), { _, _, message, data in
            let notifier = Unmanaged<LibNotifyNotifier>.fromOpaque(data!).takeUnretainedValue()
            notifier.logger.debug("libnotify", metadata: ["message": "\(message.map { String(cString: $0) } ?? "")"])
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        g_log_remove_handler("libnotify", logHandler)
        lanes.stop()
        glib.run { notify_uninit() }
        glib.stop()
    }

    /// Shows `request` on the GLib thread. A request queued before a failure was seen fails
    /// at once with that error instead of trying again: a hung server costs one timeout, not
    /// one per queued popup. The caller retries after its backoff.
    public func show(_ request: NotificationRequest, completion: @escaping @Sendable (Result<Void, NotifierError>) -> Void) {
        let queuedAt = DispatchTime.now().uptimeNanoseconds
        checkIcon(request) { [self] request in
            queuedShows.add(1, ordering: .relaxed)
            glib.run { [self] in
                showQueued(request, queuedAt: queuedAt) { [self] result in answer(result, completion) }
            }
        }
    }

    /// Icon files are checked here, never on the GLib thread, and by a process of their own
    /// (`heraldd --check-icon`): `stat` on a hung mount can keep a thread waiting in the kernel
    /// through SIGKILL, and that thread must not be heraldd's. A check that does not answer
    /// within `iconPatience` lets the popup go without its icon.
    private let iconChecks = DispatchQueue(label: "herald.icon", qos: .userInitiated)
    static let iconPatience = 500  // milliseconds

    private func checkIcon(_ request: NotificationRequest, then body: @escaping @Sendable (NotificationRequest) -> Void) {
        guard let icon = request.icon else { return body(request) }
        let bare: NotificationRequest = { var r = request; r.icon = nil; return r }()
        let logger = self.logger
        @Sendable func drop(_ reason: String) -> NotificationRequest {
            logger.notice("A popup's icon is dropped", metadata: ["job.id": "\(request.jobID)", "reason": "\(reason)"])
            return bare
        }
        if let problem = PopupIcon.spellingProblem(icon) { return body(drop(problem)) }
        guard icon.hasPrefix("/") else { return body(request) }
        iconChecks.async {
            guard let answer = try? ChildProcess.collect("/proc/self/exe", ["--check-icon", icon], limit: 4096,
                                                          timeout: Self.iconPatience, abandon: true) else {
                return body(drop("it cannot be checked"))
            }
            if answer.timedOut { return body(drop("its file system does not answer")) }
            let said = String(decoding: answer.standardOutput, as: UTF8.self).trimmingSpaces
            body(said == "ok" ? request : drop(said.isEmpty ? "it cannot be checked" : said))
        }
    }

    private func showQueued(_ request: NotificationRequest, queuedAt: UInt64, completion: @escaping @Sendable (Result<Void, NotifierError>) -> Void) {
        waitingShows.append(WaitingShow(request: request, queuedAt: queuedAt, completion: completion))
        startWaitingShows()
    }

    /// Starts what waits, in order. A new popup for a job with none on screen or on a lane goes
    /// out on a free lane; any other show (the first, which learns what the server is; an update
    /// of a popup in place) goes alone, on this thread, once every lane's show is answered.
    private func startWaitingShows() {
        while let next = waitingShows.first {
            if let failure = lastFailure, next.queuedAt < failure.at {
                waitingShows.removeFirst()
                next.completion(.failure(failure.error))
                continue
            }
            // KDE Plasma refuses a popup identical to the one before within 1 s
            // (ExcessNotificationGeneration): such a one waits for the window to pass, and for
            // its twin on a lane to be answered (the two could reach the server in either order).
            if let window = traits?.refusesRepeatWithin {
                let key = Self.sameness(next.request)
                if onLanes.contains(where: { $0.sameness == key }) { return }
                if let last = lastSent, last.key == key {
                    let now = DispatchTime.now().uptimeNanoseconds
                    let until = last.at + UInt64(window.microseconds) * 1000 + 20_000_000
                    if now < until {
                        waitingShows.removeFirst()
                        glib.after(milliseconds: UInt32((until - now) / 1_000_000) + 1) { [self] in
                            showQueued(next.request, queuedAt: next.queuedAt, completion: next.completion)
                        }
                        continue
                    }
                }
            }
            let jobID = next.request.jobID
            let alone = lanes.count == 0 || !libnotifyReady || capabilities == nil || popups.of(job: jobID) != nil
                || onLanes.contains { $0.prepared.request.jobID == jobID }
            if alone {
                guard onLanes.isEmpty else { return }
                waitingShows.removeFirst()
                let result = showOnGLibThread(next.request)
                noteOutcome(result, of: next.request)
                next.completion(result)
                if case .success = result {
                    libnotifyReady = true
                    if next.closeWhenShown { popups.of(job: jobID)?.close() }
                }
            } else {
                guard onLanes.count < lanes.count else { return }
                waitingShows.removeFirst()
                startOnLane(next)
            }
        }
    }

    /// What a show's outcome changes: a failure stops the shows queued before it was seen; a
    /// success is the last sent (for a server that refuses repeats) and means the bus is there.
    private func noteOutcome(_ result: Result<Void, NotifierError>, of request: NotificationRequest) {
        if case .failure(let error) = result { lastFailure = (DispatchTime.now().uptimeNanoseconds, error) } else {
            lastSent = (Self.sameness(request), DispatchTime.now().uptimeNanoseconds)
            watchBus()
        }
    }

    /// Builds the popup here and has a lane make the call; the answer comes back to this
    /// thread. The lane holds the object's pointer and the show's number only, so the object is
    /// let go here (libnotify keeps a list of its objects, unlocked, and finalizing one edits it).
    private func startOnLane(_ waiting: WaitingShow) {
        let number = laneStarts
        laneStarts &+= 1
        let show = LaneShow(prepared: prepare(waiting.request), waiting: waiting, number: number, serverTurn: serverTurn)
        onLanes.append(show)
        lastSent = (show.sameness, DispatchTime.now().uptimeNanoseconds)
        let lent = LentNotification(pointer: show.prepared.popup.notification)
        lanes.run { [self] in
            var error: UnsafeMutablePointer<GError>? = nil
            let shown = notify_notification_show(lent.pointer, &error) != 0
            let failure = LentError(pointer: error)
            glib.run { [self] in finishOnLane(number, shown: shown, error: failure.pointer) }
        }
    }

    /// A lane's show was answered: the popup is kept (or let go), the caller told, and what
    /// waited for the lane starts.
    private func finishOnLane(_ number: Int, shown: Bool, error: UnsafeMutablePointer<GError>?) {
        guard let k = onLanes.firstIndex(where: { $0.number == number }) else { return }
        let show = onLanes.remove(at: k)
        let request = show.prepared.request
        let popup = show.prepared.popup
        let closedAtOnce = shown ? closingBeforeAnswer(popup.notification, heardAfter: number) : nil
        let current = show.serverTurn == serverTurn
        var result = afterShow(show.prepared, shown: shown, error: error, keep: current && closedAtOnce == nil)
        if shown && !current {
            // Its server left before the answer was taken here, and the daemon has been told and
            // has let that server's popups go: this one is shown again, by the next server.
            result = .failure(NotifierError(.noServer, detail: "the server left as it took the popup"))
        } else {
            noteOutcome(result, of: request)
        }
        show.waiting.completion(result)
        if case .success = result {
            if let reason = closedAtOnce {
                actionHandler.call(.closed(jobID: request.jobID, occurrence: request.occurrence, CloseReason(code: reason)))
            } else if show.waiting.closeWhenShown, popups.of(popup.notification) != nil {
                popup.close()
            }
        }
        // A closing heard before every show still on a lane started is for none of them.
        let oldest = onLanes.map(\.number).min() ?? laneStarts
        earlyClosings.removeAll { $0.heardAfter <= oldest }
        startWaitingShows()
    }

    /// How the server closed a lane's popup before its answer was taken here, if it did:
    /// libnotify heard it after the lane had the id (it then keeps the reason and forgets the
    /// id), or before (it dropped the signal; `heardClosing` kept it).
    private func closingBeforeAnswer(_ notification: UnsafeMutablePointer<NotifyNotification>, heardAfter number: Int) -> Int32? {
        let reason = Int32(herald_notification_closed_reason(notification))
        if reason != NOTIFY_CLOSED_REASON_UNSET.rawValue { return reason }
        let id = Int32(herald_notification_id(notification))
        guard let k = earlyClosings.firstIndex(where: { $0.id == id && $0.heardAfter > number }) else { return nil }
        return earlyClosings.remove(at: k).reason
    }

    /// Gives a show's answer now, or holds it while enough shows are queued behind it. A
    /// failure, and every other report, first gives what is held: reports keep their order.
    private func answer(_ result: Result<Void, NotifierError>, _ completion: @escaping @Sendable (Result<Void, NotifierError>) -> Void) {
        let left = queuedShows.subtract(1, ordering: .relaxed).newValue
        var holding = false
        if case .success = result { holding = left >= Self.holdAnswersWhileQueued }
        guard heldAnswers.add(completion, result, holding: holding) else { return }
        answerTimer.asyncAfter(deadline: .now() + .milliseconds(Self.holdAtMost)) { [weak self] in self?.giveHeldAnswers() }  // monotonic: a bound on a wait, not a user's time
    }

    public func giveHeldAnswers() { heldAnswers.give() }

    /// What makes two popups "the same" to a server that refuses repeats: app, summary, body.
    static func sameness(_ request: NotificationRequest) -> String { request.summary + "\u{0}" + request.body }

    /// Called on the GLib thread with the server's traits each time a server is asked about
    /// (at start, and when another takes the name), and with the desktop's do-not-disturb
    /// (true: on) and where it was read, when it is first read and on each change; nil when
    /// it is no longer known (the server left).
    public func onServer(described: @escaping @Sendable (ServerTraits) -> Void,
                         desktopQuiet: @escaping @Sendable (Bool?, String) -> Void) {
        serverHandlers.set(described: described, quiet: desktopQuiet)
        glib.run { [self] in
            watchBus()
            describeServer()
        }
    }

    /// Asks the server what it is, keeps its traits, and follows its do-not-disturb. The calls
    /// do not wait on the GLib thread (a server that changes hands often, or answers slowly,
    /// holds up no popup), and only the latest owner's answers count.
    private func describeServer() {
        describing &+= 1
        let generation = describing
        guard let bus = watchedConnection else { return }
        AsyncCall.start(bus, "GetServerInformation", timeoutMs: 3000) { [self] reply in
            guard generation == describing else { return }
            guard let reply, let info = ServerInfoReply.identity(reply) else { return forgetServer() }
            AsyncCall.start(bus, "GetCapabilities", timeoutMs: 3000) { [self] reply in
                guard generation == describing else { return }
                // A server that says what it is but not what it can do gets popups without buttons.
                guard let reply, let caps = ServerInfoReply.capabilities(reply) else { return adopt(info, capabilities: []) }
                adopt(info, capabilities: caps, fromProbe: true)
            }
        }
    }

    /// Keeps what the server said about itself, tells the daemon, and follows the server's
    /// do-not-disturb (a new watcher only when the source changed).
    ///
    /// - Parameter fromProbe: asked by `describeServer`, not through libnotify: the first popup
    ///   still asks through libnotify, which keeps the server's spec version for itself (asked
    ///   otherwise inside `notify_notification_show`, a frozen server would cost two timeouts).
    private func adopt(_ info: ServerInfo, capabilities caps: Set<String>, fromProbe: Bool = false) {
        if !fromProbe { capabilities = caps }
        let described = ServerTraits.of(name: info.name, vendor: info.vendor, version: info.version, capabilities: caps)
        let sourceChanged = described.doNotDisturb != traits?.doNotDisturb || (quietWatcher == nil) != (described.doNotDisturb == nil)
        traits = described
        guard serverHandlers.isSet else { return }
        serverHandlers.described(described)
        guard sourceChanged else { return }
        if let source = described.doNotDisturb {
            let label = described.label
            let handlers = serverHandlers
            quietWatcher = DesktopQuietWatcher(source: source) { on in handlers.quiet(on, "\(label): \(source.rawValue)") }
        } else {
            quietWatcher = nil
        }
    }

    /// The server left: what it was, and its do-not-disturb, are no longer known.
    private func forgetServer() {
        traits = nil
        if quietWatcher != nil { serverHandlers.quiet(nil, "") }
        quietWatcher = nil
    }

    /// Called (on the GLib thread) when the server that showed the popups leaves the bus or
    /// gives its name to another (they are forgotten first), when a notification server takes
    /// the name, and when the session bus connection closes for good. Called in order with the
    /// completions of `show`.
    public func onBusEvents(serverGone: @escaping @Sendable () -> Void, serverAppeared: @escaping @Sendable () -> Void,
                            busLost: @escaping @Sendable (String) -> Void) {
        busHandlers.set(serverGone: serverGone, serverAppeared: serverAppeared, busLost: busLost)
        glib.run { [self] in watchBus() }
    }

    /// Subscribes to NameOwnerChanged for org.freedesktop.Notifications and to the
    /// connection's "closed" signal, once a session bus can be reached.
    private func watchBus() {
        guard watchedConnection == nil else { return }
        var error: UnsafeMutablePointer<GError>? = nil
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            if let error { g_error_free(error) }
            return
        }
        watchedConnection = connection
        // GLib's default for the shared connection is to SIGTERM the process when it closes;
        // heraldd instead exits non-zero itself, so that systemd restarts it.
        g_dbus_connection_set_exit_on_close(connection, 0)
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = herald_watch_name_owner(connection, "org.freedesktop.Notifications", { _, _, _, _, _, parameters, data in
            let notifier = Unmanaged<LibNotifyNotifier>.fromOpaque(data!).takeUnretainedValue()
            let old = String(cString: herald_name_owner_changed_owner(parameters, 1))
            let new = String(cString: herald_name_owner_changed_owner(parameters, 2))
            notifier.capabilities = nil
            // A server that took a free name may have answered shows made before this signal was
            // heard (it was started by one of them): those popups are its own and are kept.
            if !old.isEmpty {
                notifier.forgetAllPopups()
                notifier.forgetServer()
                notifier.busHandlers.serverGone()
            }
            if !new.isEmpty {
                notifier.busHandlers.serverAppeared()
                if notifier.serverHandlers.isSet { notifier.describeServer() }
            }
        }, me)
        _ = herald_watch_notification_closed(connection, { _, _, _, _, _, parameters, data in
            let notifier = Unmanaged<LibNotifyNotifier>.fromOpaque(data!).takeUnretainedValue()
            var id: UInt32 = 0, reason: UInt32 = 0
            guard let parameters, herald_closed_signal(parameters, &id, &reason) != 0 else { return }
            notifier.heardClosing(id: Int32(bitPattern: id), reason: Int32(bitPattern: reason))
        }, me)
        _ = herald_connection_on_closed(connection, { _, _, error, data in
            let notifier = Unmanaged<LibNotifyNotifier>.fromOpaque(data!).takeUnretainedValue()
            let why = error.map { String(cString: $0.pointee.message) } ?? "the bus went away"
            notifier.busHandlers.busLost(why)
        }, me)
    }

    /// Reports logind's PrepareForSleep (true: going to sleep; false: resumed), on the GLib thread.
    public func onSleep(_ report: @escaping @Sendable (Bool) -> Void) {
        glib.run { [self] in
            logind?.watchSleep { [weak self] sleeping in
                self?.giveHeldAnswers()  // reports keep their order
                report(sleeping)
            }
        }
    }

    /// Button presses and closings are reported here, on the GLib thread.
    public func onEvent(_ handler: @escaping @Sendable (PopupEvent) -> Void) {
        actionHandler.set(handler)
    }

    /// Closes job `jobID`'s popup, if one is on screen (the server answers with reason 3).
    public func close(jobID: String) {
        glib.run { [self] in
            // After a show for the job still to come (or on a lane), the close waits for it: the
            // show was asked for first, and would otherwise bring the popup back.
            if let waiting = waitingShows.last(where: { $0.request.jobID == jobID }) ?? onLanes.first(where: { $0.prepared.request.jobID == jobID })?.waiting {
                waiting.closeWhenShown = true
            } else {
                popups.of(job: jobID)?.close()
            }
        }
    }

    /// The server's name, version and capabilities, or the error that prevents asking.
    public func serverInfo() -> Result<ServerInfo, NotifierError> {
        glib.sync { [self] in serverInfoOnGLibThread() }
    }

    // MARK: GLib thread only

    private func showOnGLibThread(_ request: NotificationRequest) -> Result<Void, NotifierError> {
        if capabilities == nil {
            let asked = DispatchTime.now().uptimeNanoseconds
            capabilities = serverCapabilities()
            if let caps = capabilities, case .success(let info) = serverIdentity() { adopt(info, capabilities: caps) }
            if capabilities == nil, let info = quickIdentity() {
                // It says what it is but not what it can do: its popups go out without buttons.
                adopt(info, capabilities: [])
            }
            if capabilities == nil {
                // No answer to GetCapabilities: trying Notify now would only wait as long again.
                let waited = DispatchTime.now().uptimeNanoseconds - asked
                var error: UnsafeMutablePointer<GError>? = nil
                guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
                    let message = error.map { String(cString: $0.pointee.message) } ?? "cannot connect"
                    if let error { g_error_free(error) }
                    return .failure(NotifierError(.noBus, detail: message))
                }
                g_object_unref(UnsafeMutableRawPointer(bus))
                // libnotify asks GetServerInformation before GetCapabilities: either may be the one.
                return .failure(waited > 20_000_000_000
                                ? NotifierError(.timeout, detail: "GetServerInformation or GetCapabilities: Timeout was reached")
                                : NotifierError(.noServer, detail: "GetServerInformation or GetCapabilities got no usable answer"))
            }
        }
        let prepared = prepare(request)
        var error: UnsafeMutablePointer<GError>? = nil
        let shown = notify_notification_show(prepared.popup.notification, &error) != 0
        return afterShow(prepared, shown: shown, error: error, keep: true)
    }

    /// Builds the libnotify object for `request` (a new one, or the job's popup on screen,
    /// updated in place), ready for its show.
    private func prepare(_ request: NotificationRequest) -> PreparedShow {
        // A server that draws fewer buttons gets the first ones; the body names the rest's commands.
        // (Its icon was checked before: `checkIcon`.)
        let request = request.fitted(maximumButtons: traits?.maximumButtons)
        let markup = capabilities?.contains("body-markup") ?? false
        let body = markup ? TextSafety.escapeMarkup(request.body) : request.body
        // One popup per job: a new one for a job still on screen updates it in place (libnotify
        // sends the id the server gave it as replaces_id), so nothing flickers or stacks.
        let replacing = popups.of(job: request.jobID)
        let popup = replacing ?? ShownPopup(notify_notification_new(request.summary, body, Self.iconReference(request.icon))!,
                                            jobID: request.jobID, occurrence: request.occurrence)
        let notification = popup.notification
        if replacing != nil {
            _ = notify_notification_update(notification, request.summary, body, Self.iconReference(request.icon))
            notify_notification_clear_actions(notification)
            notify_notification_clear_hints(notification)
        }
        if !request.actions.isEmpty && (capabilities?.contains("actions") ?? false) {
            addActions(request, drawsDefault: traits?.drawsDefaultAction ?? false, to: notification)
        }
        notify_notification_set_app_name(notification, NotificationRequest.appName)
        notify_notification_set_urgency(notification, Self.urgency(request.urgency))
        notify_notification_set_category(notification, request.category)
        notify_notification_set_timeout(notification, request.expiry.milliseconds)
        notify_notification_set_hint(notification, "desktop-entry", g_variant_new_string(NotificationRequest.desktopEntry))
        // A ringing popup's sound loops here, never on the server (which would play it once).
        let serverPlays = request.ringFor == nil && (traits?.playsSound ?? capabilities?.contains("sound") ?? false)
        switch request.sound {
        case .themed(let name)? where serverPlays: notify_notification_set_hint(notification, "sound-name", g_variant_new_string(name))
        // heraldd plays it: the server is told not to, so the sound is heard once.
        case .themed?: notify_notification_set_hint(notification, "suppress-sound", g_variant_new_boolean(1))
        // A file is played here, from a descriptor checked first (SoundPlayer), never handed
        // to the server as `sound-file`: the server would open the path unchecked.
        case .file?: notify_notification_set_hint(notification, "suppress-sound", g_variant_new_boolean(1))
        case nil: break
        }
        return PreparedShow(request: request, popup: popup, replacing: replacing, serverPlays: serverPlays)
    }

    /// Takes a show's answer: the popup kept (unless `keep` is false: its server has left) and
    /// its sound started, or the error told. Frees `error`.
    private func afterShow(_ prepared: PreparedShow, shown: Bool, error: UnsafeMutablePointer<GError>?, keep: Bool) -> Result<Void, NotifierError> {
        let (request, popup, replacing, serverPlays) = (prepared.request, prepared.popup, prepared.replacing, prepared.serverPlays)
        if shown && !keep { return .success(()) }
        if shown {
            popup.acted = false
            // A server that hands out an id still held by another of our popups has replaced
            // that one: it is let go, so the id's signals reach only the newest popup.
            let id = Int32(herald_notification_id(popup.notification))
            if let other = popups.of(serverID: id), other !== popup {
                actionHandler.call(.closed(jobID: other.jobID, occurrence: other.occurrence, .forRoom))
                popups.remove(other)
            }
            if replacing == nil {
                // One more than the server keeps per app: it closes the oldest it has, for room.
                if let limit = traits?.perAppLimit, popups.count >= limit { popups.live[popups.count - limit].pushedOut = true }
                keepAlive(popup)
            }
            popups.assign(popup, serverID: id)
            popups.assign(popup, job: request.jobID, occurrence: request.occurrence)
            // Most servers ignore the sound hints (dunst and mako decline to play them): a theme
            // sound is played here unless the server plays sounds; a file always is.
            popup.ringing?.end()
            popup.ringing = nil
            if request.ringFor != nil {
                let ringing = Ringing(sounds: sounds, loop: request.sound.map { sounds.startLoop($0, description: request.summary, jobID: request.jobID) })
                popup.ringing = ringing
                logind?.inhibitIdle(why: "An alarm is ringing") { fd in ringing.hold(inhibitor: fd) }
            } else if let sound = request.sound, sound.isFile || !serverPlays {
                sounds.play(sound, description: request.summary, jobID: request.jobID)
            }
            return .success(())
        }
        if let replacing { popups.remove(replacing) }  // a new one is released with `popup`
        capabilities = nil  // the server may come back different
        guard let error else { return .failure(NotifierError(.failed, detail: "unknown error")) }
        defer { g_error_free(error) }
        return .failure(Self.classify(error, busReachable: Self.sessionBusReachable()))
    }

    private func addActions(_ request: NotificationRequest, drawsDefault: Bool, to notification: UnsafeMutablePointer<NotifyNotification>) {
        for action in request.actions where !(drawsDefault && action == .body) {
            let target = ActionTarget(notifier: self, jobID: request.jobID, occurrence: request.occurrence)
            herald_add_action(notification, action.key, action.label, { notification, key, data in
                let target = Unmanaged<ActionTarget>.fromOpaque(data!).takeUnretainedValue()
                target.notifier?.actionInvoked(notification!, key: key.map { String(cString: $0) } ?? "", target: target)
            }, Unmanaged.passRetained(target).toOpaque(), { data in
                Unmanaged<ActionTarget>.fromOpaque(data!).release()
            })
        }
    }

    /// A button was pressed: close the popup, then report it.
    private func actionInvoked(_ notification: UnsafeMutablePointer<NotifyNotification>, key: String, target: ActionTarget) {
        // Reported once: GNOME Shell and its notification proxy each emit the signal.
        guard let popup = popups.of(notification), !popup.acted else { return }
        popup.acted = true
        popup.close()
        logger.debug("Notification button pressed", metadata: ["job.id": "\(target.jobID)", "action": "\(key)"])
        guard let action = PopupAction(key: key) else { return }
        actionHandler.call(.action(NotificationAction(jobID: target.jobID, occurrence: target.occurrence, action: action)))
    }

    /// A popup shown for the first time is kept until the server closes it (its closing is then heard).
    private func keepAlive(_ popup: ShownPopup) {
        popups.add(popup)
        _ = herald_signal_connect_closed(popup.notification, { notification, data in
            let notifier = Unmanaged<LibNotifyNotifier>.fromOpaque(data!).takeUnretainedValue()
            notifier.closed(notification!)
        }, Unmanaged.passUnretained(self).toOpaque())
        if popups.count > liveLimit { popups.remove(popups.live[0]) }
    }

    /// The server closed a popup: report how, then let it go once libnotify has finished
    /// emitting the signal (the object is kept until then).
    private func closed(_ notification: UnsafeMutablePointer<NotifyNotification>) {
        guard let popup = popups.of(notification) else { return }
        closed(popup, reasonCode: Int32(herald_notification_closed_reason(notification)))
    }

    private func closed(_ popup: ShownPopup, reasonCode: Int32) {
        var reason = CloseReason(code: reasonCode)
        if reason == .expired && popup.pushedOut { reason = .forRoom }
        popups.remove(popup)
        let held = PopupHandle(popup: popup)
        glib.run { _ = held }
        actionHandler.call(.closed(jobID: popup.jobID, occurrence: popup.occurrence, reason))
    }

    /// Every NotificationClosed on the bus: one for an id no popup holds, while shows are on
    /// lanes, may be for one of them (libnotify drops it), and is kept until they are answered.
    /// Any other is libnotify's to hand to its popup (`closed`).
    private func heardClosing(id: Int32, reason: Int32) {
        guard !onLanes.isEmpty, popups.of(serverID: id) == nil else { return }
        if earlyClosings.count >= Self.earlyClosingLimit { earlyClosings.removeFirst() }
        earlyClosings.append((id, reason, laneStarts))
    }

    /// The server that showed the popups is gone. The next numbers its popups from 1 again, so
    /// none is replaced in place (a stale replaces_id would replace another job's popup) and
    /// none is listened to (its signals would match the new server's ids): all are let go.
    private func forgetAllPopups() {
        popups.removeAll()
        serverTurn &+= 1
    }

    /// GetServerInformation asked directly, waiting 3 s at most; nil without a usable answer.
    private func quickIdentity() -> ServerInfo? {
        guard let bus = watchedConnection else { return nil }
        var error: UnsafeMutablePointer<GError>? = nil
        guard let reply = g_dbus_connection_call_sync(bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                                      "org.freedesktop.Notifications", "GetServerInformation", nil, nil,
                                                      G_DBUS_CALL_FLAGS_NO_AUTO_START, 3000, nil, &error) else {
            if let error { g_error_free(error) }
            return nil
        }
        defer { g_variant_unref(reply) }
        return ServerInfoReply.identity(reply)
    }

    /// The server's capabilities, or nil if it cannot be asked.
    private func serverCapabilities() -> Set<String>? {
        guard let list = notify_get_server_caps() else { return nil }
        var caps = Set<String>()
        var node: UnsafeMutablePointer<GList>? = list
        while let n = node {
            if let data = n.pointee.data { caps.insert(String(cString: data.assumingMemoryBound(to: CChar.self))) }
            node = n.pointee.next
        }
        g_list_free_full(list, g_free)
        return caps
    }

    /// The server's name, vendor, version and spec version (GetServerInformation), without capabilities.
    private func serverIdentity() -> Result<ServerInfo, NotifierError> {
        var name: UnsafeMutablePointer<CChar>? = nil, vendor: UnsafeMutablePointer<CChar>? = nil
        var version: UnsafeMutablePointer<CChar>? = nil, spec: UnsafeMutablePointer<CChar>? = nil
        guard notify_get_server_info(&name, &vendor, &version, &spec) != 0 else {
            return .failure(NotifierError(.noServer, detail: "GetServerInformation failed"))
        }
        func take(_ p: UnsafeMutablePointer<CChar>?) -> String {
            defer { g_free(p) }
            return p.map { String(cString: $0) } ?? ""
        }
        return .success(ServerInfo(name: take(name), vendor: take(vendor), version: take(version), specVersion: take(spec),
                                   capabilities: []))
    }

    private func serverInfoOnGLibThread() -> Result<ServerInfo, NotifierError> {
        serverIdentity().map { info in
            var info = info
            let caps = serverCapabilities() ?? []
            capabilities = caps
            info.capabilities = caps.sorted()
            return info
        }
    }

    static func urgency(_ u: Job.Urgency) -> NotifyUrgency {
        switch u {
        case .low: return NOTIFY_URGENCY_LOW
        case .normal: return NOTIFY_URGENCY_NORMAL
        case .critical: return NOTIFY_URGENCY_CRITICAL
        }
    }

    /// An icon name as is; an image path as a `file://` URI (the spec's app_icon forms).
    static func iconReference(_ icon: String?) -> String? {
        guard let icon, !icon.isEmpty else { return nil }
        return FileURI.from(path: icon) ?? icon
    }

    /// What went wrong, from a GError's domain and code; the detail is the error's message.
    /// GDBus turns the bus daemon's `org.freedesktop.DBus.Error.*` replies into G_DBUS_ERROR
    /// codes, so "no such service" and "no reply" arrive as codes, not as text to search.
    ///
    /// - Parameter busReachable: whether the session bus can be connected to now, asked only
    ///   when the code says nothing more specific: not finding the bus has no code of its own
    ///   (GIO's "Cannot autolaunch D-Bus without X11 $DISPLAY" is a plain G_IO_ERROR_FAILED).
    static func classify(_ error: UnsafePointer<GError>, busReachable: @autoclosure () -> Bool) -> NotifierError {
        let message = String(cString: error.pointee.message)
        let domain = error.pointee.domain
        let code = UInt32(bitPattern: error.pointee.code)
        var kind = NotifierError.Kind.failed
        if domain == g_dbus_error_quark() {
            switch GDBusError(rawValue: code) {
            case G_DBUS_ERROR_SERVICE_UNKNOWN, G_DBUS_ERROR_NAME_HAS_NO_OWNER: kind = .noServer
            case G_DBUS_ERROR_NO_REPLY, G_DBUS_ERROR_TIMEOUT, G_DBUS_ERROR_TIMED_OUT: kind = .timeout
            case G_DBUS_ERROR_NO_SERVER, G_DBUS_ERROR_DISCONNECTED: kind = .noBus
            default: break
            }
        } else if domain == g_io_error_quark() {
            switch GIOErrorEnum(rawValue: code) {
            case G_IO_ERROR_TIMED_OUT: kind = .timeout
            // The bus socket is missing or refuses us, or the connection closed.
            case G_IO_ERROR_NOT_FOUND, G_IO_ERROR_CONNECTION_REFUSED, G_IO_ERROR_CLOSED: kind = .noBus
            default: break
            }
        }
        if kind == .failed && !busReachable() { kind = .noBus }
        return NotifierError(kind, detail: message)
    }

    /// Whether the session bus can be connected to (g_bus_get_sync; GIO keeps the connection
    /// once made, so asking again costs nothing).
    static func sessionBusReachable() -> Bool {
        var error: UnsafeMutablePointer<GError>? = nil
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            if let error { g_error_free(error) }
            return false
        }
        g_object_unref(UnsafeMutableRawPointer(bus))
        return true
    }
}

/// A show handed to the GLib thread and not answered yet. GLib thread only (it crosses to a
/// lane and back inside `LaneShow` only to be handed on).
private final class WaitingShow: @unchecked Sendable {
    let request: NotificationRequest
    let queuedAt: UInt64
    let completion: @Sendable (Result<Void, NotifierError>) -> Void
    /// Its job's popup was asked to close after this show was asked for: closed once shown.
    var closeWhenShown = false
    init(request: NotificationRequest, queuedAt: UInt64, completion: @escaping @Sendable (Result<Void, NotifierError>) -> Void) {
        self.request = request; self.queuedAt = queuedAt; self.completion = completion
    }
}

/// A popup built for its show: the request as fitted to the server, the popup that owns the
/// libnotify object, the one on screen it updates (if any), and whether the server plays sounds.
private struct PreparedShow {
    let request: NotificationRequest
    let popup: ShownPopup
    let replacing: ShownPopup?
    let serverPlays: Bool
}

/// A show on a lane, kept in `onLanes` (GLib thread only); the lane has its number and the
/// object's pointer, never this record.
private struct LaneShow {
    let prepared: PreparedShow
    let waiting: WaitingShow
    let number: Int
    let serverTurn: Int
    var sameness: String { LibNotifyNotifier.sameness(waiting.request) }
}

/// What a button's callback needs to report the press.
private final class ActionTarget {
    weak var notifier: LibNotifyNotifier?
    let jobID: String
    let occurrence: Instant
    init(notifier: LibNotifyNotifier, jobID: String, occurrence: Instant) {
        self.notifier = notifier; self.jobID = jobID; self.occurrence = occurrence
    }
}

/// A popup handed back to the GLib thread, to be released there.
private struct PopupHandle: @unchecked Sendable {
    let popup: ShownPopup
}

/// The daemon's bus event handlers, set once from another thread.
private final class BusHandlersBox: Sendable {
    private let answers: HeldAnswers
    init(after answers: HeldAnswers) { self.answers = answers }
    private struct Handlers {
        var gone: (@Sendable () -> Void)?
        var appeared: (@Sendable () -> Void)?
        var lost: (@Sendable (String) -> Void)?
    }
    private let handlers = Mutex(Handlers())
    func set(serverGone: @escaping @Sendable () -> Void, serverAppeared: @escaping @Sendable () -> Void,
             busLost: @escaping @Sendable (String) -> Void) {
        handlers.withLock { $0 = Handlers(gone: serverGone, appeared: serverAppeared, lost: busLost) }
    }
    func serverGone() { answers.give(); handlers.withLock { $0.gone }?() }
    func serverAppeared() { answers.give(); handlers.withLock { $0.appeared }?() }
    func busLost(_ why: String) { answers.give(); handlers.withLock { $0.lost }?(why) }
}

/// One D-Bus method call to the notification server, answered on the calling thread's main
/// loop (the GLib thread): `completion` gets the reply, or nil for an error or no answer.
private final class AsyncCall {
    let completion: (OpaquePointer?) -> Void
    private init(_ completion: @escaping (OpaquePointer?) -> Void) { self.completion = completion }

    static func start(_ bus: OpaquePointer, _ method: String, timeoutMs: Int32, _ completion: @escaping (OpaquePointer?) -> Void) {
        let box = Unmanaged.passRetained(AsyncCall(completion)).toOpaque()
        g_dbus_connection_call(bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                               method, nil, nil, G_DBUS_CALL_FLAGS_NO_AUTO_START, timeoutMs, nil, { source, result, data in
            let call = Unmanaged<AsyncCall>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>? = nil
            let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
            if let error { g_error_free(error) }
            call.completion(reply)
            if let reply { g_variant_unref(reply) }
        }, box)
    }
}

/// What a server's answers say, read defensively (any program may own the name).
enum ServerInfoReply {
    static func identity(_ reply: OpaquePointer) -> ServerInfo? {
        guard String(cString: g_variant_get_type_string(reply)) == "(ssss)" else { return nil }
        func string(_ k: Int) -> String {
            let child = g_variant_get_child_value(reply, gsize(k))
            defer { g_variant_unref(child) }
            return String(cString: g_variant_get_string(child, nil))
        }
        return ServerInfo(name: string(0), vendor: string(1), version: string(2), specVersion: string(3), capabilities: [])
    }

    /// At most 256 capabilities are read.
    static func capabilities(_ reply: OpaquePointer) -> Set<String>? {
        guard String(cString: g_variant_get_type_string(reply)) == "(as)" else { return nil }
        let list = g_variant_get_child_value(reply, 0)
        defer { g_variant_unref(list) }
        var caps = Set<String>()
        for k in 0..<min(g_variant_n_children(list), 256) {
            let child = g_variant_get_child_value(list, k)
            caps.insert(String(String.UnicodeScalarView(String(cString: g_variant_get_string(child, nil)).unicodeScalars.prefix(64))))
            g_variant_unref(child)
        }
        return caps
    }
}

/// The daemon's server handlers, set once from another thread.
private final class ServerHandlersBox: Sendable {
    private let answers: HeldAnswers
    init(after answers: HeldAnswers) { self.answers = answers }
    private struct Handlers {
        var described: (@Sendable (ServerTraits) -> Void)?
        var quiet: (@Sendable (Bool?, String) -> Void)?
    }
    private let handlers = Mutex(Handlers())
    func set(described: @escaping @Sendable (ServerTraits) -> Void, quiet: @escaping @Sendable (Bool?, String) -> Void) {
        handlers.withLock { $0 = Handlers(described: described, quiet: quiet) }
    }
    var isSet: Bool { handlers.withLock { $0.described != nil } }
    func described(_ traits: ServerTraits) { answers.give(); handlers.withLock { $0.described }?(traits) }
    func quiet(_ on: Bool?, _ source: String) { answers.give(); handlers.withLock { $0.quiet }?(on, source) }
}

/// The daemon's popup event handler, set once from another thread.
private final class ActionHandlerBox: Sendable {
    private let answers: HeldAnswers
    init(after answers: HeldAnswers) { self.answers = answers }
    private let handler = Mutex<(@Sendable (PopupEvent) -> Void)?>(nil)
    func set(_ h: @escaping @Sendable (PopupEvent) -> Void) { handler.withLock { $0 = h } }
    func call(_ event: PopupEvent) { answers.give(); handler.withLock { $0 }?(event) }
}

/// Shows' answers held back in a burst (`LibNotifyNotifier.answer`). The handler boxes give
/// them before any other report. Given under the lock, so that they keep their order whichever
/// thread gives them: a completion must only hand its answer on, never call into the notifier.
private final class HeldAnswers: Sendable {
    typealias Completion = @Sendable (Result<Void, NotifierError>) -> Void
    private let held = Mutex<[(Completion, Result<Void, NotifierError>)]>([])

    /// Keeps one answer, and gives all unless `holding`. True when this one started a hold.
    func add(_ completion: @escaping Completion, _ result: Result<Void, NotifierError>, holding: Bool) -> Bool {
        held.withLock { answers in
            answers.append((completion, result))
            if !holding { Self.give(&answers) }
            return holding && answers.count == 1
        }
    }

    func give() { held.withLock { Self.give(&$0) } }

    private static func give(_ answers: inout [(Completion, Result<Void, NotifierError>)]) {
        for (completion, result) in answers { completion(result) }
        answers.removeAll(keepingCapacity: true)
    }
}
