import Foundation
import PostgresNIO

/// One transaction on a PostgreSQL connection: `?` placeholders numbered, statements run one by one.
final class PostgresTransaction: SQLTransaction {
    private let store: PostgresStore
    private let connection: PostgresConnection
    var dialect: SQLDialect { .postgres }
    var journalPositions: Bool { store.positions.load(ordering: .relaxed) }

    init(store: PostgresStore, connection: PostgresConnection) {
        self.store = store
        self.connection = connection
    }

    func execute(_ sql: String, arguments: [SQLValue]) throws {
        _ = try rows(sql, arguments: arguments)
    }

    func rows(_ sql: String, arguments: [SQLValue]) throws -> [SQLRow] {
        let (numbered, count) = PostgresSQL.numbered(sql)
        guard count == arguments.count else {
            throw PostgresRefusal(sqlState: "", message: "the statement takes \(count) arguments, \(arguments.count) given: \(sql)")
        }
        return try store.run(connection, numbered, arguments)
    }

    func executeScript(_ sql: String) throws {
        for statement in PostgresSQL.statements(sql) { _ = try store.run(connection, statement, []) }
    }
}
