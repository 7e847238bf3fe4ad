// expect: unknown flags 0x100
#define ATOM_EXTRA , .flags = 0x100
#include "base.h"
