import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

/// The server's receipt and journal entries carry the one presentation of the document (`title`, `sections`) in the
/// request's language, beside the keys the protocol always had.
@Suite("serve: receipt sections", .serialized)
struct ReceiptSectionsTests {
    /// The rows of `sections` as `label: value`.
    private func rows(_ object: [String: Any]) -> [String] {
        ((object["sections"] as? [[String: Any]]) ?? []).flatMap { ($0["rows"] as? [[String: Any]]) ?? [] }
            .map { "\($0["label"] as? String ?? "?"): \($0["value"] as? String ?? "?")" }
    }

    @Test("a card block signed with ?lang=ru: status stays `posted` (the contract), the sections say `принято`, the reason's title, the masked card and the payer; the journal in English says `accepted`")
    func cardBlock() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("card.block", token)["id"] as? String)
            try await api.fill(run, [("cardNumber", "4111 1111 1111 1111"), ("reason", "stolen"), ("confirm", true)], token)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token).status == 200)
            let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign?lang=ru", token: token, json: ["code": bank.code(bank.alice)])
            #expect(signed.status == 200, "\(signed.text)")
            #expect(signed.object["status"] as? String == "posted" && signed.object["journal"] as? Int == 1)
            #expect(signed.object["title"] as? String == "Квитанция к записи журнала 1")
            #expect(((signed.object["sections"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
                == ["Банк", "Документ", "Исполнение", "Подпись"])
            let receipt = rows(signed.object)
            for row in ["Статус: принято", "Плательщик: \(bank.alice.name)", "Карта: 4111 11** **** 1111",
                        "Причина блокировки: Украдена", "Операция: Блокировка карты (card.block)"] {
                #expect(receipt.contains(row), "\(row) in \(receipt)")
            }
            #expect(!receipt.contains { $0.contains("4111111111111111") || $0.contains("stolen") })
            let field = ((signed.object["sections"] as? [[String: Any]]) ?? []).flatMap { ($0["rows"] as? [[String: Any]]) ?? [] }
                .first { $0["label"] as? String == "Причина блокировки" }
            #expect(field?["field"] as? String == "reason")

            let journal = try await api.call(.get, "/api/v1/journal", token: token)
            let entry = try #require(journal.array.first)
            #expect(entry["kind"] as? String == "acknowledged")
            #expect(entry["title"] as? String == "Journal entry 1")
            #expect(rows(entry).contains("Status: accepted") && rows(entry).contains("Reason for blocking: Stolen"), "\(rows(entry))")
        }
    }

    @Test("a signed run's receipt, asked again (a reloaded receipt page), has the sections the sign's answer had: the payee and the purpose")
    func receiptOfASignedRun() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice), token)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token).status == 200)
            let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice)])
            #expect(signed.status == 200, "\(signed.text)")
            let fields = { (receipt: [String: Any]) in
                ((receipt["sections"] as? [[String: Any]]) ?? []).flatMap { ($0["rows"] as? [[String: Any]]) ?? [] }.compactMap { $0["field"] as? String }
            }
            #expect(fields(signed.object).contains("name") && fields(signed.object).contains("purpose"), "\(signed.text)")
            let again = try await api.call(.get, "/api/v1/runs/\(run)", token: token, language: "ru")
            let receipt = try #require(again.object["receipt"] as? [String: Any])
            #expect(receipt["title"] as? String == "Квитанция к записи журнала 1")
            #expect(fields(receipt) == fields(signed.object))
        }
    }

    @Test("Accept-Language chooses the language when no ?lang is given")
    func acceptLanguage() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice), token)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token).status == 200)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice)]).status == 200)
            let russian = try await api.call(.get, "/api/v1/journal", token: token, headers: [.acceptLanguage: "ru-RU,ru;q=0.9,en;q=0.8"])
            let rows = rows(try #require(russian.array.first))
            #expect(rows.contains("Сумма: 1\u{00A0}500,50 RUB") && rows.contains("Статус: проведено"), "\(rows)")
        }
    }
}
