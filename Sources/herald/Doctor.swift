import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import HeraldCore

extension Herald {
    struct Doctor: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract: "Check the set-up: bus, notification server, spool, config, daemon, systemd unit, time zone.",
            discussion: """
                One line per check, ✓ or ✗, and for each ✗ what to do about it. The bus and the \
                notification server are asked by 'heraldd --probe' (heraldd next to herald, or on \
                PATH), which waits at most 3 s for an answer.

                Exit status: 0 when every check passes, 1 otherwise.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON ({ok, checks: [{name, ok, detail, fix}]}) for scripts.")
        var json = false

        func run() throws {
            let checks = DoctorChecks(global: global).run()
            let ok = checks.allSatisfy(\.ok)
            if json {
                say(JSONWriter.render(.object([
                    ("ok", .bool(ok)),
                    ("checks", .array(checks.map { c in
                        .object([("name", .string(c.name)), ("ok", .bool(c.ok)), ("detail", .string(c.detail)),
                                 ("fix", c.fix.map { .string($0) } ?? .null)])
                    })),
                ]), pretty: true))
            } else {
                let rows = checks.map { c in [c.ok ? "✓" : "✗", c.name, c.detail + (c.fix.map { " → fix: " + $0 } ?? "")] }
                sayStyled(Table.render(rows) { row, column, _ in column == 0 ? (checks[row].ok ? .green : .red) : nil })
                let failed = checks.filter { !$0.ok }.count
                say(failed == 0 ? "All \(checks.count) checks passed." : "\(failed) of \(checks.count) checks failed.")
            }
            if !ok { throw ExitCode(1) }
        }
    }
}

/// One line of `herald doctor`.
struct DoctorCheck {
    var name: String
    var ok: Bool
    var detail: String
    var fix: String?

    static func pass(_ name: String, _ detail: String) -> DoctorCheck { DoctorCheck(name: name, ok: true, detail: detail) }
    static func fail(_ name: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, ok: false, detail: detail, fix: fix)
    }
}

/// The checks themselves. Nothing here throws: a broken set-up is what `doctor` is for.
struct DoctorChecks {
    let global: GlobalOptions
    let environment = HeraldCore.Environment.current()
    var home: String { environment["HOME"] ?? "" }
    /// How this herald was installed, for hints that name the right commands.
    var installation: Installation {
        guard let exe = Self.ownExecutable() else { return .build }
        // The package's herald is /usr/bin/herald beside its copyright file, which every Debian
        // package ships and `make install` never writes (dpkg's database is dpkg's own).
        let packaged = exe == "/usr/bin/herald" && FileSystem.exists("/usr/share/doc/herald/copyright", followLinks: true)
        return Installation.classify(executable: exe, packaged: packaged) { FileSystem.exists($0 + "/share/herald", followLinks: true) }
    }

    func run() -> [DoctorCheck] {
        let resolved = Resolution.resolve(spool: global.spool, config: global.config, environment: environment)
        let (busCheck, serverCheck) = checkBusAndServer()
        var checks = [busCheck, serverCheck, checkSpool(resolved.spool), checkConfig(resolved), checkDaemon(resolved.spool),
                      checkUnit(), checkTimeZone()]
        // Only with sync.calendar: without it, nothing about syncing is asked or said.
        if let collection = resolved.config.syncCalendar {
            let v = SyncHealth.read(collection, environment: environment, within: 2).verdict(now: Instant(microseconds: Int64(time(nil)) * 1_000_000))
            checks.append(v.ok ? .pass("synced calendar", v.detail) : .fail("synced calendar", v.detail, fix: v.fix ?? ""))
        }
        checks += checkCalendars(resolved.spool)
        if let wake = checkWake(resolved.spool) { checks.append(wake) }
        checks.append(checkCommands(resolved))
        return checks
    }

    /// Whether run jobs run (`commands`), and that herald-runner is there to run them.
    func checkCommands(_ resolved: Resolution) -> DoctorCheck {
        guard resolved.config.commands.enabled else {
            return .pass("commands", "off (commands: off in the config): run jobs are refused, and those pending are skipped")
        }
        guard let runner = installedHelper("herald-runner").found else {
            return .fail("commands", "on, but herald-runner is not installed beside herald: run jobs fail when due",
                         fix: "reinstall herald (the package and 'make install' put it in lib/herald)")
        }
        return .pass("commands", "on: run jobs run through \(runner), output kept up to \(resolved.config.commands.maxOutput) bytes a run")
    }

    // MARK: config

    func checkConfig(_ resolved: Resolution) -> DoctorCheck {
        if let error = resolved.configError {
            return .fail("config", "\(error)", fix: "correct the file (every key is described in \(installation.exampleConfig))")
        }
        let path = resolved.configPath
        return .pass("config", FileSystem.exists(path, followLinks: true) ? "\(path) parses" : "no file at \(path): the defaults apply")
    }

    // MARK: spool

    func checkSpool(_ spool: Spool) -> DoctorCheck {
        var st = stat()
        guard stat(spool.root, &st) == 0 else {
            return .fail("spool", "\(spool.root) does not exist yet", fix: "start heraldd, or schedule a job: either creates it")
        }
        do {
            let complete = try spool.checkPermissions()
            let mode = String(st.st_mode & 0o7777, radix: 8)
            if !complete {
                return .fail("spool", "\(spool.root) lacks some of its directories (new/, jobs/, ...)",
                             fix: "start heraldd: it creates them")
            }
            return .pass("spool", "\(spool.root) (mode 0\(mode), owned by you)")
        } catch {
            let text = error.description
            let fix = text.includes("chmod") ? "chmod 700 the directory named" :
                text.includes("owned by") ? "chown it to yourself, or use a spool of your own (--spool, HERALD_SPOOL)" :
                "move the thing in the way and let heraldd create the spool"
            let detail = text.prefix(upTo: ": run chmod")
            return .fail("spool", detail, fix: text.includes("chmod") ? "chmod 700 '\(Self.quotedPath(in: text) ?? spool.root)'" : fix)
        }
    }

    /// The first '...'-quoted path in a message.
    static func quotedPath(in text: String) -> String? {
        let parts = text.split(separator: "'", omittingEmptySubsequences: false)
        return parts.count >= 3 ? String(parts[1]) : nil
    }

    // MARK: bus and server

    func checkBusAndServer() -> (DoctorCheck, DoctorCheck) {
        let address = environment["DBUS_SESSION_BUS_ADDRESS"] ?? ""
        guard let heraldd = Self.findHeraldd(environment: environment) else {
            let fix = "install heraldd next to herald or on PATH (\(installation.reinstall(home: home)))"
            return (.fail("session bus", "cannot check: heraldd not found", fix: fix),
                    .fail("notification server", "cannot check: heraldd not found", fix: fix))
        }
        let output = Self.probe(heraldd, timeout: .seconds(15))
        guard let output, let answer = ProbeAnswer(json: Array(output.utf8)) else {
            let why = output == nil ? "heraldd --probe did not finish" : "heraldd --probe printed something unexpected"
            let fix = "run '\(heraldd) --probe' to see what it says"
            return (.fail("session bus", why, fix: fix), .fail("notification server", why, fix: fix))
        }
        if let busError = answer.busError {
            let detail = address.isEmpty ? "DBUS_SESSION_BUS_ADDRESS is not set" : "cannot connect to \(address): \(busError)"
            let fix = address.isEmpty ? "run herald from your desktop session (or export DBUS_SESSION_BUS_ADDRESS=unix:path=$XDG_RUNTIME_DIR/bus)"
                                      : "log in to a desktop session, or point DBUS_SESSION_BUS_ADDRESS at a running bus"
            return (.fail("session bus", detail, fix: fix), .fail("notification server", "cannot check without a session bus", fix: "fix the session bus first"))
        }
        let bus = DoctorCheck.pass("session bus", address.isEmpty ? "reachable" : "reachable at \(address)")
        guard let server = answer.server else {
            return (bus, .fail("notification server", answer.serverError ?? "no answer",
                               fix: "start a notification daemon (your desktop's, or dunst, mako, xfce4-notifyd); popups wait until one runs"))
        }
        let caps = server.capabilities
        func has(_ cap: String) -> String { "\(cap) \(caps.contains(cap) ? "yes" : "no")" }
        var detail = [server.name, server.version].filter { !$0.isEmpty }.joined(separator: " ")
        if !server.vendor.isEmpty, server.vendor != server.name { detail += " (\(server.vendor))" }
        if !server.specVersion.isEmpty { detail += ", spec \(server.specVersion)" }
        detail += "; \(has("actions")), \(has("body-markup"))"
        if !caps.contains("actions") { detail += " (habit popups show no Done/Snooze buttons)" }
        if let err = answer.serverError {
            return (bus, .fail("notification server", detail + "; " + err, fix: "restart the notification daemon"))
        }
        return (bus, .pass("notification server", detail))
    }

    /// What `heraldd --probe` printed (its stderr passes through), or nil when it could not be
    /// run, printed more than a MiB, or did not finish within `timeout`, after which it is killed.
    static func probe(_ heraldd: String, timeout: Duration) -> String? {
        let (seconds, attoseconds) = timeout.components
        let milliseconds = Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        guard let run = try? ChildProcess.collect(heraldd, ["--probe"], limit: 1 << 20, timeout: milliseconds),
              !run.timedOut, !run.overLimit else { return nil }
        return String(decoding: run.standardOutput, as: UTF8.self)
    }

    /// The running herald's own path.
    static func ownExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// heraldd next to this herald (as installed, or in the build directory), else on PATH.
    static func findHeraldd(environment: HeraldCore.Environment) -> String? {
        var candidates: [String] = []
        if let own = ownExecutable(), let slash = own.lastIndex(of: "/") { candidates.append(String(own[..<slash]) + "/heraldd") }
        for dir in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !dir.isEmpty {
            candidates.append(String(dir) + "/heraldd")
        }
        return candidates.first { access($0, X_OK) == 0 }
    }

    // MARK: daemon

    func checkDaemon(_ spool: Spool) -> DoctorCheck {
        guard let pid = SpoolLock.runningDaemon(spool) else {
            return .fail("daemon", "heraldd is not running on \(spool.root)",
                         fix: "systemctl --user enable --now heraldd (or run heraldd in a terminal)")
        }
        let status = (try? FileSystem.read(spool.statusPath, limit: 1 << 20)).flatMap { DaemonStatus(json: $0) }
        guard let status else { return .pass("daemon", "heraldd runs (pid \(pid)); it has not reported its version yet") }
        if status.version != HeraldVersion.string {
            return .fail("daemon", "heraldd \(status.version) runs (pid \(pid)), but this herald is \(HeraldVersion.string)",
                         fix: "systemctl --user restart heraldd")
        }
        var detail = "heraldd \(status.version) runs (pid \(pid), \(status.notifier) notifier)"
        if let error = status.lastError {
            detail += "; notifications failing: \(error)"
            return .fail("daemon", detail, fix: "see the notification server check; 'journalctl --user -u heraldd' has the details")
        }
        return .pass("daemon", detail)
    }

    /// Whether alarms can wake the machine from suspend (heraldd says in status.json).
    func checkWake(_ spool: Spool) -> DoctorCheck? {
        guard SpoolLock.runningDaemon(spool) != nil,
              let status = (try? FileSystem.read(spool.statusPath, limit: 1 << 20)).flatMap({ DaemonStatus(json: $0) }),
              let line = status.wakeLine else { return nil }
        guard status.wakeHolder != nil else {
            // A failure only when a job needs it; else a note with the fix.
            if status.wakeAt != nil { return .fail("wake from suspend", line, fix: DaemonStatus.wakeFix(helper: installedHelper("herald-wake").found ?? "/usr/lib/herald/herald-wake")) }
            return .pass("wake from suspend", line + " (no pending alarm needs it; to make it available: " + DaemonStatus.wakeFix(helper: installedHelper("herald-wake").found ?? "/usr/lib/herald/herald-wake") + ")")
        }
        return .pass("wake from suspend", line)
    }

    /// Each calendar source as heraldd last planned it: over its share, unreadable, or not answering.
    func checkCalendars(_ spool: Spool) -> [DoctorCheck] {
        guard SpoolLock.runningDaemon(spool) != nil,
              let status = (try? FileSystem.read(spool.statusPath, limit: 1 << 20)).flatMap({ DaemonStatus(json: $0) }) else { return [] }
        let now = Instant(microseconds: Int64(time(nil)) * 1_000_000)
        return status.calendars.map { c in
            let shown = !home.isEmpty && c.source.hasPrefix(home + "/") ? "~" + c.source.dropFirst(home.count) : c.source
            let line = c.line(shownAs: shown, now: now)
            guard c.needsAttention else { return .pass("calendar", line) }
            let fix: String
            if c.notAnsweringSince != nil || c.unreadable != nil {
                fix = "check the folder's mount or disk; heraldd reads it again when it answers"
            } else if c.overShare > 0 {
                fix = "see who fills that calendar ('herald calendar check \(shown)'); to plan more of it, raise calendars.limit (now \(c.share) at most per source) or limits.jobs"
            } else {
                fix = "cancel jobs you no longer need, or raise limits.jobs"
            }
            return .fail("calendar", line, fix: fix)
        }
    }

    // MARK: systemd

    func checkUnit() -> DoctorCheck {
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        // systemd's user unit search path, most specific first (systemd.unit(5)).
        let configDirs = [configHome + "/systemd/user", "/etc/systemd/user"]
        let unitDirs = configDirs + [dataHome + "/systemd/user", "/usr/local/share/systemd/user", "/usr/share/systemd/user",
                                     "/usr/local/lib/systemd/user", "/usr/lib/systemd/user"]
        let unit = "heraldd.service"
        guard let found = unitDirs.map({ $0 + "/" + unit }).first(where: { FileSystem.exists($0, followLinks: true) }) else {
            return .fail("systemd unit", "\(unit) is not installed", fix: "\(installation.reinstall(home: home)), then systemctl --user daemon-reload && systemctl --user enable --now heraldd")
        }
        var enabledBy: String?
        for dir in configDirs {
            guard let entries = try? FileSystem.list(dir) else { continue }
            for wants in entries.sorted() where wants.hasSuffix(".wants") || wants.hasSuffix(".requires") {
                if FileSystem.exists(dir + "/" + wants + "/" + unit, followLinks: false) {
                    enabledBy = String(wants.dropLast(wants.hasSuffix(".wants") ? 6 : 9))
                    break
                }
            }
            if enabledBy != nil { break }
        }
        guard let enabledBy else {
            return .fail("systemd unit", "\(found) is installed but not enabled", fix: "systemctl --user enable --now heraldd")
        }
        return .pass("systemd unit", "\(found), enabled (wanted by \(enabledBy))")
    }

    // MARK: time zone

    func checkTimeZone() -> DoctorCheck {
        if let tz = environment["TZ"] {
            var name = tz
            if name.hasPrefix(":") { name.removeFirst() }
            if name.isEmpty { return .pass("time zone", "UTC (TZ is empty)") }
            if (try? TimeZoneRules.named(name)) != nil { return .pass("time zone", "\(name) (from TZ)") }
            if TimeZoneRules(posix: name) != nil { return .pass("time zone", "'\(name)' (a POSIX rule from TZ; no daylight-saving history)") }
            return .fail("time zone", "TZ='\(tz)' names no zone in /usr/share/zoneinfo, so times are read as UTC",
                         fix: "unset TZ, or set it to a zone such as Europe/Berlin (see timedatectl list-timezones)")
        }
        guard FileSystem.exists("/etc/localtime", followLinks: true) else {
            return .fail("time zone", "/etc/localtime is missing, so times are read as UTC",
                         fix: "timedatectl set-timezone ZONE (or install tzdata)")
        }
        let zone = TimeZoneRules.local(environment: environment)
        let now = Instant(microseconds: Int64(time(nil)) * 1_000_000)
        let offset = zone.offset(at: now)
        let sign = offset < 0 ? "-" : "+"
        let hm = abs(offset) / 60
        let text = "\(sign)\(hm / 60 < 10 ? "0" : "")\(hm / 60):\(hm % 60 < 10 ? "0" : "")\(hm % 60)"
        return .pass("time zone", "\(zone.identifier) (UTC\(text) now, from /etc/localtime)")
    }
}
