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
    /// (which do not end in `.ics`) are left out, and so is anything reached through a link
    /// below the source (`SourceFolder`).
    public static func list(_ path: String) throws(FileSystemError) -> [String] {
        let folder = try SourceFolder(source: path)
        return try folder.list().map(folder.path(of:))
    }

    /// The collections to watch: the folder and its sub-folders (a single file: its folder).
    public static func folders(_ path: String) -> [String] {
        (try? SourceFolder(source: path))?.folders() ?? []
    }

    /// What a calendar file must be to be read: a regular file of at most `maximumFileSize`.
    public static let readable = FileRules(maximumSize: maximumFileSize)

    /// Reads and parses one item file of a source, opened from the source's folder without
    /// following links or waiting on a FIFO (`SourceFolder.open`); the error names the file and the line.
    public static func read(_ names: [String], in folder: SourceFolder) -> Result<ICalendarFile, CalendarFileError> {
        parse(folder.open(names, rules: readable).flatMap { $0.readAll() }, path: folder.path(of: names))
    }

    /// Reads and parses one file named by the user (`herald calendar check FILE`): the file
    /// itself may be a link they chose, but a FIFO or a device is refused without blocking.
    public static func read(_ path: String) -> Result<ICalendarFile, CalendarFileError> {
        guard let folder = try? SourceFolder(source: path), let names = folder.names(of: path) else {
            var st = stat()
            let why = stat(path, &st) != 0 ? String(cString: strerror(errno)) : "not a regular file"
            return .failure(CalendarFileError(path: path, line: nil, message: why))
        }
        return read(names, in: folder)
    }

    static func parse(_ read: Result<[UInt8], SpoolFileError>, path: String) -> Result<ICalendarFile, CalendarFileError> {
        let bytes: [UInt8]
        switch read {
        case .success(let b): bytes = b
        case .failure(.tooLarge): return .failure(CalendarFileError(path: path, line: nil, message: "larger than \(maximumFileSize >> 20) MiB"))
        case .failure(let problem): return .failure(CalendarFileError(path: path, line: nil, message: "it \(problem.description)"))
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
