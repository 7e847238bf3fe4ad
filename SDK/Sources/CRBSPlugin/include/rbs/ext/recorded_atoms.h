/*
 * rbs/ext/recorded_atoms.h — extension "rbs.recorded-atoms/1" (ABI 1.5): the atoms whose value_changed only records
 * the value.
 *
 * Without this extension the host calls value_changed (commit = true) on every commit, at once: through a worker,
 * a round trip per commit, even for a field the plugin only keeps for build_document (a quick payment's amount).
 * An atom listed here is one for which the plugin promises that value_changed(atom, value, true):
 * - calls nothing of the host (no set_value, set_caption, set_visible, set_error, get_value, service or log call);
 * - returns RBS_OK;
 * - only keeps the value in the run's state, where a later value_changed of the same atom replaces it, and where it
 *   is read only by the plugin's later calls into the same run (value_changed of another atom, action,
 *   build_document, and a function that lists the atom in rbs.function-reads/1).
 * The host may then hold a committed value of a listed atom and hand it to value_changed just before its next call
 * into the run (value_changed of another atom, action or build_document; through a worker in the same message), with
 * only the last of several values committed to the atom in between; a run closed before that never hears of it.
 * The host holds a value only when every instance-bound function of the operation lists its reads in
 * rbs.function-reads/1 and none of them lists the atom: a commit to that atom then makes no call into the plugin.
 * Any other commit is told at once, as without the extension. A host older than 1.5 never asks, and calls
 * value_changed on every commit: a plugin offering the extension loads there unchanged.
 *
 * The host asks with entry->get_extension(RBS_EXT_RECORDED_ATOMS) when it reads the descriptors (before init(),
 * possibly in a scanner process) and validates the whole table: each entry names an operation of this plugin (at most
 * once) and atoms of that operation that hold a value (each once). A wrong entry refuses the plugin at load, naming
 * the plugin, the operation and the atom. Everything the table points to is static data that lives as long as the
 * image.
 *
 * List an atom only when its value_changed does nothing else: one that shows a bank's name for a BIC, checks a
 * field against another, or marks an error must not be listed.
 */
#ifndef RBS_EXT_RECORDED_ATOMS_H
#define RBS_EXT_RECORDED_ATOMS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RBS_EXT_RECORDED_ATOMS "rbs.recorded-atoms/1"

/* The atoms of one operation whose value_changed only records the value. */
typedef struct rbs_recorded_atoms {
    const char *operation_id;     /* required: an operation of this plugin's descriptor, once */
    uint32_t atom_count;          /* 0..4096 */
    const char *const *atom_ids;  /* `atom_count` ids of atoms of that operation with a value; NULL when 0 */
} rbs_recorded_atoms_t;

/* What get_extension(RBS_EXT_RECORDED_ATOMS) returns. Static data. Read by the host, never called. */
typedef struct rbs_recorded_atoms_extension {
    uint32_t count;                       /* 0..256 entries in `operations` */
    const rbs_recorded_atoms_t *operations; /* `count` entries; NULL only when count is 0 */
} rbs_recorded_atoms_extension_t;

#ifdef __cplusplus
}
#endif

#endif /* RBS_EXT_RECORDED_ATOMS_H */
