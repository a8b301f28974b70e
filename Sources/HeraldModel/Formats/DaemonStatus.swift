/// What the daemon tells `herald status` through `status.json`: who it is and whether
/// notifications are getting through. Pending jobs are counted from the spool itself.
public struct DaemonStatus: Sendable, Equatable {
    public var pid: Int32
    public var version: String
    public var startedAt: Instant
    public var notifier: String
    /// Jobs pending when this was written (refreshed at most once a second).
    public var pending: Int
    /// The last notification failure, while it is unresolved.
    public var lastError: String?
    public var lastErrorAt: Instant?
    public var retryAt: Instant?
    /// The notification server, as Herald knows it (`ServerTraits.label`).
    public var server: String?
    /// The desktop's do-not-disturb while it is on: where it was read, since when, and whether
    /// it holds popups (`quietWithDesktop`).
    public var doNotDisturb: String?
    public var doNotDisturbSince: Instant?
    public var doNotDisturbFollowed = true
    /// Each calendar source: what it holds, what is planned, and what is wrong with it.
    public var calendars: [CalendarSourceStatus] = []
    /// Who holds the wake-from-suspend timer: `heraldd`, `herald-wake`, or nil when nobody can
    /// (`wakeProblem` says why).
    public var wakeHolder: String?
    public var wakeProblem: String?
    /// The instant the machine should wake at next (for the next alarm or `wake` job), if any.
    public var wakeAt: Instant?

    /// The one line status and doctor print about waking from suspend: "available (...)" or
    /// "unavailable: why"; nil when heraldd has not said.
    public var wakeLine: String? {
        if let wakeHolder {
            let holder = wakeHolder == "heraldd" ? "heraldd holds CAP_WAKE_ALARM" : "through herald-wake"
            return "available (" + holder + (wakeAt.map { "; next wake " + ISO8601.format($0, offsetSeconds: 0, zulu: true) } ?? "") + ")"
        }
        return wakeProblem.map { "unavailable: " + $0 + (wakeAt.map { "; the wake at " + ISO8601.format($0, offsetSeconds: 0, zulu: true) + " will not happen" } ?? "") }
    }

    /// What makes wake from suspend available, for status, doctor and `herald alarm`: the
    /// helper at `helper` given its capability and started, or (systemd 254 and later) the
    /// capability given to heraldd's unit.
    public static func wakeFix(helper: String) -> String {
        "sudo setcap cap_wake_alarm+ep \(helper) && systemctl --user enable --now herald-wake; or, with systemd 254 and later, 'systemctl --user edit heraldd' and add [Service] AmbientCapabilities=CAP_WAKE_ALARM"
    }

    public init(pid: Int32, version: String, startedAt: Instant, notifier: String, pending: Int = 0, lastError: String? = nil,
                lastErrorAt: Instant? = nil, retryAt: Instant? = nil) {
        self.pid = pid; self.version = version; self.startedAt = startedAt; self.notifier = notifier; self.pending = pending
        self.lastError = lastError; self.lastErrorAt = lastErrorAt; self.retryAt = retryAt
    }

    public var json: String {
        var f: [(String, JSONWriter.Value)] = [
            ("pid", .int(Int64(pid))), ("version", .string(version)),
            ("startedAt", .string(ISO8601.format(startedAt, offsetSeconds: 0, zulu: true))),
            ("notifier", .string(notifier)), ("pending", .int(Int64(pending))),
        ]
        if let lastError { f.append(("lastError", .string(lastError))) }
        if let lastErrorAt { f.append(("lastErrorAt", .string(ISO8601.format(lastErrorAt, offsetSeconds: 0, zulu: true)))) }
        if let retryAt { f.append(("retryAt", .string(ISO8601.format(retryAt, offsetSeconds: 0, zulu: true)))) }
        if let server { f.append(("server", .string(server))) }
        if let doNotDisturb {
            f.append(("doNotDisturb", .string(doNotDisturb)))
            if let doNotDisturbSince { f.append(("doNotDisturbSince", .string(ISO8601.format(doNotDisturbSince, offsetSeconds: 0, zulu: true)))) }
            f.append(("doNotDisturbHolds", .bool(doNotDisturbFollowed)))
        }
        if !calendars.isEmpty { f.append(("calendars", .array(calendars.map(\.jsonValue)))) }
        if let wakeHolder { f.append(("wakeHolder", .string(wakeHolder))) }
        if let wakeProblem { f.append(("wakeProblem", .string(wakeProblem))) }
        if let wakeAt { f.append(("wakeAt", .string(ISO8601.format(wakeAt, offsetSeconds: 0, zulu: true)))) }
        return JSONWriter.render(.object(f), pretty: true) + "\n"
    }

    /// The `pending` count from status.json's text without decoding all of it (the CLI reads
    /// it on every enqueue, to enforce limits.jobs). The key `"pending"` cannot occur inside a
    /// JSON string (its quotes would be escaped there), so the first match is the member.
    public static func pendingCount(json bytes: [UInt8]) -> Int? {
        let key = Array("\"pending\"".utf8)
        guard bytes.count > key.count else { return nil }
        func skipSpace(_ k: inout Int) { while k < bytes.count, [32, 9, 10, 13].contains(bytes[k]) { k += 1 } }
        for start in 0...(bytes.count - key.count) where bytes[start..<(start + key.count)].elementsEqual(key) {
            var k = start + key.count
            skipSpace(&k)
            guard k < bytes.count, bytes[k] == UInt8(ascii: ":") else { return nil }
            k += 1
            skipSpace(&k)
            var n = 0, digits = 0
            while k < bytes.count, bytes[k] >= 48, bytes[k] <= 57, digits < 18 { n = n * 10 + Int(bytes[k] - 48); k += 1; digits += 1 }
            return digits > 0 ? n : nil
        }
        return nil
    }

