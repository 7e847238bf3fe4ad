import Foundation

/// How a receipt is written: a PDF (DejaVu Sans embedded, so Cyrillic shows in any viewer), printable HTML, or text.
public enum ReceiptFormat: String, Sendable, CaseIterable {
    case pdf, html, text

    /// The font the PDF embeds (Debian's fonts-dejavu-core).
    public static let fontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// The receipt's bytes in this format.
    public func render(_ report: EntryReport, fontPath: String = Self.fontPath) throws(ReceiptError) -> Data {
        switch self {
        case .text: Data(Self.text(report).utf8)
        case .html: Data(Self.html(report).utf8)
        case .pdf: try Self.pdf(report, fontPath: fontPath)
        }
    }

    /// Aligned `Label: value` lines under each section's heading.
    public static func text(_ report: EntryReport) -> String {
        let width = report.sections.flatMap(\.rows).map(\.label.count).max() ?? 0
        var lines = [report.title, String(repeating: "=", count: report.title.count)]
        for section in report.sections {
            lines.append("")
            lines.append(section.title)
            for row in section.rows {
                lines.append("  " + row.label + ":" + String(repeating: " ", count: width - row.label.count + 1) + row.value)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A self-contained page that prints on A4.
    public static func html(_ report: EntryReport) -> String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var body = ""
        for section in report.sections {
            body += "<h2>\(escape(section.title))</h2>\n<table>\n"
            for row in section.rows {
                body += "<tr><th>\(escape(row.label))</th><td>\(escape(row.value))</td></tr>\n"
            }
            body += "</table>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="\(report.language.rawValue)">
            <head>
            <meta charset="utf-8">
            <title>\(escape(report.title))</title>
            <style>
            @page { size: A4; margin: 18mm; }
            body { font-family: "DejaVu Sans", sans-serif; font-size: 10pt; color: #000; max-width: 180mm; margin: auto; }
            h1 { font-size: 14pt; border-bottom: 1px solid #000; padding-bottom: 4pt; }
            h2 { font-size: 11pt; margin: 12pt 0 4pt; }
            table { border-collapse: collapse; width: 100%; }
            th { text-align: left; font-weight: normal; color: #444; width: 34%; vertical-align: top; padding: 2pt 8pt 2pt 0; }
            td { overflow-wrap: anywhere; padding: 2pt 0; }
            </style>
            </head>
            <body>
            <h1>\(escape(report.title))</h1>
            \(body)</body>
            </html>

            """
    }

    /// The receipt as a PDF: the label column and the values wrapped to the page, in DejaVu Sans.
    static func pdf(_ report: EntryReport, fontPath: String) throws(ReceiptError) -> Data {
        let font = try TrueTypeFont(path: fontPath)
        var writer = PDFWriter(font: font)
        writer.heading(report.title)
        for section in report.sections {
            writer.gap()
            writer.subheading(section.title)
            for row in section.rows { writer.row(label: row.label, value: row.value) }
        }
        return writer.finish()
    }
}
