import CRBSPlugin
import Foundation
import FuzzSupport
import RBSExpressions
@testable import RBSCore

/// Plugin descriptors, in the three forms the host reads them:
/// - byte 0 even: the C descriptors a plugin exports (`rbs_plugin_entry_t` and all it points to, extensions
///   `rbs.requirements/1` and `rbs.document-labels/1` included), built from the bytes and read by `DescriptorReader`;
/// - byte 0 ≡ 1 (mod 4): the manifest JSON a worker sends in its first frame;
/// - byte 0 ≡ 3 (mod 4): the scan cache file (`PluginCacheCodec`).
/// Whatever is accepted is then compiled as the loader compiles it (`CompiledOperation`: every show_if, valid_if and
/// filter, the plugin's functions bound as a worker's are). Anything else is a `PluginProblem`; nothing traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDescriptors(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(fuzzBytes(data, size))
    let mode = input.u8()
    var manifests: [PluginManifest] = []
    if mode % 2 == 0 {
        var arena = CArena()
        let entry = arena.entry(&input)
        if let manifest = try? DescriptorReader.read(entry) { manifests.append(manifest) }
        arena.free()
    } else if mode % 4 == 1 {
        if let manifest = try? JSONDecoder().decode(PluginManifest.self, from: Data(input.rest())) { manifests.append(manifest) }
    } else {
        if let cache = try? PluginCacheCodec.decode(input.rest()) {
            manifests += cache.entries.values.compactMap { if case .plugin(let m, _) = $0.result { m } else { nil } }
        }
    }
    for manifest in manifests {
        for operation in manifest.operations {
            _ = try? CompiledOperation(operation) { _ in
                { name, signature, bound throws(FFIError) in
                    try ForeignFunction(name: name, signature: signature, isInstanceBound: bound) { _, _ in .null }
                }
            }
        }
    }
    return 0
}

// MARK: - C descriptors from bytes

private func stubCreate(_: UnsafePointer<rbs_operation_descriptor_t>?, _: UnsafePointer<rbs_host_t>?,
                        _: OpaquePointer?) -> UnsafeMutableRawPointer? { nil }
private func stubDestroy(_: UnsafeMutableRawPointer?) {}
private func stubValueChanged(_: UnsafeMutableRawPointer?, _: UnsafePointer<CChar>?, _: UnsafePointer<rbs_value_t>?,
                              _: Bool) -> rbs_status_t { 0 }
private func stubAction(_: UnsafeMutableRawPointer?, _: UnsafePointer<CChar>?) -> rbs_status_t { 0 }
private func stubBuild(_: UnsafeMutableRawPointer?, _: UnsafePointer<rbs_document_builder_t>?) -> rbs_status_t { 0 }

/// The extension tables of the entry being read (a C function pointer cannot capture: `get_extension` reads these).
nonisolated(unsafe) private var requirementsTable: UnsafeMutablePointer<rbs_requirements_extension_t>?
nonisolated(unsafe) private var labelsTable: UnsafeMutablePointer<rbs_document_labels_extension_t>?

private func stubGetExtension(_ id: UnsafePointer<CChar>?) -> UnsafeRawPointer? {
    guard let id else { return nil }
    switch String(cString: id) {
    case RBS_EXT_REQUIREMENTS: return requirementsTable.map { UnsafeRawPointer($0) }
    case RBS_EXT_DOCUMENT_LABELS: return labelsTable.map { UnsafeRawPointer($0) }
    default: return nil
    }
}

/// Everything allocated for one entry, freed together.
private struct CArena {
    private var blocks: [UnsafeMutableRawPointer] = []

    mutating func free() {
        for block in blocks { Foundation.free(block) }
        blocks = []
        requirementsTable = nil
        labelsTable = nil
    }

    mutating func array<T>(_ type: T.Type, _ count: Int) -> UnsafeMutablePointer<T> {
        let raw = calloc(max(count, 1), MemoryLayout<T>.stride)!
        blocks.append(raw)
        return raw.bindMemory(to: T.self, capacity: max(count, 1))
    }

    /// A NUL-terminated copy of a field's bytes (which stop at their first NUL, as C reads them), or NULL when the
    /// flag bit is clear.
    mutating func string(_ input: inout FuzzInput, present: Bool) -> UnsafePointer<CChar>? {
        let bytes = input.bytesField()
        guard present else { return nil }
        let text = array(CChar.self, bytes.count + 1)
        for (index, byte) in bytes.enumerated() { text[index] = CChar(bitPattern: byte) }
        return UnsafePointer(text)
    }

