// expect: extension rbs.document-labels/1 entry #1: operation_id 'pay.other' is not an operation of this plugin
// Labels name operations of the same plugin.
#include <rbs_plugin.h>
#include <string.h>
static const rbs_document_label_t labels[] = {
    { .operation_id = "pay.other", .key = "field", .label = "Поле" },
};
static const rbs_document_labels_extension_t table = { 1, labels };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_DOCUMENT_LABELS) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
