// swift-tools-version: 6.1
// Example plugins written with the Swift SDK. Built separately from the host: `make plugins` (or
// `swift build -c release` here) and copy lib*.so into Plugins/. They depend on the SDK package alone (SDK/: the C
// headers and RBSPluginKit), which resolves nothing else.
import PackageDescription

let package = Package(
    name: "rbs-example-plugins",
    products: [
        .library(name: "PayQuick", type: .dynamic, targets: ["PayQuick"]),
        .library(name: "PayTax", type: .dynamic, targets: ["PayTax"]),
        // A test plugin (RustBindingTests' Swift twin), never copied into Plugins/: every extension and service
        // reached through RBSPluginKit.
        .library(name: "ExtensionsCheck", type: .dynamic, targets: ["ExtensionsCheck"]),
    ],
    dependencies: [
        .package(path: "../../SDK"),
    ],
    targets: [
        .target(name: "PayQuick", dependencies: [.product(name: "RBSPluginKit", package: "SDK")]),
        .target(name: "PayTax", dependencies: [.product(name: "RBSPluginKit", package: "SDK")]),
        .target(name: "ExtensionsCheck", dependencies: [.product(name: "RBSPluginKit", package: "SDK")]),
    ]
)

for target in package.targets {
    target.swiftSettings = [.swiftLanguageMode(.v6)]
}
