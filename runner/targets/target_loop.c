/* target_loop.c — the reference target for gate "loop" and "stream" cases:
 * load the case's inline "script", play it through gt_loop_run, and report
 * the verdict, subtype, accounting and terminal envelope.
 *
 * Verdict mapping (docs/loop-scripts.md): success with a structured_output
 * object -> accept; everything else -> reject with gate "loop" (reason = the
 * subtype, a json_schema_* code, or success_without_object) or gate "stream"
 * (reason = the stream reason of the quarantined response). A case without a
 * script, or with a bad one, is a target error naming the JSON Pointer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/loop.h"
#include "gauntlet/parse.h"
#include "reference_hooks.h"

static int set_string(char **slot, const char *text)
{
    free(*slot);
    *slot = text ? strdup(text) : NULL;
    return text != NULL && *slot == NULL ? -1 : 0;
}

int gt_reference_loop_observed(const gt_loop_result *result, gt_observed *observed)
{
    if (result->accepted) {
        observed->verdict = GT_VERDICT_ACCEPT;
    } else if (gt_observed_reject(observed, result->gate, result->reason,
                                  result->error_count ? result->errors[0] : result->detail) != 0) {
        return -1;
    }
    bool stream_failed = result->stream_reason != GT_STREAM_OK;
    observed->gates[GT_GATE_STREAM] = stream_failed ? GT_GATE_FAILED : GT_GATE_PASSED;
    observed->gates[GT_GATE_LOOP] = stream_failed       ? GT_GATE_NOT_RUN
                                    : result->accepted ? GT_GATE_PASSED
                                                       : GT_GATE_FAILED;
    if (set_string(&observed->subtype, gt_loop_subtype_name(result->subtype)) != 0)
        return -1;
    observed->accounting.attempts_used = result->accounting.attempts_used;
    observed->accounting.attempts_limit = result->accounting.attempts_limit;
    observed->accounting.retracted = result->accounting.retracted;
    observed->accounting.enforce_messages = result->accounting.enforce_messages;
    observed->accounting.api_attempts = result->accounting.api_attempts;
    observed->accounting.model_calls = result->accounting.model_calls;
    observed->has_accounting = true;
    char *envelope = gt_loop_envelope_json(result);
    if (envelope == NULL)
        return -1;
    free(observed->output_json);
    observed->output_json = envelope;
    return set_string(&observed->transcript, result->transcript);
}

int gt_reference_check_loop(const gt_case_input *input, gt_observed *observed, char *note, size_t note_len)
{
    if (input->case_json == NULL) {
        snprintf(note, note_len, "reference: the %s case carries no case object", input->gate);
        return GT_CHECK_ERROR;
    }
    gt_arena *arena = gt_arena_new();
    if (arena == NULL) {
        snprintf(note, note_len, "reference: out of memory");
        return GT_CHECK_ERROR;
    }
    gt_parse_error error;
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    const gt_value *kase = gt_parse(arena, input->case_json, strlen(input->case_json), &options, &error);
    const gt_value *script_value = kase ? gt_value_get(kase, "script", 6) : NULL;
    if (script_value == NULL) {
        snprintf(note, note_len, "reference: %s case '%s' has no \"script\" (docs/loop-scripts.md)", input->gate,
                 input->id ? input->id : "?");
        gt_arena_free(arena);
        return GT_CHECK_ERROR;
    }
    gt_loop_script_problem problem;
    gt_loop_script *script = gt_loop_script_from_value(script_value, input->schema_json, &problem);
    gt_arena_free(arena);
    if (script == NULL) {
        snprintf(note, note_len, "reference: bad script at \"/script%s\": %s", problem.pointer, problem.message);
        return GT_CHECK_ERROR;
    }
    gt_loop_model model;
    gt_loop_script_model(script, &model);
    gt_loop_result result;
    int status = gt_loop_run(gt_loop_script_config(script), &model, &result);
    int check = GT_CHECK_DONE;
    if (status != 0 || gt_reference_loop_observed(&result, observed) != 0) {
        snprintf(note, note_len, "reference: out of memory running the loop");
        check = GT_CHECK_ERROR;
    }
    gt_loop_result_free(&result);
    gt_loop_script_free(script);
    return check;
}
