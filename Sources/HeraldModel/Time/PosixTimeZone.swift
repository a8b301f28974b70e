/// A POSIX `TZ` rule string such as `CET-1CEST,M3.5.0,M10.5.0/3` (the footer of TZif files).
///
/// Offsets here are stored east of UTC (the POSIX text writes them west of UTC).
struct PosixTimeZone: Sendable, Equatable {
    struct Rule: Sendable, Equatable {
        enum Day: Sendable, Equatable {
            case julianNoLeap(Int)       // Jn: 1...365, Feb 29 never counted
            case zeroBased(Int)          // n: 0...365
            case monthWeekDay(month: Int, week: Int, weekday: Int)  // Mm.w.d, weekday 0 = Sunday
        }
        var day: Day
        var time: Int  // seconds after local midnight, may be negative or > 24 h
    }

    var standardAbbreviation: String
    var standardOffset: Int
    var daylight: (abbreviation: String, offset: Int, start: Rule, end: Rule)?

    static func == (a: PosixTimeZone, b: PosixTimeZone) -> Bool {
        a.standardAbbreviation == b.standardAbbreviation && a.standardOffset == b.standardOffset
            && a.daylight?.abbreviation == b.daylight?.abbreviation && a.daylight?.offset == b.daylight?.offset
            && a.daylight?.start == b.daylight?.start && a.daylight?.end == b.daylight?.end
    }

    /// Parses a POSIX TZ string; nil when it is not one.
    init?(_ text: String) {
        var p = Scanner(Array(text.utf8))
        guard let stdName = p.abbreviation(), let stdOff = p.offset() else { return nil }
        standardAbbreviation = stdName
        standardOffset = -stdOff
        if p.atEnd { daylight = nil; return }
        guard let dstName = p.abbreviation() else { return nil }
        var dstOffset = standardOffset + 3600
        if let o = p.peek, o != UInt8(ascii: ",") { guard let off = p.offset() else { return nil }; dstOffset = -off }
        // Without rules POSIX leaves the dates implementation-defined; glibc uses the US rules.
        var start = Rule(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7200)
        var end = Rule(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7200)
        if p.consume(UInt8(ascii: ",")) {
            guard let s = p.rule(), p.consume(UInt8(ascii: ",")), let e = p.rule() else { return nil }
            start = s; end = e
        }
        guard p.atEnd else { return nil }
        daylight = (dstName, dstOffset, start, end)
    }

    /// The UTC offset in seconds and whether daylight time is in effect at `utcSeconds`.
    func offset(atUTC utcSeconds: Int64) -> (offset: Int, isDST: Bool, abbreviation: String) {
        guard let dst = daylight else { return (standardOffset, false, standardAbbreviation) }
        let year = CivilTime(localSeconds: utcSeconds + Int64(standardOffset)).year
        // Check the year before, this one and the next so transitions near New Year are right.
        var best: (at: Int64, isDST: Bool)? = nil
        for y in (year - 1)...(year + 1) {
            let startUTC = Self.transition(dst.start, year: y) - Int64(standardOffset)
            let endUTC = Self.transition(dst.end, year: y) - Int64(dst.offset)
            if startUTC <= utcSeconds, best == nil || startUTC > best!.at { best = (startUTC, true) }
            if endUTC <= utcSeconds, best == nil || endUTC > best!.at { best = (endUTC, false) }
        }
        let inDST = best?.isDST ?? false
        return inDST ? (dst.offset, true, dst.abbreviation) : (standardOffset, false, standardAbbreviation)
    }

    /// Local seconds (wall time as if UTC) at which `rule` fires in `year`.
    static func transition(_ rule: Rule, year: Int) -> Int64 {
        let jan1 = CivilCalendar.days(year: year, month: 1, day: 1)
        let day: Int64
        switch rule.day {
        case .julianNoLeap(let n):
            day = jan1 + Int64(n - 1) + ((CivilCalendar.isLeapYear(year) && n >= 60) ? 1 : 0)
        case .zeroBased(let n):
            day = jan1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilCalendar.days(year: year, month: month, day: 1)
            let firstWeekday = (CivilCalendar.weekday(days: first) + 1) % 7  // to 0 = Sunday
            var d = first + Int64((weekday - firstWeekday + 7) % 7) + Int64(7 * (week - 1))
            let last = first + Int64(CivilCalendar.daysInMonth(year: year, month: month)) - 1
            while d > last { d -= 7 }
            day = d
        }
        return day * 86_400 + Int64(rule.time)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var i = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var atEnd: Bool { i >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[i] }
        mutating func consume(_ b: UInt8) -> Bool {
            if peek == b { i += 1; return true }
            return false
        }
        mutating func abbreviation() -> String? {
            if consume(UInt8(ascii: "<")) {
                let start = i
                while let c = peek, c != UInt8(ascii: ">") { i += 1; _ = c }
                guard consume(UInt8(ascii: ">")), i - 1 - start >= 1 else { return nil }
                return String(decoding: bytes[start..<(i - 1)], as: UTF8.self)
            }
            let start = i
            while let c = peek, (c >= 65 && c <= 90) || (c >= 97 && c <= 122) { i += 1 }
            return i - start >= 3 ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
        }
        mutating func number() -> Int? {
            let start = i
            var v = 0
            while let c = peek, c >= 48, c <= 57, i - start < 3 { v = v * 10 + Int(c - 48); i += 1 }
            return i > start ? v : nil
        }
        /// `[+-]hh[:mm[:ss]]` as seconds.
        mutating func offset() -> Int? {
            var sign = 1
            if consume(UInt8(ascii: "-")) { sign = -1 } else { _ = consume(UInt8(ascii: "+")) }
            guard let h = number() else { return nil }
            var total = h * 3600
            if consume(UInt8(ascii: ":")) {
                guard let m = number() else { return nil }
                total += m * 60
                if consume(UInt8(ascii: ":")) { guard let s = number() else { return nil }; total += s }
            }
            return sign * total
        }
        mutating func rule() -> Rule? {
            let day: Rule.Day
            if consume(UInt8(ascii: "M")) {
                guard let m = number(), consume(UInt8(ascii: ".")), let w = number(), consume(UInt8(ascii: ".")),
                      let d = number(), (1...12).contains(m), (1...5).contains(w), (0...6).contains(d) else { return nil }
                day = .monthWeekDay(month: m, week: w, weekday: d)
            } else if consume(UInt8(ascii: "J")) {
                guard let n = number(), (1...365).contains(n) else { return nil }
                day = .julianNoLeap(n)
            } else {
                guard let n = number(), (0...365).contains(n) else { return nil }
                day = .zeroBased(n)
            }
            var time = 7200
            if consume(UInt8(ascii: "/")) { guard let t = offset() else { return nil }; time = t }
            return Rule(day: day, time: time)
        }
    }
}
