import Foundation
import RBSCore
import RBSLedger

extension SignPresenter {
    /// Asks whether to sign a payment that repeats `entry`: yes goes on to the review; no, cancel, an empty line or
    /// Ctrl-C/Ctrl-D go back to the form with nothing signed. Anything else asks again.
    func confirmDuplicate(_ entry: JournalEntry) -> Bool { Self.confirmDuplicate(entry, console: console) }

    /// ``confirmDuplicate(_:)`` on `console` (also for a document put in a basket).
    static func confirmDuplicate(_ entry: JournalEntry, console: Console) -> Bool {
        confirmRepeat(SignModule.duplicateNotice(entry, console.language), console: console)
    }

    /// Asks whether to sign what `notice` says repeats another payment (yes/no, as ``confirmDuplicate(_:)``).
    static func confirmRepeat(_ notice: String, console: Console) -> Bool {
        console.say(Terminal.yellow(console.text(.report(.warning)) + ": " + notice + "."))
        while true {
            console.completions = { _, word in ["yes", "no"].filter { $0.hasPrefix(word) } }
            let input = console.read(console.text(.report(.signAgain)), remember: false)
            console.completions = { _, _ in [] }
            guard case .line(let raw) = input else { return false }
            switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
            case "yes", "y", "да", "д": return true
            case "no", "n", "нет", "н", "cancel", "": return false
            default: console.error(console.text(.report(.answerYesOrNo)))
            }
        }
    }
}
