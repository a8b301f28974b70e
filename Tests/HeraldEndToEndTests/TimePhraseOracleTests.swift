import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// `at` itself as the oracle for time phrases: each phrase is given to `at` 3.2 under faketime at
/// a fixed base time in a zone, and Herald must name the same minute, or refuse when `at` does.
/// `at` is setuid (faketime's preload would be ignored), so a plain copy runs as root; its jobs
/// go to queue `h` and are removed at the end.
///
/// The corpus leaves out what `at` gets wrong (see TimePhraseTests for Herald's answers):
/// minute and hour increments across a daylight-saving change, days across Lord Howe's
/// half-hour change, times the clocks skip, `Feb 29` in other years, `Jan 31 + 1 month`, `UTC`
/// in summer, and minutes of 60.
@Suite(.serialized)
struct TimePhraseOracleTests {
    /// Phrases for bases away from any daylight-saving change.
    static let general: [String] = [
        "noon", "midnight", "teatime", "NOON", "Teatime", "9am", "9pm", "12am", "12pm", "12:30am", "9:45pm", "0:30",
        "17:00", "23:59", "00:00", "24:00", "1230", "0915", "2359", "9h30", "9.30pm", "7'15", "6,45pm",
        "today", "tomorrow", "noon tomorrow", "teatime tomorrow", "9am tomorrow", "midnight tomorrow", "23:59 today",
        "mon", "tue", "wednesday", "thu", "fri", "saturday", "sun", "next fri", "next sunday", "9am fri", "noon next monday",
        "Jul 31", "jul 31 2028", "jul 31, 2028", "31 Jul", "31 jul 2028", "Dec 24", "noon Dec 24", "10am Jul 31",
        "4pm Jan 1", "Jan 1", "Feb 28", "mar 1 2028", "september 9", "OCT 10 28",
        "12/25/27", "12/25/2028", "1/2/28", "25.12.28", "25.12.2028", "1.2.2028", "2028-12-25", "28-12-25", "2028-1-2",
        "12252028", "122528", "1252028", "12528",
        "now", "now + 1 minute", "now + 15 min", "now +90 minutes", "now + 2 hours", "now + 1 day", "now + 3 days",
        "now + 2 weeks", "now + 1 month", "now + 6 months", "now + 1 year", "now + 2 years",
        "4pm + 3 days", "noon + 1 week", "9am + 2 hours", "midnight + 1 hour", "teatime + 1 month", "10am Jul 31 + 1 day",
        "tomorrow + 1 week", "fri + 2 days", "next minute", "next hour", "next day", "next week", "next month",
        "next year", "2pm next week", "noon next month",
        // Both refuse:
        "25:00", "13pm", "9", "fooday", "2027-02-29", "noon fooday", "12:70",
    ]

    /// Phrases for bases next to a daylight-saving change: no minute or hour increments.
    static let nearChange: [String] = [
        "tomorrow", "noon tomorrow", "3am tomorrow", "1:59 tomorrow", "now + 1 day", "now + 2 days", "now + 1 week",
        "next week", "next day", "teatime sun", "9am + 1 day", "midnight", "noon", "1:30am", "4am", "23:00",
        "mon", "sun", "next month", "now + 1 year",
    ]

    struct Base {
        var zone: String
        var time: String  // local, as faketime takes it
        var phrases: [String]
    }

    static let bases: [Base] = [
        Base(zone: "Europe/Berlin", time: "2026-11-23 10:15:30", phrases: general + ["noon utc", "9am UTC", "today 9am"]),
        Base(zone: "America/New_York", time: "2027-06-30 21:40:10", phrases: general),
        Base(zone: "Asia/Kolkata", time: "2027-02-28 23:50:20", phrases: general),
        Base(zone: "Australia/Sydney", time: "2027-01-01 00:05:10", phrases: general),
        Base(zone: "UTC", time: "2027-12-28 23:30:40", phrases: general + ["noon utc", "23:45 UTC"]),
        // Berlin springs forward on 2027-03-28 at 02:00; New York falls back on 2027-11-07 at 02:00.
        Base(zone: "Europe/Berlin", time: "2027-03-27 10:00:10", phrases: nearChange),
        Base(zone: "America/New_York", time: "2027-11-06 23:30:20", phrases: nearChange.filter { $0 != "1:59 tomorrow" }),
        Base(zone: "America/New_York", time: "2027-11-07 00:20:30", phrases: ["1:30am", "1:30", "noon", "tomorrow", "2am", "0:59", "now + 1 day"]),
    ]

    /// A plain copy of /usr/bin/at (setuid programs ignore LD_PRELOAD).
    static func plainAt(in directory: String) throws -> String {
        guard getuid() == 0 else { throw SetupError("the at oracle runs as root: a non-setuid copy of at must write to /var/spool/cron") }
        let copy = directory + "/at"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: "/usr/bin/at", toPath: copy)
        chmod(copy, 0o755)
        return copy
    }

    /// What `at` said: the minute it scheduled ("2026-11-23 12:00"), or nil when it refused.
    static func atAnswer(_ output: String) -> (minute: String, job: String)? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("job ") }) else { return nil }
        // job 12 at Mon Nov 23 12:00:00 2026
        let f = line.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard f.count >= 8, let m = months.firstIndex(of: String(f[4])), let day = Int(f[5]) else { return nil }
        let month = m + 1
        let hm = f[6].prefix(5)
        return (f[7] + "-" + pad(month, 2) + "-" + pad(day, 2) + " " + hm, String(f[1]))
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    @Test func heraldNamesTheMinuteAtDoesForEveryPhraseAndBase() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-at-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let at = try Self.plainAt(in: directory)
        var jobs: [String] = []
        defer { if !jobs.isEmpty { _ = try? runCommand("/usr/bin/atrm", jobs, environment: ["PATH": "/usr/bin:/bin"]) } }
        var compared = 0, refusedByBoth = 0
        var disagreements: [String] = []
        for base in Self.bases {
            let zone = try TimeZoneRules.named(base.zone)
            let parts = base.time.split(separator: " ")
            let civil = try #require(ISO8601.parse(parts[0] + "T" + parts[1]))
            let now = zone.resolve(civil.civil).firstInstant
            for phrase in base.phrases {
                let words = phrase.split(separator: " ").map(String.init)
                let result = try runCommand("/usr/bin/faketime", [base.time, at, "-q", "h", "-f", "/dev/null"] + words,
                                            environment: ["TZ": base.zone, "PATH": "/usr/bin:/bin", "LANG": "C"])
                let oracle = Self.atAnswer(result.stdout + result.stderr)
                if let job = oracle?.job { jobs.append(job) }
                let herald: String?
                do {
                    let meaning = try TimePhrase.parse(phrase, now: now, zone: zone)
                    let local = zone.civil(meaning.instant)
                    herald = Self.pad(local.year, 4) + "-" + Self.pad(local.month, 2) + "-" + Self.pad(local.day, 2)
                        + " " + Self.pad(local.hour, 2) + ":" + Self.pad(local.minute, 2)
                } catch {
                    herald = nil
                }
                compared += 1
                if oracle == nil && herald == nil { refusedByBoth += 1; continue }
                if oracle?.minute != herald {
                    disagreements.append("\(base.zone) \(base.time) '\(phrase)': at \(oracle?.minute ?? "refused") herald \(herald ?? "refused")")
                }
            }
        }
        #expect(compared >= 300)
        #expect(refusedByBoth >= 7 * 5)
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(compared):\n\(disagreements.joined(separator: "\n"))")
    }
}
