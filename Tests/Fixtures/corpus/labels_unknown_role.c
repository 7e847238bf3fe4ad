// expect: unknown role 42 (known: 0 RBS_FIELD_ROLE_OTHER … 9 RBS_FIELD_ROLE_CARD_NUMBER); the plugin was built against ABI 1.7, newer than this host's 1.6
// A role a later minor may add, used without declaring it: refused, naming the value and both versions.
#include <rbs_plugin.h>
#include <string.h>
static const rbs_document_label_t labels[] = {
    { .operation_id = "corpus.op", .key = "field", .role = 42 },
};
static const rbs_document_labels_extension_t table = { 1, labels };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_DOCUMENT_LABELS) == 0 ? &table : NULL;
}
#define ABI_INIT { 1, 7, 0 }
#define GET_EXTENSION corpus_get_extension
#include "base.h"
