import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `plugin pack` is given: the objects by architecture, the texts, the changelog, the key.
public struct PackRequest {
    public var objects: [(architecture: String, path: String)]
    public var key: PublisherKey
    /// The publisher's name (default: the key's name).
    public var publisher: String?
    public var texts: [String: PackageManifest.Texts]
    public var services: [String]
    public var changelog: String
    /// The host ABI range (default: the ABI the host object was built against, up to the next major).
    public var abiMin: String?
    public var abiBelow: String?

    public init(objects: [(architecture: String, path: String)], key: PublisherKey, publisher: String? = nil,
                texts: [String: PackageManifest.Texts], services: [String] = [], changelog: String,
                abiMin: String? = nil, abiBelow: String? = nil) {
        self.objects = objects
        self.key = key
        self.publisher = publisher
        self.texts = texts
        self.services = services
        self.changelog = changelog
        self.abiMin = abiMin
        self.abiBelow = abiBelow
    }

    /// `--so ARCH=PATH` options as given.
    public static func objects(_ options: [String]) throws(PackageError) -> [(architecture: String, path: String)] {
        var objects: [(architecture: String, path: String)] = []
        for option in options {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, PackageArchitecture.known.contains(parts[0]), !parts[1].isEmpty else {
                throw .badObjectOption(option)
            }
            guard !objects.contains(where: { $0.architecture == parts[0] }) else { throw .duplicateArchitecture(parts[0]) }
            objects.append((parts[0], parts[1]))
        }
        return objects
    }

    /// `--title LANG=TEXT` and `--description LANG=TEXT` options as given: each language needs both.
    public static func texts(titles: [String], descriptions: [String]) throws(PackageError) -> [String: PackageManifest.Texts] {
        func byLanguage(_ options: [String], _ name: String) throws(PackageError) -> [String: String] {
            var values: [String: String] = [:]
            for option in options {
                let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, (2...3).contains(parts[0].count), parts[0].allSatisfy({ $0.isASCII && $0.isLowercase }),
                      !parts[1].trimmingCharacters(in: .whitespaces).isEmpty else { throw .badText(option: name, option) }
                values[parts[0]] = parts[1]
            }
            return values
        }
        let titles = try byLanguage(titles, "title"), descriptions = try byLanguage(descriptions, "description")
        guard !titles.isEmpty || !descriptions.isEmpty else { throw .incompleteTexts(language: nil, missing: "title") }
        var texts: [String: PackageManifest.Texts] = [:]
        for language in Set(titles.keys).union(descriptions.keys).sorted() {
            guard let title = titles[language] else { throw .incompleteTexts(language: language, missing: "title") }
            guard let description = descriptions[language] else {
                throw .incompleteTexts(language: language, missing: "description")
            }
            texts[language] = PackageManifest.Texts(title: title, description: description)
        }
        return texts
    }
}

/// What `plugin install` or `plugin uninstall` did.
public struct PackageChange: Sendable, Equatable {
    public var entry: PluginHistory.Entry
    /// True when the same bytes were installed already: nothing was placed or recorded.
    public var unchanged: Bool
}

/// Makes, installs and uninstalls plugin packages (``PluginPackage``). The rules are here, once; `rbs-host plugin
/// pack|install|uninstall|history` only render what they return.
///
/// An installed package is its host's object and that object's signature, placed in the plugin folder as
/// `<id>.so` and `<id>.so.sig` (or over the signed file that already holds the id): what every start and reload then
/// checks, by the loose plugin's rules. They land so that nothing half-written or unsigned is ever seen there: both
/// are written under hidden names (which the scanner and the watcher pass over) and synced; the signature is
/// renamed into place first — holding the replaced file's signature too, so whichever of the two files a host reads
/// has its signature there — then the object.
public enum PluginPackager {
    // MARK: - pack

