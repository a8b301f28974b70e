import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Each kind owns its fields, roles, late rule, list line and configuration keys: they are
/// written in its own file (Sources/HeraldModel/Kinds/), and the shared code reaches them only
/// through `Job.Kind.rules`. Shown here with the delivery and habit kinds, from the sources and
/// from what the code does.
@Suite struct KindOwnershipTests {
    static let sources = String(#filePath).components(separatedBy: "/Tests/")[0] + "/Sources"

    /// Every Swift file of the library and daemon modules, by path under Sources/.
    static func files() throws -> [(path: String, text: String)] {
        try ["HeraldModel", "HeraldCore", "heraldd", "HeraldNotify"].flatMap { module in
            let root = sources + "/" + module
            return try (FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? [])
                .filter { $0.hasSuffix(".swift") }.sorted()
                .map { (module + "/" + $0, try String(contentsOfFile: root + "/" + $0, encoding: .utf8)) }
        }
    }

    static let deliveryFile = "HeraldModel/Kinds/DeliveryKind.swift"
    static let habitFile = "HeraldModel/Kinds/HabitKind.swift"
    static let alarmFile = "HeraldModel/Kinds/AlarmKind.swift"

    @Test(arguments: [(Job.Kind.delivery, deliveryFile), (.habit, habitFile), (.alarm, alarmFile)])
    func aKindsFieldsAndKeysAreSpelledInItsFileAlone(kind: Job.Kind, file: String) throws {
        let files = try Self.files()
        #expect(files.contains { $0.path == file })
        let rules = kind.rules
        // Its JSON fields, template names and popup classes, as the literals a codec or the
        // config reader would need: found in the kind's file, and in no other but where a
        // word of the same spelling means something else (listed, with why).
        let elsewhere: [String: Set<String>] = [
            "\"items\"": ["HeraldModel/Render/Template.swift", "HeraldModel/Render/MessageRenderer.swift",  // the {items} placeholder
                          "heraldd/CalendarSync.swift",  // a log line's metadata key
                          "HeraldModel/Formats/DaemonStatus.swift"],  // a calendar source's items in status.json
            "\"unit\"": ["HeraldModel/Habit/LoopFormat.swift"],  // Loop's CSV column
            "\"habit\"": ["HeraldModel/Habit/LoopFormat.swift"],  // Loop's export
            // A synced alarm's X-HERALD-KIND, read into a calendar job that rings as an alarm;
            // a calendar alarm entry's index ("alarm": its VALARM); the pack's byte search.
            "\"alarm\"": ["HeraldModel/Kinds/CalendarKind.swift", "HeraldModel/Sync/SyncedItem.swift", "HeraldModel/ICal/ICalItem.swift",
                          "HeraldModel/ICal/CalendarPlanner.swift", "HeraldModel/ICal/SourceSnapshot.swift",
                          "HeraldCore/Spool/JobDocPack+Wakers.swift"],
        ]
        let words = rules.ownFields + rules.config.templates.map(\.name) + rules.config.popupClasses.map(\.popupClass.rawValue)
        #expect(!words.isEmpty)
        for word in Set(words) {
            let literal = "\"\(word)\""
            let holders = Set(files.filter { $0.text.contains(literal) }.map(\.path))
            #expect(holders.contains(file), "\(literal) not in \(file)")
            #expect(holders.subtracting([file]).subtracting(elsewhere[literal] ?? []).isEmpty,
                    "\(literal) also in \(holders.subtracting([file]).sorted())")
        }
    }

    @Test func theSharedCodecNamesNoKindsField() throws {
        let codec = try #require(try Self.files().first { $0.path == "HeraldModel/Job/Job+JSON.swift" }).text
        for kind in Job.Kind.allCases {
            for field in kind.rules.ownFields { #expect(!codec.contains("\"\(field)\""), "Job+JSON.swift spells \(field)") }
        }
    }

    @Test func theRegistryCarriesEachKindsFieldsAndKeysEverywhere() {
        for kind in Job.Kind.allCases {
            #expect(Set(kind.rules.ownFields).isSubset(of: Set(Job.fieldNames)))
            // Each field is one bit of a document's members, and no two kinds share one.
            let bits = Job.ownFieldBits.first { $0.0 == kind }!.1
            #expect(bits.nonzeroBitCount == kind.rules.ownFields.count)
            #expect(Set(kind.configKeys).isSubset(of: Set(ConfigLoader.keys)))
            for name in kind.rules.config.templates.map(\.name) {
                #expect(ConfigLoader.sections.contains("templates." + name))
                #expect(HeraldConfig().templates[name] == kind.rules.config.templates.first { $0.name == name }!.defaults)
            }
        }
        #expect(Job.fieldNames.count == Set(Job.fieldNames).count && Job.fieldNames.count <= 64)
        #expect(Job.CommonField.allCases.map { "\($0)" } == Job.commonFields)
        // Deliveries: two templates, two popup classes; habits: one of each.
        #expect(Job.Kind.delivery.configKeys.sorted() == ["popups.expire.arrival", "popups.expire.headsUp", "popups.sound.arrival",
                                                         "popups.sound.headsUp", "templates.arrival.body", "templates.arrival.summary",
                                                         "templates.headsUp.body", "templates.headsUp.summary"])
        #expect(Job.Kind.habit.configKeys.sorted() == ["popups.expire.habit", "popups.sound.habit", "templates.habit.body",
                                                      "templates.habit.summary"])
    }

    @Test func aDeliveryEncodesItsFieldsAfterTheCommonOnesAndReadsThemBack() throws {
        var job = Job(kind: .delivery, id: "d", at: Instant(seconds: 1_800_000_000), tags: ["x"], url: "https://t.example/1")
        job.recipient = .init(name: "Ada", address: "1 Elm St")
        job.items = [.init(name: "Book", quantity: 2)]
        job.lead = .minutes(20)
        let text = job.encoded()
        #expect(text == #"{"version":1,"kind":"delivery","id":"d","at":"2027-01-15T08:00:00Z","tags":["x"],"#
            + #""recipient":{"name":"Ada","address":"1 Elm St"},"items":[{"name":"Book","quantity":2}],"lead":"20min","#
            + #""url":"https://t.example/1"}"#)
        #expect(try Job.decode(Array(text.utf8)) == job)
        // The heads-up comes from the kind's lead, and the kind names both firings.
        let schedule = try JobSchedule(job, localZone: .utc)
        #expect(schedule.warnings == [.minutes(20)])
        #expect(schedule.role(of: job.at! - .minutes(20)) == .headsUp && schedule.role(of: job.at!) == .arrival)
    }

    @Test func aHabitEncodesItsFieldsAfterTheCommonOnesAndReadsThemBack() throws {
        var job = Job(kind: .habit, id: "h", every: "*-*-* 09:00", title: "Water")
        job.target = HabitTarget(amount: 8, unit: "glasses")
        let text = job.encoded()
        #expect(text == #"{"version":1,"kind":"habit","id":"h","every":"*-*-* 09:00","title":"Water","target":8,"unit":"glasses"}"#)
        #expect(try Job.decode(Array(text.utf8)) == job)
        // Another kind's field is refused by name before the habit reads its own.
        #expect(throws: JobError("field 'lead' is only for deliveries")) {
            try Job.decode(Array(#"{"version":1,"kind":"habit","every":"daily","title":"W","lead":"5m","target":-1}"#.utf8))
        }
    }
}
