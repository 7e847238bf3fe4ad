// expect: descriptor is NULL
#define DESCRIPTOR_POINTER NULL
#include "base.h"
