/* libffi for Swift. libffi's ffi_type_* are mutable C globals, which Swift 6 refuses to take the address of
 * (`&ffi_type_sint64`), so small accessors hand out their addresses instead. */
#ifndef RBS_CFFI_SHIM_H
#define RBS_CFFI_SHIM_H

#include <ffi.h>

static inline ffi_type *rbs_ffi_type_void(void) { return &ffi_type_void; }
static inline ffi_type *rbs_ffi_type_sint64(void) { return &ffi_type_sint64; }
static inline ffi_type *rbs_ffi_type_double(void) { return &ffi_type_double; }
static inline ffi_type *rbs_ffi_type_uint8(void) { return &ffi_type_uint8; }
static inline ffi_type *rbs_ffi_type_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *rbs_ffi_type_pointer(void) { return &ffi_type_pointer; }
static inline ffi_abi rbs_ffi_default_abi(void) { return FFI_DEFAULT_ABI; }

#endif
