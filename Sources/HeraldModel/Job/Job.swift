/// One scheduled job: the public, versioned document a job file holds (format version 1).
///
/// See `schema/job-v1.schema.json` and the README's "Job file format" for the contract.
public struct Job: Sendable, Equatable {
    public enum Urgency: String, Sendable, CaseIterable, Codable {
        case low, normal, critical
    }

    public struct Recipient: Sendable, Equatable {
        public var name: String?
        public var address: String?
        public init(name: String? = nil, address: String? = nil) { self.name = name; self.address = address }
    }

    public struct Item: Sendable, Equatable {
        public var name: String
        public var quantity: Int
        public init(name: String, quantity: Int = 1) { self.name = name; self.quantity = quantity }
    }

    public static let currentVersion = 1
    /// Job files larger than this are refused.
    public static let maximumFileSize = 64 * 1024

    public var version: Int = Job.currentVersion
    public var kind: Kind
    public var id: String?
    public var at: Instant?
    /// Calendar expressions; the job fires at their union (an empty list: a one-shot job).
    public var every: [String]
    public var timezone: String?
    public var title: String?
    public var text: String?
    public var icon: String?
    public var urgency: Urgency?
    public var recipient: Recipient?
    public var items: [Item]
    public var lead: Span?
    /// Warnings ahead of each main occurrence ("in 15 min: Dentist"), in any order.
    public var warn: [Span]
    /// Labels for finding jobs again (`herald demo` tags its jobs `demo`; `herald timer`
    /// tags timers `timer`, whose popups follow the config's `timer` settings).
    public var tags: [String]
    /// A delivery's tracking page, opened by the popup's Track button (http or https).
    public var url: String?
    /// A reminder shows again every `repeat` until acknowledged (`popups.maxRepeats` at most).
    public var `repeat`: Span?
    /// What the popup plays: a sound-theme name, an absolute path, or `none`; nil: the
    /// config's default for the kind.
    public var sound: String?
    /// Wake the machine from suspend for it (`wake`); nil: the config's default for the kind
    /// (`alarms.wake`: alarms wake unless set otherwise).
    public var wake: Bool?
    /// A habit's frequency when it has a target without fixed days ("3/week"); nil: done on
    /// each day its calendar reminds.
    public var times: HabitFrequency?
    /// A measurable habit's daily goal ("at least 8 glasses").
    public var target: HabitTarget?
    /// A calendar alarm's item: its file, UID and source (written by heraldd's calendar sync).
    public var calendar: CalendarLink?
    /// A calendar item's next alarm instants, each with the occurrence it is for.
    public var alarms: [CalendarAlarmEntry] = []
    /// A run job's command, directory, umask, environment, timeout and notify policy.
    public var command: RunCommand?
    /// The rules of the zones the job names (`timezone`, a zone ending an `every`), looked up
    /// when it was decoded or by `resolveZones`: the pure core never reads zone files.
    public var zones = JobZones()

    public init(kind: Kind, id: String? = nil, at: Instant? = nil, every: String? = nil, timezone: String? = nil,
                title: String? = nil, text: String? = nil, icon: String? = nil, urgency: Urgency? = nil,
                recipient: Recipient? = nil, items: [Item] = [], lead: Span? = nil, tags: [String] = [],
                url: String? = nil, repeat: Span? = nil, sound: String? = nil, warn: [Span] = []) {
        self.kind = kind; self.id = id; self.at = at; self.every = every.map { [$0] } ?? []; self.timezone = timezone
        self.title = title; self.text = text; self.icon = icon; self.urgency = urgency
        self.recipient = recipient; self.items = items; self.lead = lead; self.tags = tags
        self.url = url; self.repeat = `repeat`; self.sound = sound; self.warn = warn
    }

    /// The tag `herald timer` gives its jobs.
    public static let timerTag = "timer"
    public var isTimer: Bool { kind == .reminder && tags.contains(Job.timerTag) }

    /// Whether `url` may be opened from a popup: http or https, no spaces or control characters.
    public static func isValidURL(_ url: String) -> Bool {
        let lower = url.lowercased()
        guard (lower.hasPrefix("https://") || lower.hasPrefix("http://")), url.utf8.count <= 2048 else { return false }
        return url.unicodeScalars.allSatisfy { $0.value > 32 && $0.value != 127 }
    }

    /// Whether `sound` is a usable `sound` value: `none`, a sound-theme name, or an absolute path.
    public static func isValidSound(_ sound: String) -> Bool {
        guard !sound.isEmpty, sound.utf8.count <= 1024 else { return false }
        if sound.hasPrefix("/") { return !sound.unicodeScalars.contains { $0.value < 32 || $0.value == 127 } }
        // Theme names are file-name stems: letters, digits, - _ .
        return sound.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 45 || c == 95 || c == 46
        }
    }

    /// Whether `tag` is a valid tag: 1 to 32 of `a-z 0-9 . _ -`, at most 16 per job.
    public static func isValidTag(_ tag: String) -> Bool {
        let u = tag.utf8
        guard (1...32).contains(u.count) else { return false }
        return u.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
        }
    }
    public static let maximumTags = 16

    /// Whether `id` is a valid job id: `[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}`. Not starting with
    /// `.`: its file in new/ would be hidden, and heraldd leaves hidden names there alone.
    public static func isValidID(_ id: String) -> Bool {
        let u = id.utf8
        guard (1...64).contains(u.count), u.first != UInt8(ascii: ".") else { return false }
        return u.allSatisfy(isIDByte)
    }

    /// A byte an id may hold: ASCII letters, digits, `.`, `_` and `-`.
    @inline(__always)
    public static func isIDByte(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
            || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
    }

    /// The total number of units across items ("3 items" for apple + milk ×2).
    public var itemCount: Int { items.reduce(0) { $0 + $1.quantity } }
}

/// The zones a job names, by name. Two are always equal: they follow from the names, which
/// the job's other fields compare. Most jobs name one zone (`timezone`): it is kept without a
/// table, a reference to the cached rules.
public struct JobZones: Sendable, Equatable {
    var first: (name: String, rules: TimeZoneRules)?
    var more: [String: TimeZoneRules] = [:]
    public init() {}
    public subscript(name: String) -> TimeZoneRules? {
        if let first, first.name == name { return first.rules }
        return more.isEmpty ? nil : more[name]
    }
    mutating func add(_ name: String, _ rules: TimeZoneRules) {
        if first == nil { first = (name, rules) } else if self[name] == nil { more[name] = rules }
    }
    public static func == (a: JobZones, b: JobZones) -> Bool { true }
}

extension Job {
    /// Looks up the zones the job names (`timezone`, the last word of each `every`) with
    /// `lookup`; a name it does not know stays unknown, and validation then says so.
    public mutating func resolveZones(_ lookup: ZoneLookup) {
        var found = JobZones()
        var names = timezone.map { [$0] } ?? []
        for text in every {
            if let last = text.split(separator: " ").last.map(String.init), TimeZoneRules.isSystemdZoneName(last) { names.append(last) }
        }
        for name in names where found[name] == nil && TimeZoneRules.isPlausibleName(name) {
            if let rules = lookup(name) { found.add(name, rules) }
        }
        zones = found
    }

    /// The zone lookup over `zones` alone, for the job's schedule.
    public var zoneLookup: ZoneLookup {
        let table = zones
        return { table[$0] }
    }
}
