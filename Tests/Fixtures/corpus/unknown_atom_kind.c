// expect: unknown atom kind 42
#define ATOM_KIND 42
#include "base.h"
