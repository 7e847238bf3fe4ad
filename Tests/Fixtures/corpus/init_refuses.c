// expect: the plugin's init() refused to start
#include <rbs_plugin.h>
static bool corpus_init(const rbs_host_t *host) { host->log(host, RBS_LOG_ERROR, "no licence"); return false; }
#define INIT corpus_init
#include "base.h"
