import CFFI
import Foundation

/// A plugin function called through libffi.
///
/// The call interface (`ffi_cif`) is prepared once at creation and freed when the object goes away, and so is the
/// route a call takes (stack slots, copied strings, or another process). Calls may run concurrently: the interface is
/// read-only after preparation and each call keeps its argument storage on its own stack (a per-function buffer would
/// need a lock; the stack costs nothing to allocate).
public final class ForeignFunction: @unchecked Sendable {
    /// The name expressions call it by.
    public let name: String
    public let signature: FunctionSignature
    /// When set, the C function takes the plugin's `void *` instance before the declared arguments, and its
    /// result depends on plugin state the host cannot see (expressions calling it are volatile).
    public let isInstanceBound: Bool

    /// Where a call goes instead of `pointer` when the function lives in another process (a plugin worker): it gets
    /// the instance token and the declared arguments and returns the result.
    public typealias Forward = @Sendable (_ instance: UnsafeMutableRawPointer?, _ arguments: [ExprValue]) -> ExprValue

    private let pointer: @convention(c) () -> Void
    /// How a call reaches the function, chosen once at creation so that a call makes one decision.
    private let route: Route
    /// The result type, read by every call without going through `signature`.
    private let resultType: ForeignType
    private let cif: UnsafeMutablePointer<ffi_cif>
    private let argumentTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    private let cArgumentCount: Int
    /// The declared parameters, read by the call path without touching `signature`'s array.
    private let parameterTypes: UnsafeMutablePointer<ForeignType>
    private let parameterCount: Int
    /// How many C arguments the stack-slot path (``Route/scalars``) holds.
    private static let inlineSlots = 8

    /// The ways a call can go.
    private enum Route {
        /// Numbers and bools, at most ``inlineSlots`` C arguments: fixed slots on the caller's stack.
        case scalars
        /// A string parameter, or more arguments: temporary storage sized for the call, strings copied and freed.
        case copyingStrings
        /// The function lives in another process (a plugin worker).
        case forwarded(Forward)
    }

