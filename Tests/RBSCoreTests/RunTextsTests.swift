import Foundation
import Testing
@testable import RBSCore

/// Captions and marks a plugin sets while its form runs, in each language it writes (`rbs.run-texts/1`, ABI 1.4):
/// the person reads their language's variant, also after switching; every malformed call is refused, logged with
/// what was wrong, and leaves the form as it was — in this process and through a worker (whose frames the host
/// checks again).
@Suite(.serialized)
struct RunTextsTests {
    static let plugin: Result<URL, any Error> = Result {
        let folder = Fixtures.temporaryDirectory("run-texts")
        return try Fixtures.compile(Fixtures.root.appendingPathComponent("Tests/Fixtures/run-texts/run_texts.c"),
                                    to: folder.appendingPathComponent("run-texts.so"))
    }

    static func host(inWorker: Bool) throws -> (Runtime, StandardErrorLog) {
        let folder = try plugin.get().deletingLastPathComponent()
        let log = StandardErrorLog(minimum: .warning)
        let runtime = Runtime(paths: HostPaths(plugins: folder.path, data: Fixtures.temporaryDirectory("run-texts-data")),
                              accounts: StaticAccounts(DemoAccounts.list), log: log,
                              isolation: inWorker ? WorkerIsolationTests.settings(deadline: .seconds(10)) : nil)
        runtime.loadPlugins()
        return (runtime, log)
    }

    /// Types `name` into the probe: the plugin runs that case and shows whether the host took it.
    static func probe(_ session: FormSession, _ name: String) throws -> String? {
        try session.commit("probe", text: name)
        return session.atom("result")?.caption
    }

    @Test("a caption and marks in two languages follow the reader's language, also after a switch", arguments: [false, true])
    func variantsFollowTheLanguage(inWorker: Bool) throws {
        let (runtime, _) = try Self.host(inWorker: inWorker)
        defer { runtime.registry.unloadAll() }
        #expect(runtime.registry.failedRecords.isEmpty, "\(runtime.registry.failedRecords.map(\.error))")
        let session = try runtime.open("run.texts")
        defer { session.close() }
        #expect(try Self.probe(session, "caption") == "taken")
        #expect(session.atom("line")?.caption == "Line in English")
        session.language = .ru
        #expect(session.atom("line")?.caption == "Строка по-русски")
        // A mark on an atom and on the whole form: in the reader's language in the atom and in what needs attention.
        #expect(try Self.probe(session, "mark") == "taken")
        #expect(try Self.probe(session, "form") == "taken")
        #expect(session.atom("line")?.error == "Исправьте это")
        #expect(session.formError == "Исправьте это")
        #expect(session.attention().map(\.message) == ["Исправьте это", "Исправьте это"])
        session.language = .en
        #expect(session.atom("line")?.caption == "Line in English")
        #expect(session.attention().map(\.message) == ["Fix this", "Fix this"])
        // A plain set_caption replaces the variants: it stays what the plugin wrote, whatever the language.
        #expect(try Self.probe(session, "plain") == "taken")
        session.language = .ru
        #expect(session.atom("line")?.caption == "Plain line")
        // Cleared marks stay cleared after a switch.
        #expect(try Self.probe(session, "clear") == "taken")
        session.language = .en
        #expect(session.attention().isEmpty, "\(session.attention())")
    }

    @Test("a language the plugin does not write reads the plugin's first variant", arguments: [false, true])
    func otherLanguagesReadTheFirst(inWorker: Bool) throws {
        let (runtime, _) = try Self.host(inWorker: inWorker)
        defer { runtime.registry.unloadAll() }
        let session = try runtime.open("run.texts")
        defer { session.close() }
        // 32 variants ("aa"…"bf"): neither English nor Russian, so both read the first.
        #expect(try Self.probe(session, "most") == "taken")
        #expect(session.atom("line")?.caption == "text")
        session.language = .ru
        #expect(session.atom("line")?.caption == "text")
    }

    @Test("every malformed call is refused, logged with what was wrong, and leaves the form as it was",
          arguments: [false, true])
    func malformedCallsAreRefused(inWorker: Bool) throws {
        let (runtime, log) = try Self.host(inWorker: inWorker)
        defer { runtime.registry.unloadAll() }
        let session = try runtime.open("run.texts")
        defer { session.close() }
        #expect(try Self.probe(session, "caption") == "taken")
        let cases: [(name: String, logged: String?)] = [
            ("unknown-atom", nil),
            ("no-atom", nil),
            ("none", "set_caption(line) refused: 0 variants: give 1 to 32, one per language"),
            ("null", "set_caption(line) refused: the variants are NULL"),
            ("many", "set_caption(line) refused: 33 variants: give 1 to 32, one per language"),
            ("twice", "set_caption(line) refused: language 'en' is given twice"),
            ("upper", "set_caption(line) refused: language 'RU' is not an ISO 639-1 code in lowercase (ru, en)"),
            ("no-text", "set_caption(line) refused: the 'en' variant has no text"),
            ("no-language", "set_error(line) refused: variant #1 has no language, or one longer than a language code"),
            ("empty", "set_caption(line) refused: the 'en' variant: the text is empty"),
            ("control", "set_error(line) refused: the 'en' variant: the text holds the control character U+0001"),
            ("bidi", "set_caption(line) refused: the 'en' variant: the text holds"),
            ("not-utf8", "set_caption(line) refused: the 'en' variant: the text is not valid UTF-8"),
            ("too-long", "set_caption(line) refused: the 'en' variant: the text is more than 1024 bytes"),
        ]
        for (name, logged) in cases {
            #expect(try Self.probe(session, name) == "refused", "\(name)")
            if let logged {
                let wanted = "[warning] tests.run-texts: rbs.run-texts/1 \(logged)"
                #expect(log.lines.contains { $0.hasPrefix(wanted) }, "\(name): \(log.lines.suffix(3))")
            }
            // Nothing changed on the form: the caption set first is still shown, no mark appeared.
            #expect(session.atom("line")?.caption == "Line in English", "\(name)")
            #expect(session.atom("line")?.error == nil, "\(name)")
        }
        #expect(session.endedBy == nil, "no refusal ends the run")
    }

    @Test("a worker's frame with variants that do not hold is checked again by the host, not trusted")
    func workerFramesAreCheckedAgain() throws {
        // The host's own check, on what a forged frame could carry: a repeated language, a text with a control
        // character, an over-long text, no variant at all.
        let bad: [[TextVariant]] = [
            [TextVariant(language: "en", text: "a"), TextVariant(language: "en", text: "b")],
            [TextVariant(language: "en", text: "a\u{7}b")],
            [TextVariant(language: "en", text: String(repeating: "x", count: 1025))],
            [],
            [TextVariant(language: "eng", text: "a")],
        ]
        for variants in bad {
            #expect(throws: RunTextRefusal.self) { try RunText(checking: variants) }
        }
        var writer = WireWriter(.setCaptionTexts)
        writer.u32(1)
        writer.string("line")
        writer.u32(UInt32.max)  // more variants than the frame can hold
        var reader = WireReader(kind: .setCaptionTexts, payload: Array(writer.frame.dropFirst(5)))
        _ = try reader.u32()
        _ = try reader.string()
        #expect(throws: WireError.self) { try reader.variants() }
    }
}
