import CRBSPlugin

/// A brick of an operation's form: declare it in one line, put it in `atoms`, read its value in one line.
///
/// An atom's id is the name of the operation's property that holds it, unless given explicitly. Setting `caption`,
/// `value`, `error` or `visible` while the operation runs tells the host at once.
open class Atom {
    /// The atom's id in expressions and documents; by default the property's name.
    public internal(set) var id: String
    let kind: Int
    var inputType: Int = Int(RBS_INPUT_TEXT)
    var flags: UInt32 = 0
    /// Shown when the person asks for help (`?`).
    public var hint: String?
    /// Shown while this expression is true (its dependency on other atoms).
    public var showIf: String?
    /// Must be true for a submit to pass; `errorText` says what to fix.
    public var validIf: String?
    public var errorText: String?
    public var minLength = 0
    public var maxLength = 0
    public var defaultValue: String?
    var currency: String?
    var filter: String?
    var options: [(value: String, title: String)] = []

    weak var context: InstanceContext?
    private var storedCaption: String
    /// The current value, as the host last reported it (or the plugin set it).
    public internal(set) var value: AtomValue = .none

    init(id: String?, kind: Int, caption: String) {
        self.id = id ?? ""
        self.kind = kind
        storedCaption = caption
    }

    /// The label; for a text atom, its content (a bank's name after a BIC).
    public var caption: String {
        get { storedCaption }
        set {
            storedCaption = newValue
            context?.setCaption(id, newValue)
        }
    }

    /// The value as text ("" when empty).
    public var stringValue: String { value.string }

    /// Replaces the value and tells the host.
    public func set(_ newValue: AtomValue) {
        value = newValue
        context?.setValue(id, newValue)
    }

    /// Marks the atom as needing attention with `message`, or clears the mark with nil.
    public func setError(_ message: String?) { context?.setError(id, message) }

    /// Sets the caption in each language the plugin writes, its own first (`rbs.run-texts/1`, ABI 1.4): the host
    /// shows the person's, also after they switch language; a host older than 1.4 shows the first.
    /// ```swift
    /// feeInfo.setCaption(["ru": "Комиссия: 25,00 ₽", "en": "Fee: 25.00 ₽"])
    /// ```
    public func setCaption(_ texts: KeyValuePairs<String, String>) {
        guard let first = texts.first else { return }
        storedCaption = first.value
        context?.setTexts(.caption, id, texts)
    }

    /// Marks the atom with the message in each language the plugin writes, its own first (`rbs.run-texts/1`).
    /// Clear it with `setError(nil)`.
    public func setError(_ texts: KeyValuePairs<String, String>) { context?.setTexts(.error, id, texts) }

    /// Shows or hides an atom that has no `showIf`.
    public func setVisible(_ visible: Bool) { context?.setVisible(id, visible) }

    func flag(_ bit: Int, _ on: Bool) {
        if on { flags |= UInt32(bit) } else { flags &= ~UInt32(bit) }
    }

    /// The value does not block a submit when empty.
    public var optional: Bool {
        get { flags & UInt32(RBS_ATOM_FLAG_OPTIONAL) != 0 }
        set { flag(Int(RBS_ATOM_FLAG_OPTIONAL), newValue) }
    }
    /// A wide input for long text.
    public var wideInput: Bool {
        get { flags & UInt32(RBS_ATOM_FLAG_WIDE) != 0 }
        set { flag(Int(RBS_ATOM_FLAG_WIDE), newValue) }
    }
    /// The text starts with a capital letter (the first letter only; the rest is kept as typed).
    public var capitalizeSentences: Bool {
        get { flags & UInt32(RBS_ATOM_FLAG_CAPITALIZE) != 0 }
        set { flag(Int(RBS_ATOM_FLAG_CAPITALIZE), newValue) }
    }
    /// Never echoed or logged.
    public var secret: Bool {
        get { flags & UInt32(RBS_ATOM_FLAG_SECRET) != 0 }
        set { flag(Int(RBS_ATOM_FLAG_SECRET), newValue) }
    }

    /// Sets `showIf`, chainable: `destInnError.showIf("isDestInnCorrect == NO")`.
    @discardableResult
    public func showIf(_ expression: String) -> Self {
        showIf = expression
        return self
    }

    /// Adds a check that must hold for a submit, with the message shown when it does not.
    @discardableResult
    public func validIf(_ expression: String, _ message: String) -> Self {
        validIf = expression
        errorText = message
        return self
    }
}

/// A label whose caption may change at run time.
public final class TextAtom: Atom {
    public init(_ id: String? = nil, caption: String) { super.init(id: id, kind: Int(RBS_ATOM_TEXT), caption: caption) }
}

/// What a text input accepts.
public enum InputKind: Sendable {
    case text, digitsOnly, number, date
    /// Money in a currency (ISO 4217).
    case amount(currency: String)
}

/// A field the person types into.
public final class TextInputAtom: Atom {
    public init(_ id: String? = nil, caption: String, type: InputKind = .text, length: ClosedRange<Int>? = nil,
                optional: Bool = false) {
        super.init(id: id, kind: Int(RBS_ATOM_INPUT), caption: caption)
        switch type {
        case .text: inputType = Int(RBS_INPUT_TEXT)
        case .digitsOnly: inputType = Int(RBS_INPUT_DIGITS)
        case .number: inputType = Int(RBS_INPUT_NUMBER)
        case .date: inputType = Int(RBS_INPUT_DATE)
        case .amount(let code):
            inputType = Int(RBS_INPUT_AMOUNT)
            currency = code
        }
        if let length {
            minLength = length.lowerBound
            maxLength = length.upperBound
        }
        self.optional = optional
    }
}

/// A choice among options (a segmented control).
public final class EnumAtom: Atom {
    public init(_ id: String? = nil, caption: String, options: [(value: String, title: String)]) {
        super.init(id: id, kind: Int(RBS_ATOM_ENUM), caption: caption)
        self.options = options
    }
}

/// On or off.
public final class ToggleAtom: Atom {
    public init(_ id: String? = nil, caption: String) { super.init(id: id, kind: Int(RBS_ATOM_TOGGLE), caption: caption) }

    public var isOn: Bool { value == .bool(true) }
}

/// One of the customer's accounts, filtered by an expression over the account's fields.
public final class AccountPickerAtom: Atom {
    public init(_ id: String? = nil, title: String, filter: String? = nil) {
        super.init(id: id, kind: Int(RBS_ATOM_ACCOUNT), caption: title)
        self.filter = filter
    }

    /// The chosen account number ("" when none).
    public var account: String { stringValue }
}

/// A button: submits the form, or calls `onButtonTap`.
public final class ButtonAtom: Atom {
    public init(_ id: String? = nil, caption: String, submits: Bool = true) {
        super.init(id: id, kind: Int(RBS_ATOM_BUTTON), caption: caption)
        if submits { flag(Int(RBS_ATOM_FLAG_SUBMIT), true) }
    }
}
