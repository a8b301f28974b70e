import Testing
@testable import HeraldCore
@testable import HeraldModel

struct RenderingTests {
    /// The popup for `job`'s occurrence `due`, shown at `now`.
    func render(_ job: Job, id: String, due: Instant, now: Instant) -> NotificationRequest {
        let schedule = try! JobSchedule(job, localZone: .utc)
        return MessageRenderer(config: config).render(DueOccurrence(job: job, schedule: schedule, name: JobFileName(id: id, occurrence: due)),
                                                      now: now)
    }

    let arrival = Instant(seconds: 1_795_353_600)
    var config: HeraldConfig {
        var c = HeraldConfig()
        c.profile = .init(name: "Profile Person", address: "1 Profile Rd")
        return c
    }
    var delivery: Job {
        Job(kind: .delivery, at: arrival, recipient: .init(name: "Zoë O'Brien & <co>", address: "12 \"Elm\" St ✓"),
            items: [.init(name: "apple"), .init(name: "milk", quantity: 2)], lead: .minutes(15))
    }

    @Test func headsUpNamesTheRecipientAddressAndItemsVerbatim() {
        let r = render(delivery, id: "d1", due: arrival - .minutes(15), now: arrival - .minutes(15))
        #expect(r.summary == "Delivery in 15 min")
        #expect(r.body == "Zoë O'Brien & <co>, your order arrives at 12 \"Elm\" St ✓ in 15 min.\n3 items: apple, milk ×2")
        #expect(r.category == "x-herald.delivery")
        #expect(r.jobID == "d1")
    }

    @Test func aLateHeadsUpSaysTheRealMinutesLeft() {
        let now = arrival - .seconds(4 * 60 + 10)
        let r = render(delivery, id: "d1", due: arrival - .minutes(15), now: now)
        #expect(r.summary == "Delivery in 5 min")
        #expect(r.body.contains("in 5 min."))
        #expect(!r.body.contains("late"))
    }

    @Test func arrivalFallsBackToTheProfile() {
        var job = delivery
        job.recipient = nil
        job.items = []
        let r = render(job, id: "d1", due: arrival, now: arrival)
        #expect(r.summary == "Your delivery is here")
        #expect(r.body == "Profile Person, your order is arriving at 1 Profile Rd now.")
    }

    @Test func remindersUseTitleAndText() {
        let job = Job(kind: .reminder, at: arrival, title: "Oven", text: "Take the bread out", urgency: .critical)
        let r = render(job, id: "r", due: arrival, now: arrival)
        #expect(r.summary == "Oven")
        #expect(r.body == "Take the bread out")
        #expect(r.urgency == .critical)
        let plain = render(Job(kind: .reminder, at: arrival, text: "Call mom"), id: "r", due: arrival, now: arrival)
        #expect(plain.summary == "Call mom")
        #expect(plain.body == "")
        #expect(plain.urgency == .normal)
    }

    @Test func lateRemindersSaySo() {
        let job = Job(kind: .reminder, at: arrival, text: "Call mom")
        let r = render(job, id: "r", due: arrival, now: arrival + .minutes(130))
        #expect(r.body == "(late by 2 h 10 min)")
    }

    @Test func controlCharactersAreStripped() {
        let job = Job(kind: .reminder, at: arrival, title: "a\u{7}b\u{1b}[31mc", text: "x\u{0}y\nz\u{85}")
        let r = render(job, id: "r", due: arrival, now: arrival)
        #expect(r.summary == "ab[31mc")
        #expect(r.body == "xy\nz")
    }

    @Test func markupEscapingCoversTheFiveCharacters() {
        #expect(TextSafety.escapeMarkup("a & b <i>'x'\"y\"</i> é🎉") == "a &amp; b &lt;i&gt;&apos;x&apos;&quot;y&quot;&lt;/i&gt; é🎉")
    }

    @Test func itemsPhraseCountsUnits() {
        #expect(MessageRenderer.itemsPhrase([.init(name: "apple")]) == "1 item: apple")
        #expect(MessageRenderer.itemsPhrase([]) == "")
        #expect(MessageRenderer.minutesLeft(until: arrival, now: arrival - .seconds(1)) == 1)
        #expect(MessageRenderer.minutesLeft(until: arrival, now: arrival + .seconds(1)) == 0)
    }

    @Test func templatesRefuseUnknownPlaceholders() throws {
        #expect(throws: TemplateError.self) { try Template("Hi {nmae}") }
        #expect(throws: TemplateError.self) { try Template("Hi {name") }
        #expect(try Template("{name} at {address}: {count}").render(["name": "A", "address": "B", "count": "3"]) == "A at B: 3")
    }
}
