import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

struct JobCodecTests {
    func decode(_ text: String) throws(JobError) -> Job { try Job.decode(Array(text.utf8)) }

    @Test func decodesACompleteDelivery() throws {
        let job = try decode("""
            {"version":1,"kind":"delivery","id":"order-42","at":"2026-11-22T14:20:00+01:00","timezone":"Europe/Berlin",
             "recipient":{"name":"Zoë & <Bob>","address":"12 \\"Elm\\" St"},"items":[{"name":"milk","quantity":2},{"name":"apple"}],
             "lead":"10min","urgency":"critical","icon":"package"}
            """)
        #expect(job.kind == .delivery)
        #expect(job.id == "order-42")
        #expect(job.at == ISO8601.parseInstant("2026-11-22T13:20:00Z"))
        #expect(job.recipient == .init(name: "Zoë & <Bob>", address: "12 \"Elm\" St"))
        #expect(job.items == [.init(name: "milk", quantity: 2), .init(name: "apple", quantity: 1)])
        #expect(job.lead == .minutes(10))
        #expect(job.urgency == .critical)
        #expect(job.itemCount == 3)
    }

    @Test func encodingRoundTrips() throws {
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        let job = Job(kind: .delivery, id: "x1", at: ISO8601.parseInstant("2026-11-22T13:20:00.5Z"), timezone: "Europe/Berlin",
                      title: "Groceries 🛒", text: "line1\nline2\t\"q\"", icon: "/tmp/a b.png", urgency: .low,
                      recipient: .init(name: "A", address: "B"), items: [.init(name: "soda", quantity: 6)], lead: .minutes(90))
        let text = job.encoded(zone: berlin)
        #expect(text.contains("\"at\":\"2026-11-22T14:20:00.500+01:00\""))
        #expect(try decode(text) == job)
        #expect(try decode(Job(kind: .reminder, at: .epoch, text: "x").encoded()).at == .epoch)
    }

