// The first of two plugins offering the same operation id: loads.
#define PLUGIN_ID "test.clash.operation.a"
#define OPERATION_ID "clash.operation"
#define SECOND_OPERATION_ID "clash.operation.a2"
#include "../corpus/base.h"
