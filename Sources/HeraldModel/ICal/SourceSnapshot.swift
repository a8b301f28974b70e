/// What one read of a calendar source found: its files, the alarms of its items, the problems
/// to report. heraldd has a source read in a process of its own (`heraldd --calendar-reader`:
/// a read on a hung mount holds up that process, never heraldd), which hands this back as one
/// line of JSON; the codec is here, both ways.
public struct SourceSnapshot: Sendable {
    /// A problem to report: keyed within its file, once per version of the file.
    public struct Problem: Sendable, Equatable {
        public var file: String
        public var key: String
        public var version: String
        public var message: String
        public init(file: String, key: String, version: String, message: String) {
            self.file = file; self.key = key; self.version = version; self.message = message
        }
    }

    /// The source could not be listed (unmounted, being re-created): its jobs are kept.
    public var listingError: String?
    public var files: [String] = []
    public var items: [CalendarReconciliation.Item] = []
    public var itemCount = 0
    public var problems: [Problem] = []
    /// Files that read cleanly (their earlier problems are forgotten).
    public var clean: Set<String> = []
    /// Plan again by then (a dense item, or more alarms than are kept).
    public var completeUntil: Instant?
    /// The folders to watch.
    public var folders: [String] = []
    public var took: Span = .zero

    public init() {}

    // MARK: the wire

    /// A snapshot goes over as a header line (everything but the items, and how many follow)
    /// and then one line per item: each side holds one item's JSON at a time, not a tree of
    /// the whole calendar (10,000 items as one line held about 40 MiB in heraldd).
    public var header: String {
        func time(_ t: Instant) -> JSONWriter.Value { .string(String(t.microseconds)) }
        func optional(_ s: String?) -> JSONWriter.Value { s.map { .string($0) } ?? .null }
        return JSONWriter.render(.object([
            ("listingError", optional(listingError)),
            ("files", .array(files.map { .string($0) })),
            ("itemLines", .int(Int64(items.count))),
            ("itemCount", .int(Int64(itemCount))),
            ("problems", .array(problems.map { p in
                .object([("f", .string(p.file)), ("k", .string(p.key)), ("v", .string(p.version)), ("m", .string(p.message))])
            })),
            ("clean", .array(clean.sorted().map { .string($0) })),
            ("completeUntil", completeUntil.map(time) ?? .null),
            ("folders", .array(folders.map { .string($0) })),
            ("took", .string(String(took.microseconds))),
        ]))
    }

    /// One item's line.
    public static func line(of item: CalendarReconciliation.Item) -> String {
        func time(_ t: Instant) -> JSONWriter.Value { .string(String(t.microseconds)) }
        func optional(_ s: String?) -> JSONWriter.Value { s.map { .string($0) } ?? .null }
        return JSONWriter.render(.object([
            ("f", .string(item.file)), ("c", .string(item.collection)), ("u", .string(item.uid)),
            ("a", .array(item.alarms.map { a in
                .object([
                    ("t", time(a.at)), ("r", optional(a.recurrenceID)), ("s", .string(a.summary)), ("l", optional(a.location)),
                    ("st", time(a.start)), ("ad", .bool(a.allDay)), ("td", .bool(a.isTodo)), ("ac", .string(a.action.rawValue)),
                    ("sn", optional(a.sound)), ("ai", .int(Int64(a.alarmIndex))), ("au", optional(a.alarmUID)),
                    ("cr", optional(a.componentRecurrenceID)), ("at", .bool(a.hasAttendees)), ("hk", optional(a.heraldKind)),
                ])
            })),
        ]))
    }

    /// The whole snapshot as its lines (tests, and small ones).
    public var lines: [String] { [header] + items.map(Self.line(of:)) }

    /// The most item lines a header may announce (a calendar's share is far smaller).
    public static let maximumItemLines = 10_000_000

