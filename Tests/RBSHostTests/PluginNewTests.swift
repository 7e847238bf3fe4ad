import Foundation
import Testing

/// `rbs-host plugin new NAME --lang …`: each skeleton builds with `make`, passes `plugin check`, and lists one operation.
@Suite("plugin new", .serialized)
struct PluginNewTests {
    private func roundTrip(_ language: String, timeout: TimeInterval) throws {
        let sandbox = try HostSandbox()
        let folder = try CheckFixtures.folder(in: sandbox, "new")
        let name = "my-\(language)-op"
        let made = try sandbox.host(["plugin", "new", name, "--lang", language, "--dir", folder.path])
        try #require(made.status == 0, "plugin new: \(made)")
        let skeleton = folder.appendingPathComponent(name)
        let built = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["make", "-C", skeleton.path],
                                   environment: ProcessInfo.processInfo.environment, timeout: timeout)
        try #require(built.status == 0, "make: \(built)")
        let plugin = skeleton.appendingPathComponent("\(name).so")
        let checked = try sandbox.host(["plugin", "check", plugin.path])
        #expect(checked.status == 0, "plugin check: \(checked)")
        #expect(!checked.stdout.contains("FAIL"))
        // Only the new plugin in its folder: move the build products aside.
        let plugins = try CheckFixtures.folder(in: sandbox, "plugins")
        try FileManager.default.copyItem(at: plugin, to: plugins.appendingPathComponent("\(name).so"))
        sandbox.plugins = plugins
        let listed = try sandbox.host(["list", "--json"])
        #expect(listed.status == 0, "\(listed)")
        let array = try #require(try jsonObject(listed.stdout) as? [[String: Any]])
        #expect(array.count == 1)
        #expect(array.first?["id"] as? String == "example.\(name)")
        #expect(array.first?["plugin"] as? String == "com.example.\(name)")
    }

    @Test("C") func c() throws { try roundTrip("c", timeout: 60) }
    @Test("Rust (cargo build --offline --release)") func rust() throws { try roundTrip("rust", timeout: 300) }
    @Test("Swift (a package depending on this checkout)") func swift() throws { try roundTrip("swift", timeout: 600) }

    @Test("a bad name or language is refused")
    func refused() throws {
        let sandbox = try HostSandbox()
        let folder = try CheckFixtures.folder(in: sandbox, "new")
        #expect(try sandbox.host(["plugin", "new", "Bad_Name", "--lang", "c", "--dir", folder.path]).status != 0)
        #expect(try sandbox.host(["plugin", "new", "ok", "--lang", "cobol", "--dir", folder.path]).status != 0)
    }
}
