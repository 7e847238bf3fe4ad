/* Baselines for rbs-bench that the Swift optimiser cannot see through: compiled here, in a separate C target
   (-O2), and reached only through calls across the module boundary. Each loop takes its callee as a pointer that
   it reloads through a volatile on every iteration, so no call is inlined, hoisted or folded away. */
#ifndef RBS_BENCH_FLOOR_H
#define RBS_BENCH_FLOOR_H

#include <stdint.h>

/* The callee of both the libffi figure and its baselines: int64(int64, int64), returns a + b. */
int64_t rbs_bench_add(int64_t a, int64_t b);

/* The address of rbs_bench_add, read through a volatile so the caller cannot know it. */
void *rbs_bench_add_address(void);

/* `count` direct calls of `function(i & 15, 3)` through a volatile function pointer; returns the sum. */
int64_t rbs_bench_direct_loop(void *function, int64_t count);

/* `count` bare libffi calls of `function(i & 15, 3)` with one prepared cif and argument storage reused: the floor
   of any libffi call of int64(int64, int64). Returns the sum, or INT64_MIN when the cif cannot be prepared. */
int64_t rbs_bench_ffi_loop(void *function, int64_t count);

/* A black-box sink: the value is stored in a volatile, so whatever computed it must run. */
void rbs_bench_sink(int64_t value);

/* Returns its argument through a volatile: a pointer the optimiser cannot follow. */
void *rbs_bench_opaque(void *pointer);

/* The bare storage floor of group commit: the rows one batch of the ledger writes — per document a journal entry
   (its columns and sizes: a 64-hex id, `document_bytes` of document, a 64-byte signature, two 32-byte hashes, the
   posting's accounts and amount) and a posting; per batch the two touched accounts' balances — inserted with
   SQLite's C API through statements prepared once, `batch_size` documents a transaction, in the ledger's pragmas
   (WAL, synchronous = FULL, wal_autocheckpoint = 8000, a 64 MiB cache). No signing, no hashing, no lookups, no
   secondary index and no trigger: what SQLite alone costs to make those rows durable. */
typedef struct rbs_storage_floor rbs_storage_floor;

/* Opens (creating) the floor's database at `path` with the ledger's tables; NULL on failure, with a message in
   `error` (up to `error_size` bytes). */
rbs_storage_floor *rbs_storage_floor_open(const char *path, char *error, int error_size);

/* Writes `batches` batches of `batch_size` documents (one transaction, one fsync each) and returns the wall time
   they took in seconds, or a negative number on failure (the message in `error`); `cpu_seconds` gets the calling
   thread's CPU time over the same span (the rest is waiting for the disk). Rows continue the sequence the previous
   call left, so the tables grow as the ledger's do. */
double rbs_storage_floor_run(rbs_storage_floor *floor, int batches, int batch_size, int document_bytes,
                             double *cpu_seconds, char *error, int error_size);

/* Closes the database (the file stays; the caller removes it). */
void rbs_storage_floor_close(rbs_storage_floor *floor);

#endif
