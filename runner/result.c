/* result.c — the result model (gauntlet/runner/result.h): gate and outcome
 * names, the observed-outcome helpers targets fill, freeing a run and
 * counting its outcomes per gate and per tier. Shared by the runner and the
 * report writers. Not for: running or comparing cases (run.c). */
#include "gauntlet/runner/result.h"

#include <stdlib.h>
#include <string.h>

/* ---- gates and outcomes ------------------------------------------------- */

static const char *const gate_names[GT_GATE_COUNT] = {
    "syntax", "structure", "semantic", "policy", "stream", "loop", "wire",
};

const char *gt_gate_name(gt_gate gate)
{
    if ((int)gate < 0 || gate >= GT_GATE_COUNT)
        return "unknown";
    return gate_names[gate];
}

int gt_gate_from_name(const char *name)
{
    if (name == NULL)
        return -1;
    for (int gate = 0; gate < GT_GATE_COUNT; gate++)
        if (strcmp(name, gate_names[gate]) == 0)
            return gate;
    return -1;
}

const char *gt_outcome_name(gt_outcome outcome)
{
    switch (outcome) {
    case GT_OUTCOME_PASS: return "pass";
    case GT_OUTCOME_FAIL: return "fail";
    case GT_OUTCOME_ERROR: return "error";
    case GT_OUTCOME_SKIP: return "skip";
    case GT_OUTCOME_NOT_APPLICABLE: return "not_applicable";
    }
    return "unknown";
}

static const char *const class_names[GT_CLASS_COUNT] = {
    "pass", "unsafe", "refused_valid", "figures", "other_reason", "error", "skip", "not_applicable",
};

const char *gt_class_name(gt_class verdict_class)
{
    return (int)verdict_class >= 0 && verdict_class < GT_CLASS_COUNT ? class_names[verdict_class] : "unknown";
}

gt_class gt_case_result_class(const gt_case_result *result)
{
    switch (result->outcome) {
    case GT_OUTCOME_PASS:
        return result->verdict_class == GT_CLASS_OTHER_REASON ? GT_CLASS_OTHER_REASON : GT_CLASS_PASS;
    case GT_OUTCOME_ERROR: return GT_CLASS_ERROR;
    case GT_OUTCOME_SKIP: return GT_CLASS_SKIP;
    case GT_OUTCOME_NOT_APPLICABLE: return GT_CLASS_NOT_APPLICABLE;
    case GT_OUTCOME_FAIL: break;
    }
    if (result->verdict_class == GT_CLASS_UNSAFE || result->verdict_class == GT_CLASS_REFUSED_VALID ||
        result->verdict_class == GT_CLASS_FIGURES || result->verdict_class == GT_CLASS_OTHER_REASON)
        return result->verdict_class;
    /* not recorded (a run built by hand, an older report): from the verdicts */
    if (result->kase != NULL && result->kase->expect.verdict != result->observed.verdict)
        return result->kase->expect.verdict == GT_VERDICT_REJECT ? GT_CLASS_UNSAFE : GT_CLASS_REFUSED_VALID;
    return GT_CLASS_FIGURES;
}

int gt_class_from_name(const char *name)
{
    for (int i = 0; name != NULL && i < GT_CLASS_COUNT; i++)
        if (strcmp(name, class_names[i]) == 0)
            return i;
    return -1;
}

/* ---- observed outcome helpers ------------------------------------------- */

static char *copy_string(const char *text)
{
    if (text == NULL)
        return NULL;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (copy != NULL)
        memcpy(copy, text, len + 1);
    return copy;
}

void gt_observed_clear(gt_observed *observed)
{
    if (observed == NULL)
        return;
    free(observed->gate);
    free(observed->reason);
    free(observed->message);
    for (size_t i = 0; i < observed->error_count; i++) {
        free(observed->errors[i].path);
        free(observed->errors[i].keyword);
        free(observed->errors[i].message);
    }
    free(observed->errors);
    free(observed->output_json);
    free(observed->subtype);
    free(observed->transcript);
    free(observed->trace_json);
    free(observed->violation);
    memset(observed, 0, sizeof *observed);
}

