// expect: extension rbs.texts/1 language 'ru' operation 'corpus.op': the caption of 'field': the text holds an invisible right-to-left override (U+202E) at position 6
// A translated text is what a person reads: no bidirectional override (what is shown would not be what was reviewed).
#include <rbs_plugin.h>
#include <string.h>
static const rbs_translated_text_t texts[] = {
    { RBS_TEXT_ATOM_CAPTION, "corpus.op", "field", NULL, "Сумма\u202E00" },
};
static const rbs_language_texts_t languages[] = { { "ru", sizeof texts / sizeof texts[0], texts } };
static const rbs_texts_extension_t table = { 1, languages };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_TEXTS) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
