// expect: extension rbs.texts/1 language 'en' operation 'corpus.op': a caption names atom 'destInn', which the operation does not have
// A translation names an atom of its operation.
#include <rbs_plugin.h>
#include <string.h>
static const rbs_translated_text_t texts[] = {
    { RBS_TEXT_ATOM_CAPTION, "corpus.op", "destInn", NULL, "Payee's INN" },
};
static const rbs_language_texts_t languages[] = { { "en", sizeof texts / sizeof texts[0], texts } };
static const rbs_texts_extension_t table = { 1, languages };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_TEXTS) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
