import Foundation
import RBSMoney
import Synchronization
import Testing
@testable import RBSLedger

/// The PostgreSQL engine's own parts that need no server: addresses, placeholders, scripts, an unreachable server.
@Suite("PostgreSQL: addresses and SQL text")
struct PostgresTextTests {
    @Test("? placeholders are numbered in order; quoted text, quoted names, dollar bodies and comments keep theirs")
    func numbersPlaceholders() {
        let sql = "SELECT ?, '?', 'it''s ?', \"a?b\", $$ ? $$, $fn$ ? $fn$ -- ?\n, ? /* ? */ FROM t WHERE x = ?"
        let (numbered, count) = PostgresSQL.numbered(sql)
        #expect(numbered == "SELECT $1, '?', 'it''s ?', \"a?b\", $$ ? $$, $fn$ ? $fn$ -- ?\n, $2 /* ? */ FROM t WHERE x = $3")
        #expect(count == 3)
        #expect(PostgresSQL.numbered("SELECT 1").sql == "SELECT 1")
    }

    @Test("values written into a statement: quotes doubled, bytes as hex, numbers typed; ? in quotes and comments kept; the same text twice gives the same")
    func inlinesValues() {
        let sql = "INSERT INTO t VALUES (?, '?', ?, ?, \"a?b\", ?) -- ?\n RETURNING ?"
        let arguments: [SQLValue] = [.text("it's O'Brien; DROP TABLE t; --"), .integer(-42), .blob(Data([0x00, 0xAB, 0xFF])),
                                     .null, .text("привет ?")]
        let expected = "INSERT INTO t VALUES ('it''s O''Brien; DROP TABLE t; --'::text, '?', (-42)::int8, '\\x00abff'::bytea, "
            + "\"a?b\", NULL) -- ?\n RETURNING 'привет ?'::text"
        #expect(PostgresSQL.inlined(sql, arguments) == expected)
        // The placeholders' places are kept after the first time: asked again, the same answer.
        #expect(PostgresSQL.inlined(sql, arguments) == expected)
        #expect(PostgresSQL.placeholderOffsets(sql).count == 5)
        #expect(PostgresSQL.inlined(sql, Array(arguments.dropLast())) == nil)
        #expect(PostgresSQL.inlined("SELECT 1", []) == "SELECT 1")
        #expect(PostgresSQL.inlined("SELECT ?", [.text("")]) == "SELECT ''::text")
        #expect(PostgresSQL.literal(.text("'")) == "''''::text")
    }

