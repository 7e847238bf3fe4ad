import CRBSPlugin
import Foundation
import RBSLedger
import Testing
@testable import RBSCore

/// A plugin's texts in the reader's language (`rbs.texts/1`): the example plugins in C, Swift and Rust offer
/// Russian and English, read in this process and through a worker (the texts travel the wire), checked on both sides;
/// a plugin without the extension keeps its one language.
@Suite(.serialized)
struct PluginTextsTests {
    static func runtime(isolated: Bool) throws -> Runtime { try DocumentReviewTests.runtime(isolated: isolated) }

    /// The listing's titles and categories, as `list` prints them, per language.
    @Test("list shows each example's title and category in the reader's language", arguments: [false, true])
    func listingFollowsTheLanguage(isolated: Bool) throws {
        let runtime = try Self.runtime(isolated: isolated)
        defer { runtime.registry.unloadAll() }
        func titles(_ language: HostLanguage) -> [String: String] {
            Dictionary(uniqueKeysWithValues: runtime.registry.operations.map { listing in
                let shown = listing.localized(language).descriptor
                return (listing.id, "\(shown.title) / \(shown.category)")
            })
        }
        let russian = titles(.ru), english = titles(.en)
        #expect(russian["transfer.own"] == "Перевод между своими счетами / Переводы")
        #expect(english["transfer.own"] == "Transfer between own accounts / Transfers")
        #expect(russian["pay.pp.quick"] == "Быстрый платёж / Платежи")
        #expect(english["pay.pp.quick"] == "Quick payment / Payments")
        #expect(russian["card.block"] == "Блокировка карты / Карты")
        #expect(english["card.block"] == "Block a card / Cards")
    }

