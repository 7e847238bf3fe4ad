// expect: atom_count 0 is outside 1...4096
#define ATOM_COUNT 0
#include "base.h"
