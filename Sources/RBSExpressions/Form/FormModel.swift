/// The incremental dependency engine of a form: visibility, effective values and validity of its slots.
///
/// A slot's effective value is its value while visible and null while hidden (hidden atoms never count);
/// conditions read effective values. ``set(_:to:instance:)`` recomputes only the conditions that depend,
/// transitively, on the changed slot — in topological order — plus volatile ones, and reports what changed.
/// A pure value type: no plugin knowledge beyond the `instance` handed to volatile plugin functions.
public struct FormModel: Sendable {
    public let slots: [FormSlot]
    /// The values as entered, whether visible or not.
    public private(set) var values: [ExprValue]
    /// What conditions see: the value when visible, null when hidden.
    public private(set) var effectiveValues: [ExprValue]
    private var manualVisibility: [Bool]
    private var visibility: [Bool]
    private var validity: [Bool]

    /// Slots in an order where every show-if comes after the slots it reads.
    private let order: [Int]
    /// Position of each slot in `order`.
    private let rank: [Int]
    /// For each slot, the slots whose show-if reads it.
    private let showDependents: [[Int]]
    /// For each slot, the slots whose valid-if reads it.
    private let validDependents: [[Int]]
    private let volatileShow: [Int]
    private let volatileValid: [Int]

    // Scratch space reused by every commit, so that a commit allocates little.
    private var heap: [Int] = []
    private var queued: [Bool]
    private var marked: [Bool]

    /// Builds the dependency graph and computes the initial state (every slot without show-if visible).
    /// Throws when show-if conditions form a cycle or a condition reads a slot the form does not have.
    public init(slots: [FormSlot], values: [ExprValue]? = nil,
                instance: UnsafeMutableRawPointer? = nil) throws(FormError) {
        let n = slots.count
        self.slots = slots
        var initial = values ?? []
        initial += Array(repeating: .null, count: max(0, n - initial.count))
        self.values = Array(initial.prefix(n))
        effectiveValues = self.values
        manualVisibility = Array(repeating: true, count: n)
        visibility = Array(repeating: true, count: n)
        validity = Array(repeating: true, count: n)
        queued = Array(repeating: false, count: n)
        marked = Array(repeating: false, count: n)

        var show = Array(repeating: [Int](), count: n)
        var valid = Array(repeating: [Int](), count: n)
        var volatileShow: [Int] = [], volatileValid: [Int] = []
        for (index, slot) in slots.enumerated() {
            for (expression, isShow) in [(slot.showIf, true), (slot.validIf, false)] {
                guard let expression else { continue }
                if expression.isVolatile { isShow ? volatileShow.append(index) : volatileValid.append(index) }
                for read in expression.reads {
                    guard read >= 0, read < n else { throw .readsMissingSlot(slot: slot.name, index: read) }
                    if isShow { show[read].append(index) } else { valid[read].append(index) }
                }
            }
        }
        showDependents = show
        validDependents = valid
        self.volatileShow = volatileShow
        self.volatileValid = volatileValid
        let sorted = try Self.topologicalOrder(slots: slots, dependents: show)
        order = sorted
        var rank = Array(repeating: 0, count: n)
        for (position, slot) in sorted.enumerated() { rank[slot] = position }
        self.rank = rank
        _ = recomputeAll(instance: instance)
    }

    /// Kahn's algorithm over show-if edges; on a cycle, walks back through unsorted slots to name it.
    private static func topologicalOrder(slots: [FormSlot], dependents: [[Int]]) throws(FormError) -> [Int] {
        let n = slots.count
        var indegree = Array(repeating: 0, count: n)
        for list in dependents { for d in list { indegree[d] += 1 } }
        var ready = (0..<n).filter { indegree[$0] == 0 }
        var result: [Int] = []
        result.reserveCapacity(n)
        while let next = ready.popLast() {
            result.append(next)
            for d in dependents[next] {
                indegree[d] -= 1
                if indegree[d] == 0 { ready.append(d) }
            }
        }
        guard result.count < n else { return result }
        // Every unsorted slot's show-if reads some other unsorted slot; follow those reads until one repeats.
        guard let start = (0..<n).first(where: { indegree[$0] > 0 }) else { return result }
        var path: [Int] = []
        var seenAt: [Int: Int] = [:]
        var current = start
        while seenAt[current] == nil {
            seenAt[current] = path.count
            path.append(current)
            let reads = slots[current].showIf?.reads ?? []
            guard let next = reads.first(where: { indegree[$0] > 0 }) else { break }
            current = next
        }
        let cycle = path[(seenAt[current] ?? 0)...]
        throw .showIfCycle(slots: cycle.map { slots[$0].name })
    }

    /// Whether `slot` is visible (false for a slot index the form does not have).
    public func isVisible(_ slot: Int) -> Bool {
        slot >= 0 && slot < visibility.count && visibility[slot]
    }

    /// Whether `slot` passes its valid-if (hidden slots and slots without valid-if are valid).
    public func isValid(_ slot: Int) -> Bool {
        slot >= 0 && slot < validity.count && validity[slot]
    }

    /// Whether every slot is valid, so that the form may be submitted.
    public var isSubmittable: Bool { !validity.contains(false) }

