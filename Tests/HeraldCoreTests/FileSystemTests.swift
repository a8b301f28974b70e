import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

struct FileSystemTests {
    /// Sizes around the buffer's start (the file's size + 1, at least 64) and its doublings.
    @Test(arguments: [0, 1, 63, 64, 65, 4095, 4096, 100_000])
    func readsWholeFilesOfAnySize(size: Int) throws {
        let dir = TemporaryDirectory()
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        FileManager.default.createFile(atPath: dir.path + "/f", contents: Data(bytes))
        #expect(try FileSystem.read(dir.path + "/f") == bytes)
    }

    /// /proc files report size 0, so the buffer has to grow while reading.
    @Test func readsFilesThatReportNoSize() throws {
        let text = try FileSystem.read("/proc/self/maps")
        #expect(text.count > 64)
        #expect(String(decoding: text, as: UTF8.self).contains("[stack]"))
    }

    /// Past the limit the read stops with more than `limit` bytes, so the caller can tell.
    @Test func stopsJustPastTheLimit() throws {
        let dir = TemporaryDirectory()
        dir.write("big", String(repeating: "x", count: 10_000))
        let bytes = try FileSystem.read(dir.path + "/big", limit: 1_000)
        #expect(bytes.count > 1_000)
        #expect(bytes.count < 10_000)
        #expect(try FileSystem.read(dir.path + "/big", limit: 10_000).count == 10_000)
    }

    @Test func countsEntriesWithOrWithoutHiddenNames() throws {
        let dir = TemporaryDirectory()
        for name in ["a.json", ".hidden", "..x", "b", ".c.json"] { dir.write(name, "") }
        try FileManager.default.createDirectory(atPath: dir.path + "/sub", withIntermediateDirectories: false)
        #expect(try FileSystem.count(dir.path) == 6)
        #expect(try FileSystem.count(dir.path, hidden: false) == 3)
        #expect(try FileSystem.count(dir.path) == FileSystem.list(dir.path).count)
        #expect(throws: FileSystemError.self) { try FileSystem.count(dir.path + "/missing") }
    }
}
