import ArgumentParser
import HeraldCore

extension Herald {
    struct CalendarCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "calendar",
            abstract: "Preview and check the alarms of iCalendar files and vdirs.",
            discussion: """
                heraldd shows the alarms (VALARM) of the calendars named under 'calendars' in the \
                config. These commands read the same files without the daemon.
                """,
            subcommands: [Alarms.self, Check.self])

        /// Reads every .ics file of `paths`, printing each problem as `path:line: message`.
        /// Returns how many files there were and how many problems.
        static func read(_ paths: [String], _ each: (String, ICalendarFile) -> [ICalError]) throws -> (files: Int, count: Int) {
            var files = 0, problems = 0
            for path in paths {
                let folder: SourceFolder, list: [[String]]
                do {
                    folder = try SourceFolder(source: path)
                    list = try folder.list()
                } catch { throw CLIError.data("\(error)") }
                for names in list {
                    files += 1
                    let file = folder.path(of: names)
                    switch CalendarFiles.read(names, in: folder) {
                    case .failure(let problem): warn(problem.description); problems += 1
                    case .success(let calendar):
                        for p in each(file, calendar) { warn(CalendarFileError(path: file, line: p.line, message: p.message).description); problems += 1 }
                    }
                }
            }
            return (files, problems)
        }

        struct Alarms: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "alarms",
                abstract: "Print every alarm of the given calendars in a range of time.",
                discussion: """
                    PATH is an .ics file or a vdir (one .ics per item, one level of collection \
                    folders). Floating and all-day times are read in the local zone. Each line: \
                    the alarm's time, the item's start and summary, its UID and recurrence id.

                    Examples:
                      herald calendar alarms ~/.calendars/personal
                      herald calendar alarms work.ics --from 2026-12-01 --to 2027-01-01 --json
                    """)

            @OptionGroup var global: GlobalOptions

            @Option(help: ArgumentHelp("From this time (ISO-8601; a bare date is its midnight). Default: now.", valueName: "time"))
            var from: String?

            @Option(help: ArgumentHelp("Up to this time, not included (ISO-8601). Default: 7 days after --from.", valueName: "time"))
            var to: String?

            @Flag(help: "Print a JSON array: at, uid, recurrenceId, summary, action, start, location, file.")
            var json = false

            @Argument(help: ArgumentHelp("Calendar files or vdir folders.", valueName: "path"))
            var paths: [String]

            func validate() throws {
                if paths.isEmpty { throw ValidationError("name an .ics file or a vdir folder") }
            }

            func run() throws {
                let ctx = try CLIContext.load(global)
                let start = try ctx.from(from)
                let end: Instant
                if let to {
                    guard let t = TimeInput.parse(to, now: ctx.now, zone: ctx.zone) else {
                        throw CLIError.usage("--to: '\(to)' is not a time: use ISO-8601 (2026-12-01 or 2026-12-01T09:00)")
                    }
                    end = t
                } else {
                    end = start + Span.seconds(7 * 86_400)
                }
                guard end > start else { throw CLIError.usage("--to must be after --from") }
                var alarms: [(CalendarAlarm, String)] = []
                let problems = try CalendarCommand.read(paths) { file, calendar in
                    let result = calendar.alarms(from: start, to: end, localZone: ctx.zone)
                    alarms += result.alarms.map { ($0, file) }
                    return result.problems
                }
                alarms.sort { ($0.0.at, $0.0.uid, $0.0.recurrenceID ?? "", $0.0.alarmIndex) < ($1.0.at, $1.0.uid, $1.0.recurrenceID ?? "", $1.0.alarmIndex) }
                if json {
                    say(JSONWriter.render(.array(alarms.map { a, file in
                        .object([
                            ("at", .string(ISO8601.format(a.at, offsetSeconds: 0, zulu: true))),
                            ("uid", .string(a.uid)),
                            ("recurrenceId", a.recurrenceID.map { .string($0) } ?? .null),
                            ("summary", .string(a.summary)),
                            ("action", .string(a.action.rawValue)),
                            ("start", .string(a.allDay ? LocalDate(a.start, in: ctx.zone).description : ISO8601.format(a.start, in: ctx.zone))),
                            ("location", a.location.map { .string($0) } ?? .null),
                            ("file", .string(file)),
                        ])
                    }), pretty: true))
                } else {
                    for (a, _) in alarms {
                        let when = ISO8601.format(a.at, in: ctx.zone)
                        let starts = a.allDay ? LocalDate(a.start, in: ctx.zone).description + " (all day)" : ISO8601.format(a.start, in: ctx.zone)
                        // SUMMARY and UID come from calendars other people write to.
                        say("\(when)  \(TextSafety.visible(a.summary, whitespace: .spaces))  starts \(starts)  \(TextSafety.visible(a.uid))"
                            + (a.recurrenceID.map { " @ " + TextSafety.visible($0) } ?? ""))
                    }
                }
                if problems.count > 0 { throw ExitCode(65) }
            }
        }

        struct Check: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "check",
                abstract: "Check that calendar files can be read; print each problem with its file and line.",
                discussion: """
                    Exit status 0 when every file and item is readable, 65 when some are not (those \
                    are skipped by heraldd, the rest still alarm). Items are expanded over the window \
                    heraldd plans (a day back, 36 days ahead), within the same budgets.

                    Example:
                      herald calendar check ~/.calendars
                    """)

            @OptionGroup var global: GlobalOptions

            @Argument(help: ArgumentHelp("Calendar files or vdir folders.", valueName: "path"))
            var paths: [String]

            func validate() throws {
                if paths.isEmpty { throw ValidationError("name an .ics file or a vdir folder") }
            }

            func run() throws {
                let ctx = try CLIContext.load(global)
                var items = 0
                let (files, problems) = try CalendarCommand.read(paths) { _, calendar in
                    items += calendar.items.count
                    // Expanding heraldd's own window checks rules, zones and triggers, not only the
                    // syntax, and counts the same budgets: what this reports is what heraldd skips.
                    return calendar.plannedAlarms(from: ctx.now - Span.seconds(86_400), to: ctx.now + CalendarPlanner.horizon + Span.seconds(86_400),
                                                  now: ctx.now, localZone: ctx.zone).problems
                }
                say("\(files) file\(files == 1 ? "" : "s"), \(items) item\(items == 1 ? "" : "s"), "
                    + (problems == 0 ? "no problems" : "\(problems) problem\(problems == 1 ? "" : "s")"))
                if problems > 0 { throw ExitCode(65) }
            }
        }
    }
}
