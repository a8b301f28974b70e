#if canImport(Glibc)
import Glibc
#endif

/// Where a program installed with herald may be: beside herald (a build folder, /usr/bin), in
/// ../lib/herald, or on PATH; the first that can run, and the places looked in.
public func installedHelper(_ name: String) -> (found: String?, candidates: [String]) {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    var candidates: [String] = []
    if n > 0 {
        let dir = parentDirectory(of: String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        candidates += [dir + "/" + name, parentDirectory(of: dir) + "/lib/herald/" + name]
    }
    for dir in (Environment.current()["PATH"] ?? "").split(separator: ":") { candidates.append(dir + "/" + name) }
    return (candidates.first { access($0, X_OK) == 0 }, candidates)
}
