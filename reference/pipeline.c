/* pipeline.c — the reference pipeline's gate sequence; see pipeline.h. */
#include "gauntlet/pipeline.h"

#include <stdio.h>
#include <string.h>

const char *gt_pipeline_gate_name(gt_pipeline_gate gate)
{
    static const char *const names[GT_PIPELINE_GATE_COUNT] = {"syntax", "structure", "semantic", "policy"};
    return (unsigned)gate < GT_PIPELINE_GATE_COUNT ? names[gate] : "unknown";
}

void gt_pipeline_outcome_init(gt_pipeline_outcome *outcome)
{
    memset(outcome, 0, sizeof *outcome);
    gt_schema_errors_init(&outcome->errors);
    gt_semantic_result_init(&outcome->semantic);
}

void gt_pipeline_outcome_free(gt_pipeline_outcome *outcome)
{
    gt_schema_errors_free(&outcome->errors);
    gt_semantic_result_free(&outcome->semantic);
}

/* Forget the previous check but keep the error list's memory. */
static void outcome_reset(gt_pipeline_outcome *outcome)
{
    outcome->accepted = false;
    outcome->failed_gate = GT_PIPELINE_SYNTAX;
    outcome->reason = NULL;
    outcome->message[0] = '\0';
    memset(outcome->status, 0, sizeof outcome->status);
    memset(&outcome->syntax, 0, sizeof outcome->syntax);
    outcome->value = NULL;
    outcome->parsed = NULL;
    outcome->escalate = false;
    memset(&outcome->policy, 0, sizeof outcome->policy);
    memset(&outcome->contract, 0, sizeof outcome->contract);
    gt_schema_errors_clear(&outcome->errors);
    gt_semantic_result_clear(&outcome->semantic);
}

static void fail(gt_pipeline_outcome *outcome, gt_pipeline_gate gate, const char *reason)
{
    outcome->status[gate] = GT_PIPELINE_FAILED;
    outcome->failed_gate = gate;
    outcome->reason = reason;
}

/* The semantic violation whose reason is the gate's reason. */
static const gt_semantic_violation *leading_violation(const gt_semantic_result *result)
{
    const char *reason = gt_semantic_result_reason(result);
    for (size_t i = 0; reason != NULL && i < result->count; i++)
        if (strcmp(result->items[i].reason, reason) == 0)
            return &result->items[i];
    return NULL;
}

/* Contract step, semantic and policy gates on an already structured value. */
static int check_meaning(const gt_pipeline_config *config, gt_arena *arena, gt_pipeline_outcome *outcome)
{
    if (config->contract != NULL) {
        if (gt_contract_upgrade(config->contract, outcome->value, config->declared_version, config->today, arena,
                                &outcome->contract) != 0)
            return -1;
        if (outcome->contract.status == GT_CONTRACT_REJECTED) {
            /* The output is not the contract the consumer reads: a structure failure. */
            fail(outcome, GT_PIPELINE_STRUCTURE, outcome->contract.reason);
            snprintf(outcome->message, sizeof outcome->message, "%s", outcome->contract.message);
            return 0;
        }
        outcome->value = outcome->contract.value;
        outcome->status[GT_PIPELINE_STRUCTURE] = GT_PIPELINE_PASSED;
    }
    if (config->rules != NULL) {
        int verdict = gt_semantic_check(config->rules, outcome->value, config->context, &outcome->semantic);
        if (verdict < 0)
            return -1;
        if (verdict > 0) {
            const gt_semantic_violation *lead = leading_violation(&outcome->semantic);
            fail(outcome, GT_PIPELINE_SEMANTIC, gt_semantic_result_reason(&outcome->semantic));
            outcome->escalate = gt_semantic_result_escalates(&outcome->semantic);
            snprintf(outcome->message, sizeof outcome->message, "%s", lead ? lead->message : "");
            return 0;
        }
        outcome->status[GT_PIPELINE_SEMANTIC] = GT_PIPELINE_PASSED;
    }
    if (config->policy != NULL) {
        if (gt_policy_decide(config->policy, outcome->value, config->context, &outcome->policy) != 0) {
            fail(outcome, GT_PIPELINE_POLICY, outcome->policy.reason);
            outcome->escalate = true; /* a denial is final: never repaired into an allowed action */
            snprintf(outcome->message, sizeof outcome->message, "%s", outcome->policy.message);
            return 0;
        }
        outcome->status[GT_PIPELINE_POLICY] = GT_PIPELINE_PASSED;
    }
    outcome->accepted = true;
    return 0;
}

int gt_pipeline_run(const char *raw, size_t len, const gt_pipeline_config *config, gt_arena *arena,
                    gt_pipeline_outcome *outcome)
{
    outcome_reset(outcome);
    const gt_value *value = gt_parse(arena, raw, len, config->parse_options, &outcome->syntax);
    if (value == NULL) {
        if (outcome->syntax.reason == GT_SYNTAX_OUT_OF_MEMORY)
            return -1;
        fail(outcome, GT_PIPELINE_SYNTAX, gt_syntax_reason_code(outcome->syntax.reason));
        snprintf(outcome->message, sizeof outcome->message, "at %u:%u: %s", outcome->syntax.line,
                 outcome->syntax.column, outcome->syntax.message);
        return 0;
    }
    outcome->value = outcome->parsed = value;
    outcome->status[GT_PIPELINE_SYNTAX] = GT_PIPELINE_PASSED;
    if (config->schema != NULL) {
        gt_schema_result verdict = gt_schema_validate(config->schema, value, &outcome->errors);
        /* a bound hit (evaluation_budget, regex_limit, ...) rejects at this gate
         * with the bound as the reason; only out of memory is an error */
        if (verdict == GT_SCHEMA_ERROR && !gt_schema_failure_is_limit(outcome->errors.failure))
            return -1;
        if (verdict != GT_SCHEMA_VALID) {
            fail(outcome, GT_PIPELINE_STRUCTURE, gt_schema_errors_reason(&outcome->errors));
            if (outcome->errors.count > 0) {
                const gt_schema_error *first = &outcome->errors.items[0];
                snprintf(outcome->message, sizeof outcome->message, "%s: %s", first->instance_path_dollar,
                         first->message);
            }
            return 0;
        }
        outcome->status[GT_PIPELINE_STRUCTURE] = GT_PIPELINE_PASSED;
    }
    return check_meaning(config, arena, outcome);
}

int gt_pipeline_check(const char *raw, size_t len, const gt_schema *schema, const gt_parse_options *parse_options,
                      gt_arena *arena, gt_pipeline_outcome *outcome)
{
    gt_pipeline_config config = {.schema = schema, .parse_options = parse_options};
    return gt_pipeline_run(raw, len, &config, arena, outcome);
}
