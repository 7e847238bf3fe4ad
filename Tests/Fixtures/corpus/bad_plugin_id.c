// expect: is not reverse-DNS
#define PLUGIN_ID "Not A DNS Name"
#include "base.h"
