// expect: extension rbs.texts/1 language 'en' operation 'corpus.op': title: the text is 1025 bytes, more than 1024
// A translated text is at most RBS_TEXT_MAX_BYTES.
#include <rbs_plugin.h>
#include <string.h>
#define X16 "xxxxxxxxxxxxxxxx"
#define X256 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16
#define LONG_TEXT X256 X256 X256 X256 "y"
static const rbs_translated_text_t texts[] = {
    { RBS_TEXT_OPERATION_TITLE, "corpus.op", NULL, NULL, LONG_TEXT },
};
static const rbs_language_texts_t languages[] = { { "en", sizeof texts / sizeof texts[0], texts } };
static const rbs_texts_extension_t table = { 1, languages };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_TEXTS) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
