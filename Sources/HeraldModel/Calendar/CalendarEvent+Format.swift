extension CalendarEvent {
    /// systemd's normalized form, as `systemd-analyze calendar` prints it:
    /// `Mon..Fri *-*-* 09..17:00/30:00`.
    public var description: String {
        var out = ""
        if weekdays > 0 && weekdays < 127 { out += formatWeekdays() + " " }
        out += Self.format(year, width: 4) + "-" + Self.format(month, width: 2) + (endOfMonth ? "~" : "-")
            + Self.format(day, width: 2) + " " + Self.format(hour, width: 2) + ":" + Self.format(minute, width: 2)
            + ":" + Self.format(microsecond, width: 2, usec: true)
        switch zone {
        case .local: break
        case .utc: out += " UTC"
        case .named(let name, _): out += " " + name
        case .localAbbreviation(let name, _): out += " " + name
        }
        return out
    }

    func formatWeekdays() -> String {
        let names = RelativeTime.weekdayNames
        var parts: [String] = []
        var k = 0
        while k < 7 {
            guard weekdays & (1 << k) != 0 else { k += 1; continue }
            var end = k
            while end + 1 < 7, weekdays & (1 << (end + 1)) != 0 { end += 1 }
            switch end - k {
            case 0: parts.append(names[k])
            case 1: parts.append(names[k] + "," + names[end])
            default: parts.append(names[k] + ".." + names[end])
            }
            k = end + 1
        }
        return parts.joined(separator: ",")
    }

    static func format(_ chain: [Component]?, width: Int, usec: Bool = false) -> String {
        guard let chain else { return "*" }
        let d = usec ? usecPerSecond : 1
        if usec, chain.count == 1, chain[0].start == 0, chain[0].repeatEvery == usecPerSecond, chain[0].stop < 0 { return "*" }
        func number(_ v: Int) -> String {
            let whole = String(v / d)
            return String(repeating: "0", count: max(0, width - whole.count)) + whole
        }
        func fraction(_ v: Int) -> String {
            let f = String(v % d)
            return "." + String(repeating: "0", count: 6 - f.count) + f
        }
        return chain.map { c in
            var s = number(c.start)
            if c.start % d > 0 { s += fraction(c.start) }
            if c.stop > 0 { s += ".." + number(c.stop) }
            if c.stop % d > 0 { s += fraction(c.stop) }
            if c.repeatEvery > 0 && !(c.stop > 0 && c.repeatEvery == d) { s += "/" + String(c.repeatEvery / d) }
            if c.repeatEvery % d > 0 { s += fraction(c.repeatEvery) }
            return s
        }.joined(separator: ",")
    }
}
