// The second plugin offering the same operation id: refused, naming the first file.
#define PLUGIN_ID "test.clash.operation.b"
#define OPERATION_ID "clash.operation"
#define SECOND_OPERATION_ID "clash.operation.b2"
#include "../corpus/base.h"
