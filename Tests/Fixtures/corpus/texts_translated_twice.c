// expect: extension rbs.texts/1 language 'ru' entry #2: the caption of 'field' is translated twice
// One text once per language.
#include <rbs_plugin.h>
#include <string.h>
static const rbs_translated_text_t texts[] = {
    { RBS_TEXT_ATOM_CAPTION, "corpus.op", "field", NULL, "Сумма" },
    { RBS_TEXT_ATOM_CAPTION, "corpus.op", "field", NULL, "Сумма платежа" },
};
static const rbs_language_texts_t languages[] = { { "ru", sizeof texts / sizeof texts[0], texts } };
static const rbs_texts_extension_t table = { 1, languages };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_TEXTS) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
