import Foundation
import HeraldTestSupport
import Testing

/// A private PulseAudio server whose only sink is a null sink, recorded from its monitor: what
/// heraldd plays through libcanberra ends up in a WAV file that sox can measure. Its programs
/// are started with posix_spawn (`Spawned`) and reaped here: under Foundation's Process, a
/// `pactl` that had exited was once left unreaped and the wait for it never ended.
final class NullSinkRecorder {
    let directory: String
    let server: String
    private let pulse: Spawned
    private var recorder: Spawned?
    private var subscriber: Spawned?
    var wav: String { directory + "/recording.wav" }

    init(directory: String) throws {
        self.directory = directory + "/pulse"
        try FileManager.default.createDirectory(atPath: self.directory + "/runtime", withIntermediateDirectories: true)
        let socket = self.directory + "/native"
        server = "unix:" + socket
        try """
        load-module module-native-protocol-unix socket=\(socket) auth-anonymous=1
        load-module module-null-sink sink_name=herald_null
        set-default-sink herald_null
        """.write(toFile: self.directory + "/default.pa", atomically: true, encoding: .utf8)
        pulse = try Spawned.start("/usr/bin/pulseaudio", ["-n", "-F", self.directory + "/default.pa", "--daemonize=no",
                                                          "--exit-idle-time=-1", "--use-pid-file=no", "--disallow-exit"],
                                  environment: ["HOME": self.directory, "XDG_RUNTIME_DIR": self.directory + "/runtime", "PATH": "/usr/bin:/bin"],
                                  outputPath: self.directory + "/pulseaudio.log")
        guard waitUntil(timeout: 15, { FileManager.default.fileExists(atPath: socket) && (try? self.pactl("info").status) == 0 }) else {
            throw SetupError("PulseAudio did not start: \((try? String(contentsOfFile: self.directory + "/pulseaudio.log", encoding: .utf8)) ?? "")")
        }
    }

