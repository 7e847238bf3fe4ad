/// Why a plugin function could not be declared.
public enum FFIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The signature text does not read `RESULT(ARG, ...)`; `column` is 1-based.
    case malformedSignature(text: String, column: Int, reason: String)
    /// libffi refused to prepare the call interface (`status` is its `ffi_status`).
    case preparationFailed(function: String, status: Int)
    /// The function's name is empty or not an identifier.
    case badName(String)

    public var description: String {
        switch self {
        case .malformedSignature(let text, let column, let reason):
            "signature '\(text)', column \(column): \(reason); write it as RESULT(ARG, ...) with types int64, double, bool, string"
        case .preparationFailed(let function, let status):
            "libffi could not prepare a call to \(function) (ffi_status \(status)); check its signature"
        case .badName(let name):
            "'\(name)' is not a usable function name; use letters, digits and '_', starting with a letter"
        }
    }
}
