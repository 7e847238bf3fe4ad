import Foundation

// rbs-bench: every figure next to its baseline, measured in the same run; the results go to BENCHMARKS.md.
// Usage: swift run -c release rbs-bench [expressions|ledger|registry|isolation ...] [--output FILE] [--quick]
// --quick: a twentieth of the loop iterations, for a profile under valgrind --tool=callgrind (not for the figures);
// `ffi` or `seed` instead of a section name: that expression figure alone, for the same purpose.

// `rbs-bench signer …`: one signing process of make bench-pg (see SignerProcess.swift).
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "signer" {
    exit(signerProcess(Array(CommandLine.arguments.dropFirst(2))))
}

let arguments = Array(CommandLine.arguments.dropFirst())
let outputIndex = arguments.firstIndex(of: "--output")
let output = outputIndex.flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil } ?? "BENCHMARKS.md"
let secondsValue = arguments.firstIndex(of: "--seconds").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
/// The sections of the report, in its order: each measured under its name below, or kept from the previous report.
enum SectionTitle {
    static let expressions = "Forms and expressions (issue 3)"
    static let ledger = "Signing, journal and core (issue 5)"
    static let registry = "Plugin registry (issue 7)"
    static let isolation = "Plugin workers (issue 15)"
    static let all = [expressions, ledger, registry, isolation]
}
let chosen = Set(arguments.filter { !$0.hasPrefix("-") && $0 != output && $0 != secondsValue })
let usage = """
    usage: rbs-bench [expressions|ledger|registry|isolation ...] [--output FILE] [--quick]
           rbs-bench ffi|seed|roundtrips|serial [--seconds S] [--quick]   one figure alone, for a profile (writes nothing)
           rbs-bench signer --database URL|sqlite --customer NAME --seconds S [--start-at UNIX] [--group N]
    With no section, every section is measured; the figures replace BENCHMARKS.md's (or FILE's) sections, keeping its
    serving and PostgreSQL parts.

    """
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage, terminator: "")
    exit(0)
}
let sectionNames: Set<String> = ["expressions", "ffi", "seed", "ledger", "registry", "isolation", "roundtrips", "serial"]
if let unknown = arguments.first(where: { $0.hasPrefix("-") && !["--output", "--quick", "--seconds"].contains($0) && $0 != output && $0 != secondsValue })
    ?? chosen.first(where: { !sectionNames.contains($0) }) {
    FileHandle.standardError.write(Data("rbs-bench: unknown argument \"\(unknown)\"\n\(usage)".utf8))
    exit(2)
}
/// `--seconds S` (the profiling modes'): a positive number of seconds, 10 when not given.
let seconds: Double
if let secondsValue {
    guard let value = Double(secondsValue), value.isFinite, value > 0, value <= 86_400 else {
        FileHandle.standardError.write(Data("rbs-bench: --seconds takes a number of seconds above 0 and at most 86400, not \"\(secondsValue)\"\n".utf8))
        exit(2)
    }
    seconds = value
} else if arguments.last == "--seconds" {
    FileHandle.standardError.write(Data("rbs-bench: --seconds needs a number of seconds\n".utf8))
    exit(2)
} else {
    seconds = 10
}
func wanted(_ name: String) -> Bool { chosen.isEmpty || chosen.contains(name) }
/// What the expression loops' iterations are divided by (`--quick`).
let quickDivisor = arguments.contains("--quick") ? 20 : 1

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let work = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-bench-\(getpid())")
try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

var sections: [(title: String, figures: [BenchmarkFigure])] = []
let startLoad = loadAverage()
if wanted("expressions") || chosen.contains("ffi") || chosen.contains("seed") {
    print("expressions…")
    sections.append((SectionTitle.expressions, expressionBenchmarks()))
}
if wanted("ledger") {
    print("signing, journal and core…")
    sections.append((SectionTitle.ledger, ledgerBenchmarks(directory: work.appendingPathComponent("ledger"), quick: quickDivisor > 1)))
}
if wanted("registry") {
    print("plugin registry…")
    let host = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("rbs-host")
    if FileManager.default.isExecutableFile(atPath: host.path) {
        do {
            let figures = try RegistryBenchmarks(work: work.appendingPathComponent("registry"), host: host,
                                                 include: repository.appendingPathComponent("SDK/Sources/CRBSPlugin/include"),
                                                 examples: repository.appendingPathComponent("Plugins")).run()
            sections.append((SectionTitle.registry, figures))
        } catch {
            FileHandle.standardError.write(Data("registry benchmarks failed: \(error)\n".utf8))
        }
    } else {
        FileHandle.standardError.write(Data("registry benchmarks need \(host.path): build it with `swift build -c release --product rbs-host` (make bench does)\n".utf8))
    }
}

if chosen.contains("serial") {
    // For a profile only: group commit's committing part alone, for --seconds (10 by default); writes nothing.
    let status = ledgerSerialProfile(directory: work, seconds: seconds)
    try? FileManager.default.removeItem(at: work)
    exit(status)
}
if chosen.contains("roundtrips") {
    // For a profile only: 20,000 value_changed round trips through a worker; writes nothing.
    let host = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("rbs-host")
    let perTrip = try IsolationBenchmarks(work: work.appendingPathComponent("isolation"), host: host, repository: repository)
        .roundTripsOnly(count: 20_000)
    print(String(format: "%.2f µs per value_changed round trip through a worker", perTrip))
    try? FileManager.default.removeItem(at: work)
    exit(0)
}
if wanted("isolation") {
    print("plugin workers…")
    let host = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("rbs-host")
    if FileManager.default.isExecutableFile(atPath: host.path) {
        do {
            let figures = try IsolationBenchmarks(work: work.appendingPathComponent("isolation"), host: host,
                                                  repository: repository).run()
            sections.append((SectionTitle.isolation, figures))
        } catch {
            FileHandle.standardError.write(Data("isolation benchmarks failed: \(error)\n".utf8))
        }
    } else {
        FileHandle.standardError.write(Data("isolation benchmarks need \(host.path): build it with `swift build -c release --product rbs-host` (make bench does)\n".utf8))
    }
}

