import Testing
@testable import HeraldModel

/// Literal text search and file URIs, Herald's own so the binaries link no regex engine and
/// no Foundation.
struct TextSearchTests {
    @Test func findsLiteralTextAnywhere() {
        #expect("the {late} part".includes("{late}"))
        #expect("{late}".includes("{late}"))
        #expect("ends with late}".includes("late}"))
        #expect(!"{lat".includes("{late}"))
        #expect(!"".includes("x"))
        #expect("anything".includes(""))
        #expect("grüße, Zoë".includes("Zoë"))
        #expect(!"aaab".includes("aab" + "x"))
        #expect("aaab".includes("aab"))
        #expect("x\"pills\"y"[...].includes("\"pills\""))
    }

    @Test func cutsBeforeTheFirstNeedle() {
        #expect("spool open: run chmod 700".prefix(upTo: ": run chmod") == "spool open")
        #expect("no needle here".prefix(upTo: ": run") == "no needle here")
        #expect(": run first".prefix(upTo: ": run") == "")
    }

    @Test func replacesEveryOccurrenceWithoutOverlap() {
        #expect("it''s Bob''s".replacingAll("''", with: "'") == "it's Bob's")
        #expect("''''".replacingAll("''", with: "'") == "''")
        #expect("'''".replacingAll("''", with: "'") == "''")
        #expect("none".replacingAll("''", with: "'") == "none")
        #expect("abc".replacingAll("", with: "x") == "abc")
        #expect("äöä".replacingAll("ä", with: "ae") == "aeöae")
    }

    @Test func fileURIsPercentEncodeWhatAPathMayNotHold() {
        #expect(FileURI.from(path: "/usr/share/icons/x.png") == "file:///usr/share/icons/x.png")
        #expect(FileURI.from(path: "/home/a b/ä.png") == "file:///home/a%20b/%C3%A4.png")
        #expect(FileURI.from(path: "/x/100%#?.png") == "file:///x/100%25%23%3F.png")
        #expect(FileURI.from(path: "/keep/-._~!$&'()*+,;=:@") == "file:///keep/-._~!$&'()*+,;=:@")
        #expect(FileURI.from(path: "relative.png") == nil)
        #expect(FileURI.from(path: "") == nil)
    }
}
