/// A Dismiss, Snooze or Done of a calendar alarm, to be written into its item as RFC 9074 says:
/// `ACKNOWLEDGED` on the VALARM (every alarm instant up to then is handled), and a snooze as a
/// new VALARM `RELATED-TO;RELTYPE=SNOOZE` the original, with an absolute TRIGGER. Thunderbird's
/// convention is written beside it on the event or to-do (`X-MOZ-LASTACK`, and
/// `X-MOZ-SNOOZE-TIME`, or `X-MOZ-SNOOZE-TIME-<occurrence in µs>` for a recurring item), and a
/// to-do done is `STATUS:COMPLETED`, `COMPLETED` and `PERCENT-COMPLETE:100`. Only those lines
/// change (and a `UID` is added to a VALARM without one, so a snooze can name it).
public struct CalendarWriteBack: Sendable, Equatable {
    public enum Change: Sendable, Equatable {
        case acknowledged
        case snoozed(until: Instant)
        /// Done on a to-do: completed (a recurring one: this occurrence acknowledged).
        case completed
        public var label: String {
            switch self {
            case .acknowledged: return "acknowledged"
            case .snoozed: return "snoozed"
            case .completed: return "completed"
            }
        }
    }

    /// The file the job names, and the configured source it names: a request only. heraldd
    /// writes it when a `calendars` source with `writeBack` lists that file (`CalendarSync`),
    /// never on the job document's word: any program may put a job into `new/`.
    public var file: String
    public var source: String
    public var uid: String
    /// The component's recurrence id as Herald formats it (nil: the master).
    public var component: String?
    public var alarm: Int
    public var alarmUID: String?
    /// The occurrence's original start as Herald formats it (nil: the item does not recur).
    public var recurrenceID: String?
    public var change: Change
    /// When it was handled (the ACKNOWLEDGED value).
    public var at: Instant

