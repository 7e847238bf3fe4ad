/// Why a plugin package could not be made, installed or uninstalled. Each description names the package (or the
/// file) and what in it, and says what to do; ``HostMessage/describe(_:_:)-package`` says it in Russian.
public enum PackageError: Error, CustomStringConvertible, Sendable, Hashable {
    /// A file could not be read or written.
    case io(path: String, reason: String)
    /// The file does not start with the package header.
    case notAPackage(path: String)
    /// The file ends inside or before `entry` (cut short in a copy or a download).
    case truncated(path: String, entry: String, size: Int)
    /// The container is damaged at `offset`.
    case malformed(path: String, offset: Int, reason: String)
    /// The package lacks an entry it must have.
    case missingEntry(path: String, entry: String)
    /// The package signature (or an object's signature) is not an `rbs-plugin-signature 1` text.
    case unusableSignature(path: String, entry: String, TrustError)
    /// The package signature does not verify for its key: damaged or forged.
    case badSignature(path: String, entry: String)
    /// The bytes are not the ones signed: the package (`entry` nil) or one object in it was changed or damaged after
    /// signing.
    case damaged(path: String, entry: String?)
    /// The key that signed it is not among the trusted keys (`shared`: the shared database's).
    case untrustedKey(path: String, publicKey: String, shared: Bool)
    /// The key that signed it is not trusted for it (revoked, expired, or the id outside its scope).
    case untrusted(path: String, TrustRefusal)
    /// `manifest.json` is not a manifest.
    case malformedManifest(path: String, reason: String)
    /// The signature names another id or version than the manifest.
    case signedForAnother(path: String, entry: String, signedID: String, signedVersion: String, id: String, version: String)
    /// No object for this host's architecture.
    case wrongArchitecture(path: String, host: String, offered: [String])
    /// The manifest names an object the package does not hold (or holds other bytes for).
    case missingObject(path: String, architecture: String, entry: String)
    /// This host's ABI is outside the range the manifest asks for.
    case abiOutOfRange(path: String, min: String, below: String, host: String)
    /// The manifest says the plugin uses a service this host does not offer.
    case missingService(path: String, service: String, host: String)
    /// The object's own descriptor says another id or version than the manifest.
    case descriptorMismatch(path: String, architecture: String, manifestID: String, manifestVersion: String,
                            id: String, version: String)
    /// The object for this host cannot be opened to read its descriptor.
    case unloadable(path: String, architecture: String, PluginProblem)
    /// A lower version than the one installed or last in service, without `--allow-downgrade`.
    case downgrade(path: String, id: String, installed: String, offered: String)
    /// `plugin publish` of a lower version than one published before (rolling or superseded, on every host of the
    /// ledger) or last in service here, without `--allow-downgrade`.
    case publishedDowngrade(path: String, id: String, floor: String, offered: String)
    /// `plugin uninstall` of an id no file in the plugin folder is signed for.
    case notInstalled(id: String, folder: String)

    // `plugin pack`
    /// `--so` not in the form ARCH=PATH, or an unknown architecture.
    case badObjectOption(String)
    /// `--so ARCH=PATH` where PATH is built for another architecture (or is not an ELF object).
    case objectArchitecture(path: String, given: String, found: String?)
    /// The same architecture twice.
    case duplicateArchitecture(String)
    /// No object for the packing host's architecture, whose descriptor names the id and version.
    case noHostObject(host: String)
    /// `--title` / `--description` not in the form LANG=TEXT.
    case badText(option: String, String)
    /// A language with a title and no description, or the other way round, or no texts at all.
    case incompleteTexts(language: String?, missing: String)
    /// `--abi-min` / `--abi-below` not MAJOR.MINOR, or an empty range.
    case badABIRange(min: String, below: String)
    /// The publisher key could not be read, or the object's id and version could not be read for signing.
    case signing(TrustError)

