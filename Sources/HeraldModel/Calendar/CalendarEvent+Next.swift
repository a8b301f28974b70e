extension CalendarEvent {
    /// The first elapse strictly after `instant`, or nil when the expression never elapses
    /// again (a date in the past, or past the year 2199).
    ///
    /// - Parameter zone: where an expression without a zone of its own is evaluated.
    public func next(after instant: Instant, in zone: TimeZoneRules) -> Instant? {
        var converter: TimeConverter
        var dst = -1
        switch self.zone {
        case .utc: converter = TimeConverter(zone: nil)
        case .named(_, let rules): converter = TimeConverter(zone: rules)
        case .local: converter = TimeConverter(zone: zone)
        case .localAbbreviation(_, let d): converter = TimeConverter(zone: zone); dst = d
        }
        let usec = instant.microseconds + 1
        let t = usec.floorDiv(1_000_000)
        var tm = converter.breakDown(t)
        var tmUsec = Int(usec.floorMod(1_000_000))
        guard findNext(&tm, &tmUsec, converter: &converter, dst: dst),
              let seconds = converter.normalize(&tm) else { return nil }
        return Instant(microseconds: seconds * 1_000_000 + Int64(tmUsec))
    }

    /// The next `count` elapses after `instant`.
    public func elapses(after instant: Instant, count: Int, in zone: TimeZoneRules) -> [Instant] {
        var out: [Instant] = []
        var cursor = instant
        while out.count < count, let t = next(after: cursor, in: zone) {
            out.append(t)
            cursor = t
        }
        return out
    }

    /// systemd's search: settle each field from the year down, restarting from a normalized
    /// time whenever a field had to move, so impossible and skipped wall times are passed over.
    ///
    /// As in systemd since its fix for zones whose daylight offset is negative (backported to
    /// 252): a candidate that is not after the start means normalization sent it backwards
    /// through a daylight-saving change; the search then keeps the normalized daylight flag
    /// and moves on an hour.
    private func findNext(_ tm: inout BrokenDownTime, _ usec: inout Int, converter: inout TimeConverter, dst: Int) -> Bool {
        var c = tm
        var cu = usec
        var keepDST = false
        let start = (tm.year, tm.mon, tm.mday, tm.hour, tm.min, tm.sec)
        func resetBelowYear() { c.mon = 0; c.mday = 1; c.hour = 0; c.min = 0; c.sec = 0; cu = 0 }
        func resetBelowMonth() { c.mday = 1; c.hour = 0; c.min = 0; c.sec = 0; cu = 0 }
        func resetBelowDay() { c.hour = 0; c.min = 0; c.sec = 0; cu = 0 }
        for _ in 0..<1000 {
            _ = converter.normalize(&c)
            if !keepDST { c.isdst = dst }

            var r = match(year, in: c, value: &c.year, converter: &converter)
            if r > 0 { resetBelowYear() }
            if r < 0 { return false }
            if withinBounds(&c, &converter) <= 0 { return false }

            var month1 = c.mon + 1
            r = match(month, in: c, value: &month1, converter: &converter)
            c.mon = month1 - 1
            if r > 0 { resetBelowMonth() }
            if r >= 0 { r = withinBounds(&c, &converter) }
            if r < 0 { c.year += 1; resetBelowYear(); continue }
            if r == 0 { continue }

            r = match(day, in: c, value: &c.mday, converter: &converter, isDay: true)
            if r > 0 { resetBelowDay() }
            if r >= 0 { r = withinBounds(&c, &converter) }
            if r < 0 { c.mon += 1; resetBelowMonth(); continue }
            if r == 0 { continue }

            if !matchesWeekday(c, &converter) { c.mday += 1; resetBelowDay(); continue }

            r = match(hour, in: c, value: &c.hour, converter: &converter)
            if r > 0 { c.min = 0; c.sec = 0; cu = 0 }
            if r >= 0 { r = withinBounds(&c, &converter) }
            if r < 0 { c.mday += 1; resetBelowDay(); continue }
            if r == 0 { continue }  // the hour may not exist today (a DST jump): start over from there

            r = match(minute, in: c, value: &c.min, converter: &converter)
            if r > 0 { c.sec = 0; cu = 0 }
            if r >= 0 { r = withinBounds(&c, &converter) }
            if r < 0 { c.hour += 1; c.min = 0; c.sec = 0; cu = 0; continue }
            if r == 0 { continue }

            var micro = c.sec * Self.usecPerSecond + cu
            r = match(microsecond, in: c, value: &micro, converter: &converter)
            cu = micro % Self.usecPerSecond
            c.sec = micro / Self.usecPerSecond
            if r >= 0 { r = withinBounds(&c, &converter) }
            if r < 0 { c.min += 1; c.sec = 0; cu = 0; continue }
            if r == 0 { continue }

            let candidate = (c.year, c.mon, c.mday, c.hour, c.min, c.sec)
            if candidate < start || (candidate == start && cu < usec) {
                keepDST = true
                c.hour += 1
                continue
            }
            tm = c
            usec = cu
            return true
        }
        return false
    }

    /// The earliest value of `chain` at or after `value`: 1 if it moved, 0 if it already
    /// matched, -1 if there is none.
    private func match(_ chain: [Component]?, in tm: BrokenDownTime, value: inout Int, converter: inout TimeConverter,
                       isDay: Bool = false) -> Int {
        guard let chain else { return 0 }
        let fromEnd = endOfMonth && isDay
        var best: Int? = nil
        for c in chain {
            var start = c.start, stop = c.stop
            if fromEnd {
                start = lastDays(tm, c.start, &converter)
                stop = lastDays(tm, c.stop, &converter)
                if stop > 0 { swap(&start, &stop) }
            }
            if start >= value {
                if best == nil || start < best! { best = start }
            } else if c.repeatEvery > 0 {
                let k = start + c.repeatEvery * ((value - start + c.repeatEvery - 1) / c.repeatEvery)
                if (best == nil || k < best!) && (stop < 0 || k <= stop) { best = k }
            }
        }
        guard let best else { return -1 }
        defer { value = best }
        return value != best ? 1 : 0
    }

    /// The day of the month that is the `day`th from its end (1: the last day), or -1.
    private func lastDays(_ tm: BrokenDownTime, _ day: Int, _ converter: inout TimeConverter) -> Int {
        var t = tm
        t.mon += 1
        t.mday = 1 - day
        guard converter.normalize(&t) != nil, t.mon == tm.mon else { return -1 }
        return t.mday
    }

    /// 1: `tm` names a real time as written; 0: normalizing moved it forward (now `tm`);
    /// negative: out of range, or normalizing would move it backwards.
    private func withinBounds(_ tm: inout BrokenDownTime, _ converter: inout TimeConverter) -> Int {
        if tm.year > Self.maxYear { return -1 }
        var t = tm
        guard converter.normalize(&t) != nil else { return -1 }
        var cmp: Int
        func compare(_ a: Int, _ b: Int) -> Int { a < b ? -1 : (a > b ? 1 : 0) }
        // Which way did normalizing move it? Reset the unit below the first one that moved,
        // so e.g. 3-33 → 4-02 does not skip 4-01.
        cmp = compare(t.year, tm.year)
        if cmp != 0 { t.mon = 0 } else {
            cmp = compare(t.mon, tm.mon)
            if cmp != 0 { t.mday = 1 } else {
                cmp = compare(t.mday, tm.mday)
                if cmp != 0 { t.hour = 0 } else {
                    cmp = compare(t.hour, tm.hour)
                    if cmp != 0 { t.min = 0 } else {
                        cmp = compare(t.min, tm.min)
                        if cmp != 0 { t.sec = 0 } else { cmp = compare(t.sec, tm.sec) }
                    }
                }
            }
        }
        if cmp < 0 { return -2 }  // never go backwards
        if cmp > 0 { tm = t }
        return cmp == 0 ? 1 : 0
    }

    private func matchesWeekday(_ tm: BrokenDownTime, _ converter: inout TimeConverter) -> Bool {
        if weekdays < 0 || weekdays >= 127 { return true }
        var t = tm
        guard converter.normalize(&t) != nil else { return false }
        let k = t.wday == 0 ? 6 : t.wday - 1
        return weekdays & (1 << k) != 0
    }
}
