import Foundation
import RBSLedger
@testable import RBSServer
import Testing

/// `POST /api/v1/qr`: what a payment QR code opens, for the web client to open and fill through the form.
@Suite("serve: payment QR codes", .serialized)
struct PaymentQRServerTests {
    static let invoice = "ST00012|Name=ООО Ромашка|PersonalAcc=40702810638000000123|BankName=ПАО Сбербанк|BIC=044525225"
        + "|CorrespAcc=30101810400000000225|PayeeINN=7707083893|Purpose=Оплата по счёту № 7|Sum=150050|Contract=77-1"

    @Test("the text gives the operation, its values in commit order and the fields shown only; each value then commits through the form")
    func text() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let answer = try await api.call(.post, "/api/v1/qr", token: token, json: ["text": Self.invoice])
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.object["operation"] as? String == "pay.pp.quick")
            #expect(answer.object["encoding"] as? String == "UTF-8")
            let values = (answer.object["values"] as? [[String: String]] ?? []).map { "\($0["atom"] ?? "")=\($0["value"] ?? "")" }
            #expect(values == ["destName=ООО Ромашка", "destInn=7707083893", "destAccount=40702810638000000123",
                               "destBic=044525225", "destDesc=Оплата по счёту № 7", "amount=1500.50"])
            let shown = (answer.object["shownOnly"] as? [[String: String]] ?? []).map { $0["field"] ?? "" }
            #expect(shown == ["BankName", "CorrespAcc", "Contract"])

            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            for value in answer.object["values"] as? [[String: String]] ?? [] {
                #expect(try await api.commit(run, value["atom"] ?? "", value["value"] ?? "", token).status == 200)
            }
        }
    }

    @Test("a text that is no payment code, a missing body field and no login are problems naming what")
    func refused() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            #expect(try await api.call(.post, "/api/v1/qr", json: ["text": Self.invoice]).status == 401)
            let token = try await api.login(bank.alice)
            let bad = try await api.call(.post, "/api/v1/qr", token: token, json: ["text": "ST00012|Name=a"])
            #expect(bad.status == 422)
            #expect(bad.object["detail"] as? String
                    == "the required field PersonalAcc is missing or empty (required: Name, PersonalAcc, BankName, BIC, CorrespAcc)")
            #expect(bad.object["atom"] as? String == "text")
            let neither = try await api.call(.post, "/api/v1/qr", token: token, json: [String: String]())
            #expect(neither.status == 400)
            #expect(neither.object["detail"] as? String == "send one of \"text\" (the code's text) or \"image\" (a picture, base64)")
        }
    }

    @Test("a picture (base64 PNG drawn by qrencode) is read by ZBar on the server")
    func picture() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("code.txt"), png = folder.appendingPathComponent("code.png")
        try #require(Self.invoice.replacingOccurrences(of: "ST00012", with: "ST00011").data(using: .windowsCP1251)).write(to: input)
        let qrencode = Process()
        qrencode.executableURL = URL(fileURLWithPath: "/usr/bin/qrencode")
        qrencode.arguments = ["-8", "-r", input.path, "-o", png.path]
        try qrencode.run()
        qrencode.waitUntilExit()
        try #require(qrencode.terminationStatus == 0, "qrencode (Debian's qrencode package) failed")
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let answer = try await api.call(.post, "/api/v1/qr", token: token, json: ["image": try Data(contentsOf: png).base64EncodedString()])
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.object["encoding"] as? String == "windows-1251")
            #expect((answer.object["values"] as? [[String: String]])?.first?["value"] == "ООО Ромашка")
            let notPicture = try await api.call(.post, "/api/v1/qr", token: token, json: ["image": Data("not a picture".utf8).base64EncodedString()])
            #expect(notPicture.status == 422)
            #expect(notPicture.object["detail"] as? String
                    == "the picture: not a picture ZBar can read: send a photo or scan of the code (PNG, JPEG, GIF, BMP, TIFF)",
                    "\(notPicture.text)")
        }
    }
}
