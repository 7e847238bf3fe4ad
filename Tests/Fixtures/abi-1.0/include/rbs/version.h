/*
 * rbs/version.h — the ABI version of this header set.
 *
 * A plugin records the version it was compiled against in the first field of its entry (see rbs/entry.h).
 * The host loads a plugin when the majors are equal and the plugin's minor is not newer than the host's.
 * Patch versions only clarify documentation; they never change layout or behaviour.
 */
#ifndef RBS_VERSION_H
#define RBS_VERSION_H

#include <stdint.h>

#define RBS_ABI_MAJOR 1
#define RBS_ABI_MINOR 0
#define RBS_ABI_PATCH 0

/* A semantic version of the ABI. Frozen since 1.0. */
typedef struct rbs_version {
    uint32_t major; /* incompatible layout or behaviour: the host refuses another major */
    uint32_t minor; /* backwards-compatible additions (new extensions, new enum values) */
    uint32_t patch; /* documentation only */
} rbs_version_t;

/* Initialiser for the version this file describes: `rbs_version_t v = RBS_ABI_VERSION_INIT;` */
#define RBS_ABI_VERSION_INIT { RBS_ABI_MAJOR, RBS_ABI_MINOR, RBS_ABI_PATCH }

/* Marks a symbol for export from the plugin image. */
#if defined(_WIN32)
#define RBS_EXPORT __declspec(dllexport)
#else
#define RBS_EXPORT __attribute__((visibility("default")))
#endif

#endif /* RBS_VERSION_H */
