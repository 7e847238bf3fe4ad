// expect: valid_if is set but error_text is NULL
#define ATOM_EXTRA , .valid_if = "len(field) > 0"
#include "base.h"