    public init(file: String, source: String = "", uid: String, component: String?, alarm: Int, alarmUID: String?,
                recurrenceID: String? = nil, change: Change, at: Instant) {
        self.file = file; self.source = source; self.uid = uid; self.component = component; self.alarm = alarm; self.alarmUID = alarmUID
        self.recurrenceID = recurrenceID; self.change = change; self.at = at
    }

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// The file's lines after the change, or nil when the item or its alarm is gone (edited
    /// meanwhile: nothing to write).
    public func apply(to bytes: [UInt8], localZone: TimeZoneRules, zones: @escaping ZoneLookup,
                      newUID: () -> String) throws(Failure) -> (lines: [String], crlf: Bool)? {
        let calendar: ICalendarFile
        do { calendar = try ICalendarFile(path: file, bytes: bytes, zones: zones) } catch { throw Failure(description: "\(file): \(error)") }
        // Its lines are rewritten as read: a line that is not UTF-8 would not be written back as it was.
        guard !calendar.document.lossy else { throw Failure(description: "\(file) is not all UTF-8; nothing is written back to it") }
        guard let item = calendar.items.first(where: { $0.uid == uid }) else { return nil }
        // A line of it that could not be read might have been an attendee: never written to.
        guard ([item.master].compactMap { $0 } + item.overrides).allSatisfy({ $0.allSkipped.isEmpty }) else {
            throw Failure(description: "the item has lines Herald could not read; nothing is written back to it")
        }
        // Checked in the file as it is now, not as it was planned: servers may email every attendee.
        let components = (item.master.map { [$0] } ?? []) + item.overrides
        guard !components.contains(where: { $0.property("ATTENDEE") != nil }) else {
            throw Failure(description: "the item has attendees; nothing is written back to it")
        }
        let owner: ICalComponent?
        if let component {
            owner = item.overrides.first { o in
                o.property("RECURRENCE-ID").flatMap { try? item.time($0) }.map { ICalItem.format($0, localZone: localZone) } == component
            }
        } else {
            owner = item.master
        }
        guard let owner else { return nil }
        let valarms = owner.components.filter { $0.name == "VALARM" }
        let target: ICalComponent
        if let alarmUID, let byUID = valarms.first(where: { $0.property("UID")?.value == alarmUID }) { target = byUID }
        else if alarmUID == nil, alarm < valarms.count { target = valarms[alarm] }
        else { return nil }

        var lines = calendar.document.lines
        var edits: [(range: Range<Int>, lines: [String])] = []
        let stamp = Self.utc(at)
        let isSnoozeAlarm = target.properties("RELATED-TO").contains { $0.parameter("RELTYPE")?.uppercased() == "SNOOZE" }
        var targetUID = target.property("UID")?.value
        if targetUID == nil {
            targetUID = newUID()
            edits.append((target.beginLine + 1 ..< target.beginLine + 1, ["UID:" + targetUID!]))
        }
        func setAcknowledged(_ alarm: ICalComponent) {
            if let ack = alarm.property("ACKNOWLEDGED") { edits.append((ack.lines, ["ACKNOWLEDGED:" + stamp])) }
            else { edits.append((alarm.endLine ..< alarm.endLine, ["ACKNOWLEDGED:" + stamp])) }
        }
        func retrigger(_ alarm: ICalComponent, _ until: Instant) {
            let line = "TRIGGER;VALUE=DATE-TIME:" + Self.utc(until)
            if let t = alarm.property("TRIGGER") { edits.append((t.lines, [line])) } else { edits.append((alarm.endLine ..< alarm.endLine, [line])) }
            if let ack = alarm.property("ACKNOWLEDGED") { edits.append((ack.lines, [])) }
        }
        // Thunderbird's properties sit on the event or to-do, before its alarms (RFC 5545 puts a
        // component's properties before its subcomponents).
        let recurs = item.master.map { $0.property("RRULE") != nil || $0.property("RDATE") != nil } ?? false || recurrenceID != nil
        func setOnOwner(_ name: String, _ value: String?) {
            let existing = owner.properties.filter { $0.name == name }
            for (k, p) in existing.enumerated() { edits.append((p.lines, k == 0 && value != nil ? [name + ":" + value!] : [])) }
            if existing.isEmpty, let value { edits.append((owner.beginLine + 1 ..< owner.beginLine + 1, [name + ":" + value])) }
        }
        func clearMozSnoozes() {
            for p in owner.properties where p.name == "X-MOZ-SNOOZE-TIME" || p.name.hasPrefix("X-MOZ-SNOOZE-TIME-") { edits.append((p.lines, [])) }
        }
        switch change {
        case .acknowledged:
            setAcknowledged(target)
            setOnOwner("X-MOZ-LASTACK", stamp)
            clearMozSnoozes()
        case .completed:
            setAcknowledged(target)
            setOnOwner("X-MOZ-LASTACK", stamp)
            clearMozSnoozes()
            // A recurring to-do goes on: Done is this occurrence's, acknowledged above.
            if item.isTodo && !recurs {
                setOnOwner("STATUS", "COMPLETED")
                setOnOwner("COMPLETED", stamp)
                setOnOwner("PERCENT-COMPLETE", "100")
            }
        case .snoozed(let until):
            setOnOwner("X-MOZ-LASTACK", stamp)
            clearMozSnoozes()
            if recurs, let rid = recurrenceID, let micros = Self.microseconds(ofRecurrenceID: rid) {
                edits.append((owner.beginLine + 1 ..< owner.beginLine + 1, ["X-MOZ-SNOOZE-TIME-\(micros):" + Self.utc(until)]))
            } else {
                edits.append((owner.beginLine + 1 ..< owner.beginLine + 1, ["X-MOZ-SNOOZE-TIME:" + Self.utc(until)]))
            }
            if isSnoozeAlarm {
                retrigger(target, until)  // snoozed again: the same snooze alarm, later
            } else {
                setAcknowledged(target)
                let existing = valarms.first { a in
                    a.properties("RELATED-TO").contains { $0.parameter("RELTYPE")?.uppercased() == "SNOOZE" && $0.value == targetUID }
                }
                if let existing {
                    retrigger(existing, until)
                } else {
                    let description = target.property("DESCRIPTION")?.value ?? owner.property("SUMMARY")?.value ?? "Reminder"
                    edits.append((target.endLine + 1 ..< target.endLine + 1, [
                        "BEGIN:VALARM", "UID:" + newUID(), "RELATED-TO;RELTYPE=SNOOZE:" + targetUID!,
                        "TRIGGER;VALUE=DATE-TIME:" + Self.utc(until), "ACTION:DISPLAY", "DESCRIPTION:" + description, "END:VALARM",
                    ]))
                }
            }
        }
        Self.apply(edits, to: &lines)
        return (lines, calendar.document.crlf)
    }

    /// Replaces line ranges of a file: from the bottom up, so earlier line numbers stay valid;
    /// at one line, its replacement before an insertion there (which would otherwise push the
    /// line it replaces down).
    static func apply(_ edits: [(range: Range<Int>, lines: [String])], to lines: inout [String]) {
        for edit in edits.sorted(by: { a, b in
            a.range.lowerBound != b.range.lowerBound ? a.range.lowerBound > b.range.lowerBound : a.range.count > b.range.count
        }) {
            lines.replaceSubrange(edit.range, with: edit.lines)
        }
    }

    /// Thunderbird names a recurring item's snooze by its occurrence's start in microseconds since
    /// 1970 (an all-day occurrence: its midnight UTC).
    static func microseconds(ofRecurrenceID text: String) -> Int64? {
        if let instant = ISO8601.parseInstant(text) { return instant.microseconds }
        if let day = LocalDate(parsing: text) { return day.start(in: .utc).microseconds }
        return nil
    }

    static func utc(_ t: Instant) -> String {
        let c = CivilTime(localSeconds: t.seconds)
        return ISO8601.pad(c.year, 4) + ISO8601.pad(c.month, 2) + ISO8601.pad(c.day, 2) + "T"
            + ISO8601.pad(c.hour, 2) + ISO8601.pad(c.minute, 2) + ISO8601.pad(c.second, 2) + "Z"
    }
}
