/// The sum of a basket's amounts in one currency: what the person approves in total (Art. 5(3)(b)).
public struct BasketTotal: Sendable, Hashable, Codable {
    /// ISO 4217 code as the documents give it ("RUB").
    public let currency: String
    /// Plain decimal text with the currency's minor units (more only when a document has more; never rounded).
    public let amount: String

    public init(currency: String, amount: String) {
        self.currency = currency
        self.amount = amount
    }
}
