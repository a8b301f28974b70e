import Foundation
import Testing
@testable import HeraldCore
@testable import HeraldModel

struct ConfigTests {
    let dir = TemporaryDirectory()

    func load(_ yaml: String?, env: [String: String] = [:]) throws(ConfigError) -> HeraldConfig {
        if let yaml { dir.write("config.yaml", yaml) }
        return try ConfigLoader.load(path: dir.path + "/config.yaml", explicit: yaml != nil, environment: Environment(env))
    }

    @Test func aMissingDefaultFileMeansDefaults() throws {
        let config = try load(nil)
        #expect(config == HeraldConfig())
        #expect(config.lead == .minutes(15))
    }

    /// Without a file only HERALD_* variables are read, but `~` in a spool still means $HOME.
    @Test func variablesAloneStillExpandTheHomeDirectory() throws {
        let config = try load(nil, env: ["HERALD_SPOOL": "~/reminders", "HOME": "/home/ada", "HERALD_LIMITS_JOBS": "7", "LIMITS_JOBS": "9"])
        #expect(config.spool == "/home/ada/reminders")
        #expect(config.maxJobs == 7)
        #expect(try load(nil, env: ["HOME": "/home/ada", "SPOOL": "/elsewhere"]) == HeraldConfig())
    }

    @Test func theDefaultTemplatesAreValid() throws {
        let d = HeraldConfig().templates
        #expect(HeraldConfig.Templates.names == ["reminder", "headsUp", "arrival", "habit", "calendar", "alarm", "runEnded"])
        for name in HeraldConfig.Templates.names {
            for template in [d[name].summary, d[name].body] {
                #expect(try Template(template.source, extra: HeraldConfig.Templates.extraPlaceholders(name)) == template, "\(template.source)")
            }
        }
    }

    @Test func readsEveryKey() throws {
        let config = try load("""
            profile:
              name: "Alice Smith"
              address: "12 Elm St"
            defaults:
              lead: 10m
              urgency: critical
            templates:
              headsUp:
                summary: "Soon: {minutes} min"
            spool: ~/spool
            log:
              level: debug
            """, env: ["HOME": "/home/alice"])
        #expect(config.profile == .init(name: "Alice Smith", address: "12 Elm St"))
        #expect(config.lead == .minutes(10))
        #expect(config.urgency == .critical)
        #expect(config.templates["headsUp"].summary.source == "Soon: {minutes} min")
        #expect(config.templates["arrival"] == HeraldConfig().templates["arrival"])
        #expect(config.spool == "/home/alice/spool")
        #expect(config.logLevel == .debug)
    }

    @Test func aCalendarTemplateTakesItsOwnPlaceholders() throws {
        // {when}, {start} and {location} are the calendar kind's: its template may use them.
        let config = try load("templates:\n  calendar:\n    summary: \"{title} {when}\"\n    body: \"{start} at {location}\"\n")
        #expect(config.templates["calendar"].summary.source == "{title} {when}")
        #expect(config.templates["calendar"].body.source == "{start} at {location}")
    }

    @Test func environmentOverridesTheFile() throws {
        let config = try load("profile:\n  name: File Name\n", env: ["HERALD_PROFILE_NAME": "Env Name", "HERALD_DEFAULTS_LEAD": "1h",
                                                                          "HERALD_TEMPLATES_ARRIVAL_BODY": "{name}!"])
        #expect(config.profile.name == "Env Name")
        #expect(config.lead == .hours1)
        #expect(config.templates["arrival"].body.source == "{name}!")
    }

