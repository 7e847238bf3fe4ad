// expect: RBS_FIELD_ROLE_AMOUNT belongs to the core's key 'amount' only: the review's prominent lines are what the core posts
// A plugin cannot make another field look like the amount in the review: the prominent lines are what the core posts.
#include <rbs_plugin.h>
#include <string.h>
static const rbs_document_label_t labels[] = {
    { .operation_id = "corpus.op", .key = "shownAmount", .label = "Сумма", .role = RBS_FIELD_ROLE_AMOUNT },
};
static const rbs_document_labels_extension_t table = { 1, labels };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_DOCUMENT_LABELS) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
