/* target_gates.c — the reference target for semantic, policy, versioning and
 * repair cases (reference_hooks.h).
 *
 * The case object (gt_case_input.case_json) carries what the later gates
 * need, all trusted and all supplied by the case, never by the model:
 *   "semantic_rules": the semantic rule set (docs/rules.md)
 *   "context": trusted context (tables, identity, verified amounts, approvals,
 *              "today" for the compatibility window)
 *   "policy":  the policy table
 *   "contract": a contract declaration (contract.h); the declared version is
 *              trace.schema when it names the same contract
 *   "trace":   {"prompt_version", "model", "schema"} for the trace record
 *   "repair":  {"max_attempts", "task", "fallback", "replies": [...]}: run
 *              the bounded repair loop with scripted model replies
 * The whole pipeline runs here (syntax and structure included), so a case
 * that fails an earlier gate is rejected at that gate exactly as the plain
 * reference does. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/arena.h"
#include "gauntlet/limits.h"
#include "gauntlet/contract.h"
#include "gauntlet/parse.h"
#include "gauntlet/pipeline.h"
#include "gauntlet/repair.h"
#include "reference_hooks.h"

#ifndef GAUNTLET_VERSION
#define GAUNTLET_VERSION "0.1.0"
#endif

/* Everything one case owns while it runs. */
typedef struct gates_case {
    gt_arena *arena;
    const gt_value *kase;
    gt_schema *schema;
    gt_semantic_rules *rules;
    gt_policy *policy;
    gt_contract contract;
    bool has_contract;
    gt_pipeline_config config;
    gt_parse_options parse; /* the case's syntax policy (reject_nul) */
    gt_pipeline_outcome outcome;
    char *context_json;
    char *schema_summary;
    char contract_name[GT_CONTRACT_MAX_NAME + 16];
    /* A rule set or policy table that does not compile: the pipeline refuses
     * to run (fail closed) and the case observes that refusal. */
    const char *refused_gate, *refused_reason;
    char refused_location[128]; /* JSON Pointer into the rule set or policy table */
    char refused_message[512];
} gates_case;

static const gt_value *field(const gt_value *object, const char *name)
{
    return gt_value_get(object, name, strlen(name));
}

static const char *string_field(const gt_value *object, const char *name)
{
    const gt_value *value = field(object, name);
    return value != NULL && value->type == GT_STRING ? value->u.str.chars : NULL;
}

static void gates_case_free(gates_case *gc)
{
    gt_pipeline_outcome_free(&gc->outcome);
    gt_schema_free(gc->schema);
    gt_semantic_rules_free(gc->rules);
    gt_policy_free(gc->policy);
    gt_contract_clear(&gc->contract);
    free(gc->context_json);
    free(gc->schema_summary);
    gt_arena_free(gc->arena);
}

static gt_gate_status status_of(gt_pipeline_status status)
{
    return status == GT_PIPELINE_PASSED ? GT_GATE_PASSED
           : status == GT_PIPELINE_FAILED ? GT_GATE_FAILED
                                          : GT_GATE_NOT_RUN;
}

/* Record that the case's rule set or policy table does not compile: nothing
 * is checked against it, the output is refused at that gate (docs/reason-codes.md). */
static int refuse(gates_case *gc, const char *gate, const char *reason, const char *what, const char *location,
                  const char *message)
{
    gc->refused_gate = gate;
    gc->refused_reason = reason;
    snprintf(gc->refused_location, sizeof gc->refused_location, "%s", location);
    snprintf(gc->refused_message, sizeof gc->refused_message, "%s does not compile at \"%s\": %s (nothing is run against it)",
             what, location, message);
    return GT_CHECK_DONE;
}

/* Compile what the case declares. Returns GT_CHECK_DONE, or GT_CHECK_ERROR
 * with `note` naming the broken field (a broken case is the corpus's bug). */
