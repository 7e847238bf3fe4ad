// The first of two files with the same plugin id: loads.
#define PLUGIN_ID "test.clash.plugin"
#define OPERATION_ID "clash.plugin.a"
#define SECOND_OPERATION_ID "clash.plugin.a2"
#include "../corpus/base.h"
