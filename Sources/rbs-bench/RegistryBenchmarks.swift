import Foundation
import RBSCore
#if canImport(Glibc)
import Glibc
#endif

/// Start-up with 500 plugins (warm and cold cache) next to a plain C loop that dlopens the same files, reload
/// latency, and resident memory with 500 plugins listed and 50 loaded.
struct RegistryBenchmarks {
    let work: URL
    /// The release `rbs-host` beside this benchmark.
    let host: URL
    let include: URL

    static let pluginCount = 500

    func run() throws -> [BenchmarkFigure] {
        let plugins = work.appendingPathComponent("plugins")
        try PluginGenerator(include: include, work: work).generate(count: Self.pluginCount, into: plugins)
        let loop = try compileLoop()
        let files = try PluginRegistry.pluginFiles(in: plugins.path)

        let plainLoop = median(of: 15) { try time(loop.path, files) }
        let data = work.appendingPathComponent("data")
        let listArguments = ["list", "--json", "--dev", "--plugins", plugins.path, "--data", data.path]
        let cold = median(of: 3) {
            try? FileManager.default.removeItem(at: data)
            return try time(host.path, listArguments)
        }
        _ = try time(host.path, listArguments)  // leaves a warm cache
        let warm = median(of: 15) { try time(host.path, listArguments) }

        var figures = [
            BenchmarkFigure(name: "start to operations listed, 500 plugins, warm cache (rbs-host list)", value: warm,
                            unit: "ms", baselineName: "plain C loop dlopen-ing the 500 files", baselineValue: plainLoop,
                            target: "≤ 1.0× the plain loop", met: warm <= plainLoop),
            BenchmarkFigure(name: "start to operations listed, 500 plugins, cold cache (scanned in a child)", value: cold,
                            unit: "ms", baselineName: "plain C loop dlopen-ing the 500 files", baselineValue: plainLoop,
                            target: "reported (no target)", met: true),
        ]
        figures.append(try reloadLatency())
        figures.append(try memory(plugins: plugins, data: data))
        return figures
    }

    // MARK: - The plain loop

    private func compileLoop() throws -> URL {
        let source = work.appendingPathComponent("dlopen_loop.c")
        try """
        #include <dlfcn.h>
        #include <stdio.h>
        #include "rbs_plugin.h"
        int main(int argc, char **argv) {
            unsigned operations = 0;
            for (int i = 1; i < argc; i++) {
                void *handle = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
                if (!handle) { fprintf(stderr, "%s\\n", dlerror()); return 1; }
                rbs_plugin_entry_fn entry = (rbs_plugin_entry_fn)dlsym(handle, RBS_ENTRY_SYMBOL);
                const rbs_plugin_entry_t *e = entry ? entry() : NULL;
                if (e && e->descriptor) operations += e->descriptor->operation_count;
            }
            printf("%u operations\\n", operations);
            return 0;
        }
        """.write(to: source, atomically: true, encoding: .utf8)
        let binary = work.appendingPathComponent("dlopen_loop")
        try Shell.run("/usr/bin/env", ["cc", "-O2", "-I", include.path, "-o", binary.path, source.path, "-ldl"])
        return binary
    }

    // MARK: - Reload latency

    private func reloadLatency() throws -> BenchmarkFigure {
        let folder = work.appendingPathComponent("reload")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let generator = PluginGenerator(include: include, work: work.appendingPathComponent("reload-build"))
        let versions = try generator.versions(count: 21)
        let file = folder.appendingPathComponent("plugin.so")
        try FileManager.default.copyItem(at: versions[0].file, to: file)
        let runtime = Runtime(paths: HostPaths(plugins: folder.path, data: work.appendingPathComponent("reload-data")),
                              accounts: StaticAccounts([]), log: StandardErrorLog(minimum: .error))
        runtime.loadPlugins()
        let watcher = try runtime.watch { _ in }
        defer { watcher.stop() }
        var samples: [Double] = []
        for version in versions.dropFirst() {
            let staged = folder.appendingPathComponent(".staged")
            try FileManager.default.copyItem(at: version.file, to: staged)
            let start = ContinuousClock.now
            guard rename(staged.path, file.path) == 0 else { throw Shell.Failure(description: "rename failed") }
            while runtime.registry.records.first?.version != version.version {
                if start.duration(to: .now) > .seconds(5) { throw Shell.Failure(description: "reload never happened") }
                usleep(100)
            }
            samples.append(milliseconds(start.duration(to: .now)))
        }
        samples.sort()
        let median = samples[samples.count / 2]
        return BenchmarkFigure(name: "reload latency: rename into the folder → new version listed (median of 20)",
                               value: median, unit: "ms", baselineName: "inotify debounce", baselineValue: 15,
                               target: "≤ 50 ms median", met: median <= 50)
    }

    // MARK: - Memory

