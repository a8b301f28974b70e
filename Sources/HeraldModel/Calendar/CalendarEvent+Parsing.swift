
extension CalendarEvent {
    static let weekdayNames: [(name: String, number: Int)] = [
        ("monday", 0), ("mon", 0), ("tuesday", 1), ("tue", 1), ("wednesday", 2), ("wed", 2),
        ("thursday", 3), ("thu", 3), ("friday", 4), ("fri", 4), ("saturday", 5), ("sat", 5), ("sunday", 6), ("sun", 6),
    ]

    /// Parses an expression.
    ///
    /// - Parameters:
    ///   - text: the expression.
    ///   - localZone: the zone it will be evaluated in when it names none; its abbreviations
    ///     (`CET`, `CEST`) may end the expression, as with systemd.
    ///   - zones: where a trailing IANA zone name is looked up.
    /// - Throws: `CalendarError` naming the bad part.
    public static func parse(_ text: String, localZone: TimeZoneRules = .utc, zones: ZoneLookup) throws(CalendarError) -> CalendarEvent {
        do {
            return try parseUnchecked(text, localZone: localZone, zones: zones)
        } catch {
            // A last word that looks like a zone name but is none explains the failure best.
            if let space = text.lastIndex(of: " ") {
                let word = String(text[text.index(after: space)...])
                if word.contains("/"), word.first?.isLetter == true { throw CalendarError("unknown time zone '\(word)'") }
            }
            throw error
        }
    }

    static func parseUnchecked(_ text: String, localZone: TimeZoneRules, zones: ZoneLookup) throws(CalendarError) -> CalendarEvent {
        var event = CalendarEvent(source: text)
        var body = text
        if let r = text.suffixRange(" utc") {
            event.zone = .utc
            body = String(text[..<r])
        } else if let (abbreviation, dst, r) = localZone.abbreviationSuffix(of: text) {
            event.zone = .localAbbreviation(abbreviation, dst: dst)
            body = String(text[..<r])
        } else if let space = text.lastIndex(of: " ") {
            let name = String(text[text.index(after: space)...])
            if TimeZoneRules.isSystemdZoneName(name), let rules = zones(name) {
                event.zone = name == "UTC" ? .utc : .named(name, rules)
                body = String(text[..<space])
            }
        }
        if body.isEmpty { throw CalendarError("it is empty") }
        if try !event.parseShorthand(body) {
            var scanner = Scanner(body)
            try event.parseWeekdays(&scanner)
            if try !event.parseDate(&scanner) { try event.parseTime(&scanner) }
            if !scanner.atEnd { throw CalendarError("unexpected '\(scanner.rest)'") }
        }
        event.normalize()
        try event.validate()
        return event
    }

    /// `daily`, `weekly`, ...: true when `text` is one.
    mutating func parseShorthand(_ text: String) throws(CalendarError) -> Bool {
        let zero = [Component(start: 0)]
        switch text.lowercased() {
        case "minutely": microsecond = zero
        case "hourly": minute = zero; microsecond = zero
        case "daily": hour = zero; minute = zero; microsecond = zero
        case "weekly": weekdays = 1; hour = zero; minute = zero; microsecond = zero
        case "monthly": day = [Component(start: 1)]; hour = zero; minute = zero; microsecond = zero
        case "yearly", "annually", "anually":
            month = [Component(start: 1)]; day = [Component(start: 1)]; hour = zero; minute = zero; microsecond = zero
        case "quarterly":
            month = [1, 4, 7, 10].map { Component(start: $0) }; day = [Component(start: 1)]
            hour = zero; minute = zero; microsecond = zero
        case "semiannually", "semi-annually", "biannually", "bi-annually":
            month = [1, 7].map { Component(start: $0) }; day = [Component(start: 1)]
            hour = zero; minute = zero; microsecond = zero
        default: return false
        }
        return true
    }

    // MARK: weekdays