    /// Declares a function whose C entry point is `pointer` (as returned by `dlsym`).
    public init(name: String, pointer: UnsafeRawPointer, signature: FunctionSignature,
                isInstanceBound: Bool = false, forward: Forward? = nil) throws(FFIError) {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic,
              name.unicodeScalars.allSatisfy({ $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        else { throw .badName(name) }
        self.name = name
        self.signature = signature
        self.isInstanceBound = isInstanceBound
        self.pointer = unsafeBitCast(pointer, to: (@convention(c) () -> Void).self)
        let count = signature.parameters.count + (isInstanceBound ? 1 : 0)
        cArgumentCount = count
        argumentTypes = .allocate(capacity: max(count, 1))
        var index = 0
        if isInstanceBound {
            argumentTypes[0] = rbs_ffi_type_pointer()
            index = 1
        }
        for parameter in signature.parameters {
            argumentTypes[index] = parameter.ffiType
            index += 1
        }
        parameterCount = signature.parameters.count
        parameterTypes = .allocate(capacity: max(parameterCount, 1))
        parameterTypes.initialize(from: signature.parameters, count: parameterCount)
        resultType = signature.result
        if let forward {
            route = .forwarded(forward)
        } else if count <= Self.inlineSlots && !signature.parameters.contains(.string) {
            route = .scalars
        } else {
            route = .copyingStrings
        }
        cif = .allocate(capacity: 1)
        let status = ffi_prep_cif(cif, rbs_ffi_default_abi(), UInt32(count), signature.result.ffiType, argumentTypes)
        guard status == FFI_OK else {
            cif.deallocate()
            argumentTypes.deallocate()
            parameterTypes.deallocate()
            throw .preparationFailed(function: name, status: Int(status.rawValue))
        }
    }

    /// Declares a function from a signature string such as `"int64(string, int64)"`.
    public convenience init(name: String, pointer: UnsafeRawPointer, signature: String,
                            isInstanceBound: Bool = false) throws(FFIError) {
        try self.init(name: name, pointer: pointer, signature: FunctionSignature.parse(signature),
                      isInstanceBound: isInstanceBound)
    }

    /// Declares a function served by another process: every call goes to `forward` (with the same argument checks).
    public convenience init(name: String, signature: String, isInstanceBound: Bool = false,
                            forward: @escaping Forward) throws(FFIError) {
        try self.init(name: name, pointer: UnsafeRawPointer(bitPattern: 1)!, signature: FunctionSignature.parse(signature),
                      isInstanceBound: isInstanceBound, forward: forward)
    }

    deinit {
        cif.deallocate()
        argumentTypes.deallocate()
        parameterTypes.deallocate()
    }

    /// Calls the function.
    ///
    /// Strings are passed as NUL-terminated UTF-8 valid for the call (a null string as ""); bools as C `bool`;
    /// `double` parameters accept int and decimal values. A string result is copied at once (the plugin keeps
    /// ownership of its buffer); a NULL string result is `.null`; a `double` result becomes a decimal.
    /// Returns `.null` without calling when an argument count or type does not match the signature, when a
    /// non-string argument is null, or when an instance-bound function is given no instance.
    public func call(instance: UnsafeMutableRawPointer?, arguments: [ExprValue]) -> ExprValue {
        guard arguments.count == parameterCount else { return .null }
        if isInstanceBound, instance == nil { return .null }
        if case .forwarded(let forward) = route { return forward(instance, arguments) }
        return arguments.withUnsafeBufferPointer { buffer in
            if case .scalars = route {
                // Read in place: each argument's payload is decoded from the array's own storage, never copied.
                return callScalars(instance: instance, source: InPlaceArguments(buffer: buffer))
            }
            return callCopyingStrings(instance: instance) { buffer[$0] }
        }
    }

    /// The allocation-free call path the evaluator uses: `argument(i)` yields declared argument `i`.
    @inline(__always)
    func call(instance: UnsafeMutableRawPointer?, argument: (Int) -> ExprValue) -> ExprValue {
        if isInstanceBound, instance == nil { return .null }
        switch route {
        case .scalars:
            return withoutActuallyEscaping(argument) { argument in
                callScalars(instance: instance, source: ProducedArguments(argument: argument))
            }
        case .copyingStrings:
            return callCopyingStrings(instance: instance, argument: argument)
        case .forwarded(let forward):
            return forward(instance, (0..<parameterCount).map(argument))
        }
    }

    /// Numbers and bools only: each argument is decoded straight from its `ExprValue` into an 8-byte slot of this
    /// call's stack (nothing allocated, nothing boxed, nothing to free; concurrent calls each have their own), and
    /// libffi gets the cif prepared at creation. Profiled (callgrind, int64(int64, int64) from an array): ~110
    /// instructions a call on top of libffi's own `ffi_call` (~500), none of them reference counting.
    @inline(__always)
    private func callScalars<Source: ScalarArguments>(instance: UnsafeMutableRawPointer?, source: Source) -> ExprValue {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.inlineSlots) { values in
            withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: Self.inlineSlots) { pointers in
                let base = UnsafeMutableRawPointer(values.baseAddress!)
                let slots = pointers.baseAddress!
                var slot = 0
                if isInstanceBound {
                    base.storeBytes(of: instance, as: UnsafeMutableRawPointer?.self)
                    slots[0] = base
                    slot = 1
                }
                for index in 0..<parameterCount {
                    let address = base + slot &* 8
                    slots[slot] = address
                    slot &+= 1
                    guard source.store(index, as: parameterTypes[index], at: address) else { return .null }
                }
                var result: UInt64 = 0
                ffi_call(cif, pointer, &result, slots)
                return decode(result)
            }
        }
    }

