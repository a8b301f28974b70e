import ArgumentParser
import HeraldCore

extension Herald {
    struct AlarmCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alarm",
            abstract: "Set an alarm clock: it wakes the machine from suspend and rings until you stop it.",
            discussion: """
                TIME is a time as you would say it (07:00, 6:30am, 'tomorrow 6:30', 'fri 9am'; \
                see 'herald when'): the next such time. With --every, TIME is the time of day \
                on those days ("Mon..Fri", "Sat,Sun", "daily"), or --every is a whole calendar \
                expression ('Mon..Fri 07:00') and TIME is left out.

                At its time the alarm wakes the machine from suspend (alarms.wakeAhead before, \
                so the session is back), shows a critical popup with Stop and Snooze \
                (alarms.snooze, default 10 min) and plays its sound again and again until \
                Stop, Snooze, 'herald ack ID' or alarms.ringFor (default 10 min). Unanswered, \
                it is recorded 'unanswered' and snoozes itself, alarms.autoSnooze times \
                (default 3). It rings in quiet hours and the desktop's do-not-disturb \
                (alarms.duringQuiet: hold to hold it like any popup). While it rings the \
                screen does not blank.

                Waking from suspend needs CAP_WAKE_ALARM (see 'herald doctor' and the README, \
                "Alarms"); without it the alarm still rings once the machine is awake, and \
                herald says so when you set it.

                Examples:
                  herald alarm 07:00 Wake up
                  herald alarm 06:30 --every Mon..Fri Work
                  herald alarm --in 20m Nap is over
                  herald alarm --every 'Sat,Sun 09:00' --sound /home/me/birds.ogg Weekend
                """)

        @OptionGroup var global: GlobalOptions

        @Option(name: .customLong("in"), help: ArgumentHelp("Ring after this span from now: 20m, 1h 30min.", valueName: "span"))
        var inSpan: String?

        @Option(help: ArgumentHelp("Ring on these days at TIME (Mon..Fri, Sat,Sun, daily), or on a whole calendar expression ('Mon..Fri 07:00').", valueName: "days"))
        var every: String?

        @Option(help: ArgumentHelp("The sound it rings with: a sound-theme name or an absolute file path (default: popups.sound.alarm, alarm-clock-elapsed).", valueName: "sound"))
        var sound: String?

        @Option(help: ArgumentHelp("The job's id (default: a random one).", valueName: "id"))
        var id: String?

        @OptionGroup var syncing: SyncOptions

        @Argument(help: ArgumentHelp("When, then a label: 07:00 Wake up.", valueName: "time-and-label"))
        var words: [String] = []

        func run() throws {
            let ctx = try CLIContext.load(global)
            let jobID = try PopupOptions.jobID(id, ctx)
            let soundValue = try SoundOptions.value(sound: sound, silent: false)
            if let name = soundValue, !name.hasPrefix("/"), !Self.themeHasSound(name) {
                warn("note: no installed sound theme has a sound named '\(name)'; if it cannot be played, the alarm rings with alarm-clock-elapsed")
            }
            var words = self.words
            // The time comes first unless --in or a whole --every expression says when: the
            // longest run of leading words (up to 3) that reads as one ("6:30 pm", "tomorrow
            // 6:30", "fri 9am"), so that no part of it is taken for the label.
            let everyHasTime = every.map { Self.hasTimeOfDay($0) } ?? false
            var timeWord: String?
            var due: Instant?
            if inSpan == nil && !everyHasTime && !words.isEmpty {
                if every == nil {
                    for k in stride(from: min(3, words.count), through: 1, by: -1) {
                        let text = words[0..<k].joined(separator: " ")
                        if let meaning = try? TimePhrase.parse(text, now: ctx.now, zone: ctx.zone) {
                            (timeWord, due) = (text, meaning.instant)
                            words.removeFirst(k)
                            break
                        }
                    }
                    if timeWord == nil { _ = try ctx.phrase(words[0], option: "TIME") }  // says why the first word is no time
                } else {
                    let twoWords = words.count > 1 && ["am", "pm"].contains(words[1].lowercased())
                    timeWord = twoWords ? words[0] + words[1] : words[0]
                    words.removeFirst(twoWords ? 2 : 1)
                }
            } else if let first = words.first, Self.clockTime(first) != nil {
                throw CLIError.usage(inSpan != nil ? "'\(first)' looks like a time, and --in says when already: give one of them"
                                                   : "the time is given twice: --every '\(every ?? "")' names one, and '\(first)'")
            }
            let label = words.joined(separator: " ").trimmingSpaces
            var job = Job(kind: .alarm, id: jobID, title: label.isEmpty ? nil : label, icon: "alarm-symbolic", sound: soundValue)
            if let every {
                if inSpan != nil { throw CLIError.usage("--in does not go with --every: give the time of day, as in 'herald alarm 07:00 --every Mon..Fri'") }
                let expression: String
                if everyHasTime {
                    expression = every
                } else {
                    guard let timeWord else { throw CLIError.usage("say at what time: 'herald alarm 07:00 --every \(every)'") }
                    guard let clock = Self.clockTime(timeWord) else {
                        throw CLIError.usage("TIME: '\(timeWord)' is not a time of day such as 07:00 or 6:30am (with --every it is the time on those days)")
                    }
                    expression = Self.days(every) + " " + clock
                }
                _ = try ctx.calendar(expression, option: "--every")
                job.every = [expression]
                job.resolveZones()
                guard let first = try JobSchedule(job, localZone: ctx.zone).first(now: ctx.now) else {
                    throw CLIError.data("--every: '\(expression)' never elapses after now")
                }
                let synced = try ctx.place(job, sync: try syncing.choice())
                say("Alarm \(jobID): \(expression), first \(ctx.when(first))" + ctx.syncedNote(synced))
            } else {
                if timeWord == nil && inSpan == nil { throw CLIError.usage("say when: 'herald alarm 07:00 [LABEL]' or 'herald alarm --in 20m [LABEL]'") }
                let due = try due ?? WhenOptions.resolve(at: nil, inSpan: inSpan, ctx)
                guard due <= Job.latestInstant else { throw CLIError.usage("TIME: '\(timeWord ?? "")' is after 9999-12-30, the latest time a job may have") }
                guard due > ctx.now else { throw CLIError.usage("TIME: \(ISO8601.format(due, in: ctx.zone)) is in the past") }
                job.at = due
                job.timezone = ctx.zone.identifierForJobs
                let synced = try ctx.place(job, sync: try syncing.choice())
                say("Alarm \(jobID): \(ctx.when(due))" + ctx.syncedNote(synced))
            }
            if let problem = Self.wakeProblem(ctx) {
                warn("note: this alarm will not wake a sleeping machine (\(problem)); it rings once the machine is awake. To fix: \(DaemonStatus.wakeFix(helper: installedHelper("herald-wake").found ?? "/usr/lib/herald/herald-wake"))")
            }
        }

        /// Whether a freedesktop sound theme under /usr/share/sounds (or ~/.local/share/sounds)
        /// has `name` (`.oga`, `.ogg` or `.wav`, in any of its folders).
        static func themeHasSound(_ name: String) -> Bool {
            let home = Environment.current()["HOME"] ?? ""
            // A folder that cannot be listed holds no sound we could find: it is skipped.
            for root in ["/usr/share/sounds", "/usr/local/share/sounds", home + "/.local/share/sounds"] {
                guard let themes = try? FileSystem.list(root) else { continue }
                for theme in themes {
                    guard let folders = try? FileSystem.list(root + "/" + theme) else { continue }
                    for folder in folders + [""] {
                        let base = root + "/" + theme + (folder.isEmpty ? "" : "/" + folder) + "/" + name
                        if [".oga", ".ogg", ".wav"].contains(where: { FileSystem.exists(base + $0, followLinks: true) }) { return true }
                    }
                }
            }
            return false
        }

        /// Why heraldd cannot wake the machine, from its status.json; nil when it can or has not said.
        static func wakeProblem(_ ctx: CLIContext) -> String? {
            guard SpoolLock.runningDaemon(ctx.spool) != nil,
                  let bytes = try? FileSystem.read(ctx.spool.statusPath, limit: 1 << 20), let status = DaemonStatus(json: bytes),
                  status.wakeHolder == nil else { return nil }
            return status.wakeProblem.map { TextSafety.visible($0) }
        }

        /// Whether a calendar expression names a time of day ("Mon..Fri 07:00"), not days alone.
        static func hasTimeOfDay(_ expression: String) -> Bool {
            expression.split(separator: " ").contains { $0.contains(":") } || ["minutely", "hourly"].contains(expression.trimmingSpaces)
        }

        /// `daily` and `every day` as systemd's day part (`*-*-*`); days as given otherwise.
        static func days(_ text: String) -> String {
            let t = text.trimmingSpaces.lowercased()
            if t == "daily" || t == "every day" || t == "everyday" { return "*-*-*" }
            if t == "weekdays" { return "Mon..Fri" }
            if t == "weekends" || t == "weekend" { return "Sat,Sun" }
            return text.trimmingSpaces
        }

        /// `07:00`, `7:00`, `6:30am`, `7am`, `19:30:15` as `HH:MM[:SS]`; nil for anything else.
        static func clockTime(_ text: String) -> String? {
            var t = text.trimmingSpaces.lowercased()
            var offset = 0
            if t.hasSuffix("am") || t.hasSuffix("pm") {
                offset = t.hasSuffix("pm") ? 12 : 0
                t.removeLast(2)
                t = t.trimmingSpaces
            }
            let parts = t.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }),
                  var hour = Int(parts[0]) else { return nil }
            if parts.count == 1 && text.lowercased().hasSuffix("m") == false { return nil }  // "7" alone is no time
            let minute = parts.count > 1 ? Int(parts[1])! : 0, second = parts.count > 2 ? Int(parts[2])! : 0
            if text.lowercased().hasSuffix("am") || text.lowercased().hasSuffix("pm") {
                guard (1...12).contains(hour) else { return nil }
                hour = hour % 12 + offset
            }
            guard hour < 24, minute < 60, second < 60 else { return nil }
            func pad(_ n: Int) -> String { n < 10 ? "0" + String(n) : String(n) }
            return pad(hour) + ":" + pad(minute) + (parts.count > 2 ? ":" + pad(second) : "")
        }
    }
}
