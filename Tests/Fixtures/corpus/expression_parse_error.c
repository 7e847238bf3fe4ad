// expect: operation 'corpus.op' atom 'field' show_if "($field == 'a'": column 
#define ATOM_EXTRA , .show_if = "($field == 'a'"
#include "base.h"
