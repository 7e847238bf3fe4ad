// expect: the build_document callback is NULL
#define BUILD NULL
#include "base.h"
