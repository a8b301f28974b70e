/// Times as people type them: every time specification `at` 3.2 takes (`noon`, `teatime
/// tomorrow`, `4pm + 3 days`, `10am Jul 31`, `now + 15 min`, `12/24/27`, `24.12.2027`), the
/// orders `at` refuses (`tomorrow 9am`, `fri 17:00`, `in 2 hours`), ISO-8601 and `HH:MM[:SS]`,
/// and a trailing IANA zone or `UTC`.
///
/// Where `at` is right, the answer is `at`'s (the test suite asks `at` itself). Where it is not,
/// Herald differs on purpose: `now + 2 hours` is two hours of elapsed time across a
/// daylight-saving change, `Feb 29` means the next Feb 29 that exists, `Jan 31 + 1 month` is
/// the last day of February, a time in a daylight-saving gap is refused, and a phrase with no
/// time of day keeps the current time's seconds (`at` drops them).
public enum TimePhrase {
    /// Two phrases that work, shown with every refusal.
    public static let hint = "try 'tomorrow 9am' or 'in 2 hours'"

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
        init(_ reason: String) { self.reason = reason }
    }

    /// What a phrase means: the instant, and the zone it was read in (the phrase's own, or the local one).
    public struct Meaning: Equatable, Sendable {
        public var instant: Instant
        public var zone: TimeZoneRules
    }

    /// The instant `text` means when said at `now` in `zone`.
    ///
    /// - Throws: `Failure` naming the word that did not fit, an impossible date, a time skipped
    ///   by a daylight-saving change, or a time before the current minute.
    public static func parse(_ text: String, now: Instant, zone: TimeZoneRules, zones: ZoneLookup) throws(Failure) -> Meaning {
        var words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
        guard !words.isEmpty else { throw Failure("the time is empty; " + hint) }
        // A zone may close the phrase: `9am Europe/London`, `2026-12-24 09:00 UTC`.
        var phraseZone: TimeZoneRules? = nil
        if words.count > 1, let z = try zoneWord(words.last!, zones) {
            phraseZone = z
            words.removeLast()
        }
        let readZone = phraseZone ?? zone
        let joined = words.joined(separator: " ")
        if let p = ISO8601.parse(joined) {
            if let offset = p.offsetSeconds {
                if phraseZone != nil { throw Failure("'\(joined)' has its own UTC offset; drop the zone after it") }
                let t = Instant(microseconds: (p.civil.localSeconds - Int64(offset)) * 1_000_000 + Int64(p.civil.microsecond))
                return try notPast(Meaning(instant: t, zone: readZone), now: now, text: text)
            }
            return try notPast(Meaning(instant: resolve(p.civil, in: readZone), zone: readZone), now: now, text: text)
        }
        var parser = Parser(tokens: [], phrase: text)
        do {
            parser = Parser(tokens: try lex(words, zones), phrase: text)
            try parser.parse()
        } catch {
            // `in 1h30m`, `in 1 h 30 min`: a span as `--in` takes it.
            if words.count > 1, words[0].lowercased() == "in",
               let span = try? TimeSpan.parse(words.dropFirst().joined(separator: " ")), span > .zero,
               span < Span.seconds(1000 * 366 * 86_400) {
                return Meaning(instant: now + span, zone: readZone)
            }
            throw error
        }
        if let z = parser.zone {
            if phraseZone != nil { throw Failure("'\(text)' names two time zones") }
            phraseZone = z
        }
        let z = phraseZone ?? zone
        return try notPast(Meaning(instant: try parser.evaluate(now: now, zone: z), zone: z), now: now, text: text)
    }

    /// As `at` does, a time earlier than the current minute is refused.
    static func notPast(_ m: Meaning, now: Instant, text: String) throws(Failure) -> Meaning {
        let minuteStart = Instant(seconds: now.seconds - Int64(m.zone.civil(now).second))
        guard m.instant >= minuteStart else {
            throw Failure("'\(text)' means \(ISO8601.format(m.instant, in: m.zone)), which is in the past")
        }
        return m
    }

    /// The instant the wall clock shows `civil` in `zone`: the first of two in an overlap;
    /// a time skipped by a daylight-saving change is refused.
    static func resolve(_ civil: CivilTime, in zone: TimeZoneRules) throws(Failure) -> Instant {
        switch zone.resolve(civil) {
        case .unique(let t): return t
        case .repeated(let earlier, _): return earlier
        case .skipped:
            let day = ISO8601.pad(civil.year, 4) + "-" + ISO8601.pad(civil.month, 2) + "-" + ISO8601.pad(civil.day, 2)
            throw Failure("\(ISO8601.pad(civil.hour, 2)):\(ISO8601.pad(civil.minute, 2)) on \(day) does not exist in "
                          + "\(zone.identifier): the clocks skip it for daylight saving time")
        }
    }

    /// `UTC`, `GMT`, `Z`, or an IANA name such as `Europe/Berlin`; nil for other words.
    static func zoneWord(_ word: String, _ zones: ZoneLookup) throws(Failure) -> TimeZoneRules? {
        switch word.lowercased() {
        case "utc", "gmt", "z": return .utc
        default: break
        }
        guard let first = word.unicodeScalars.first, first.properties.isAlphabetic, word.contains("/") else { return nil }
        guard TimeZoneRules.isPlausibleName(word), let z = zones(word) else {
            throw Failure("'\(word)' is not a known time zone (see /usr/share/zoneinfo)")
        }
        return z
    }

    // MARK: - Words

    enum Unit: Equatable {
        case second, minute, hour, day, week, month, year
        /// Whether the unit moves the date (then a bare time no longer rolls to tomorrow, as in `at`).
        var movesDate: Bool { self == .day || self == .week || self == .month || self == .year }
    }

    enum Token: Equatable {
        case number(String)
        case word(String)
        /// `9:30`, `9h30`, `9.30`, `9'30`, `9,30` (`at`'s forms), and `9:30:15`.
        case clock(hour: Int, minute: Int, second: Int)
        /// `DD.MM.YY[YY]`.
        case dotted(day: Int, month: Int, year: Int, yearDigits: Int)
        /// `[CC]YY-MM-DD`.
        case hyphen(year: Int, month: Int, day: Int, yearDigits: Int)
        case symbol(Character)
        case zone(TimeZoneRules)

        var text: String {
            switch self {
            case .number(let s), .word(let s): return s
            case .clock(let h, let m, let s): return "\(h):\(ISO8601.pad(m, 2))" + (s > 0 ? ":\(ISO8601.pad(s, 2))" : "")
            case .dotted(let d, let m, let y, _): return "\(d).\(m).\(y)"
            case .hyphen(let y, let m, let d, _): return "\(y)-\(m)-\(d)"
            case .symbol(let c): return String(c)
            case .zone(let z): return z.identifier
            }
        }
    }

    static func unit(_ word: String) -> Unit? {
        switch word {
        case "s", "sec", "secs", "second", "seconds": return .second
        case "m", "min", "mins", "minute", "minutes": return .minute
        case "h", "hr", "hrs", "hour", "hours": return .hour
        case "d", "day", "days": return .day
        case "w", "wk", "wks", "week", "weeks": return .week
        case "month", "months": return .month
        case "y", "yr", "yrs", "year", "years": return .year
        default: return nil
        }
    }

    /// 0 = Monday ... 6 = Sunday.
    static func weekday(_ word: String) -> Int? {
        switch word {
        case "mon", "monday": return 0
        case "tue", "tues", "tuesday": return 1
        case "wed", "wednesday": return 2
        case "thu", "thur", "thurs", "thursday": return 3
        case "fri", "friday": return 4
        case "sat", "saturday": return 5
        case "sun", "sunday": return 6
        default: return nil
        }
    }

    static let monthNames = [["jan", "january"], ["feb", "february"], ["mar", "march"], ["apr", "april"], ["may"],
                             ["jun", "june"], ["jul", "july"], ["aug", "august"], ["sep", "sept", "september"],
                             ["oct", "october"], ["nov", "november"], ["dec", "december"]]

    /// 1 ... 12.
    static func month(_ word: String) -> Int? {
        monthNames.firstIndex { $0.contains(word) }.map { $0 + 1 }
    }

    /// Splits words into tokens the way `at`'s scanner does (the longest match wins).
    static func lex(_ words: [String], _ zones: ZoneLookup) throws(Failure) -> [Token] {
        var tokens: [Token] = []
        for original in words {
            if let z = try zoneWord(original, zones) {
                tokens.append(.zone(z))
                continue
            }
            let c = Array(original.lowercased().unicodeScalars)
            var i = 0
            func isDigit(_ k: Int) -> Bool { k < c.count && c[k].value >= 48 && c[k].value <= 57 }
            func isLetter(_ k: Int) -> Bool { k < c.count && c[k].value >= 97 && c[k].value <= 122 }
            func digitRun(_ k: Int) -> Int { var e = k; while isDigit(e) { e += 1 }; return e - k }
            func int(_ from: Int, _ count: Int) -> Int { c[from..<(from + count)].reduce(0) { $0 * 10 + Int($1.value - 48) } }
            while i < c.count {
                if isDigit(i) {
                    let run = digitRun(i)
                    var best: (length: Int, token: Token) = (run, .number(String(String.UnicodeScalarView(c[i..<(i + run)]))))
                    // DD.MM.YY[YY]
                    if run <= 2, i + run < c.count, c[i + run] == ".", case let m = digitRun(i + run + 1), (1...2).contains(m),
                       i + run + 1 + m < c.count, c[i + run + 1 + m] == "." {
                        let yStart = i + run + 2 + m
                        let y = digitRun(yStart)
                        if y == 2 || y == 4, 2 + run + m + y > best.length {
                            best = (2 + run + m + y, .dotted(day: int(i, run), month: int(i + run + 1, m), year: int(yStart, y), yearDigits: y))
                        }
                    }
                    // [CC]YY-MM-DD
                    if run == 2 || run == 4, i + run < c.count, c[i + run] == "-", case let m = digitRun(i + run + 1), (1...2).contains(m),
                       i + run + 1 + m < c.count, c[i + run + 1 + m] == "-", case let d = digitRun(i + run + 2 + m), (1...2).contains(d),
                       2 + run + m + d > best.length {
                        best = (2 + run + m + d, .hyphen(year: int(i, run), month: int(i + run + 1, m), day: int(i + run + 2 + m, d), yearDigits: run))
                    }
                    // H:MM, HH:MM (with : ' h , .), and :SS
                    if run <= 2, i + run < c.count, ":'h,.".unicodeScalars.contains(c[i + run]), digitRun(i + run + 1) == 2 {
                        var length = run + 3
                        var second = 0
                        if c[i + run] == ":", i + length < c.count, c[i + length] == ":", digitRun(i + length + 1) == 2 {
                            second = int(i + length + 1, 2)
                            length += 3
                        }
                        if length > best.length {
                            best = (length, .clock(hour: int(i, run), minute: int(i + run + 1, 2), second: second))
                        }
                    }
                    tokens.append(best.token)
                    i += best.length
                } else if isLetter(i) {
                    var e = i
                    while isLetter(e) { e += 1 }
                    tokens.append(.word(String(String.UnicodeScalarView(c[i..<e]))))
                    i = e
                } else {
                    let s = Character(c[i])
                    guard "+-/,.:'".contains(s) else { throw Failure("'\(original)' does not fit: '\(s)' is not part of a time; " + hint) }
                    tokens.append(.symbol(s))
                    i += 1
                }
            }
        }
        return tokens
    }

    // MARK: - Grammar

    enum DateSpec: Equatable {
        /// Days after today: `today` 0, `tomorrow` 1.
        case days(Int)
        /// The next such weekday after today (as in `at`: `fri` on a Friday is a week later).
        case weekday(Int)
        /// A month and day; the year when given (else this year, or next when it has passed).
        case monthDay(month: Int, day: Int, year: Int?)
    }

    struct Parser {
        let tokens: [Token]
        let phrase: String
        var k = 0
        var clock: (hour: Int, minute: Int, second: Int)?
        var date: DateSpec?
        var increments: [(Int, Unit)] = []
        var now = false
        var zone: TimeZoneRules?

        init(tokens: [Token], phrase: String) { self.tokens = tokens; self.phrase = phrase }

        var peek: Token? { k < tokens.count ? tokens[k] : nil }
        func peek(_ ahead: Int) -> Token? { k + ahead < tokens.count ? tokens[k + ahead] : nil }

        func unfit(_ token: Token, _ why: String? = nil) -> Failure {
            let head = tokens.count > 1 ? "'\(token.text)' does not fit in '\(phrase)'" : "'\(phrase)' is not a time"
            return Failure(head + (why.map { ": " + $0 } ?? "") + "; " + hint)
        }

        mutating func setClock(_ hour: Int, _ minute: Int, _ second: Int, _ token: Token) throws(Failure) {
            guard clock == nil else { throw unfit(token, "the phrase already has a time of day") }
            guard (0...24).contains(hour), (0...59).contains(minute), (0...59).contains(second),
                  hour < 24 || (minute == 0 && second == 0) else {
                throw Failure("'\(token.text)' is not a time of day; use 00:00 to 23:59")
            }
            clock = (hour, minute, second)
        }

        mutating func setDate(_ d: DateSpec, _ token: Token) throws(Failure) {
            guard date == nil else { throw unfit(token, "the phrase already has a date") }
            date = d
        }

        /// An optional `am`/`pm` after an hour.
        mutating func meridiem(_ hour: Int, _ token: Token) throws(Failure) -> Int? {
            guard case .word(let w)? = peek, w == "am" || w == "pm" else { return nil }
            k += 1
            guard (0...12).contains(hour) else { throw Failure("'\(token.text) \(w)' is not a time: the hour is above 12") }
            if w == "am" { return hour == 12 ? 0 : hour }
            return hour == 12 ? 12 : hour + 12
        }

        /// `N unit`: after `+`, `-` or `in`.
        mutating func amount(sign: Int) throws(Failure) -> Bool {
            guard case .number(let digits)? = peek else { return false }
            let t = peek!
            guard digits.count <= 8, let n = Int(digits) else { throw Failure("'\(digits)' is too large an amount") }
            k += 1
            guard case .word(let w)? = peek, let u = unit(w) else {
                throw unfit(peek ?? t, "say what '\(digits)' counts: minutes, hours, days, weeks, months or years")
            }
            k += 1
            increments.append((sign * n, u))
            return true
        }

        mutating func parse() throws(Failure) {
            while let t = peek {
                k += 1
                switch t {
                case .zone(let z):
                    guard zone == nil else { throw unfit(t, "the phrase already names a zone") }
                    zone = z
                case .symbol(","):
                    continue
                case .symbol(let s) where s == "+" || s == "-":
                    guard try amount(sign: s == "+" ? 1 : -1) else { throw unfit(t, "'\(s)' needs an amount such as '\(s) 3 days'") }
                case .clock(let h, let m, let s):
                    let hour = try meridiem(h, t) ?? h
                    try setClock(hour, m, s, t)
                case .dotted(let d, let m, let y, let digits):
                    try setDate(.monthDay(month: m, day: d, year: fullYear(y, digits: digits)), t)
                case .hyphen(let y, let m, let d, let digits):
                    try setDate(.monthDay(month: m, day: d, year: fullYear(y, digits: digits)), t)
                case .number(let digits):
                    try number(digits, t)
                case .word(let w):
                    try word(w, t)
                default:
                    throw unfit(t)
                }
            }
            guard clock != nil || date != nil || !increments.isEmpty || now else {
                throw Failure("'\(phrase)' says no time; " + hint)
            }
        }

        mutating func word(_ w: String, _ t: Token) throws(Failure) {
            switch w {
            case "now": now = true
            case "at", "on", "and": break
            case "noon": try setClock(12, 0, 0, t)
            case "midnight": try setClock(0, 0, 0, t)
            case "teatime": try setClock(16, 0, 0, t)
            case "today": try setDate(.days(0), t)
            case "tomorrow": try setDate(.days(1), t)
            case "in":
                guard try amount(sign: 1) else { throw unfit(peek ?? t, "say 'in 2 hours' or 'in 90 min'") }
                while try amount(sign: 1) {}
            case "next":
                guard case .word(let u)? = peek else { throw unfit(t, "say 'next week' or 'next friday'") }
                k += 1
                if let unit = unit(u) {
                    // `at` reads `next week` as a date: it may not go with another date.
                    if unit.movesDate { try setDate(.days(0), peek(-1)!) }
                    increments.append((1, unit))
                } else if let d = weekday(u) {
                    try setDate(.weekday(d), peek(-1)!)
                } else {
                    throw unfit(peek(-1)!, "say 'next week' or 'next friday'")
                }
            default:
                if let d = weekday(w) { try setDate(.weekday(d), t); return }
                if let m = month(w) { try monthFirst(m, t); return }
                if w == "am" || w == "pm" { throw unfit(t, "it needs an hour before it, as in '9am'") }
                throw unfit(t)
            }
        }

        /// `Jul 31`, `Jul 31 2027`, `Jul 31, 27`.
        mutating func monthFirst(_ m: Int, _ t: Token) throws(Failure) {
            guard case .number(let d)? = peek, d.count <= 2, let day = Int(d) else {
                throw unfit(peek ?? t, "say a day after the month, as in '\(t.text) 31'")
            }
            k += 1
            var year: Int? = nil
            var j = 0
            if case .symbol(",")? = peek { j = 1 }
            if case .number(let y)? = peek(j), y.count == 2 || y.count == 4, !isMeridiem(peek(j + 1)) {
                year = fullYear(Int(y)!, digits: y.count)
                k += j + 1
            }
            try setDate(.monthDay(month: m, day: day, year: year), t)
        }

        func isMeridiem(_ t: Token?) -> Bool {
            if case .word(let w)? = t { return w == "am" || w == "pm" }
            return false
        }

        mutating func number(_ digits: String, _ t: Token) throws(Failure) {
            let value = Int(digits) ?? -1
            // `31 Jul [2027]`
            if digits.count <= 2, case .word(let w)? = peek, let m = month(w) {
                k += 1
                var year: Int? = nil
                if case .number(let y)? = peek, y.count == 2 || y.count == 4, !isMeridiem(peek(1)) {
                    year = fullYear(Int(y)!, digits: y.count)
                    k += 1
                }
                try setDate(.monthDay(month: m, day: value, year: year), t)
                return
            }
            // `MM/DD/[CC]YY`
            if digits.count <= 2, case .symbol("/")? = peek {
                guard case .number(let d)? = peek(1), d.count <= 2, case .symbol("/")? = peek(2),
                      case .number(let y)? = peek(3), y.count == 2 || y.count == 4 else {
                    throw unfit(t, "write a date with slashes as MM/DD/YY or MM/DD/YYYY")
                }
                k += 4
                try setDate(.monthDay(month: value, day: Int(d)!, year: fullYear(Int(y)!, digits: y.count)), t)
                return
            }
            if digits.count <= 2 {
                guard let hour = try meridiem(value, t) else {
                    throw unfit(t, "a lone number is not a time: say \(value)am, \(value)pm or \(ISO8601.pad(min(value, 23), 2)):00")
                }
                try setClock(hour, 0, 0, t)
                return
            }
            // `HHMM`, 24-hour
            if digits.count == 4 {
                try setClock(value / 100, value % 100, 0, t)
                return
            }
            // `MMDD[CC]YY`
            if (5...8).contains(digits.count) {
                let d = Array(digits)
                let monthDigits = digits.count % 2 == 1 ? 1 : 2
                let month = Int(String(d[0..<monthDigits]))!
                let day = Int(String(d[monthDigits..<(monthDigits + 2)]))!
                let yearText = String(d[(monthDigits + 2)...])
                try setDate(.monthDay(month: month, day: day, year: fullYear(Int(yearText)!, digits: yearText.count)), t)
                return
            }
            throw unfit(t)
        }

        /// `at`'s years: two digits below 70 are 20YY, others 19YY.
        func fullYear(_ y: Int, digits: Int) -> Int {
            guard digits <= 2 else { return y }
            return y < 70 ? 2000 + y : 1900 + y
        }

        /// The instant meant at `now` in `zone`, in `at`'s order: the time of day, the date, the
        /// increments; then a bare time that has passed rolls to tomorrow and a month and day
        /// that have passed roll to next year.
        func evaluate(now nowInstant: Instant, zone: TimeZoneRules) throws(Failure) -> Instant {
            let today = zone.civil(nowInstant)
            var c = today
            if let clock {
                c.microsecond = 0
                c.hour = clock.hour == 24 ? 0 : clock.hour
                c.minute = clock.minute; c.second = clock.second
                if clock.hour == 24 { c = Self.adding(days: 1, to: c) }
            }
            var yearFixed = now
            switch date {
            case .days(let n)?: c = Self.adding(days: n, to: c)
            case .weekday(let d)?:
                // at: (6 + wanted - today) % 7 + 1 days ahead, Sunday-based: 1 to 7 days.
                let wanted = (d + 1) % 7, current = (today.weekday + 1) % 7
                c = Self.adding(days: (6 + wanted - current) % 7 + 1, to: c)
            case .monthDay(let m, let d, let y)?:
                guard (1...12).contains(m) else { throw Failure("'\(phrase)': \(m) is not a month (1 to 12)") }
                guard d >= 1, d <= 31 else { throw Failure("'\(phrase)': \(d) is not a day of the month") }
                if let y {
                    guard d <= CivilCalendar.daysInMonth(year: y, month: m) else {
                        throw Failure("'\(phrase)': \(Self.monthName(m)) \(y) has \(CivilCalendar.daysInMonth(year: y, month: m)) days")
                    }
                    c.year = y
                    yearFixed = true
                } else if d > CivilCalendar.daysInMonth(year: 2024, month: m) {
                    throw Failure("'\(phrase)': \(Self.monthName(m)) has \(CivilCalendar.daysInMonth(year: 2024, month: m)) days")
                } else if m == 2 && d == 29 {
                    // The next Feb 29 there is (at rolls to Mar 1 in other years).
                    var y = today.year
                    while !CivilCalendar.isLeapYear(y) || (y == today.year && (today.month, today.day) > (2, 29)) { y += 1 }
                    c.year = y
                    yearFixed = true
                }
                c.month = m; c.day = d
            case nil: break
            }
            // Increments: minutes and hours are elapsed time; days and longer keep the wall time.
            // Counted from `now` itself when no time or date is given (its wall time may be the
            // second pass of an autumn hour, which the civil time alone cannot say).
            var exact: Instant? = clock == nil && date == nil ? nowInstant : nil
            var datesMoved = false
            for (n, unit) in increments {
                switch unit {
                case .second, .minute, .hour:
                    let size: Int64 = unit == .second ? 1 : unit == .minute ? 60 : 3600
                    let start: Instant
                    if let exact { start = exact } else { start = try TimePhrase.resolve(c, in: zone) }
                    let t = start + Span.seconds(Int64(n) * size)
                    exact = t
                    c = zone.civil(t)
                case .day, .week:
                    c = Self.adding(days: n * (unit == .week ? 7 : 1), to: c)
                    exact = nil
                    datesMoved = true
                case .month, .year:
                    let months = c.year * 12 + (c.month - 1) + n * (unit == .year ? 12 : 1)
                    c.year = months.floorDivided(by: 12); c.month = months - c.year * 12 + 1
                    c.day = min(c.day, CivilCalendar.daysInMonth(year: c.year, month: c.month))
                    exact = nil
                    datesMoved = true
                }
                // Kept within the years an instant can hold (and a calendar means anything in).
                guard (1...9999).contains(c.year) else { throw Failure("'\(phrase)' is beyond the year 9999") }
            }
            let timeOnly = clock != nil && date == nil && !datesMoved
            if timeOnly, c.day == today.day, (c.hour, c.minute, c.second) <= (today.hour, today.minute, today.second) {
                c = Self.adding(days: 1, to: c)
                exact = nil
            }
            if !timeOnly, !yearFixed, c.year == today.year, (c.month, c.day) < (today.month, today.day) {
                c.year += 1
                c.day = min(c.day, CivilCalendar.daysInMonth(year: c.year, month: c.month))
                exact = nil
            }
            // Without a time of day, the current one is kept, seconds and all.
            if let exact { return exact }
            return try TimePhrase.resolve(c, in: zone)
        }

        static func adding(days: Int, to c: CivilTime) -> CivilTime {
            let (y, m, d) = CivilCalendar.civil(fromDays: CivilCalendar.days(year: c.year, month: c.month, day: c.day) + Int64(days))
            return CivilTime(year: y, month: m, day: d, hour: c.hour, minute: c.minute, second: c.second, microsecond: c.microsecond)
        }

        static func monthName(_ m: Int) -> String {
            ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December"][m - 1]
        }
    }
}

extension Int {
    /// Division rounding toward negative infinity.
    func floorDivided(by d: Int) -> Int { self >= 0 ? self / d : -((-self + d - 1) / d) }
}
