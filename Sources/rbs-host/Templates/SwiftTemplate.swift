/// The Swift plugin skeleton: a package that depends on this checkout's RBSPluginKit by path, one operation, and a
/// Makefile that copies the built library to NAME.so.
enum SwiftTemplate {
    static func files(_ skeleton: PluginSkeleton) -> [(path: String, contents: String)] {
        let type = skeleton.typeName
        return [
            ("Package.swift", """
                // swift-tools-version: 6.1
                // A skeleton rbs-host plugin written with the Swift SDK (RBSPluginKit). Build: make.
                import Foundation
                import PackageDescription

                // The rbs-host checkout (override with RBS_SDK=/path/to/rbs-host). SwiftPM names a path dependency after
                // its folder, so the package identity is the folder's name.
                let hostPackage = Context.environment["RBS_SDK"] ?? "\(skeleton.sdk.path)"
                let hostIdentity = URL(fileURLWithPath: hostPackage).lastPathComponent

                let package = Package(
                    name: "\(skeleton.name)",
                    products: [
                        .library(name: "\(type)", type: .dynamic, targets: ["\(type)"]),
                    ],
                    dependencies: [
                        .package(path: hostPackage),
                    ],
                    targets: [
                        .target(name: "\(type)", dependencies: [.product(name: "RBSPluginKit", package: hostIdentity)],
                                swiftSettings: [.swiftLanguageMode(.v6)]),
                    ]
                )

                """),
            ("Sources/\(type)/\(type)Operation.swift", """
                import RBSPluginKit

                /// \(skeleton.operationID): one line per atom; the order of `atoms` is the order of the form.
                final class \(type)Operation: Operation, OperationDefinition {
                    static let id = "\(skeleton.operationID)"
                    static let title = "\(skeleton.title)"
                    static let category = "Examples"

                    let note = TextInputAtom(caption: "Note", length: 1...140)
                    let send = ButtonAtom(caption: "Send")

                    override var atoms: [Atom] { [note, send] }

                    override func document() throws(DocumentRefusal) -> [(key: String, value: String)] {
                        [("purpose", note.stringValue)]
                    }
                }

                @_cdecl("rbs_plugin_entry")
                public func rbsPluginEntry() -> UnsafeRawPointer? {
                    Plugin.entry(id: "\(skeleton.pluginID)", name: "\(skeleton.title)", version: "0.1.0", vendor: "Example",
                                 operations: [\(type)Operation.self])
                }

                """),
            ("Makefile", """
                # Builds \(skeleton.name).so with SwiftPM. `make` then `rbs-host plugin check \(skeleton.name).so`.
                SWIFT ?= swift

                \(skeleton.name).so: Package.swift $(wildcard Sources/\(type)/*.swift)
                \t$(SWIFT) build -c release
                \tcp .build/release/lib\(type).so $@

                clean:
                \trm -rf .build \(skeleton.name).so

                .PHONY: clean

                """),
            (".gitignore", ".build/\n*.so\n"),
        ]
    }
}