    public var description: String {
        switch self {
        case .io(let path, let reason): "\(path): \(reason) — check the path and its permissions"
        case .notAPackage(let path):
            "\(path) is not a plugin package (it does not start with '\(PluginPackage.header)') — give a file made by `rbs-host plugin pack`"
        case .truncated(let path, let entry, let size):
            "\(path) is truncated: it ends at byte \(size), before the end of its entry '\(entry)' — copy or download the whole package again"
        case .malformed(let path, let offset, let reason):
            "\(path) is damaged at byte \(offset): \(reason) — copy or download the package again, or ask its publisher for a new one"
        case .missingEntry(let path, let entry):
            "\(path) has no entry '\(entry)' — it was not made by `rbs-host plugin pack`; ask its publisher for a new one"
        case .unusableSignature(let path, let entry, let error):
            "\(path): its signature '\(entry)' cannot be used (\(error.description))"
        case .badSignature(let path, let entry):
            "\(path): the signature '\(entry)' does not verify (damaged or forged) — do not install it; ask its publisher for the package again"
        case .damaged(let path, let entry):
            "\(path): \(entry.map { "its object '\($0)' is" } ?? "its contents are") not what was signed (changed or damaged after signing) — do not install it; copy or download the package again"
        case .untrustedKey(let path, let key, let shared):
            "\(path) is signed by an untrusted key \(key) — if you trust its publisher, run `rbs-host trust add \(key) --ids ID-PREFIX.*`\(shared ? " with this host's --database (the shared database's keys are every host's)" : ""), then install again (--dev does not change what install accepts)"
        case .untrusted(let path, let refusal): "\(path): \(refusal.description)"
        case .malformedManifest(let path, let reason):
            "\(path): its manifest.json cannot be read (\(reason)) — ask its publisher for a package made by `rbs-host plugin pack`"
        case .signedForAnother(let path, let entry, let signedID, let signedVersion, let id, let version):
            "\(path): '\(entry)' is signed for '\(signedID)' \(signedVersion) but the manifest says '\(id)' \(version) — ask its publisher to pack it again"
        case .wrongArchitecture(let path, let host, let offered):
            "\(path) holds the plugin for \(offered.isEmpty ? "no architecture" : offered.joined(separator: ", ")), not for this host's \(host) — ask its publisher for a package with an \(host) object (`plugin pack --so \(host)=PATH`)"
        case .missingObject(let path, let architecture, let entry):
            "\(path): the manifest names the \(architecture) object '\(entry)', which the package does not hold as signed — ask its publisher to pack it again"
        case .abiOutOfRange(let path, let min, let below, let host):
            "\(path) needs a host ABI from \(min) up to (not including) \(below); this host's ABI is \(host) — \(Self.abiAdvice(min: min, host: host))"
        case .missingService(let path, let service, let host):
            "\(path) uses the service \(service), which this host (ABI \(host)) does not offer — update rbs-host, or ask its publisher for a version that does without it"
        case .descriptorMismatch(let path, let architecture, let manifestID, let manifestVersion, let id, let version):
            "\(path): the manifest says '\(manifestID)' \(manifestVersion) but its \(architecture) object's descriptor says '\(id)' \(version) — ask its publisher to pack it again from the right build"
        case .unloadable(let path, let architecture, let problem):
            "\(path): its \(architecture) object cannot be opened: \(problem.description)"
        case .downgrade(let path, let id, let installed, let offered):
            "\(path) is version \(offered) of \(id), lower than version \(installed) installed or last in service here: a downgrade is refused — to roll back on purpose, install it with --allow-downgrade"
        case .publishedDowngrade(let path, let id, let floor, let offered):
            "\(path) is version \(offered) of \(id), lower than version \(floor) published to this ledger's customers or "
                + "last in service here: a downgrade is refused — to roll customers back on purpose, publish it with --allow-downgrade"
        case .notInstalled(let id, let folder):
            "no plugin '\(id)' is installed in \(folder) (no signed file there names it) — see `rbs-host plugin history` and `rbs-host plugins`"
        case .badObjectOption(let text):
            "--so '\(text)': give ARCH=PATH, ARCH one of \(PackageArchitecture.known.joined(separator: ", ")) (e.g. --so \(PackageArchitecture.host)=build/plugin.so)"
        case .objectArchitecture(let path, let given, let found):
            "\(path) is \(found.map { "built for \($0)" } ?? "not a 64-bit ELF shared object"), but was given as --so \(given)=\(path) — give each architecture its own build"
        case .duplicateArchitecture(let architecture):
            "--so \(architecture)=… is given twice — give one object per architecture"
        case .noHostObject(let host):
            "no --so \(host)=PATH: the object for this host's architecture is needed, to read the plugin's id and version from it"
        case .badText(let option, let text):
            "--\(option) '\(text.prefix(40))': give LANG=TEXT (e.g. --\(option) ru=…)"
        case .incompleteTexts(let language?, let missing):
            "the texts in '\(language)' have no \(missing) — give both --title \(language)=… and --description \(language)=…"
        case .incompleteTexts(nil, _):
            "no texts: give a title and a description in each language (--title en=… --description en=…)"
        case .badABIRange(let min, let below):
            "the host ABI range \(min) to \(below) is not MAJOR.MINOR to a higher MAJOR.MINOR (e.g. --abi-min 1.2 --abi-below 2.0)"
        case .signing(let error): error.description
        }
    }

    private static func abiAdvice(min: String, host: String) -> String {
        let low = PackageManifest.ABIRange.parse(min)
        let ours = PackageManifest.ABIRange.parse(host)
        if let low, let ours, ours < low { return "update rbs-host, or install a version of the plugin built for ABI \(host)" }
        return "ask its publisher for a version built for ABI \(host)"
    }
}
