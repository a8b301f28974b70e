import Foundation
import HeraldTestSupport
import Testing

/// The notification server is killed and another takes its name on the same private bus. A new
/// server numbers its popups from 1 again, so the old one's ids are never sent as replaces_id
/// nor listened to again; popups the new server showed are its own and keep their buttons.
@Suite(.serialized)
struct ServerRestartEndToEndTests {
    func outcomes(_ scene: Scene, _ id: String) -> [String] {
        scene.history().filter { $0.id == id }.map(\.outcome.rawValue)
    }

    /// A repeating reminder's first popup is on the old server (its id 1); another job's popup
    /// gets the new server's id 1; the reminder's repeat goes out fresh and leaves it alone.
    @Test func aRepeatAfterARestartIsAFreshPopupAndLeavesAnotherJobsPopupAlone() throws {
        let scene = try Scene()
        try scene.startDaemon()
        let old = try #require(scene.server)
        #expect(try scene.herald("remind", "--in", "1s", "--repeat", "6s", "--id", "a", "Stretch").status == 0)
        #expect(try old.waitForNotifications(1).map(\.summary) == ["Stretch"])
        // Due before the repeat: the new server's first popup (if that server is not up yet, it
        // fails and is retried ahead of the repeat when the server appears).
        #expect(try scene.herald("remind", "--in", "3s", "--id", "b", "Water").status == 0)
        old.stop()
        try old.control("gone")
        let new = try NotificationServer(bus: scene.bus, directory: scene.directory)
        scene.server = new

        let shown = try new.waitForNotifications(2, timeout: 30)
        #expect(shown.map(\.summary) == ["Water", "Stretch"])
        #expect(shown.map(\.replaces) == [0, 0], "the repeat replaced id \(shown.last?.replaces ?? -1), Water's")
        // Water's popup (id 1 here) is Water's: its closing is not taken for the old "Stretch" (id 1 there).
        try new.close(1, reason: 2)
        #expect(waitUntil { self.outcomes(scene, "b") == ["shown", "dismissed"] })
        // The repeat's popup (id 2) answers for "Stretch".
        try new.press("done", onNotification: 2)
        #expect(waitUntil { self.outcomes(scene, "a") == ["shown", "shown", "done"] })
        #expect(waitUntil { (try? new.closed()) == [2] })
        #expect(waitUntil { scene.files("jobs").isEmpty })
        #expect(outcomes(scene, "a") == ["shown", "shown", "done"])
        #expect(outcomes(scene, "b") == ["shown", "dismissed"])
    }

    /// The bus starts a server for a popup (D-Bus activation), which says it took the name only
    /// after it answered: that popup is the new server's, and its buttons work.
    @Test func aPopupThatStartedTheNewServerKeepsItsButtons() throws {
        let scene = try Scene(activatable: true)
        try scene.startDaemon()
        let old = try #require(scene.server)
        #expect(try scene.herald("remind", "--in", "1s", "--id", "a", "Stretch").status == 0)
        _ = try old.waitForNotifications(1)
        old.stop()
        try old.control("gone")
        #expect(try scene.herald("remind", "--in", "1s", "--id", "b", "Water").status == 0)
        let new = try NotificationServer(activatedOn: scene.bus)
        scene.server = new

        let shown = try new.waitForNotifications(1)
        #expect(shown.map(\.summary) == ["Water"])
        #expect(shown.map(\.replaces) == [0])
        let daemon = try #require(scene.daemon)
        #expect(waitUntil { daemon.logged("A notification server took the name on the bus") })
        try new.press("done", onNotification: 1)
        #expect(waitUntil { self.outcomes(scene, "b") == ["shown", "done"] }, "\(daemon.log)")
        #expect(waitUntil { (try? new.closed()) == [1] })
        #expect(outcomes(scene, "a") == ["shown"])
    }
}
