import Foundation
import Testing
@testable import RBSCore

/// What a confined worker is allowed to read besides the system's folders: the libraries the plugin links from
/// elsewhere, found as the dynamic linker finds them, and nothing that is not an ELF library.
@Suite
struct LinkedLibrariesTests {
    static let system = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/proc", "/sys"]

    /// Compiles `source` into a shared object `output` with the extra `flags`.
    private func compile(_ source: String, to output: URL, _ flags: [String] = []) throws {
        let file = output.deletingPathExtension().appendingPathExtension("c")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let (status, text) = Fixtures.run("/usr/bin/env", ["cc", "-shared", "-fPIC", "-o", output.path, file.path] + flags)
        try #require(status == 0, "\(text)")
    }

    @Test("a library found through RUNPATH ($ORIGIN too) is named with what it needs in turn; system libraries are not")
    func followsRunpath() throws {
        let folder = Fixtures.temporaryDirectory("linked")
        let deps = folder.appendingPathComponent("deps")
        try FileManager.default.createDirectory(at: deps, withIntermediateDirectories: true)
        try compile("int inner(void) { return 1; }", to: deps.appendingPathComponent("libinner.so"))
        try compile("int inner(void); int outer(void) { return inner() + 1; }", to: deps.appendingPathComponent("libouter.so"),
                    ["-L", deps.path, "-linner", "-Wl,-rpath,$ORIGIN", "-Wl,--enable-new-dtags"])
        let plugin = folder.appendingPathComponent("plugin.so")
        try compile("int outer(void); int entry(void) { return outer(); }", to: plugin,
                    ["-L", deps.path, "-louter", "-Wl,-rpath,$ORIGIN/deps", "-Wl,--enable-new-dtags"])

        let files = LinkedLibraries(of: plugin.path, systemFolders: Self.system, libraryPath: nil).files
        #expect(files == [deps.appendingPathComponent("libouter.so").path, deps.appendingPathComponent("libinner.so").path])
    }

    @Test("a file that is not an ELF library is never named, even where RUNPATH points")
    func namesOnlyLibraries() throws {
        let folder = Fixtures.temporaryDirectory("linked-secret")
        let deps = folder.appendingPathComponent("deps")
        try FileManager.default.createDirectory(at: deps, withIntermediateDirectories: true)
        try compile("int outer(void) { return 1; }", to: deps.appendingPathComponent("libouter.so"))
        let plugin = folder.appendingPathComponent("plugin.so")
        try compile("int outer(void); int entry(void) { return outer(); }", to: plugin,
                    ["-L", deps.path, "-louter", "-Wl,-rpath,\(deps.path)"])
        // The library replaced by a secret of the same name after linking: not an ELF file, so not readable.
        try Data("a secret".utf8).write(to: deps.appendingPathComponent("libouter.so"))
        #expect(LinkedLibraries(of: plugin.path, systemFolders: Self.system, libraryPath: nil).files.isEmpty)
    }

    @Test("the Swift example plugin links the toolchain's Swift runtime: named where ldd finds it, outside the system")
    func swiftPluginNeedsItsRuntime() throws {
        let plugin = Fixtures.plugins.appendingPathComponent("pay-quick.so")
        try #require(FileManager.default.fileExists(atPath: plugin.path), "build the example plugins first (make plugins)")
        let (status, text) = Fixtures.run("/usr/bin/env", ["ldd", plugin.path])
        try #require(status == 0, "\(text)")
        let runtime = text.split(separator: "\n").first { $0.contains("libswiftCore.so =>") }
            .flatMap { $0.split(separator: " ").dropFirst(2).first }.map(String.init)
        let found = try #require(runtime, "\(text)")
        let files = LinkedLibraries(of: plugin.path, systemFolders: Self.system, libraryPath: nil).files
        if Self.system.contains(where: { found.hasPrefix($0 + "/") }) {
            #expect(!files.contains(found))  // a toolchain under /usr is readable anyway
        } else {
            #expect(files.contains(found), "\(files)")
        }
    }
}
