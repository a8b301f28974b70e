#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where calendar items live: a vdir (vdirsyncer, khal, todoman: one `.ics` per item, in a
/// folder per collection) or a single `.ics` file.
public enum CalendarFiles {
    /// The most an `.ics` file may hold (a whole exported calendar fits; see `ICalBudget`).
    public static let maximumFileSize = ICalBudget.maximumFileSize

    /// The `.ics` files of `path`: the file itself, or those in the folder and in its
    /// sub-folders one level down (collections), sorted; hidden names and temporary files
    /// (which do not end in `.ics`) are left out.
    public static func list(_ path: String) throws(FileSystemError) -> [String] {
        var st = stat()
        guard stat(path, &st) == 0 else { throw FileSystemError(operation: "read", path: path, code: errno) }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { return [path] }
        var out: [String] = []
        for name in try FileSystem.list(path).sorted() where !name.hasPrefix(".") {
            let full = path + "/" + name
            if name.hasSuffix(".ics") { out.append(full); continue }
            var sub = stat()
            guard stat(full, &sub) == 0, (sub.st_mode & S_IFMT) == S_IFDIR else { continue }
            for inner in ((try? FileSystem.list(full)) ?? []).sorted() where !inner.hasPrefix(".") && inner.hasSuffix(".ics") {
                out.append(full + "/" + inner)
            }
        }
        return out
    }

    /// The collections to watch: the folder and its sub-folders (nothing for a single file).
    public static func folders(_ path: String) -> [String] {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return [] }
        var out = [path]
        for name in ((try? FileSystem.list(path)) ?? []).sorted() where !name.hasPrefix(".") {
            var sub = stat()
            if stat(path + "/" + name, &sub) == 0, (sub.st_mode & S_IFMT) == S_IFDIR { out.append(path + "/" + name) }
        }
        return out
    }

    /// Reads and parses one file; the error names the file and the line.
    public static func read(_ path: String) -> Result<ICalendarFile, CalendarFileError> {
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: maximumFileSize + 1, followLinks: true) } catch {
            return .failure(CalendarFileError(path: path, line: nil, message: error.description))
        }
        guard bytes.count <= maximumFileSize else {
            return .failure(CalendarFileError(path: path, line: nil, message: "larger than \(maximumFileSize >> 20) MiB"))
        }
        do { return .success(try ICalendarFile(path: path, bytes: bytes)) } catch {
            return .failure(CalendarFileError(path: path, line: error.line, message: error.message))
        }
    }
}

/// A calendar file or item Herald could not read: `path:line: message`.
public struct CalendarFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var message: String
    public init(path: String, line: Int?, message: String) { self.path = path; self.line = line; self.message = message }
    public var description: String { path + (line.map { ":\($0)" } ?? "") + ": " + message }
}
