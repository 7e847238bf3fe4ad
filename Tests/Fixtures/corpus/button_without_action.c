// expect: a button without RBS_ATOM_FLAG_SUBMIT needs the operation's action callback
#define ATOM_KIND RBS_ATOM_BUTTON
#include "base.h"
