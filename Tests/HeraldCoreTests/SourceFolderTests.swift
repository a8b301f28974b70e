import Foundation
import Testing
@testable import HeraldCore

/// A calendar source's files are reached from its folder by plain names: a path string is
/// never trusted for its prefix, a link is never followed below the source, a FIFO is never
/// waited on, and only a regular file of this user's is rewritten or deleted.
@Suite struct SourceFolderTests {
    static let item = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20270105T090000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

    func vdir() -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        try! FileManager.default.createDirectory(atPath: dir.path + "/cal/family", withIntermediateDirectories: true)
        dir.write("cal/family/a.ics", Self.item)
        dir.write("cal/b.ics", Self.item)
        dir.write("victim.txt", "keep me")
        return dir
    }

    @Test func onlyPlainNamesOneCollectionDeepAreItemFiles() throws {
        let dir = vdir()
        let folder = try SourceFolder(source: dir.path + "/cal")
        let root = dir.path + "/cal"
        #expect(folder.names(of: root + "/family/a.ics") == ["family", "a.ics"])
        #expect(folder.names(of: root + "/b.ics") == ["b.ics"])
        for bad in [root + "/../victim.txt", root + "/family/../../victim.txt", root + "/./b.ics", root + "//b.ics",
                    root + "/.hidden.ics", root + "/a/b/c.ics", root + "/b.txt", dir.path + "/victim.txt", root + "x/b.ics", root] {
            #expect(folder.names(of: bad) == nil, "\(bad)")
        }
        #expect(try folder.list() == [["b.ics"], ["family", "a.ics"]])
    }

    @Test func aLinkBelowTheSourceIsNeitherFollowedNorRemoved() throws {
        let dir = vdir()
        let root = dir.path + "/cal"
        symlink(dir.path + "/victim.txt", root + "/link.ics")
        symlink(dir.path, root + "/elsewhere")  // a collection that is a link
        let folder = try SourceFolder(source: root)
        #expect(try folder.list() == [["b.ics"], ["family", "a.ics"], ["link.ics"]], "listed, but never read through")
        if case .failure(let e) = folder.open(["link.ics"], rules: CalendarFiles.readable) { #expect(e == .symlink) } else { Issue.record("a link was opened") }
        #expect(throws: FileSystemError.self) { try folder.remove(["link.ics"]) }
        #expect(throws: FileSystemError.self) { try folder.replace(["link.ics"], with: Array("x".utf8)) }
        #expect(throws: FileSystemError.self) { try folder.remove(["elsewhere", "victim.ics"]) }
        #expect(try String(contentsOfFile: dir.path + "/victim.txt", encoding: .utf8) == "keep me")
        #expect(FileManager.default.fileExists(atPath: root + "/link.ics"))
    }

    @Test func aFifoIsRefusedWithoutWaiting() throws {
        let dir = vdir()
        let root = dir.path + "/cal"
        #expect(mkfifo(root + "/fifo.ics", 0o600) == 0)
        let folder = try SourceFolder(source: root)
        let started = Date()
        if case .failure(let e) = CalendarFiles.read(["fifo.ics"], in: folder) { #expect(e.message.contains("not a regular file")) } else { Issue.record("a FIFO was read") }
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(throws: FileSystemError.self) { try folder.remove(["fifo.ics"]) }
    }

    @Test func aReplaceKeepsTheModeAndLosesToAChangeMadeMeanwhile() throws {
        let dir = vdir()
        let root = dir.path + "/cal"
        chmod(root + "/b.ics", 0o644)
        let folder = try SourceFolder(source: root)
        let version = try #require(folder.version(of: ["b.ics"]))
        #expect(try folder.replace(["b.ics"], with: Array("new".utf8), unchangedSince: version) == .replaced)
        var st = stat()
        stat(root + "/b.ics", &st)
        #expect(st.st_mode & 0o777 == 0o644)
        #expect(try folder.replace(["b.ics"], with: Array("newer".utf8), unchangedSince: version) == .changed)
        #expect(try String(contentsOfFile: root + "/b.ics", encoding: .utf8) == "new")
        #expect(throws: FileSystemError.self) { try folder.replace(["b.ics"], with: Array("x".utf8), create: true) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted() == ["b.ics", "family"], "no temporary file left")
    }

    @Test func aSingleFileSourceHoldsThatFileAlone() throws {
        let dir = vdir()
        let file = dir.path + "/cal/b.ics"
        symlink(file, dir.path + "/mine.ics")  // the user's own link, named in the config
        let folder = try SourceFolder(source: dir.path + "/mine.ics")
        #expect(try folder.list() == [["b.ics"]])
        #expect(folder.names(of: dir.path + "/mine.ics") == ["b.ics"])
        #expect(folder.names(of: dir.path + "/cal/family/a.ics") == nil)
        if case .failure = CalendarFiles.read(dir.path + "/mine.ics") { Issue.record("the configured link was not followed") }
    }
}
