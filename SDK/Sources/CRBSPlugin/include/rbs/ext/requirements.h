/*
 * rbs/ext/requirements.h — extension "rbs.requirements/1": what a plugin cannot work without.
 *
 * A plugin built against newer headers loads in an older host of the same major as long as it needs nothing new
 * (see rbs/version.h). A plugin that does need something newer lists it here; the host asks with
 * entry->get_extension(RBS_EXT_REQUIREMENTS) before init(), and refuses the plugin, naming the first feature it does
 * not have, instead of letting it fail later. A host older than this extension ignores it (the plugin then finds
 * the service absent in init() and returns false).
 *
 * Feature ids:
 * - "rbs.abi/MAJOR.MINOR": the host implements at least that ABI version (e.g. "rbs.abi/1.1" for an atom kind
 *   added in 1.1);
 * - a host service id (rbs/services.h), e.g. "rbs.directory/1".
 */
#ifndef RBS_EXT_REQUIREMENTS_H
#define RBS_EXT_REQUIREMENTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RBS_EXT_REQUIREMENTS "rbs.requirements/1"

/* Static data, as long as the image is loaded. Read by the host, never called. */
typedef struct rbs_requirements_extension {
    uint32_t count;                /* 0..64 */
    const char *const *features;   /* `count` NUL-terminated feature ids; NULL when count is 0 */
} rbs_requirements_extension_t;

#ifdef __cplusplus
}
#endif

#endif /* RBS_EXT_REQUIREMENTS_H */