    mutating func entry(_ input: inout FuzzInput) -> UnsafePointer<rbs_plugin_entry_t> {
        let entry = array(rbs_plugin_entry_t.self, 1)
        let version = input.u8()
        entry.pointee.abi_version = version == 0
            ? rbs_version_t(major: UInt32(RBS_ABI_MAJOR), minor: UInt32(RBS_ABI_MINOR), patch: 0)
            : rbs_version_t(major: UInt32(version >> 4), minor: UInt32(version & 0x0F), patch: 0)
        let flags = input.u8()
        if flags & 1 == 0 {
            let plugin = array(rbs_plugin_descriptor_t.self, 1)
            plugin.pointee.id = string(&input, present: true)
            plugin.pointee.name = string(&input, present: true)
            plugin.pointee.version = string(&input, present: true)
            plugin.pointee.vendor = string(&input, present: true)
            plugin.pointee.description = string(&input, present: flags & 2 != 0)
            let count = Int(input.u8() % 5)
            plugin.pointee.operation_count = flags & 4 != 0 ? input.u32() : UInt32(count)
            if count > 0 {
                let operations = array(rbs_operation_descriptor_t.self, count)
                for index in 0..<count { operations[index] = operation(&input) }
                plugin.pointee.operations = UnsafePointer(operations)
            }
            entry.pointee.descriptor = UnsafePointer(plugin)
        }
        if flags & 8 != 0 {
            entry.pointee.get_extension = stubGetExtension
            let requirements = array(rbs_requirements_extension_t.self, 1)
            let count = Int(input.u8() % 4)
            requirements.pointee.count = UInt32(count)
            if count > 0 {
                let features = array(UnsafePointer<CChar>?.self, count)
                for index in 0..<count { features[index] = string(&input, present: true) }
                requirements.pointee.features = UnsafePointer(features)
            }
            requirementsTable = flags & 16 != 0 ? requirements : nil
            let labels = array(rbs_document_labels_extension_t.self, 1)
            let labelCount = Int(input.u8() % 6)
            labels.pointee.count = UInt32(labelCount)
            if labelCount > 0 {
                let list = array(rbs_document_label_t.self, labelCount)
                for index in 0..<labelCount {
                    let present = input.u8()
                    list[index].operation_id = string(&input, present: true)
                    list[index].key = string(&input, present: true)
                    list[index].role = UInt32(input.u8() % 12)
                    list[index].label = string(&input, present: present & 1 != 0)
                    list[index].atom_id = string(&input, present: present & 2 != 0)
                }
                labels.pointee.labels = UnsafePointer(list)
            }
            labelsTable = flags & 32 != 0 ? labels : nil
        }
        return UnsafePointer(entry)
    }

    mutating func operation(_ input: inout FuzzInput) -> rbs_operation_descriptor_t {
        var operation = rbs_operation_descriptor_t()
        let flags = input.u8()
        operation.id = string(&input, present: true)
        operation.title = string(&input, present: true)
        operation.category = string(&input, present: true)
        if flags & 1 == 0 { operation.create = stubCreate }
        if flags & 2 == 0 { operation.destroy = stubDestroy }
        if flags & 4 == 0 { operation.build_document = stubBuild }
        if flags & 8 != 0 { operation.value_changed = stubValueChanged }
        if flags & 16 != 0 { operation.action = stubAction }
        let atomCount = Int(input.u8() % 7)
        operation.atom_count = UInt32(atomCount)
        if atomCount > 0 {
            let atoms = array(rbs_atom_descriptor_t.self, atomCount)
            for index in 0..<atomCount { atoms[index] = atom(&input) }
            operation.atoms = UnsafePointer(atoms)
        }
        let functionCount = Int(input.u8() % 4)
        operation.function_count = UInt32(functionCount)
        if functionCount > 0 {
            let functions = array(rbs_function_descriptor_t.self, functionCount)
            for index in 0..<functionCount {
                functions[index].name = string(&input, present: true)
                functions[index].symbol = string(&input, present: true)
                functions[index].signature = string(&input, present: true)
                functions[index].flags = UInt32(input.u8() % 4)
            }
            operation.functions = UnsafePointer(functions)
        }
        return operation
    }

    mutating func atom(_ input: inout FuzzInput) -> rbs_atom_descriptor_t {
        var atom = rbs_atom_descriptor_t()
        let present = input.u8()
        atom.id = string(&input, present: true)
        atom.kind = UInt32(input.u8() % 8)
        atom.input_type = UInt32(input.u8() % 6)
        atom.flags = UInt32(input.u8())
        atom.min_length = UInt32(input.u8())
        atom.max_length = UInt32(input.u8())
        atom.caption = string(&input, present: true)
        atom.hint = string(&input, present: present & 1 != 0)
        atom.currency = string(&input, present: present & 2 != 0)
        atom.show_if = string(&input, present: present & 4 != 0)
        atom.valid_if = string(&input, present: present & 8 != 0)
        atom.error_text = string(&input, present: present & 16 != 0)
        atom.filter = string(&input, present: present & 32 != 0)
        atom.default_value = string(&input, present: present & 64 != 0)
        if present & 128 != 0 {
            let count = Int(input.u8() % 5)
            atom.option_count = UInt32(count)
            if count > 0 {
                let options = array(rbs_option_t.self, count)
                for index in 0..<count {
                    options[index].value = string(&input, present: true)
                    options[index].title = string(&input, present: true)
                }
                atom.options = UnsafePointer(options)
            }
        }
        return atom
    }
}

runFuzzer(fuzzDescriptors)