    @Test("a statement as a kept plan (v26): $n where a value goes, NULL written in, each value's literal and type; a customer's text never in the plan's text")
    func parametrizesValues() throws {
        let sql = "INSERT INTO t VALUES (?, '?', ?, ?, \"a?b\", ?) -- ?\n RETURNING ?"
        let arguments: [SQLValue] = [.text("it's O'Brien; DROP TABLE t; --"), .integer(-42), .blob(Data([0x00, 0xAB, 0xFF])),
                                     .null, .text("привет ?")]
        let kept = try #require(PostgresSQL.parametrized(sql, arguments))
        #expect(kept.template == "INSERT INTO t VALUES ($1, '?', $2, $3, \"a?b\", NULL) -- ?\n RETURNING $4")
        #expect(kept.arguments == "'it''s O''Brien; DROP TABLE t; --'::text,(-42)::int8,'\\x00abff'::bytea,'привет ?'::text")
        #expect(kept.types == "text,int8,bytea,text")
        // Other values of the same kinds: the same plan.
        let other = try #require(PostgresSQL.parametrized(sql, [.text("x"), .integer(7), .blob(Data()), .null, .text("")]))
        #expect(other.template == kept.template)
        #expect(other.types == kept.types)
        // A server expression in a value's place (a journal number bound at commit) keeps the value's type.
        let numbered = try #require(PostgresSQL.parametrized("INSERT INTO j VALUES (?, ?)", [.integer(5), .blob(Data([1]))]) { index, _ in
            index == 0 ? "rbs_v21_seq(1)" : nil
        })
        #expect(numbered.template == "INSERT INTO j VALUES ($1, $2)")
        #expect(numbered.arguments == "rbs_v21_seq(1),'\\x01'::bytea")
        #expect(numbered.types == "int8,bytea")
        #expect(PostgresSQL.parametrized(sql, Array(arguments.dropLast())) == nil)
        let none = try #require(PostgresSQL.parametrized("SELECT 1", []))
        #expect(none == PostgresSQL.Parametrized(template: "SELECT 1", arguments: "", types: ""))
    }

    @Test("consecutive checks of a commit as one kept query: each template's $k moved past the ones before, values and types joined, the digest of the row of digests; writes and lone checks as they were")
    func mergesConsecutiveChecks() throws {
        let account = try #require(PostgresSQL.parametrized("SELECT * FROM accounts WHERE number = ? AND note <> '$1' -- $2", [.text("A")]))
        let policy = try #require(PostgresSQL.parametrized("SELECT 1 FROM policies", []))
        let code = try #require(PostgresSQL.parametrized("SELECT * FROM codes WHERE id = ? AND \"$3\" = ?", [.integer(7), .text("x")]))
        let write = try #require(PostgresSQL.parametrized("UPDATE accounts SET balance = ? WHERE number = ?", [.text("1.00"), .text("A")]))
        let plans = [account, policy, code, write, account, write, code, account]
        let digests = ["h1", "h2", "h3", "", "h5", "", "h7", "h8"]
        let merged = PostgresSQL.mergedChecks(plans, digests: digests)
        #expect(merged.plans.count == 5)
        // Each query on its own lines, so a template that ends in a comment does not comment out what follows it.
        #expect(merged.plans[0].template == "SELECT md5(array_to_string(ARRAY(SELECT to_json(t.*)::text FROM (\n"
            + "SELECT * FROM accounts WHERE number = $1 AND note <> '$1' -- $2\n) AS t), chr(10))) AS d1, "
            + "md5(array_to_string(ARRAY(SELECT to_json(t.*)::text FROM (\nSELECT 1 FROM policies\n) AS t), chr(10))) AS d2, "
            + "md5(array_to_string(ARRAY(SELECT to_json(t.*)::text FROM (\nSELECT * FROM codes WHERE id = $2 AND \"$3\" = $3\n) AS t), chr(10))) AS d3")
        #expect(merged.plans[0].arguments == "'A'::text,(7)::int8,'x'::text")
        #expect(merged.plans[0].types == "text,int8,text")
        #expect(merged.digests[0] == PostgresSQL.mergedDigest(["h1", "h2", "h3"]))
        // A write, a check alone between writes, a write: as they were; the last two checks merged again from $1.
        #expect(Array(merged.plans[1...3]) == [write, account, write])
        #expect(Array(merged.digests[1...3]) == ["", "h5", ""])
        #expect(merged.plans[4].template.contains("WHERE id = $1 AND \"$3\" = $2\n) AS t") && merged.plans[4].template.contains("number = $3 AND note <> '$1'"))
        #expect(merged.plans[4].types == "int8,text,text")
        // The digest of the one row the server gives: md5 of the JSON text to_json makes of it.
        #expect(PostgresSQL.mergedDigest([SpeculativeTransaction.emptyDigest, "-"]) == "1433f50adc082f090952cb82dea724a1")
        #expect(PostgresSQL.renumbered("SELECT $1, $10, '$2', $$ $3 $$, $a", by: 5) == "SELECT $6, $15, '$2', $$ $3 $$, $a")
        let checksOnly = PostgresSQL.mergedChecks([policy], digests: ["h"])
        #expect(checksOnly.plans == [policy] && checksOnly.digests == ["h"])
        // A once-only lookup (v30: looked up before the commit's transaction) is never merged with its neighbours.
        let once = PostgresSQL.mergedChecks([account, code, policy, account], digests: ["h1", PostgresSQL.onceOnly, "h3", "h4"])
        #expect(once.plans.count == 3 && once.plans[0] == account && once.plans[1] == code)
        #expect(Array(once.digests[0...1]) == ["h1", PostgresSQL.onceOnly] && once.digests[2] == PostgresSQL.mergedDigest(["h3", "h4"]))
    }

    @Test("the once-only lookups (a document in the journal, a request id) are known by their kept templates; other queries and writes are not, and only INSERT, UPDATE and DELETE are writes a kept plan runs")
    func onceOnlyTemplates() throws {
        let document = try #require(PostgresSQL.parametrized(EmbeddedBank.journalByDocumentQuery, [.integer(42), .text("d")]))
        let request = try #require(PostgresSQL.parametrized(LedgerRequest.sequenceQuery, [.text("alice"), .text("r-1")]))
        #expect(SpeculativeTransaction.isOnceOnlyLookup(document.template))
        #expect(SpeculativeTransaction.isOnceOnlyLookup(request.template))
        let account = try #require(PostgresSQL.parametrized("SELECT * FROM accounts WHERE number = ?", [.text("A")]))
        #expect(!SpeculativeTransaction.isOnceOnlyLookup(account.template))
        #expect(SpeculativeTransaction.isPreparableWrite("  INSERT INTO t VALUES (1)") && SpeculativeTransaction.isPreparableWrite("update t set a = 1"))
        #expect(SpeculativeTransaction.isPreparableWrite("DELETE FROM t"))
        #expect(!SpeculativeTransaction.isPreparableWrite("TRUNCATE journal") && !SpeculativeTransaction.isPreparableWrite("CREATE TABLE x (a INT)"))
    }

    @Test("a script is cut at the semicolons between statements, not at one inside a function body or a string")
    func splitsScripts() {
        let script = """
            CREATE FUNCTION rbs_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation'; END $$;
            CREATE TABLE a (x TEXT DEFAULT ';');
            -- a comment; with a semicolon
            CREATE TRIGGER t BEFORE UPDATE ON a FOR EACH ROW EXECUTE FUNCTION rbs_refuse('no; never');

            """
        let statements = PostgresSQL.statements(script)
        #expect(statements.count == 3)
        #expect(statements[0].hasSuffix("END $$"))
        #expect(statements[1] == "CREATE TABLE a (x TEXT DEFAULT ';')")
        #expect(statements[2].hasSuffix("rbs_refuse('no; never')"))
    }

    @Test("every PostgreSQL schema step's DDL cuts into statements that each start with a keyword")
    func schemaStepsSplit() {
        let ddl = LedgerSchema.appendOnly("journal", changed: "x; y", deleted: "z", in: .postgres)
        let statements = PostgresSQL.statements(ddl)
        #expect(statements.count == 3)
        #expect(statements.allSatisfy { $0.hasPrefix("CREATE TRIGGER") })
    }

    @Test("an address: user, password, host, port, database and timeouts; the description never shows the password")
    func parsesAddresses() throws {
        let full = try PostgresAddress.parse("postgres://bank:s%40cret@db.example:6543/ledger?connect_timeout=3&statement_timeout=9")
        #expect(full == PostgresAddress(user: "bank", password: "s@cret", host: "db.example", port: 6543, database: "ledger",
                                        connectTimeout: 3, statementTimeout: 9))
        #expect(full.description == "postgres://bank@db.example:6543/ledger")
        let plain = try PostgresAddress.parse("postgresql://bank@127.0.0.1/ledger")
        #expect(plain.port == 5432 && plain.password == nil && plain.connectTimeout == 5 && plain.statementTimeout == 30)
        #expect(try PostgresAddress.parse("postgres://u:p@w@[::1]:5433/d").server == "[::1]:5433")
        #expect(try PostgresAddress.parse("postgres://u:p@w@[::1]:5433/d").password == "p@w")
        #expect(try LedgerLocation.parse("") == .dataFolder)
        #expect(try LedgerLocation.resolve(flag: nil, environment: ["RBS_DATABASE": "postgres://a@h/d"]) == .postgres(try PostgresAddress.parse("postgres://a@h/d")))
        #expect(try LedgerLocation.resolve(flag: "sqlite", environment: ["RBS_DATABASE": "postgres://a@h/d"]) == .dataFolder)
    }

    @Test("several servers (a primary and its standbys) in libpq's spelling, tried in order; read-write unless told")
    func parsesServerLists() throws {
        let pair = try PostgresAddress.parse("postgres://bank:pw@10.0.0.1:5432,[::1]:5433,db3/ledger?target_session_attrs=read-write")
        #expect(pair.servers == [.init(host: "10.0.0.1", port: 5432), .init(host: "::1", port: 5433), .init(host: "db3", port: 5432)])
        #expect(pair.server == "10.0.0.1:5432,[::1]:5433,db3:5432")
        #expect(pair.description == "postgres://bank@10.0.0.1:5432,[::1]:5433,db3:5432/ledger")
        #expect(pair.targetSession == .readWrite)
        #expect(try PostgresAddress.parse("postgres://bank@h/ledger").targetSession == .readWrite)
        #expect(try PostgresAddress.parse("postgres://bank@h1,h2/ledger?target_session_attrs=any").targetSession == .any)
    }

    @Test("a bad address says what is wrong and where it came from, with the password hidden", arguments: [
        ("mysql://u:pw@h/d", "the scheme mysql:// is not postgres://"),
        ("localhost:5432/d", "it is not a URL"),
        ("postgres://h/d", "it names no user"),
        ("postgres://u:pw@h:99999/d", "the port \"99999\" is not a number"),
        ("postgres://u:pw@h:5432", "it names no database"),
        ("postgres://u:pw@/d", "it names no host"),
        ("postgres://u:pw@h/d?connect_timeout=0", "connect_timeout=0 is not a whole number of seconds"),
        ("postgres://u:pw@h/d?sslmode=require", "the parameter sslmode is not known here"),
        ("postgres://u:pw@h1,/d", "it names no host"),
        ("postgres://u:pw@h1,h2:0/d", "the port \"0\" is not a number"),
        ("postgres://u:pw@h1,h2/d?target_session_attrs=standby", "target_session_attrs=standby is not read-write or any"),
    ])
    func refusesBadAddresses(text: String, problem: String) {
        do {
            _ = try LedgerLocation.resolve(flag: nil, environment: ["RBS_DATABASE": text])
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.hasPrefix("RBS_DATABASE "))
            #expect(error.description.contains(problem), "\(error.description)")
            #expect(!error.description.contains(":pw@"), "the password is shown: \(error.description)")
        }
    }

    @Test("a server that is not running: a clear message naming host and port and what to check, quickly, never a hang")
    func unreachableServer() throws {
        // A port nothing listens on: bound, then released.
        let port = try freeLoopbackPort()
        let address = try PostgresAddress.parse("postgres://bank:secret-pw@127.0.0.1:\(port)/ledger?connect_timeout=2")
        let started = Date()
        #expect {
            _ = try Ledger.checkDatabase(dataDirectory: temporaryDirectory(), location: .postgres(address))
        } throws: { error in
            let text = String(describing: error)
            return text.hasPrefix("cannot reach PostgreSQL at 127.0.0.1:\(port): connection refused")
                && text.contains("is the server running") && text.contains("RBS_DATABASE") && !text.contains("secret-pw")
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("no server of several answers: every server is named with its own reason")
    func noServerOfSeveral() throws {
        let first = try freeLoopbackPort(), second = try freeLoopbackPort()
        let address = try PostgresAddress.parse("postgres://bank:secret-pw@127.0.0.1:\(first),127.0.0.1:\(second)/ledger?connect_timeout=2")
        #expect {
            _ = try Ledger.checkDatabase(dataDirectory: temporaryDirectory(), location: .postgres(address))
        } throws: { error in
            let text = String(describing: error)
            return text.hasPrefix("cannot reach PostgreSQL at 127.0.0.1:\(first),127.0.0.1:\(second): no server takes writes: "
                                  + "127.0.0.1:\(first): connection refused; 127.0.0.1:\(second): connection refused")
                && !text.contains("secret-pw")
        }
    }
}

