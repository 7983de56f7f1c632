/* pipeline.h — the reference pipeline: raw model output through the gates in
 * order, each failure attributed to exactly one gate and one reason code.
 *
 * syntax -> structure -> (contract version / migration) -> semantic -> policy.
 * gt_pipeline_check runs the first two (a schema only); gt_pipeline_run takes
 * a config with rules, policy, contract and trusted context and runs all four.
 * Passing one gate never implies passing the next, and no gate coerces. Not
 * for: the agent loop or streams (they feed their final raw text through
 * this), or repair (repair.h drives this once per attempt). */
#ifndef GAUNTLET_PIPELINE_H
#define GAUNTLET_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/arena.h"
#include "gauntlet/contract.h"
#include "gauntlet/parse.h"
#include "gauntlet/policy.h"
#include "gauntlet/schema.h"
#include "gauntlet/semantic.h"

/* Gates of the pipeline, in order. */
typedef enum gt_pipeline_gate {
    GT_PIPELINE_SYNTAX = 0,
    GT_PIPELINE_STRUCTURE,
    GT_PIPELINE_SEMANTIC,
    GT_PIPELINE_POLICY,
    GT_PIPELINE_GATE_COUNT
} gt_pipeline_gate;

typedef enum gt_pipeline_status {
    GT_PIPELINE_NOT_RUN = 0, /* an earlier gate failed, or the gate has nothing to check */
    GT_PIPELINE_PASSED,
    GT_PIPELINE_FAILED
} gt_pipeline_status;

typedef struct gt_pipeline_outcome {
    bool accepted;
    gt_pipeline_gate failed_gate;  /* meaningful when !accepted */
    const char *reason;            /* static reason code: syntax reason or the first failing keyword */
    char message[512];             /* one human line for the first problem */
    gt_pipeline_status status[GT_PIPELINE_GATE_COUNT];
    gt_parse_error syntax;         /* details when the syntax gate failed */
    gt_schema_errors errors;       /* every structure error (owned; see gt_pipeline_outcome_free) */
    const gt_value *value;         /* the parsed value (in the caller's arena) when syntax passed; after a
                                      contract migration, the migrated current-version value */
    const gt_value *parsed;        /* the value as parsed, before any migration */
    gt_semantic_result semantic;   /* every semantic violation (owned) */
    gt_policy_decision policy;     /* the policy decision when the policy gate ran */
    gt_contract_result contract;   /* the versioning step when a contract was configured */
    bool escalate;                 /* the failure must not be repaired (missing evidence, escalate rule) */
} gt_pipeline_outcome;

/* Everything after the raw text. Every member may be NULL / 0: a gate with
 * nothing to check is NOT_RUN. */
typedef struct gt_pipeline_config {
    const gt_schema *schema;               /* structure gate (the input version's schema) */
    const gt_parse_options *parse_options; /* NULL = defaults */
    const gt_contract *contract;           /* versioning: migrate to the current type before semantics */
    unsigned declared_version;             /* version asked for when the output names none (0 = unknown) */
    const char *today;                     /* trusted "YYYY-MM-DD" for the compatibility window */
    const gt_semantic_rules *rules;        /* semantic gate */
    const gt_policy *policy;               /* policy gate */
    const gt_value *context;               /* trusted context for rules and policy (NULL = empty) */
} gt_pipeline_config;

/* Prepare an outcome for reuse across many checks. */
void gt_pipeline_outcome_init(gt_pipeline_outcome *outcome);

/* Release what the outcome holds (the structure error list). */
void gt_pipeline_outcome_free(gt_pipeline_outcome *outcome);

/* Run `raw` through the gates. `schema` may be NULL (then only syntax runs and
 * structure is NOT_RUN). `parse_options` may be NULL for defaults. Values are
 * allocated in `arena`. Returns 0, or -1 when validation itself failed (out of
 * memory); a rejection is not an error. */
int gt_pipeline_check(const char *raw, size_t len, const gt_schema *schema, const gt_parse_options *parse_options,
                      gt_arena *arena, gt_pipeline_outcome *outcome);

/* Run `raw` through every configured gate in order: syntax, structure, the
 * contract step (a version rejection fails the structure gate), semantic,
 * policy. Returns 0, or -1 when checking itself failed (out of memory). */
int gt_pipeline_run(const char *raw, size_t len, const gt_pipeline_config *config, gt_arena *arena,
                    gt_pipeline_outcome *outcome);

/* "syntax", "structure", "semantic", "policy". */
const char *gt_pipeline_gate_name(gt_pipeline_gate gate);

#endif
