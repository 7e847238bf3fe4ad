// expect: atom 'field' valid_if "len(field)"
#define ATOM_EXTRA , .valid_if = "len(field)", .error_text = "empty"
#include "base.h"
