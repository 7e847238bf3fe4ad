// expect: the create callback is NULL
#define CREATE NULL
#include "base.h"