    /// Each bad document is refused with a message naming the field, the value and the reason.
    @Test(arguments: [
        ("[1]", "not a JSON object but an array"),
        ("{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T10:00Z\",\"text\":\"x\",\"colour\":\"red\"}", "unknown field 'colour'"),
        ("{\"kind\":\"reminder\"}", "missing field 'version'"),
        ("{\"version\":2,\"kind\":\"reminder\"}", "unsupported version (this Herald reads version 1) (2)"),
        ("{\"version\":\"1\",\"kind\":\"reminder\"}", "field 'version' is not a whole number (\"1\")"),
        ("{\"version\":1,\"kind\":\"meeting\"}", "field 'kind' is not one of reminder, delivery, habit, calendar (\"meeting\")"),
        ("{\"version\":1,\"kind\":\"reminder\",\"at\":\"yesterday-ish\",\"text\":\"x\"}",
         "field 'at' is not an ISO-8601 time with offset or Z (\"yesterday-ish\")"),
        ("{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T10:00\",\"text\":\"x\"}",
         "field 'at' is not an ISO-8601 time with offset or Z (\"2026-11-22T10:00\")"),
        ("{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T10:00Z\",\"text\":42}", "field 'text' is not a string (42)"),
        ("{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T10:00Z\",\"text\":\"  \"}", "a reminder needs a non-empty 'text' or 'title'"),
        ("{\"version\":1,\"kind\":\"reminder\",\"text\":\"x\"}", "a reminder needs 'at' or 'every'"),
        ("{\"version\":1,\"kind\":\"reminder\",\"id\":\"a b\",\"at\":\"2026-11-22T10:00Z\",\"text\":\"x\"}",
         "field 'id' is not a valid id (\"a b\"): use 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'"),
        ("{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T10:00Z\",\"text\":\"x\",\"urgency\":\"urgent\"}",
         "field 'urgency' is not one of low, normal, critical (\"urgent\")"),
        ("{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T10:00Z\",\"text\":\"x\",\"items\":[]}", "field 'items' is only for deliveries"),
        ("{\"version\":1,\"kind\":\"reminder\",\"at\":\"2026-11-22T10:00Z\",\"text\":\"x\",\"timezone\":\"Mars/Base\"}",
         "field 'timezone' is not a known time zone (\"Mars/Base\")"),
        ("{\"version\":1,\"kind\":\"delivery\",\"at\":\"2026-11-22T10:00Z\",\"lead\":\"soon\"}",
         "field 'lead' is not a time span (\"soon\"): expected a number at 'soon'"),
        ("{\"version\":1,\"kind\":\"delivery\",\"at\":\"2026-11-22T10:00Z\",\"lead\":\"-5m\"}",
         "field 'lead' is not a time span (\"-5m\"): it is negative"),
        ("{\"version\":1,\"kind\":\"delivery\"}", "a delivery needs 'at', its arrival time"),
        ("{\"version\":1,\"kind\":\"delivery\",\"at\":\"2026-11-22T10:00Z\",\"recipient\":\"Alice\"}",
         "field 'recipient' is not an object with 'name' and 'address' (\"Alice\")"),
        ("{\"version\":1,\"kind\":\"delivery\",\"at\":\"2026-11-22T10:00Z\",\"recipient\":{\"phone\":\"1\"}}", "unknown field 'recipient.phone'"),
        ("{\"version\":1,\"kind\":\"delivery\",\"at\":\"2026-11-22T10:00Z\",\"items\":[{\"name\":\"milk\",\"quantity\":0}]}",
         "field 'items[0].quantity' is not a whole number from 1 to 1000000 (0)"),
        ("{\"version\":1,\"kind\":\"delivery\",\"at\":\"2026-11-22T10:00Z\",\"items\":[{\"quantity\":2}]}", "missing field 'items[0].name'"),
        ("{\"version\":1,\"kind\":\"habit\",\"every\":\"daily\"}", "a habit needs a non-empty 'title', its name"),
    ])
    func refusesBadDocuments(text: String, message: String) {
        #expect(throws: JobError.self) { try decode(text) }
        do { _ = try decode(text) } catch { #expect(error.description == message) }
    }

    @Test func tagsRoundTripAndBadTagsAreRefused() throws {
        let job = try decode(#"{"version":1,"kind":"reminder","at":"2026-11-22T10:00:00Z","text":"x","tags":["demo","work-2","demo"]}"#)
        #expect(job.tags == ["demo", "work-2"])
        #expect(try decode(job.encoded()).tags == ["demo", "work-2"])
        #expect(try decode(#"{"version":1,"kind":"reminder","at":"2026-11-22T10:00:00Z","text":"x"}"#).tags == [])
        let base = #"{"version":1,"kind":"reminder","at":"2026-11-22T10:00:00Z","text":"x","tags":"#
        for (tags, reason) in [("\"demo\"", "field 'tags' is not an array of strings"), ("[\"Demo\"]", "field 'tags' holds an invalid tag"),
                               ("[\"\"]", "field 'tags' holds an invalid tag"), ("[1]", "field 'tags' holds an invalid tag"),
                               ("[" + (0..<17).map { "\"t\($0)\"" }.joined(separator: ",") + "]", "field 'tags' has 17 tags; the most is 16")] {
            #expect(throws: JobError.self) { try decode(base + tags + "}") }
            do { _ = try decode(base + tags + "}") } catch { #expect(error.reason == reason, "\(tags)") }
        }
    }

    @Test func syntaxErrorsSayWhere() {
        do { _ = try decode("{\"version\":1,") ; Issue.record("accepted broken JSON") } catch {
            #expect(error.reason == "not valid JSON")
            #expect(error.description.hasPrefix("not valid JSON"))
        }
    }

    @Test func redactedReasonsCarryNoValues() {
        do { _ = try decode("{\"version\":1,\"kind\":\"delivery\",\"at\":\"2026-11-22T10:00Z\",\"recipient\":\"Alice Secret\"}") } catch {
            #expect(error.description.contains("Alice Secret"))
            #expect(!error.reason.contains("Alice Secret"))
        }
    }

    @Test func validIDs() {
        #expect(Job.isValidID("a"))
        #expect(Job.isValidID("Order_42.v-2"))
        #expect(Job.isValidID(String(repeating: "x", count: 64)))
        #expect(!Job.isValidID(String(repeating: "x", count: 65)))
        #expect(!Job.isValidID(""))
        #expect(!Job.isValidID("a/b"))
        #expect(!Job.isValidID("é"))
    }

    @Test func deliveryOccurrencesAreHeadsUpThenArrival() throws {
        let at = Instant(seconds: 10_000)
        let now = Instant(seconds: 1_000)
        let schedule = try JobSchedule(Job(kind: .delivery, at: at, lead: .minutes(15)), localZone: .utc, defaultLead: .minutes(5))
        let first = try #require(schedule.first(now: now))
        #expect(first == at - .minutes(15))
        #expect(schedule.role(of: first) == .headsUp)
        #expect(schedule.next(after: first, now: first) == at)
        #expect(schedule.role(of: at) == .arrival)
        #expect(schedule.next(after: at, now: at) == nil)
        let noLead = try JobSchedule(Job(kind: .delivery, at: at, lead: .zero), localZone: .utc, defaultLead: .minutes(15))
        #expect(noLead.first(now: now) == at)
        let defaultLead = try JobSchedule(Job(kind: .delivery, at: at), localZone: .utc, defaultLead: .minutes(5))
        #expect(defaultLead.first(now: now) == at - .minutes(5))
    }

    @Test func aBadCalendarExpressionIsRefusedInTheJob() {
        #expect(throws: JobError("field 'every' is not a calendar expression", value: "\"25:00\"", detail: "hour 25 is out of range 0..23")) {
            try Job.decode(Array("{\"version\":1,\"kind\":\"reminder\",\"every\":\"25:00\",\"text\":\"x\"}".utf8))
        }
    }
}