    mutating func parseWeekdays(_ s: inout Scanner) throws(CalendarError) {
        var rangeStart = -1
        var first = true
        while true {
            guard let (name, number) = Self.weekdayNames.first(where: { s.hasPrefix($0.name) }) else {
                if first { return }
                throw CalendarError("expected a weekday at '\(s.rest)'")
            }
            let after = s.peek(at: name.utf8.count)
            guard after == nil || [UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: " ")].contains(after!) else {
                throw CalendarError("'\(s.word)' is not a weekday")
            }
            let token = s.take(name.utf8.count)
            if weekdays < 0 { weekdays = 0 }
            weekdays |= 1 << number
            if rangeStart >= 0 {
                guard rangeStart <= number else {
                    throw CalendarError("the weekday range ending in '\(token)' runs backwards (write Mon..Fri, not Fri..Mon)")
                }
                for k in (rangeStart + 1)..<max(number, rangeStart + 1) { weekdays |= 1 << k }
            }
            if s.atEnd { return }
            if s.peek() == UInt8(ascii: " ") { s.skipSpaces(); return }
            if s.peek() == UInt8(ascii: ".") {
                guard rangeStart < 0 else { throw CalendarError("a weekday range cannot continue at '\(s.rest)'") }
                guard s.peek(at: 1) == UInt8(ascii: ".") else { throw CalendarError("expected '..' at '\(s.rest)'") }
                rangeStart = number
                _ = s.take(2)
            } else if s.peek() == UInt8(ascii: "-") {
                guard rangeStart < 0 else { throw CalendarError("a weekday range cannot continue at '\(s.rest)'") }
                rangeStart = number
                _ = s.take(1)
            } else if s.peek() == UInt8(ascii: ",") {
                rangeStart = -1
                _ = s.take(1)
            }
            if s.atEnd || s.peek() == UInt8(ascii: " ") {
                s.skipSpaces()
                guard rangeStart < 0 else { throw CalendarError("the weekday range after '\(token)' has no end") }
                return
            }
            first = false
        }
    }

    // MARK: date

    /// Parses `[year-]month-day` (or `@epoch`); false when the text is a time instead.
    mutating func parseDate(_ s: inout Scanner) throws(CalendarError) -> Bool {
        if s.atEnd { return false }
        if s.peek() == UInt8(ascii: "@") {
            let start = s
            _ = s.take(1)
            guard let seconds = s.number(), let value = Int64(exactly: seconds) else {
                throw CalendarError("'\(start.rest)' is not @ followed by seconds since the epoch")
            }
            let c = CivilTime(localSeconds: value)
            year = [Component(start: c.year)]; month = [Component(start: c.month)]; day = [Component(start: c.day)]
            hour = [Component(start: c.hour)]; minute = [Component(start: c.minute)]
            microsecond = [Component(start: c.second * Self.usecPerSecond)]
            zone = .utc
            return true
        }
        var t = s
        let first = try parseChain(&t, microseconds: false, field: "date")
        if t.atEnd || t.peek() == UInt8(ascii: ":") { return false }  // it was a time
        if t.peek() == UInt8(ascii: "~") { endOfMonth = true } else if t.peek() != UInt8(ascii: "-") {
            throw CalendarError("expected '-' or '~' in the date at '\(t.rest)'")
        }
        _ = t.take(1)
        let second = try parseChain(&t, microseconds: false, field: "date")
        if t.atEnd || t.peek() == UInt8(ascii: " ") {
            t.skipSpaces()
            month = first; day = second
            s = t
            return false
        }
        if endOfMonth { throw CalendarError("'~' (days from the end of the month) must come last in the date, at '\(t.rest)'") }
        if t.peek() == UInt8(ascii: "~") { endOfMonth = true } else if t.peek() != UInt8(ascii: "-") {
            throw CalendarError("expected '-' or '~' in the date at '\(t.rest)'")
        }
        _ = t.take(1)
        let third = try parseChain(&t, microseconds: false, field: "day")
        guard t.atEnd || t.peek() == UInt8(ascii: " ") else { throw CalendarError("unexpected '\(t.rest)' after the date") }
        t.skipSpaces()
        year = first; month = second; day = third
        s = t
        return false
    }

    // MARK: time

    mutating func parseTime(_ s: inout Scanner) throws(CalendarError) {
        if s.atEnd {
            hour = [Component(start: 0)]; minute = [Component(start: 0)]; microsecond = [Component(start: 0)]
            return
        }
        let h = try parseChain(&s, microseconds: false, field: "hour")
        guard s.peek() == UInt8(ascii: ":") else {
            throw CalendarError(s.atEnd ? "a time needs minutes: write HH:MM, not '\(s.consumed)'" : "expected ':' at '\(s.rest)'")
        }
        _ = s.take(1)
        let m = try parseChain(&s, microseconds: false, field: "minute")
        var sec: [Component]? = [Component(start: 0)]
        if !s.atEnd {
            guard s.peek() == UInt8(ascii: ":") else { throw CalendarError("expected ':' at '\(s.rest)'") }
            _ = s.take(1)
            sec = try parseChain(&s, microseconds: true, field: "second")
            guard s.atEnd else { throw CalendarError("unexpected '\(s.rest)' after the time") }
        }
        hour = h; minute = m; microsecond = sec
    }

    // MARK: components

    /// `*`, or a comma-separated list of `value`, `start..stop`, `start/repeat`, `start..stop/repeat`.
    func parseChain(_ s: inout Scanner, microseconds usec: Bool, field: String) throws(CalendarError) -> [Component]? {
        if s.peek() == UInt8(ascii: "*") {
            _ = s.take(1)
            return usec ? [Component(start: 0, repeatEvery: Self.usecPerSecond)] : nil
        }
        var chain: [Component] = []
        while true {
            guard chain.count <= 240 else { throw CalendarError("too many values in one list") }
            let itemStart = s
            let start = try decimal(&s, usec: usec, field: field)
            var stop = -1
            var repeatEvery = 0
            if s.peek() == UInt8(ascii: "."), s.peek(at: 1) == UInt8(ascii: ".") {
                _ = s.take(2)
                stop = try decimal(&s, usec: usec, field: field)
                repeatEvery = usec ? Self.usecPerSecond : 1
            }
            if s.peek() == UInt8(ascii: "/") {
                _ = s.take(1)
                repeatEvery = try decimal(&s, usec: usec, field: field)
                guard repeatEvery > 0 else { throw CalendarError("the repetition in '\(itemStart.upTo(s))' must be greater than 0") }
                // systemd takes repetitions down to a microsecond; Herald fires at most once a
                // second (`*:*:0/0.001` would be a thousand popups a second).
                if usec && repeatEvery < Self.usecPerSecond {
                    throw CalendarError("the seconds repetition in '\(itemStart.upTo(s))' is shorter than a second: Herald fires at most once a second")
                }
            } else {
                if start > Int(Int32.max) - repeatEvery { throw CalendarError("'\(itemStart.upTo(s))' is too large") }
                if usec && stop >= 0 && start + repeatEvery > stop {
                    throw CalendarError("the seconds range '\(itemStart.upTo(s))' is shorter than a second: add a repetition such as /0.5")
                }
            }
            if let c = s.peek(), ![UInt8(ascii: " "), UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "~"), UInt8(ascii: ":")].contains(c) {
                throw CalendarError("unexpected '\(s.rest)' in the \(field)")
            }
            chain.append(Component(start: start, stop: stop, repeatEvery: repeatEvery))
            guard s.peek() == UInt8(ascii: ",") else { return chain }
            _ = s.take(1)
        }
    }

    /// A number; in the seconds field it may have up to six decimals (`5.25`).
    func decimal(_ s: inout Scanner, usec: Bool, field: String) throws(CalendarError) -> Int {
        guard let c = s.peek(), c >= 48, c <= 57 else {
            throw CalendarError(s.atEnd ? "the \(field) is missing a number" : "expected a number in the \(field) at '\(s.rest)'")
        }
        let startScanner = s
        guard var value = s.number(), value <= UInt64(Int32.max) else { throw CalendarError("'\(startScanner.upTo(s))' is too large") }
        if usec {
            value *= UInt64(Self.usecPerSecond)
            if s.peek() == UInt8(ascii: "."), s.peek(at: 1) != UInt8(ascii: ".") {
                _ = s.take(1)
                var add: UInt64 = 0
                var digits = 0
                while let d = s.peek(), d >= 48, d <= 57 {
                    if digits < 6 { add = add * 10 + UInt64(d - 48) } else if digits == 6 && d >= 53 { add += 1 }  // rounds, as systemd
                    digits += 1
                    _ = s.take(1)
                }
                guard digits > 0 else { throw CalendarError("expected digits after '.' in '\(startScanner.upTo(s))'") }
                for _ in min(digits, 6)..<6 { add *= 10 }
                value += add
            }
        }
        guard value <= UInt64(Int32.max) else { throw CalendarError("'\(startScanner.upTo(s))' is too large") }
        return Int(value)
    }

    // MARK: normalization and validation

    mutating func normalize() {
        if weekdays <= 0 || weekdays >= 127 { weekdays = -1 }
        if endOfMonth && day == nil { endOfMonth = false }
        year = year.map { $0.map { c in
            var c = c
            if c.start >= 0 && c.start < 70 { c.start += 2000 } else if c.start >= 70 && c.start < 100 { c.start += 1900 }
            if c.stop >= 0 && c.stop < 70 { c.stop += 2000 } else if c.stop >= 70 && c.stop < 100 { c.stop += 1900 }
            return c
        } }
        func normalized(_ chain: [Component]?) -> [Component]? {
            guard let chain else { return nil }
            var out = chain.map { c -> Component in
                var c = c
                if c.stop > c.start && c.repeatEvery > 0 { c.stop -= (c.stop - c.start) % c.repeatEvery }
                // A repetition that cannot happen even once, or a range of one value, is a value.
                if (c.stop > c.start && c.repeatEvery > 0 && c.start + c.repeatEvery > c.stop) || c.start == c.stop {
                    c.repeatEvery = 0
                    c.stop = -1
                }
                return c
            }
            out.sort()
            var unique: [Component] = []
            for c in out where unique.last != c { unique.append(c) }
            return unique
        }
        year = normalized(year); month = normalized(month); day = normalized(day)
        hour = normalized(hour); minute = normalized(minute); microsecond = normalized(microsecond)
    }

    func validate() throws(CalendarError) {
        try Self.check(year, "year", Self.minYear, Self.maxYear, endOfMonth: false)
        try Self.check(month, "month", 1, 12, endOfMonth: false)
        try Self.check(day, "day", 1, 31, endOfMonth: endOfMonth)
        try Self.check(hour, "hour", 0, 23, endOfMonth: false)
        try Self.check(minute, "minute", 0, 59, endOfMonth: false)
        try Self.check(microsecond, "second", 0, 60 * Self.usecPerSecond - 1, endOfMonth: false)
        try checkOncePerSecond()
    }

    /// Every value a checked chain takes, in order (at most 60 per item: repetitions of the
    /// seconds are a second or longer by now).
    static func values(_ chain: [Component], limit: Int) -> [Int] {
        var out: [Int] = []
        for c in chain {
            guard c.repeatEvery > 0 else { out.append(c.start); continue }
            var v = c.start
            while v <= (c.stop >= 0 ? c.stop : limit) { out.append(v); v += c.repeatEvery }
        }
        return Array(Set(out)).sorted()
    }

    /// Refuses seconds less than a second apart (`*:*:0.2,0.7`): each would be its own popup.
    /// The last seconds of a minute and the first of the next count too when two consecutive
    /// minutes can match.
    func checkOncePerSecond() throws(CalendarError) {
        guard let microsecond else { return }
        let seconds = Self.values(microsecond, limit: 60 * Self.usecPerSecond - 1)
        func show(_ v: Int) -> String { v % Self.usecPerSecond == 0 ? String(v / Self.usecPerSecond) : String(Double(v) / Double(Self.usecPerSecond)) }
        func refuse(_ a: Int, _ b: Int) -> CalendarError {
            CalendarError("the seconds \(show(a)) and \(show(b)) are less than a second apart: Herald fires at most once a second")
        }
        for (a, b) in zip(seconds, seconds.dropFirst()) where b - a < Self.usecPerSecond { throw refuse(a, b) }
        guard let first = seconds.first, let last = seconds.last, first + 60 * Self.usecPerSecond - last < Self.usecPerSecond else { return }
        let minutes = minute.map { Set(Self.values($0, limit: 59)) }
        if minutes.map({ m in m.contains { m.contains(($0 + 1) % 60) } }) ?? true { throw refuse(last, first) }
    }

    static func check(_ chain: [Component]?, _ field: String, _ from: Int, _ limit: Int, endOfMonth: Bool) throws(CalendarError) {
        guard let chain else { return }
        let to = endOfMonth ? limit - 3 : limit
        let usec = field == "second"
        func show(_ v: Int) -> String {
            usec ? (v % usecPerSecond == 0 ? String(v / usecPerSecond) : String(Double(v) / Double(usecPerSecond))) : String(v)
        }
        let range = endOfMonth ? "\(from)..\(to) days from the end of the month" : "\(show(from))..\(show(to))"
        for c in chain {
            if c.start < from || c.start > to { throw CalendarError("\(field) \(show(c.start)) is out of range \(range)") }
            if c.repeatEvery > to - from { throw CalendarError("the \(field) repetition /\(show(c.repeatEvery)) is longer than the range \(range)") }
            if c.stop >= 0 {
                if c.stop < from || c.stop > to { throw CalendarError("\(field) \(show(c.stop)) is out of range \(range)") }
                if c.start + c.repeatEvery > c.stop {
                    throw CalendarError("the \(field) range \(show(c.start))..\(show(c.stop)) leaves nothing to repeat in")
                }
            } else if endOfMonth && c.start - c.repeatEvery < from {
                throw CalendarError("the \(field) repetition /\(show(c.repeatEvery)) runs past the start of the month")
            } else if !endOfMonth && c.start + c.repeatEvery > to {
                throw CalendarError("\(field) \(show(c.start))/\(show(c.repeatEvery)) never repeats within \(range)")
            }
        }
    }
}

