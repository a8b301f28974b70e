/// The name of a pending job's file in `jobs/`: `<id>@<next occurrence µs>[@<fire at µs>].json`.
///
/// The name carries the job's whole mutable state, so every state change is one atomic
/// `rename(2)` and the daemon starts without reading a single job file. The file's content, the
/// job document, never changes once accepted.
public struct JobFileName: Hashable, Sendable, CustomStringConvertible {
    public var id: String
    /// The occurrence this job fires for next.
    public var occurrence: Instant
    /// When a snoozed occurrence fires again; nil when it fires at `occurrence`.
    public var snoozedUntil: Instant?

    public init(id: String, occurrence: Instant, snoozedUntil: Instant? = nil) {
        self.id = id; self.occurrence = occurrence; self.snoozedUntil = snoozedUntil
    }

    /// When the job should fire.
    public var fireAt: Instant { snoozedUntil ?? occurrence }

    public var description: String {
        var s = id + "@" + String(occurrence.microseconds)
        if let snoozedUntil { s += "@" + String(snoozedUntil.microseconds) }
        return s + ".json"
    }

    /// Parses a file name; nil for anything else (temporary files, strays).
    public init?(parsing name: String) {
        var name = name
        guard let parsed = name.withUTF8({ JobFileName(utf8: $0) }) else { return nil }
        self = parsed
    }

    /// Parses a file name's bytes (a directory entry's, with no String made for it): heraldd's
    /// start parses every name in `jobs/`. Only the one spelling `description` gives is a job's
    /// name (numbers with no `+`, no leading zeros, no `-0`): paths are rebuilt from the parsed
    /// value, so a name spelled otherwise would name a file that is not there.
    public init?(utf8 name: UnsafeBufferPointer<UInt8>) {
        let n = name.count
        guard n > 5, name[n - 5] == UInt8(ascii: "."), name[n - 4] == UInt8(ascii: "j"), name[n - 3] == UInt8(ascii: "s"),
              name[n - 2] == UInt8(ascii: "o"), name[n - 1] == UInt8(ascii: "n") else { return nil }
        let end = n - 5
        var i = 0
        while i < end, name[i] != UInt8(ascii: "@") {
            guard Job.isIDByte(name[i]) else { return nil }
            i += 1
        }
        guard i < end, (1...64).contains(i) else { return nil }
        let idEnd = i
        func number(from start: Int) -> (value: Int64, end: Int)? {
            var k = start
            var negative = false
            if k < end, name[k] == UInt8(ascii: "-") {
                negative = true
                k += 1
            }
            let digits = k
            // "0" alone, or a first digit that is not 0 ("-0" is not written either).
            if k < end, name[k] == UInt8(ascii: "0"), negative || (k + 1 < end && name[k + 1] != UInt8(ascii: "@")) { return nil }
            var value: Int64 = 0
            while k < end, name[k] != UInt8(ascii: "@") {
                let d = name[k] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = negative ? times.subtractingReportingOverflow(Int64(d)) : times.addingReportingOverflow(Int64(d))
                guard !o1, !o2 else { return nil }
                value = next
                k += 1
            }
            return k > digits ? (value, k) : nil
        }
        guard let occ = number(from: idEnd + 1) else { return nil }
        if occ.end == end {
            snoozedUntil = nil
        } else {
            guard let snoozed = number(from: occ.end + 1), snoozed.end == end else { return nil }
            snoozedUntil = Instant(microseconds: snoozed.value)
        }
        id = String(decoding: UnsafeBufferPointer(rebasing: name[..<idEnd]), as: UTF8.self)
        occurrence = Instant(microseconds: occ.value)
    }
}

extension JobFileName {
    /// The state a snooze by `length` at `now` gives job `id`: the occurrence last shown comes
    /// back `length` from now (also when it is waiting to repeat); a job not shown since its
    /// current occurrence is put off by `length` instead. Nil when there is nothing to snooze.
    ///
    /// - Parameters:
    ///   - pending: the job's current name in `jobs/`, if it is pending.
    ///   - lastShown: the occurrence shown last (a popup's, or a finished job's), if any.
    public static func snoozed(id: String, pending: JobFileName?, lastShown: Instant?, now: Instant, length: Span) -> JobFileName? {
        if let shown = lastShown, pending.map({ shown <= $0.occurrence }) ?? true {
            return JobFileName(id: id, occurrence: shown, snoozedUntil: now + length)
        }
        guard let pending else { return nil }
        return JobFileName(id: id, occurrence: pending.occurrence, snoozedUntil: max(pending.fireAt, now) + length)
    }
}
