/// A statement the server refused: its SQLSTATE and message (a trigger's refusal keeps its own words).
struct PostgresRefusal: Error, CustomStringConvertible {
    let sqlState: String
    let message: String

    /// A serialisation failure or a deadlock: the transaction may succeed when run again.
    var isConflict: Bool { sqlState == "40001" || sqlState == "40P01" }
    var description: String { message }
}
