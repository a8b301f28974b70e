/// Which configuration file and which spool directory to use, decided in one place for
/// heraldd, herald and `herald doctor`.
///
/// The configuration file: `--config`, else `$HERALD_CONFIG`, else
/// `$XDG_CONFIG_HOME/herald/config.yaml`, else `~/.config/herald/config.yaml`.
/// The spool: `--spool`, else `$HERALD_SPOOL`, else the config file's `spool`, else
/// `$XDG_STATE_HOME/herald`, else `~/.local/state/herald`. (`ConfigLoader` already puts
/// `HERALD_SPOOL` above the file; when the configuration is refused, `HERALD_SPOOL` still counts.)
public struct Resolution: Sendable {
    /// The configuration file.
    public var configPath: String
    /// Whether the file must exist: it was named by `--config` or `HERALD_CONFIG`.
    public var configExplicit: Bool
    /// The configuration read; the defaults when it was refused (see `configError`).
    public var config: HeraldConfig
    /// Why the configuration (the file or a `HERALD_*` variable) was refused; nil when it was read.
    public var configError: ConfigError?
    /// The spool directory.
    public var spool: Spool

    /// Reads the configuration and picks the spool.
    ///
    /// - Parameters:
    ///   - spool: the `--spool` option, if given.
    ///   - config: the `--config` option, if given.
    ///   - environment: the process environment.
    public static func resolve(spool spoolOption: String?, config configOption: String?,
                               environment: Environment) -> Resolution {
        let source = configOption.map { (path: $0, explicit: true) } ?? ConfigLoader.defaultPath(environment: environment)
        var config = HeraldConfig()
        var configError: ConfigError?
        do {
            config = try ConfigLoader.load(path: source.path, explicit: source.explicit, environment: environment)
        } catch {
            configError = error
        }
        let fromEnvironment = environment["HERALD_SPOOL"].flatMap { $0.isEmpty ? nil : $0 }
        let root = spoolOption ?? config.spool ?? fromEnvironment ?? Spool.defaultRoot(environment: environment)
        return Resolution(configPath: source.path, configExplicit: source.explicit, config: config,
                          configError: configError, spool: Spool(root: root))
    }
}
