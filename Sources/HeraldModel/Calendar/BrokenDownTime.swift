/// A `struct tm` as the calendar evaluator needs it: fields may be out of range until
/// `TimeConverter.normalize` folds them back, as `mktime(3)` does.
struct BrokenDownTime: Equatable {
    var year: Int       // the full year (tm_year + 1900)
    var mon: Int        // 0...11 once normalized
    var mday: Int
    var hour: Int
    var min: Int
    var sec: Int
    var isdst: Int = -1 // -1: unknown (let the zone decide), 0: standard time, 1: daylight time
    var wday: Int = 0   // 0 = Sunday, set by normalization

    /// Seconds since the epoch if these fields were UTC, after folding months into years.
    var localSeconds: Int64 {
        let m = Int64(mon)
        let y = Int64(year) + m.floorDiv(12)
        let days = CivilCalendar.days(year: Int(y), month: Int(m.floorMod(12)) + 1, day: 1) + Int64(mday - 1)
        return days * 86_400 + Int64(hour) * 3600 + Int64(min) * 60 + Int64(sec)
    }
}

/// `localtime_r`/`mktime` (or `gmtime_r`/`timegm` for UTC) over a `TimeZoneRules`.
///
/// Calendar elapse times must match systemd's, and systemd resolves wall-clock times with
/// glibc's `mktime`, whose answer for a time that falls in a daylight-saving gap or overlap
/// depends on how it probes (starting from the offset it found last time). This reproduces
/// that probing so skipped and repeated local times come out the same.
struct TimeConverter {
    /// nil: UTC.
    let zone: TimeZoneRules?
    /// glibc's remembered `t - local` from the previous `mktime` (its initial guess).
    var guessOffset: Int64 = 0

    init(zone: TimeZoneRules?) { self.zone = zone }

    /// `localtime_r(t)` (or `gmtime_r`).
    func breakDown(_ t: Int64) -> BrokenDownTime {
        let (offset, dst) = localType(t)
        return Self.fields(localSeconds: t + offset, isdst: dst)
    }

    func localType(_ t: Int64) -> (offset: Int64, isDST: Bool) {
        guard let zone else { return (0, false) }
        let type = zone.localType(atUTC: t)
        return (Int64(type.offset), type.isDST)
    }

    static func fields(localSeconds: Int64, isdst: Bool) -> BrokenDownTime {
        let days = localSeconds.floorDiv(86_400)
        let secs = Int(localSeconds.floorMod(86_400))
        let (y, m, d) = CivilCalendar.civil(fromDays: days)
        return BrokenDownTime(year: y, mon: m - 1, mday: d, hour: secs / 3600, min: secs / 60 % 60, sec: secs % 60,
                              isdst: isdst ? 1 : 0, wday: (CivilCalendar.weekday(days: days) + 1) % 7)
    }

    /// `mktime(&tm)` (or `timegm`): the instant `tm` names, with `tm` normalized in place.
    /// Returns nil where glibc fails (it gives up after six probes).
    mutating func normalize(_ tm: inout BrokenDownTime) -> Int64? {
        var requested = tm
        requested.sec = min(max(tm.sec, 0), 59)  // glibc's leap-second clamp
        let local = requested.localSeconds
        guard zone != nil else {
            tm = breakDown(local)
            return local
        }
        let isdst = tm.isdst
        let t0 = local + guessOffset
        var t = t0, t1 = t0, t2 = t0
        var probes = 6
        var previousDST = false
        var type = localType(t)
        resolve: do {
            while true {
                type = localType(t)
                let dt = local - (t + type.offset)
                if dt == 0 { break }
                // Oscillating between two candidates: the time is in a gap. Without a requested
                // flag glibc settles on the daylight-time side.
                if t == t1 && t != t2 && (isdst < 0 ? (!previousDST || type.isDST) : (isdst != 0) != type.isDST) { break resolve }
                probes -= 1
                if probes == 0 { return nil }
                t1 = t2; t2 = t; t += dt; previousDST = type.isDST
            }
            // A match, but with the wrong daylight flag: use a neighbouring time's offset.
            if isdst >= 0 && (isdst != 0) != type.isDST {
                let stride: Int64 = 601_200
                let bound: Int64 = 457_243_200 / 2 + stride
                var delta = stride
                while delta < bound {
                    for direction: Int64 in [-1, 1] {
                        let probe = t + delta * direction
                        let other = localType(probe)
                        if (isdst != 0) == other.isDST {
                            t = probe + (local - (probe + other.offset))
                            type = localType(t)
                            break resolve
                        }
                    }
                    delta += stride
                }
                t += 3600 * Int64((isdst == 0 ? 1 : 0) - (type.isDST ? 0 : 1))
                type = localType(t)
            }
        }
        guessOffset = t - local
        tm = Self.fields(localSeconds: t + type.offset, isdst: type.isDST)
        return t
    }
}
