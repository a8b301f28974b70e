#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension PopupIcon {
    /// Why `icon` cannot be shown now, or nil: its spelling, and for a path, that it names a
    /// regular file (a link to one is fine: the server follows it) of at most `maximumFileSize`.
    public static func problem(_ icon: String) -> String? {
        if let problem = spellingProblem(icon) { return problem }
        guard icon.hasPrefix("/") else { return nil }
        var st = stat()
        guard stat(icon, &st) == 0 else { return "it cannot be read: \(String(cString: strerror(errno)))" }
        guard st.st_mode & S_IFMT == S_IFREG else { return "it is not an image file (not a regular file)" }
        guard st.st_size <= maximumFileSize else { return "it is larger than \(maximumFileSize >> 20) MiB" }
        return nil
    }
}
