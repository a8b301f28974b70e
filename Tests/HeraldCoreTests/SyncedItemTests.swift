import Testing
@testable import HeraldCore
@testable import HeraldModel

/// A job written as a calendar item (`--sync`) alarms, when read back as any calendar is, at
/// exactly the times the job itself fires.
struct SyncedItemTests {
    let berlin = try! TimeZoneRules.named("Europe/Berlin")
    /// Wednesday 2026-11-25 10:00 UTC.
    let now = ISO8601.parseInstant("2026-11-25T10:00:00Z")!

    func item(_ job: Job, now: Instant? = nil, maxRepeats: Int = 12, lead: Span = .minutes(15)) throws -> (text: String, file: ICalendarFile) {
        var job = job
        if job.id == nil { job.id = "t1" }
        job.resolveZones(ZoneFiles.lookup)
        let schedule = try JobSchedule(job, localZone: berlin, defaultLead: lead)
        let text = try SyncedItem.document(job, schedule: schedule, now: now ?? self.now, maxRepeats: maxRepeats, defaultLead: lead)
        return (text, try ICalendarFile(path: "/v/herald-t1.ics", bytes: Array(text.utf8), zones: ZoneFiles.lookup))
    }

    func alarms(_ file: ICalendarFile, days: Int64 = 30) -> [CalendarAlarm] {
        let result = file.alarms(from: now - .seconds(1), to: now + .seconds(days * 86_400), localZone: berlin)
        #expect(result.problems.isEmpty, "\(result.problems)")
        return result.alarms.sorted { $0.at < $1.at }
    }

    @Test func aReminderIsAToDoDueAtItsTimeWithItsWarningsAndRepeats() throws {
        let at = now + .minutes(180)
        let job = Job(kind: .reminder, at: at, text: "Call the garage", urgency: .critical, repeat: .minutes(5), warn: [.minutes(10)])
        let (text, file) = try item(job, maxRepeats: 3)
        #expect(text.contains("BEGIN:VTODO\r\nUID:herald-t1\r\n"))
        #expect(text.contains("\r\nDUE:20261125T130000Z\r\n"))
        #expect(text.contains("\r\nSTATUS:NEEDS-ACTION\r\n") && text.contains("\r\nPRIORITY:1\r\n") && text.contains("\r\nX-HERALD-KIND:reminder\r\n"))
        #expect(text.contains("TRIGGER;RELATED=END:PT0S\r\nREPEAT:3\r\nDURATION:PT5M\r\n"))
        #expect(text.hasSuffix("END:VTODO\r\nEND:VCALENDAR\r\n"))
        let got = alarms(file)
        let expected: [Instant] = [at - .minutes(10), at, at + .minutes(5), at + .minutes(10), at + .minutes(15)]
        #expect(got.map { $0.at } == expected)
        #expect(got.allSatisfy { (a: CalendarAlarm) in a.isTodo && a.summary == "Call the garage" && a.alarmUID?.hasPrefix("herald-t1-alarm-") == true })
        #expect(file.items.map(\.uid) == ["herald-t1"])
    }

    @Test func aTimerIsMarkedAsOne() throws {
        var job = Job(kind: .reminder, at: now + .minutes(30), text: "Shopping timer: 30 minutes are up", tags: ["timer"])
        job.id = "t1"
        let (text, file) = try item(job)
        #expect(text.contains("X-HERALD-KIND:timer") && text.contains("CATEGORIES:timer"))
        #expect(alarms(file).map { $0.at } == [now + .minutes(30)])
    }