int gt_observed_add_error(gt_observed *observed, const char *path, const char *keyword, const char *message)
{
    gt_observed_error *grown = realloc(observed->errors, (observed->error_count + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    observed->errors = grown;
    gt_observed_error *error = &grown[observed->error_count];
    error->path = copy_string(path ? path : "");
    error->keyword = copy_string(keyword ? keyword : "");
    error->message = copy_string(message);
    if (error->path == NULL || error->keyword == NULL || (message != NULL && error->message == NULL)) {
        free(error->path);
        free(error->keyword);
        free(error->message);
        return -1;
    }
    observed->error_count++;
    return 0;
}

int gt_observed_reject(gt_observed *observed, const char *gate, const char *reason, const char *message)
{
    char *gate_copy = copy_string(gate);
    char *reason_copy = copy_string(reason);
    char *message_copy = copy_string(message);
    if ((gate && !gate_copy) || (reason && !reason_copy) || (message && !message_copy)) {
        free(gate_copy);
        free(reason_copy);
        free(message_copy);
        return -1;
    }
    free(observed->gate);
    free(observed->reason);
    free(observed->message);
    observed->verdict = GT_VERDICT_REJECT;
    observed->gate = gate_copy;
    observed->reason = reason_copy;
    observed->message = message_copy;
    int gate_index = gt_gate_from_name(gate);
    if (gate_index >= 0)
        observed->gates[gate_index] = GT_GATE_FAILED;
    return 0;
}

void gt_run_clear(gt_run *run)
{
    if (run->results != NULL) {
        for (size_t i = 0; i < run->count; i++) {
            gt_observed_clear(&run->results[i].observed);
            free(run->results[i].note);
        }
    }
    free(run->results);
    free(run->target);
    free(run->target_name);
    run->results = NULL, run->target = NULL, run->target_name = NULL;
    run->count = 0;
}

void gt_run_free(gt_run *run)
{
    if (run == NULL)
        return;
    gt_run_clear(run);
    free(run);
}

void gt_run_counts_add(gt_run_counts *row, const gt_case_result *result)
{
    if (result->outcome == GT_OUTCOME_NOT_APPLICABLE) {
        row->not_applicable++;
        return;
    }
    row->cases++;
    switch (result->outcome) {
    case GT_OUTCOME_PASS: row->pass++; break;
    case GT_OUTCOME_FAIL: row->fail++; break;
    case GT_OUTCOME_ERROR: row->error++; break;
    case GT_OUTCOME_SKIP: row->skip++; break;
    case GT_OUTCOME_NOT_APPLICABLE: break;
    }
    switch (gt_case_result_class(result)) {
    case GT_CLASS_OTHER_REASON: row->other_reason++; break;
    case GT_CLASS_UNSAFE: row->unsafe++; break;
    case GT_CLASS_REFUSED_VALID: row->refused_valid++; break;
    case GT_CLASS_FIGURES: row->figures++; break;
    default: break;
    }
}

void gt_run_count(const gt_run *run, gt_run_counts counts[GT_GATE_COUNT + 1])
{
    memset(counts, 0, sizeof(gt_run_counts) * (GT_GATE_COUNT + 1));
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        int gate = result->kase ? gt_gate_from_name(result->kase->input.gate) : -1;
        gt_run_counts_add(&counts[GT_GATE_COUNT], result);
        if (gate >= 0)
            gt_run_counts_add(&counts[gate], result);
    }
}

void gt_run_count_tiers(const gt_run *run, gt_run_counts tiers[GT_TIER_COUNT])
{
    memset(tiers, 0, sizeof(gt_run_counts) * GT_TIER_COUNT);
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        gt_run_counts_add(&tiers[result->kase && result->kase->tier == GT_TIER_OPTIONAL ? GT_TIER_OPTIONAL
                                                                                        : GT_TIER_REQUIRED],
                          result);
    }
}

void gt_run_count_profiles(const gt_run *run, int tier, gt_run_counts profiles[GT_PROFILE_COUNT])
{
    memset(profiles, 0, sizeof(gt_run_counts) * GT_PROFILE_COUNT);
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        if (result->kase == NULL || (tier != GT_TIER_COUNT && (int)result->kase->tier != tier))
            continue;
        for (int p = 0; p < GT_PROFILE_COUNT; p++)
            if (result->kase->profiles & (1u << p))
                gt_run_counts_add(&profiles[p], result);
    }
}
