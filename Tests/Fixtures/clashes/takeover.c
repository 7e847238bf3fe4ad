// A newcomer offering the operation id of the transfer-own example (transfer.own) under a plugin id of its own:
// its file name sorts before transfer-own.so, and it must never take the operation over.
#define PLUGIN_ID "test.clash.takeover"
#define OPERATION_ID "transfer.own"
#define SECOND_OPERATION_ID "clash.takeover.other"
#include "../corpus/base.h"
