// expect: type mismatch
#define ATOM_EXTRA , .valid_if = "field > 5", .error_text = "too small"
#include "base.h"
