/// Herald's version, shown by `--version` and in `status.json`.
public enum HeraldVersion {
    public static let string = "0.2.0"
}