    /// Reads a header back: the snapshot without its items, and how many item lines follow;
    /// nil for anything that is not one (the reader is a process of Herald's own, but its
    /// output is checked as any input).
    public static func header(json bytes: [UInt8]) -> (snapshot: SourceSnapshot, itemLines: Int)? {
        guard case .object(let o)? = try? JSONValue.parse(bytes) else { return nil }
        let v = Values()
        guard let files = v.strings(o["files"]), let folders = v.strings(o["folders"]), let clean = v.strings(o["clean"]),
              let itemCount = v.int(o["itemCount"]), let itemLines = v.int(o["itemLines"]), (0...maximumItemLines).contains(itemLines),
              let took = v.string(o["took"]).flatMap({ Int64($0) }), case .array(let problemList)? = o["problems"] else { return nil }
        var snapshot = SourceSnapshot()
        snapshot.listingError = v.string(o["listingError"])
        snapshot.files = files
        snapshot.folders = folders
        snapshot.clean = Set(clean)
        snapshot.itemCount = itemCount
        snapshot.took = Span(microseconds: took)
        snapshot.completeUntil = v.time(o["completeUntil"])
        for value in problemList {
            guard case .object(let p) = value, let file = v.string(p["f"]), let key = v.string(p["k"]), let version = v.string(p["v"]),
                  let message = v.string(p["m"]) else { return nil }
            snapshot.problems.append(Problem(file: file, key: key, version: version, message: message))
        }
        snapshot.items.reserveCapacity(itemLines)
        return (snapshot, itemLines)
    }

    /// Reads one item's line into the snapshot; false for anything that is not one.
    public mutating func add(itemJSON bytes: [UInt8]) -> Bool {
        let v = Values()
        guard case .object(let i)? = try? JSONValue.parse(bytes), let file = v.string(i["f"]), let collection = v.string(i["c"]),
              let uid = v.string(i["u"]), case .array(let alarmList)? = i["a"] else { return false }
        var alarms: [CalendarAlarm] = []
        alarms.reserveCapacity(alarmList.count)
        for value in alarmList {
            guard case .object(let a) = value, let at = v.time(a["t"]), let summary = v.string(a["s"]), let start = v.time(a["st"]),
                  let allDay = v.bool(a["ad"]), let isTodo = v.bool(a["td"]), let action = v.string(a["ac"]).flatMap(CalendarAlarm.Action.init),
                  let index = v.int(a["ai"]), let attendees = v.bool(a["at"]) else { return false }
            alarms.append(CalendarAlarm(at: at, uid: uid, recurrenceID: v.string(a["r"]), summary: summary, location: v.string(a["l"]),
                                        start: start, allDay: allDay, isTodo: isTodo, action: action, sound: v.string(a["sn"]),
                                        alarmIndex: index, alarmUID: v.string(a["au"]), componentRecurrenceID: v.string(a["cr"]),
                                        hasAttendees: attendees, heraldKind: v.string(a["hk"])))
        }
        items.append(CalendarReconciliation.Item(file: file, collection: collection, uid: uid, alarms: alarms))
        return true
    }

    /// Reads a snapshot back from its lines (tests); nil for anything that is not one.
    public init?(lines: [[UInt8]]) {
        guard let first = lines.first, let (snapshot, count) = Self.header(json: first), count == lines.count - 1 else { return nil }
        self = snapshot
        for line in lines.dropFirst() where !add(itemJSON: line) { return nil }
    }

    /// The checked readers of JSON values the wire uses.
    private struct Values {
        func string(_ v: JSONValue?) -> String? { if case .string(let s)? = v { return s } else { return nil } }
        func strings(_ v: JSONValue?) -> [String]? {
            guard case .array(let list)? = v else { return nil }
            let out = list.compactMap { string($0) }
            return out.count == list.count ? out : nil
        }
        func time(_ v: JSONValue?) -> Instant? { string(v).flatMap { Int64($0) }.map { Instant(microseconds: $0) } }
        func bool(_ v: JSONValue?) -> Bool? { if case .bool(let b)? = v { return b } else { return nil } }
        func int(_ v: JSONValue?) -> Int? {
            if case .number(let n)? = v, n.isFinite, n == n.rounded(), abs(n) < 1e15 { return Int(n) }
            return nil
        }
    }
}