static int prepare(gates_case *gc, const gt_case_input *input, char *note, size_t note_len)
{
    gt_pipeline_outcome_init(&gc->outcome);
    gc->arena = gt_arena_new();
    if (gc->arena == NULL) {
        snprintf(note, note_len, "reference: out of memory");
        return GT_CHECK_ERROR;
    }
    gt_parse_error error;
    gc->kase = input->case_json ? gt_parse(gc->arena, input->case_json, strlen(input->case_json), NULL, &error)
                                : NULL;
    if (gc->kase == NULL || gc->kase->type != GT_OBJECT) {
        snprintf(note, note_len, "reference: the case object is not readable");
        return GT_CHECK_ERROR;
    }
    if (input->schema_json != NULL) {
        gt_schema_options options;
        gt_schema_options_init(&options);
        options.assert_formats = input->assert_formats;
        options.registry = input->schemas;
        options.remotes_dir = input->remotes_dir;
        gt_schema_problem problem;
        gc->schema = gt_schema_compile(input->schema_json, strlen(input->schema_json), &options, &problem);
        if (gc->schema == NULL) {
            snprintf(note, note_len, "reference: the case's schema does not compile at \"%s\": %s", problem.location,
                     problem.message);
            return GT_CHECK_ERROR;
        }
        gc->schema_summary = strdup(input->schema_json);
    }
    const gt_value *rules = field(gc->kase, "semantic_rules");
    if (rules != NULL) {
        gt_semantic_problem problem;
        memset(&problem, 0, sizeof problem);
        gc->rules = gt_semantic_compile_value(rules, &problem);
        if (gc->rules == NULL)
            return refuse(gc, "semantic", GT_REASON_RULES_INVALID, "the semantic rule set", problem.location,
                          problem.message);
    }
    const gt_value *policy = field(gc->kase, "policy");
    if (policy != NULL) {
        gt_policy_problem problem;
        memset(&problem, 0, sizeof problem);
        gc->policy = gt_policy_compile_value(policy, &problem);
        if (gc->policy == NULL)
            return refuse(gc, "policy", GT_REASON_POLICY_INVALID, "the policy table", problem.location, problem.message);
    }
    const gt_value *context = field(gc->kase, "context");
    if (context != NULL && context->type != GT_OBJECT) {
        snprintf(note, note_len, "reference: context must be an object");
        return GT_CHECK_ERROR;
    }
    if (context != NULL && (gc->context_json = gt_value_to_json(context, NULL)) == NULL) {
        snprintf(note, note_len, "reference: out of memory");
        return GT_CHECK_ERROR;
    }
    gt_parse_options_init(&gc->parse);
    gc->parse.reject_nul = input->reject_nul;
    if (input->max_bytes > 0)
        gc->parse.max_bytes = input->max_bytes;
    gc->config.parse_options = &gc->parse;
    gc->config.schema = gc->schema;
    gc->config.rules = gc->rules;
    gc->config.policy = gc->policy;
    gc->config.context = context;
    gc->config.today = context ? string_field(context, "today") : NULL;

    const gt_value *trace = field(gc->kase, "trace");
    const char *declared = trace ? string_field(trace, "schema") : NULL;
    const gt_value *contract = field(gc->kase, "contract");
    if (contract != NULL) {
        gt_contract_problem problem;
        if (gt_contract_load(contract, &gc->contract, &problem) != 0) {
            snprintf(note, note_len, "reference: contract%s: %s", problem.location, problem.message);
            return GT_CHECK_ERROR;
        }
        gc->has_contract = true;
        gc->config.contract = &gc->contract;
        gt_contract_ref ref;
        if (declared != NULL && gt_contract_ref_parse(declared, &ref) == 0 && strcmp(ref.name, gc->contract.name) == 0)
            gc->config.declared_version = ref.version;
    }
    const char *name = declared;
    if (name == NULL && input->schema_json != NULL) {
        const gt_value *root = gt_parse(gc->arena, input->schema_json, strlen(input->schema_json), NULL, &error);
        name = root != NULL && root->type == GT_OBJECT ? string_field(root, "$id") : NULL;
    }
    snprintf(gc->contract_name, sizeof gc->contract_name, "%s", name ? name : "");
    return GT_CHECK_DONE;
}

