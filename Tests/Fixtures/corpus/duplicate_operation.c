// expect: operation id 'corpus.op' appears twice
#define SECOND_OPERATION_ID "corpus.op"
#define OPERATION_COUNT 2
#include "base.h"
