import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Create or show the signing key and the one-time code secret.",
        subcommands: [Init.self, Show.self, Code.self, Respond.self], defaultSubcommand: Show.self)

    /// Runs `body`; a key, suite or method problem is printed as one `error:` line and exits 1.
    static func reporting(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error(String(describing: error))
            throw ExitCode.failure
        }
    }

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Create an Ed25519 signing key and the secret of the signing method (TOTP or OCRA) in the data directory.",
            discussion: """
                --method totp (the default): a 6-digit time-based code; NOT bound to the transaction.
                --method ocra: RFC 6287 challenge–response; the challenge is derived from the document, so the
                response answers that amount and payee only (dynamic linking). --json prints {suite, secret} for the
                authenticator (the secret as hex).
                """)
        @OptionGroup var global: GlobalOptions
        @Option(help: "The name in the enrolment URI.") var name = HostEnvironment.current.user ?? "user"
        @Option(help: "totp or ocra.") var method = "totp"
        @Option(help: "The OCRA suite (with --method ocra).") var suite = OCRASuite.hostDefault
        @Flag(help: "Replace existing keys (documents signed with the old key still verify).") var force = false
        @Flag(help: "Print the enrolment as JSON ({suite, secret, method, keyId}).") var json = false

        func validate() throws {
            // Passkeys belong to customers of `serve` (registered in the web client), not to the host's own key.
            guard let method = SigningMethod(rawValue: method), method != .passkey else {
                throw ValidationError("--method is totp or ocra, not \"\(self.method)\"")
            }
            if method == .totp, suite != OCRASuite.hostDefault { throw ValidationError("--suite goes with --method ocra") }
        }

        func run() throws {
            try KeysCommand.reporting {
                let ocra: OCRASuite? = method == SigningMethod.ocra.rawValue ? try OCRASuite(suite) : nil
                let (enrolment, created) = try KeysText.initialize(dataDirectory: global.paths.data, location: global.paths.database, name: name,
                                                                   force: force, ocra: ocra, language: global.language)
                if json {
                    JSONOutput.print(KeysText.EnrolmentJSON(enrolment))
                } else {
                    print(([KeysText.enrolment(enrolment, language: global.language)] + [created].compactMap { $0 }).joined(separator: "\n"))
                }
            }
        }
    }

    struct Respond: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "respond",
            abstract: "Print the OCRA response to a challenge, as the authenticator would (for development and scripts).",
            discussion: "Anyone who can read the data directory can do this: keep it private (it is created 0700).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The challenge the review or `run --challenge` showed (spaces are ignored).") var challenge: String

        func run() throws {
            try KeysCommand.reporting {
                print(try KeysText.response(to: challenge, of: try KeyStore(dataDirectory: global.paths.data).load()))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print the public key and key id.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try KeysCommand.reporting { print(KeysText.identity(try KeyStore(dataDirectory: global.paths.data).load(), language: global.language)) }
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

        func validate() throws {
            if let problem = KeysText.aheadProblem(ahead) { throw ValidationError(problem) }
        }

        func run() throws {
            try KeysCommand.reporting {
                print(try KeysText.code(of: try KeyStore(dataDirectory: global.paths.data).load(), ahead: ahead))
            }
        }
    }
}

enum KeysText {
    /// The most 30-second steps `keys code --ahead` looks forward: a day (a step count past it overflowed the clock
    /// and trapped, taking a REPL session down with it).
    static let maximumAhead = 2_880

    /// Why `--ahead N` is not taken (the command's and the REPL's), or nil.
    static func aheadProblem(_ ahead: Int) -> String? {
        (0...maximumAhead).contains(ahead) ? nil
            : "--ahead \(ahead): give a number of 30-second steps from 0 to \(maximumAhead) (a day)"
    }

    /// The TOTP code of `identity` now, or `ahead` 30-second steps later, as the authenticator app shows it (`keys
    /// code`, the command's and the REPL's).
    static func code(of identity: SigningIdentity, ahead: Int = 0) throws(OneTimeCodeError) -> String {
        guard let secret = identity.totpSecret else {
            throw .wrongMethod(enrolled: .ocra, detail: "its response depends on the document; use `rbs-host keys respond CHALLENGE`")
        }
        return TOTP.code(secret: secret, at: HostClock.current.now.addingTimeInterval(Double(ahead) * Double(TOTP.period)))
    }

