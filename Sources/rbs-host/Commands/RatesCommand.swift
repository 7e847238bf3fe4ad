import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

/// `rbs-host rates [import FILE --margin PERCENT]`: the bank's exchange rates, from the Bank of Russia's daily rates.
struct RatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rates", abstract: "The bank's exchange rates (the Bank of Russia's daily rates and the bank's margin).",
        subcommands: [Import.self, Show.self], defaultSubcommand: Show.self)

    /// One rate, for --json: decimals as plain text, never binary floats.
    struct RateJSON: Encodable {
        var currency: String
        var name: String
        var date: String
        var official: String
        var buy: String
        var sell: String
        var margin: String
        var importedAt: String
        var source: String

        init(_ rate: ExchangeRate) {
            currency = rate.currency
            name = rate.name
            date = rate.date
            official = "\(rate.official)"
            buy = "\(rate.buy)"
            sell = "\(rate.sell)"
            margin = "\(rate.margin)"
            importedAt = ISO8601DateFormatter().string(from: rate.importedAt)
            source = rate.source
        }
    }

    /// The rates in the operator's language (`--lang`): the headings; the rates as kept (a script reads `--json`).
    static func table(_ rates: [ExchangeRate], _ language: HostLanguage = .en) -> String {
        var table = Table(header: language == .ru ? ["ВАЛЮТА", "ДАТА", "КУРС ЦБ", "БАНК ПОКУПАЕТ", "БАНК ПРОДАЁТ", "НАЗВАНИЕ"]
                                                  : ["CURRENCY", "DATE", "OFFICIAL", "BANK BUYS", "BANK SELLS", "NAME"])
        table.rows = rates.map { ["\($0.currency)", $0.date, "\($0.official)", "\($0.buy)", "\($0.sell)", $0.name] }
        return table.render()
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import the Bank of Russia's daily rates (XML_daily.asp as published) with the bank's margin.",
            discussion: "Each currency's bank rates are the official rate per unit ∓ the margin (buy below, sell above), kept to 6 decimals. An import adds rows; earlier rates stay in the ledger.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The daily rates file (XML_daily.asp, windows-1251 as published).") var file: String
        @Option(help: ArgumentHelp("The bank's margin on either side of the official rate, in percent (1.5).", valueName: "PERCENT"))
        var margin: String
        @Option(name: .customLong("accept-change"), help: ArgumentHelp(
            "Import CURRENCY's rate although it moved more than 25 % from the current one (checked by you; repeatable).",
            valueName: "CURRENCY"))
        var acceptChange: [String] = []
        @Flag(help: "Print the rates as kept: [{currency, name, date, official, buy, sell, margin, importedAt, source}].") var json = false

        func run() throws {
            do {
                guard let percent = DailyRates.decimal(margin) else {
                    throw ValidationError("--margin '\(margin)' is not a percentage: write it as 1.5")
                }
                guard let data = FileManager.default.contents(atPath: file) else { throw DailyRatesError.unreadable(file: file) }
                let day = try DailyRates.read(data, file: file)
                let ledger = try global.openLedger()  // on the host's clock: a conversion's rate age counts from it
                defer { try? ledger.close() }
                let kept = try ledger.importRates(day.rates, date: day.date, margin: percent / 100,
                                                  source: URL(fileURLWithPath: file).lastPathComponent,
                                                  accepting: Set(acceptChange.map { $0.uppercased() }))
                if json { JSONOutput.print(kept.map(RateJSON.init)) } else {
                    print(global.language.pick("imported \(kept.count) rates of \(day.date) with a margin of \(percent) %",
                                               "загружено курсов на \(day.date): \(kept.count), маржа \(percent) %"))
                    print(RatesCommand.table(kept, global.language))
                }
            } catch let error as ValidationError {
                throw error
            } catch {
                Terminal.error(String(describing: error))
                throw ExitCode.failure
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "The bank's current rate of each currency.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print [{currency, name, date, official, buy, sell, margin, importedAt, source}].") var json = false

        func run() throws {
            do {
                let ledger = try global.openLedger()  // on the host's clock: a conversion's rate age counts from it
                defer { try? ledger.close() }
                let rates = try ledger.rates()
                if json { JSONOutput.print(rates.map(RateJSON.init)) } else {
                    print(rates.isEmpty ? global.language.pick("no rates yet: rbs-host rates import FILE --margin PERCENT",
                                                               "курсов ещё нет: rbs-host rates import ФАЙЛ --margin ПРОЦЕНТ")
                                        : RatesCommand.table(rates, global.language))
                }
            } catch {
                Terminal.error(String(describing: error))
                throw ExitCode.failure
            }
        }
    }
}
