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
            abstract: "Habits: reminders with Done and Snooze, targets, streaks and strength, as Loop Habit Tracker keeps them.",
            discussion: """
                A habit reminds you at its times (--every) until the day is done (the popup's \
                Done button, or 'herald habit done'). With --times 3/week it reminds until the \
                week's target is met, then stays quiet until the next week. A measurable habit \
                (--target 8 --unit glasses) counts an amount: its popup shows "5 of 8 glasses" \
                and a +1 button. Skipped and paused days neither break nor extend a streak. The \
                strength score is Loop Habit Tracker's.

                Examples:
                  herald habit add "Drink water" --every "*-*-* 09..17:00" --target 8 --unit glasses
                  herald habit add Gym --times 3/week --every 18:00
                  herald habit done "Drink water" 2
                  herald habit skip Gym
                  herald habit show Gym
                  herald habit stats
                  herald habit export --csv ~/loop-export
                  herald habit import "Loop Habits Backup 2026-11-20 101500.db"
                """,
            subcommands: [Add.self, Done.self, Undo.self, Skip.self, Pause.self, Resume.self, List.self, Show.self, Stats.self,
                          Export.self, Import.self, Remove.self])
    }
}

extension Herald.HabitCommand {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a habit.")

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("When to remind: a calendar expression such as '09:00', 'Mon..Fri 09:00'. Give it again for more times ('--every 09:00 --every 15:00'). Default: 09:00 every day.",
                                   valueName: "expression"))
        var every: [String] = []

        @Option(help: ArgumentHelp("A target without fixed days: 3/week, 10/month, 1/3days (every 3 days). Reminders stop once the period's target is met.",
                                   valueName: "N/period"))
        var times: String?

        @Option(help: ArgumentHelp("Make it measurable: the amount to reach each day (or each --times period), such as 8.", valueName: "amount"))
        var target: String?

        @Option(help: ArgumentHelp("The unit of a measurable habit's amount, such as glasses or km.", valueName: "unit"))
        var unit: String?

        @Flag(help: "The target is a limit: at most that amount (default: at least).")
        var atMost = false

        @Option(help: ArgumentHelp("Warn ahead of each reminder: spans such as 15m or 1h,15m.", valueName: "spans"))
        var warn: String?

        @Option(help: ArgumentHelp("A freedesktop icon name or an image path for the popup.", valueName: "icon"))
        var icon: String?

        @OptionGroup var waking: WakeOption

        @Argument(help: "The habit's name.")
        var name: String

        func run() throws {
            let title = name.trimmingSpaces
            guard !title.isEmpty else { throw CLIError.usage("the habit name is empty") }
            let icon = try icon.map(validateIcon)
            let ctx = try CLIContext.load(global)
            let every = self.every.isEmpty ? ["*-*-* 09:00"] : self.every
            let calendars = try every.map { try ctx.calendar($0, option: "--every") }
            var frequency: HabitFrequency?
            if let times {
                do { frequency = try HabitFrequency.parse(times) } catch { throw CLIError.usage("--times: \(error)") }
                if frequency == .daily { frequency = nil }
            }
            var goal: HabitTarget?
            if let target {
                guard let amount = Double(target.trimmingSpaces), amount.isFinite, amount > 0, amount <= 1_000_000 else {
                    throw CLIError.usage("--target: '\(target)' is not a number above 0 and at most 1000000")
                }
                let unit = (unit ?? "").trimmingSpaces
                guard unit.count <= 32 else { throw CLIError.usage("--unit: '\(unit)' is longer than 32 characters") }
                goal = HabitTarget(amount: amount, unit: unit, kind: atMost ? .atMost : .atLeast)
                if let f = frequency, f.count != 1 {
                    throw CLIError.usage("--times: a measurable habit counts its amount once per period: write 1/week, not \(f)")
                }
            } else if unit != nil || atMost {
                throw CLIError.usage("--unit and --at-most are for measurable habits: add --target AMOUNT")
            }
            let warnings = try parseWarnings(warn)
            let pending = try ctx.pendingJobs()
            if let existing = pending.first(where: { $0.job?.kind == .habit && $0.job?.title?.lowercased() == title.lowercased() }) {
                throw CLIError.data("a habit named '\(title)' already exists (id \(existing.id))")
            }
            // No timezone: the habit follows the local zone, also after it changes.
            var job = Job(kind: .habit, id: ctx.freeHabitID(for: title, pending: pending), title: title, icon: icon,
                          warn: warnings)
            job.every = every
            job.resolveZones()
            job.wake = waking.value
            job.times = frequency
            job.target = goal
            guard let first = try JobSchedule(job, localZone: ctx.zone).first(now: ctx.now) else {
                throw CLIError.data("--every: '\(every.joined(separator: "', '"))' never elapses after now")
            }
            try ctx.submit(job)
            let goalText = [frequency?.phrase, goal?.phrase].compactMap { $0 }.joined(separator: ", ")
            say("Habit '\(title)' (\(job.id!)): " + (goalText.isEmpty ? "" : goalText + "; reminders ")
                + "\(calendars.map(\.description).joined(separator: "; ")), first reminder \(ctx.when(first))")
        }
    }

    /// What done and undo share: the habit's name, `--date`, and the global options.
    struct DayArguments: ParsableArguments {
        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("The day (YYYY-MM-DD); default: today.", valueName: "date"))
        var date: String?

        @Argument(help: "The habit's name or id.")
        var name: String

        /// The habit, the day meant (today by default, never in the future) and its log as read.
        func resolve() throws -> (ctx: CLIContext, habit: HabitEntry, day: LocalDate, contents: HabitLog.Contents) {
            let ctx = try CLIContext.load(global)
            let habit = try ctx.habit(named: name)
            let today = habit.today(ctx)
            var day = today
            if let date {
                guard let parsed = LocalDate(parsing: date) else { throw CLIError.usage("--date: '\(date)' is not a date (YYYY-MM-DD)") }
                guard parsed <= today else { throw CLIError.usage("--date: \(parsed) is in the future (today is \(today))") }
                day = parsed
            }
            return (ctx, habit, day, habit.log(ctx).read())

        }
    }

    struct Done: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "done",
            abstract: "Mark a habit done for today (or --date); for a measurable habit, add an amount.",
            discussion: """
                herald habit done Gym            marks today done
                herald habit done Water 2        adds 2 to today's amount (default 1)
                herald habit done Water -1       takes one back
                """)

        @OptionGroup var arguments: DayArguments

        @Argument(help: "A measurable habit's amount to add (default 1).")
        var amount: String?

        func run() throws {
            let (ctx, habit, day, contents) = try arguments.resolve()
            var x: Double? = nil
            if habit.job.target != nil {
                let text = amount ?? "1"
                guard let value = Double(text), value.isFinite, value != 0, abs(value) <= 1_000_000 else {
                    throw CLIError.usage("'\(text)' is not an amount (a number such as 2 or 0.5, not 0)")
                }
                x = value
            } else if amount != nil {
                throw CLIError.usage("'\(habit.title)' is not measurable: give no amount (or add one with --target when you add a habit)")
            }
            var after = contents
            if let answer = try ctx.askDaemon(.habitDone(id: habit.id, day: day, amount: x)) {
                // heraldd wrote the log (and ended that day's popup): read what it holds now.
                guard case .habitDone(let already) = answer else { throw CLIError.failure("heraldd answered something else") }
                if already { return say("'\(habit.title)' was already done on \(day)") }
                after = habit.log(ctx).read()
            } else {
                // No heraldd: the same decision, applied here.
                guard let entry = JobDecision.habitEntry(day: day, amount: x, log: contents, now: ctx.now, by: "cli") else {
                    return say("'\(habit.title)' was already done on \(day)")
                }
                try ctx.record(habit.log(ctx), entry)
                after.apply(entry)
            }
            let history = habit.history(ctx, contents: after)
            if let target = habit.job.target {
                say("'\(habit.title)' on \(day): \(target.progress(history.amount(on: day)))"
                    + (history.rules.frequency.map { _ in " (\(target.progress(history.periodAmount(of: day))) \(history.rules.periodPhrase))" } ?? ""))
                return
            }
            let stats = history.stats
            var line = "Done: '\(habit.title)' on \(day) (\(stats.currentStreak) in a row, \(stats.totalPhrase) in all)"
            if let f = history.rules.frequency, f != .daily {
                line += "; \(history.doneCount(inPeriodOf: day)) of \(f.count) \(history.rules.periodPhrase)"
            }
            say(line)
        }
    }

    struct Undo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undo", abstract: "Clear a habit's day (today or --date): done, amount and skip.")

        @OptionGroup var arguments: DayArguments

        func run() throws {
            let (ctx, habit, day, contents) = try arguments.resolve()
            guard contents.days.contains(day) || contents.amounts[day] != nil || contents.skipped.contains(day) else {
                throw CLIError.data("'\(habit.title)' was not done on \(day)")
            }
            _ = try habit.record(ctx, .done(false), on: day, after: contents)
            say("Undone: '\(habit.title)' on \(day)")
        }
    }

    struct Skip: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "skip",
            abstract: "Skip a habit's day (today or --date): no reminders; the streak is neither broken nor extended.")

        @OptionGroup var arguments: DayArguments

        func run() throws {
            let (ctx, habit, day, contents) = try arguments.resolve()
            guard !contents.skipped.contains(day) else {
                say("'\(habit.title)' was already skipped on \(day)")
                return
            }
            let stats = try habit.record(ctx, .skip(true), on: day, after: contents).stats
            say("Skipped: '\(habit.title)' on \(day) (streak stays \(stats.currentStreak); 'herald habit undo' takes it back)")
        }
    }

    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause",
            abstract: "Pause a habit from today (or --date): no reminders, no broken streak, until 'herald habit resume'.")

        @OptionGroup var arguments: DayArguments

        func run() throws {
            let (ctx, habit, day, contents) = try arguments.resolve()
            guard !contents.isPaused(on: habit.today(ctx)) else { throw CLIError.data("'\(habit.title)' is paused already") }
            _ = try habit.record(ctx, .pause(true), on: day, after: contents)
            say("Paused: '\(habit.title)' from \(day); 'herald habit resume \(habit.title)' brings its reminders back")
        }
    }

    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume", abstract: "Resume a paused habit from today (or --date).")

        @OptionGroup var arguments: DayArguments

        func run() throws {
            let (ctx, habit, day, contents) = try arguments.resolve()
            guard contents.isPaused(on: habit.today(ctx)) else { throw CLIError.data("'\(habit.title)' is not paused") }
            let history = try habit.record(ctx, .pause(false), on: day, after: contents)
            say("Resumed: '\(habit.title)' from \(day)"
                + (habit.nextReminder(ctx, contents: history.contents).map { ", next reminder \(ctx.when($0))" } ?? ""))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List habits with their goal, streaks, strength and the next reminder.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON (name, every, times, target, unit, targetType, total, streak, bestStreak, score, doneToday, paused, progress, next) for scripts.")
        var json = false

        func run() throws {
            let ctx = try CLIContext.load(global)
            let habits = try ctx.habits()
            if json {
                say(JSONWriter.render(.array(habits.map { ctx.jsonValue(of: $0) }), pretty: true))
                return
            }
            guard !habits.isEmpty else { say("No habits yet. Add one: herald habit add NAME --every EXPRESSION"); return }
            var rows = [["NAME", "GOAL", "PROGRESS", "STREAK", "BEST", "TOTAL", "STRENGTH", "NEXT"]]
            for h in habits {
                let history = h.history(ctx)
                let s = history.stats
                let next = history.contents.isPaused(on: history.today) ? "paused" : h.nextReminder(ctx, contents: history.contents).map { ctx.when($0) } ?? "-"
                rows.append([h.title, h.goal, h.progress(history, s), String(s.currentStreak), String(s.bestStreak), String(s.total),
                             s.scorePhrase, next])
            }
            sayStyled(Table.render(rows, header: true) { _, column, cell in column == 2 && cell.hasPrefix("Done today") ? .green : nil })
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show one habit: its goal, streaks, strength, a heat map of the last weeks and this month.",
            discussion: """
                The heat map has a row per weekday and a column per week, today's week on the \
                right. In colour: green done, pale green covered by a target such as 3/week (or \
                part of a measurable amount), blue skipped or paused, grey missed. Without colour \
                (NO_COLOR set, or output to a pipe): # done, + covered or part, - skipped or \
                paused, . missed.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("How many weeks the heat map shows (1 to 53).", valueName: "n"))
        var weeks = 20

        @Argument(help: "The habit's name or id.")
        var name: String

        func run() throws {
            guard (1...53).contains(weeks) else { throw CLIError.usage("--weeks: \(weeks) is not from 1 to 53") }
            let ctx = try CLIContext.load(global)
            let h = try ctx.habit(named: name)
            let history = h.history(ctx)
            let s = history.stats
            let contents = history.contents
            // One field per line: a newline from the job file is shown as ^J, not obeyed.
            say("habit:    \(TextSafety.visible(h.title)) (id \(TextSafety.visible(h.id)))")
            say("goal:     \(TextSafety.visible(h.goal))")
            for (k, every) in h.job.every.enumerated() {
                say((k == 0 ? "every:    " : "          ") + TextSafety.visible(every) + (k < h.schedule.calendars.count ? "  (\(TextSafety.visible("\(h.schedule.calendars[k])")))" : ""))
            }
            if !h.job.warn.isEmpty { say("warn:     " + h.job.warn.map(TimeSpan.format).joined(separator: ", ") + " ahead") }
            if let icon = h.job.icon { say("icon:     \(TextSafety.visible(icon))") }
            say("zone:     \(h.schedule.zone.identifier)")
            say("progress: \(h.progress(history, s))")
            say("done:     \(s.totalPhrase); streak \(s.currentStreak), best \(s.bestStreak); today \(s.doneToday ? "done" : "not yet")")
            say("strength: \(s.scorePhrase)")
            if contents.isPaused(on: history.today) {
                say("next:     paused ('herald habit resume \(h.title)')")
            } else if let next = h.nextReminder(ctx, contents: contents) {
                say("next:     \(ISO8601.format(next, in: h.schedule.zone)) (\(RelativeTime.phrase(next, now: ctx.now)))")
            }
            let view = HabitView(history: history, colored: Style.enabled)
            say("")
            sayStyled(view.heatMap(weeks: weeks))  // HabitView's own cells and colours, nothing from a file
            say("")
            sayStyled(view.month(containing: history.today))
            say("")
            sayStyled(view.legend)
            for problem in contents.problems { say("warning:  habits/\(TextSafety.visible(h.id)).jsonl: \(TextSafety.visible("\(problem)"))") }
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats", abstract: "Every habit side by side: done this week and month, strength, streaks.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func run() throws {
            let ctx = try CLIContext.load(global)
            let habits = try ctx.habits()
            var rows = [["NAME", "GOAL", "WEEK", "MONTH", "STRENGTH", "STREAK", "BEST", "TOTAL"]]
            var objects: [JSONWriter.Value] = []
            for h in habits {
                let history = h.history(ctx)
                let s = history.stats
                let week = h.doneDays(history, in: HabitRules(frequency: HabitFrequency(count: 1, period: .week), weekStart: ctx.config.weekStart))
                let month = h.doneDays(history, in: HabitRules(frequency: HabitFrequency(count: 1, period: .month)))
                rows.append([h.title, h.goal, week, month, s.scorePhrase, String(s.currentStreak), String(s.bestStreak), String(s.total)])
                objects.append(.object([("name", .string(h.title)), ("goal", .string(h.goal)), ("week", .string(week)),
                                        ("month", .string(month)), ("score", .number(s.score)),
                                        ("streak", .int(Int64(s.currentStreak))), ("bestStreak", .int(Int64(s.bestStreak))),
                                        ("total", .int(Int64(s.total)))]))
            }
            if json { say(JSONWriter.render(.array(objects), pretty: true)); return }
            guard !habits.isEmpty else { say("No habits yet. Add one: herald habit add NAME --every EXPRESSION"); return }
            sayStyled(Table.render(rows, header: true))
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

    /// The history from `contents` (already read), or from the log.
    func history(_ ctx: CLIContext, contents: HabitLog.Contents? = nil) -> HabitHistory {
        HabitHistory(rules: HabitRules(job, schedule: schedule, weekStart: ctx.config.weekStart), contents: contents ?? log(ctx).read(),
                     today: today(ctx))
    }

    /// Records a change; returns the history with it.
    func record(_ ctx: CLIContext, _ change: HabitLog.Change, on day: LocalDate, after contents: HabitLog.Contents) throws -> HabitHistory {
        let entry = HabitLog.Entry(date: day, change: change, at: ctx.now, by: "cli")
        try ctx.record(log(ctx), entry)
        var after = contents
        after.apply(entry)
        return history(ctx, contents: after)
    }

    /// "3 times a week", "8 glasses", "daily".
    var goal: String {
        let text = [job.times?.phrase, job.target?.phrase].compactMap { $0 }.joined(separator: ", ")
        return text.isEmpty ? "each reminder day" : text
    }

    /// The period's progress, or whether a daily habit is done today.
    func progress(_ history: HabitHistory, _ s: HabitStats) -> String {
        history.periodProgress ?? (s.doneToday ? "Done today" : "not yet today")
    }

    /// Days done in the current week or month (as `rules` says): "3", or "3/3" against a target there.
    func doneDays(_ history: HabitHistory, in rules: HabitRules) -> String {
        let period = rules.period(containing: history.today)
        var n = 0
        var d = period.lowerBound
        while d <= history.today { if history.isMet(d) { n += 1 }; d = d.adding(days: 1) }
        if let f = job.times, job.target == nil, f.period == rules.frequency?.period { return "\(n)/\(f.count)" }
        return String(n)
    }

    /// The next reminder that will really show: days done, skipped, paused or with their
    /// period's target met are passed over.
    func nextReminder(_ ctx: CLIContext, contents: HabitLog.Contents) -> Instant? {
        guard var t = pending.fireAt else { return nil }
        let rules = HabitRules(job, schedule: schedule, weekStart: ctx.config.weekStart)
        for _ in 0..<1000 {
            let day = LocalDate(t, in: schedule.zone)
            // The quiet reason does not ask the calendar, so each step skips its day-by-day walk.
            let history = HabitHistory(rules: rules, contents: contents, today: day, isScheduled: { _ in true })
            guard let quiet = history.quietReason(on: day) else { return t }
            let end = quiet.until.map { $0.adding(days: 1).start(in: schedule.zone) - Span(microseconds: 1) } ?? t
            guard let next = schedule.firing(after: end) else { return nil }
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
    /// A fresh habit id from the name, taken by no pending job and no habit log.
    func freeHabitID(for title: String, pending: [PendingJob], also: Set<String> = []) -> String {
        var taken = Set(pending.map(\.id)).union(also)
        while true {
            let id = HabitNames.freeID(for: title, taken: taken)
            if !FileSystem.exists(HabitLog(spool: spool, id: id).path) { return id }
            taken.insert(id)
        }
    }

    func habits() throws(FileSystemError) -> [HabitEntry] {
        try pendingJobs().compactMap { p in
            guard let job = p.job, job.kind == .habit, let schedule = try? JobSchedule(job, localZone: zone) else { return nil }
            return HabitEntry(pending: p, job: job, schedule: schedule)
        }.sorted { $0.title.lowercased() < $1.title.lowercased() }
    }

    /// The habit called `name` (any case) or with that id.
    func habit(named name: String) throws -> HabitEntry {
        let all = try habits()
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
        let history = h.history(self)
        let s = history.stats
        return .object([
            ("name", .string(h.title)), ("every", .string(h.job.every.joined(separator: "; "))),
            ("icon", h.job.icon.map { .string($0) } ?? .null),
            ("times", h.job.times.map { .string($0.description) } ?? .null),
            ("target", h.job.target.map { .number($0.amount) } ?? .null),
            ("unit", h.job.target.map { .string($0.unit) } ?? .null),
            ("targetType", h.job.target.map { .string($0.kind.rawValue) } ?? .null),
            ("total", .int(Int64(s.total))), ("streak", .int(Int64(s.currentStreak))), ("bestStreak", .int(Int64(s.bestStreak))),
            ("score", .number((s.score * 10_000).rounded() / 10_000)),
            ("doneToday", .bool(s.doneToday)),
            ("skippedToday", .bool(history.contents.skipped.contains(history.today))),
            ("paused", .bool(history.contents.isPaused(on: history.today))),
            ("progress", .string(h.progress(history, s))),
            ("periodDone", h.job.times != nil && h.job.target == nil ? .int(Int64(history.doneCount(inPeriodOf: history.today))) : .null),
            ("amountToday", h.job.target != nil ? .number(history.amount(on: history.today)) : .null),
            ("next", h.nextReminder(self, contents: history.contents).map { .string(ISO8601.format($0, in: h.schedule.zone)) } ?? .null),
            ("id", .string(h.id)),
        ])
    }
}