/* Observed errors of the failing gate: (pointer, keyword or rule id or reason, message). */
static int add_errors(const gt_pipeline_outcome *outcome, gt_observed *observed)
{
    switch (outcome->failed_gate) {
    case GT_PIPELINE_STRUCTURE:
        for (size_t i = 0; i < outcome->errors.count; i++) {
            const gt_schema_error *error = &outcome->errors.items[i];
            if (gt_observed_add_error(observed, error->instance_path, error->keyword, error->message) != 0)
                return -1;
        }
        if (outcome->errors.count == 0 && outcome->reason != NULL) { /* contract version */
            const char *path = outcome->parsed && outcome->parsed->type == GT_OBJECT &&
                                       gt_value_get(outcome->parsed, GT_CONTRACT_VERSION_FIELD,
                                                    strlen(GT_CONTRACT_VERSION_FIELD)) != NULL
                                   ? "/" GT_CONTRACT_VERSION_FIELD
                                   : "";
            return gt_observed_add_error(observed, path, outcome->reason, outcome->message);
        }
        return 0;
    case GT_PIPELINE_SEMANTIC:
        for (size_t i = 0; i < outcome->semantic.count; i++) {
            const gt_semantic_violation *v = &outcome->semantic.items[i];
            if (gt_observed_add_error(observed, v->pointer, v->rule_id, v->message) != 0)
                return -1;
        }
        return 0;
    case GT_PIPELINE_POLICY:
        return gt_observed_add_error(observed, outcome->policy.pointer, outcome->policy.reason,
                                     outcome->policy.message);
    default:
        return 0;
    }
}

static void fill_gates(const gt_pipeline_outcome *outcome, gt_observed *observed)
{
    for (int gate = 0; gate < GT_PIPELINE_GATE_COUNT; gate++)
        observed->gates[gate] = status_of(outcome->status[gate]);
}

/* The trace record for this verdict: observed->trace_json, and the transcript's first line. */
static int add_trace(const gates_case *gc, const gt_case_input *input, gt_observed *observed)
{
    const gt_value *trace = field(gc->kase, "trace");
    char contract_in[GT_CONTRACT_MAX_NAME + 16] = "", contract_out[GT_CONTRACT_MAX_NAME + 16] = "";
    const gt_pipeline_outcome *outcome = &gc->outcome;
    if (gc->has_contract && outcome->contract.from_version > 0) {
        snprintf(contract_in, sizeof contract_in, "%s-v%u", gc->contract.name, outcome->contract.from_version);
        if (outcome->contract.status != GT_CONTRACT_REJECTED)
            snprintf(contract_out, sizeof contract_out, "%s-v%u", gc->contract.name, gc->contract.current);
    }
    const char *schema = trace ? string_field(trace, "schema") : NULL;
    gt_arena *scratch = gc->arena;
    if (schema == NULL && input->schema_json != NULL) {
        gt_parse_error error;
        const gt_value *root = gt_parse(scratch, input->schema_json, strlen(input->schema_json), NULL, &error);
        schema = root ? string_field(root, "$id") : NULL;
    }
    gt_trace record = {
        .case_id = input->id,
        .schema = schema,
        .prompt_version = trace ? string_field(trace, "prompt_version") : NULL,
        .model = trace ? string_field(trace, "model") : NULL,
        .validator_version = "gauntlet-reference " GAUNTLET_VERSION,
        .contract_in = contract_in[0] ? contract_in : NULL,
        .contract_out = contract_out[0] ? contract_out : NULL,
        .verdict = observed->verdict == GT_VERDICT_ACCEPT ? "accept" : "reject",
        .gate = observed->gate,
        .reason = observed->reason,
    };
    char *json = gt_trace_to_json(&record);
    if (json == NULL)
        return -1;
    size_t size = strlen(json) + (observed->transcript ? strlen(observed->transcript) : 0) + 16;
    char *transcript = malloc(size);
    if (transcript == NULL) {
        free(json);
        return -1;
    }
    snprintf(transcript, size, "trace: %s\n%s", json, observed->transcript ? observed->transcript : "");
    free(observed->transcript);
    observed->transcript = transcript;
    free(observed->trace_json);
    observed->trace_json = json; /* compared with expect.trace */
    return 0;
}

