import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Create or show the signing key and the one-time code secret.",
        subcommands: [Init.self, Show.self, Code.self], defaultSubcommand: Show.self)

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init", abstract: "Create an Ed25519 signing key and a TOTP secret in the data directory.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "The name in the enrolment URI.") var name = ProcessInfo.processInfo.environment["USER"] ?? "user"
        @Flag(help: "Replace existing keys (documents signed with the old key still verify).") var force = false

        func run() throws {
            do {
                print(try KeysText.initialize(dataDirectory: global.paths.data, name: name, force: force))
            } catch {
                Terminal.error(String(describing: error))
                throw ExitCode.failure
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print the public key and key id.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            do {
                print(KeysText.identity(try KeyStore(dataDirectory: global.paths.data).load()))
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
        }
    }

    struct Code: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "code",
            abstract: "Print the current one-time code, as the authenticator app would (for development and scripts).",
            discussion: "Anyone who can read the data directory can do this: keep it private (it is created 0700).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Print the code this many 30-second steps ahead (a code is accepted once; the next step's is accepted too).")
        var ahead = 0

        func run() throws {
            do {
                let identity = try KeyStore(dataDirectory: global.paths.data).load()
                let time = HostClock.current.now.addingTimeInterval(Double(ahead) * Double(TOTP.period))
                print(TOTP.code(secret: identity.totpSecret, at: time))
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
        }
    }
}

enum KeysText {
    /// `keys init` (the command and the REPL's): creates the keys and, in a fresh data folder, the ledger too
    /// (the documented first start); returns the enrolment text.
    static func initialize(dataDirectory: URL, name: String, force: Bool) throws -> String {
        var created: String?
        if Ledger.isFresh(dataDirectory) {
            // The ledger first: once a key exists, only `init --force` may start a ledger here.
            let (ledger, creation) = try Ledger.create(dataDirectory: dataDirectory, clock: { HostClock.current.now })
            try ledger.close()
            created = creation.description
        }
        let enrolment = try KeyStore(dataDirectory: dataDirectory).initialize(name: name, force: force)
        return ([Self.enrolment(enrolment)] + [created].compactMap { $0 }).joined(separator: "\n")
    }

    static func enrolment(_ enrolment: Enrolment) -> String {
        """
        Key id:     \(enrolment.keyId)
        Public key: \(Hex.encode(enrolment.publicKey))
        Add this to your authenticator app (TOTP, SHA1, 6 digits, 30 s):
        \(enrolment.uri)
        """
    }

    static func identity(_ identity: SigningIdentity) -> String {
        """
        Name:       \(identity.name)
        Key id:     \(identity.keyId)
        Public key: \(Hex.encode(identity.publicKey.rawRepresentation))
        """
    }
}