    /// `herald alarm --sync`: a to-do whose main alarm is AUDIO (a phone rings it), marked as an
    /// alarm; read back here it is a calendar job that rings, stops and wakes as an alarm does.
    @Test func anAlarmIsAToDoWithAnAudioAlarmThatRingsAndWakesWhenReadBack() throws {
        let job = Job(kind: .alarm, at: now + .minutes(60), title: "Wake up")
        let (text, file) = try item(job)
        #expect(text.contains("BEGIN:VTODO") && text.contains("\r\nX-HERALD-KIND:alarm\r\n") && text.contains("\r\nPRIORITY:1\r\n"))
        #expect(text.contains("BEGIN:VALARM\r\nUID:herald-t1-alarm-0\r\nACTION:AUDIO\r\nTRIGGER;RELATED=END:PT0S\r\n"), "\(text)")
        let got = alarms(file)
        #expect(got.map(\.at) == [now + .minutes(60)])
        #expect(got.first?.action == .audio && got.first?.heraldKind == "alarm")
        let planned = try #require(CalendarPlanner.job(for: got, file: "herald-t1.ics", source: .init(path: "/v"), since: now,
                                                        localZone: berlin)?.job)
        #expect(planned.wake == true)
        var config = HeraldConfig()
        config.alarms.ringFor = .minutes(7)
        #expect(planned.kind.rules.ringsFor(planned, config: config) == .minutes(7))
        #expect(planned.effectiveUrgency(config) == .critical)
        let schedule = try JobSchedule(planned, localZone: berlin)
        let due = DueOccurrence(job: planned, schedule: schedule, name: JobFileName(id: planned.id!, occurrence: now + .minutes(60)))
        #expect(planned.kind.rules.actions(for: due, config: config) == [.stop, .snooze(nil)])
    }

    @Test func aDeliveryIsAnEventAtItsArrivalWithItsAddress() throws {
        let arrival = now + .minutes(120)
        let job = Job(kind: .delivery, at: arrival, recipient: .init(name: "Alice Smith", address: "12 Elm St, Springfield"),
                      items: [.init(name: "apple"), .init(name: "milk", quantity: 2)], lead: .minutes(20))
        let (text, file) = try item(job)
        #expect(text.contains("BEGIN:VEVENT") && !text.contains("VTODO"))
        #expect(text.contains("\r\nLOCATION:12 Elm St\\, Springfield\r\n"))
        #expect(text.contains("\r\nDESCRIPTION:For Alice Smith\\napple\\nmilk ×2\r\n"))
        #expect(text.contains("\r\nDTSTART:20261125T120000Z\r\n"))
        let got = alarms(file)
        #expect(got.map { $0.at } == [arrival - .minutes(20), arrival])
        #expect(got.allSatisfy { (a: CalendarAlarm) in !a.isTodo && a.summary == "Delivery: 3 items" && a.location == "12 Elm St, Springfield" })
    }

    /// A recurring job's item recurs in its zone across a daylight-saving change (late March) at
    /// the times the calendar expression elapses, for each form an RRULE can say.
    @Test(arguments: ["Mon..Fri 09:00", "*-*-* 09..17:00/30", "Sat,Sun 10:00 Europe/London", "*-*~1 18:00", "*-*~1,3 20:00", "*-*-01,15 08:30",
                      "*-03,04-* 07:15", "hourly", "weekly", "*:0/20", "Mon *-*-* 12:00:30", "*-*-* 06:00 UTC"])
    func aRecurringJobsItemRecursAsItsCalendarExpression(_ every: String) throws {
        let start = ISO8601.parseInstant("2027-03-20T10:00:00Z")!
        let job = Job(kind: .reminder, every: every, text: "Stretch")
        let (text, file) = try item(job, now: start)
        #expect(text.contains("RRULE:FREQ=DAILY;"))
        var resolved = job
        resolved.id = "t1"
        resolved.resolveZones(ZoneFiles.lookup)
        let schedule = try JobSchedule(resolved, localZone: berlin)
        let days: Int64 = every == "hourly" || every == "*:0/20" ? 4 : 45
        let end = start + .seconds(days * 86_400)
        var expected: [Instant] = []
        var cursor = start
        while let t = schedule.main(after: cursor), t < end { expected.append(t); cursor = t }
        let read = file.alarms(from: start, to: end, localZone: berlin)
        #expect(read.problems.isEmpty, "\(read.problems)")
        #expect(read.alarms.map(\.at).sorted() == expected, "\(every): \(text)")
        #expect(!expected.isEmpty)
    }

    @Test func whatAnRRULECannotSayIsRefusedNamingIt() throws {
        func refusal(_ job: Job) -> String? {
            do { _ = try item(job); return nil } catch { return "\(error)" }
        }
        #expect(refusal(Job(kind: .reminder, every: "2027-*-* 09:00", text: "x")) == "'every' '2027-*-* 09:00' names years, which a calendar's repeat rule (RRULE) cannot say")
        #expect(refusal(Job(kind: .reminder, every: "*:*:0/30", text: "x")) == "'every' '*:*:0/30' elapses 2880 times a day; a synced item may at most once a minute (1440 a day)")
        #expect(refusal(Job(kind: .reminder, every: "*-*~7/2 09:00", text: "x")) == "'every' '*-*~7/2 09:00' repeats days counted from the end of the month, which RRULE cannot say")
        var two = Job(kind: .reminder, every: "Mon 09:00", text: "x")
        two.every.append("Fri 17:00")
        #expect(refusal(two) == "a synced job takes one 'every' schedule, not 2: one calendar item has one RRULE")
        #expect(refusal(Job(kind: .habit, every: "daily", text: "Water")) == "only reminders, timers, alarms and deliveries can be synced, not a habit")
    }

    @Test func textIsEscapedAndFoldedAndReadsBackTheSame() throws {
        let title = "Ring Zoë; bring milk, eggs \\ bread\n" + String(repeating: "ä", count: 60)
        let (text, file) = try item(Job(kind: .reminder, at: now + .minutes(60), text: title))
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) { #expect(line.utf8.count <= 75, "\(line)") }
        #expect(alarms(file).first?.summary == title)
    }

    /// `herald reschedule` of a synced job moves its DUE (an event's DTSTART, with its end) and
    /// drops its snoozes; its alarms follow. A recurring item is refused.
    @Test func reschedulingMovesTheItemsTimeAndDropsItsSnoozes() throws {
        let at = now + .minutes(60)
        let (text, _) = try item(Job(kind: .reminder, at: at, text: "Call the garage", warn: [.minutes(10)]))
        var uids = ["herald-s1"].makeIterator()
        let snooze = CalendarWriteBack(file: "i.ics", uid: "herald-t1", component: nil, alarm: 0, alarmUID: "herald-t1-alarm-0",
                                       change: .snoozed(until: at + .minutes(5)), at: at + .seconds(2))
        let (snoozed, _) = try #require(try snooze.apply(to: Array(text.utf8), localZone: berlin, zones: ZoneFiles.lookup, newUID: { uids.next()! }))
        let later = now + .minutes(180)
        let (moved, crlf) = try SyncedItem.rescheduled(Array(snoozed.joined(separator: "\r\n").utf8), path: "i.ics", uid: "herald-t1",
                                                       to: later, now: now + .minutes(2), zones: ZoneFiles.lookup)
        #expect(crlf)
        #expect(moved.contains("DUE:20261125T130000Z") && moved.contains("LAST-MODIFIED:20261125T100200Z"))
        #expect(!moved.contains { $0.hasPrefix("X-MOZ-SNOOZE-TIME") || $0.hasPrefix("RELATED-TO") }, "\(moved)")
        let file = try ICalendarFile(path: "i.ics", bytes: Array(moved.joined(separator: "\r\n").utf8), zones: ZoneFiles.lookup)
        #expect(alarms(file).map { $0.at } == [later - .minutes(10), later])
        // A recurring item starts over from its first occurrence at or after the new time, in its zone.
        let (recurring, _) = try item(Job(kind: .reminder, every: "Mon..Fri 09:00", text: "Stand-up"))
        #expect(recurring.contains("DTSTART;TZID=Europe/Berlin:20261126T090000"))
        let monday = ISO8601.parseInstant("2026-11-28T12:00:00Z")!  // a Saturday: the next is Monday 30th
        let (restarted, _) = try SyncedItem.rescheduled(Array(recurring.utf8), path: "r.ics", uid: "herald-t1", to: monday, now: now,
                                                        zones: ZoneFiles.lookup)
        #expect(restarted.contains("DTSTART;TZID=Europe/Berlin:20261130T090000") && restarted.contains("DUE;TZID=Europe/Berlin:20261130T090000"), "\(restarted)")
        let again = try ICalendarFile(path: "r.ics", bytes: Array(restarted.joined(separator: "\r\n").utf8), zones: ZoneFiles.lookup)
        let read = again.alarms(from: now, to: now + .seconds(8 * 86_400), localZone: berlin).alarms.map { $0.at }.sorted()
        #expect(read.first == ISO8601.parseInstant("2026-11-30T08:00:00Z") && read.count == 4, "\(read)")  // Mon 30 to Thu 3
    }

    @Test func aZoneBecomesAVTimezoneWithItsRules() throws {
        let lines = try #require(berlin.vtimezone(tzid: "Europe/Berlin"))
        #expect(lines == ["BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
                          "BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET",
                          "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
                          "BEGIN:DAYLIGHT", "DTSTART:19700329T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST",
                          "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT", "END:VTIMEZONE"])
        let tokyo = try TimeZoneRules.named("Asia/Tokyo").vtimezone(tzid: "Asia/Tokyo")
        #expect(tokyo?.contains("TZOFFSETTO:+0900") == true)
        #expect(ICalWriter.duration(.minutes(-90)) == "-PT1H30M" && ICalWriter.duration(.zero) == "PT0S" && ICalWriter.duration(.seconds(86_400 + 5)) == "P1DT5S")
    }
}
