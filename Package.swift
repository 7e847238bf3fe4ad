// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "rbs-host",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "rbs-host", targets: ["rbs-host"]),
        // The C ABI and the Swift SDK. A plugin depends on the SDK package (SDK/) instead, which resolves nothing else.
        .library(name: "CRBSPlugin", targets: ["CRBSPlugin"]),
        .library(name: "RBSPluginKit", targets: ["RBSPluginKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // `rbs-host serve` only (RBSServer): HTTP, metrics. Without Hummingbird's default traits (swift-configuration).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // `serve --tls-cert/--tls-key` (the certificate and key checked at start) and the slow-client deadlines on the
        // HTTP parts: both already in the graph through Hummingbird, named here because RBSServer imports them.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        // The PostgreSQL engine of the ledger (`--database postgres://…`): several hosts share one bank.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The C ABI: the only contract between the host and plugins. Its sources live in the SDK package (SDK/), which a
        // plugin depends on alone; the host builds the same files.
        .target(name: "CRBSPlugin", path: "SDK/Sources/CRBSPlugin"),
        // What a plugin worker needs from the kernel that Swift cannot call directly: Landlock (host-internal).
        .target(name: "CIsolation", path: "Sources/CIsolation"),
        // libffi, with accessors for its ffi_type globals.
        .systemLibrary(name: "CFFI", path: "Sources/CFFI", pkgConfig: "libffi"),
        // Money, ISO 4217 currencies, amount text by locale, and the banking identifiers (account key, INN, KPP, BIC,
        // IBAN, card numbers): the one implementation every other target uses.
        .target(name: "RBSMoney", exclude: ["Currency/iso4217-list-one.xml"]),
        // The expression language of show-if / valid-if / filter and input parsing; calls plugin functions via libffi.
        .target(name: "RBSExpressions", dependencies: ["CFFI", "RBSMoney"]),
        // Documents, signing keys, one-time codes, the hash-chained journal and the embedded core bank (SQLite).
        .target(name: "RBSLedger", dependencies: [
            "RBSMoney",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "GRDB", package: "GRDB.swift"),
            // The SQLite C API, for the hot statements of group commit bound without GRDB's value conversions.
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], exclude: ["Documents/CANONICAL.md"]),
        // The host's model: plugin loading and registry, ServiceLocator, atoms, forms and modules. No terminal code.
        .target(name: "RBSCore", dependencies: [
            "CRBSPlugin", "CIsolation", "RBSExpressions", "RBSLedger", "RBSMoney",
            .product(name: "Crypto", package: "swift-crypto"),
        ], resources: [.copy("Resources/ED807-extract.xml")]),
        // The Swift SDK for plugin authors. The host never links it.
        .target(name: "RBSPluginKit", dependencies: ["CRBSPlugin"], path: "SDK/Sources/RBSPluginKit"),
        // Line editing for the REPL: libedit bound at run time (only its runtime is on a fresh machine), plain input otherwise.
        .target(name: "RBSLineEditor"),
        // `rbs-host serve`: customers, the /api/v1 JSON protocol, server-sent events, metrics and the web client.
        .target(name: "RBSServer", dependencies: [
            "RBSCore", "RBSLedger", "RBSExpressions",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            // `serve --tls-cert --tls-key`: TLS over swift-nio-ssl (BoringSSL), which Hummingbird's TLS channel wraps.
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ], resources: [.copy("Web"), .copy("openapi.json")]),
        // Linked with the Swift runtime and Foundation inside (-static-stdlib): a start resolves no Swift symbols across
        // shared libraries, the most of what a short command such as `list` cost. A Swift plugin brings its own
        // libswiftCore.so (found through its RUNPATH; a worker lets it read exactly those files: LinkedLibraries).
        // The static Foundation's own libraries are named here (the Swift modules were compiled against the shared
        // Foundation, whose libraries name them instead); FoundationXML (the bank directory) needs the system's libxml2.
        .executableTarget(name: "rbs-host", dependencies: [
            "RBSCore", "RBSLineEditor", "RBSServer", "RBSMoney",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], linkerSettings: [.unsafeFlags(["-static-stdlib"])] + [
            "CoreFoundation", "FoundationEssentials", "FoundationInternationalization", "_FoundationICU",
            "_FoundationCShims", "_FoundationCollections", "_CFXMLInterface", "xml2",
        ].map { .linkedLibrary($0) }),
        .testTarget(name: "RBSMoneyTests", dependencies: ["RBSMoney"]),
        .testTarget(name: "RBSExpressionsTests", dependencies: ["RBSExpressions", "RBSMoney"]),
        .testTarget(name: "RBSLedgerTests", dependencies: ["RBSLedger", "RBSMoney"]),
        .testTarget(name: "RBSCoreTests", dependencies: ["RBSCore", "RBSMoney"]),
        .testTarget(name: "RBSHostTests", dependencies: ["RBSCore", "RBSLedger", "RBSMoney"]),
        .testTarget(name: "RBSLineEditorTests", dependencies: ["RBSLineEditor"]),
        .testTarget(name: "RBSServerTests", dependencies: [
            "RBSServer", "RBSCore", "RBSLedger", "RBSMoney",
            // The tests' own HTTP client (Support/TestHTTPClient.swift) on the NIO the server already builds:
            // Hummingbird's own test client would add AsyncHTTPClient, HTTP/2 and more to every clean build.
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
    ]
)

// The benchmark executable (`make bench`, `make bench-pg`: release builds in .build-release), absent from the debug
// build of `make build`, `make run` and `make test`, whose Makefile sets RBS_NO_BENCH (and the bench targets set it
// empty): no test runs it, and its module and 90 MB link were CPU the clean-clone CI, CPU-bound on 2 cores, spent for
// nothing. The debug targets share the one package, since a package with other targets rebuilds every module with
// these flags (a `make run` after `make test` took 263 s of it when only `make test` left rbs-bench out).
if (Context.environment["RBS_NO_BENCH"] ?? "").isEmpty {
    package.products.append(.executable(name: "rbs-bench", targets: ["rbs-bench"]))
    package.targets += [
        // rbs-bench's baselines in C (-O2), out of the Swift optimiser's sight: a direct call, a bare ffi_call, a sink,
        // and the bare storage floor of group commit on the system's libsqlite3 (the one GRDBSQLite links for the ledger).
        .target(name: "CBenchFloor", cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("ffi"), .linkedLibrary("sqlite3")]),
        .executableTarget(name: "rbs-bench", dependencies: ["CBenchFloor", "RBSCore", "RBSExpressions", "RBSLedger", "RBSMoney"]),
    ]
}

