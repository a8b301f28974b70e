#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import HeraldCore
@testable import HeraldModel

@Suite struct EnvironmentTests {
    @Test func readsTheProcessEnvironment() {
        setenv("HERALD_TEST_ENVIRONMENT", "a=b c", 1)
        defer { unsetenv("HERALD_TEST_ENVIRONMENT") }
        let environment = Environment.current()
        #expect(environment["HERALD_TEST_ENVIRONMENT"] == "a=b c", "the value keeps its own '='")
        #expect(environment["PATH"] == String(cString: getenv("PATH")))
        #expect(environment["HERALD_TEST_NOT_SET"] == nil)
    }

    @Test func setsReplacesAndRemoves() {
        var environment: Environment = ["TZ": "Europe/Berlin", "HOME": "/home/a"]
        environment["TZ"] = "UTC"
        environment["LANG"] = "C.UTF-8"
        environment["HOME"] = nil
        #expect(environment.dictionary() == ["TZ": "UTC", "LANG": "C.UTF-8"])
    }

    @Test func selectsByPrefix() {
        let environment = Environment(["HERALD_PROFILE_NAME": "Ada", "HERALDX": "no", "HOME": "/h", "HERALD_SPOOL": "/s"])
        #expect(environment.dictionary(withPrefix: "HERALD_") == ["HERALD_PROFILE_NAME": "Ada", "HERALD_SPOOL": "/s"])
        let herald = environment.filtered(prefix: "HERALD_")
        #expect(herald.dictionary() == ["HERALD_PROFILE_NAME": "Ada", "HERALD_SPOOL": "/s"])
        #expect(herald["HOME"] == nil && !herald.isEmpty)
        #expect(environment.filtered(prefix: "XDG_").isEmpty)
    }

    /// A name defined twice (possible in a raw environ): the first definition counts, as with
    /// getenv, everywhere; removing the name removes every definition.
    @Test func aRepeatedNameKeepsItsFirstValue() {
        let strings = ["HERALD_TWICE=first", "HOME=/h", "HERALD_TWICE=second"].map { (text: String) -> UnsafeMutablePointer<CChar>? in strdup(text) }
        defer { strings.forEach { free($0) } }
        var list: [UnsafeMutablePointer<CChar>?] = strings + [nil]
        var environment = list.withUnsafeMutableBufferPointer { Environment.parse($0.baseAddress!) }
        #expect(environment["HERALD_TWICE"] == "first")
        #expect(environment.dictionary() == ["HERALD_TWICE": "first", "HOME": "/h"])
        #expect(environment.filtered(prefix: "HERALD_")["HERALD_TWICE"] == "first")
        environment["HERALD_TWICE"] = nil
        #expect(environment["HERALD_TWICE"] == nil)
    }
}
