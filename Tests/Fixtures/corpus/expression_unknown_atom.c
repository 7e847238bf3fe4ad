// expect: unknown field 'nothing'
#define ATOM_EXTRA , .show_if = "$nothing == 1"
#include "base.h"