    /// The form a person fills: captions, hints, error texts and option titles of the C, Swift and Rust examples.
    @Test("the form's captions, hints, errors and option titles follow the session's language", arguments: [false, true])
    func formFollowsTheLanguage(isolated: Bool) throws {
        let runtime = try Self.runtime(isolated: isolated)
        defer { runtime.registry.unloadAll() }
        let transfer = try runtime.open("transfer.own")
        defer { transfer.close() }
        transfer.language = .ru
        #expect(transfer.atom("fromAccount")?.caption == "Списать со счёта")
        #expect(transfer.operation.descriptor.title == "Перевод между своими счетами")
        #expect(transfer.operation.descriptor.atoms.first { $0.id == "amount" }?.errorText == "Введите сумму больше нуля")
        transfer.language = .en
        #expect(transfer.atom("fromAccount")?.caption == "Debit account")
        #expect(transfer.atom("btnTransfer")?.caption == "Transfer")
        #expect(transfer.operation.descriptor.atoms.first { $0.id == "amount" }?.errorText == "Enter an amount greater than zero")

        let card = try runtime.open("card.block")
        defer { card.close() }
        card.language = .en
        #expect(card.atom("reason")?.caption == "Reason for blocking")
        #expect(card.operation.descriptor.atoms.first { $0.id == "reason" }?.options.map(\.title)
                == ["Lost", "Stolen", "Compromised", "Other"])
        card.language = .ru
        #expect(card.atom("reason")?.caption == "Причина блокировки")
        #expect(card.operation.descriptor.atoms.first { $0.id == "cardNumber" }?.hint
                == "Одна из ваших карт: номер на её лицевой стороне (4111 1111 1111 1111) или маскированный номер, как в списке ваших карт (4111 11** **** 1111). Карты Мир, Visa и Mastercard.")

        let quick = try runtime.open("pay.pp.quick")
        defer { quick.close() }
        quick.language = .en
        #expect(quick.atom("destInn")?.caption == "Payee's INN")
        quick.language = .ru
        #expect(quick.atom("destInn")?.caption == "ИНН получателя")
        #expect(quick.operation.descriptor.atoms.first { $0.id == "destBic" }?.hint == "9 цифр; название банка появится ниже")
    }

    /// pay.pp.tax declares its texts in Russian and translates every one (`rbs.texts/1`): an English form carries no
    /// Russian sentence, only the codes of order 107n (ТП, МС.01.2026: two letters), which are what its fields hold.
    @Test("pay.pp.tax: every caption, hint and error text in English too", arguments: [false, true])
    func taxFormInEnglish(isolated: Bool) throws {
        let runtime = try Self.runtime(isolated: isolated)
        defer { runtime.registry.unloadAll() }
        let tax = try runtime.open("pay.pp.tax")
        defer { tax.close() }
        tax.language = .ru
        let russian = tax.operation.descriptor.atoms
        tax.language = .en
        let english = tax.operation.descriptor.atoms
        /// The words of three letters or more with a Cyrillic letter in `text`.
        func russianWords(_ text: String?) -> [Substring] {
            (text ?? "").split(whereSeparator: { !$0.isLetter })
                .filter { $0.count >= 3 && $0.unicodeScalars.contains { (0x0400...0x04FF).contains($0.value) } }
        }
        #expect(russian.compactMap(\.hint).filter { !$0.isEmpty }.count == 12)
        #expect(russian.compactMap(\.errorText).filter { !$0.isEmpty }.count == 12)
        for (ru, en) in zip(russian, english) {
            for (what, ruText, enText) in [("caption", ru.caption, en.caption), ("hint", ru.hint, en.hint), ("error", ru.errorText, en.errorText)]
            where ruText.map({ !russianWords($0).isEmpty }) == true {
                #expect(russianWords(enText).isEmpty, "\(ru.id)'s \(what) in English: \(enText ?? "none")")
            }
        }
        #expect(english.first { $0.id == "kbk" }?.hint == "Budget classification code: 20 digits; for the single tax payment 18201061201010000510")
        #expect(russian.first { $0.id == "kbk" }?.hint == "Код бюджетной классификации: 20 цифр; для ЕНП — 18201061201010000510")
        #expect(english.first { $0.id == "amount" }?.errorText == "Enter an amount greater than zero")
    }

    /// The review before signing: a person reading English sees the plugin's English labels, one reading Russian
    /// the Russian ones; the signed fields are the same.
    @Test("the review labels the document's fields in the reader's language", arguments: [false, true])
    func reviewFollowsTheLanguage(isolated: Bool) throws {
        let runtime = try Self.runtime(isolated: isolated)
        defer { runtime.registry.unloadAll() }
        func review(_ language: HostLanguage) throws -> [String] {
            let session = try runtime.open("card.block")
            defer { session.close() }
            session.language = language
            _ = try session.commit("cardNumber", text: "4111 1111 1111 1111", reader: .person)
            _ = try session.commit("reason", text: "stolen", reader: .script)
            _ = try session.commit("confirm", text: "yes", reader: .script)
            guard case .ready(let draft) = session.submit() else {
                Issue.record("card.block did not submit: \(session.attention())")
                return []
            }
            return DocumentPresentation.rows(draft.fields, presentation: draft.presentation(of:), directory: nil, language: language)
                .map { "\($0.label): \($0.value)" }
        }
        let english = try review(.en), russian = try review(.ru)
        #expect(english.contains("Reason for blocking: Stolen"), "\(english)")
        #expect(english.contains("Action: block the card"), "\(english)")
        #expect(russian.contains("Причина блокировки: Украдена"), "\(russian)")
        #expect(russian.contains("Действие: блокировка карты"), "\(russian)")
    }

    /// `journal show` and receipts label a signed document by the operation the host has now, in the reader's
    /// language.
    @Test("a journaled document's rows are labelled in the reader's language")
    func journaledDocumentFollowsTheLanguage() throws {
        let runtime = try Self.runtime(isolated: false)
        defer { runtime.registry.unloadAll() }
        let descriptor = try #require(runtime.registry.listedDescriptor("card.block"))
        let document = try Document(operation: "card.block", plugin: "ru.example.cards", pluginVersion: "1.0.0",
                                    fields: [DocumentField("reason", "lost"), DocumentField("action", "block")],
                                    createdAt: Date(timeIntervalSince1970: 1_790_000_000), nonce: Data(count: 16),
                                    keyId: "0123456789abcdef")
        func rows(_ language: HostLanguage) -> [String] {
            DocumentPresentation.rows(document, operation: descriptor, directory: nil, language: language)
                .map { "\($0.label): \($0.value)" }
        }
        #expect(rows(.en) == ["Reason for blocking: Lost", "Action: block"])
        #expect(rows(.ru) == ["Причина блокировки: Утеряна", "Действие: block"])
    }

    /// A plugin built before `rbs.texts/1` (the ABI 1.0 fixture) reads the same in every language.
    @Test("a plugin without the extension keeps its one language")
    func olderPluginKeepsItsLanguage() throws {
        let folder = Fixtures.temporaryDirectory("texts-old")
        try Fixtures.compile(Fixtures.abi10.appendingPathComponent("plugin.c"), to: folder.appendingPathComponent("old.so"),
                             include: Fixtures.abi10.appendingPathComponent("include"))
        let runtime = Fixtures.runtime(plugins: folder)
        runtime.loadPlugins()
        let listing = try #require(runtime.registry.operations.first)
        #expect(listing.descriptor.texts.isEmpty)
        #expect(listing.localized(.ru).descriptor == listing.descriptor)
        #expect(listing.localized(.en).descriptor == listing.descriptor)
    }

    /// The manifest cache keeps the translations, so a listed (not yet loaded) plugin is titled in the reader's
    /// language at start-up too.
    @Test("the manifest cache keeps the translations")
    func cacheKeepsTranslations() throws {
        let runtime = try Self.runtime(isolated: false)
        defer { runtime.registry.unloadAll() }
        let manifests = runtime.registry.operations.map(\.descriptor)
        let manifest = PluginManifest(id: "test.texts", name: "Texts", version: "1.0.0", vendor: "Test", description: nil,
                                      abi: ABIVersion.host, operations: manifests)
        var cache = PluginCache(hostABI: ABIVersion.host.description, entries: [:])
        cache.entries["/plugins/x.so"] = PluginCache.Entry(
            fingerprint: PluginCache.Fingerprint(size: 1, modified: 2, changed: 3, inode: 4, hash: "h"),
            result: .plugin(manifest, services: []))
        let decoded = try PluginCacheCodec.decode(PluginCacheCodec.encode(cache))
        guard case .plugin(let read, _) = decoded.entries["/plugins/x.so"]?.result else {
            Issue.record("the cache lost the entry")
            return
        }
        #expect(read.operations.map(\.texts) == manifests.map(\.texts))
        #expect(read.operations.contains { !$0.texts.isEmpty })
    }

    /// What a worker sends is checked again in the host: a text with an invisible character, or one naming an atom
    /// the operation does not have, is refused there even if a worker let it through.
    @Test("the host refuses translations a worker sends that break the rules")
    func hostChecksWhatAWorkerSends() throws {
        let runtime = try Self.runtime(isolated: false)
        defer { runtime.registry.unloadAll() }
        var operation = try #require(runtime.registry.listedDescriptor("card.block"))
        operation.texts["en"]?.captions["reason"] = "Re\u{200B}ason"
        #expect(throws: PluginProblem.self) { try TranslationRules.validate([operation]) }
        do {
            try TranslationRules.validate([operation])
        } catch {
            #expect(error.description.contains("the caption of 'reason': the text holds an invisible zero width space (U+200B) at position 3"),
                    "\(error)")
        }
        operation.texts["en"]?.captions = ["ghost": "Ghost"]
        #expect(throws: PluginProblem.self) { try TranslationRules.validate([operation]) }
        operation.texts["en"]?.captions = [:]
        operation.texts["EN"] = OperationTexts()
        #expect(throws: PluginProblem.self) { try TranslationRules.validate([operation]) }
    }
}
