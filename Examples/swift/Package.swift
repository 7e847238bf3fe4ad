// swift-tools-version: 6.1
// Example plugins written with the Swift SDK. Built separately from the host: `make plugins` (or
// `swift build -c release` here) and copy lib*.so into Plugins/.
import Foundation
import PackageDescription

// The rbs-host package is two folders up; SwiftPM names a path dependency after its folder.
let hostPackage = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent()
let hostIdentity = hostPackage.lastPathComponent

let package = Package(
    name: "rbs-example-plugins",
    products: [
        .library(name: "PayQuick", type: .dynamic, targets: ["PayQuick"]),
        .library(name: "PayTax", type: .dynamic, targets: ["PayTax"]),
    ],
    dependencies: [
        .package(path: hostPackage.path),
    ],
    targets: [
        .target(name: "PayQuick", dependencies: [.product(name: "RBSPluginKit", package: hostIdentity)]),
        .target(name: "PayTax", dependencies: [.product(name: "RBSPluginKit", package: hostIdentity)]),
    ]
)

for target in package.targets {
    target.swiftSettings = [.swiftLanguageMode(.v6)]
}
