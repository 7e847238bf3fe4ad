import CFFI

/// A C type a plugin function may take or return: `int64`, `double`, `bool` (C `bool`) or `string` (`const char *`).
public enum ForeignType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case int64, double, bool, string

    /// How the value appears in expressions: int64 → int, double → decimal, bool → bool, string → string.
    public var valueType: ValueType {
        switch self {
        case .int64: .int
        case .double: .decimal
        case .bool: .bool
        case .string: .string
        }
    }

    public var description: String { rawValue }

    /// libffi's descriptor for the type.
    var ffiType: UnsafeMutablePointer<ffi_type> {
        switch self {
        case .int64: rbs_ffi_type_sint64()
        case .double: rbs_ffi_type_double()
        case .bool: rbs_ffi_type_uint8()
        case .string: rbs_ffi_type_pointer()
        }
    }
}
