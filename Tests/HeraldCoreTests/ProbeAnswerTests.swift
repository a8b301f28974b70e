import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

/// The one line `heraldd --probe` prints and `herald doctor` reads.
struct ProbeAnswerTests {
    let dunst = ServerInfo(name: "dunst", vendor: "knopwob", version: "1.9.0", specVersion: "1.2",
                           capabilities: ["actions", "body", "body-markup"])

    @Test func anAnswerWithAServerRoundTrips() throws {
        let answer = ProbeAnswer(bus: "unix:path=/run/user/1000/bus", serverOwner: ":1.12", server: dunst)
        let back = try #require(ProbeAnswer(json: Array(answer.json.utf8)))
        #expect(back == answer)
        #expect(back.serverAnswered)
    }

    /// `herald doctor` of one version may read `heraldd --probe` of another: the keys stay.
    @Test func theLineKeepsItsKeysAndIsOneLine() {
        let line = ProbeAnswer(bus: "unix:path=/b", serverOwner: ":1.2", server: dunst).json
        #expect(line == #"{"bus":"unix:path=/b","busError":null,"serverOwner":":1.2","server":{"name":"dunst","vendor":"knopwob","#
                + #""version":"1.9.0","specVersion":"1.2","capabilities":["actions","body","body-markup"]},"serverError":null}"#)
        #expect(!line.contains("\n"))
    }

    @Test func aMissingServerRoundTripsWithItsReason() throws {
        let answer = ProbeAnswer(bus: "", serverError: "no program owns org.freedesktop.Notifications on the session bus")
        let back = try #require(ProbeAnswer(json: Array((answer.json + "\n").utf8)))
        #expect(back == answer)
        #expect(back.server == nil)
        #expect(!back.serverAnswered)
    }

    @Test func anUnreachableBusRoundTrips() throws {
        let answer = ProbeAnswer(bus: "unix:path=/nowhere", busError: "Could not connect: No such file or directory")
        let back = try #require(ProbeAnswer(json: Array(answer.json.utf8)))
        #expect(back.busError == "Could not connect: No such file or directory")
        #expect(back.server == nil && back.serverOwner == nil)
    }

    /// A server that answered GetServerInformation but not GetCapabilities.
    @Test func aServerThatPartlyAnsweredIsNotCountedAsAnswering() throws {
        let answer = ProbeAnswer(bus: "", serverOwner: ":1.4", server: dunst, serverError: "GetCapabilities: Timeout was reached")
        let back = try #require(ProbeAnswer(json: Array(answer.json.utf8)))
        #expect(back == answer)
        #expect(!back.serverAnswered)
    }

    @Test func aMalformedLineIsRefused() {
        for text in ["", "not json", "{\"bus\":\"x\"", "[1,2]", "{}", "{\"bus\":3}", "{\"bus\":\"x\"} trailing"] {
            #expect(ProbeAnswer(json: Array(text.utf8)) == nil, "\(text)")
        }
    }

    /// Fields a server leaves out of its own description read as empty, not as a bad answer.
    @Test func missingServerFieldsReadAsEmpty() throws {
        let back = try #require(ProbeAnswer(json: Array(#"{"bus":"","server":{"name":"mako","capabilities":["body",7]}}"#.utf8)))
        #expect(back.server == ServerInfo(name: "mako", vendor: "", version: "", specVersion: "", capabilities: ["body"]))
    }
}