/* ---- scripted repair ------------------------------------------------------ */

typedef struct script {
    const gt_value *replies; /* array */
    size_t next;
} script;

static long usage_of(const gt_value *reply, const char *name)
{
    const gt_value *usage = field(reply, "usage");
    const gt_value *count = usage ? field(usage, name) : NULL;
    return count != NULL && gt_value_is_integer(count) && count->u.num.number >= 0
               ? (long)gt_number_clamp(count->u.num.number, 0, GT_COUNT_MAX)
               : -1;
}

static int scripted_model(void *user, int attempt, const char *request, size_t request_len, gt_repair_reply *reply)
{
    script *s = user;
    (void)attempt, (void)request, (void)request_len;
    if (s->replies == NULL || s->next >= s->replies->u.arr.count)
        return -1;
    const gt_value *item = s->replies->u.arr.items[s->next++];
    const gt_value *output = item->type == GT_STRING ? item : field(item, "output");
    if (output == NULL || output->type != GT_STRING)
        return -1;
    reply->raw = output->u.str.chars;
    reply->len = output->u.str.len;
    if (item->type == GT_OBJECT) {
        reply->input_tokens = usage_of(item, "input_tokens");
        reply->output_tokens = usage_of(item, "output_tokens");
        const gt_value *latency = field(item, "latency_ms");
        if (latency != NULL && latency->type == GT_NUMBER)
            reply->latency_ms = latency->u.num.number;
    }
    return 0;
}

/* {"repair": accounting, "request": text or null, "value": the accepted value or null}. */
static char *repair_envelope(const gt_repair_result *result)
{
    char *accounting = gt_repair_result_json(result);
    if (accounting == NULL)
        return NULL;
    char *request = NULL;
    if (result->last_request != NULL) {
        gt_arena *arena = gt_arena_new();
        gt_value *text = arena ? gt_value_new_string(arena, result->last_request, strlen(result->last_request)) : NULL;
        request = text ? gt_value_to_json(text, NULL) : NULL;
        gt_arena_free(arena);
        if (request == NULL) {
            free(accounting);
            return NULL;
        }
    }
    const char *value = result->value_json ? result->value_json : "null";
    size_t size = strlen(accounting) + (request ? strlen(request) : 4) + strlen(value) + 48;
    char *envelope = malloc(size);
    if (envelope != NULL)
        snprintf(envelope, size, "{\"repair\":%s,\"request\":%s,\"value\":%s}", accounting,
                 request ? request : "null", value);
    free(accounting);
    free(request);
    return envelope;
}

