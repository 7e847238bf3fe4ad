/*
 * rbs/ext/function_reads.h — extension "rbs.function-reads/1" (ABI 1.3): the atoms each exported function reads.
 *
 * An instance-bound function (RBS_FUNCTION_INSTANCE) answers from the plugin's state, which the host cannot see, so
 * without this extension the host calls it again every time an expression that uses it is evaluated — on every
 * commit, whatever was committed (through a worker, each call is a round trip). A function listed here promises
 * that its answer depends only on its arguments and on the values of the atoms it lists (as the host last told the
 * plugin: value_changed, or the plugin's own set_value). The host then keeps its last answer per run, keyed by its
 * arguments and those atoms' values, and calls it again only when one of them changed. A commit to an atom no
 * listed function reads makes no function call at all.
 *
 * A function not listed keeps the behaviour of ABI 1.0–1.2: its answer is used until the host next calls into the
 * run (value_changed, action, build_document), and it is called again after every one of those. A host older than
 * 1.3 never asks, and calls every function as before: a plugin offering the extension loads there unchanged.
 *
 * The host asks with entry->get_extension(RBS_EXT_FUNCTION_READS) when it reads the descriptors (before init(),
 * possibly in a scanner process) and validates the whole table: each entry names an operation of this plugin, one of
 * its instance-bound functions (at most once), and atoms of that operation that hold a value. A wrong entry refuses
 * the plugin at load, naming the plugin, the function and the atom. Everything the table points to is static data
 * that lives as long as the image.
 *
 * Declare every atom the function reads, directly or through host->get_value: an atom left out makes the host reuse
 * an answer the function would no longer give. The key is the values the plugin was told, not whether the atoms are
 * shown: a function whose answer changes when an atom is hidden (get_value answers empty for it) while its value
 * stays the same must not be listed.
 */
#ifndef RBS_EXT_FUNCTION_READS_H
#define RBS_EXT_FUNCTION_READS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RBS_EXT_FUNCTION_READS "rbs.function-reads/1"

/* What one function reads. */
typedef struct rbs_function_reads {
    const char *operation_id;     /* required: an operation of this plugin's descriptor */
    const char *function;         /* required: the name (rbs_function_descriptor_t.name) of one of its functions
                                     with RBS_FUNCTION_INSTANCE, once per operation */
    uint32_t atom_count;          /* 0..4096: 0 = the answer depends on the arguments alone */
    const char *const *atom_ids;  /* `atom_count` ids of atoms of that operation with a value; NULL when 0 */
} rbs_function_reads_t;

/* What get_extension(RBS_EXT_FUNCTION_READS) returns. Static data. Read by the host, never called. */
typedef struct rbs_function_reads_extension {
    uint32_t count;                     /* 0..4096 entries in `functions` */
    const rbs_function_reads_t *functions; /* `count` entries; NULL only when count is 0 */
} rbs_function_reads_extension_t;

#ifdef __cplusplus
}
#endif

#endif /* RBS_EXT_FUNCTION_READS_H */
