// expect: extension rbs.texts/1 language 'en' operation 'corpus.op': an option title for 'field' value 'lost', which is not one of its options
// An option title names one of the enum's option values.
#include <rbs_plugin.h>
#include <string.h>
static const rbs_translated_text_t texts[] = {
    { RBS_TEXT_OPTION_TITLE, "corpus.op", "field", "lost", "Lost" },
};
static const rbs_language_texts_t languages[] = { { "en", sizeof texts / sizeof texts[0], texts } };
static const rbs_texts_extension_t table = { 1, languages };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_TEXTS) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
