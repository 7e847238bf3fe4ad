#include "bench_floor.h"

#include <ffi.h>

static volatile int64_t sink;

int64_t rbs_bench_add(int64_t a, int64_t b) { return a + b; }

void *rbs_bench_add_address(void) {
    void *volatile address = (void *)rbs_bench_add;
    return address;
}

int64_t rbs_bench_direct_loop(void *function, int64_t count) {
    int64_t (*volatile callee)(int64_t, int64_t) = (int64_t (*)(int64_t, int64_t))function;
    int64_t sum = 0;
    for (int64_t i = 0; i < count; i++) sum += callee(i & 15, 3);
    return sum;
}

int64_t rbs_bench_ffi_loop(void *function, int64_t count) {
    ffi_cif cif;
    ffi_type *types[2] = { &ffi_type_sint64, &ffi_type_sint64 };
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_sint64, types) != FFI_OK) return INT64_MIN;
    void (*volatile callee)(void) = (void (*)(void))function;
    int64_t a = 0, b = 3;
    void *arguments[2] = { &a, &b };
    ffi_arg result = 0;
    int64_t sum = 0;
    for (int64_t i = 0; i < count; i++) {
        a = i & 15;
        ffi_call(&cif, callee, &result, arguments);
        sum += (int64_t)result;
    }
    return sum;
}

void rbs_bench_sink(int64_t value) { sink = value; }

void *rbs_bench_opaque(void *pointer) {
    void *volatile held = pointer;
    return held;
}

/* The bare storage floor (see bench_floor.h). */

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rbs_storage_floor {
    sqlite3 *db;
    sqlite3_stmt *journal, *posting, *balance, *begin, *commit;
    int64_t sequence;
    uint64_t random;
};

