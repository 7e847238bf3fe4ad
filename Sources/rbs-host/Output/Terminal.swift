import Foundation
import RBSCore
#if canImport(Glibc)
import Glibc
#endif

/// What the terminal can do: colour only on a terminal, never when NO_COLOR is set.
enum Terminal {
    static let isInteractive = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    static let colour = isatty(STDOUT_FILENO) == 1 && !HostEnvironment.current.noColour
    static let colourErrors = isatty(STDERR_FILENO) == 1 && !HostEnvironment.current.noColour

    /// Standard output's width in columns when it is a terminal (a wide table is then stacked row by row instead of
    /// every line wrapping wherever the window ends); nil for a pipe or a file, which get the table whole.
    static var columns: Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    static func paint(_ text: String, _ code: String, when enabled: Bool = colour) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    static func bold(_ text: String) -> String { paint(text, "1") }
    static func dim(_ text: String) -> String { paint(text, "2") }
    static func green(_ text: String) -> String { paint(text, "32") }
    static func red(_ text: String) -> String { paint(text, "31") }
    static func yellow(_ text: String) -> String { paint(text, "33") }

    /// One line on standard error that is not an error (where a file was written, when standard output is not for it).
    static func note(_ message: String) {
        fflush(nil)
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// One line on standard error.
    static func error(_ message: String, label: String = "error:") {
        fflush(nil)  // keep answers and errors in order when both go to one pipe
        // A message quotes what someone typed or a file held: its control characters are named, never run.
        FileHandle.standardError.write(Data((paint(label, "31", when: colourErrors) + " " + ShownText.visible(message) + "\n").utf8))
    }
}