/// A cursor over the expression's bytes (systemd's syntax is ASCII).
struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { index >= bytes.count }
    var rest: String { String(decoding: bytes[min(index, bytes.count)...], as: UTF8.self) }
    var consumed: String { String(decoding: bytes[..<min(index, bytes.count)], as: UTF8.self) }
    /// The rest up to the next space.
    var word: String { String(decoding: bytes[index...].prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self) }
    func peek(at offset: Int = 0) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
    /// The text from this position up to `other`'s.
    func upTo(_ other: Scanner) -> String { String(decoding: bytes[index..<max(index, other.index)], as: UTF8.self) }

    func hasPrefix(_ lowercased: String) -> Bool {
        let p = Array(lowercased.utf8)
        guard index + p.count <= bytes.count else { return false }
        for k in 0..<p.count {
            var b = bytes[index + k]
            if b >= 65 && b <= 90 { b += 32 }
            if b != p[k] { return false }
        }
        return true
    }

    mutating func take(_ n: Int) -> String {
        let s = String(decoding: bytes[index..<min(index + n, bytes.count)], as: UTF8.self)
        index = min(index + n, bytes.count)
        return s
    }

    mutating func skipSpaces() { while peek() == UInt8(ascii: " ") { index += 1 } }

    /// Decimal digits as a number; nil if there are none or it overflows.
    mutating func number() -> UInt64? {
        var value: UInt64 = 0
        var any = false
        while let c = peek(), c >= 48, c <= 57 {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(UInt64(c - 48))
            if o1 || o2 { return nil }
            value = a; any = true; index += 1
        }
        return any ? value : nil
    }
}

