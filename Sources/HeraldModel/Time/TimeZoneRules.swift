
/// A time zone's UTC offsets over time, read from a TZif file (RFC 8536) or a POSIX TZ string.
///
/// Herald reads `/usr/share/zoneinfo` itself (`ZoneFiles`) rather than going through ICU: the rules are the
/// same ones glibc and systemd use, lookups are cheap, and the CLI starts fast.
public struct TimeZoneRules: Sendable, Equatable {
    struct LocalType: Sendable, Equatable {
        var offset: Int
        var isDST: Bool
        var abbreviation: String
    }

    /// The rules, behind one reference: a zone is one word wherever it is kept (every job
    /// that names one holds it), and the copies of a cached zone share one set of tables.
    final class Storage: Sendable {
        let identifier: String
        let transitions: [Int64]       // UTC seconds, ascending
        let transitionTypes: [UInt8]   // index into `types` for each transition
        let types: [LocalType]
        let footer: PosixTimeZone?
        init(identifier: String, transitions: [Int64], transitionTypes: [UInt8], types: [LocalType], footer: PosixTimeZone?) {
            self.identifier = identifier; self.transitions = transitions; self.transitionTypes = transitionTypes
            self.types = types; self.footer = footer
        }
    }
    let storage: Storage

    /// The IANA name ("Europe/Berlin"), "UTC", or the TZ string it came from.
    public var identifier: String { storage.identifier }
    var transitions: [Int64] { storage.transitions }
    var transitionTypes: [UInt8] { storage.transitionTypes }
    var types: [LocalType] { storage.types }
    var footer: PosixTimeZone? { storage.footer }

    public static func == (a: TimeZoneRules, b: TimeZoneRules) -> Bool {
        a.storage === b.storage
            || (a.identifier == b.identifier && a.transitions == b.transitions && a.transitionTypes == b.transitionTypes
                && a.types == b.types && a.footer == b.footer)
    }

    public static let utc = TimeZoneRules(identifier: "UTC", transitions: [], transitionTypes: [],
                                          types: [LocalType(offset: 0, isDST: false, abbreviation: "UTC")], footer: nil)

    init(identifier: String, transitions: [Int64], transitionTypes: [UInt8], types: [LocalType], footer: PosixTimeZone?) {
        storage = Storage(identifier: identifier, transitions: transitions, transitionTypes: transitionTypes, types: types, footer: footer)
    }

    /// A zone from a POSIX TZ string such as `EST5EDT,M3.2.0,M11.1.0`; nil if it is not one.
    public init?(posix text: String) {
        guard let rule = PosixTimeZone(text) else { return nil }
        self.init(identifier: text, transitions: [], transitionTypes: [],
                  types: [LocalType(offset: rule.standardOffset, isDST: false, abbreviation: rule.standardAbbreviation)],
                  footer: rule)
    }

    /// The offset from UTC in seconds in effect at `instant`.
    public func offset(at instant: Instant) -> Int { localType(atUTC: instant.seconds).offset }

    /// The zone abbreviation ("CET", "EDT") in effect at `instant`.
    public func abbreviation(at instant: Instant) -> String { localType(atUTC: instant.seconds).abbreviation }

    public func isDaylightTime(at instant: Instant) -> Bool { localType(atUTC: instant.seconds).isDST }

    func localType(atUTC t: Int64) -> LocalType {
        if let last = transitions.last, t >= last, let footer {
            let r = footer.offset(atUTC: t)
            return LocalType(offset: r.offset, isDST: r.isDST, abbreviation: r.abbreviation)
        }
        if transitions.isEmpty || t < transitions[0] {
            if transitions.isEmpty, let footer {
                let r = footer.offset(atUTC: t)
                return LocalType(offset: r.offset, isDST: r.isDST, abbreviation: r.abbreviation)
            }
            return types[0]
        }
        // Last transition at or before t.
        var lo = 0, hi = transitions.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if transitions[mid] <= t { lo = mid } else { hi = mid - 1 }
        }
        return types[Int(transitionTypes[lo])]
    }

    /// The civil (wall-clock) time at `instant` in this zone.
    public func civil(_ instant: Instant) -> CivilTime {
        CivilTime(localSeconds: instant.seconds + Int64(offset(at: instant)), microsecond: Int(instant.microsecondOfSecond))
    }

    /// How a wall-clock time maps to instants in this zone.
    public enum Resolution: Equatable, Sendable {
        /// Exactly one instant has this wall-clock time.
        case unique(Instant)
        /// The clock went back: the time happened twice, `earlier` first.
        case repeated(earlier: Instant, later: Instant)
        /// The clock jumped forward over it; `after` is where the same elapsed time lands.
        case skipped(after: Instant)
    }

    /// The instants at which the wall clock shows `civil` in this zone.
    public func resolve(_ civil: CivilTime) -> Resolution {
        let local = civil.localSeconds
        let micro = Int64(civil.microsecond)
        var offsets: [Int] = []
        for probe in [local - 86_400, local, local + 86_400] {
            let o = localType(atUTC: probe).offset
            if !offsets.contains(o) { offsets.append(o) }
        }
        var matches: [Int64] = []
        for o in offsets {
            let t = local - Int64(o)
            if localType(atUTC: t).offset == o, !matches.contains(t) { matches.append(t) }
        }
        matches.sort()
        func instant(_ s: Int64) -> Instant { Instant(microseconds: s * 1_000_000 + micro) }
        switch matches.count {
        case 0:
            // In a gap: interpret with the offset before the jump (as mktime does with tm_isdst = -1
            // and glibc), which lands after the transition.
            let before = localType(atUTC: local - Int64(offsets.max() ?? 0) - 86_400).offset
            return .skipped(after: instant(local - Int64(before)))
        case 1: return .unique(instant(matches[0]))
        default: return .repeated(earlier: instant(matches.first!), later: instant(matches.last!))
        }
    }
}

