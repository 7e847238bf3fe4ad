import Foundation

// rbs-bench: every figure next to its baseline, measured in the same run; the results go to BENCHMARKS.md.
// Usage: swift run -c release rbs-bench [expressions|ledger|registry|isolation ...] [--output FILE]

let arguments = Array(CommandLine.arguments.dropFirst())
let outputIndex = arguments.firstIndex(of: "--output")
let output = outputIndex.flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil } ?? "BENCHMARKS.md"
let chosen = Set(arguments.filter { !$0.hasPrefix("--") && $0 != output })
func wanted(_ name: String) -> Bool { chosen.isEmpty || chosen.contains(name) }

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let work = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-bench-\(getpid())")
try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

var sections: [(title: String, figures: [BenchmarkFigure])] = []
if wanted("expressions") {
    print("expressions…")
    sections.append(("Forms and expressions (issue 3)", expressionBenchmarks()))
}
if wanted("ledger") {
    print("signing, journal and core…")
    sections.append(("Signing, journal and core (issue 5)", ledgerBenchmarks(directory: work.appendingPathComponent("ledger"))))
}
if wanted("registry") {
    print("plugin registry…")
    let host = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("rbs-host")
    if FileManager.default.isExecutableFile(atPath: host.path) {
        do {
            let figures = try RegistryBenchmarks(work: work.appendingPathComponent("registry"), host: host,
                                                 include: repository.appendingPathComponent("SDK/Sources/CRBSPlugin/include")).run()
            sections.append(("Plugin registry (issue 7)", figures))
        } catch {
            FileHandle.standardError.write(Data("registry benchmarks failed: \(error)\n".utf8))
        }
    } else {
        FileHandle.standardError.write(Data("registry benchmarks need \(host.path): build it with `swift build -c release --product rbs-host` (make bench does)\n".utf8))
    }
}

if wanted("isolation") {
    print("plugin workers…")
    let host = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("rbs-host")
    if FileManager.default.isExecutableFile(atPath: host.path) {
        do {
            let figures = try IsolationBenchmarks(work: work.appendingPathComponent("isolation"), host: host,
                                                  repository: repository).run()
            sections.append(("Plugin workers (issue 15)", figures))
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

var report = """
# Benchmarks

Measured by `swift run -c release rbs-bench` (or `make bench`) on \(ProcessInfo.processInfo.processorCount) cores, \
\(ISO8601DateFormatter().string(from: Date())). Each figure stands next to its baseline, measured in the same run.

"""
for section in sections {
    report += "\n## \(section.title)\n\n| measure | value | baseline | target | met |\n|---|---|---|---|---|\n"
    for figure in section.figures {
        report += "| \(figure.name) | \(format(figure.value)) \(figure.unit) | \(figure.baselineName): \(format(figure.baselineValue)) \(figure.unit) | \(figure.target) | \(figure.met ? "yes" : "**no**") |\n"
        print("\(figure.met ? "✓" : "✗") \(figure.name): \(format(figure.value)) \(figure.unit) (\(figure.baselineName): \(format(figure.baselineValue)) \(figure.unit)) — \(figure.target)")
    }
}
// The serving figures come from another tool (Benchmarks/serve_load.py, wrk against `rbs-host serve`): keep them.
if let previous = try? String(contentsOfFile: output, encoding: .utf8),
   let begin = previous.range(of: "<!-- serve:begin -->"), let end = previous.range(of: "<!-- serve:end -->"),
   begin.lowerBound < end.upperBound {
    report += "\n" + previous[begin.lowerBound..<end.upperBound] + "\n"
}
do {
    try report.write(toFile: output, atomically: true, encoding: .utf8)
    print("written to \(output)")
} catch {
    FileHandle.standardError.write(Data("cannot write \(output): \(error)\n".utf8))
}
