import HeraldCore

/// The jobs the benchmark schedules, and how a popup is traced back to its job: each job's
/// text is a key such as `L-17` (lateness), `B-3` (burst), `P-5` (pickup), `E-2` (enqueue)
/// `Q-99` (the background queue, which must not fire during the run), `F-1` (due while the
/// first start files the queue, placed anywhere in it), `T-4` (ticks during a second import),
/// `R-7` (that import, which must not fire either), `A-3` (ticks imported behind a batch that
/// is still filing), `X-5` and `Y-5` (the two large batches around them), `S-9` (a batch being
/// filed across a restart) and `U-2` (a burst imported in that state).
enum Workload {
    enum Group: Character, CaseIterable {
        case queue = "Q", lateness = "L", burst = "B", pickup = "P", enqueue = "E", firstStart = "F", tick = "T", backlog = "R"
        case behind = "A", firstBatch = "X", secondBatch = "Y", resumed = "S", filingBurst = "U"
        case bigA = "G", bigB = "H", bigC = "I", afterBig = "K"
        /// Popups of notify-floor (Floors), timed and in a burst.
        case floorTimed = "W", floorBurst = "Z"

        /// Groups due hours or days after the run: none of them may fire.
        static let neverDue: [Group] = [.queue, .enqueue, .backlog, .firstBatch, .secondBatch, .resumed, .bigA, .bigB, .bigC]
    }

    struct Key: Hashable {
        var group: Group
        var index: Int
        var text: String { "\(group.rawValue)-\(index)" }

        init(_ group: Group, _ index: Int) { self.group = group; self.index = index }

        /// The key in a popup's body (or summary), if it is one of ours.
        init?(popup text: String) {
            guard let first = text.first, let group = Group(rawValue: first), text.dropFirst().first == "-",
                  let index = Int(text.dropFirst(2)) else { return nil }
            self.init(group, index)
        }
    }

    /// One reminder as a line of JSON, due at `at` (microsecond precision, UTC).
    static func line(_ key: Key, at: Instant) -> String {
        "{\"version\":1,\"kind\":\"reminder\",\"id\":\"bench-\(key.group.rawValue)\(key.index)\",\"at\":\"\(at)\",\"text\":\"\(key.text)\"}"
    }

    /// `count` jobs of `group` spread evenly from `start` over `spread`.
    static func queue(_ group: Group = .queue, count: Int, start: Instant, spread: Span) -> [String] {
        (0..<count).map { k in
            line(Key(group, k), at: start + Span(microseconds: spread.microseconds * Int64(k) / Int64(max(count, 1))))
        }
    }

    /// Where a marker job sits in a large batch.
    enum Place: String, CaseIterable {
        case head, middle, end, random
    }

    /// Marker `k`'s place: head, middle, end and random in turn, so that each place has markers
    /// early and late in the due order.
    static func place(ofMarker k: Int) -> Place { Place.allCases[k % Place.allCases.count] }

    /// `queue` with each marker line put at its place: before the first line, at the middle,
    /// after the last, or before a random line (not the first) of the queue.
    static func batch(queue: [String], markers: [(Place, String)]) -> [String] {
        var rng = SystemRandomNumberGenerator()
        var before: [Int: [String]] = [:]
        for (place, line) in markers {
            let slot: Int
            switch place {
            case .head: slot = 0
            case .middle: slot = queue.count / 2
            case .end: slot = queue.count
            case .random: slot = queue.count > 2 ? Int.random(in: 1..<queue.count, using: &rng) : queue.count / 2
            }
            before[slot, default: []].append(line)
        }
        var out: [String] = []
        out.reserveCapacity(queue.count + markers.count)
        for k in 0...queue.count {
            if let lines = before[k] { out += lines }
            if k < queue.count { out.append(queue[k]) }
        }
        return out
    }
}
