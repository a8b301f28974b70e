import Testing
@testable import HeraldCore
@testable import HeraldModel

@Suite struct ConfigYAMLTests {
    @Test func readsNestedMappingsQuotesAndComments() throws {
        let text = """
        ---
        # who deliveries are for
        profile:
          name: "Ada \\"A.\\" Lovelace"   # quoted, with escapes
          address: 'Flat 2, 10 O''Neill St'
        defaults:
          lead: 15m
          urgency:
        templates: {}
        log:
            level: debug
        """
        let flat = ConfigYAML.flatten(try ConfigYAML.parse(text))
        #expect(flat == [
            "profile.name": "Ada \"A.\" Lovelace",
            "profile.address": "Flat 2, 10 O'Neill St",
            "defaults.lead": "15m",
            "log.level": "debug",
        ])
    }

    @Test func keepsHashesAndColonsThatAreNotSyntax() throws {
        let flat = ConfigYAML.flatten(try ConfigYAML.parse(
            "templates:\n  reminder:\n    body: Room#4 at 10:30\n    summary: \"# not a comment\"\n  habit:\n    body: Room #4\n"))
        #expect(flat["templates.reminder.body"] == "Room#4 at 10:30")
        #expect(flat["templates.reminder.summary"] == "# not a comment")
        #expect(flat["templates.habit.body"] == "Room", "as in YAML, ' #' starts a comment")
    }

    @Test func escapesAndUnicode() throws {
        let flat = ConfigYAML.flatten(try ConfigYAML.parse("a: \"x\\ty\\u00e9\\U0001F514\"\nb: Zoë 🔔\n"))
        #expect(flat == ["a": "x\ty\u{e9}\u{1F514}", "b": "Zoë 🔔"])
    }

    @Test func anEmptyDocumentIsAnEmptyMapping() throws {
        #expect(try ConfigYAML.parse("").isEmpty)
        #expect(try ConfigYAML.parse("# only a comment\n\n---\n").isEmpty)
        #expect(try ConfigYAML.parse("{}\n").isEmpty)
    }

    @Test(arguments: [
        ("a: 1\n  b: 2\n", 2, "unexpected indentation"),
        ("a: \"open\n", 1, "a \"quoted\" value does not end on its line"),
        ("a: 'open\n", 1, "a 'quoted' value does not end on its line"),
        ("a: \"\\q\"\n", 1, "unknown escape '\\q'"),
        ("a: \"\\u12\"\n", 1, "'\\u12' is not a character"),
        ("just words\n", 1, "expected 'key: value'"),
        (": x\n", 1, "a key is empty"),
        ("a: &anchor x\n", 1, "'&' starts a YAML construct Herald's configuration does not use; quote the value"),
        ("a: |\n  text\n", 1, "'|' starts a YAML construct Herald's configuration does not use; quote the value"),
        ("a:\n  - x\n", 2, "lists are not used in Herald's configuration"),
    ])
    func refusesWhatItDoesNotReadWithTheLine(text: String, line: Int, reason: String) {
        #expect(throws: ConfigYAML.SyntaxError(line: line, reason: reason)) { try ConfigYAML.parse(text) }
    }
}
