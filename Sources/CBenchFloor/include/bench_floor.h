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

#endif
