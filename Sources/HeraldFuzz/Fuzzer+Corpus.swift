#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Fuzzer {
    /// The repository this fuzzer was built from (its seeds and regression files are read there).
    public static let sourceRoot: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Sources/HeraldFuzz/Fuzzer+Corpus.swift
        return parts.joined(separator: "/")
    }()

    /// Where inputs that once crashed or blew a budget are kept, a folder per target.
    public static var regressionDirectory: String { sourceRoot + "/Tests/HeraldCoreTests/Fixtures/fuzz-regressions" }

    /// Every kept regression input: its target, file name and bytes, in a stable order.
    public static func regressions(in directory: String = regressionDirectory) -> [(target: Target, name: String, bytes: [UInt8])] {
        var out: [(Target, String, [UInt8])] = []
        for target in Target.allCases {
            let folder = directory + "/" + target.rawValue
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".bin") }.sorted()
            for name in names {
                if let data = FileManager.default.contents(atPath: folder + "/" + name) { out.append((target, name, Array(data))) }
            }
        }
        return out
    }

    static func corpus(_ target: Target) -> [[UInt8]] {
        let texts: [String]
        switch target {
        case .job:
            texts = [
                #"{"version":1,"kind":"reminder","at":"2026-11-22T14:05:00+01:00","text":"Tea"}"#,
                #"{"version":1,"kind":"delivery","id":"o-1","at":"2026-11-22T13:20:00.250Z","timezone":"Europe/Berlin","recipient":{"name":"Zoë & <Bob>","address":"12 \"Elm\" St"},"items":[{"name":"milk","quantity":2},{"name":"apple"}],"lead":"10min","urgency":"critical","icon":"package"}"#,
                #"{"version":1,"kind":"habit","every":"Mon..Fri 09..17:00/30","title":"Water","icon":"/usr/share/icons/x.png"}"#,
                #"{"version":1,"kind":"reminder","every":"*-*~1 08:00 UTC","at":"2026-12-01T00:00Z","title":"Rent","text":"Pay \u00e9"}"#,
                #"{"version":1,"kind":"reminder","at":"2026-11-24T09:00:00Z","title":"Dentist","warn":["1d","15m"],"repeat":"5m","sound":"bell"}"#,
                #"{"version":1,"kind":"habit","every":["*-*-* 08:00","Sat 10:00"],"title":"Read","times":"3/week","target":20,"unit":"pages","targetType":"at-least","warn":["10m"]}"#,
                #"{"version":1,"kind":"calendar","id":"cal-0123456789abcdef","title":"Standup","calendar":{"file":"/c/a.ics","uid":"u1","source":"/c","writeBack":true},"alarms":[{"at":"2026-11-24T08:45:00Z","start":"2026-11-24T09:00:00+01:00","alarm":0},{"at":"2026-11-25T08:45:00Z","start":"2026-11-25T09:00:00+01:00","recurrenceId":"20261125T080000Z","alarm":1,"summary":"Moved"}]}"#,
            ]
        case .span:
            texts = ["15m", "1h 30min", "90", "1.5h", "2 days", "0", "500ms", "3 weeks", "5 M", ".5s", "1y 6month 2w 3d 4h 5min 6s 7ms 8us", "10µs",
                     "9223372036854775807us", "292000y"]
        case .event:
            texts = ["daily", "Mon..Fri 09:00", "Sat,Sun 10:00 Europe/Berlin", "*-*-* 09..17:00/30", "*:0/15", "*:*:0/5",
                     "*-*~1", "*-02~3", "*-1/2-01", "2026-*-01/10 12:00", "quarterly UTC", "@1800000000", "Tue..Thu,Sun 07:15:30.5",
                     "*-*-* 01,02:00/20", "*:*:0/10.5", "monthly Asia/Kolkata", "Mon *-*-1..7 09:00", "*:*:*", "2199-12-31 23:59:59",
                     "*:*:0.25,30.75", "*-*-* *:*:0..59/1"]
        case .phrase:
            texts = ["teatime tomorrow", "4pm + 3 days", "10am Jul 31", "now + 15 min", "next friday 17:00", "in 1h 30min",
                     "12/25/27", "25.12.2027", "2027-12-25", "12252027", "9am Europe/London", "noon UTC", "2026-12-24T09:00",
                     "midnight", "9h30", "Jan 31 + 1 month", "Feb 29", "in 2 hours and 5 min", "Dec 31 9999 23:59", "now + 99999999 years",
                     "0000-01-01", "31.12.9999"]
        case .calendar:
            texts = calendarSeeds
        case .config:
            texts = [
                "profile:\n  name: \"Zoë\"\n  address: '12 Elm St'\ndefaults:\n  lead: 15m\n  urgency: normal\n  snooze: 10m\n",
                "templates:\n  headsUp:\n    summary: \"{name}: {count} items\"\n    body: \"{items} at {address} in {minutes} min\"\n  reminder:\n    body: \"{text} {late}\"\n",
                "popups:\n  snoozeChoices: 5m, 1h\n  maxRepeats: 12\n  summaryAfter: 3\n  expire:\n    headsUp: 30s\n    reminder: never\n  sound:\n    timer: alarm-clock-elapsed\n",
                "quietHours: 22:00-07:00\ncatchUp:\n  grace: 1h\nlimits:\n  retention: 30d\n  jobs: 200000\nhabits:\n  weekStart: sunday\nlog:\n  level: info\n",
                "# comment\n---\nspool: ~/spool\ncalendars:\n  sources: ~/cal, /srv/c.ics\n  writeBack: all\n",
            ]
        }
        return texts.map { Array($0.utf8) }
    }

    /// Small files of the calendar corpus (the larger ones mostly repeat them), and a minimal
    /// calendar in case the repository is not at hand.
    static var calendarSeeds: [String] {
        let minimal = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20261124T090000Z\r\nRRULE:FREQ=DAILY\r\n"
            + "SUMMARY:Standup\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nREPEAT:2\r\nDURATION:PT5M\r\nEND:VALARM\r\n"
            + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        let folder = sourceRoot + "/Tests/HeraldCoreTests/Fixtures/calendar-corpus"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".ics") }.sorted()
        let files = names.compactMap { FileManager.default.contents(atPath: folder + "/" + $0) }.filter { $0.count <= 8192 }
        return [minimal] + files.map { String(decoding: $0, as: UTF8.self) }
    }

    static func dictionary(_ target: Target) -> [String] {
        switch target {
        case .job:
            return ["null", "true", "false", "1e309", "-0", "\"\\u0000\"", "[]", "{}", "\"every\":\"x\"", "\"lead\":\"-1s\"", "99999999999999999999",
                    "\"\\ud800\"", "[[[[[[[[", "\"kind\":\"habit\"", "\"lead\":\"292000y\"", "\"repeat\":\"9223372036854775807us\"",
                    "\"at\":\"9999-12-31T23:59:59Z\"", "\"at\":\"0000-01-01T00:00:00Z\"", "\"warn\":[\"366d\"]", "\"every\":\"*:*:0/0.001\""]
        case .span:
            return ["infinity", "-", "..", "µs", "μs", "month", "y", "99999999999999", ".", " ", "e9", "9223372036854775807", "292000y"]
        case .event:
            return ["..", "~", "/", "*", ",", ":", "Mon", "sunday", "UTC", " Europe/Berlin", "2199", "1969", "60", "99999999999", "@", ".999999999",
                    "-", " ", "0.001", "/0.000001", "*:*:", "2147483647", "59.999999", "~31", "/0"]
        case .phrase:
            return [" + ", " - ", "99999999", " years", " hours", "next ", "am", "pm", " tomorrow", "sep", "/", ".", ":", "24", " in ",
                    " Asia/Tokyo", "0000", "9999", " months", " weeks", "Feb 29 ", "12:00:60", " Europe/Berlin"]
        case .calendar:
            return ["RRULE:FREQ=SECONDLY", "RRULE:FREQ=MINUTELY;INTERVAL=1", "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30",
                    "RRULE:FREQ=MONTHLY;BYDAY=-5FR;BYSETPOS=-1", "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=0,15,30,45",
                    "RRULE:FREQ=YEARLY;BYWEEKNO=53;BYYEARDAY=-366", "RRULE:FREQ=DAILY;COUNT=999999999", "RRULE:FREQ=DAILY;UNTIL=99991231T235959Z",
                    "RRULE:FREQ=DAILY;INTERVAL=0", "RRULE:FREQ=HOURLY;INTERVAL=9223372036854775807", ";BYSECOND=0,60", ";BYSETPOS=366", ";WKST=SU",
                    "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nEND:VALARM", "BEGIN:VALARM", "END:VALARM", "ACTION:AUDIO",
                    "TRIGGER:-P9999999W", "TRIGGER:PT0S", "TRIGGER;RELATED=END:-PT1S", "TRIGGER:-P106751991167DT4H", "TRIGGER;VALUE=DATE-TIME:19700101T000000Z",
                    "REPEAT:999999999", "REPEAT:2147483648", "DURATION:PT0S", "DURATION:PT1S", "DURATION:P9999999999D",
                    "BEGIN:VTIMEZONE\r\nTZID:X\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\nTZOFFSETFROM:+9959\r\nTZOFFSETTO:-9959\r\nRRULE:FREQ=YEARLY;BYDAY=1SU\r\nEND:STANDARD\r\nEND:VTIMEZONE",
                    "TZOFFSETTO:+2400", "DTSTART;TZID=X:20261124T090000", "DTSTART:00000101T000000Z", "DTSTART;VALUE=DATE:99991231",
                    "DTSTART:20261124T090000Z", "DTEND:20261124T080000Z", "RDATE:20261125T090000Z,20261126T090000Z", "EXDATE:20261125T090000Z",
                    "RECURRENCE-ID:20261125T090000Z", "BEGIN:VEVENT\r\nUID:b\r\nDTSTART:20261124T100000Z", "END:VEVENT", "BEGIN:VTODO", "DUE:20261124T100000Z",
                    "UID:a", "ACKNOWLEDGED:20261124T085000Z", "X-MOZ-SNOOZE-TIME:20261124T090500Z", " folded", "\r\n "]
        case .config:
            return ["profile:", "  name: ", "defaults:", "  lead: 292000y", "  snooze: 9223372036854775807us", "  lead: -1s", "catchUp:",
                    "  grace: 292000y", "limits:", "  retention: 292000y", "  jobs: 9223372036854775808", "popups:", "  snoozeChoices: 1s,292000y",
                    "  maxRepeats: 1000", "  expire:", "    headsUp: 9223372036854775807us", "quietHours: 23:59-00:00", "templates:", "  reminder:",
                    "    summary: \"{late}{late}{late}{items}\"", "    body: \"\\U0010FFFF\\x00\"", "habits:", "  weekStart: mon", "\t", "- item",
                    "key: &anchor", "\"quoted: key\": 1", "'a''b': c", "  ", "    ", "#", ": ", "~", "{}"]
        }
    }
}