func format(_ value: Double) -> String {
    value.isNaN ? "—" : value >= 100 ? String(format: "%.0f", value) : value >= 1 ? String(format: "%.2f", value) : String(format: "%.3f", value)
}

/// The load average (1, 5, 15 minutes), as `uptime` shows it.
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
}

var report = """
# Benchmarks

Measured by `make bench` (`rbs-bench`, release build) on \(ProcessInfo.processInfo.processorCount) cores, \
\(ISO8601DateFormatter().string(from: Date())); load average at the start \(startLoad), at the end \(loadAverage()) \
(1/5/15 min, as `uptime` shows it). Each figure stands next to its baseline, measured in the same run; "ratio" is \
value ÷ baseline.

How the baselines are kept honest: the C ones (a direct call through a volatile function pointer, a bare libffi \
`ffi_call` with a cif prepared once, the callee `rbs_bench_add` itself) live in `Sources/CBenchFloor`, compiled with \
`-O2` in their own target and reached only across the module boundary; every checksum goes to a C sink \
(`rbs_bench_sink`); the Swift closure baselines are held in an object laundered through a C function \
(`rbs_bench_opaque`), so the optimiser cannot see which closure it calls. The in-process expression and libffi \
loops are timed with the measuring thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), so time the core spent on other \
processes of this shared machine is not counted in a figure or in its baseline. Whole-process figures are spawned \
and timed from outside. "bounded by" names what a profile shows the figure spends its time on: valgrind's callgrind \
(instruction counts, repeatable on a loaded machine; valgrind 3.19 needs the binary's DWARF 5 stripped first: \
`objcopy --strip-debug`; `rbs-bench ffi --quick` or `seed --quick` profiles one figure alone), `perf stat` with \
software events (`perf stat -e instructions` is not supported on this virtual machine; `rbs-bench roundtrips` runs \
only worker round trips, for `perf stat -e context-switches`) and, for the ledger, `perf record -e cpu-clock \
--call-graph dwarf` (valgrind's CPU has no ADX, so under callgrind BoringSSL's Ed25519 takes a slower path and the \
signing counts say little about this machine).

"""
/// The sections of the previous report, by title ("## Title" up to the next section or marker), so a run of some
/// sections keeps the others' figures and notes instead of dropping them.
let previousReport = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
func previousSection(_ title: String) -> String? {
    let lines = previousReport.components(separatedBy: "\n")
    guard let start = lines.firstIndex(of: "## \(title)") else { return nil }
    var end = start + 1
    while end < lines.count && !lines[end].hasPrefix("## ") && !lines[end].hasPrefix("<!-- ") { end += 1 }
    return lines[start..<end].joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
}
if sections.count < SectionTitle.all.count {
    report += "\nThis run measured: \(sections.map(\.title).joined(separator: "; ")); the other sections are as an earlier run wrote them.\n"
}
for title in SectionTitle.all {
    guard let section = sections.first(where: { $0.title == title }) else {
        if let kept = previousSection(title) { report += "\n" + kept + "\n" }
        continue
    }
    report += "\n## \(section.title)\n\n| measure | value | baseline (same run) | ratio | target | met | bounded by |\n|---|---|---|---|---|---|---|\n"
    for figure in section.figures {
        let ratio = figure.baselineValue > 0 ? String(format: "%.2f×", figure.value / figure.baselineValue) : "—"
        report += "| \(figure.name) | \(format(figure.value)) \(figure.unit) | \(figure.baselineName): \(format(figure.baselineValue)) \(figure.unit) | \(ratio) | \(figure.target ?? "none") | \(figure.metText) | \(figure.bound) |\n"
        print("\(figure.met.map { $0 ? "✓" : "✗" } ?? "·") \(figure.name): \(format(figure.value)) \(figure.unit) (\(figure.baselineName): \(format(figure.baselineValue)) \(figure.unit), \(ratio)) — \(figure.target ?? "no target")")
    }
}
// The serving and PostgreSQL figures come from other tools (Benchmarks/serve_load.py, wrk against `rbs-host serve`;
// Benchmarks/postgres_bench.py, make bench-pg): keep them, and the notes on the serving figures (written by hand
// beside serve_load.py's section, which that script replaces whole).
for part in ["serve", "serve-notes", "postgres"] {
    if let begin = previousReport.range(of: "<!-- \(part):begin -->"), let end = previousReport.range(of: "<!-- \(part):end -->"),
       begin.lowerBound < end.upperBound {
        report += "\n" + previousReport[begin.lowerBound..<end.upperBound] + "\n"
    }
}
// The notes written by hand after the last part (read against the figures they name) stay too.
if let end = previousReport.range(of: "<!-- postgres:end -->", options: .backwards) {
    let notes = previousReport[end.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
    if !notes.isEmpty { report += "\n" + notes + "\n" }
}
do {
    try report.write(toFile: output, atomically: true, encoding: .utf8)
    print("written to \(output)")
} catch {
    FileHandle.standardError.write(Data("cannot write \(output): \(error)\n".utf8))
}