    /// Commits `value` to `slot` and recomputes what depends on it. An unknown slot changes nothing.
    public mutating func set(_ slot: Int, to value: ExprValue,
                             instance: UnsafeMutableRawPointer? = nil) -> FormChanges {
        guard slot >= 0, slot < values.count else { return FormChanges() }
        values[slot] = value
        var changes = FormChanges()
        var changedEffective: [Int] = []
        if visibility[slot], effectiveValues[slot] != value {
            effectiveValues[slot] = value
            changedEffective.append(slot)
        }
        propagate(from: changedEffective, instance: instance, changes: &changes)
        return changes
    }

    /// Sets the visibility of a slot without show-if (a slot with show-if keeps what its condition says).
    public mutating func setManualVisibility(_ slot: Int, _ visible: Bool,
                                             instance: UnsafeMutableRawPointer? = nil) -> FormChanges {
        guard slot >= 0, slot < values.count else { return FormChanges() }
        manualVisibility[slot] = visible
        var changes = FormChanges()
        var changedEffective: [Int] = []
        if slots[slot].showIf == nil, visibility[slot] != visible {
            visibility[slot] = visible
            (visible ? { changes.appeared.append(slot) } : { changes.disappeared.append(slot) })()
            let effective = visible ? values[slot] : .null
            marked[slot] = true
            if effectiveValues[slot] != effective {
                effectiveValues[slot] = effective
                changedEffective.append(slot)
            }
            // Its own validity depends on its visibility.
            updateValidity(slot, instance: instance, changes: &changes)
            marked[slot] = false
        }
        propagate(from: changedEffective, instance: instance, changes: &changes)
        return changes
    }

    /// Recomputes every visibility, effective value and validity from scratch, in topological order.
    @discardableResult
    public mutating func recomputeAll(instance: UnsafeMutableRawPointer? = nil) -> FormChanges {
        var changes = FormChanges()
        for slot in order {
            let visible = slots[slot].showIf?.test(effectiveValues, instance: instance) ?? manualVisibility[slot]
            if visible != visibility[slot] {
                visibility[slot] = visible
                visible ? changes.appeared.append(slot) : changes.disappeared.append(slot)
            }
            effectiveValues[slot] = visible ? values[slot] : .null
        }
        for slot in 0..<slots.count {
            updateValidity(slot, instance: instance, changes: &changes)
        }
        changes.sort()
        return changes
    }

    // MARK: - Incremental propagation

    /// Re-evaluates the show-ifs reachable from `changed` (plus volatile ones) in topological order,
    /// then the valid-ifs that read any slot whose effective value changed.
    private mutating func propagate(from changed: [Int], instance: UnsafeMutableRawPointer?,
                                    changes: inout FormChanges) {
        var changedEffective = changed
        for slot in changed { enqueueShowDependents(of: slot) }
        for slot in volatileShow { enqueue(slot) }
        var visibilityChanged: [Int] = []
        while let slot = popMin() {
            queued[slot] = false
            guard let showIf = slots[slot].showIf else { continue }
            let visible = showIf.test(effectiveValues, instance: instance)
            guard visible != visibility[slot] else { continue }
            visibility[slot] = visible
            visible ? changes.appeared.append(slot) : changes.disappeared.append(slot)
            visibilityChanged.append(slot)
            let effective = visible ? values[slot] : .null
            if effectiveValues[slot] != effective {
                effectiveValues[slot] = effective
                changedEffective.append(slot)
                enqueueShowDependents(of: slot)
            }
        }
        // Validity: of every slot whose visibility changed, whose valid-if reads a changed value, or is volatile.
        var toValidate: [Int] = []
        func mark(_ slot: Int) {
            if !marked[slot] {
                marked[slot] = true
                toValidate.append(slot)
            }
        }
        for slot in visibilityChanged { mark(slot) }
        for slot in changedEffective { for d in validDependents[slot] { mark(d) } }
        for slot in volatileValid { mark(slot) }
        for slot in toValidate {
            updateValidity(slot, instance: instance, changes: &changes)
            marked[slot] = false
        }
        changes.sort()
    }

    private mutating func updateValidity(_ slot: Int, instance: UnsafeMutableRawPointer?, changes: inout FormChanges) {
        let valid = !visibility[slot] || (slots[slot].validIf?.test(effectiveValues, instance: instance) ?? true)
        guard valid != validity[slot] else { return }
        validity[slot] = valid
        valid ? changes.becameValid.append(slot) : changes.becameInvalid.append(slot)
    }

    private mutating func enqueueShowDependents(of slot: Int) {
        for d in showDependents[slot] { enqueue(d) }
    }

    /// Adds `slot` to the binary min-heap keyed by topological rank, unless it is already queued.
    private mutating func enqueue(_ slot: Int) {
        guard !queued[slot] else { return }
        queued[slot] = true
        heap.append(slot)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard rank[heap[child]] < rank[heap[parent]] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popMin() -> Int? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, rank[heap[left]] < rank[heap[smallest]] { smallest = left }
                if right < heap.count, rank[heap[right]] < rank[heap[smallest]] { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}
