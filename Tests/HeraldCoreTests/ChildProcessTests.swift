import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Real programs, started the one way Herald starts any.
struct ChildProcessTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func reportsTheExitStatus() throws {
        #expect(try ChildProcess.run("/bin/sh", ["-c", "exit 3"]) == .exited(3))
        #expect(try ChildProcess.run("/bin/sh", ["-c", "exit 0"]) == .exited(0))
        #expect(try ChildProcess.run("/bin/sh", ["-c", "exit 3"]).code == 3)
    }

    @Test func reportsTheSignalThatEndedIt() throws {
        let status = try ChildProcess.run("/bin/sh", ["-c", "kill -TERM $$"])
        #expect(status == .killed(signal: SIGTERM))
        #expect(status.code == 128 + SIGTERM)
        #expect(status.description == "signal \(SIGTERM)")
    }

    @Test func passesExactlyTheEnvironmentGiven() throws {
        let out = try ChildProcess.collect("/bin/sh", ["-c", "echo \"$HERALD_T|${HOME-unset}\""], environment: ["HERALD_T": "a b=c"])
        #expect(out.status == .exited(0))
        #expect(text(out.standardOutput) == "a b=c|unset\n")
    }

    @Test func inheritsThisEnvironmentWhenNoneIsGiven() throws {
        let path = try #require(Environment.current()["PATH"])
        let out = try ChildProcess.collect("/bin/sh", ["-c", "printf %s \"$PATH\""])
        #expect(text(out.standardOutput) == path)
    }

    @Test func aMissingProgramIsASpawnError() {
        #expect(throws: SpawnError(program: "/nonexistent/herald-x", code: ENOENT)) {
            try ChildProcess.run("/nonexistent/herald-x", [])
        }
        do throws(SpawnError) {
            _ = try ChildProcess.collect("/nonexistent/herald-x", ["a"])
            Issue.record("started a missing program")
        } catch {
            #expect(error.description == "cannot start '/nonexistent/herald-x': No such file or directory")
            #expect(error.reason == "No such file or directory")
        }
    }

    @Test func searchesPathOnlyWhenAsked() throws {
        #expect(try ChildProcess.run("sh", ["-c", "exit 4"], searchPath: true) == .exited(4))
        #expect(throws: SpawnError(program: "sh", code: ENOENT)) { try ChildProcess.run("sh", ["-c", "exit 4"]) }
    }

    @Test func collectsOutputAndErrorsApart() throws {
        let out = try ChildProcess.collect("/bin/sh", ["-c", "echo out; echo err >&2; exit 2"], collectErrors: true)
        #expect(out.status == .exited(2))
        #expect(text(out.standardOutput) == "out\n")
        #expect(text(out.standardError) == "err\n")
        #expect(!out.timedOut && !out.overLimit)
    }

    /// Both pipes are read as the program writes, so a megabyte on each does not block it.
    @Test func readsLargeOutputOnBothStreamsWithoutBlocking() throws {
        let out = try ChildProcess.collect("/bin/sh", ["-c", "head -c 1000000 /dev/zero >&2; head -c 1000000 /dev/zero"],
                                           collectErrors: true, timeout: 20_000)
        #expect(out.status == .exited(0))
        #expect(out.standardOutput.count == 1_000_000)
        #expect(out.standardError.count == 1_000_000)
    }

    @Test func killsAProgramThatPrintsTooMuch() throws {
        let out = try ChildProcess.collect("/bin/sh", ["-c", "exec cat /dev/zero"], limit: 1 << 16)
        #expect(out.overLimit)
        #expect(out.standardOutput.count == 1 << 16)
        #expect(out.status == .killed(signal: SIGKILL))
    }

    @Test func killsAProgramThatOutlivesItsTime() throws {
        let start = ChildProcess.monotonicNanoseconds()
        let out = try ChildProcess.collect("/bin/sh", ["-c", "echo started; exec sleep 30"], timeout: 200)
        #expect(out.timedOut)
        #expect(out.status == .killed(signal: SIGKILL))
        #expect(text(out.standardOutput) == "started\n")
        #expect(ChildProcess.monotonicNanoseconds() - start < 10_000_000_000)
    }

    /// A program that closes its output but goes on is still bound by the time.
    @Test func killsAProgramThatClosedItsOutputButWentOn() throws {
        let out = try ChildProcess.collect("/bin/sh", ["-c", "exec >&- 2>&-; sleep 30"], timeout: 200)
        #expect(out.timedOut)
        #expect(out.status == .killed(signal: SIGKILL))
    }

    /// No descriptor of this process but 0, 1 and 2 reaches the child.
    @Test func theChildGetsOnlyItsStandardStreams() throws {
        let fd = open("/dev/null", O_RDONLY)  // not close-on-exec
        #expect(fd > 2)
        defer { close(fd) }
        let out = try ChildProcess.collect("/bin/sh", ["-c", "for n in 0 1 2 \(fd); do [ -e /proc/$$/fd/$n ] && printf '%s ' $n; done"])
        #expect(text(out.standardOutput) == "0 1 2 ")
    }

    /// Signals this process ignores (heraldd ignores SIGTERM, SIGINT and SIGHUP) are back at
    /// their default in the child, and none is blocked.
    @Test func theChildStartsWithDefaultSignals() throws {
        let old = signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, old) }
        let out = try ChildProcess.collect("/bin/grep", ["-E", "^Sig(Ign|Blk)", "/proc/self/status"])
        let lines = text(out.standardOutput).split(separator: "\n")
        let masks = Dictionary(uniqueKeysWithValues: lines.map { line in
            let parts = line.split(separator: ":")
            return (String(parts[0]), UInt64(parts[1].trimmingCharacters(in: .whitespaces), radix: 16) ?? .max)
        })
        #expect(masks["SigBlk"] == 0)
        #expect((try #require(masks["SigIgn"])) & (1 << (UInt64(SIGUSR2) - 1)) == 0)
    }

    @Test func standardStreamsGoWhereTheCommandSays() throws {
        let dir = TemporaryDirectory()
        dir.write("in", "from a file\n")
        let command = ChildProcess.Command("/bin/sh", ["-c", "cat; echo to-err >&2"], environment: [:],
                                           input: .file(dir.path + "/in"), output: .file(dir.path + "/out"), error: .standardOutput)
        #expect(try command.start().wait() == .exited(0))
        #expect(try command.start().wait() == .exited(0))  // a command starts as often as asked
        #expect(try String(contentsOfFile: dir.path + "/out", encoding: .utf8) == "from a file\nto-err\n")
        let missing = ChildProcess.Command("/bin/cat", [], input: .file(dir.path + "/nothing"), output: .null)
        #expect(throws: SpawnError(program: "/bin/cat", code: ENOENT)) { try missing.start() }
    }

    @Test func pollAndSignalFollowTheProgram() throws {
        let child = try ChildProcess.Command("/bin/sleep", ["30"], output: .null).start()
        #expect(child.poll() == nil)
        child.signal(SIGTERM)
        #expect(child.wait() == .killed(signal: SIGTERM))
        #expect(child.poll() == .killed(signal: SIGTERM))
    }
}
