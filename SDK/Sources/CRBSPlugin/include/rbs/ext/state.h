/*
 * rbs/ext/state.h — extension "rbs.state/1": keep a plugin's state across a hot reload.
 *
 * The host asks the plugin with entry->get_extension(RBS_EXT_STATE). Before it replaces a version, it calls the old
 * version's save(); after the new version's init(), it calls the new version's load() with those bytes.
 */
#ifndef RBS_EXT_STATE_H
#define RBS_EXT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RBS_EXT_STATE "rbs.state/1"

/* Called by the plugin during save() to hand over bytes; returns false when the host cannot take more. */
typedef bool (*rbs_state_write_fn)(void *writer, const uint8_t *bytes, size_t size);

typedef struct rbs_state_extension {
    /* Writes the plugin's state with write(writer, ...), any number of times. Returns false on failure (the new
     * version then starts empty, and the host says so). [plugin-thread]; `write` is [in-callback]. */
    bool (*save)(void *writer, rbs_state_write_fn write);
    /* Restores state saved by an earlier version. `bytes` is borrowed. Returns false when it cannot read them.
     * [plugin-thread] */
    bool (*load)(const uint8_t *bytes, size_t size);
} rbs_state_extension_t;

#ifdef __cplusplus
}
#endif

#endif /* RBS_EXT_STATE_H */
