import Foundation
import Testing
@testable import HeraldCore

/// The one atomic replace every whole-file writer uses: what each option promises, and that
/// nothing of a failed or refused write is left behind.
@Suite struct AtomicReplaceTests {
    let folder = TemporaryDirectory()
    var dir: String { folder.path }

    func read(_ name: String) -> String? { try? String(contentsOfFile: dir + "/" + name, encoding: .utf8) }
    func mode(_ name: String) -> mode_t {
        var st = stat()
        return lstat(dir + "/" + name, &st) == 0 ? st.st_mode & 0o7777 : 0
    }
    /// Everything in the folder but the names given: a temporary file left over would show here.
    func others(_ keep: Set<String>) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !keep.contains($0) }.sorted()
    }

    @Test func aNewFileIsTheUsersAloneAndAnOldOneKeepsItsMode() throws {
        try AtomicReplace.write(Array("one\n".utf8), to: dir + "/new.ics")
        #expect(read("new.ics") == "one\n" && mode("new.ics") == 0o600)
        chmod(dir + "/new.ics", 0o644)  // a calendar file a sync tool made readable
        try AtomicReplace.write(Array("two\n".utf8), to: dir + "/new.ics")
        #expect(read("new.ics") == "two\n" && mode("new.ics") == 0o644)
        try AtomicReplace.write(Array("three\n".utf8), to: dir + "/new.ics", options: .init(mode: 0o600))
        #expect(mode("new.ics") == 0o600)
        #expect(others(["new.ics"]).isEmpty)
    }

    @Test func mustNotExistRefusesATakenNameAndWritesNothing() throws {
        try "theirs\n".write(toFile: dir + "/taken.json", atomically: false, encoding: .utf8)
        #expect(throws: FileSystemError.self) {
            try AtomicReplace.write(Array("mine\n".utf8), to: dir + "/taken.json", options: .init(existing: .mustNotExist))
        }
        #expect(read("taken.json") == "theirs\n")
        #expect(others(["taken.json"]).isEmpty)
    }

    @Test func mustExistSaysChangedWhenTheFileWentAndBringsNothingBack() throws {
        #expect(try AtomicReplace.write(Array("x\n".utf8), to: dir + "/gone.json", options: .init(existing: .mustExist)) == .changed)
        #expect(others([]).isEmpty)
        try "old\n".write(toFile: dir + "/there.json", atomically: false, encoding: .utf8)
        #expect(try AtomicReplace.write(Array("new\n".utf8), to: dir + "/there.json", options: .init(existing: .mustExist)) == .replaced)
        #expect(read("there.json") == "new\n")
        #expect(others(["there.json"]).isEmpty)  // the old document, swapped out, is removed
    }

    @Test func unchangedSinceLeavesAFileChangedMeanwhileAlone() throws {
        try "v1\n".write(toFile: dir + "/item.ics", atomically: false, encoding: .utf8)
        let version = try #require(AtomicReplace.version(of: dir + "/item.ics"))
        try "someone else's\n".write(toFile: dir + "/item.ics", atomically: true, encoding: .utf8)  // a sync run
        #expect(try AtomicReplace.write(Array("mine\n".utf8), to: dir + "/item.ics", options: .init(unchangedSince: version)) == .changed)
        #expect(read("item.ics") == "someone else's\n")
        #expect(others(["item.ics"]).isEmpty)
        let now = try #require(AtomicReplace.version(of: dir + "/item.ics"))
        #expect(try AtomicReplace.write(Array("mine\n".utf8), to: dir + "/item.ics", options: .init(unchangedSince: now)) == .replaced)
        #expect(read("item.ics") == "mine\n")
    }

    @Test func aSymlinkInThePlaceIsReplacedNeverWrittenThrough() throws {
        try "victim\n".write(toFile: dir + "/victim.txt", atomically: false, encoding: .utf8)
        symlink(dir + "/victim.txt", dir + "/status.json")
        try AtomicReplace.write(Array("{}\n".utf8), to: dir + "/status.json")
        #expect(read("victim.txt") == "victim\n")
        #expect(read("status.json") == "{}\n" && mode("status.json") == 0o600)  // not the link's 0777
    }

    @Test func aStagedFileNotCommittedLeavesNothing() throws {
        try FileManager.default.createDirectory(atPath: dir + "/tmp", withIntermediateDirectories: false)
        do {
            let staged = try AtomicReplace.stage(dir + "/pack", options: .init(staging: dir + "/tmp"))
            try staged.write(Array("half".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/tmp").count == 1)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/tmp").isEmpty)
        #expect(others(["tmp"]).isEmpty)
        // Staged in tmp/, committed into the folder: the folder never sees a temporary name.
        let staged = try AtomicReplace.stage(dir + "/pack", options: .init(staging: dir + "/tmp"))
        #expect(staged.inode != 0)
        try staged.write(Array("whole".utf8))
        #expect(others(["tmp"]).isEmpty)
        #expect(try staged.commit() == .replaced)
        #expect(read("pack") == "whole")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/tmp").isEmpty)
    }

    @Test func relativeToAnOpenFolder() throws {
        let open = try #require(Descriptor.open(dir, O_RDONLY | O_DIRECTORY))
        try AtomicReplace.write(Array("in\n".utf8), to: "inner.ics", in: open, options: .init(syncDirectory: true))
        #expect(read("inner.ics") == "in\n")
        #expect(AtomicReplace.version(of: "inner.ics", in: open) == AtomicReplace.version(of: dir + "/inner.ics"))
    }
}
