/*
 * rbs/entry.h — the one symbol a plugin exports.
 *
 *     RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void);
 *
 * The host finds it with dlsym(RBS_ENTRY_SYMBOL), calls it, checks `abi_version` (the first field) with
 * rbs_version_is_compatible(), then validates the whole descriptor before it registers anything. Calling the entry,
 * reading the descriptor and calling get_extension must have no side effects: the host may do it in a scanner
 * process, more than once, and cache the result.
 */
#ifndef RBS_ENTRY_H
#define RBS_ENTRY_H

#include <stdbool.h>
#include <stdint.h>

#include "host.h"
#include "operation.h"
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RBS_ENTRY_SYMBOL "rbs_plugin_entry"

/* Describes a plugin: one .so file. Static data. */
typedef struct rbs_plugin_descriptor {
    const char *id;          /* required: reverse-DNS, unique across plugins ("ru.example.payments") */
    const char *name;        /* required: human readable ("Payments") */
    const char *version;     /* required: semantic version of the plugin ("1.2.0") */
    const char *vendor;      /* required: who publishes it ("Example Bank") */
    const char *description; /* may be NULL */
    uint32_t operation_count;                     /* 0..256 (a plugin may only offer services) */
    const rbs_operation_descriptor_t *operations; /* operation_count entries; NULL when 0 */
} rbs_plugin_descriptor_t;

/* What rbs_plugin_entry() returns. Static data: it lives as long as the image is loaded. */
typedef struct rbs_plugin_entry {
    rbs_version_t abi_version; /* must be RBS_ABI_VERSION_INIT as compiled: keep this the first field, always */
    const rbs_plugin_descriptor_t *descriptor; /* required */

    /* May be NULL. Called once after validation and before any create(); `host` lives until deinit() returns.
     * Register services here. Return false to refuse to start (the host reports it and does not use the plugin).
     * [plugin-thread] */
    bool (*init)(const rbs_host_t *host);

    /* May be NULL. Called once when the host stops using the plugin, after every module was destroyed.
     * [plugin-thread] */
    void (*deinit)(void);

    /* May be NULL. Returns the plugin's table for an extension by versioned id ("rbs.state/1"), or NULL when the
     * plugin does not offer it. Extensions are how the ABI grows: released structs never change. No side effects;
     * may be called before init() (e.g. for "rbs.requirements/1"). [plugin-thread] */
    const void *(*get_extension)(const char *id);
} rbs_plugin_entry_t;

/* The type of the entry symbol. */
typedef const rbs_plugin_entry_t *(*rbs_plugin_entry_fn)(void);

/* The entry symbol itself, declared so the compiler checks a plugin's definition against it. Define it once:
 *
 *     RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
 *
 * Returns static data, never NULL. [plugin-thread] (no side effects; may be called more than once) */
RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif /* RBS_ENTRY_H */
