// expect: atom 'field': caption is not valid UTF-8
#define ATOM_CAPTION "Sum\xff\xfe"
#include "base.h"
