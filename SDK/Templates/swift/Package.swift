// swift-tools-version: 6.1
// my-plugin: an rbs-host plugin written with the Swift SDK (RBSPluginKit). Build: make.
import PackageDescription

// Where the rbs-host SDK package is: the one place to change. `rbs-host plugin new` put a copy in rbs-sdk/ (commit it
// with the plugin, or replace it with a git submodule). A path is relative to this folder; to use an SDK published
// in a git repository instead, give its URL, and the version in rbsSDKVersion:
//     let rbsSDK = "https://git.example-bank.ru/rbs/rbs-sdk.git"
let rbsSDK = "rbs-sdk"
let rbsSDKVersion: Version = "1.0.0"

// The SDK resolves nothing else: it is the C headers (CRBSPlugin) and RBSPluginKit.
let isURL = rbsSDK.contains("://") || rbsSDK.hasPrefix("git@")
// SwiftPM names a package after the last part of its location ("rbs-sdk" for both examples above).
var rbsSDKName = String(rbsSDK.split(separator: "/").last ?? "rbs-sdk")
if rbsSDKName.hasSuffix(".git") { rbsSDKName = String(rbsSDKName.dropLast(4)) }

let package = Package(
    name: "my-plugin",
    products: [
        .library(name: "MyPlugin", type: .dynamic, targets: ["MyPlugin"]),
    ],
    dependencies: [
        isURL ? .package(url: rbsSDK, from: rbsSDKVersion) : .package(path: rbsSDK),
    ],
    targets: [
        .target(name: "MyPlugin", dependencies: [.product(name: "RBSPluginKit", package: rbsSDKName)],
                swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
