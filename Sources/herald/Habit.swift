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
    struct HabitCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "habit",
            abstract: "Habits: recurring reminders with Done and Snooze buttons, totals and streaks.",
            discussion: """
                A habit reminds you on its calendar schedule until you mark the day done (the \
                popup's Done button, or 'herald habit done'); then it stays quiet for the rest of \
                that day. A streak counts the scheduled days done in a row.

                Examples:
                  herald habit add "Drink water" --every "*-*-* 09..17:00" --icon water
                  herald habit done "Drink water"
                  herald habit list
                """,
            subcommands: [Add.self, Done.self, Undo.self, List.self, Show.self, Remove.self])
    }
}

extension Herald.HabitCommand {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a habit.")

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("When to remind: a calendar expression such as 'daily', 'Mon..Fri 09:00'. Give it again for more times ('--every 09:00 --every 15:00').",
                                   valueName: "expression"))
        var every: [String] = []

        @Option(help: ArgumentHelp("Warn ahead of each reminder: spans such as 15m or 1h,15m.", valueName: "spans"))
        var warn: String?

        @Option(help: ArgumentHelp("A freedesktop icon name or an image path for the popup.", valueName: "icon"))
        var icon: String?

        @Argument(help: "The habit's name.")
        var name: String

        func run() throws {
            let title = name.trimmingSpaces
            guard !title.isEmpty else { throw CLIError.usage("the habit name is empty") }
            let icon = try icon.map(validateIcon)
            let ctx = try CLIContext.load(global)
            guard !every.isEmpty else { throw CLIError.usage("say when to remind: --every EXPRESSION (such as 'daily' or 'Mon..Fri 09:00')") }
            let calendars = try every.map { try ctx.calendar($0, option: "--every") }
            let warnings = try parseWarnings(warn)
            let pending = ctx.pendingJobs()
            if let existing = pending.first(where: { $0.job?.kind == .habit && $0.job?.title?.lowercased() == title.lowercased() }) {
                throw CLIError.data("a habit named '\(title)' already exists (id \(existing.id))")
            }
            // No timezone: the habit follows the local zone, also after it changes.
            var job = Job(kind: .habit, id: HabitNames.freeID(for: title, taken: Set(pending.map(\.id))), title: title, icon: icon,
                          warn: warnings)
            job.every = every
            guard let first = try JobSchedule(job, localZone: ctx.zone).first(now: ctx.now) else {
                throw CLIError.data("--every: '\(every.joined(separator: "', '"))' never elapses after now")
            }
            try ctx.submit(job)
            say("Habit '\(title)' (\(job.id!)): \(calendars.map(\.description).joined(separator: "; ")), first reminder \(ctx.when(first))")
        }
    }

    /// What done and undo share: the habit's name, `--date`, and the global options.
    struct DayArguments: ParsableArguments {
        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("The day (YYYY-MM-DD); default: today.", valueName: "date"))
        var date: String?

        @Argument(help: "The habit's name or id.")
        var name: String

        /// The habit, the day meant (today by default, never in the future), whether it is
        /// done that day, and a way to record a change.
        func resolve() throws -> (ctx: CLIContext, habit: HabitEntry, day: LocalDate, isDone: Bool) {
            let ctx = try CLIContext.load(global)
            let habit = try ctx.habit(named: name)
            let today = habit.today(ctx)
            var day = today
            if let date {
                guard let parsed = LocalDate(parsing: date) else { throw CLIError.usage("--date: '\(date)' is not a date (YYYY-MM-DD)") }
                guard parsed <= today else { throw CLIError.usage("--date: \(parsed) is in the future (today is \(today))") }
                day = parsed
            }
            return (ctx, habit, day, habit.log(ctx).read().days.contains(day))
        }
    }

    struct Done: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "done", abstract: "Mark a habit done for today (or --date).")

        @OptionGroup var arguments: DayArguments

        func run() throws {
            let (ctx, habit, day, isDone) = try arguments.resolve()
            if isDone {
                say("'\(habit.title)' was already done on \(day)")
                return
            }
            try ctx.record(habit.log(ctx), HabitLog.Entry(date: day, done: true, at: ctx.now, by: "cli"))
            let stats = habit.stats(ctx)
            say("Done: '\(habit.title)' on \(day) (\(stats.currentStreak) in a row, \(stats.totalPhrase) in all)")
        }
    }

    struct Undo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undo", abstract: "Take back a habit's completion for today (or --date).")

        @OptionGroup var arguments: DayArguments

        func run() throws {
            let (ctx, habit, day, isDone) = try arguments.resolve()
            guard isDone else { throw CLIError.data("'\(habit.title)' was not done on \(day)") }
            try ctx.record(habit.log(ctx), HabitLog.Entry(date: day, done: false, at: ctx.now, by: "cli"))
            say("Undone: '\(habit.title)' on \(day)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List habits with totals, streaks and the next reminder.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON (name, every, icon, total, streak, bestStreak, doneToday, next) for scripts.")
        var json = false

        func run() throws {
            let ctx = try CLIContext.load(global)
            let habits = ctx.habits()
            if json {
                say(JSONWriter.render(.array(habits.map { ctx.jsonValue(of: $0) }), pretty: true))
                return
            }
            guard !habits.isEmpty else { say("No habits yet. Add one: herald habit add NAME --every EXPRESSION"); return }
            var rows = [["NAME", "EVERY", "DONE", "STREAK", "BEST", "TODAY", "NEXT"]]
            for h in habits {
                let s = h.stats(ctx)
                let next = h.nextReminder(ctx).map { ctx.when($0) } ?? "-"
                rows.append([h.title, h.job.every.joined(separator: "; "), String(s.total), String(s.currentStreak), String(s.bestStreak),
                             s.doneToday ? "✓" : "·", next])
            }
            say(Table.render(rows, header: true) { _, column, cell in column == 5 && cell == "✓" ? .green : nil })
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one habit: schedule, streaks and the last two weeks.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The habit's name or id.")
        var name: String

        func run() throws {
            let ctx = try CLIContext.load(global)
            let h = try ctx.habit(named: name)
            let s = h.stats(ctx)
            let contents = h.log(ctx).read()
            say("habit:    \(h.title) (id \(h.id))")
            for (k, every) in h.job.every.enumerated() {
                say((k == 0 ? "every:    " : "          ") + every + (k < h.schedule.calendars.count ? "  (\(h.schedule.calendars[k]))" : ""))
            }
            if !h.job.warn.isEmpty { say("warn:     " + h.job.warn.map(TimeSpan.format).joined(separator: ", ") + " ahead") }
            if let icon = h.job.icon { say("icon:     \(icon)") }
            say("zone:     \(h.schedule.zone.identifier)")
            say("done:     \(s.totalPhrase); streak \(s.currentStreak), best \(s.bestStreak); today \(s.doneToday ? "done" : "not yet")")
            if let next = h.nextReminder(ctx) { say("next:     \(ISO8601.format(next, in: h.schedule.zone)) (\(RelativeTime.phrase(next, now: ctx.now)))") }
            let today = h.today(ctx)
            let days = (0..<14).reversed().map { today.adding(days: -$0) }
            let marks = days.map { day -> String in
                contents.days.contains(day) ? "✓" : (h.schedule.elapses(on: day) ? "·" : " ")
            }
            say("last 14:  " + marks.joined(separator: " ") + "   (✓ done, · missed, blank: not scheduled)")
            for problem in contents.problems { say("warning:  habits/\(h.id).jsonl: \(problem)") }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Remove a habit (its reminders stop; its log moves to habits/removed/).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The habit's name or id.")
        var name: String

        func run() throws {
            let ctx = try CLIContext.load(global)
            let h = try ctx.habit(named: name)
            try ctx.cancel(h.pending)
            let log = h.log(ctx)
            try ctx.archiveHabitLog(id: h.id)
            say("Removed habit '\(h.title)'" + (FileSystem.exists(log.path) ? "" : "; its log is kept in habits/removed/"))
        }
    }
}

extension CLIContext {
    /// Moves a habit's completion log (if any) to habits/removed/, stamped with the time.
    func archiveHabitLog(id: String) throws {
        let log = HabitLog(spool: spool, id: id)
        guard FileSystem.exists(log.path) else { return }
        let removed = spool.habitsDirectory + "/removed"
        do {
            try FileSystem.makeDirectory(removed)
            try FileSystem.move(log.path, to: removed + "/\(id).\(now.seconds).jsonl")
        } catch {
            throw CLIError.failure("\(error)")
        }
    }
}

/// A pending habit with what the commands need to know about it.
struct HabitEntry {
    var pending: PendingJob
    var job: Job
    var schedule: JobSchedule

    var id: String { pending.id }
    var title: String { job.title ?? pending.id }

    func log(_ ctx: CLIContext) -> HabitLog { HabitLog(spool: ctx.spool, id: id) }
    func today(_ ctx: CLIContext) -> LocalDate { LocalDate(ctx.now, in: schedule.zone) }

    func stats(_ ctx: CLIContext) -> HabitStats {
        let done = log(ctx).read().days
        return HabitStats.compute(schedule, done: done, today: today(ctx))
    }

    /// The next reminder that will really show: days already done are skipped.
    func nextReminder(_ ctx: CLIContext) -> Instant? {
        guard var t = pending.fireAt else { return nil }
        let done = log(ctx).read().days
        for _ in 0..<1000 {
            let day = LocalDate(t, in: schedule.zone)
            if !done.contains(day) { return t }
            let endOfDay = day.adding(days: 1).start(in: schedule.zone) - Span(microseconds: 1)
            guard let next = schedule.firing(after: endOfDay) else { return nil }
            t = next
        }
        return nil
    }
}

enum HabitNames {
    /// An id from the name: "Drink water" → "drink-water", made unique with -2, -3, ...
    static func freeID(for name: String, taken: Set<String>) -> String {
        var slug = ""
        for ch in name.lowercased().unicodeScalars {
            if (ch >= "a" && ch <= "z") || (ch >= "0" && ch <= "9") { slug.unicodeScalars.append(ch) } else if !slug.hasSuffix("-") && !slug.isEmpty { slug += "-" }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        slug = String(slug.prefix(48))
        if slug.isEmpty { slug = "habit" }
        var id = slug
        var n = 2
        while taken.contains(id) { id = "\(slug)-\(n)"; n += 1 }
        return id
    }
}

extension CLIContext {
    func habits() -> [HabitEntry] {
        pendingJobs().compactMap { p in
            guard let job = p.job, job.kind == .habit, let schedule = try? JobSchedule(job, localZone: zone) else { return nil }
            return HabitEntry(pending: p, job: job, schedule: schedule)
        }.sorted { $0.title.lowercased() < $1.title.lowercased() }
    }

    /// The habit called `name` (any case) or with that id.
    func habit(named name: String) throws -> HabitEntry {
        let all = habits()
        if let h = all.first(where: { $0.title.lowercased() == name.lowercased() }) ?? all.first(where: { $0.id == name }) {
            return h
        }
        let known = all.map { "'\($0.title)'" }.joined(separator: ", ")
        throw CLIError.data("no habit named '\(name)'" + (known.isEmpty ? " (there are none yet)" : " (habits: \(known))"))
    }

    func record(_ log: HabitLog, _ entry: HabitLog.Entry) throws {
        do { try log.append(entry) } catch { throw CLIError.failure("\(error)") }
    }

    func jsonValue(of h: HabitEntry) -> JSONWriter.Value {
        let s = h.stats(self)
        return .object([
            ("name", .string(h.title)), ("every", .string(h.job.every.joined(separator: "; "))),
            ("icon", h.job.icon.map { .string($0) } ?? .null),
            ("total", .int(Int64(s.total))), ("streak", .int(Int64(s.currentStreak))), ("bestStreak", .int(Int64(s.bestStreak))),
            ("doneToday", .bool(s.doneToday)),
            ("next", h.nextReminder(self).map { .string(ISO8601.format($0, in: h.schedule.zone)) } ?? .null),
            ("id", .string(h.id)),
        ])
    }
}
