// expect: atoms is NULL but atom_count is 3
#define ATOM_COUNT 3
#define ATOMS_POINTER NULL
#include "base.h"