    /// The OCRA response of `identity` to `challenge` (spaces ignored), as the authenticator computes it (`keys respond`).
    static func response(to challenge: String, of identity: SigningIdentity) throws -> String {
        guard case .ocra(let suite, let secret) = identity.authenticator else {
            throw OneTimeCodeError.wrongMethod(enrolled: .totp, detail: "it has no challenge; use `rbs-host keys code` (or enrol OCRA: `rbs-host keys init --method ocra --force`)")
        }
        return try OCRA.response(suite: suite, secret: secret, input: .init(challenge: challenge.filter { $0 != " " }))
    }

    /// `keys init` (the command and the REPL's): creates the keys and, in a fresh data folder, the ledger too
    /// (the documented first start); returns the enrolment and, when a ledger was created, what was created.
    static func initialize(dataDirectory: URL, location: LedgerLocation, name: String, force: Bool,
                           ocra: OCRASuite?, language: HostLanguage = .en) throws -> (enrolment: Enrolment, created: String?) {
        var created: String?
        if Ledger.isFresh(dataDirectory, location: location) {
            // The ledger first: once a key exists, only `init --force` may start a ledger here.
            let (ledger, creation) = try Ledger.create(dataDirectory: dataDirectory, location: location, clock: { HostClock.current.now })
            try ledger.close()
            created = HostMessage.describe(creation, language)
        }
        let enrolment = try KeyStore(dataDirectory: dataDirectory).initialize(name: name, force: force, ocra: ocra)
        return (enrolment, created)
    }

    /// `keys init --json`: what an authenticator needs ({suite, secret}), the method and the key id.
    struct EnrolmentJSON: Encodable {
        var method: String
        var keyId: String
        /// The OCRA suite, or TOTP's parameters.
        var suite: String
        /// OCRA: the secret as hex; TOTP: Base32, as authenticator apps take it.
        var secret: String
        /// TOTP only: the otpauth URI.
        var uri: String?

        init(_ enrolment: Enrolment) {
            method = enrolment.authenticator.method.rawValue
            keyId = enrolment.keyId
            suite = enrolment.authenticator.suiteText
            secret = enrolment.ocraSecretHex ?? enrolment.secretBase32 ?? ""
            uri = enrolment.uri
        }
    }

    /// What `keys init` made, in `language`: the key's fields, then how to load the secret into the authenticator.
    static func enrolment(_ enrolment: Enrolment, language: HostLanguage = .en) -> String {
        var lines = fields([(.keyIdLabel, enrolment.keyId), (.publicKeyLabel, Hex.encode(enrolment.publicKey)),
                            (.methodLabel, HostMessage.signingMethod(enrolment.authenticator.method).text(language))], language)
        if let uri = enrolment.uri {
            lines.append(HostMessage.addToAuthenticator.text(language))
            lines.append(uri)
        } else if let secret = enrolment.ocraSecretHex {
            lines.append(HostMessage.loadIntoOCRA.text(language))
            lines += fields([(.ocraSuiteLabel, enrolment.authenticator.suiteText), (.ocraSecretLabel, secret)], language)
                .map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// `keys show`, in `language`.
    static func identity(_ identity: SigningIdentity, language: HostLanguage = .en) -> String {
        fields([(.keyName, identity.name), (.keyIdLabel, identity.keyId),
                (.publicKeyLabel, Hex.encode(identity.publicKey.rawRepresentation)),
                (.methodLabel, HostMessage.signingMethod(identity.authenticator.method).text(language)),
                (.suiteLabel, identity.authenticator.suiteText)], language).joined(separator: "\n")
    }

    /// "Label: value" lines, the values in one column.
    private static func fields(_ rows: [(HostMessage, String)], _ language: HostLanguage) -> [String] {
        let labels = rows.map { $0.0.text(language) + ":" }
        let width = labels.map(\.count).max() ?? 0
        return zip(labels, rows).map { label, row in label.padding(toLength: width + 1, withPad: " ", startingAt: 0) + row.1 }
    }
}
