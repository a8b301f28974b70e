#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FileSystem {
    /// Calls `body` with the lines of the file at `path`, last first, read backwards in blocks
    /// of 64 KiB with `pread`, until `body` returns false or `limit` bytes from the end were
    /// read. A line cut by the limit is not passed; a missing file has no lines.
    public static func forEachLineBackwards(_ path: String, limit: Int, _ body: (Substring) -> Bool) {
        guard let file = Descriptor.open(path, O_RDONLY | O_NOFOLLOW) else { return }
        let fd = file.raw
        defer { withExtendedLifetime(file) {} }  // open while fd is read
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return }
        let block = 64 << 10
        var end = Int(st.st_size)
        let stop = max(0, end - max(0, limit))
        var carry: [UInt8] = []  // the start of a line whose beginning is in an earlier block
        while end > stop {
            let start = max(stop, end - block)
            var chunk = [UInt8](repeating: 0, count: end - start)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, off_t(start)) }
            guard n == chunk.count else { return }
            chunk += carry
            var lineEnd = chunk.count
            var i = chunk.count - 1
            while i >= 0 {
                if chunk[i] == UInt8(ascii: "\n") {
                    if lineEnd > i + 1, !body(Substring(String(decoding: chunk[(i + 1)..<lineEnd], as: UTF8.self))) { return }
                    lineEnd = i
                }
                i -= 1
            }
            carry = Array(chunk[0..<lineEnd])
            end = start
        }
        // The file's first line, whole only when the read reached the start of the file.
        if stop == 0, !carry.isEmpty { _ = body(Substring(String(decoding: carry, as: UTF8.self))) }
    }
}
