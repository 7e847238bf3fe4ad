// expect: the destroy callback is NULL
#define DESTROY NULL
#include "base.h"
