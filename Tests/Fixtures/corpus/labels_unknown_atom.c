// expect: extension rbs.document-labels/1 'corpus.op' key 'inn': atom_id 'destInn' is not an atom with a value in 'corpus.op'
// A label's atom must be an atom of that operation that holds a value.
#include <rbs_plugin.h>
#include <string.h>
static const rbs_document_label_t labels[] = {
    { .operation_id = "corpus.op", .key = "field", .atom_id = "field" },
    { .operation_id = "corpus.op", .key = "inn", .atom_id = "destInn" },
};
static const rbs_document_labels_extension_t table = { 2, labels };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_DOCUMENT_LABELS) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
