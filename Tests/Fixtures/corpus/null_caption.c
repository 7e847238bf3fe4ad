// expect: caption is NULL
#define ATOM_CAPTION NULL
#include "base.h"
