// expect: ABI 1.9 is newer than this host's ABI 1.0
#define ABI_INIT { 1, 9, 0 }
#include "base.h"
