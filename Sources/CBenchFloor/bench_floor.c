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
