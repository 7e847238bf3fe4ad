// expect: extension rbs.texts/1 language #1: language 'English' is not an ISO 639-1 code in lowercase (ru, en)
// A language is named by its two-letter code.
#include <rbs_plugin.h>
#include <string.h>
static const rbs_translated_text_t texts[] = {
    { RBS_TEXT_OPERATION_TITLE, "corpus.op", NULL, NULL, "Operation" },
};
static const rbs_language_texts_t languages[] = { { "English", sizeof texts / sizeof texts[0], texts } };
static const rbs_texts_extension_t table = { 1, languages };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_TEXTS) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
