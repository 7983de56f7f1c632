/* corpus_expect.c — the expectation of a loop case, computed: the reference
 * loop run on the case's script, its verdict written as the corpus format's
 * `expect` object (docs/corpus-format.md). The recorder (mocks/record_case.c)
 * and `gauntlet gen --from` (runner/explore/gen_from.c) both write cases
 * this way. Not for: comparing an observation with it (run.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gauntlet/loop.h"
#include "gauntlet/runner/corpus.h"

char *gt_corpus_loop_expect(const char *script_json, const char *schema_json, char *why, size_t why_len)
{
    gt_loop_script_problem problem;
    gt_loop_script *loaded = gt_loop_script_load(script_json, strlen(script_json), schema_json, &problem);
    if (loaded == NULL) {
        snprintf(why, why_len, "the reference loop refuses the script at \"/script%s\": %s", problem.pointer,
                 problem.message);
        return NULL;
    }
    gt_loop_model model;
    gt_loop_script_model(loaded, &model);
    gt_loop_result result;
    bool ran = gt_loop_run(gt_loop_script_config(loaded), &model, &result) == 0;
    char *envelope = ran ? gt_loop_envelope_json(&result) : NULL;
    char *expect = NULL;
    if (envelope) {
        cJSON *object = cJSON_CreateObject();
        cJSON_AddStringToObject(object, "verdict", result.accepted ? "accept" : "reject");
        if (!result.accepted) {
            cJSON_AddStringToObject(object, "gate", result.gate ? result.gate : "");
            cJSON_AddStringToObject(object, "reason", result.reason ? result.reason : "");
        }
        cJSON_AddStringToObject(object, "subtype", gt_loop_subtype_name(result.subtype));
        cJSON *accounting = cJSON_AddObjectToObject(object, "accounting");
        cJSON_AddNumberToObject(accounting, "attempts_used", result.accounting.attempts_used);
        cJSON_AddNumberToObject(accounting, "attempts_limit", result.accounting.attempts_limit);
        cJSON_AddNumberToObject(accounting, "retracted", result.accounting.retracted);
        cJSON_AddNumberToObject(accounting, "enforce_messages", result.accounting.enforce_messages);
        cJSON_AddNumberToObject(accounting, "api_attempts", result.accounting.api_attempts);
        cJSON_AddNumberToObject(accounting, "model_calls", result.accounting.model_calls);
        cJSON *parsed = cJSON_Parse(envelope);
        cJSON *output = cJSON_DetachItemFromObjectCaseSensitive(parsed, "structured_output");
        cJSON_AddItemToObject(object, "structured_output", output ? output : cJSON_CreateNull());
        cJSON_Delete(parsed);
        expect = cJSON_PrintUnformatted(object);
        cJSON_Delete(object);
    }
    if (expect == NULL)
        snprintf(why, why_len, "out of memory running the reference loop");
    free(envelope);
    gt_loop_result_free(&result);
    gt_loop_script_free(loaded);
    return expect;
}
