// expect: is not a semantic version
#define PLUGIN_VERSION "one"
#include "base.h"
