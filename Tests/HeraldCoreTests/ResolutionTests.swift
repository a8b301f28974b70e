import Testing
@testable import HeraldCore
@testable import HeraldModel

/// Which config file and spool heraldd, herald and `herald doctor` use.
struct ResolutionTests {
    let dir = TemporaryDirectory()

    func resolve(spool: String? = nil, config: String? = nil, _ env: [String: String]) -> Resolution {
        Resolution.resolve(spool: spool, config: config, environment: Environment(["HOME": dir.path].merging(env) { $1 }))
    }

    /// --spool beats HERALD_SPOOL, which beats the file's `spool`, which beats $XDG_STATE_HOME.
    @Test func theSpoolComesFromTheFlagThenTheVariableThenTheFileThenXDG() {
        dir.write("config.yaml", "spool: /from/file\n")
        let file = ["HERALD_CONFIG": dir.path + "/config.yaml", "XDG_STATE_HOME": "/state"]
        let variable = file.merging(["HERALD_SPOOL": "/from/variable"]) { $1 }
        #expect(resolve(spool: "/from/flag", variable).spool.root == "/from/flag")
        #expect(resolve(variable).spool.root == "/from/variable")
        #expect(resolve(file).spool.root == "/from/file")
        #expect(resolve(["XDG_STATE_HOME": "/state"]).spool.root == "/state/herald")
        #expect(resolve([:]).spool.root == dir.path + "/.local/state/herald")
    }

    /// --config beats HERALD_CONFIG, which beats $XDG_CONFIG_HOME; only a named file must exist.
    @Test func theConfigFileComesFromTheFlagThenTheVariableThenXDG() {
        let env = ["HERALD_CONFIG": "/from/variable.yaml", "XDG_CONFIG_HOME": "/xdg"]
        let flag = resolve(config: "/from/flag.yaml", env)
        #expect(flag.configPath == "/from/flag.yaml" && flag.configExplicit)
        #expect(flag.configError?.description == "cannot read config '/from/flag.yaml': no such file")
        let variable = resolve(env)
        #expect(variable.configPath == "/from/variable.yaml" && variable.configExplicit)
        let xdg = resolve(["XDG_CONFIG_HOME": "/xdg"])
        #expect(xdg.configPath == "/xdg/herald/config.yaml" && !xdg.configExplicit)
        #expect(xdg.configError == nil)
        #expect(resolve([:]).configPath == dir.path + "/.config/herald/config.yaml")
    }

    /// `herald doctor` still checks the spool HERALD_SPOOL names when the config is bad.
    @Test func aRefusedConfigLeavesTheVariableSpoolAndTheDefaults() {
        dir.write("config.yaml", "spool: /from/file\nnonsense: 1\n")
        let resolved = resolve(["HERALD_CONFIG": dir.path + "/config.yaml", "HERALD_SPOOL": "/from/variable"])
        #expect(resolved.configError != nil)
        #expect(resolved.config == HeraldConfig())
        #expect(resolved.spool.root == "/from/variable")
    }

    @Test func aSpoolInTheFileMayStartWithTheHomeDirectory() {
        dir.write("config.yaml", "spool: ~/reminders\n")
        #expect(resolve(["HERALD_CONFIG": dir.path + "/config.yaml"]).spool.root == dir.path + "/reminders")
    }
}
