import HeraldCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Fuzzer {
    /// "Now" for every target: fixed, so a finding replays exactly.
    static let now = Instant(seconds: 1_795_352_730)  // 2026-11-23T12:25:30Z
    /// A zone with daylight saving time, where wall-clock arithmetic has its gaps and overlaps.
    static let berlin: TimeZoneRules = (try? TimeZoneRules.cached("Europe/Berlin")) ?? .utc
    /// The most popup text one input may make (the job file itself is at most 64 KiB).
    static let maximumPopupText = 256 * 1024
    /// More alarms than this from one file in Herald's planning window is absurd.
    static let maximumAlarms = 100_000

    /// The start of a finding pending in Instant's arithmetic and Job+JSON's bounds.
    public static let snoozeOverflow = "Instant + Span overflows for a snooze or repeat of"

    static func finding(_ target: Target, _ input: [UInt8], _ problem: String, _ kind: Finding.Kind = .property) -> Finding {
        Finding(target: target, input: input, kind: kind, problem: problem)
    }

    /// The target's work on one input, and its properties.
    static func exercise(_ target: Target, _ input: [UInt8]) throws(Finding) {
        let text = String(decoding: input, as: UTF8.self)
        switch target {
        case .job:
            guard let job = try? Job.decode(Array(input)) else { return }
            let again = try? Job.decode(Array(job.encoded().utf8))
            if again != job { throw finding(target, input, "the job does not survive encode/decode") }
            try behave(job, config: HeraldConfig(), target, input)
        case .span:
            guard let span = try? TimeSpan.parse(text) else { return }
            if (try? TimeSpan.parse(TimeSpan.format(span))) != span {
                throw finding(target, input, "'\(TimeSpan.format(span))' does not parse back to \(span.microseconds) µs")
            }
        case .event:
            try event(text, target, input)
        case .phrase:
            // Any answer is in the zone's reach and not before the current minute.
            for zone in [TimeZoneRules.utc, berlin] {
                guard let meaning = try? TimePhrase.parse(text, now: now, zone: zone) else { continue }
                if meaning.instant < now - .seconds(60) {
                    throw finding(target, input, "'\(text)' means \(meaning.instant), before now")
                }
                _ = ISO8601.format(meaning.instant, in: meaning.zone)
            }
        case .calendar:
            try calendar(input, target)
        case .config:
            guard let config = try? ConfigLoader.load(contents: Array(input), path: "/fuzz/config.yaml",
                                                      environment: ["HOME": "/home/fuzz"]) else { return }
            try configInUse(config, target, input)
        }
    }

    /// A calendar expression: its normalized form parses to itself, and it elapses forward,
    /// never twice within a second.
    static func event(_ text: String, _ target: Target, _ input: [UInt8]) throws(Finding) {
        guard let event = try? CalendarEvent.parse(text) else { return }
        guard let again = try? CalendarEvent.parse(event.description), again.description == event.description else {
            throw finding(target, input, "the normalized form '\(event)' does not parse to itself")
        }
        for zone in [TimeZoneRules.utc, berlin] {
            var t = Instant(seconds: 1_795_352_700)
            for k in 0..<4 {
                guard let next = event.next(after: t, in: zone) else { break }
                if next <= t { throw finding(target, input, "elapse \(next) is not after \(t)") }
                if k > 0, next - t < .seconds(1) {
                    throw finding(target, input, "elapses \(t) and \(next) are less than a second apart")
                }
                t = next
            }
        }
    }

    /// What the daemon does with a job it took in: its firings, each one's role, warning target
    /// and popup, a snooze and a repeat of it, and its listing line.
    static func behave(_ job: Job, config: HeraldConfig, _ target: Target, _ input: [UInt8]) throws(Finding) {
        let renderer = MessageRenderer(config: config)
        for zone in [TimeZoneRules.utc, berlin] {
            guard let schedule = try? JobSchedule(job, localZone: zone, defaultLead: config.lead) else { continue }
            var firing = schedule.first(now: now)
            var previous: Instant? = nil
            for _ in 0..<4 {
                guard let f = firing else { break }
                if let previous, f <= previous { throw finding(target, input, "firing \(f) comes after \(previous), not later") }
                _ = schedule.role(of: f)
                _ = schedule.target(ofWarning: f)
                let name = JobFileName(id: job.id ?? "fuzz", occurrence: f)
                _ = name.description
                let shownAt = max(f, now)
                let request = renderer.render(DueOccurrence(job: job, schedule: schedule, name: name), now: shownAt)
                if request.summary.utf8.count + request.body.utf8.count > maximumPopupText {
                    throw finding(target, input, "its popup holds \(request.summary.utf8.count + request.body.utf8.count) bytes", .budget)
                }
                _ = request.expiry.milliseconds
                // Snooze and repeat as the engine does them: the same occurrence, again later.
                for length in [config.snooze] + config.popups.snoozeChoices + (job.repeat.map { [$0] } ?? []) {
                    // Instant + Span saturates rather than trap; a sum past the ends of Int64
                    // still means a span got past its bound (Job+Limits), which is a finding.
                    guard !shownAt.microseconds.addingReportingOverflow(length.microseconds).overflow else {
                        throw finding(target, input, Self.snoozeOverflow + " '\(TimeSpan.format(length))' at \(shownAt)")
                    }
                    _ = JobFileName.snoozed(id: name.id, pending: name, lastShown: f, now: shownAt, length: length)?.description
                }
                previous = f
                firing = schedule.next(after: f, now: shownAt)
            }
            _ = job.summary(config: config, zone: zone, now: now)
        }
    }

    /// An iCalendar file as heraldd's calendar queue reads it: parsed, its alarms expanded over
    /// the planning window, each item's alarms planned into a job that heraldd must accept.
    static func calendar(_ input: [UInt8], _ target: Target) throws(Finding) {
        guard let file = try? ICalendarFile(path: "/fuzz/calendar.ics", bytes: input) else { return }
        let (alarms, _) = file.alarms(from: now - .seconds(86_400), to: now + .seconds(36 * 86_400), localZone: berlin)
        if alarms.count > maximumAlarms { throw finding(target, input, "\(alarms.count) alarms in 37 days", .budget) }
        var byUID: [String: [CalendarAlarm]] = [:]
        var order: [String] = []
        for alarm in alarms {
            if byUID[alarm.uid] == nil { order.append(alarm.uid) }
            byUID[alarm.uid, default: []].append(alarm)
        }
        let source = HeraldConfig.CalendarSource(path: "/fuzz", writeBack: true)
        for uid in order.prefix(8) {
            guard let (job, _) = CalendarPlanner.job(for: byUID[uid]!, file: "/fuzz/calendar.ics", source: source,
                                                      since: now - .seconds(86_400), localZone: berlin) else { continue }
            let decoded: Job
            do { decoded = try Job.decode(Array(job.encoded().utf8)) } catch {
                throw finding(target, input, "the planned job for UID \(uid.debugDescription) is refused: \(error)")
            }
            try behave(decoded, config: HeraldConfig(), target, input)
        }
    }

    /// Jobs of each kind that a config's values act on.
    static let sampleJobs: [Job] = [
        #"{"version":1,"kind":"delivery","at":"2026-11-23T13:00:00Z","recipient":{"name":"Zoë"},"items":[{"name":"milk","quantity":2}]}"#,
        #"{"version":1,"kind":"reminder","at":"2026-11-23T13:00:00Z","text":"Tea","repeat":"5m"}"#,
        #"{"version":1,"kind":"habit","every":"*-*-* 09..17:00","title":"Water","times":"3/week"}"#,
    ].compactMap { try? Job.decode(Array($0.utf8)) }

    /// A loaded config put to use: its templates, lead, snooze choices, quiet hours, grace and
    /// retention, in the arithmetic heraldd does with them.
    static func configInUse(_ config: HeraldConfig, _ target: Target, _ input: [UInt8]) throws(Finding) {
        for job in sampleJobs { try behave(job, config: config, target, input) }
        if let quiet = config.quietHours {
            for hours in [0, 3, 11, 22] { _ = quiet.end(containing: now + .seconds(Int64(hours) * 3600), zone: berlin) }
            _ = quiet.description
        }
        _ = now - config.catchUpGrace
        _ = now - config.retention
        for expiry in config.popups.expire.values { _ = expiry.milliseconds }
    }
}
