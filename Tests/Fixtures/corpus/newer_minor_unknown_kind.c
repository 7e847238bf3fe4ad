// expect: unknown atom kind 7 (known: 1 text … 6 button); the plugin was built against ABI 1.7, newer than this host's 1.6
// A 1.7 plugin that uses an atom kind 1.6 does not have, without declaring it: refused, naming the value and the versions.
#define ABI_INIT { 1, 7, 0 }
#define ATOM_KIND 7
#include "base.h"
