// expect: ABI 2.0 is not compatible with this host's ABI 1.6
#define ABI_INIT { 2, 0, 0 }
#include "base.h"
