/*
 * rbs/version.h — the ABI version of this header set.
 *
 * A plugin records the version it was compiled against in the first field of its entry (see rbs/entry.h).
 *
 * The rule (as in CLAP): the host loads a plugin whose major equals its own, whatever the two minors are.
 * - A minor adds things without changing anything released: new extensions and services (found by versioned id,
 *   absent on an older host: get_extension / get_service return NULL, and a plugin handles that), new enum values
 *   and flags. So a plugin built against 1.1 headers that uses nothing new loads in a 1.0 host.
 * - A plugin that cannot work without something newer says so in the extension "rbs.requirements/1"
 *   (rbs/ext/requirements.h): e.g. "rbs.abi/1.1" or a service id. The host refuses it and names what is missing.
 *   A descriptor that uses a value the host does not know (an atom kind from a later minor) is refused, naming it.
 * History: 1.1 added the extension "rbs.document-labels/1" (rbs/ext/document_labels.h); 1.2 added "rbs.texts/1"
 * (rbs/ext/texts.h); 1.3 added "rbs.function-reads/1" (rbs/ext/function_reads.h); 1.4 added the service
 * "rbs.run-texts/1" (rbs/services.h): captions and marks set at run time in more than one language; 1.5 added
 * "rbs.recorded-atoms/1" (rbs/ext/recorded_atoms.h): atoms whose value_changed only records the value; 1.6 added
 * "rbs.amount-currency/1" (rbs/ext/amount_currency.h): an amount in the currency of the account chosen in a field.
 * Patch versions only clarify documentation; they never change layout or behaviour.
 */
#ifndef RBS_VERSION_H
#define RBS_VERSION_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RBS_ABI_MAJOR 1
#define RBS_ABI_MINOR 6
#define RBS_ABI_PATCH 0

/* A semantic version of the ABI. Frozen since 1.0. */
typedef struct rbs_version {
    uint32_t major; /* incompatible layout or behaviour: the host refuses another major */
    uint32_t minor; /* backwards-compatible additions (new extensions, new enum values) */
    uint32_t patch; /* documentation only */
} rbs_version_t;

/* Initialiser for the version this file describes: `rbs_version_t v = RBS_ABI_VERSION_INIT;` */
#define RBS_ABI_VERSION_INIT { RBS_ABI_MAJOR, RBS_ABI_MINOR, RBS_ABI_PATCH }

/* Whether a plugin compiled against ABI `plugin` (its entry's abi_version) can be loaded by a host built from these
 * headers: the majors are equal. The minors do not matter (see the rule above). [any-thread] */
static inline bool rbs_version_is_compatible(rbs_version_t plugin) {
    return plugin.major == RBS_ABI_MAJOR;
}

/* Marks a symbol for export from the plugin image. */
#if defined(_WIN32)
#define RBS_EXPORT __declspec(dllexport)
#else
#define RBS_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
}
#endif

#endif /* RBS_VERSION_H */
