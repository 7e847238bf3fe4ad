// expect: an amount needs a currency
#define ATOM_EXTRA , .input_type = RBS_INPUT_AMOUNT
#include "base.h"
