#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import HeraldCore

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
    }
}
