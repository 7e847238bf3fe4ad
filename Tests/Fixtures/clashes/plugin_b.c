// The second file with the same plugin id: refused, naming the first.
#define PLUGIN_ID "test.clash.plugin"
#define OPERATION_ID "clash.plugin.b"
#define SECOND_OPERATION_ID "clash.plugin.b2"
#include "../corpus/base.h"
