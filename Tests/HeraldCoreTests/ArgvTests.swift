#if canImport(Glibc)
import Glibc
#endif
import CHeraldArgv
import Testing

/// CHeraldArgv hands Swift's CommandLine the argv glibc gave the program's constructors, in
/// place of the standard library's /proc/self/maps scan (herald_argv.c). This test process
/// links the standard library dynamically, so its CommandLine still comes from the library's
/// own code: the two are compared here.
@Suite struct ArgvTests {
    static func strings(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int32) -> [String] {
        guard let argv else { return [] }
        return (0..<Int(count)).map { String(cString: argv[$0]!) }
    }

    @Test func givesTheStandardLibraryTheArgumentsTheProgramWasStartedWithUntilOverridden() {
        var count: Int32 = -1
        let argv = herald_argv_for_swift(&count)
        #expect(count > 0, "the constructor ran and got argv")
        #expect(Self.strings(argv, count) == CommandLine.arguments)
        #expect(argv?[Int(count)] == nil, "argv ends with a null, as C requires")

        let texts = ["swift-repl", "a b", ""]
        let words: [UnsafeMutablePointer<CChar>?] = texts.map { text in strdup(text) } + [nil]
        defer { words.forEach { free($0) } }
        var copy = words
        copy.withUnsafeMutableBufferPointer { buffer in
            herald_override_argv_for_swift(buffer.baseAddress, 3)
            var overridden: Int32 = -1
            #expect(Self.strings(herald_argv_for_swift(&overridden), overridden) == ["swift-repl", "a b", ""])
            herald_override_argv_for_swift(nil, 0)
        }
        #expect(Self.strings(herald_argv_for_swift(&count), count) == CommandLine.arguments)
    }
}