static void floor_error(sqlite3 *db, const char *what, char *error, int error_size) {
    if (error && error_size > 0) snprintf(error, (size_t)error_size, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

/* xorshift64*: the bytes of ids, hashes and signatures (random, as SHA-256 and Ed25519 output are). */
static uint64_t floor_next(rbs_storage_floor *floor) {
    uint64_t x = floor->random;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    floor->random = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static void floor_fill(rbs_storage_floor *floor, unsigned char *bytes, int count) {
    for (int i = 0; i < count; i += 8) {
        uint64_t word = floor_next(floor);
        for (int j = 0; j < 8 && i + j < count; j++) bytes[i + j] = (unsigned char)(word >> (8 * j));
    }
}

static void floor_hex(rbs_storage_floor *floor, char *text, int digits) {
    static const char hex[] = "0123456789abcdef";
    unsigned char bytes[64];
    floor_fill(floor, bytes, digits / 2);
    for (int i = 0; i < digits / 2; i++) {
        text[2 * i] = hex[bytes[i] >> 4];
        text[2 * i + 1] = hex[bytes[i] & 15];
    }
    text[digits] = 0;
}

static const char *floor_debit = "40817810738000000002", *floor_credit = "40702810900000012345";

rbs_storage_floor *rbs_storage_floor_open(const char *path, char *error, int error_size) {
    rbs_storage_floor *floor = calloc(1, sizeof *floor);
    if (!floor) { floor_error(NULL, "the floor", error, error_size); return NULL; }
    floor->random = 0x9E3779B97F4A7C15ULL;
    if (sqlite3_open_v2(path, &floor->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        floor_error(floor->db, path, error, error_size);
        rbs_storage_floor_close(floor);
        return NULL;
    }
    /* The ledger's tables (LedgerSchema: v1 and the columns later steps added), its pragmas (SQLiteStore). */
    const char *schema =
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 8000;"
        "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;"
        "CREATE TABLE IF NOT EXISTS accounts (number TEXT PRIMARY KEY NOT NULL, currency TEXT NOT NULL, balance TEXT NOT NULL,"
        "  owner TEXT NOT NULL, title TEXT NOT NULL, blocked INTEGER NOT NULL, position INTEGER NOT NULL, opening TEXT);"
        "CREATE TABLE IF NOT EXISTS postings (id INTEGER PRIMARY KEY, document_id TEXT NOT NULL, debit TEXT NOT NULL,"
        "  credit TEXT NOT NULL, amount TEXT NOT NULL, currency TEXT NOT NULL, time_ms INTEGER NOT NULL, journal_seq INTEGER NOT NULL);"
        "CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, document_id TEXT NOT NULL,"
        "  document BLOB NOT NULL, signature BLOB NOT NULL, key_id TEXT NOT NULL, reason_code TEXT, reason TEXT, debit TEXT,"
        "  credit TEXT, amount TEXT, currency TEXT, balance_after TEXT, recorded_ms INTEGER NOT NULL, prev_hash BLOB NOT NULL,"
        "  hash BLOB NOT NULL, document_key INTEGER NOT NULL, auth_method TEXT, auth_suite TEXT, auth_challenge TEXT,"
        "  auth_response TEXT, auth_secret_id TEXT, basket_id TEXT, second_of INTEGER);"
        "INSERT OR IGNORE INTO accounts VALUES ('40817810738000000002', 'RUB', '1000000000.00', 'bench', 'debit', 0, 0, '1000000000.00');"
        "INSERT OR IGNORE INTO accounts VALUES ('40702810900000012345', 'RUB', '0.00', 'bench', 'credit', 0, 1, '0.00');";
    char *message = NULL;
    if (sqlite3_exec(floor->db, schema, NULL, NULL, &message) != SQLITE_OK) {
        if (error && error_size > 0) snprintf(error, (size_t)error_size, "the floor's schema: %s", message ? message : "?");
        sqlite3_free(message);
        rbs_storage_floor_close(floor);
        return NULL;
    }
    struct { sqlite3_stmt **statement; const char *sql; } statements[] = {
        { &floor->journal,
          "INSERT INTO journal (seq, kind, document_id, document, signature, key_id, reason_code, reason, debit, credit,"
          " amount, currency, balance_after, recorded_ms, prev_hash, hash, document_key, auth_method, auth_suite,"
          " auth_challenge, auth_response, auth_secret_id, basket_id, second_of)"
          " VALUES (?, 'posted', ?, ?, ?, ?, NULL, NULL, ?, ?, '0.01', 'RUB', ?, ?, ?, ?, ?, 'totp', NULL, NULL, NULL, NULL, NULL, NULL)" },
        { &floor->posting,
          "INSERT INTO postings (document_id, debit, credit, amount, currency, time_ms, journal_seq) VALUES (?, ?, ?, '0.01', 'RUB', ?, ?)" },
        { &floor->balance, "UPDATE accounts SET balance = ? WHERE number = ?" },
        { &floor->begin, "BEGIN IMMEDIATE" },
        { &floor->commit, "COMMIT" },
    };
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) {
        if (sqlite3_prepare_v3(floor->db, statements[i].sql, -1, SQLITE_PREPARE_PERSISTENT, statements[i].statement, NULL) != SQLITE_OK) {
            floor_error(floor->db, statements[i].sql, error, error_size);
            rbs_storage_floor_close(floor);
            return NULL;
        }
    }
    return floor;
}

/* Steps `statement` to its end and resets it; 0 on success. */
static int floor_step(sqlite3_stmt *statement) {
    int result = sqlite3_step(statement);
    sqlite3_reset(statement);
    return result == SQLITE_DONE ? 0 : -1;
}

double rbs_storage_floor_run(rbs_storage_floor *floor, int batches, int batch_size, int document_bytes,
                             double *cpu_seconds, char *error, int error_size) {
    if (!floor || batches < 0 || batch_size <= 0 || document_bytes <= 0) {
        if (error && error_size > 0) snprintf(error, (size_t)error_size, "the floor was given no database or a bad size");
        return -1;
    }
    unsigned char *document = malloc((size_t)document_bytes);
    if (!document) { floor_error(NULL, "a document", error, error_size); return -1; }
    unsigned char signature[64], previous[32], hash[32];
    char id[65], key_id[17], balance[32];
    floor_fill(floor, previous, 32);
    floor_hex(floor, key_id, 16);
    struct timespec start, end, cpu_start, cpu_end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_start);
    for (int batch = 0; batch < batches; batch++) {
        if (floor_step(floor->begin) != 0) goto failed;
        for (int i = 0; i < batch_size; i++) {
            /* Fresh bytes for each row, as a signed document's are (so nothing compresses or repeats). */
            floor_fill(floor, document, document_bytes);
            floor_fill(floor, signature, 64);
            floor_fill(floor, hash, 32);
            floor_hex(floor, id, 64);
            int64_t sequence = ++floor->sequence, now = 1764150000000LL + sequence;
            snprintf(balance, sizeof balance, "%lld.%02lld", (long long)(1000000000 - sequence / 100), (long long)(sequence % 100));
            sqlite3_stmt *j = floor->journal;
            sqlite3_bind_int64(j, 1, sequence);
            sqlite3_bind_text(j, 2, id, 64, SQLITE_STATIC);
            sqlite3_bind_blob(j, 3, document, document_bytes, SQLITE_STATIC);
            sqlite3_bind_blob(j, 4, signature, 64, SQLITE_STATIC);
            sqlite3_bind_text(j, 5, key_id, 16, SQLITE_STATIC);
            sqlite3_bind_text(j, 6, floor_debit, -1, SQLITE_STATIC);
            sqlite3_bind_text(j, 7, floor_credit, -1, SQLITE_STATIC);
            sqlite3_bind_text(j, 8, balance, -1, SQLITE_STATIC);
            sqlite3_bind_int64(j, 9, now);
            sqlite3_bind_blob(j, 10, previous, 32, SQLITE_STATIC);
            sqlite3_bind_blob(j, 11, hash, 32, SQLITE_STATIC);
            sqlite3_bind_int64(j, 12, sequence);
            if (floor_step(j) != 0) goto failed;
            sqlite3_stmt *p = floor->posting;
            sqlite3_bind_text(p, 1, id, 64, SQLITE_STATIC);
            sqlite3_bind_text(p, 2, floor_debit, -1, SQLITE_STATIC);
            sqlite3_bind_text(p, 3, floor_credit, -1, SQLITE_STATIC);
            sqlite3_bind_int64(p, 4, now);
            sqlite3_bind_int64(p, 5, sequence);
            if (floor_step(p) != 0) goto failed;
            memcpy(previous, hash, 32);
        }
        /* Each touched account's balance, once a batch (as the ledger writes them). */
        const char *numbers[2] = { floor_debit, floor_credit };
        for (int a = 0; a < 2; a++) {
            sqlite3_bind_text(floor->balance, 1, balance, -1, SQLITE_STATIC);
            sqlite3_bind_text(floor->balance, 2, numbers[a], -1, SQLITE_STATIC);
            if (floor_step(floor->balance) != 0) goto failed;
        }
        if (floor_step(floor->commit) != 0) goto failed;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_end);
    if (cpu_seconds)
        *cpu_seconds = (double)(cpu_end.tv_sec - cpu_start.tv_sec) + (double)(cpu_end.tv_nsec - cpu_start.tv_nsec) / 1e9;
    free(document);
    return (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
failed:
    floor_error(floor->db, "a floor batch", error, error_size);
    sqlite3_exec(floor->db, "ROLLBACK", NULL, NULL, NULL);
    free(document);
    return -1;
}

void rbs_storage_floor_close(rbs_storage_floor *floor) {
    if (!floor) return;
    sqlite3_stmt *statements[] = { floor->journal, floor->posting, floor->balance, floor->begin, floor->commit };
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) sqlite3_finalize(statements[i]);
    sqlite3_close(floor->db);
    free(floor);
}
