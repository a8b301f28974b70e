import CCanberra
import Dispatch
import HeraldCore
import Logging
import Synchronization

/// Plays popup sounds through libcanberra on a serial queue of its own, so that nothing about
/// a sound (a file that cannot be read, a slow sound server: `ca_context_play` waits for the
/// stream to start) ever holds up the GLib thread and the popups behind it.
///
/// A sound file is opened and checked first (`SoundFile`) and libcanberra is handed
/// `/proc/self/fd/N` for it, so it reads the file that was checked; the descriptor stays open
/// until libcanberra reports the end of that sound. libcanberra locks its context around each
/// call, and here every call is on `queue` anyway; its finish callback, which may come on any
/// thread and must not call libcanberra, only hands the id back to `queue`.
final class SoundPlayer: @unchecked Sendable {
    private let queue = DispatchQueue(label: "herald.sound", qos: .userInitiated)
    private let logger: Logger
    // Touched only on `queue`.
    private var context: OpaquePointer?
    private var nextID: UInt32 = 1
    /// Files being played, by play id: closed when their sound ends.
    private var playing: [UInt32: SoundFile] = [:]
    private var unavailableLogged = false
    /// Sounds played again and again (a ringing alarm's), by token: the play under way, and
    /// when it started.
    private var loops: [UInt64: Loop] = [:]
    private struct Loop {
        var sound: Sound
        /// Played instead once `sound` fails (a theme name no theme has, a file gone): an alarm
        /// must not go silent over a typo.
        var fallback: Sound?
        var description: String
        var jobID: String
        var playing: UInt32?
        var startedAt: DispatchTime
    }
    private let nextLoop = Mutex<UInt64>(0)

    init(logger: Logger) { self.logger = logger }

    /// Plays `sound` later, on the sound queue; returns at once.
    func play(_ sound: Sound, description: String, jobID: String) {
        queue.async { [self] in _ = playOnQueue(sound, description: description, jobID: jobID) }
    }

    /// Plays `sound` again and again, each time it ends, until `stopLoop` with the token
    /// returned (at most once a second, however short the sound).
    func startLoop(_ sound: Sound, fallback: Sound? = .themed("alarm-clock-elapsed"), description: String, jobID: String) -> UInt64 {
        let token = nextLoop.withLock { $0 += 1; return $0 }
        queue.async { [self] in
            loops[token] = Loop(sound: sound, fallback: fallback == sound ? nil : fallback, description: description, jobID: jobID,
                                playing: nil, startedAt: .now())
            playLoop(token)
        }
        return token
    }

    /// Stops a loop at once: the sound playing now is cut off.
    func stopLoop(_ token: UInt64) {
        queue.async { [self] in
            guard let loop = loops.removeValue(forKey: token) else { return }
            if let id = loop.playing, let context { _ = ca_context_cancel(context, id) }
            logger.debug("Ringing stopped", metadata: ["job.id": "\(loop.jobID)"])
        }
    }

    private func playLoop(_ token: UInt64) {
        guard var loop = loops[token] else { return }
        loop.startedAt = .now()
        loop.playing = playOnQueue(loop.sound, description: loop.description, jobID: loop.jobID)
        if loop.playing == nil, let fallback = loop.fallback {
            loop.sound = fallback
            loop.fallback = nil
            loop.playing = playOnQueue(fallback, description: loop.description, jobID: loop.jobID)
        }
        // A sound that cannot be played ends the loop (it would fail the same way each time).
        if loop.playing == nil { loops[token] = nil } else { loops[token] = loop }
    }

    /// A play ended (sound queue): a loop's plays again, unless it was cut off or failed.
    private func ended(_ id: UInt32, code: Int32) {
        playing[id] = nil
        guard let (token, loop) = loops.first(where: { $0.value.playing == id }) else { return }
        guard code == 0 else {
            // Cut off (Stop) ends it; a sound that failed as it played gives way to the fallback.
            if code != -11 /* CA_ERROR_CANCELED */, let fallback = loop.fallback {
                loops[token]?.sound = fallback
                loops[token]?.fallback = nil
                loops[token]?.playing = nil
                return playLoop(token)
            }
            loops[token] = nil
            return
        }
        let soonest = loop.startedAt + .seconds(1)
        if DispatchTime.now() >= soonest { return playLoop(token) }
        loops[token]?.playing = nil
        queue.asyncAfter(deadline: soonest) { [self] in if loops[token] != nil, loops[token]?.playing == nil { playLoop(token) } }  // monotonic: a spacing between plays, nothing plays in suspend
    }

    /// Starts `sound` (sound queue); its play id, or nil when it could not start.
    private func playOnQueue(_ sound: Sound, description: String, jobID: String) -> UInt32? {
        var file: SoundFile?
        if case .file(let path) = sound {
            do throws(SoundFileError) { file = try SoundFile(path: path) } catch {
                // The reason at notice; the path (it may name the user) at debug only.
                logger.notice("Cannot play the popup's sound file", metadata: ["job.id": "\(jobID)", "error": "\(error.reason)"])
                logger.debug("Sound file refused", metadata: ["job.id": "\(jobID)", "path": "\(path)"])
                return nil
            }
        }
        guard let context = openContext() else { return nil }
        var list: OpaquePointer? = nil
        guard ca_proplist_create(&list) == 0, let list else { unavailable("cannot make a property list"); return nil }
        defer { ca_proplist_destroy(list) }
        switch sound {
        case .themed(let name): ca_proplist_sets(list, CA_PROP_EVENT_ID, name)
        case .file: ca_proplist_sets(list, CA_PROP_MEDIA_FILENAME, file!.procPath)
        }
        ca_proplist_sets(list, CA_PROP_EVENT_DESCRIPTION, description)
        ca_proplist_sets(list, CA_PROP_MEDIA_ROLE, "event")
        let id = nextID
        nextID = nextID == UInt32.max ? 1 : nextID + 1
        if let file { playing[id] = file }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let code = ca_context_play_full(context, id, list, { _, id, code, data in
            let player = Unmanaged<SoundPlayer>.fromOpaque(data!).takeUnretainedValue()
            player.queue.async { player.ended(id, code: code) }
        }, me)
        if code != 0 {
            // No finish callback follows a failed start: the file is closed here.
            playing[id] = nil
            unavailable(String(cString: ca_strerror(code)))
            return nil
        }
        return id
    }

    private func openContext() -> OpaquePointer? {
        if let context { return context }
        var made: OpaquePointer? = nil
        guard ca_context_create(&made) == 0, let made else {
            unavailable("cannot start libcanberra")
            return nil
        }
        _ = herald_canberra_set_app(made, NotificationRequest.appName, "herald", "herald")
        context = made
        return made
    }

    /// Once at notice (a machine without sound would say it at every popup), then at debug.
    private func unavailable(_ why: String) {
        let metadata: Logger.Metadata = ["error": "\(why)"]
        if unavailableLogged { logger.debug("Cannot play the popup's sound", metadata: metadata) } else {
            logger.notice("Cannot play the popup's sound", metadata: metadata)
            unavailableLogged = true
        }
    }
}