static int run_repair(gates_case *gc, const gt_case_input *input, const gt_value *repair, gt_observed *observed)
{
    const gt_value *max = field(repair, "max_attempts");
    script s = {field(repair, "replies"), 0};
    if (s.replies != NULL && s.replies->type != GT_ARRAY)
        s.replies = NULL;
    gt_repair_config config = {
        .pipeline = &gc->config,
        .max_attempts = max && gt_value_is_integer(max) ? (int)gt_number_clamp(max->u.num.number, INT_MIN, INT_MAX) : 0,
        .task = string_field(repair, "task"),
        .context_json = gc->context_json,
        .contract_name = gc->contract_name[0] ? gc->contract_name : NULL,
        .contract_summary = gc->schema_summary,
        .fallback = string_field(repair, "fallback"),
        .model = field(repair, "replies") != NULL ? scripted_model : NULL,
        .user = &s,
    };
    gt_repair_result result;
    if (gt_repair_run(&config, (const char *)input->raw, input->raw_len, gc->arena, &gc->outcome, &result) != 0) {
        gt_repair_result_free(&result);
        return -1;
    }
    const gt_pipeline_outcome *outcome = &gc->outcome;
    fill_gates(outcome, observed);
    int status = 0;
    if (result.status == GT_REPAIR_ACCEPTED || result.status == GT_REPAIR_REPAIRED)
        observed->verdict = GT_VERDICT_ACCEPT;
    else {
        const char *reason = result.reason ? result.reason : outcome->reason;
        status = gt_observed_reject(observed, gt_pipeline_gate_name(outcome->failed_gate), reason, outcome->message);
        if (status == 0)
            status = add_errors(outcome, observed);
    }
    /* The output is the envelope either way, so a case can compare the accounting (tokens, fingerprints) of
     * a repaired answer too; the accepted value is its "value". */
    if (status == 0 && (observed->output_json = repair_envelope(&result)) == NULL)
        status = -1;
    if (status == 0) {
        size_t size = strlen(observed->output_json) + 16;
        observed->transcript = malloc(size);
        if (observed->transcript != NULL)
            snprintf(observed->transcript, size, "repair: %s\n", observed->output_json);
    }
    observed->subtype = strdup(gt_repair_status_name(result.status));
    gt_accounting_init(&observed->accounting);
    observed->accounting.attempts_used = result.attempts_used;
    observed->accounting.attempts_limit = result.max_attempts;
    observed->accounting.model_calls = result.requests_sent;
    observed->has_accounting = true;
    gt_repair_result_free(&result);
    return observed->subtype == NULL ? -1 : status;
}

int gt_reference_check_gates(const gt_case_input *input, gt_observed *observed, char *note, size_t note_len)
{
    if (input->raw == NULL) {
        snprintf(note, note_len, "reference: a %s case needs input or input_base64", input->gate);
        return GT_CHECK_ERROR;
    }
    gates_case gc;
    memset(&gc, 0, sizeof gc);
    int status = prepare(&gc, input, note, note_len);
    if (status != GT_CHECK_DONE) {
        gates_case_free(&gc);
        return status;
    }
    const gt_value *repair = field(gc.kase, "repair");
    gt_reference_arm_deadline(&gc.outcome.errors);
    int failed;
    if (gc.refused_gate != NULL) {
        /* the one error names the offending place in the rule set or policy table */
        failed = gt_observed_reject(observed, gc.refused_gate, gc.refused_reason, gc.refused_message);
        if (failed == 0)
            failed = gt_observed_add_error(observed, gc.refused_location, gc.refused_reason, gc.refused_message);
    }
    else if (repair != NULL && repair->type == GT_OBJECT)
        failed = run_repair(&gc, input, repair, observed);
    else {
        failed = gt_pipeline_run((const char *)input->raw, input->raw_len, &gc.config, gc.arena, &gc.outcome);
        if (failed == 0) {
            const gt_pipeline_outcome *outcome = &gc.outcome;
            fill_gates(outcome, observed);
            if (outcome->accepted) {
                observed->verdict = GT_VERDICT_ACCEPT;
                observed->output_json = gt_value_to_json(outcome->value, NULL);
                failed = observed->output_json == NULL ? -1 : 0;
            } else {
                failed = gt_observed_reject(observed, gt_pipeline_gate_name(outcome->failed_gate),
                                            outcome->reason ? outcome->reason : "unknown", outcome->message);
                if (failed == 0)
                    failed = add_errors(outcome, observed);
            }
        }
    }
    if (gt_reference_timed_out(&gc.outcome.errors, note, note_len)) {
        gates_case_free(&gc);
        return GT_CHECK_ERROR;
    }
    if (failed == 0)
        failed = add_trace(&gc, input, observed);
    gates_case_free(&gc);
    if (failed != 0) {
        snprintf(note, note_len, "reference: out of memory");
        return GT_CHECK_ERROR;
    }
    return GT_CHECK_DONE;
}
