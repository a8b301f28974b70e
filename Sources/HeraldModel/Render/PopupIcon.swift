/// What a popup's icon may be: a freedesktop icon name (`alarm-symbolic`) or an absolute path
/// to an image file. The notification server loads it (gdk-pixbuf in dunst and xfce4-notifyd),
/// and blocks for ever on a FIFO: so an icon from a job file or a calendar gets the checks the
/// CLI gives `--icon`, or is dropped with a log line (the popup still shows).
public enum PopupIcon {
    /// The longest icon: a path (PATH_MAX) or a name.
    public static let maximumLength = 4096
    /// The largest image file passed on: a server reads all of it to draw 48 pixels.
    public static let maximumFileSize = 16 << 20

    /// Why `icon` cannot be an icon, by its spelling alone; nil when it can.
    public static func spellingProblem(_ icon: String) -> String? {
        if icon.isEmpty { return "it is empty" }
        if icon.utf8.count > maximumLength { return "it is longer than \(maximumLength) bytes" }
        if icon.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) { return "it holds a control character" }
        if icon.contains("/") {
            guard icon.hasPrefix("/") else { return "it must be an absolute path or an icon name" }
            return nil
        }
        // Theme names are lowercase words and dashes; people write capitals and dots too.
        guard icon.utf8.count <= 255, icon.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.+".unicodeScalars.contains($0)) })
        else { return "it is neither an icon name (letters, digits and - _ . +, at most 255) nor an absolute path" }
        return nil
    }
}
