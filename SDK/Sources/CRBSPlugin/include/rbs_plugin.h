/*
 * rbs_plugin.h — the C ABI between rbs-host and its plugins, version 1.3.
 *
 * The only contract between the host and a plugin. A plugin includes this file and defines the entry declared in
 * rbs/entry.h,
 *
 *     RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
 *
 * returning static data that describes its operations. See rbs/entry.h to start. Every header compiles as C11 and
 * as C++ (each carries its own extern "C" guard).
 *
 * Rules that hold for every header here:
 * - Strings are UTF-8 and NUL-terminated unless a field says it also carries a length.
 * - What one side passes to the other is borrowed for the call; ownership of anything else is stated per field.
 * - Every call can fail and says so in its return value.
 * - Released structs never change. New capabilities come as extensions found by a versioned string id
 *   (entry->get_extension, host->get_service). Versions: rbs/version.h; requirements: rbs/ext/requirements.h.
 *
 * Thread tags — every function carries one:
 * - [plugin-thread]  the host calls this function of the plugin, one such call at a time per plugin (never two at
 *                    once), not always from the same thread. Never block in it for long.
 * - [in-callback]    the plugin may call this host function only from inside a [plugin-thread] call the host made,
 *                    on that same thread (never from a thread of its own).
 * - [any-thread]     callable from any thread at any time.
 */
#ifndef RBS_PLUGIN_H
#define RBS_PLUGIN_H

#include "rbs/version.h"
#include "rbs/value.h"
#include "rbs/atom.h"
#include "rbs/host.h"
#include "rbs/operation.h"
#include "rbs/entry.h"
#include "rbs/services.h"
#include "rbs/ext/state.h"
#include "rbs/ext/requirements.h"
#include "rbs/ext/document_labels.h"
#include "rbs/ext/texts.h"
#include "rbs/ext/function_reads.h"
#include "rbs/ext/recorded_atoms.h"
#include "rbs/ext/amount_currency.h"

#endif /* RBS_PLUGIN_H */