// The libFuzzer targets (`make fuzz`; Fuzz/README in README.md's "Fuzzing"), one per parser that reads untrusted bytes.
// They exist only when RBS_FUZZ is set, which `make fuzz` does for its own build folder (.build-fuzz, compiled with
// -sanitize=fuzzer,address): the normal build and `swift build --build-tests` neither compile nor link them. Each is
// an executable whose main hands the process to libFuzzer (FuzzSupport.runFuzzer), and reads internals of the parser's
// module through @testable import (debug builds only, as the fuzz build is).
if Context.environment["RBS_FUZZ"] != nil {
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/Sources/FuzzSupport"))
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzExpressions", ["RBSExpressions", "RBSMoney"]),
        ("FuzzDescriptors", ["RBSCore", "RBSExpressions", "CRBSPlugin"]),
        ("FuzzWorkerWire", ["RBSCore", "RBSLedger"]),
        ("FuzzPasskeyCBOR", ["RBSLedger"]),
        ("FuzzED807", ["RBSCore"]),
        ("FuzzCanonicalDocument", ["RBSLedger"]),
    ]
    for target in fuzzTargets {
        package.targets.append(.executableTarget(name: target.name, dependencies: ["FuzzSupport"] + target.dependencies,
                                                 path: "Fuzz/Sources/\(target.name)"))
    }
}

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
    ]
}
