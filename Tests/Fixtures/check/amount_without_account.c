/* Moves money without saying to whom: "amount" without "account" breaks the document contract (rbs/operation.h),
 * which a person would otherwise find only after signing. */
#define CHECK_PLUGIN_ID "tests.check.contract"
#define CHECK_OPERATION_ID "check.contract"
#define CHECK_CREATE contract_create
#define CHECK_DESTROY contract_destroy
#define CHECK_VALUE_CHANGED NULL
#define CHECK_BUILD_DOCUMENT contract_build_document
#include <rbs_plugin.h>
#include <stdlib.h>

static int contract_token;
static void *contract_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation; (void)host; (void)module;
    return &contract_token;
}

static void contract_destroy(void *instance) { (void)instance; }

static rbs_status_t contract_build_document(void *instance, const rbs_document_builder_t *builder) {
    (void)instance;
    bool ok = builder->put(builder, "from", "40817810438000000001") && builder->put(builder, "amount", "100.00")
        && builder->put(builder, "currency", "RUB") && builder->put(builder, "purpose", "no payee");
    return ok ? RBS_OK : RBS_FAILED;
}

#include "check_base.h"
