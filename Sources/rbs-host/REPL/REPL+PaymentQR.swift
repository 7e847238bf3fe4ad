import Foundation
import RBSCore
import RBSMoney

extension REPL {
    /// `qr TEXT` or `qr --image FILE`: the payment a QR code describes (ГОСТ Р 56042-2014), opened as a form
    /// prefilled with its values; the form checks each as if typed and the review shows them before any code.
    /// `rest` is the line after `qr` as typed: the code's text keeps its spaces and quotes.
    func paymentQR(_ rest: String) {
        let code: PaymentQR
        if rest == "--image" || rest.hasPrefix("--image ") {
            let path = rest.dropFirst("--image".count).trimmingCharacters(in: .whitespaces)
            guard !path.isEmpty else { return console.error(console.text(.qrUsage)) }
            do throws(QRImageError) { code = try QRImageReader().paymentQR(ofImageAt: path) } catch {
                return console.error(HostMessage.describe(error, console.language))
            }
        } else {
            guard !rest.isEmpty else { return console.error(console.text(.qrUsage)) }
            do throws(PaymentQRError) { code = try PaymentQR.parse(text: rest) } catch {
                return console.error(HostMessage.describe(error, console.language))
            }
        }
        let prefill = PaymentQRPrefill(code)
        if let shown = HostMessage.paymentQRShownOnly(prefill.shownOnly, console.language) { console.say(shown) }
        open(prefill.form.operation, arguments: [], filled: (prefill.form, console.text(.qrSource)))
    }
}