/// What heraldd asks its calendar reader: read the source, or write a change back into it.
public enum SourceRequest: Sendable, Equatable {
    /// `setAside`: files heraldd died on twice (path → the version set aside); `suspect`: the
    /// note a reader that stopped left, and how often it did (its next begin counts on).
    case read(now: Instant, grace: Span, setAside: [String: String], suspect: (what: String, strikes: Int)?)
    case writeBack(CalendarWriteBack)

    public static func == (a: SourceRequest, b: SourceRequest) -> Bool { a.json == b.json }

    public var json: String {
        switch self {
        case .read(let now, let grace, let setAside, let suspect):
            var f: [(String, JSONWriter.Value)] = [
                ("op", .string("read")), ("now", .string(String(now.microseconds))), ("grace", .string(String(grace.microseconds))),
                ("setAside", .object(setAside.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
            ]
            if let suspect { f.append(("suspect", .object([("what", .string(suspect.what)), ("strikes", .int(Int64(suspect.strikes)))]))) }
            return JSONWriter.render(.object(f))
        case .writeBack(let c):
            var change: String, until: JSONWriter.Value = .null
            switch c.change {
            case .acknowledged: change = "acknowledged"
            case .completed: change = "completed"
            case .snoozed(let u): change = "snoozed"; until = .string(String(u.microseconds))
            }
            func optional(_ s: String?) -> JSONWriter.Value { s.map { .string($0) } ?? .null }
            return JSONWriter.render(.object([
                ("op", .string("writeBack")), ("file", .string(c.file)), ("source", .string(c.source)), ("uid", .string(c.uid)),
                ("component", optional(c.component)), ("alarm", .int(Int64(c.alarm))), ("alarmUID", optional(c.alarmUID)),
                ("recurrenceID", optional(c.recurrenceID)), ("change", .string(change)), ("until", until),
                ("at", .string(String(c.at.microseconds))),
            ]))
        }
    }

    public init?(json bytes: [UInt8]) {
        guard case .object(let o)? = try? JSONValue.parse(bytes), case .string(let op)? = o["op"] else { return nil }
        func string(_ v: JSONValue?) -> String? { if case .string(let s)? = v { return s } else { return nil } }
        func time(_ v: JSONValue?) -> Instant? { string(v).flatMap { Int64($0) }.map { Instant(microseconds: $0) } }
        switch op {
        case "read":
            guard let now = time(o["now"]), let grace = string(o["grace"]).flatMap({ Int64($0) }), case .object(let aside)? = o["setAside"] else { return nil }
            var setAside: [String: String] = [:]
            for (file, version) in aside {
                guard case .string(let v) = version else { return nil }
                setAside[file] = v
            }
            var suspect: (String, Int)? = nil
            if case .object(let s)? = o["suspect"], let what = string(s["what"]), case .number(let n)? = s["strikes"], n >= 0, n < 100 {
                suspect = (what, Int(n))
            }
            self = .read(now: now, grace: Span(microseconds: grace), setAside: setAside, suspect: suspect)
        case "writeBack":
            guard let file = string(o["file"]), let source = string(o["source"]), let uid = string(o["uid"]),
                  case .number(let alarm)? = o["alarm"], alarm >= 0, alarm < 1000, let at = time(o["at"]), let changeText = string(o["change"])
            else { return nil }
            let change: CalendarWriteBack.Change
            switch changeText {
            case "acknowledged": change = .acknowledged
            case "completed": change = .completed
            case "snoozed":
                guard let until = time(o["until"]) else { return nil }
                change = .snoozed(until: until)
            default: return nil
            }
            self = .writeBack(CalendarWriteBack(file: file, source: source, uid: uid, component: string(o["component"]), alarm: Int(alarm),
                                                alarmUID: string(o["alarmUID"]), recurrenceID: string(o["recurrenceID"]), change: change, at: at))
        default: return nil
        }
    }
}
