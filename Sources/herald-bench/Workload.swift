import HeraldCore

/// The jobs the benchmark schedules, and how a popup is traced back to its job: each job's
/// text is a key such as `L-17` (lateness), `B-3` (burst), `P-5` (pickup), `E-2` (enqueue)
/// `Q-99` (the background queue, which must not fire during the run), `F-1` (due while the
/// first start files the queue), `T-4` (ticks during a second import) or `R-7` (that import,
/// which must not fire either).
enum Workload {
    enum Group: Character, CaseIterable {
        case queue = "Q", lateness = "L", burst = "B", pickup = "P", enqueue = "E", firstStart = "F", tick = "T", backlog = "R"
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
}