    public init?(json data: [UInt8]) {
        guard let value = try? JSONValue.parse(data), case .object(let o) = value,
              case .number(let pid)? = o["pid"], case .string(let version)? = o["version"],
              case .string(let s)? = o["startedAt"], let started = ISO8601.parseInstant(s),
              case .string(let notifier)? = o["notifier"] else { return nil }
        func instant(_ k: String) -> Instant? { if case .string(let t)? = o[k] { return ISO8601.parseInstant(t) } else { return nil } }
        var lastError: String? = nil
        if case .string(let e)? = o["lastError"] { lastError = e }
        var pending = 0
        if case .number(let n)? = o["pending"] { pending = Int(n) }
        self.init(pid: Int32(pid), version: version, startedAt: started, notifier: notifier, pending: pending, lastError: lastError,
                  lastErrorAt: instant("lastErrorAt"), retryAt: instant("retryAt"))
        if case .string(let s)? = o["server"] { server = s }
        if case .string(let s)? = o["doNotDisturb"] { doNotDisturb = s }
        doNotDisturbSince = instant("doNotDisturbSince")
        if case .bool(let b)? = o["doNotDisturbHolds"] { doNotDisturbFollowed = b }
        if case .string(let s)? = o["wakeHolder"] { wakeHolder = s }
        if case .string(let s)? = o["wakeProblem"] { wakeProblem = s }
        wakeAt = instant("wakeAt")
        if case .array(let list)? = o["calendars"] { calendars = list.prefix(1000).compactMap(CalendarSourceStatus.init(json:)) }
    }
}

/// One calendar source as heraldd last planned it (`status.json`'s `calendars`).
public struct CalendarSourceStatus: Sendable, Equatable {
    public var source: String
    public var files = 0
    public var items = 0
    /// Items with an alarm to show in the next weeks, and the jobs planned from them.
    public var wanted = 0
    public var planned = 0
    /// The source's share of the spool (`calendars.limit`, half of `limits.jobs` between the
    /// sources), the items left out for it, and new ones waiting for room in the spool.
    public var share = 0
    public var overShare = 0
    public var waitingForRoom = 0
    /// Why the source could not be listed, when it could not.
    public var unreadable: String?
    /// Since when a read of it has not come back (a hung mount), while it has not.
    public var notAnsweringSince: Instant?

    public init(source: String) { self.source = source }

    /// Whether `herald status` and `herald doctor` have something to say about it.
    public var needsAttention: Bool { overShare > 0 || waitingForRoom > 0 || unreadable != nil || notAnsweringSince != nil }

    var jsonValue: JSONWriter.Value {
        var f: [(String, JSONWriter.Value)] = [
            ("source", .string(source)), ("files", .int(Int64(files))), ("items", .int(Int64(items))),
            ("wanted", .int(Int64(wanted))), ("planned", .int(Int64(planned))), ("share", .int(Int64(share))),
            ("overShare", .int(Int64(overShare))), ("waitingForRoom", .int(Int64(waitingForRoom))),
        ]
        if let unreadable { f.append(("unreadable", .string(unreadable))) }
        if let notAnsweringSince { f.append(("notAnsweringSince", .string(ISO8601.format(notAnsweringSince, offsetSeconds: 0, zulu: true)))) }
        return .object(f)
    }

    init?(json value: JSONValue) {
        guard case .object(let o) = value, case .string(let source)? = o["source"] else { return nil }
        self.source = source
        func int(_ k: String) -> Int {
            if case .number(let n)? = o[k], n.isFinite, n >= 0, n <= 1e12 { return Int(n) }
            return 0
        }
        files = int("files"); items = int("items"); wanted = int("wanted"); planned = int("planned")
        share = int("share"); overShare = int("overShare"); waitingForRoom = int("waitingForRoom")
        if case .string(let s)? = o["unreadable"] { unreadable = s }
        if case .string(let s)? = o["notAnsweringSince"] { notAnsweringSince = ISO8601.parseInstant(s) }
    }

    /// One line for a person: "~/.calendars/work: 225,000 items, 5,000 planned (its share), the rest skipped".
    public func line(shownAs name: String, now: Instant) -> String {
        if let since = notAnsweringSince {
            return "\(name): not answering since \(RelativeTime.phrase(since, now: now)) (a hung mount or disk?); its jobs are kept"
        }
        if let unreadable { return "\(name): cannot be read (\(unreadable)); its jobs are kept" }
        var text = "\(name): \(Self.grouped(wanted)) item\(wanted == 1 ? "" : "s") with alarms, \(Self.grouped(planned)) planned"
        if overShare > 0 { text += " (its share is \(Self.grouped(share))), the \(Self.grouped(overShare)) furthest in time skipped" }
        if waitingForRoom > 0 { text += "; \(Self.grouped(waitingForRoom)) wait for room in the spool (limits.jobs)" }
        return text
    }

    /// 225000 as "225,000".
    static func grouped(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (k, d) in digits.enumerated() {
            if k > 0, (digits.count - k) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }
}
