// expect: plugin: id is NULL
#define PLUGIN_ID NULL
#include "base.h"
