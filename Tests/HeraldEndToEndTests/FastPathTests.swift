import Testing
import ArgumentParser
import HeraldFuzz
import HeraldModel
@testable import herald

/// `herald remind`'s shortcut past ArgumentParser must read every command line it takes
/// exactly as ArgumentParser would, and leave every other one to ArgumentParser.
@Suite struct FastPathTests {
    static let options = ["--spool", "--config", "--at", "--in", "--every", "--title", "--urgency", "--icon", "--id"]
    static let odd = ["--help", "-h", "--version", "--", "-", "--at=09:00", "--in=5m", "--bogus", "-x", "-5", "--urgency"]
    static let values = ["09:00", "5m", "1h 30min", "low", "normal", "critical", "urgent", "daily", "Mon..Fri 17:30",
                         "/tmp/spool", "dialog-information", "k7f3", "", " ", "Zoë 🔔", "help", "remind", "-1h"]
    static let words = ["Take", "the", "bread", "out", "help", "remind", "list", "'quoted'", "a=b", "Zoë", "🔔", ""]

    func arguments(_ rng: inout SeededGenerator) -> [String] {
        var argv = ["remind"]
        for _ in 0..<Int.random(in: 0...7, using: &rng) {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4: argv.append(Self.options.randomElement(using: &rng)!); argv.append(Self.values.randomElement(using: &rng)!)
            case 4..<8: argv.append(Self.words.randomElement(using: &rng)!)
            case 8: argv.append(Self.options.randomElement(using: &rng)!)
            default: argv.append(Self.odd.randomElement(using: &rng)!)
            }
        }
        return argv
    }

    /// What ArgumentParser makes of the command line: the request, or nil when it refuses it
    /// or takes it as something other than a reminder (help, version).
    func viaArgumentParser(_ argv: [String]) -> RemindRequest? {
        guard let command = try? Herald.parseAsRoot(argv) else { return nil }
        return try? (command as? Herald.Remind)?.request()
    }

    @Test func agreesWithArgumentParserOnGeneratedCommandLines() {
        var rng = SeededGenerator(seed: 0x5EED_FA57)
        var taken = 0
        for _ in 0..<1_500 {
            let argv = arguments(&rng)
            guard let fast = FastPath.remind(argv) else { continue }
            taken += 1
            #expect(viaArgumentParser(argv) == fast, "\(argv)")
        }
        #expect(taken > 300, "the generator should produce many plain command lines; it produced \(taken)")
    }

    @Test(arguments: [
        ["remind", "--in", "15m", "Take", "the", "bread", "out"],
        ["remind", "--at", "09:00", "--urgency", "critical", "Stand-up meeting"],
        ["remind", "--every", "Mon..Fri 17:30", "--title", "Work", "Leave", "work"],
        ["remind", "--spool", "/tmp/s", "--config", "/tmp/c.yaml", "--icon", "alarm", "--id", "k7", "x"],
    ])
    func takesTheCommonForms(argv: [String]) throws {
        let fast = try #require(FastPath.remind(argv))
        #expect(fast == viaArgumentParser(argv))
    }

    @Test(arguments: [
        ["remind", "--help"], ["remind", "-h"], ["remind", "--in=5m", "x"], ["remind", "--", "--in"],
        ["remind", "--in", "5m", "--in", "6m", "x"], ["remind", "--bogus", "x"], ["remind", "--in"],
        ["remind", "--urgency", "urgent", "x"], ["remind", "--in", "-5m", "x"], ["list"], [],
    ])
    func leavesEverythingElseToArgumentParser(argv: [String]) {
        #expect(FastPath.remind(argv) == nil)
    }

    @Test(arguments: [
        ["run", "--in", "2d", "--", "true"],
        ["run", "--at", "17:00", "--timeout", "2h", "--notify", "always", "--label", "Backup", "--", "make", "-C", "/src", "--silent"],
        ["run", "--every", "Mon..Fri 09:00", "--spool", "/tmp/s", "--config", "/tmp/c.yaml", "--id", "r7", "--", "/bin/sh", "-c", "x --y"],
    ])
    func takesTheCommonRunForms(argv: [String]) throws {
        let fast = try #require(FastPath.run(argv))
        let command = try Herald.parseAsRoot(argv)
        #expect((command as? Herald.RunCommand)?.request() == fast)
    }

    @Test(arguments: [
        ["run", "--in", "5m"], ["run", "--help"], ["run", "--in=5m", "--", "x"], ["run", "--wake", "--in", "5m", "--", "x"],
        ["run", "--sync", "--in", "5m", "--", "x"], ["run", "--in", "5m", "--in", "6m", "--", "x"], ["run", "--in", "5m", "--"],
        ["run", "--bogus", "1", "--", "x"], ["run", "x"], ["remind", "--in", "5m", "--", "x"],
    ])
    func leavesOtherRunsToArgumentParser(argv: [String]) {
        #expect(FastPath.run(argv) == nil)
    }
}
