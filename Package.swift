// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "heraldd", targets: ["heraldd"]),
        .executable(name: "herald", targets: ["herald"]),
        .executable(name: "herald-fuzz", targets: ["herald-fuzz"]),
        .executable(name: "herald-bench", targets: ["herald-bench"]),
        .executable(name: "herald-loop-db", targets: ["herald-loop-db"]),
        .executable(name: "herald-wake", targets: ["herald-wake"]),
        .executable(name: "herald-runner", targets: ["herald-runner"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // HeapModule alone: the scheduler's due-time index and JobTable.soonest (BENCHMARKS.md,
        // "One of each").
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibNotify",
            pkgConfig: "libnotify",
            providers: [.apt(["libnotify-dev"])]
        ),
        .systemLibrary(
            name: "CCanberra",
            pkgConfig: "libcanberra",
            providers: [.apt(["libcanberra-dev"])]
        ),
        // The pure core: job model, kinds, schedules, zone arithmetic on rules passed in, rendering,
        // codecs over bytes and the engine. No file, clock, random or logging call: nothing here
        // to import them with (Tests/HeraldCoreTests/PurityTests.swift checks the rest).
        .target(
            name: "HeraldModel",
            dependencies: [.product(name: "HeapModule", package: "swift-collections")]
        ),
        // The I/O around it: spool, workers, wire formats on sockets, zone files, calendar files,
        // configuration files, processes. Re-exports HeraldModel.
        .target(
            name: "HeraldCore",
            dependencies: [
                "HeraldModel", "CHeraldSys",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // glibc's checked string and I/O functions where sizes are known (-D_FORTIFY_SOURCE=2 needs
        // the optimiser, so release only; lintian's hardening-no-fortify-functions).
        .target(name: "CHeraldSys", cSettings: [.define("_FORTIFY_SOURCE", to: "2", .when(configuration: .release))]),
        // argc/argv for CommandLine without the standard library's start-up scan (herald_argv.c).
        .target(name: "CHeraldArgv"),
        .target(
            name: "HeraldNotify",
            dependencies: ["CLibNotify", "CCanberra", "HeraldCore", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "heraldd",
            dependencies: [
                "HeraldCore", "HeraldNotify", "CHeraldSys", "CHeraldArgv",
                .product(name: "Logging", package: "swift-log"),
            ],
            // Release: the code heraldd runs laid out together (linker/heraldd.order), so the
            // resident daemon maps a megabyte of it, not half its text (BENCHMARKS.md, "Memory
            // per pending job").
            // Bound at load: full RELRO with BIND_NOW.
            linkerSettings: [.unsafeFlags(["-use-ld=lld",
                                           "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/linker/heraldd.order",
                                           "-Xlinker", "--no-warn-symbol-ordering",
                                           "-Xlinker", "-z", "-Xlinker", "now"],
                                          .when(configuration: .release))]
        ),
        .executableTarget(
            name: "herald",
            dependencies: [
                "HeraldCore", "CHeraldArgv",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // Release: fully static, laid out in linker/herald.order, for a fast `herald remind`
            // (BENCHMARKS.md, "CLI start"); lld needs the two Foundation helper libraries.
            linkerSettings: [.unsafeFlags(["-static-executable", "-Xlinker", "--eh-frame-hdr",
                                           "-use-ld=lld",
                                           "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/linker/herald.order",
                                           "-Xlinker", "--no-warn-symbol-ordering",
                                           "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-l_FoundationCShims"],
                                          .when(configuration: .release))]
        ),
        // Reads Loop Habit Tracker backups for `herald habit import`: C on the system's libsqlite3
        // (BENCHMARKS.md, "Installed size").
        .executableTarget(name: "herald-loop-db",
                          linkerSettings: [.linkedLibrary("sqlite3"),
                                           .unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"], .when(configuration: .release))]),
        // Holds the wake-from-suspend timer for heraldd where only it has CAP_WAKE_ALARM (README, "Alarms").
        .executableTarget(name: "herald-wake",
                          linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"], .when(configuration: .release))]),
        // Supervises one run of a run job: its process group, capped log, timeout and result (README, "Running commands").
        .executableTarget(name: "herald-runner",
                          linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"], .when(configuration: .release))]),
        .target(name: "HeraldFuzz", dependencies: ["HeraldCore"]),
        .executableTarget(name: "herald-fuzz", dependencies: ["HeraldCore", "HeraldFuzz"]),
        // The private bus, notify socket and process helpers of herald-bench and the end-to-end tests.
        .target(name: "HeraldTestSupport", dependencies: ["HeraldCore"]),
        .executableTarget(
            name: "herald-bench",
            dependencies: [
                "CLibNotify", "HeraldCore", "HeraldTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .testTarget(name: "HeraldCoreTests", dependencies: ["HeraldCore", "HeraldModel", "HeraldFuzz", "CHeraldArgv"],
                    exclude: ["Fixtures"]),  // read by path, see CalendarSystemdTests
        .testTarget(
            name: "HeraldEndToEndTests",
            dependencies: ["HeraldCore", "HeraldModel", "HeraldFuzz", "HeraldTestSupport", "heraldd", "herald", "herald-bench"],
            exclude: ["Support/mockctl.py"]
        ),
    ]
)
