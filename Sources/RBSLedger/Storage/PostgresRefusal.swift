/// A statement the server refused: its SQLSTATE and message (a trigger's refusal keeps its own words).
struct PostgresRefusal: Error, CustomStringConvertible {
    let sqlState: String
    let message: String

    /// A serialisation failure or a deadlock: the transaction may succeed when run again.
    var isConflict: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// A lock not granted within `lock_timeout` (55P03): the one-call read gives anything it waits for 5 ms, so a table
    /// held exclusively for longer (autovacuum truncating its end, a migration) refuses it; run again, it may succeed.
    var isLockUnavailable: Bool { sqlState == "55P03" }
    var description: String { message }
}