    /// Builds a package: reads the id and version from the host's object (in a worker, as `plugin sign` does),
    /// signs each object and then the whole.
    public static func pack(_ request: PackRequest, isolation: IsolationSettings) throws(PackageError)
        -> (bytes: [UInt8], manifest: PackageManifest) {
        let host = PackageArchitecture.host
        guard let hostObject = request.objects.first(where: { $0.architecture == host }) else {
            throw .noHostObject(host: host)
        }
        var read: [String: [UInt8]] = [:]
        for (architecture, path) in request.objects {
            let bytes: [UInt8]
            do { bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) } catch {
                throw .io(path: path, reason: (error as NSError).localizedDescription)
            }
            let found = PackageArchitecture.of(bytes)
            guard found == architecture else { throw .objectArchitecture(path: path, given: architecture, found: found) }
            read[architecture] = bytes
        }
        let hostBytes = read[host] ?? []
        let plugin: PluginManifest
        do {
            plugin = try PluginSigner.readManifest(path: hostObject.path, expectedSHA256: ContentHash.sha256(hostBytes),
                                                   isolation: isolation)
        } catch { throw .signing(error) }
        let range = PackageManifest.ABIRange(min: request.abiMin ?? plugin.abi.short,
                                             below: request.abiBelow ?? "\(plugin.abi.major + 1).0")
        guard let low = PackageManifest.ABIRange.parse(range.min), let high = PackageManifest.ABIRange.parse(range.below),
              low < high else { throw .badABIRange(min: range.min, below: range.below) }
        var entries: [(name: String, bytes: [UInt8])] = []
        var objects: [String: PackageManifest.Object] = [:]
        for (architecture, _) in request.objects {
            let bytes = read[architecture] ?? []
            let hash = ContentHash.sha256(bytes)
            let signature: PluginSignature
            do {
                signature = try PluginSignature.make(fileSHA256: hash, pluginID: plugin.id, version: plugin.version,
                                                     key: request.key)
            } catch { throw .signing(error) }
            let name = PluginPackage.objectEntry(architecture)
            entries.append((name, bytes))
            entries.append((PluginPackage.objectSignatureEntry(architecture), Array(signature.text.utf8)))
            objects[architecture] = PackageManifest.Object(entry: name, sha256: hash, size: bytes.count)
        }
        let manifest = PackageManifest(format: PackageManifest.currentFormat, id: plugin.id, version: plugin.version,
                                       publisher: request.publisher ?? request.key.name, hostABI: range,
                                       services: request.services, texts: request.texts,
                                       changelog: request.changelog, objects: objects)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let json = try? encoder.encode(manifest) else {
            throw .malformedManifest(path: hostObject.path, reason: "it cannot be encoded")
        }
        entries.insert((PluginPackage.manifestEntry, Array(json)), at: 0)
        let body = PluginPackage.body(entries)
        let signature: PluginSignature
        do {
            signature = try PluginSignature.make(fileSHA256: ContentHash.sha256(body), pluginID: plugin.id,
                                                 version: plugin.version, key: request.key)
        } catch { throw .signing(error) }
        return (PluginPackage.file(body: body, signature: signature), manifest)
    }

    // MARK: - verify

    /// A package whose signatures, trust, manifest, architecture and ABI range were checked.
    public struct Verified: Sendable {
        public var manifest: PackageManifest
        public var signature: PluginSignature
        /// This host's object and its signature.
        public var object: [UInt8]
        public var objectSignature: PluginSignature
        /// SHA-256 of the package file.
        public var packageSHA256: String
    }

    /// Checks a package against `policy`'s trusted keys (the same check a loose plugin's `.sig` passes) and this
    /// host: every failure names the package and what in it.
    public static func verify(_ bytes: [UInt8], path: String, policy: PluginTrustPolicy) throws(PackageError) -> Verified {
        let package = try PluginPackage.read(bytes, path: path)
        let signatureName = PluginPackage.signatureEntry
        let signature: PluginSignature
        do { signature = try PluginSignature.parse(package.signatureText, path: "\(path) (\(signatureName))") } catch {
            throw .unusableSignature(path: path, entry: signatureName, error)
        }
        try check(signature, contentSHA256: package.signedSHA256, path: path, entry: signatureName, policy: policy)
        guard let json = package.entry(PluginPackage.manifestEntry) else {
            throw .missingEntry(path: path, entry: PluginPackage.manifestEntry)
        }
        let manifest: PackageManifest
        do { manifest = try JSONDecoder().decode(PackageManifest.self, from: Data(json)) } catch {
            throw .malformedManifest(path: path, reason: Self.reason(error))
        }
        guard manifest.format == PackageManifest.currentFormat else {
            throw .malformedManifest(path: path, reason: "format \(manifest.format); this host reads format \(PackageManifest.currentFormat)")
        }
        guard signature.pluginID == manifest.id, signature.version == manifest.version else {
            throw .signedForAnother(path: path, entry: signatureName, signedID: signature.pluginID,
                                    signedVersion: signature.version, id: manifest.id, version: manifest.version)
        }
        let host = PackageArchitecture.host
        guard let described = manifest.objects[host] else {
            throw .wrongArchitecture(path: path, host: host, offered: manifest.objects.keys.sorted())
        }
        guard let object = package.entry(described.entry), ContentHash.sha256(object) == described.sha256 else {
            throw .missingObject(path: path, architecture: host, entry: described.entry)
        }
        let objectSignatureName = described.entry + ".sig"
        guard let signatureBytes = package.entry(objectSignatureName) else {
            throw .missingEntry(path: path, entry: objectSignatureName)
        }
        let objectSignature: PluginSignature
        do {
            objectSignature = try PluginSignature.parse(String(decoding: signatureBytes, as: UTF8.self),
                                                        path: "\(path) (\(objectSignatureName))")
        } catch { throw .unusableSignature(path: path, entry: objectSignatureName, error) }
        try check(objectSignature, contentSHA256: described.sha256, path: path, entry: objectSignatureName, policy: policy)
        guard objectSignature.pluginID == manifest.id, objectSignature.version == manifest.version else {
            throw .signedForAnother(path: path, entry: objectSignatureName, signedID: objectSignature.pluginID,
                                    signedVersion: objectSignature.version, id: manifest.id, version: manifest.version)
        }
        guard manifest.hostABI.contains(ABIVersion.host) else {
            throw .abiOutOfRange(path: path, min: manifest.hostABI.min, below: manifest.hostABI.below,
                                 host: ABIVersion.host.short)
        }
        // What the plugin says it uses is what the loader would refuse it for later: said now, of the package.
        if let service = manifest.services.first(where: { !DescriptorReader.isProvided($0) }) {
            throw .missingService(path: path, service: service, host: ABIVersion.host.short)
        }
        return Verified(manifest: manifest, signature: signature, object: object, objectSignature: objectSignature,
                        packageSHA256: ContentHash.sha256(bytes))
    }

    /// The trust policy's check of one signature in the package, its refusals said of the package.
    private static func check(_ signature: PluginSignature, contentSHA256: String, path: String, entry: String,
                              policy: PluginTrustPolicy) throws(PackageError) {
        do {
            try policy.check(signature, contentSHA256: contentSHA256, path: path, signaturePath: "\(path) (\(entry))")
        } catch {
            switch error {
            case .badSignature: throw .badSignature(path: path, entry: entry)
            case .changedAfterSigning: throw .damaged(path: path, entry: entry == PluginPackage.signatureEntry ? nil : entry)
            case .untrustedKey(let key): throw .untrustedKey(path: path, publicKey: key, shared: false)
            case .untrustedSharedKey(let key): throw .untrustedKey(path: path, publicKey: key, shared: true)
            default: throw .untrusted(path: path, error)
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _)?: "it has no '\(key.stringValue)'"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
            "at '\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        default: "\(error)"
        }
    }

    // MARK: - install

    /// `plugin publish`'s rule against a silent downgrade, as `install`'s: the package's version may not be lower
    /// than any version of the plugin `published` before and not rolled back (a rolled-back version was taken from
    /// customers) nor than the one last in service in `dataDirectory`, unless `allowDowngrade`.
    public static func checkPublication(_ manifest: PackageManifest, path: String, published: [String], dataDirectory: URL,
                                        allowDowngrade: Bool) throws(PackageError) {
        let floor = (published + [PluginVersionRecord(dataDirectory: dataDirectory).version(of: manifest.id)].compactMap { $0 })
            .max { SemanticVersion.isLower($0, than: $1) }
        if let floor, SemanticVersion.isLower(manifest.version, than: floor), !allowDowngrade {
            throw .publishedDowngrade(path: path, id: manifest.id, floor: floor, offered: manifest.version)
        }
    }

    /// Verifies the package at `path` and places its object for this host in `folder` (see the type's note),
    /// refusing a lower version than the one installed or last in service unless `allowDowngrade` (which then
    /// leaves the permission a running host's reload and the next start take). Appends to the data folder's history.
    public static func install(packageAt path: String, folder: String, dataDirectory: URL, policy: PluginTrustPolicy,
                               isolation: IsolationSettings, allowDowngrade: Bool, by user: String,
                               now: Date = Date()) throws(PackageError) -> PackageChange {
        let bytes: [UInt8]
        do { bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw .io(path: path, reason: (error as NSError).localizedDescription)
        }
        let verified = try verify(bytes, path: path, policy: policy)
        let manifest = verified.manifest
        if !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o755])
            } catch { throw .io(path: folder, reason: (error as NSError).localizedDescription) }
        }
        // A folder hosts refuse to load from (others can write to it) would take the file and serve nothing.
        do throws(PluginProblem) { try PluginTrustPolicy.checkFolder(folder) } catch {
            if case .untrusted(let refusal) = error { throw .untrusted(path: folder, refusal) }
        }
        let installed = Installed.find(manifest.id, in: folder)
        let target = installed?.path ?? (folder.hasSuffix("/") ? folder : folder + "/") + manifest.id + ".so"
        let objectHash = ContentHash.sha256(verified.object)
        let floor = [installed?.signature.version, PluginVersionRecord(dataDirectory: dataDirectory).version(of: manifest.id)]
            .compactMap { $0 }.max { SemanticVersion.isLower($0, than: $1) }
        let isDowngrade = floor.map { SemanticVersion.isLower(manifest.version, than: $0) } ?? false
        var entry = PluginHistory.Entry(time: PluginHistory.timestamp(now), action: isDowngrade ? .downgrade : .install,
                                        id: manifest.id, version: manifest.version,
                                        previousVersion: installed?.signature.version, publisher: manifest.publisher,
                                        publisherKey: verified.signature.publicKey, by: user,
                                        package: verified.packageSHA256, file: target)
        if installed?.objectSHA256 == objectHash { return PackageChange(entry: entry, unchanged: true) }
        if isDowngrade, let floor, !allowDowngrade {
            throw .downgrade(path: path, id: manifest.id, installed: floor, offered: manifest.version)
        }
        // The object is staged where it will land, and its descriptor read from there: the file renamed into place
        // is the one whose id and version were checked.
        let staged: String
        do { staged = try TrustFile.stage(verified.object, for: target, mode: 0o644) } catch { throw .io(path: target, reason: error.description) }
        var placed = false
        defer { if !placed { unlink(staged) } }
        let opened: (value: PluginManifest, contentHash: String)
        do { opened = try PluginSigner.openManifest(path: staged, isolation: isolation) } catch {
            throw .unloadable(path: path, architecture: PackageArchitecture.host, error.problem)
        }
        guard opened.value.id == manifest.id, opened.value.version == manifest.version, opened.contentHash == objectHash else {
            throw .descriptorMismatch(path: path, architecture: PackageArchitecture.host, manifestID: manifest.id,
                                      manifestVersion: manifest.version, id: opened.value.id, version: opened.value.version)
        }
        if isDowngrade {
            do { try Runtime.allowDowngrade(manifest.id, dataDirectory: dataDirectory) } catch {
                throw .io(path: dataDirectory.path, reason: error.description)
            }
        }
        let signaturePath = target + ".sig"
        do {
            // The signature file holds the replaced file's signature and the new one, so a host that read either
            // file's bytes, before or after the switch, finds their signature beside them.
            let signatures = (installed?.signatures ?? []) + [verified.objectSignature]
            try TrustFile.write(signatures.map(\.text).joined(), to: signaturePath, mode: 0o644)
            try TrustFile.commit(staged, to: target)
            placed = true
        } catch { throw .io(path: target, reason: error.description) }
        TrustFile.syncDirectory(folder)
        entry.file = target
        try PluginHistory(dataDirectory: dataDirectory).append(entry)
        return PackageChange(entry: entry, unchanged: false)
    }

    /// Removes the installed plugin `id` from `folder` (the object first, so a running host withdraws it as it does
    /// a deleted file, then its signature) and appends to the history.
    public static func uninstall(_ id: String, folder: String, dataDirectory: URL, by user: String,
                                 now: Date = Date()) throws(PackageError) -> PackageChange {
        guard let installed = Installed.find(id, in: folder) else { throw .notInstalled(id: id, folder: folder) }
        guard unlink(installed.path) == 0 else { throw .io(path: installed.path, reason: String(cString: strerror(errno))) }
        unlink(installed.path + ".sig")
        TrustFile.syncDirectory(folder)
        let entry = PluginHistory.Entry(time: PluginHistory.timestamp(now), action: .uninstall, id: id,
                                        version: installed.signature.version, previousVersion: nil, publisher: nil,
                                        publisherKey: installed.signature.publicKey, by: user, package: nil,
                                        file: installed.path)
        try PluginHistory(dataDirectory: dataDirectory).append(entry)
        return PackageChange(entry: entry, unchanged: false)
    }

    /// The file in a plugin folder that holds plugin `id`, found by its signature (which names the id): no plugin
    /// code is opened to find it.
    struct Installed {
        var path: String
        /// The signatures in its `.sig`, and the one for its bytes (else the last).
        var signatures: [PluginSignature]
        var signature: PluginSignature
        var objectSHA256: String

        static func find(_ id: String, in folder: String) -> Installed? {
            guard let files = try? PluginRegistry.pluginFiles(in: folder) else { return nil }
            for path in files {
                guard let text = try? TrustFile.read(path + ".sig"),
                      let signatures = try? PluginSignature.parseAll(text, path: path + ".sig"),
                      signatures.contains(where: { $0.pluginID == id }),
                      let bytes = FileManager.default.contents(atPath: path) else { continue }
                let hash = ContentHash.sha256(bytes)
                let signature = signatures.first { $0.fileSHA256 == hash } ?? signatures[signatures.count - 1]
                return Installed(path: path, signatures: signatures.filter { $0.fileSHA256 == hash },
                                 signature: signature, objectSHA256: hash)
            }
            return nil
        }
    }
}
