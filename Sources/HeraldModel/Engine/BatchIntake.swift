/// The batches being taken in from `new/`, each in parts: whether its first part fitted under
/// the spool's limit, how many of its jobs were filed, skipped or failed, and the batches that
/// wait for a name still in use. The engine asks it at each part; it owns these tables alone.
struct BatchIntake: Sendable {
    /// A batch being taken in: its jobs so far.
    struct Counts: Sendable {
        var added = 0
        var skipped = 0
        var failed = 0
    }

    enum State: Sendable {
        /// Refused (over the limit): its later parts are passed over.
        case refused
        case taking(Counts)
    }

    private var batches: [String: State] = [:]
    /// Claimed batches read a second time while being filed: their parts are ignored.
    private var duplicateReads: Set<String> = []
    /// Valid batches whose claim name was taken by a batch still being filed.
    private var waiting: Set<String> = []

    /// What to do with a batch's part.
    enum Decision: Sendable, Equatable {
        /// Its first part, and it does not fit: refuse it (with why).
        case refuse
        /// Take its candidates in.
        case take
        /// Pass over it (a second read, or a refused batch's later part).
        case ignore
    }

    /// Decides about `part`; `fits` says whether a batch's jobs fit under the limit (asked of its first part).
    mutating func decide(_ part: BatchPart, fits: (Int) -> Bool) -> Decision {
        let name = part.file
        var refusedNow = false
        if part.isFirst {
            if batches[name] != nil {
                duplicateReads.insert(name)
            } else if !part.resumed, !fits(part.total) {
                batches[name] = .refused
                refusedNow = true
            } else {
                batches[name] = .taking(Counts())
            }
        }
        if duplicateReads.contains(name) {
            if part.isLast { duplicateReads.remove(name) }
            return .ignore
        }
        guard case .taking? = batches[name] else {
            if part.isLast { batches.removeValue(forKey: name) }
            return refusedNow ? .refuse : .ignore
        }
        return .take
    }

    /// Counts what became of a part's candidates.
    mutating func count(_ batch: String, added: Int = 0, skipped: Int = 0, failed: Int = 0) {
        guard case .taking(var counts)? = batches[batch] else { return }
        counts.added += added
        counts.skipped += skipped
        counts.failed += failed
        batches[batch] = .taking(counts)
    }

    /// The counts of a batch being taken in, if it is.
    func counts(of batch: String) -> Counts? {
        if case .taking(let c)? = batches[batch] { return c }
        return nil
    }

    /// A batch whose last part was filed with failures: it stays in `new/`, and is forgotten here.
    mutating func abandon(_ batch: String) { batches.removeValue(forKey: batch) }

    /// A batch was removed from `new/` whole: its counts, and the batches that waited for its name.
    mutating func finish(_ batch: String) -> (counts: Counts, waiting: [String])? {
        guard case .taking(let counts)? = batches.removeValue(forKey: batch) else { return nil }
        defer { waiting.removeAll() }
        return (counts, waiting.sorted())
    }

    /// A batch waits until another of its name is filed.
    mutating func wait(_ name: String) { waiting.insert(name) }
}
