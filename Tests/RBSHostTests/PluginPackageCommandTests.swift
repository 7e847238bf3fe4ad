import Foundation
import Testing

/// `rbs-host plugin pack|install|uninstall|history` as a person runs them: what each prints, its exit status, the
/// JSON keys of `history --json`, and a corrupted package refused in both languages.
@Suite("Plugin packages from the command line")
struct PluginPackageCommandTests {
    #if arch(x86_64)
    static let architecture = "x86_64"
    #else
    static let architecture = "aarch64"
    #endif

    @Test("pack → install (refused until the key is trusted) → list → history --json → a damaged copy refused → uninstall")
    func packInstallHistoryUninstall() throws {
        let sandbox = try HostSandbox()
        let folder = try CheckFixtures.folder(in: sandbox, "plugins")
        sandbox.plugins = folder
        func host(_ arguments: [String]) throws -> ProcessResult { try sandbox.host(arguments, environment: ["RBS_DEV": nil]) }
        let key = sandbox.data.appendingPathComponent("publisher.key").path
        try #require(try host(["plugin", "keygen", key, "--name", "Example Bank"]).status == 0)
        let publicKey = try String(contentsOfFile: key + ".pub", encoding: .utf8).split(separator: " ").first.map(String.init) ?? ""
        let changes = sandbox.data.appendingPathComponent("CHANGES").path
        try "1.0.0: first release\n".write(toFile: changes, atomically: true, encoding: .utf8)
        let package = sandbox.data.appendingPathComponent("transfers.rbspkg").path

        let packed = try host(["plugin", "pack", "--so", "\(Self.architecture)=\(Repo.plugins.appendingPathComponent("transfer-own.so").path)",
                               "--key", key, "--title", "en=Own transfer", "--title", "ru=Перевод между своими",
                               "--description", "en=Between your accounts", "--description", "ru=Между вашими счетами",
                               "--changelog", changes, "--abi-min", "1.0", "--abi-below", "2.0", "-o", package])
        #expect(packed.status == 0, "\(packed)")
        #expect(packed.stdout == "packed ru.example.transfers 1.0.0 (\(Self.architecture); texts: en, ru; host ABI 1.0 to below 2.0) → \(package), signed with key \(publicKey)\n")

        let untrusted = try host(["plugin", "install", package])
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr == "error: \(package) is signed by an untrusted key \(publicKey) — if you trust its publisher, run `rbs-host trust add \(publicKey) --ids ID-PREFIX.*`, then install again (--dev does not change what install accepts)\n")
        try #require(try host(["trust", "add", key + ".pub", "--ids", "ru.example.*"]).status == 0)

        let installed = try host(["plugin", "install", package])
        let file = folder.appendingPathComponent("ru.example.transfers.so").path
        #expect(installed.status == 0 && installed.stdout == "installed ru.example.transfers 1.0.0 as \(file)\n", "\(installed)")
        let listed = try host(["list", "--json"])
        #expect(((try? jsonObject(listed.stdout)) as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["transfer.own"], "\(listed)")

        let history = try host(["plugin", "history", "--json"])
        let entries = try #require((try? jsonObject(history.stdout)) as? [[String: Any]], "\(history)")
        #expect(entries.count == 1)
        #expect(keys(entries.first) == ["action", "by", "file", "id", "package", "publisher", "publisherKey", "time", "version"])
        #expect(entries.first?["action"] as? String == "install" && entries.first?["publisherKey"] as? String == publicKey)
        #expect(entries.first?["publisher"] as? String == "Example Bank" && entries.first?["file"] as? String == file)

        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: package)))
        bytes[bytes.count / 2] ^= 0x01
        let damaged = sandbox.data.appendingPathComponent("damaged.rbspkg").path
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let refused = try host(["plugin", "install", damaged, "--lang", "ru"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "ошибка: \(damaged): его содержимое — не то, что было подписано (изменён или повреждён после подписи) — не устанавливайте его; скопируйте или скачайте пакет заново\n")

        let removed = try host(["plugin", "uninstall", "ru.example.transfers"])
        #expect(removed.stdout == "uninstalled ru.example.transfers 1.0.0: removed \(file) and its signature\n", "\(removed)")
        let after = try host(["list", "--json"])
        #expect(((try? jsonObject(after.stdout)) as? [Any])?.count == 0, "\(after)")
        let again = try host(["plugin", "uninstall", "ru.example.transfers"])
        #expect(again.status == 1)
        #expect(again.stderr == "error: no plugin 'ru.example.transfers' is installed in \(folder.path) (no signed file there names it) — see `rbs-host plugin history` and `rbs-host plugins`\n")
        let actions = ((try? jsonObject(try host(["plugin", "history", "--json"]).stdout)) as? [[String: Any]])?.compactMap { $0["action"] as? String }
        #expect(actions == ["install", "uninstall"])
    }
}
