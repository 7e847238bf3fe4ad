import Testing
@testable import RBSExpressions

/// A small deterministic generator (SplitMix64) so that property tests replay.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("FormModel")
struct FormModelTests {
    static func scope(_ count: Int) -> ExpressionScope {
        ExpressionScope(fields: (0..<count).map { (name: "s\($0)", type: ValueType.int) })
    }

    static func slot(_ i: Int, _ scope: ExpressionScope, show: String? = nil, valid: String? = nil) throws -> FormSlot {
        FormSlot(name: "s\(i)", type: .int,
                 showIf: try show.map { try CompiledExpression.compile($0, in: scope) },
                 validIf: try valid.map { try CompiledExpression.compile($0, in: scope) })
    }

    @Test func hiddenSlotsHaveNullEffectiveValuesAndHideTheirDependents() throws {
        let scope = Self.scope(3)
        var form = try FormModel(slots: [
            Self.slot(0, scope),
            Self.slot(1, scope, show: "$s0 == 1"),
            Self.slot(2, scope, show: "$s1 == 5"),
        ])
        #expect(!form.isVisible(1) && !form.isVisible(2))
        _ = form.set(1, to: .int(5))
        #expect(form.effectiveValues[1] == .null, "a hidden slot never counts")
        let shown = form.set(0, to: .int(1))
        #expect(shown.appeared == [1, 2])
        let hidden = form.set(0, to: .int(2))
        #expect(hidden.disappeared == [1, 2])
        #expect(form.values[1] == .int(5), "hiding keeps the entered value")
    }

    @Test func validityIgnoresHiddenSlots() throws {
        let scope = Self.scope(2)
        var form = try FormModel(slots: [
            Self.slot(0, scope),
            Self.slot(1, scope, show: "$s0 == 1", valid: "$s1 > 10"),
        ])
        #expect(form.isSubmittable)
        #expect(form.set(0, to: .int(1)).becameInvalid == [1])
        #expect(form.set(1, to: .int(11)).becameValid == [1])
        _ = form.set(1, to: .int(3))
        #expect(!form.isSubmittable)
        #expect(form.set(0, to: .int(0)).becameValid == [1])
    }

    @Test func manualVisibilityPropagates() throws {
        let scope = Self.scope(2)
        var form = try FormModel(slots: [Self.slot(0, scope), Self.slot(1, scope, show: "$s0 == NIL")],
                                 values: [.int(1), .null])
        #expect(!form.isVisible(1))
        let changes = form.setManualVisibility(0, false)
        #expect(changes.disappeared == [0])
        #expect(changes.appeared == [1])
    }

    @Test func showIfCycleIsAnErrorNamingTheSlots() throws {
        let scope = Self.scope(4)
        #expect(throws: FormError.showIfCycle(slots: ["s1", "s2", "s3"])) {
            try FormModel(slots: [
                Self.slot(0, scope), Self.slot(1, scope, show: "$s2 == 1"),
                Self.slot(2, scope, show: "$s3 == 1"), Self.slot(3, scope, show: "$s1 == 1 OR $s0 == 1"),
            ])
        }
        #expect(throws: FormError.showIfCycle(slots: ["s0"])) {
            try FormModel(slots: [Self.slot(0, scope, show: "$s0 == 1")])
        }
        // A valid-if reading its own slot is fine.
        _ = try FormModel(slots: [Self.slot(0, scope, valid: "$s0 == 1")])
    }

    @Test func conditionReadingAMissingSlotIsAnError() throws {
        let scope = Self.scope(4)
        #expect(throws: FormError.readsMissingSlot(slot: "s0", index: 3)) {
            try FormModel(slots: [Self.slot(0, scope, show: "$s3 == 1")])
        }
    }

    @Test func incrementalStateEqualsFullRecomputationOnRandomForms() throws {
        var rng = SeededGenerator(state: 0xC0FFEE)
        for _ in 0..<300 {
            let n = Int.random(in: 2...24, using: &rng)
            let scope = Self.scope(n)
            let permutation = Array(0..<n).shuffled(using: &rng)
            var slots: [FormSlot] = []
            for i in 0..<n { slots.append(try Self.slot(i, scope)) }
            for (position, index) in permutation.enumerated() {
                let earlier = Array(permutation[..<position])
                if let a = earlier.randomElement(using: &rng), Bool.random(using: &rng) {
                    let b = earlier.randomElement(using: &rng) ?? a
                    let k = Int.random(in: 0...3, using: &rng)
                    let templates = ["$s\(a) == \(k)", "$s\(a) == NIL", "$s\(a) > \(k) AND $s\(b) != \(k)",
                                     "$s\(a) == \(k) OR $s\(b) == NIL", "$s\(a) IN {1, 2}", "NOT ($s\(a) < \(k))"]
                    slots[index].showIf = try CompiledExpression.compile(templates.randomElement(using: &rng) ?? "YES", in: scope)
                }
                if Int.random(in: 0..<3, using: &rng) == 0 {
                    let c = Int.random(in: 0..<n, using: &rng)
                    slots[index].validIf = try CompiledExpression.compile("$s\(c) == NIL OR $s\(c) < 3", in: scope)
                }
            }
            var form = try FormModel(slots: slots)
            for _ in 0..<20 {
                let slot = Int.random(in: 0..<n, using: &rng)
                let before = form
                let changes: FormChanges
                if Int.random(in: 0..<5, using: &rng) == 0 {
                    changes = form.setManualVisibility(slot, Bool.random(using: &rng))
                } else {
                    let value: ExprValue = Int.random(in: 0..<5, using: &rng) == 0 ? .null : .int(Int64.random(in: 0...4, using: &rng))
                    changes = form.set(slot, to: value)
                }
                var full = form
                let corrections = full.recomputeAll()
                #expect(corrections.isEmpty)
                #expect(full.effectiveValues == form.effectiveValues)
                for i in 0..<n {
                    #expect(form.isVisible(i) == full.isVisible(i))
                    #expect(form.isValid(i) == full.isValid(i))
                    // The reported changes are exactly the differences from the previous state.
                    #expect(changes.appeared.contains(i) == (!before.isVisible(i) && form.isVisible(i)))
                    #expect(changes.disappeared.contains(i) == (before.isVisible(i) && !form.isVisible(i)))
                    #expect(changes.becameInvalid.contains(i) == (before.isValid(i) && !form.isValid(i)))
                }
            }
        }
    }
}
