import Foundation
import RBSMoney

/// Reads the payment QR code in a picture (PNG, JPEG …) with ZBar's `zbarimg` (Debian's zbar-tools), run as a
/// child only when a picture is read: the host starts and runs without it. `-Sbinary` is essential: without it ZBar
/// guesses the text's encoding and turns a windows-1251 code into wrong letters; with it the code's own bytes come
/// back and ``PaymentQR`` decodes them by the header's digit.
public struct QRImageReader: Sendable {
    /// The program, found on `PATH` unless given.
    public var program: String

    public init(program: String = "zbarimg") {
        self.program = program
    }

    /// The bytes of the one code in the picture at `path`.
    public func bytes(ofImageAt path: String) throws(QRImageError) -> [UInt8] {
        guard FileManager.default.isReadableFile(atPath: path) else { throw .unreadable(path) }
        guard let executable = Self.find(program) else { throw .readerMissing(program) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--raw", "--quiet", "-Sdisable", "-Sqrcode.enable", "-Sbinary", "--", path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw .readerMissing(executable) }
        // Read both pipes to their ends before waiting, so a full pipe never holds the child.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let problem = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        switch process.terminationStatus {
        case 0:
            var bytes = [UInt8](data)
            // zbarimg ends each code with a line break of its own.
            if bytes.last == 0x0A { bytes.removeLast() }
            // A value may not hold a line break, so a second line is a second code.
            guard !bytes.contains(0x0A) else { throw .severalCodes(path) }
            return bytes
        case 4:
            throw .noCode(path)
        default:
            // ImageMagick's complaints (and D-Bus noise) come first; the last line says what failed.
            let last = String(decoding: problem, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            throw .undecodable(path, detail: last)
        }
    }

    /// The payment code in the picture at `path`.
    public func paymentQR(ofImageAt path: String) throws(QRImageError) -> PaymentQR {
        let bytes = try bytes(ofImageAt: path)
        do throws(PaymentQRError) { return try PaymentQR.parse(bytes: bytes) } catch { throw .notPayment(path, error) }
    }

    static func find(_ program: String) -> String? {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Why a picture gave no payment code.
public enum QRImageError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(String)
    case readerMissing(String)
    case noCode(String)
    case severalCodes(String)
    case undecodable(String, detail: String)
    case notPayment(String, PaymentQRError)

    public var description: String {
        switch self {
        case .unreadable(let path): "\(path): no such file, or it cannot be read"
        case .readerMissing(let program):
            "\(program) is not installed: reading QR codes from pictures needs ZBar (Debian: apt-get install zbar-tools); "
                + "give the code's text with --qr instead"
        case .noCode(let path): "\(path): no QR code found in the picture"
        case .severalCodes(let path): "\(path): the picture holds more than one code; crop it to the payment code"
        // ZBar's own words (ImageMagick's "no decode delegate …") mean nothing to a payer: kept in `detail` for logs.
        case .undecodable(let path, _): "\(path): not a picture ZBar can read: send a photo or scan of the code (PNG, JPEG, GIF, BMP, TIFF)"
        case .notPayment(let path, let error): "\(path): \(error.description)"
        }
    }
}
