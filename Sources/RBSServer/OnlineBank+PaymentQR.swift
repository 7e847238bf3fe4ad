import Foundation
import RBSCore
import RBSMoney

extension OnlineBank {
    /// Reads a payment QR code (its text, or a picture through ZBar) and answers what it opens: the operation and
    /// its values. Nothing is opened or committed here: the client opens the run and commits each value, so the form
    /// checks every one as it checks typed values and the person sees them all before signing.
    /// Refusals are in `language` (the request's `Accept-Language`), as every other refusal the person reads.
    func paymentQR(_ request: API.QRRequest, language: HostLanguage) throws(Problem) -> API.QRPrefill {
        let code: PaymentQR
        switch (request.text, request.image) {
        case (let text?, nil):
            do throws(PaymentQRError) { code = try PaymentQR.parse(text: text) } catch {
                throw Problem("invalid-qr", "Not a payment QR code", status: 422, detail: HostMessage.describe(error, language), atom: "text")
            }
        case (nil, let image?):
            guard let picture = Data(base64Encoded: image, options: .ignoreUnknownCharacters) else {
                throw Problem.badJSON("\"image\" is not base64")
            }
            code = try Self.readPicture(picture, language: language)
        default:
            throw Problem.badJSON("send one of \"text\" (the code's text) or \"image\" (a picture, base64)")
        }
        let prefill = PaymentQRPrefill(code)
        return API.QRPrefill(operation: prefill.form.operation, encoding: code.encoding.name,
                             values: prefill.form.values.map { .init(atom: $0.id, value: $0.value) },
                             shownOnly: prefill.shownOnly.map { .init(field: $0.key, value: $0.value) })
    }

    /// The picture goes to a private temporary file for ZBar, removed at once.
    private static func readPicture(_ picture: Data, language: HostLanguage) throws(Problem) -> PaymentQR {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-qr-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("picture")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            try picture.write(to: file)
        } catch {
            throw Problem("qr-unavailable", "The picture could not be read", status: 503, detail: "no room for the picture: \(error)")
        }
        do throws(QRImageError) { return try QRImageReader().paymentQR(ofImageAt: file.path) } catch {
            // The temporary name means nothing to the client: the picture is "the picture".
            let detail = HostMessage.describe(error, language)
                .replacingOccurrences(of: file.path, with: language == .ru ? "картинка" : "the picture")
            if case .readerMissing = error { throw Problem("qr-unavailable", "QR pictures cannot be read here", status: 503, detail: detail) }
            throw Problem("invalid-qr", "No payment QR code in the picture", status: 422, detail: detail, atom: "image")
        }
    }
}
