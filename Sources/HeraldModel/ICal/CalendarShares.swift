/// How much room each calendar source, each of its collections and each of their files has in
/// the spool: a calendar is written by other people, and no one of them may take the room of
/// your own reminders or of another calendar.
///
/// Calendars together have at most half of `limits.jobs`, split equally between the sources,
/// and a source never more than `calendars.limit` items. Within a source, the collections share
/// its room, and within a collection the files share theirs, each fairly (max-min: whoever needs
/// less than an equal share keeps what it needs, the rest is split among the others). What is
/// left by rounding goes to the items nearest in time, wherever they are; so with more items
/// than room, the ones nearest in time are planned, and a flood in one file or folder cannot
/// push out the rest.
public enum CalendarShares {
    /// The room of one source: at most `limit`, and an equal part of half the spool's limit.
    public static func sourceShare(maxJobs: Int, sources: Int, limit: Int) -> Int {
        max(1, min(limit, maxJobs / 2 / max(1, sources)))
    }

    /// One item that wants a job: where it lives and when its first alarm to show is.
    public struct Candidate: Sendable, Equatable {
        public var collection: String
        public var file: String
        public var first: Instant
        public init(collection: String, file: String, first: Instant) { self.collection = collection; self.file = file; self.first = first }
    }

    /// The candidates kept within `room`, as indexes into `candidates`, in their order.
    public static func select(_ candidates: [Candidate], room: Int) -> [Int] {
        guard candidates.count > room else { return Array(candidates.indices) }
        guard room > 0 else { return [] }
        // Nearest first, and a stable order among equals (the caller's, which is the files' order).
        let order = candidates.indices.sorted { (candidates[$0].first, $0) < (candidates[$1].first, $1) }
        var byCollection: [String: [Int]] = [:]
        var collections: [String] = []
        for k in order {
            if byCollection[candidates[k].collection] == nil { collections.append(candidates[k].collection) }
            byCollection[candidates[k].collection, default: []].append(k)
        }
        var kept = [Bool](repeating: false, count: candidates.count)
        let collectionRoom = fair(collections.map { byCollection[$0]!.count }, room: room)
        for (c, name) in collections.enumerated() {
            let members = byCollection[name]!
            var byFile: [String: [Int]] = [:]
            var files: [String] = []
            for k in members {
                if byFile[candidates[k].file] == nil { files.append(candidates[k].file) }
                byFile[candidates[k].file, default: []].append(k)
            }
            let fileRoom = fair(files.map { byFile[$0]!.count }, room: collectionRoom[c])
            for (f, file) in files.enumerated() {
                for k in byFile[file]!.prefix(fileRoom[f]) { kept[k] = true }
            }
        }
        // What rounding left over: the nearest of the rest.
        var left = room - kept.lazy.filter { $0 }.count
        for k in order where left > 0 && !kept[k] {
            kept[k] = true
            left -= 1
        }
        return candidates.indices.filter { kept[$0] }
    }

    /// Max-min fair shares of `room` for `demands`, in whole items (rounded down).
    static func fair(_ demands: [Int], room: Int) -> [Int] {
        var out = [Int](repeating: 0, count: demands.count)
        var left = room
        let order = demands.indices.sorted { demands[$0] < demands[$1] }
        for (n, k) in order.enumerated() {
            let others = demands.count - n
            // Whoever needs no more than an equal part of what is left keeps what it needs.
            if demands[k] * others <= left {
                out[k] = demands[k]
                left -= demands[k]
            } else {
                let level = left / others
                for j in order[n...] { out[j] = min(demands[j], level) }
                break
            }
        }
        return out
    }
}
