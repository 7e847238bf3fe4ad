import Crypto
import Foundation
import Testing
@testable import RBSLedger

@Suite("KeyStore")
struct KeyStoreTests {
    @Test("initialize writes private files in a private directory and load gives the same key")
    func initializeAndLoad() throws {
        let directory = temporaryDirectory().appendingPathComponent("nested")
        let store = KeyStore(dataDirectory: directory)
        let enrolment = try store.initialize(name: "Иван Иванов", force: false)
        #expect(SecureFile.mode(of: directory) == 0o700)
        for url in [store.signingKeyURL, store.totpSecretURL, store.nameURL] {
            #expect(SecureFile.mode(of: url) == 0o600)
        }
        let identity = try store.load()
        #expect(identity.keyId == enrolment.keyId)
        #expect(identity.keyId.count == 16)
        #expect(identity.totpSecret == enrolment.totpSecret)
        #expect(identity.totpSecret?.count == 20)
        #expect(identity.name == "Иван Иванов")
        #expect(identity.publicKey.rawRepresentation == enrolment.publicKey)
    }

    @Test("a load after any change to the key files reads them again: a key written in place, a renamed-over name, a chmod, a removed file")
    func loadSeesEveryChange() throws {
        let store = KeyStore(dataDirectory: temporaryDirectory())
        _ = try store.initialize(name: "first", force: false)
        // Files changed in the last second or two are read at every load (a coarse clock stamps them): older, the
        // identity is kept, and each change below must still be seen.
        Thread.sleep(forTimeInterval: 2.1)
        let first = try store.load()
        #expect(try store.load().keyId == first.keyId)
        // Another key written into the same file (same inode, same size), as an editor or `dd` would.
        let other = Curve25519.Signing.PrivateKey()
        let otherKeyId = SigningIdentity.keyId(of: other.publicKey)
        let handle = try FileHandle(forWritingTo: store.signingKeyURL)
        try handle.write(contentsOf: other.rawRepresentation)
        try handle.close()
        #expect(try store.load().keyId == otherKeyId)
        // The name replaced by a rename (a new inode).
        try SecureFile.write(Data("second".utf8), to: store.nameURL)
        #expect(try store.load().name == "second")
        // Made readable by others: refused at once, and again at the next load; private again, loaded again.
        chmod(store.signingKeyURL.path, 0o644)
        for _ in 0..<2 {
            #expect { _ = try store.load() } throws: { error in
                guard case .insecurePermissions = error as? KeyStoreError else { return false }
                return true
            }
        }
        chmod(store.signingKeyURL.path, 0o600)
        #expect(try store.load().keyId == otherKeyId)
        // The TOTP secret removed: no identity from before it.
        try FileManager.default.removeItem(at: store.totpSecretURL)
        #expect(throws: KeyStoreError.self) { _ = try store.load() }
    }

    @Test("the enrolment URI has the exact otpauth form with the name percent-encoded")
    func enrolmentURI() throws {
        let enrolment = Enrolment(name: "Ivan Ivanov", keyId: "0123456789abcdef", publicKey: Data(count: 32),
                                  totpSecret: Data("12345678901234567890".utf8))
        #expect(enrolment.uri == "otpauth://totp/rbs-host:Ivan%20Ivanov?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=rbs-host&algorithm=SHA1&digits=6&period=30")
        #expect(Enrolment.percentEncode("Иван") == "%D0%98%D0%B2%D0%B0%D0%BD")
    }

    @Test("existing keys are not replaced without force, and are with it")
    func refusesOverwrite() throws {
        let store = KeyStore(dataDirectory: temporaryDirectory())
        let first = try store.initialize(name: "a", force: false)
        #expect { _ = try store.initialize(name: "a", force: false) } throws: { error in
            guard case .keysExist = error as? KeyStoreError else { return false }
            return (error as? KeyStoreError)?.description.contains("--force") == true
        }
        let second = try store.initialize(name: "a", force: true)
        #expect(first.keyId != second.keyId)
        #expect(try store.load().keyId == second.keyId)
    }

    @Test("a missing key tells to run keys init")
    func missingKey() {
        let store = KeyStore(dataDirectory: temporaryDirectory())
        #expect { _ = try store.load() } throws: { error in
            guard case .notInitialized = error as? KeyStoreError else { return false }
            return String(describing: error).contains("rbs-host keys init")
        }
    }

    @Test("a short key file is reported as damaged, naming the file")
    func shortKeyFile() throws {
        let store = KeyStore(dataDirectory: temporaryDirectory())
        _ = try store.initialize(name: "a", force: false)
        try SecureFile.write(Data(count: 31), to: store.signingKeyURL)
        #expect(throws: KeyStoreError.corrupt(path: store.signingKeyURL.path, detail: "31 bytes instead of 32")) {
            try store.load()
        }
    }

    @Test("a key file readable by others is refused")
    func insecurePermissions() throws {
        let store = KeyStore(dataDirectory: temporaryDirectory())
        _ = try store.initialize(name: "a", force: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.signingKeyURL.path)
        #expect(throws: KeyStoreError.insecurePermissions(path: store.signingKeyURL.path, mode: 0o644)) {
            try store.load()
        }
    }
}
