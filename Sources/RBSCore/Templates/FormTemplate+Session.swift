import Foundation
import RBSLedger

extension FormTemplate {
    /// The form's values now: every atom that holds a value, is not secret, holds no card number and is not empty
    /// (hidden ones too: a field shown again later keeps what it held). What `template save` keeps and what the
    /// journal records for `repeat N`: never a one-time code, a secret atom or a PAN (as the REPL's history).
    public init(session: FormSession) {
        let operation = session.operation
        self.init(operation: operation.id, pluginVersion: operation.plugin.version, values: session.atoms.compactMap { state in
            guard state.descriptor.holdsValue, !state.descriptor.flags.contains(.secret), !state.value.isEmpty,
                  !CardNumberMask.containsCardNumber(state.value) else { return nil }
            return Value(id: state.id, value: state.value)
        })
    }

    /// The values `descriptor` still has an atom for (the prefill), and the ones it no longer has (dropped).
    public func split(for descriptor: OperationDescriptor) -> (kept: [Value], dropped: [Value]) {
        let atoms = Set(descriptor.atoms.filter(\.holdsValue).map(\.id))
        return (values.filter { atoms.contains($0.id) }, values.filter { !atoms.contains($0.id) })
    }
}
