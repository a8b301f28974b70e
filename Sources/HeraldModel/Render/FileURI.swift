/// `file://` URIs for local paths (RFC 8089), as the notification spec's `app_icon` and
/// `image-path` take them: each path byte outside RFC 3986's path characters is
/// percent-encoded, the rest kept, so "/home/a b/ä.png" is "file:///home/a%20b/%C3%A4.png".
public enum FileURI {
    /// The URI of absolute `path`, or nil when it is not absolute.
    public static func from(path: String) -> String? {
        guard path.hasPrefix("/") else { return nil }
        var out: [UInt8] = Array("file://".utf8)
        out.reserveCapacity(out.count + path.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in path.utf8 {
            if isPathCharacter(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 `pchar` and "/": unreserved, sub-delims, ":" and "@".
    private static func isPathCharacter(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"):
            return true
        default:
            return false
        }
    }
}
