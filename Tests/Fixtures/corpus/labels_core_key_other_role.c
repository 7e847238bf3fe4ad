// expect: the core reads 'account' as RBS_FIELD_ROLE_PAYEE_ACCOUNT, not RBS_FIELD_ROLE_DEBIT_ACCOUNT
// The role of a key the core reads is fixed by the document contract.
#include <rbs_plugin.h>
#include <string.h>
static const rbs_document_label_t labels[] = {
    { .operation_id = "corpus.op", .key = "account", .role = RBS_FIELD_ROLE_DEBIT_ACCOUNT },
};
static const rbs_document_labels_extension_t table = { 1, labels };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_DOCUMENT_LABELS) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
