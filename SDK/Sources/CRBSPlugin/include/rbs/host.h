/*
 * rbs/host.h — what the host offers a plugin: services, logging and the mutators of a running form.
 *
 * Threading: every function here is [in-callback] — a plugin calls it only from inside a call the host made into
 * the plugin, on that same thread — unless it says [any-thread]. (Tags are defined in rbs_plugin.h.)
 * Ownership: strings passed in either direction are borrowed for the call; the callee copies what it keeps.
 */
#ifndef RBS_HOST_H
#define RBS_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "version.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One run of an operation (a module). Opaque; valid from the operation's create() until its destroy() returns. */
typedef struct rbs_module rbs_module_t;

/* Log levels for rbs_host_t.log. */
enum {
    RBS_LOG_DEBUG = 0,
    RBS_LOG_INFO = 1,
    RBS_LOG_WARNING = 2,
    RBS_LOG_ERROR = 3,
};

/* The host's table, handed to the plugin's init() and to every create(). Lives until the plugin's deinit() returns.
 * Every function pointer is non-NULL. */
typedef struct rbs_host rbs_host_t;
struct rbs_host {
    rbs_version_t abi_version; /* the ABI the host implements; a plugin may use features up to this minor */
    const char *name;          /* the host's name, "rbs-host" (NUL-terminated UTF-8) */
    const char *version;       /* the host's own version, "1.0.0" */
    void *host_data;           /* reserved for the host; a plugin never touches it */

    /* Looks up a service by its versioned id ("rbs.accounts/1", see rbs/services.h, or one a plugin registered).
     * Returns the service's table, which lives until the host (or the registering plugin) is unloaded, or NULL
     * when no such service exists: a plugin must handle NULL. [in-callback] */
    const void *(*get_service)(const rbs_host_t *host, const char *id);

    /* Registers a service this plugin offers to other plugins under a versioned id "vendor.name/N". `service` must
     * live until the plugin's deinit(). Returns false when the id is malformed or already taken. Call from init().
     * [in-callback] */
    bool (*register_service)(const rbs_host_t *host, const char *id, const void *service);

    /* Writes one line to the host's log, tagged with the plugin's id. `message` is NUL-terminated UTF-8.
     * [any-thread] */
    void (*log)(const rbs_host_t *host, uint32_t level, const char *message);

    /* Reads the current value of an atom of a running module into *out: RBS_VALUE_NONE when it is empty or hidden
     * (a hidden atom's value never counts). Strings in *out are owned by the host and valid until the next call that
     * changes this module. Returns false for an unknown atom id. [in-callback] */
    bool (*get_value)(const rbs_host_t *host, rbs_module_t *module, const char *atom_id, rbs_value_t *out);

    /* Sets the value of an atom (an RBS_VALUE_NONE value clears it). Dependencies are recomputed; the plugin's
     * value_changed is not called for a change it made itself. Returns false for an unknown atom or a value of the
     * wrong type for the atom. Build `value` with the rbs_value_* constructors (rbs/value.h). [in-callback] */
    bool (*set_value)(const rbs_host_t *host, rbs_module_t *module, const char *atom_id, const rbs_value_t *value);

    /* Sets the caption of an atom (a TEXT atom's caption is its content). Returns false for an unknown atom.
     * [in-callback] */
    bool (*set_caption)(const rbs_host_t *host, rbs_module_t *module, const char *atom_id, const char *caption);

    /* Shows or hides an atom that has no show_if expression (for one that has, the expression decides and this
     * returns false). Returns false for an unknown atom. [in-callback] */
    bool (*set_visible)(const rbs_host_t *host, rbs_module_t *module, const char *atom_id, bool visible);

    /* Marks an atom as needing attention with `message`, or clears the mark when `message` is NULL. `atom_id` NULL
     * marks the whole form (e.g. "the accounts are in different currencies"). A marked form cannot be submitted.
     * Returns false for an unknown atom. [in-callback] */
    bool (*set_error)(const rbs_host_t *host, rbs_module_t *module, const char *atom_id, const char *message);
};

#ifdef __cplusplus
}
#endif

#endif /* RBS_HOST_H */