/// A loopback port that nothing listens on (bound and released at once).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw LedgerError.database(path: "127.0.0.1", detail: "cannot bind a loopback port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The PostgreSQL engine against a real server (`RBS_TEST_POSTGRES`, which make test sets): logins, migrations
/// racing, the database's refusals, serialisation across hosts, a lost connection.
@Suite("PostgreSQL: the store against a server", .enabled(if: TestDatabase.server != nil, TestDatabase.skipReason))
struct PostgresStoreTests {
    static var server: PostgresAddress { TestDatabase.server! }

    @Test("a server that is down is passed over for the next one of the address, and stays passed over")
    func downServerPassedOver() throws {
        let database = try TestDatabase()
        var address = database.address
        address.servers.insert(.init(host: "127.0.0.1", port: try freeLoopbackPort()), at: 0)
        let folder = temporaryDirectory()
        _ = try Ledger.migrateDatabase(dataDirectory: folder, location: .postgres(address))
        let ledger = try Ledger(dataDirectory: folder, location: .postgres(address))
        defer { try? ledger.close() }
        #expect(try ledger.journal.verify() == .ok(0))
    }

    @Test("a wrong password: the login is refused, naming the server and the user, without the password")
    func wrongPassword() throws {
        var address = Self.server
        address.password = "not-the-password"
        #expect {
            _ = try Ledger.checkDatabase(dataDirectory: temporaryDirectory(), location: .postgres(address))
        } throws: { error in
            guard case .server(.loginRefused(let server, let user, _)) = error as? LedgerError else { return false }
            let text = String(describing: error)
            return server == Self.server.server && user == Self.server.user && text.contains("password authentication failed")
                && text.contains("check the user and password") && !text.contains("not-the-password")
        }
    }

    @Test("a database that does not exist: named, with how to create it")
    func missingDatabase() throws {
        var address = Self.server
        address.database = "rbs_no_such_database"
        #expect {
            _ = try Ledger.checkDatabase(dataDirectory: temporaryDirectory(), location: .postgres(address))
        } throws: { error in
            String(describing: error) == PostgresFailure.noDatabase(server: Self.server.server, database: "rbs_no_such_database").description
                && String(describing: error).contains("createdb")
        }
    }

    @Test("hosts migrating at once on an empty database: each schema step applied once, one ledger for all")
    func migrationsRace() throws {
        let database = try TestDatabase()
        let hosts = 6
        let results = Mutex<[Result<String, LedgerError>]>([])
        // Six `db migrate`s at once (as hosts of a new version starting together), then each opens the ledger.
        DispatchQueue.concurrentPerform(iterations: hosts) { _ in
            var result: Result<String, LedgerError>
            do {
                let folder = temporaryDirectory()
                _ = try Ledger.migrateDatabase(dataDirectory: folder, location: database.location)
                let ledger = try Ledger(dataDirectory: folder, location: database.location)
                let id = try ledger.database.read(LedgerTip.current).ledgerId
                try ledger.close()
                result = .success(id)
            } catch {
                result = .failure(error as? LedgerError ?? .database(path: "", detail: "\(error)"))
            }
            results.withLock { $0.append(result) }
        }
        let ids = try results.withLock { $0 }.map { try $0.get() }
        #expect(ids.count == hosts)
        #expect(Set(ids).count == 1)
        let status = try Ledger.checkDatabase(dataDirectory: temporaryDirectory(), location: database.location)
        #expect(status.appliedSteps == LedgerSchema.steps.map(\.name))
        #expect(status.upToDate && status.engine == "postgres" && status.tipSequence == 0)
        let store = try PostgresStore(address: database.address)
        let counts = try store.read { db in try db.values(Int.self, "SELECT COUNT(*) FROM rbs_schema_steps GROUP BY name") }
        #expect(counts == Array(repeating: 1, count: LedgerSchema.steps.count))
        // The seed's accounts were written once, not once a host.
        #expect(try store.read { db in try db.value(Int.self, "SELECT COUNT(*) FROM accounts") } == DemoBank.seedAccounts.count)
    }

    @Test("the database refuses changing or deleting journal, postings and keys (also TRUNCATE), with the trigger's words")
    func appendOnly() throws {
        let f = try Fixture(engine: .postgres)
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        for (sql, words) in [
            ("UPDATE journal SET reason = 'x' WHERE seq = 1", "the journal is append-only: entries cannot be changed"),
            ("DELETE FROM journal", "the journal is append-only: entries cannot be deleted"),
            ("TRUNCATE journal", "the journal is append-only: entries cannot be deleted"),
            ("UPDATE postings SET amount = '0'", "postings are append-only: they cannot be changed"),
            ("DELETE FROM keys", "registered keys cannot be deleted"),
            ("UPDATE accounts SET opening = '1.00'", "an opening balance cannot be changed"),
        ] {
            #expect(Comment(rawValue: sql)) {
                try f.ledger.database.write { db in try db.execute(sql, arguments: []) }
            } throws: { error in
                guard case .database(let place, let detail) = error as? LedgerError else { return false }
                return place == f.location.description && detail.hasPrefix(words)
            }
        }
        // A second entry for the same document id: the unique key refuses it.
        #expect {
            try f.ledger.database.write { db in
                try db.execute("""
                    INSERT INTO journal (seq, kind, document_id, document, signature, key_id, recorded_ms, prev_hash, hash, document_key)
                    SELECT 2, kind, document_id, document, signature, key_id, recorded_ms, prev_hash, hash, document_key FROM journal WHERE seq = 1
                    """)
            }
        } throws: { error in
            guard case .database(_, let detail) = error as? LedgerError else { return false }
            return detail == "the document is already journaled"
        }
        #expect(try f.ledger.journal.verify() == .ok(1))
    }

    @Test("two hosts' writers are serialised: read-check-write of one balance from many threads never overdraws")
    func writersSerialisedAcrossHosts() throws {
        let database = try TestDatabase()
        _ = try Ledger.create(dataDirectory: temporaryDirectory(), location: database.location).ledger
        // Two stores are two hosts: no memory shared, only the database.
        let hosts = [try PostgresStore(address: database.address), try PostgresStore(address: database.address)]
        try hosts[0].write { db in try db.execute("CREATE TABLE purse (id INTEGER PRIMARY KEY, coins INTEGER NOT NULL)") }
        try hosts[0].write { db in try db.execute("INSERT INTO purse VALUES (1, 50)") }
        let taken = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for _ in 0..<12 {
                let took = try? hosts[worker % 2].write { db -> Bool in
                    let coins = try db.value(Int.self, "SELECT coins FROM purse WHERE id = 1") ?? 0
                    usleep(500)  // widen the window a lost update needs
                    guard coins > 0 else { return false }
                    try db.execute("UPDATE purse SET coins = ? WHERE id = 1", coins - 1)
                    return true
                }
                if took == true { taken.add(1, ordering: .relaxed) }
            }
        }
        #expect(taken.load(ordering: .relaxed) == 50)
        #expect(try hosts[1].read { db in try db.value(Int.self, "SELECT coins FROM purse WHERE id = 1") } == 0)
    }

    @Test("a connection the server kills: that operation fails naming the outage; the next one reconnects")
    func reconnectsAfterLoss() throws {
        let f = try Fixture(engine: .postgres)
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        // Another session ends every connection of this database but its own, as a server restart would.
        let admin = try PostgresStore(address: address)
        let kill = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        _ = try admin.read { db in try db.rows(kill, arguments: []) }
        // The idle connection is found dead at BEGIN and replaced: nothing of the operation was sent, so it runs.
        #expect(try f.ledger.journal.verify() == .ok(1))
        // Killed inside a transaction: the operation fails with the outage, and nothing of it is committed. (A write
        // that returns rows runs the classic way, statement by statement on one connection, which the kill cuts; a
        // one-call write holds no connection while its body runs.)
        #expect {
            try f.ledger.database.write { db in
                _ = try db.rows("UPDATE code_state SET failures = 3 WHERE id = 1 RETURNING failures", arguments: [])
                _ = try admin.read { admin in try admin.rows(kill, arguments: []) }
                _ = try db.rows("SELECT 1", arguments: [])
            }
        } throws: { error in
            guard case .server(.connectionLost(let server, _)) = error as? LedgerError else { return false }
            return server == address.server && String(describing: error).contains("was not acknowledged")
        }
        #expect(try f.ledger.database.read { db in try db.value(Int.self, "SELECT failures FROM code_state WHERE id = 1") } == 0)
        _ = try f.ledger.signAndPost(try f.payment(amount: "2.00"), code: f.nextCode())
        #expect(try f.ledger.journal.verify() == .ok(2))
    }

    @Test("a statement longer than statement_timeout is cancelled and reported as a timeout naming the server")
    func statementTimeout() throws {
        let database = try TestDatabase()
        var address = database.address
        address.statementTimeout = 1
        let store = try PostgresStore(address: address)
        let started = Date()
        #expect {
            _ = try store.read { db in try db.rows("SELECT pg_sleep(5)", arguments: []) }
        } throws: { error in
            store.ledgerError(error) == .server(.timedOut(server: address.server, seconds: 1))
        }
        #expect(Date().timeIntervalSince(started) < 4)
        #expect(try store.read { db in try db.value(Int.self, "SELECT 1") } == 1)
    }

    @Test("continuity: a lagging ledger-tip is accepted (another host wrote since); a different ledger is refused")
    func continuityAcrossHosts() throws {
        let f = try Fixture(engine: .postgres)
        // A second host with its own data folder on the same database.
        let other = temporaryDirectory()
        let second = try Ledger(dataDirectory: other, location: f.location, clock: f.clock.closure)
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        _ = try f.ledger.signAndPost(try f.payment(amount: "2.00"), code: f.nextCode())
        try second.close()
        // The second host's record says entry 0: it lags behind the database, which is expected.
        let reopened = try Ledger(dataDirectory: other, location: f.location, clock: f.clock.closure)
        #expect(try reopened.journal.verify() == .ok(2))
        // The same folder against another ledger's database: refused.
        let elsewhere = try f.freshLocation()
        _ = try Ledger.create(dataDirectory: temporaryDirectory(), location: elsewhere)
        #expect {
            _ = try Ledger(dataDirectory: f.directory, location: elsewhere, clock: f.clock.closure)
        } throws: { error in
            guard case .historyMissing(_, let found, _) = error as? LedgerError else { return false }
            return found.contains("is another ledger")
        }
    }

    @Test("a signed payment reaches PostgreSQL in at most two round trips, and a batch of ten in two as well")
    func paymentInTwoRoundTrips() throws {
        let f = try Fixture(engine: .postgres)
        let account = "40817810438000000001"
        // A host's first writes learn which columns hold bytes and what a payment asks (its key is registered by
        // the first): from then on it asks everything in one round trip.
        for amount in ["1.00", "2.00"] { _ = try f.ledger.signAndPost(try f.payment(amount: amount), code: f.nextCode()) }
        let opening = try #require(try f.balance(account))
        // Drafted first: a draft reads the bank's accounts (a read, not the payment's).
        let payment = try f.payment(amount: "4.00")
        let code = f.nextCode()
        let before = try #require(f.ledger.databaseRoundTrips)
        guard case .posted = try f.ledger.signAndPost(payment, code: code) else {
            Issue.record("the payment was not posted")
            return
        }
        let one = try #require(f.ledger.databaseRoundTrips) - before
        #expect(one <= 2, "a payment took \(one) round trips")
        let batch = try (0..<10).map { _ in try f.payment(amount: "3.00") }
        let batchCode = f.nextCode()
        let beforeBatch = try #require(f.ledger.databaseRoundTrips)
        let outcomes = try f.ledger.process(batch: batch, code: batchCode)
        let ten = try #require(f.ledger.databaseRoundTrips) - beforeBatch
        #expect(outcomes.allSatisfy { if case .posted = $0 { true } else { false } })
        #expect(ten <= 2, "a batch of ten took \(ten) round trips")
        #expect(try f.ledger.journal.verify() == .ok(13))
        #expect(try f.balance(account) == opening - 34)
    }

    @Test("a draft between accounts drafted between before asks PostgreSQL nothing: an account's currency never changes")
    func draftsBetweenKnownAccountsAskNothing() throws {
        let f = try Fixture(engine: .postgres)
        let account = "40817810438000000001"
        let other = try #require(try f.ledger.bank.accounts().first { $0.number != account && $0.currency == "RUB" }?.number)
        func draft() throws -> Document {
            try f.ledger.draft(operation: "transfer.own", plugin: "test", pluginVersion: "1", fields: [
                DocumentField("from", account), DocumentField("account", other), DocumentField("amount", "5.00"),
                DocumentField("currency", "RUB"),
            ])
        }
        let before = try #require(f.ledger.databaseRoundTrips)
        _ = try draft()
        let first = try #require(f.ledger.databaseRoundTrips) - before
        #expect(first == 1, "the first draft between the two accounts took \(first) round trips")
        let again = try #require(f.ledger.databaseRoundTrips)
        let second = try draft()
        #expect(try #require(f.ledger.databaseRoundTrips) - again == 0)
        #expect(second["account"] == other && second["amount"] == "5.00")
    }

    @Test("payments do not wait for a transaction in flight on other rows: no lock is held between its round trips")
    func independentPaymentsDoNotWait() throws {
        let f = try Fixture(engine: .postgres)
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        let account = "40817810438000000001"
        let other = try #require(try f.ledger.bank.accounts().first { $0.number != account && $0.currency == "RUB" }?.number)
        let read = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let waited = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        let renamed = Atomic<Bool>(false)
        // A transaction that has read its row and is slow to go on (a far host, a long network): it holds nothing.
        let ledger = f.ledger
        DispatchQueue.global().async {
            defer { done.signal() }
            let result: Void? = try? ledger.database.write { db in
                let title = try db.value(String.self, "SELECT title FROM accounts WHERE number = ?", other)
                if title != nil, !waited.exchange(true, ordering: .relaxed) {
                    read.signal()
                    _ = release.wait(timeout: .now() + 20)
                }
                try db.execute("UPDATE accounts SET title = ? WHERE number = ?", "renamed while a payment ran", other)
            }
            renamed.store(result != nil, ordering: .relaxed)
        }
        #expect(read.wait(timeout: .now() + 20) == .success)
        // Meanwhile a payment from another account commits, without waiting for it.
        let started = Date()
        guard case .posted = try f.ledger.signAndPost(try f.payment(amount: "5.00"), code: f.nextCode()) else {
            Issue.record("the payment was not posted")
            release.signal()
            return
        }
        #expect(Date().timeIntervalSince(started) < 10)
        release.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
        let committed = renamed.load(ordering: .relaxed)
        #expect(committed)
        #expect(try f.ledger.bank.account(number: other)?.title == "renamed while a payment ran")
        #expect(try f.ledger.journal.verify() == .ok(2))
    }

    @Test("a payment whose rows another host changed after it read them is decided again on the new rows")
    func changedRowsDecidedAgain() throws {
        let f = try Fixture(engine: .postgres)
        let account = "40817810438000000001"
        let balance = try #require(try f.balance(account))
        let changed = Atomic<Bool>(false)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        // Between its read and its commit, another host spends all but 10.00 of the balance.
        let outcome = try f.ledger.database.write { db -> String in
            let text = try db.value(String.self, "SELECT balance FROM accounts WHERE number = ?", account)
            if text != nil, !changed.exchange(true, ordering: .relaxed) {
                let host = try PostgresStore(address: address)
                try host.write { other in try other.execute("UPDATE accounts SET balance = '10.00' WHERE number = ?", account) }
                try host.close()
            }
            let current = text.flatMap { Decimal(string: $0) } ?? 0
            guard current >= 50 else { return "refused at \(text ?? "?")" }
            try db.execute("UPDATE accounts SET balance = ? WHERE number = ?", "\(current - 50)", account)
            return "taken from \(text ?? "?")"
        }
        #expect(balance > 50)
        #expect(outcome == "refused at 10.00")
        #expect(try f.balance(account) == 10)
    }

    @Test("a payment with a fee and a refusal with its facts each reach PostgreSQL in two round trips; verify reconciles both")
    func feeAndRefusalInTwoRoundTrips() throws {
        let f = try Fixture(engine: .postgres)
        let account = CoreTests.current
        // Warm-up, as a host's first writes are: which columns hold bytes, what a fee payment and a refusal ask.
        _ = try f.ledger.signAndPost(try FeeTests.payment(f, amount: "10.00", extra: [DocumentField("fee", "1.00")]), code: f.nextCode())
        _ = try f.ledger.signAndPost(try FeeTests.payment(f, amount: "999999.00", extra: []), code: f.nextCode())
        let opening = try #require(try f.balance(account))
        let debited = try #require(Decimal(string: "102.50"))

        let payment = try FeeTests.payment(f, amount: "100.00", extra: [DocumentField("fee", "2.50")])
        let code = f.nextCode()
        let before = try #require(f.ledger.databaseRoundTrips)
        guard case .posted(let receipt) = try f.ledger.signAndPost(payment, code: code) else {
            Issue.record("the fee payment was not posted")
            return
        }
        let posted = try #require(f.ledger.databaseRoundTrips) - before
        #expect(posted <= 2, "a payment with a fee took \(posted) round trips")
        #expect(receipt.posting.totalDebited.plain == "102.50")
        #expect(try f.balance(account) == opening - debited)
        let income = try #require(FeeIncome.number(of: "RUB"))
        let legs = try f.ledger.database.read { db in
            try db.rows("SELECT debit, credit, amount FROM postings WHERE journal_seq = 3 ORDER BY id").map { row in
                "\(try row["debit"] as String) → \(try row["credit"] as String) \(try row["amount"] as String)"
            }
        }
        #expect(legs == ["\(account) → \(FeeTests.payee) 100.00", "\(account) → \(income) 2.50"])

        let refused = try FeeTests.payment(f, amount: "888888.00", extra: [])
        let refusalCode = f.nextCode()
        let beforeRefusal = try #require(f.ledger.databaseRoundTrips)
        guard case .rejected(_, 4, let reason) = try f.ledger.signAndPost(refused, code: refusalCode) else {
            Issue.record("the payment over the balance was not journaled as refused (entry 4)")
            return
        }
        let refusing = try #require(f.ledger.databaseRoundTrips) - beforeRefusal
        #expect(refusing <= 2, "a refusal took \(refusing) round trips")
        let facts = ["account": account, "balance": DecimalText.format(opening - debited, scale: 2),
                     "amount": "888888.00", "currency": "RUB"]
        #expect(reason.facts == facts)
        #expect(try f.ledger.journal.entries().last?.reasonFacts == facts)
        #expect(try f.ledger.journal.verify() == .ok(4))
    }

    @Test("a journal written before the one-call step verifies after it, and the payments after it extend the same chain")
    func journalBeforeOneCallStepVerifiesAfter() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        // The database as a host before the step left it: no functions, the step not recorded.
        let administrator = try PostgresStore(address: address)
        try administrator.write { db in
            try db.executeScript("""
                DROP PROCEDURE rbs_v19_commit_durably(TEXT[], TEXT[], TEXT, BIGINT, BYTEA, BIGINT, BIGINT, BIGINT);
                DROP FUNCTION rbs_v19_read(TEXT[], TEXT[], BIGINT[]);
                DROP FUNCTION rbs_v19_commit(TEXT[], TEXT[]);
                DROP FUNCTION rbs_v19_digest(TEXT);
                DELETE FROM rbs_schema_steps WHERE name = '\(PostgresStore.oneCallStep)';
                """)
        }
        try administrator.close()
        // Written statement by statement under the ledger's lock: a fee payment, a refusal with its facts, a payment.
        _ = try f.ledger.signAndPost(try FeeTests.payment(f, amount: "10.00", extra: [DocumentField("fee", "1.00")]), code: f.nextCode())
        _ = try f.ledger.signAndPost(try FeeTests.payment(f, amount: "999999.00", extra: []), code: f.nextCode())
        _ = try f.ledger.signAndPost(try f.payment(amount: "5.00"), code: f.nextCode())
        #expect(try f.ledger.journal.verify() == .ok(3))
        try f.ledger.close()

        // The next start applies the step again and verifies the chain written before it.
        #expect(try Ledger.migrateDatabase(dataDirectory: f.directory, location: f.location) == [PostgresStore.oneCallStep])
        let ledger = try f.reopen()
        defer { try? ledger.close() }
        #expect(try ledger.journal.verify() == .ok(3))
        /// A quick payment drafted by the reopened ledger (the fixture's own is closed).
        func payment(_ amount: String, fee: String) throws -> Document {
            try ledger.draft(operation: "topup.mobile", plugin: "ru.example.payments.quick", pluginVersion: "1.0.0", fields: [
                DocumentField("from", CoreTests.current), DocumentField("account", FeeTests.payee), DocumentField("amount", amount),
                DocumentField("currency", "RUB"), DocumentField("bic", "044525593"), DocumentField("name", "ПАО МТС"),
                DocumentField("purpose", "Пополнение +7 916 123-45-67"), DocumentField("fee", fee),
            ])
        }
        for amount in ["6.00", "7.00"] {
            guard case .posted = try ledger.signAndPost(try payment(amount, fee: "0.50"), code: f.nextCode()) else {
                Issue.record("a payment after the step was not posted")
                return
            }
        }
        // Drafted first: a draft reads the accounts' currencies (a read, not the payment's).
        let last = try payment("20.00", fee: "1.00")
        let before = try #require(ledger.databaseRoundTrips)
        _ = try ledger.signAndPost(last, code: f.nextCode())
        let trips = try #require(ledger.databaseRoundTrips) - before
        #expect(trips <= 2, "a payment after the step took \(trips) round trips")
        #expect(try ledger.journal.verify() == .ok(6))
    }
}
