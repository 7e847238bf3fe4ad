/*
 * rbs/entry.h — the one symbol a plugin exports.
 *
 *     RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void);
 *
 * The host finds it with dlsym(RBS_ENTRY_SYMBOL), calls it once, checks `abi_version` (the first field), then
 * validates the whole descriptor before it registers anything. Calling the entry and reading the descriptor must
 * have no side effects: the host may do it in a scanner process and cache the result.
 */
#ifndef RBS_ENTRY_H
#define RBS_ENTRY_H

#include <stdbool.h>
#include <stdint.h>

#include "host.h"
#include "operation.h"
#include "version.h"

#define RBS_ENTRY_SYMBOL "rbs_plugin_entry"

/* Describes a plugin: one .so file. */
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
     * Register services here. Return false to refuse to start (the host reports it and does not use the plugin). */
    bool (*init)(const rbs_host_t *host);

    /* May be NULL. Called once when the host stops using the plugin, after every module was destroyed. */
    void (*deinit)(void);

    /* May be NULL. Returns the plugin's table for an extension by versioned id ("rbs.state/1"), or NULL when the
     * plugin does not offer it. Extensions are how the ABI grows: released structs never change. */
    const void *(*get_extension)(const char *id);
} rbs_plugin_entry_t;

/* The type of the entry symbol. */
typedef const rbs_plugin_entry_t *(*rbs_plugin_entry_fn)(void);

#endif /* RBS_ENTRY_H */
