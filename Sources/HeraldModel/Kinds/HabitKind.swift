/// A habit: reminds on its calendar until the day is done (or, with a frequency such as
/// 3/week, until the period's target is met), with Done and Snooze on the popup, "+1" for a
/// measurable habit, and its progress, streak and strength in the text.
enum HabitKind: JobKindRules {
    static let ownFields = ["times", "target", "unit", "targetType"]

    static let config = KindConfig(
        templates: [.init(name: "habit", defaults: .init(summary: Template(valid: "{title}"),
                                                         body: Template(valid: "{progress} · done {total} · strength {score}")))],
        popupClasses: [.init(popupClass: .habit, expire: .never)])

    // MARK: fields

    static func decodeFields(_ o: [String: JSONValue], into job: inout Job) throws(JobError) {
        if let t = o["times"] {
            let text = try Job.string(t, "times")
            do { job.times = try HabitFrequency.parse(text) } catch {
                throw JobError("field 'times' is not a frequency", value: t.snippet(), detail: error.description)
            }
        }
        job.target = try target(o)
        job.target = try target(o)
    }

    static func encodeFields(_ job: Job) -> [(String, JSONWriter.Value)] {
        var f: [(String, JSONWriter.Value)] = []
        if let times = job.times { f.append(("times", .string(times.description))) }
        if let target = job.target {
            f.append(("target", .number(target.amount)))
            if !target.unit.isEmpty { f.append(("unit", .string(target.unit))) }
            if target.kind != .atLeast { f.append(("targetType", .string(target.kind.rawValue))) }
        }
        return f
    }

    /// `target`, `unit` and `targetType` together: a measurable habit's goal.
    static func target(_ o: [String: JSONValue]) throws(JobError) -> HabitTarget? {
        guard let t = o["target"] else {
            if o["unit"] != nil || o["targetType"] != nil { throw JobError("fields 'unit' and 'targetType' need 'target'") }
            return nil
        }
        guard case .number(let amount) = t, amount.isFinite, amount > 0, amount <= 1_000_000 else {
            throw JobError("field 'target' is not a number above 0 and at most 1000000", value: t.snippet())
        }
        var target = HabitTarget(amount: amount, unit: "")
        if let u = o["unit"] {
            let unit = try Job.string(u, "unit")
            guard unit.count <= 32, !unit.contains(where: { $0.isNewline }) else {
                throw JobError("field 'unit' is longer than 32 characters or holds a line break", value: u.snippet())
            }
            target.unit = unit.trimmingSpaces
        }
        if let k = o["targetType"] {
            guard case .string(let text) = k, let kind = HabitTarget.Kind(rawValue: text) else {
                throw JobError("field 'targetType' is not one of at-least, at-most", value: k.snippet())
            }
            target.kind = kind
        }
        return target
    }


    // MARK: firing

    static func role(of instant: Instant, job: Job, isWarning: () -> Bool) -> OccurrenceRole {
        isWarning() ? .warning : .habit
    }

    static func validate(_ job: Job) throws(JobError) {
        guard !job.every.isEmpty else { throw JobError("a habit needs 'every', its schedule") }
        guard !(job.title ?? "").trimmingSpaces.isEmpty else { throw JobError("a habit needs a non-empty 'title', its name") }
        if job.target != nil, let f = job.times, f.count != 1 {
            throw JobError("a measurable habit's 'times' is once per period (its target is the amount per period)",
                           value: f.description)
        }
    }

    /// Done for the day, a target met for the period, skipped or paused: quiet until then.
    static func skipReason(_ occurrence: DueOccurrence, now: Instant) -> Skip? {
        guard let history = occurrence.habitHistory, let quiet = history.quietReason(on: history.today) else { return nil }
        return Skip(note: quiet.note,
                    resumeAfter: quiet.until.map { $0.adding(days: 1).start(in: occurrence.schedule.zone) - Span(microseconds: 1) })
    }

    static func message(_ occurrence: DueOccurrence, config: HeraldConfig, now: Instant) -> (HeraldConfig.Message, [String: String]) {
        guard let history = occurrence.habitHistory else { return (config.templates["habit"], [:]) }
        let s = history.stats
        // "2 of 3 this week · 4 in a row", "5 of 8 glasses", or a daily habit's streak phrase.
        let progress = history.periodProgress.map { p in
            history.rules.target == nil && s.currentStreak > 0 ? p + " · \(s.currentStreak) in a row" : p
        } ?? s.progressPhrase
        return (config.templates["habit"], ["progress": progress, "streak": String(s.currentStreak), "total": s.totalPhrase,
                                         "score": s.scorePhrase])
    }

    static func actions(for occurrence: DueOccurrence, config: HeraldConfig) -> [PopupAction] {
        occurrence.job.target != nil ? [.done, .add(1), .snooze(nil)] : [.done, .snooze(nil)]
    }

    static func popupClass(of occurrence: DueOccurrence) -> HeraldConfig.PopupClass { .habit }

    static func summary(_ job: Job, config: HeraldConfig, zone: TimeZoneRules, now: Instant) -> String { titledSummary(job) }
}

extension HeraldConfig.PopupClass {
    public static let habit = Self("habit")
}
