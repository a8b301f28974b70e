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
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // No traits: the JSON and YAML snapshots bring in all of Foundation; Herald reads its
        // YAML with its own small snapshot (HeraldCore/Config/ConfigYAML.swift).
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibNotify",
            pkgConfig: "libnotify",
            providers: [.apt(["libnotify-dev"])]
        ),
        .target(
            name: "HeraldCore",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(name: "CHeraldSys"),
        // argc/argv for CommandLine without the standard library's /proc/self/maps scan at
        // start-up (see herald_argv.c); both programs link it.
        .target(name: "CHeraldArgv"),
        .target(
            name: "HeraldNotify",
            dependencies: ["CLibNotify", "HeraldCore", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "heraldd",
            dependencies: [
                "HeraldCore", "HeraldNotify", "CHeraldSys", "CHeraldArgv",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "herald",
            dependencies: [
                "HeraldCore", "CHeraldArgv",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The CLI needs no shared library: fully static, it starts about twice as fast
            // (no dynamic loading or relocation of libstdc++ and friends). --eh-frame-hdr keeps
            // unwinding on the binary-search table instead of sorting every FDE at first use.
            // lld lays out the functions and data `herald remind` touches in the order of
            // linker/herald.order: together they fill a few pages instead of being spread over
            // 14 MB, so a run takes about half the page faults (`make release` compiles with
            // -function-sections, so each function can move on its own). Unlike gold, lld also reports
            // undefined symbols in code that --gc-sections drops, hence the two Foundation
            // helper libraries FoundationEssentials refers to.
            linkerSettings: [.unsafeFlags(["-static-executable", "-Xlinker", "--eh-frame-hdr",
                                           "-use-ld=lld",
                                           "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/linker/herald.order",
                                           "-Xlinker", "--no-warn-symbol-ordering",
                                           "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-l_FoundationCShims"],
                                          .when(configuration: .release))]
        ),
        .target(name: "HeraldFuzz", dependencies: ["HeraldCore"]),
        .executableTarget(name: "herald-fuzz", dependencies: ["HeraldFuzz"]),
        .executableTarget(
            name: "herald-bench",
            dependencies: [
                "CLibNotify", "HeraldCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .testTarget(name: "HeraldCoreTests", dependencies: ["HeraldCore", "HeraldFuzz", "CHeraldArgv"],
                    exclude: ["Fixtures"]),  // read by path, see CalendarSystemdTests
        .testTarget(
            name: "HeraldEndToEndTests",
            dependencies: ["HeraldCore", "HeraldFuzz", "heraldd", "herald", "herald-bench"],
            exclude: ["Support/mockctl.py"]
        ),
    ]
)
