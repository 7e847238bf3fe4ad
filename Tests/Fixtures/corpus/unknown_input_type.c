// expect: unknown input type 9
#define ATOM_EXTRA , .input_type = 9
#include "base.h"
