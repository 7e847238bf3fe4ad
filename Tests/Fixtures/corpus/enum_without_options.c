// expect: an enum atom has no options
#define ATOM_KIND RBS_ATOM_ENUM
#include "base.h"
