import CRBSPlugin
import Foundation

/// Hands a plugin's state from one version to the next across a reload (extension "rbs.state/1").
enum PluginState {
    /// The old version's saved state, or nil when it does not offer the extension or its save fails.
    static func save(from image: PluginImage) -> Data? {
        guard let table = image.extensionTable(RBS_EXT_STATE)?.assumingMemoryBound(to: rbs_state_extension_t.self),
              let save = table.pointee.save else { return nil }
        let buffer = StateBuffer()
        let ok = save(Unmanaged.passUnretained(buffer).toOpaque()) { writer, bytes, size in
            guard let writer, let bytes else { return false }
            let buffer = Unmanaged<StateBuffer>.fromOpaque(writer).takeUnretainedValue()
            guard buffer.data.count + size <= StateBuffer.limit else { return false }
            buffer.data.append(bytes, count: size)
            return true
        }
        guard ok else {
            image.hostTable.log(.warning, "rbs.state/1 save() failed: the new version starts without the old state")
            return nil
        }
        return buffer.data
    }

    /// Gives the saved state to the new version.
    static func load(_ data: Data, into image: PluginImage) {
        guard let table = image.extensionTable(RBS_EXT_STATE)?.assumingMemoryBound(to: rbs_state_extension_t.self),
              let load = table.pointee.load else { return }
        let ok = data.withUnsafeBytes { raw in
            load(raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        if !ok { image.hostTable.log(.warning, "rbs.state/1 load() refused the saved state") }
    }
}

private final class StateBuffer {
    static let limit = 16 * 1024 * 1024
    var data = Data()
}