    /// Runs a program to its end; its status and output (errors included).
    func run(_ path: String, _ arguments: [String]) throws -> CommandResult {
        let output = directory + "/run-\(UUID().uuidString.prefix(8)).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let child = try Spawned.start(path, arguments, environment: environment, outputPath: output)
        guard waitUntil(timeout: 30, { child.poll() != nil }) else {
            child.signal(SIGKILL)
            child.wait()
            throw SetupError("timed out: \(path) \(arguments)")
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return CommandResult(status: child.wait(), stdout: text, stderr: text)
    }

    var environment: [String: String] { ["PULSE_SERVER": server, "PATH": "/usr/bin:/bin", "HOME": directory] }

    func pactl(_ arguments: String...) throws -> CommandResult { try run("/usr/bin/pactl", arguments) }

    /// Starts recording the null sink's monitor.
    func record() throws {
        recorder = try Spawned.start("/usr/bin/parecord", ["--device=herald_null.monitor", "--file-format=wav", wav],
                                     environment: environment, outputPath: directory + "/parecord.log")
        guard waitUntil({ (try? self.pactl("list", "short", "source-outputs").stdout.isEmpty) == false }) else {
            throw SetupError("parecord did not start recording")
        }
    }

    /// Counts the streams (sink inputs) made from now on: `pactl subscribe` reports each.
    func countStreams() throws {
        subscriber = try Spawned.start("/usr/bin/pactl", ["subscribe"], environment: environment, outputPath: directory + "/subscribe.log")
        // It prints nothing until an event: a stream of our own, made and gone, shows it listens.
        guard waitUntil(timeout: 10, {
            _ = try? self.run("/usr/bin/pactl", ["upload-sample", "/usr/share/sounds/freedesktop/stereo/bell.oga", "probe"])
            return ((try? String(contentsOfFile: self.directory + "/subscribe.log", encoding: .utf8)) ?? "").contains("sample-cache")
        }) else { throw SetupError("pactl subscribe reported nothing") }
    }

    /// Streams made since `countStreams()`.
    var newStreams: Int {
        let text = (try? String(contentsOfFile: directory + "/subscribe.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains("'new' on sink-input") }.count
    }

    /// Whether an application named `name` is playing into the server now.
    func isPlaying(_ name: String) -> Bool {
        ((try? pactl("list", "sink-inputs").stdout) ?? "").contains("application.name = \"\(name)\"")
    }

    /// Stops recording; sox's RMS amplitude of what was recorded.
    func stopAndMeasure() throws -> Double {
        recorder?.signal(SIGINT)
        recorder?.wait()
        let stat = try run("/usr/bin/sox", [wav, "-n", "stat"])
        guard let line = stat.stderr.split(separator: "\n").first(where: { $0.hasPrefix("RMS     amplitude:") }),
              let value = Double(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) else {
            throw SetupError("sox could not measure \(wav): \(stat.stderr)")
        }
        return value
    }

    func stop() {
        subscriber?.signal(SIGTERM)
        subscriber?.wait()
        recorder?.signal(SIGINT)
        recorder?.wait()
        pulse.signal(SIGTERM)
        pulse.wait()
    }
}

@Suite(.serialized)
struct SoundEndToEndTests {
    /// heraldd running against a null sink being recorded, on a server without `sound`.
    func recordedScene() throws -> (Scene, NullSinkRecorder) {
        let scene = try Scene(capabilities: "body body-markup actions icon-static")
        let pulse = try NullSinkRecorder(directory: scene.directory)
        scene.extraEnvironment["PULSE_SERVER"] = pulse.server
        do {
            try scene.startDaemon()
            try pulse.record()
        } catch {
            pulse.stop()
            throw error
        }
        return (scene, pulse)
    }

    /// The server (dbusmock) does not list `sound`, so heraldd plays the timer's sound itself
    /// through libcanberra: recorded from a null sink, it is not silent.
    @Test func aTimerRingsThroughLibcanberraWhenTheServerCannotPlaySounds() throws {
        let (scene, pulse) = try recordedScene()
        defer { pulse.stop() }
        #expect(try scene.herald("timer", "1s", "Eggs").status == 0)
        let shown = try #require(scene.server!.waitForNotifications(1).first)
        // Played here, so the server is told to play nothing: heard once.
        #expect(shown.hints["sound-name"] == nil && shown.hints["suppress-sound"] != nil)
        // heraldd's stream comes and goes (the theme's alarm lasts a few seconds).
        #expect(waitUntil(timeout: 10) { pulse.isPlaying("Herald") })
        #expect(waitUntil(timeout: 30) { !pulse.isPlaying("Herald") })
        let rms = try pulse.stopAndMeasure()
        #expect(rms > 0.01, "RMS amplitude \(rms)")
    }

    /// A sound file is played from the descriptor heraldd opened and checked: libcanberra
    /// reads `/proc/self/fd/N`, never the path again, and the file is closed once it played.
    @Test func aSoundFilePlaysFromTheDescriptorThatWasChecked() throws {
        let (scene, pulse) = try recordedScene()
        defer { pulse.stop() }
        let sound = scene.directory + "/kettle.oga"
        try FileManager.default.copyItem(atPath: "/usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga", toPath: sound)
        #expect(try scene.herald("remind", "--in", "1s", "--sound", sound, "Kettle").status == 0)
        let shown = try #require(scene.server!.waitForNotifications(1).first)
        #expect(shown.hints["sound-file"] == nil)  // the server is not asked to open the path
        #expect(waitUntil(timeout: 10) { pulse.isPlaying("Herald") })
        #expect(try pulse.pactl("list", "sink-inputs").stdout.contains("media.filename = \"/proc/self/fd/"))
        #expect(waitUntil(timeout: 30) { !pulse.isPlaying("Herald") })
        let pid = try #require(scene.daemon).pid
        func heralddHasItOpen() -> Bool {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == sound }
        }
        #expect(waitUntil { !heralddHasItOpen() })
        let rms = try pulse.stopAndMeasure()
        #expect(rms > 0.01, "RMS amplitude \(rms)")
    }

    /// A silent job plays nothing, and a reminder is silent by default.
    @Test func silentPopupsPlayNothing() throws {
        let (scene, pulse) = try recordedScene()
        defer { pulse.stop() }
        #expect(try scene.herald("timer", "1s", "--silent", "Quiet eggs").status == 0)
        #expect(try scene.herald("remind", "--in", "1s", "Plain reminder").status == 0)
        let shown = try scene.server!.waitForNotifications(2)
        #expect(shown.allSatisfy { $0.hints["sound-name"] == nil })
        // Then a sound marks the end: everything before it was heard by now.
        #expect(try scene.herald("remind", "--in", "1s", "--sound", "bell", "Marker").status == 0)
        _ = try scene.server!.waitForNotifications(3)
        #expect(waitUntil(timeout: 10) { pulse.isPlaying("Herald") })
        let inputs = try pulse.pactl("list", "sink-inputs").stdout
        #expect(inputs.components(separatedBy: "application.name = \"Herald\"").count == 2)  // only the marker
        #expect(scene.daemon!.log.contains("Cannot play") == false)
    }
}
