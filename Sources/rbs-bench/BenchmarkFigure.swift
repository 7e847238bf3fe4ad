/// One measured figure, reported next to the baseline measured in the same run.
struct BenchmarkFigure: Sendable {
    /// What was measured ("incremental recompute, 2,000 atoms").
    var name: String
    var value: Double
    /// "µs", "ns", "ms", "MB", "ops/s".
    var unit: String
    /// The baseline measured in the same run ("full re-evaluation"), with its value in the same unit.
    var baselineName: String
    var baselineValue: Double
    /// The target in words ("≤ 20 µs and ≥ 50× faster than full"); nil for a figure reported without one.
    var target: String?
    /// Whether this run met the target; nil when there is no target.
    var met: Bool?
    /// What bounds the figure (from a profile), filled in by the section that measured it; "" when not known.
    var bound: String = ""

    /// The "met" cell: yes, **no**, or that there is no target.
    var metText: String {
        switch met {
        case .some(true): "yes"
        case .some(false): "**no**"
        case .none: "no target"
        }
    }
}