    @Test(arguments: [
        ("profile:\n  nmae: x\n", "unknown key 'profile.nmae' (line 2)"),
        ("defaults:\n  lead: soon\n", "key 'defaults.lead': \"soon\" is not a time span: expected a number at 'soon'"),
        ("defaults:\n  urgency: high\n", "key 'defaults.urgency': \"high\" is not one of low, normal, critical"),
        ("templates:\n  arrival:\n    body: \"{nam}\"\n", "key 'templates.arrival.body': unknown placeholder '{nam}'"),
        // A kind's own placeholder is for its templates alone.
        ("templates:\n  reminder:\n    summary: \"{when}\"\n", "key 'templates.reminder.summary': unknown placeholder '{when}'"),
        ("profile: Alice\n", "key 'profile' (line 1): must be a mapping"),
        ("spool: relative/dir\n", "key 'spool': \"relative/dir\" is not an absolute path"),
        ("- a\n- b\n", "line 1: the top level must be a mapping of keys"),
        ("profile: [unclosed\n", "line 1: '[' starts a YAML construct Herald's configuration does not use; quote the value"),
        ("profile:\n  name: Alice\n  - x\n", "line 3: lists are not used in Herald's configuration"),
        ("profile:\n\tname: Alice\n", "line 2: tabs cannot indent YAML; use spaces"),
        ("profile:\n  name: Alice\n  name: Bob\n", "line 3: key 'name' appears twice"),
        ("popups:\n  snoozeChoices: 5m, soon\n", "key 'popups.snoozeChoices': \"soon\" is not a time span of 1s or more"),
        ("popups:\n  snoozeChoices: 1m, 2m, 3m, 4m, 5m\n", "at most 4 snooze choices fit on a popup"),
        ("popups:\n  maxRepeats: -1\n", "key 'popups.maxRepeats': \"-1\" is not a whole number from 0 to 1000"),
        ("popups:\n  expire:\n    reminder: forever\n", "key 'popups.expire.reminder': \"forever\" is not never, default or a time span"),
        ("popups:\n  expire:\n    timers: never\n", "unknown key 'popups.expire.timers' (line 3)"),
        ("popups:\n  sound:\n    timer: bell ring\n", "key 'popups.sound.timer': \"bell ring\" is not a sound-theme name"),
        ("quietHours: 22-07\n", "key 'quietHours': \"22-07\" is not a daily window such as 22:00-07:00"),
        ("habits:\n  weekStart: mo\n", "key 'habits.weekStart': \"mo\" is not a weekday (monday ... sunday)"),
        ("habits:\n  weekStart: someday\n", "key 'habits.weekStart': \"someday\" is not a weekday (monday ... sunday)"),
        ("calendars:\n  sources: calendars/personal\n", "key 'calendars.sources': \"calendars/personal\" is not an absolute path (or ~/...)"),
        ("calendars:\n  sources: /c/a\n  writeBack: /c/b\n", "key 'calendars.writeBack': \"/c/b\" is not one of calendars.sources"),
        ("calendars:\n  writeBack: all\n", "key 'calendars.writeBack': there are no calendars.sources to write back to"),
        ("calendars:\n  sources: /c/a\n  wake: /c/b\n", "key 'calendars.wake': \"/c/b\" is not one of calendars.sources"),
        ("sync:\n  calendar: calendars/personal\n", "key 'sync.calendar': \"calendars/personal\" is not an absolute path (or ~/...)"),
        ("sync:\n  calendar: /c/me.ics\n", "key 'sync.calendar': \"/c/me.ics\" is a file; sync.calendar is a vdir collection"),
        ("sync:\n  default: sync\n", "key 'sync.default': 'sync' needs sync.calendar, the collection to sync to"),
        ("sync:\n  calendar: /c/me\n  default: always\n", "key 'sync.default': \"always\" is not local or sync"),
    ])
    func badFilesAreRefusedNamingFileKeyAndReason(yaml: String, expected: String) {
        do {
            _ = try load(yaml)
            Issue.record("accepted a bad config")
        } catch {
            #expect(error.description.contains(dir.path + "/config.yaml"))
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    @Test func calendarSourcesAndWriteBackAreRead() throws {
        #expect(try load(nil).calendars.isEmpty)
        let some = try load("calendars:\n  sources: ~/.calendars/personal/, /srv/work.ics\n  writeBack: ~/.calendars/personal\n",
                            env: ["HOME": "/home/ada"])
        #expect(some.calendars == [.init(path: "/home/ada/.calendars/personal", writeBack: true), .init(path: "/srv/work.ics")])
        #expect(try load("calendars:\n  sources: /a, /b\n  writeBack: all\n").calendars.allSatisfy(\.writeBack))
        #expect(try load("calendars:\n  sources: /a\n  writeBack: none\n").calendars == [.init(path: "/a")])
    }

    /// The synced collection is a calendar source with write-back, listed or not.
    @Test func theSyncedCalendarIsASourceThatWritesBack() throws {
        let plain = try load(nil)
        #expect(plain.syncCalendar == nil && !plain.syncByDefault)
        let synced = try load("sync:\n  calendar: ~/.calendars/personal/\n  default: sync\n", env: ["HOME": "/home/ada"])
        #expect(synced.syncCalendar == "/home/ada/.calendars/personal" && synced.syncByDefault)
        #expect(synced.calendars == [.init(path: "/home/ada/.calendars/personal", writeBack: true)])
        let listed = try load("calendars:\n  sources: /c/work, /c/me\nsync:\n  calendar: /c/me\n")
        #expect(listed.calendars == [.init(path: "/c/work"), .init(path: "/c/me", writeBack: true)] && !listed.syncByDefault)
    }

    @Test func theWeekStartIsReadFromAWeekdayName() throws {
        #expect(try load(nil).weekStart == 0)
        #expect(try load("habits:\n  weekStart: sunday\n").weekStart == 6)
        #expect(try load("habits:\n  weekStart: Sat\n").weekStart == 5)
    }

    @Test func popupKeysAndQuietHoursAreRead() throws {
        let config = try load("""
            popups:
              snoozeChoices: 10m, 2h, 1d
              maxRepeats: 3
              summaryAfter: 5
              expire:
                headsUp: 20s
                habit: default
              sound:
                habit: bell
                timer: /usr/share/sounds/freedesktop/stereo/complete.oga
                repeating: none
            quietHours: "23:30-06:15"
            """)
        #expect(config.popups.snoozeChoices == [.minutes(10), .minutes(120), .minutes(1440)])
        #expect(config.popups.maxRepeats == 3)
        #expect(config.popups.summaryAfter == 5)
        #expect(config.popups.expire[.headsUp] == .after(.seconds(20)))
        #expect(config.popups.expire[.habit] == .serverDefault)
        #expect(config.popups.expire[.reminder] == .never)
        #expect(config.popups.sound[.habit] == .themed("bell"))
        #expect(config.popups.sound[.timer] == .file("/usr/share/sounds/freedesktop/stereo/complete.oga"))
        #expect(config.popups.repeatingSound == nil)
        #expect(config.quietHours?.description == "23:30-06:15")
        #expect(try load("popups:\n  snoozeChoices: none\n").popups.snoozeChoices.isEmpty)
        #expect(try load(nil, env: ["HERALD_QUIET_HOURS": "22:00-07:00"]).quietHours == QuietHours(start: 1320, end: 420))
    }

    /// config/config.yaml documents every key with its default.
    @Test func theExampleConfigHoldsTheDefaults() throws {
        let path = String(#filePath).components(separatedBy: "/Tests/")[0] + "/config/config.yaml"
        var config = try ConfigLoader.load(path: path, explicit: true, environment: Environment([:]))
        config.profile = HeraldConfig().profile
        #expect(config == HeraldConfig())
    }

    @Test func badEnvironmentValuesNameTheVariable() {
        #expect(throws: ConfigError("environment variable HERALD_DEFAULTS_LEAD: \"-1m\" is not a time span: it is negative")) {
            _ = try load(nil, env: ["HERALD_DEFAULTS_LEAD": "-1m"])
        }
    }

    @Test func anExplicitFileMustExist() {
        #expect(throws: ConfigError("cannot read config '/nonexistent/herald.yaml': no such file")) {
            _ = try ConfigLoader.load(path: "/nonexistent/herald.yaml", explicit: true, environment: [:])
        }
    }

    @Test func theSectionsAreEveryKeysPrefix() {
        var prefixes = Set<String>()
        for key in ConfigLoader.keys {
            var parts = key.split(separator: ".")
            while parts.count > 1 { parts.removeLast(); prefixes.insert(parts.joined(separator: ".")) }
        }
        #expect(Set(ConfigLoader.sections) == prefixes)
        #expect(ConfigLoader.sections.count == prefixes.count)
    }

    @Test func environmentNamesSplitCamelCaseWords() {
        #expect(ConfigLoader.environmentName(for: "templates.headsUp.summary") == "HERALD_TEMPLATES_HEADS_UP_SUMMARY")
        #expect(ConfigLoader.environmentName(for: "spool") == "HERALD_SPOOL")
        #expect(ConfigLoader.environmentName(for: "catchUp.grace") == "HERALD_CATCH_UP_GRACE")
        #expect(ConfigLoader.environmentName(for: "popups.expire.headsUp") == "HERALD_POPUPS_EXPIRE_HEADS_UP")
    }

    /// A value for every key, each unlike its default.
    static let everyVariable: [String: String] = {
        var values: [String: String] = [
            "profile.name": "Env Name", "profile.address": "1 Env Road",
            "defaults.lead": "20m", "defaults.urgency": "low", "defaults.snooze": "7m",
            "calendars.sources": "/env/cal", "calendars.writeBack": "all", "calendars.wake": "/env/cal", "calendars.limit": "77", "sync.calendar": "~/env-synced", "sync.default": "sync",
            "spool": "/env/spool", "log.level": "debug", "catchUp.grace": "2h", "limits.retention": "30d", "limits.jobs": "5",
            "popups.snoozeChoices": "3m", "popups.maxRepeats": "2", "popups.summaryAfter": "4",
            "quietHours": "21:00-06:00", "quietWithDesktop": "false", "habits.weekStart": "sunday",
            "alarms.snooze": "4m", "alarms.ringFor": "3m", "alarms.autoSnooze": "1", "alarms.wakeAhead": "2m",
            "alarms.duringQuiet": "hold", "alarms.wake": "alarm, reminder", "commands": "off", "commands.enabled": "off", "commands.maxOutput": "2M",
        ]
        for key in ConfigLoader.keys where key.hasPrefix("templates.") { values[key] = "env " + key }
        for key in ConfigLoader.keys where key.hasPrefix("popups.expire.") { values[key] = "10s" }
        for key in ConfigLoader.keys where key.hasPrefix("popups.sound.") { values[key] = "bell" }
        var variables: [String: String] = ["HOME": "/home/ada"]
        for key in ConfigLoader.keys { variables[ConfigLoader.environmentName(for: key)] = values[key]! }
        return variables
    }()

    /// One lookup with a file and without: every key's variable wins over the file, and gives
    /// the same configuration whether a file exists or not.
    @Test func everyVariableActsAlikeWithAndWithoutAFile() throws {
        let example = String(#filePath).components(separatedBy: "/Tests/")[0] + "/config/config.yaml"
        let alone = try load(nil, env: Self.everyVariable)
        let overFile = try ConfigLoader.load(path: example, explicit: true, environment: Environment(Self.everyVariable))
        #expect(alone == overFile)
        #expect(alone.profile == .init(name: "Env Name", address: "1 Env Road"))
        #expect(alone.popups.expire[.arrival] == .after(.seconds(10)))
        #expect(alone.templates["headsUp"].body.source == "env templates.headsUp.body")
        #expect(alone.calendars == [.init(path: "/env/cal", writeBack: true, wake: true), .init(path: "/home/ada/env-synced", writeBack: true)])
        #expect(alone.syncCalendar == "/home/ada/env-synced" && alone.syncByDefault)
        #expect(alone.alarms.snooze == .minutes(4) && alone.alarms.ringFor == .minutes(3) && alone.alarms.autoSnooze == 1)
        #expect(alone.alarms.wakeAhead == .minutes(2) && !alone.alarms.ringsWhenQuiet && alone.alarms.wakeKinds == [.alarm, .reminder])
        #expect(alone != HeraldConfig())
    }

    @Test func aBadVariableIsNamedAlikeWithAndWithoutAFile() {
        let expected = ConfigError("environment variable HERALD_POPUPS_MAX_REPEATS: \"many\" is not a whole number from 0 to 1000")
        #expect(throws: expected) { _ = try load(nil, env: ["HERALD_POPUPS_MAX_REPEATS": "many"]) }
        #expect(throws: expected) { _ = try load("popups:\n  maxRepeats: 3\n", env: ["HERALD_POPUPS_MAX_REPEATS": "many"]) }
    }

    /// An empty variable is a value (an empty profile name clears the file's), with a file or not.
    @Test func anEmptyVariableIsAValue() throws {
        #expect(try load("profile:\n  name: Ann\n", env: ["HERALD_PROFILE_NAME": ""]).profile.name == nil)
        #expect(try load(nil, env: ["HERALD_PROFILE_NAME": ""]).profile.name == nil)
    }

    @Test func aLinkedFileIsFollowedAndAnUnreadableOneNamed() throws {
        dir.write("real.yaml", "profile:\n  name: Linked\n")
        symlink(dir.path + "/real.yaml", dir.path + "/config.yaml")
        #expect(try ConfigLoader.load(path: dir.path + "/config.yaml", explicit: true, environment: [:]).profile.name == "Linked")
        #expect(throws: ConfigError("cannot read config '\(dir.path)': is a directory")) {
            _ = try ConfigLoader.load(path: dir.path, explicit: true, environment: [:])
        }
    }
}

extension Span {
    static let hours1 = Span.minutes(60)
}
