import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// What a terminal is given: control characters shown, never obeyed; other text untouched.
struct TextSafetyTests {
    @Test func escapeSequencesAreShownInCaretNotation() {
        #expect(TextSafety.visible("\u{1B}[31mred\u{1B}[0m") == "^[[31mred^[[0m")
        #expect(TextSafety.visible("ding\u{07}") == "ding^G")
        #expect(TextSafety.visible("\u{1B}]0;owned\u{07}") == "^[]0;owned^G")
        #expect(TextSafety.visible("\u{00}\u{01}\u{1F}\r\u{7F}") == "^@^A^_^M^?")
    }

    @Test func c1ControlsAndBidiReorderingsAreShownAsEscapes() {
        #expect(TextSafety.visible("a\u{9B}31mb") == "a\\u{9b}31mb")
        #expect(TextSafety.visible("\u{80}\u{9F}") == "\\u{80}\\u{9f}")
        #expect(TextSafety.visible("abc\u{202E}fed") == "abc\\u{202e}fed")
        #expect(TextSafety.visible("\u{202A}\u{202D}\u{2066}\u{2067}\u{2068}\u{2069}\u{2028}\u{2029}")
                == "\\u{202a}\\u{202d}\\u{2066}\\u{2067}\\u{2068}\\u{2069}\\u{2028}\\u{2029}")
    }

    @Test func tabsAndNewlinesFollowTheColumn() {
        #expect(TextSafety.visible("a\tb\nc") == "a^Ib^Jc")
        #expect(TextSafety.visible("a\tb\nc", whitespace: .spaces) == "a b c")
        #expect(TextSafety.visible("a\tb\nc", whitespace: .kept) == "a\tb\nc")
        // Only tab and newline are layout: CR and ESC are shown in every mode.
        #expect(TextSafety.visible("a\r\u{1B}b", whitespace: .kept) == "a^M^[b")
        #expect(TextSafety.visible("a\r\u{1B}b", whitespace: .spaces) == "a^M^[b")
    }

    @Test func ordinaryUnicodeIsKept() {
        // Accents, CJK, emoji with joiners and skin tones, right-to-left text, NBSP and "£"
        // (whose UTF-8 lead byte is C2, as the C1 controls'), the line-drawing U+2500 (E2 94).
        let text = "Zoë & <co> 東京 👩🏽‍💻 👨‍👩‍👧 שלום مرحبا \u{A0}£5 ─ ‘quotes’ … \u{200D}"
        #expect(TextSafety.visible(text) == text)
        #expect(TextSafety.visible("") == "")
        #expect(TextSafety.visible("^[ is already text") == "^[ is already text")
    }

    @Test func nothingHiddenSurvivesAnyScalar() {
        // Every scalar up to U+2FFF: the output holds no control and no reordering character.
        var all = String.UnicodeScalarView()
        for v in 0...0x2FFF as ClosedRange<UInt32> { if let s = Unicode.Scalar(v) { all.append(s) } }
        let shown = TextSafety.visible(String(all))
        #expect(!shown.unicodeScalars.contains { TextSafety.isHidden($0) })
        #expect(TextSafety.visible(shown) == shown)  // showing twice changes nothing more
    }

    @Test func jsonOutputEscapesEveryControlAndReordering() throws {
        let rendered = JSONWriter.render(.string("\u{1B}[31m\u{07}\u{9B}\u{202E}\u{7F}\u{2066}x"))
        #expect(rendered == "\"\\u001b[31m\\u0007\\u009b\\u202e\\u007f\\u2066x\"")
        #expect(!rendered.unicodeScalars.contains { TextSafety.isHidden($0) })
        // Still the same string when read back.
        #expect(try JSONValue.parse(Array(rendered.utf8)) == .string("\u{1B}[31m\u{07}\u{9B}\u{202E}\u{7F}\u{2066}x"))
        #expect(JSONWriter.render(.string("Zoë £5 ─ \"q\"")) == "\"Zoë £5 ─ \\\"q\\\"\"")
    }
}

/// Sound files are opened and checked before anything plays them.
struct SoundFileTests {
    let directory: String = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("herald-sound-\(UUID().uuidString.prefix(8))").path
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()

    func file(_ name: String, bytes: Int = 44) -> String {
        let path = directory + "/" + name
        FileManager.default.createFile(atPath: path, contents: Data(repeating: 1, count: bytes))
        return path
    }

    @Test func aRegularFileOpensAndIsReadThroughItsDescriptor() throws {
        let path = file("bell.wav")
        let sound = try SoundFile(path: path)
        #expect(sound.size == 44)
        // The path is swapped for another file: the descriptor still reaches the one checked.
        try FileManager.default.removeItem(atPath: path)
        FileManager.default.createFile(atPath: path, contents: Data(repeating: 2, count: 10))
        let read = try #require(FileManager.default.contents(atPath: sound.procPath))
        #expect(read == Data(repeating: 1, count: 44))
    }

    @Test func aFifoIsRefusedWithoutWaitingForAWriter() throws {
        let path = directory + "/fifo"
        #expect(mkfifo(path, 0o600) == 0)
        // Were it opened for reading without O_NONBLOCK, this would never return.
        #expect(throws: SoundFileError(path: path, problem: .notRegular("a FIFO"))) { _ = try SoundFile(path: path) }
    }

    @Test func linksDevicesDirectoriesAndLargeFilesAreRefused() throws {
        let target = file("real.wav")
        let link = directory + "/link.wav"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: SoundFileError(path: link, problem: .symbolicLink)) { _ = try SoundFile(path: link) }
        #expect(throws: SoundFileError(path: "/dev/zero", problem: .notRegular("a device"))) { _ = try SoundFile(path: "/dev/zero") }
        #expect(throws: SoundFileError(path: directory, problem: .notRegular("a directory"))) { _ = try SoundFile(path: directory) }
        let big = file("big.wav", bytes: 0)
        #expect(truncate(big, off_t(SoundFile.maximumSize + 1)) == 0)
        #expect(throws: SoundFileError(path: big, problem: .tooLarge(SoundFile.maximumSize + 1))) { _ = try SoundFile(path: big) }
        #expect(throws: SoundFileError(path: "relative.wav", problem: .notAbsolute)) { _ = try SoundFile(path: "relative.wav") }
        #expect(throws: SoundFileError(path: directory + "/missing", problem: .cannotOpen(ENOENT))) { _ = try SoundFile(path: directory + "/missing") }
    }

    @Test func theReasonLeavesThePathOut() {
        let error = SoundFileError(path: "/home/alice/secret.wav", problem: .notRegular("a FIFO"))
        #expect(error.reason == "not a regular file (a FIFO)")
        #expect(error.description == "Cannot play sound file '/home/alice/secret.wav': not a regular file (a FIFO)")
    }
}
