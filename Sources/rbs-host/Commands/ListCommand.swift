import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

/// One line of `list --json`.
struct OperationSummary: Encodable {
    var id: String
    var title: String
    var category: String
    var plugin: String
    var pluginVersion: String
    /// Present only when the operation cannot be run now (its plugin is quarantined): why.
    var unavailable: String?

    init(_ operation: OperationListing) {
        id = operation.id
        title = operation.descriptor.title
        category = operation.descriptor.category
        plugin = operation.pluginID
        pluginVersion = operation.pluginVersion
        unavailable = operation.unavailable
    }
}

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the operations of all loaded plugins.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print a JSON array of {id, title, category, plugin, pluginVersion}.") var json = false

    func run() throws {
        try Self.list(global, json: json)
    }

    /// What `list` does with its options: also the start-up fast path's (``QuickList``), so both print the same.
    /// - Returns: the runtime that listed them (the fast path ends the process with it alive).
    @discardableResult
    static func list(_ options: some HostOptions, json: Bool) throws -> Runtime {
        let runtime = try options.makeRuntime()
        Listing.printFailures(runtime.registry, language: options.language)
        if json {
            var text = OperationSummary.json(runtime.registry.operations.map(OperationSummary.init))
            text.append(UInt8(ascii: "\n"))
            // As bytes, whole (nothing else of `list` goes to standard output, so nothing waits in `print`'s buffer
            // to come first); stops, as `print` does, when the output is closed.
            _ = text.withUnsafeBytes { FileDescriptor.writeAll(STDOUT_FILENO, $0) }
        } else {
            print(Listing.operations(of: runtime.registry, language: options.language))
        }
        return runtime
    }
}

/// Text renderings shared by the commands and the REPL.
enum Listing {
    /// The registry's operations as a table; with none, why there are none.
    static func operations(of registry: PluginRegistry, language: HostLanguage = .en) -> String {
        let operations = registry.operations
        guard operations.isEmpty else { return Self.operations(operations, language: language) }
        if let problem = registry.folderProblem { return HostMessage.Report.noOperationsFolder(problem).text(language) }
        let failed = registry.records.filter { $0.status == .failed }.count
        guard failed == 0 else { return HostMessage.Report.noOperationsFailed(failed).text(language) }
        return Self.operations(operations, language: language)
    }

    /// The operations as a table, its headers in `language`.
    static func operations(_ operations: [OperationListing], language: HostLanguage = .en) -> String {
        func text(_ report: HostMessage.Report) -> String { report.text(language) }
        guard !operations.isEmpty else { return text(.noOperations) }
        var table = Table(header: [text(.numberColumn), text(.operationColumn), text(.titleColumn), text(.categoryColumn), text(.pluginColumn)])
        for (index, operation) in operations.enumerated() {
            let shown = operation.descriptor.localized(language)
            table.rows.append(["\(index + 1)", operation.id, shown.title, shown.category,
                               "\(operation.pluginID) \(operation.pluginVersion)"])
        }
        let unavailable = operations.compactMap { operation in operation.unavailable.map { text(.unavailable(operation: operation.id, why: $0)) } }
        return ([table.render()] + (unavailable.isEmpty ? [] : [""] + unavailable)).joined(separator: "\n")
    }

    /// The plugin files as a table, its headers and states in `language`.
    static func plugins(_ records: [PluginRecord], language: HostLanguage = .en) -> String {
        func text(_ report: HostMessage.Report) -> String { report.text(language) }
        guard !records.isEmpty else { return text(.noPluginFiles) }
        var table = Table(header: [text(.fileColumn), text(.idColumn), text(.versionColumn), text(.abiColumn), text(.statusColumn)])
        for record in records {
            table.rows.append([record.path, record.id ?? "-", record.version ?? "-", record.abi ?? "-",
                               text(.pluginStatus(record.status))])
        }
        let errors = records.compactMap { HostMessage.describe($0, language) }
        return ([table.render()] + (errors.isEmpty ? [] : [""] + errors)).joined(separator: "\n")
    }

    /// One line per failed plugin, on standard error, so lists on standard output stay clean.
    static func printFailures(_ registry: PluginRegistry, language: HostLanguage) {
        for record in registry.failedRecords {
            Terminal.error(HostMessage.describe(record, language) ?? record.path, label: HostMessage.errorLabel.text(language))
        }
    }
}
