/// A LIKE pattern: `*` matches any run of characters, `?` exactly one; everything else matches itself.
struct LikePattern: Sendable {
    private enum Element: Sendable, Equatable {
        case character(Character)
        case one
        case any
    }

    private let elements: [Element]
    let options: StringOptions

    init(_ pattern: String, options: StringOptions) {
        self.options = options
        elements = options.fold(pattern).map { $0 == "*" ? .any : $0 == "?" ? .one : .character($0) }
    }

    /// Whether the whole of `text` matches; linear backtracking over the last `*` (O(n·m) at worst).
    func matches(_ text: String) -> Bool {
        let chars = Array(options.fold(text))
        var p = 0, t = 0
        var starP = -1, starT = 0
        while t < chars.count {
            if p < elements.count {
                switch elements[p] {
                case .any:
                    starP = p
                    starT = t
                    p += 1
                    continue
                case .one:
                    p += 1
                    t += 1
                    continue
                case .character(let c) where c == chars[t]:
                    p += 1
                    t += 1
                    continue
                default:
                    break
                }
            }
            guard starP >= 0 else { return false }
            p = starP + 1
            starT += 1
            t = starT
        }
        while p < elements.count, elements[p] == .any { p += 1 }
        return p == elements.count
    }
}
