// swift-tools-version: 6.1
// The rbs-host plugin SDK: the C ABI headers (CRBSPlugin) and the Swift SDK (RBSPluginKit). A plugin depends on this
// package alone; it resolves nothing else. The host's own Package.swift builds the same sources (one copy of each).
import PackageDescription

let package = Package(
    name: "rbs-sdk",
    products: [
        .library(name: "CRBSPlugin", targets: ["CRBSPlugin"]),
        .library(name: "RBSPluginKit", targets: ["RBSPluginKit"]),
    ],
    targets: [
        // The C ABI: the only contract between the host and plugins.
        .target(name: "CRBSPlugin"),
        // The Swift SDK for plugin authors. The host never links it.
        .target(name: "RBSPluginKit", dependencies: ["CRBSPlugin"],
                swiftSettings: [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]),
    ]
)