extension String {
    /// The range of a case-insensitive ASCII suffix, when the string is longer than it.
    func suffixRange(_ lowercasedSuffix: String) -> String.Index? {
        let lower = self.lowercased()
        guard lower.utf8.count > lowercasedSuffix.utf8.count, lower.hasSuffix(lowercasedSuffix) else { return nil }
        return utf8.index(endIndex, offsetBy: -lowercasedSuffix.utf8.count)
    }
}

extension TimeZoneRules {
    /// Whether systemd would take `name` for a zone name (its characters); the zone database
    /// says whether there is one.
    static func isSystemdZoneName(_ name: String) -> Bool {
        isPlausibleName(name) && name.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || "/_+-.".utf8.contains(c)
        }
    }

    /// The zone's standard and daylight abbreviations, as glibc's `tzname` after `tzset`.
    var tzNames: [String] {
        if let footer {
            return [footer.standardAbbreviation, footer.daylight?.abbreviation ?? ""]
        }
        let standard = types.last { !$0.isDST }?.abbreviation ?? types.first?.abbreviation ?? ""
        let daylight = types.last { $0.isDST }?.abbreviation ?? ""
        return [standard, daylight]
    }

    /// When `text` ends in " " + one of the zone's abbreviations: which, whether it is the
    /// daylight one, and where the abbreviation's space starts.
    func abbreviationSuffix(of text: String) -> (String, Int, String.Index)? {
        for (dst, name) in tzNames.enumerated() where !name.isEmpty {
            if let r = text.suffixRange(" " + name.lowercased()) { return (name, dst, r) }
        }
        return nil
    }
}