    /// Any signature: strings are copied to NUL-terminated buffers freed after the call.
    private func callCopyingStrings(instance: UnsafeMutableRawPointer?, argument: (Int) -> ExprValue) -> ExprValue {
        let count = cArgumentCount
        let parameters = signature.parameters
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: max(count, 1)) { storage in
            withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(count, 1)) { pointers in
                withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<CChar>?.self,
                                              capacity: max(parameters.count, 1)) { owned in
                    var ownedCount = 0
                    defer { for i in 0..<ownedCount { free(owned[i]) } }
                    let base = UnsafeMutableRawPointer(storage.baseAddress!)
                    var slot = 0
                    if isInstanceBound {
                        base.storeBytes(of: instance, as: UnsafeMutableRawPointer?.self)
                        pointers[0] = base
                        slot = 1
                    }
                    for (index, type) in parameters.enumerated() {
                        let address = base + slot * 8
                        pointers[slot] = address
                        slot += 1
                        switch (type, argument(index)) {
                        case (.string, .string(let s)) where !s.isEmpty:
                            guard let copy = strdup(s) else { return .null }
                            owned[ownedCount] = copy
                            ownedCount += 1
                            address.storeBytes(of: UnsafePointer(copy), as: UnsafePointer<CChar>.self)
                        case (.string, .string), (.string, .null):
                            address.storeBytes(of: Self.emptyCString, as: UnsafeRawPointer.self)
                        case (let type, let value):
                            guard Self.storeScalar(value, as: type, at: address) else { return .null }
                        }
                    }
                    var result: UInt64 = 0
                    withUnsafeMutableBytes(of: &result) { raw in
                        ffi_call(cif, pointer, raw.baseAddress, pointers.baseAddress)
                    }
                    return decode(result)
                }
            }
        }
    }

    /// Stores a number or bool argument in its 8-byte slot; false when `value` does not fit `type` (a string type
    /// included: strings take the copying path).
    @inline(__always)
    fileprivate static func storeScalar(_ value: ExprValue, as type: ForeignType, at address: UnsafeMutableRawPointer) -> Bool {
        switch (type, value) {
        case (.int64, .int(let v)):
            address.storeBytes(of: v, as: Int64.self)
        case (.double, .int(let v)):
            address.storeBytes(of: Double(v), as: Double.self)
        case (.double, .decimal(let v)):
            address.storeBytes(of: doubleValue(v), as: Double.self)
        case (.bool, .bool(let v)):
            address.storeBytes(of: v ? 1 : 0, as: UInt8.self)
        default:
            return false
        }
        return true
    }

    /// A decimal argument for a `double` parameter (out of line: Foundation's conversion goes through an object).
    @inline(never)
    fileprivate static func doubleValue(_ decimal: Decimal) -> Double {
        NSDecimalNumber(decimal: decimal).doubleValue
    }

    /// A NUL-terminated "" in static storage, passed for null and empty strings without allocating.
    private static var emptyCString: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

    /// The result in `ExprValue` form: ints and bools here, inline in the call; doubles and strings out of line.
    @inline(__always)
    private func decode(_ raw: UInt64) -> ExprValue {
        switch resultType {
        case .int64:
            return .int(Int64(bitPattern: raw))
        case .bool:
            return .bool(UInt8(truncatingIfNeeded: raw) != 0)
        case .double:
            return Self.decodeDouble(raw)
        case .string:
            return Self.decodeString(raw)
        }
    }

    /// A `double` result as the decimal its shortest text spells (0.1 stays 0.1); not finite → `.null`.
    @inline(never)
    private static func decodeDouble(_ raw: UInt64) -> ExprValue {
        let d = Double(bitPattern: raw)
        guard d.isFinite else { return .null }
        return .decimal(Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(d))
    }

    /// A `const char *` result copied at once (the plugin keeps its buffer); NULL → `.null`.
    @inline(never)
    private static func decodeString(_ raw: UInt64) -> ExprValue {
        guard let p = UnsafePointer<CChar>(bitPattern: UInt(raw)) else { return .null }
        return .string(String(cString: p))
    }
}

/// Where the stack-slot call path reads its arguments from; a generic parameter, so each source is specialised
/// and inlined into the call (no closure call per argument).
private protocol ScalarArguments {
    /// Stores declared argument `index` (of `type`, never `string`) at `address`; false when it does not fit.
    func store(_ index: Int, as type: ForeignType, at address: UnsafeMutableRawPointer) -> Bool
}

/// Arguments read in place from the caller's array: only the payload is loaded (no copy of the value, no reference
/// counting).
private struct InPlaceArguments: ScalarArguments {
    let buffer: UnsafeBufferPointer<ExprValue>

    @inline(__always)
    func store(_ index: Int, as type: ForeignType, at address: UnsafeMutableRawPointer) -> Bool {
        switch type {
        case .int64:
            guard case .int(let v) = buffer[index] else { return false }
            address.storeBytes(of: v, as: Int64.self)
        case .double:
            if case .int(let v) = buffer[index] {
                address.storeBytes(of: Double(v), as: Double.self)
            } else if case .decimal(let v) = buffer[index] {
                address.storeBytes(of: ForeignFunction.doubleValue(v), as: Double.self)
            } else {
                return false
            }
        case .bool:
            guard case .bool(let v) = buffer[index] else { return false }
            address.storeBytes(of: v ? 1 : 0, as: UInt8.self)
        case .string:
            return false
        }
        return true
    }
}

/// Arguments the evaluator produces one by one (each a subexpression's value).
private struct ProducedArguments: ScalarArguments {
    let argument: (Int) -> ExprValue

    @inline(__always)
    func store(_ index: Int, as type: ForeignType, at address: UnsafeMutableRawPointer) -> Bool {
        ForeignFunction.storeScalar(argument(index), as: type, at: address)
    }
}
