import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The system's zone database: TZif files under `/usr/share/zoneinfo`, and the local zone.
public enum ZoneFiles {
    /// Looks a zone up by name in the database, caching it (`TimeZoneRules.cached`).
    public static let lookup: ZoneLookup = { name in
        // Built in, as `named` has them: a system without zone files still knows UTC.
        if name == "UTC" || name == "Etc/UTC" || name == "Z" { return .utc }
        guard TimeZoneRules.isPlausibleName(name) else { return nil }
        if let hit = TimeZoneRules.cache.withLock({ $0[name] }) { return hit }
        // Only a regular file: a FIFO or device under the name is never opened.
        var st = stat()
        guard stat(TimeZoneRules.zoneinfoDirectory + "/" + name, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return try? TimeZoneRules.cached(name)
    }
}

extension TimeZoneRules {
    public enum LoadError: Error, Equatable, CustomStringConvertible {
        case unknownZone(String)
        case badFile(String)

        public var description: String {
            switch self {
            case .unknownZone(let name): return "unknown time zone '\(name)'"
            case .badFile(let path): return "'\(path)' is not a TZif time zone file"
            }
        }
    }

    public static let zoneinfoDirectory = "/usr/share/zoneinfo"

    /// Zones already read, by name: zones do not change while Herald runs (a changed
    /// /etc/localtime is read again through `local(environment:)`).
    static let cache = Mutex<[String: TimeZoneRules]>([:])

    /// `named(_:)`, remembering the answer.
    public static func cached(_ name: String) throws(LoadError) -> TimeZoneRules {
        if let hit = cache.withLock({ $0[name] }) { return hit }
        let zone = try named(name)
        // Bounded: names come from job files; past the bound a zone is read each time it is named.
        cache.withLock { if $0.count < 1024 { $0[name] = zone } }
        return zone
    }

    /// Loads an IANA zone (`Europe/Berlin`), `UTC`, or a TZif file by absolute path.
    ///
    /// - Throws: `LoadError.unknownZone` when there is no such zone.
    public static func named(_ name: String, zoneinfo: String = zoneinfoDirectory) throws(LoadError) -> TimeZoneRules {
        if name == "UTC" || name == "Etc/UTC" || name == "Z" { return .utc }
        let path: String
        if name.hasPrefix("/") { path = name } else {
            guard isPlausibleName(name) else { throw .unknownZone(name) }
            path = zoneinfo + "/" + name
        }
        guard let bytes = try? FileSystem.read(path, limit: 1 << 20, followLinks: true) else { throw .unknownZone(name) }
        do { return try parseTZif(bytes, identifier: name) } catch { throw .badFile(path) }
    }

    /// The local zone as glibc would pick it: `TZ` if set (`:Name`, `Name`, a path or a POSIX
    /// string), else `/etc/localtime`, else UTC.
    public static func local(environment: Environment, zoneinfo: String = zoneinfoDirectory,
                             localtime: String = "/etc/localtime") -> TimeZoneRules {
        if let tz = environment["TZ"] {
            var name = tz
            if name.hasPrefix(":") { name.removeFirst() }
            if name.isEmpty { return .utc }
            if let zone = try? named(name, zoneinfo: zoneinfo) { return zone }
            if let zone = TimeZoneRules(posix: name) { return zone }
            return .utc
        }
        guard let bytes = try? FileSystem.read(localtime, limit: 1 << 20, followLinks: true),
              let zone = try? parseTZif(bytes, identifier: localZoneName(localtime: localtime, zoneinfo: zoneinfo))
        else { return .utc }
        return zone
    }

    /// The IANA name behind `/etc/localtime` when it is a link into zoneinfo, else "localtime".
    static func localZoneName(localtime: String, zoneinfo: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(localtime, &buffer, buffer.count - 1)
        guard n > 0 else { return "localtime" }
        let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // ".../zoneinfo/Europe/Berlin" → "Europe/Berlin"
        let bytes = Array(target.utf8), marker = Array("/zoneinfo/".utf8)
        var k = bytes.count - marker.count
        while k >= 0 {
            if bytes[k..<(k + marker.count)].elementsEqual(marker) {
                let name = bytes[(k + marker.count)...]
                return name.isEmpty ? "localtime" : String(decoding: name, as: UTF8.self)
            }
            k -= 1
        }
        return "localtime"
    }
}

extension CalendarEvent {
    /// `parse(_:localZone:zones:)` with the system's zone database.
    public static func parse(_ text: String, localZone: TimeZoneRules = .utc) throws(CalendarError) -> CalendarEvent {
        try parse(text, localZone: localZone, zones: ZoneFiles.lookup)
    }
}

extension Job {
    /// `decode(_:zones:localZone:)` with the system's zone database.
    public static func decode(_ data: [UInt8], localZone: TimeZoneRules = .utc) throws(JobError) -> Job {
        try decode(data, zones: ZoneFiles.lookup, localZone: localZone)
    }

    /// `decode(_:zones:localZone:)` with the system's zone database, for a part of a buffer.
    public static func decode(_ bytes: ArraySlice<UInt8>, localZone: TimeZoneRules = .utc) throws(JobError) -> Job {
        try decode(bytes, zones: ZoneFiles.lookup, localZone: localZone)
    }

    /// `decode(_:zones:localZone:)` with the system's zone database.
    public static func decode(_ value: JSONValue, localZone: TimeZoneRules = .utc) throws(JobError) -> Job {
        try decode(value, zones: ZoneFiles.lookup, localZone: localZone)
    }

    /// `resolveZones(_:)` with the system's zone database.
    public mutating func resolveZones() { resolveZones(ZoneFiles.lookup) }
}

extension TimePhrase {
    /// `parse(_:now:zone:zones:)` with the system's zone database.
    public static func parse(_ text: String, now: Instant, zone: TimeZoneRules) throws(Failure) -> Meaning {
        try parse(text, now: now, zone: zone, zones: ZoneFiles.lookup)
    }
}

extension ICalendarFile {
    /// `init(path:bytes:zones:)` with the system's zone database.
    public init(path: String, bytes: [UInt8]) throws(ICalError) {
        try self.init(path: path, bytes: bytes, zones: ZoneFiles.lookup)
    }
}

extension JobBatch {
    /// `decode(_:localZone:zones:)` with the system's zone database.
    public static func decode(_ bytes: [UInt8], localZone: TimeZoneRules) -> (jobs: [(line: Line, job: Job)], problems: [Problem]) {
        decode(bytes, localZone: localZone, zones: ZoneFiles.lookup)
    }

    /// `decodeLine(_:localZone:zones:)` with the system's zone database.
    public static func decodeLine(_ line: Line, localZone: TimeZoneRules) -> Result<Job, Problem> {
        decodeLine(line, localZone: localZone, zones: ZoneFiles.lookup)
    }
}