    private func memory(plugins: URL, data: URL) throws -> BenchmarkFigure {
        let before = Self.residentMegabytes()
        let scanner = ChildProcessScanner(executable: host, arguments: ["scan", "--dev", "--data", data.path])
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: data), accounts: StaticAccounts([]),
                              log: StandardErrorLog(minimum: .error), scanner: scanner)
        runtime.loadPlugins()
        let operations = runtime.registry.operations
        for operation in operations.prefix(50) { _ = runtime.registry.operation(id: operation.id) }
        let after = Self.residentMegabytes()
        let loaded = runtime.registry.plugins.count
        guard operations.count == Self.pluginCount, loaded == 50 else {
            throw Shell.Failure(description: "expected 500 listed and 50 loaded, got \(operations.count) and \(loaded)")
        }
        return BenchmarkFigure(name: "resident memory, 500 plugins listed and 50 loaded", value: after, unit: "MB",
                               baselineName: "the same process before the host started", baselineValue: before,
                               target: "≤ 64 MB", met: after <= 64)
    }

    static func residentMegabytes() -> Double {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Double(Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }

    // MARK: - Timing

    /// Wall time of one run of a program, spawned directly (posix_spawn, output to /dev/null) so the measurement
    /// holds the program and not Foundation's process set-up; the same for the host and the plain loop.
    private func time(_ executable: String, _ arguments: [String]) throws -> Double {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
            throw Shell.Failure(description: "cannot start \(executable)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let elapsed = milliseconds(start.duration(to: .now))
        guard status == 0 else { throw Shell.Failure(description: "\(executable) exited with status \(status)") }
        return elapsed
    }

    private func median(of count: Int, _ sample: () throws -> Double) -> Double {
        var samples = (0..<count).compactMap { _ in try? sample() }
        guard !samples.isEmpty else { return .nan }
        samples.sort()
        return samples[samples.count / 2]
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Generates C plugins for benchmarks: one template compiled once, then copied with its ids patched, so 500
/// distinct plugins cost one compile.
struct PluginGenerator {
    let include: URL
    let work: URL

    private static let template = """
    #include "rbs_plugin.h"
    static const rbs_atom_descriptor_t atoms[] = {
        { .id = "account", .kind = RBS_ATOM_ACCOUNT, .caption = "Account", .filter = "NOT blocked" },
        { .id = "amount", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_AMOUNT, .currency = "RUB", .caption = "Amount",
          .valid_if = "amount > 0", .error_text = "more than zero" },
        { .id = "note", .kind = RBS_ATOM_INPUT, .caption = "Note", .show_if = "amount > 1000", .flags = RBS_ATOM_FLAG_OPTIONAL },
        { .id = "send", .kind = RBS_ATOM_BUTTON, .caption = "Send", .flags = RBS_ATOM_FLAG_SUBMIT },
    };
    static int token;
    static void *create(const rbs_operation_descriptor_t *o, const rbs_host_t *h, rbs_module_t *m) { (void)o; (void)h; (void)m; return &token; }
    static void destroy(void *i) { (void)i; }
    static rbs_status_t build(void *i, const rbs_document_builder_t *b) { (void)i; return b->put(b, "x", "1") ? RBS_OK : RBS_FAILED; }
    static const rbs_operation_descriptor_t operations[] = {
        { .id = "gen.op.XXXXXX", .title = "Generated operation XXXXXX", .category = "Generated", .atom_count = 4,
          .atoms = atoms, .create = create, .destroy = destroy, .build_document = build },
    };
    static const rbs_plugin_descriptor_t descriptor = { .id = "gen.plugin.XXXXXX", .name = "Generated",
        .version = "VERSION_", .vendor = "rbs-bench", .operation_count = 1, .operations = operations };
    static const rbs_plugin_entry_t entry = { .abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor };
    RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
    """

    private func compileTemplate() throws -> [UInt8] {
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let source = work.appendingPathComponent("template.c")
        try Self.template.write(to: source, atomically: true, encoding: .utf8)
        let output = work.appendingPathComponent("template.so")
        try Shell.run("/usr/bin/env", ["cc", "-std=c11", "-O2", "-shared", "-fPIC", "-fvisibility=hidden",
                                        "-I", include.path, "-o", output.path, source.path])
        return [UInt8](try Data(contentsOf: output))
    }

    /// Writes `count` plugins (gen.plugin.000001 …) into `folder`.
    func generate(count: Int, into folder: URL) throws {
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let template = try compileTemplate()
        for index in 1...count {
            let bytes = Self.patch(template, "XXXXXX", with: String(format: "%06d", index))
            try Data(Self.patch(bytes, "VERSION_", with: "1.0.0\0\0\0")).write(
                to: folder.appendingPathComponent(String(format: "plugin-%06d.so", index)))
        }
    }

    /// `count` versions 1.0.0, 1.0.1, … of one plugin.
    func versions(count: Int) throws -> [(version: String, file: URL)] {
        let template = try compileTemplate()
        return try (0..<count).map { index in
            let version = String(format: "1.%d.%d", index / 10, index % 10)
            let padded = version + String(repeating: "\0", count: 8 - version.utf8.count)
            let bytes = Self.patch(Self.patch(template, "XXXXXX", with: "000001"), "VERSION_", with: padded)
            let file = work.appendingPathComponent("version-\(index).so")
            try Data(bytes).write(to: file)
            return (version, file)
        }
    }

    /// Replaces every occurrence of `marker` with `replacement` (same length).
    static func patch(_ bytes: [UInt8], _ marker: String, with replacement: String) -> [UInt8] {
        let needle = Array(marker.utf8), new = Array(replacement.utf8)
        var result = bytes
        var index = 0
        while index + needle.count <= result.count {
            if result[index] == needle[0], Array(result[index..<index + needle.count]) == needle {
                result.replaceSubrange(index..<index + needle.count, with: new)
                index += needle.count
            } else {
                index += 1
            }
        }
        return result
    }
}

/// Runs a program, failing on a non-zero exit.
enum Shell {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(executable) \(arguments.prefix(3).joined(separator: " ")): exit \(process.terminationStatus): \(String(decoding: text, as: UTF8.self).prefix(400))")
        }
    }
}
