/*
 * rbs_plugin.h — the C ABI between rbs-host and its plugins, version 1.0.
 *
 * The only contract between the host and a plugin. A plugin includes this file, exports
 *
 *     RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void);
 *
 * and returns static data describing its operations. See rbs/entry.h to start.
 *
 * Rules that hold for every header here:
 * - Strings are UTF-8 and NUL-terminated unless a field says it also carries a length.
 * - What one side passes to the other is borrowed for the call; ownership of anything else is stated per field.
 * - Every call can fail and says so in its return value.
 * - Released structs never change. New capabilities come as extensions found by a versioned string id
 *   (entry->get_extension, host->get_service).
 */
#ifndef RBS_PLUGIN_H
#define RBS_PLUGIN_H

#ifdef __cplusplus
extern "C" {
#endif

#include "rbs/version.h"
#include "rbs/value.h"
#include "rbs/atom.h"
#include "rbs/host.h"
#include "rbs/operation.h"
#include "rbs/entry.h"
#include "rbs/services.h"
#include "rbs/ext/state.h"

#ifdef __cplusplus
}
#endif

#endif /* RBS_PLUGIN_H */
