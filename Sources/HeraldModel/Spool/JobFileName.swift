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
        guard name.hasSuffix(".json") else { return nil }
        let parts = name.dropLast(5).split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, Job.isValidID(String(parts[0])),
              let occ = Int64(parts[1]) else { return nil }
        id = String(parts[0])
        occurrence = Instant(microseconds: occ)
        if parts.count == 3 {
            guard let s = Int64(parts[2]) else { return nil }
            snoozedUntil = Instant(microseconds: s)
        } else {
            snoozedUntil = nil
        }
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