/// Finds a zone of the system's database by IANA name ("Europe/Berlin"), nil if there is none.
/// Pure code is handed one: heraldd and herald pass `ZoneFiles.lookup` (zone files, cached),
/// tests may pass a table.
public typealias ZoneLookup = @Sendable (String) -> TimeZoneRules?

extension TimeZoneRules {
    /// Whether `name` looks like an IANA zone name (no absolute path, no `..`).
    /// Each part of the path is a name: no empty, `.` or `..` part, so one zone has one spelling.
    public static func isPlausibleName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 > 32 && $0 < 127 }
            && name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    public struct TZifError: Error {}

    /// Parses TZif data (version 1 to 4), using the 64-bit block and footer when present.
    public static func parseTZif(_ b: [UInt8], identifier: String) throws -> TimeZoneRules {
        func u32(_ at: Int) throws -> Int {
            guard at + 4 <= b.count else { throw TZifError() }
            return Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
        }
        func s32(_ at: Int) throws -> Int64 { Int64(Int32(truncatingIfNeeded: try u32(at))) }
        func s64(_ at: Int) throws -> Int64 {
            guard at + 8 <= b.count else { throw TZifError() }
            var v: UInt64 = 0
            for k in 0..<8 { v = v << 8 | UInt64(b[at + k]) }
            return Int64(bitPattern: v)
        }
        guard b.count >= 44, b[0] == 0x54, b[1] == 0x5A, b[2] == 0x69, b[3] == 0x66 else { throw TZifError() }
        let version = b[4]
        struct Header { var isut, isstd, leap, time, type, char: Int }
        func header(_ at: Int) throws -> Header {
            Header(isut: try u32(at + 20), isstd: try u32(at + 24), leap: try u32(at + 28),
                   time: try u32(at + 32), type: try u32(at + 36), char: try u32(at + 40))
        }
        var h = try header(0)
        var base = 44
        var timeSize = 4
        if version >= 0x32 {  // '2' or later: skip the v1 block
            base += h.time * 5 + h.type * 6 + h.char + h.leap * 8 + h.isstd + h.isut
            guard b.count >= base + 44 else { throw TZifError() }
            h = try header(base)
            base += 44
            timeSize = 8
        }
        guard h.type >= 1, h.type <= 256 else { throw TZifError() }
        var transitions: [Int64] = []
        transitions.reserveCapacity(h.time)
        var at = base
        for _ in 0..<h.time {
            transitions.append(timeSize == 8 ? try s64(at) : try s32(at))
            at += timeSize
        }
        guard at + h.time <= b.count else { throw TZifError() }
        let transitionTypes = Array(b[at..<(at + h.time)])
        at += h.time
        // The local time types (6 bytes each), then their abbreviations, NUL-terminated.
        let typesAt = at
        at += 6 * h.type
        guard at + h.char <= b.count else { throw TZifError() }
        let charsAt = at
        at += h.char
        var types: [LocalType] = []
        types.reserveCapacity(h.type)
        for k in 0..<h.type {
            let entry = typesAt + 6 * k
            let index = Int(b[entry + 5])
            var abbreviation = ""
            if index < h.char {
                var end = index
                while end < h.char, b[charsAt + end] != 0 { end += 1 }
                abbreviation = String(decoding: b[(charsAt + index)..<(charsAt + end)], as: UTF8.self)
            }
            types.append(LocalType(offset: Int(try s32(entry)), isDST: b[entry + 4] != 0, abbreviation: abbreviation))
        }
        guard transitionTypes.allSatisfy({ Int($0) < types.count }) else { throw TZifError() }
        at += h.leap * (timeSize + 4) + h.isstd + h.isut
        var footer: PosixTimeZone? = nil
        if timeSize == 8, at < b.count, b[at] == 0x0A {
            var end = at + 1
            while end < b.count, b[end] != 0x0A { end += 1 }
            let text = String(decoding: b[(at + 1)..<end], as: UTF8.self)
            if !text.isEmpty { footer = PosixTimeZone(text) }
        }
        return TimeZoneRules(identifier: identifier, transitions: transitions, transitionTypes: transitionTypes,
                             types: types, footer: footer)
    }
}
