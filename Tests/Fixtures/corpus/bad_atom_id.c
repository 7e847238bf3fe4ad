// expect: id '2bad' is not an identifier
#define ATOM_ID "2bad"
#include "base.h"
