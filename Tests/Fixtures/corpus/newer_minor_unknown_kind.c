// expect: unknown atom kind 7 (known: 1 text … 6 button); the plugin was built against ABI 1.6, newer than this host's 1.5
// A 1.6 plugin that uses an atom kind 1.5 does not have, without declaring it: refused, naming the value and the versions.
#define ABI_INIT { 1, 6, 0 }
#define ATOM_KIND 7
#include "base.h"
