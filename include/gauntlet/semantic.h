/* semantic.h — gate 3, semantic: is the value consistent with trusted facts
 * and with itself?
 *
 * A small declarative rule language (docs/rules.md) compiled once from JSON
 * and evaluated against a parsed, schema-valid value plus trusted context (a
 * JSON object the application supplies: tables, the authenticated identity,
 * verified amounts). Fields are addressed by JSON Pointer (RFC 6901). Rule
 * kinds: implies, member_of, compare, resolves, absent. Every violation names
 * its rule id, the instance pointer, a reason code and one human line.
 * Unresolved evidence is `missing_evidence`: it escalates and is never handed
 * to repair. Not for: type checks (schema.h) or authorization (policy.h). */
#ifndef GAUNTLET_SEMANTIC_H
#define GAUNTLET_SEMANTIC_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/value.h"

/* Most rules one rule set may hold, and longest rule id / pointer accepted.
 * Rule sets are written by people; the caps keep a hostile case file from
 * making evaluation quadratic in something unbounded. */
#define GT_SEMANTIC_MAX_RULES 256u
#define GT_SEMANTIC_MAX_ID 64u
#define GT_SEMANTIC_MAX_POINTER 512u

/* Reason codes of the semantic gate (docs/rules.md lists them). */
#define GT_REASON_IMPLICATION_VIOLATED "implication_violated"
#define GT_REASON_NOT_IN_TABLE "not_in_table"
#define GT_REASON_NOT_VISIBLE "not_visible_to_identity"
#define GT_REASON_COMPARISON_FAILED "comparison_failed"
#define GT_REASON_UNRESOLVED_REFERENCE "unresolved_reference"
#define GT_REASON_MISSING_EVIDENCE "missing_evidence"
#define GT_REASON_FORBIDDEN_FIELD "forbidden_field"
#define GT_REASON_MISSING_CONTEXT "missing_trusted_context"
/* The rule set itself does not compile: nothing is checked, the output is refused (fail closed). */
#define GT_REASON_RULES_INVALID "rules_invalid"

typedef struct gt_semantic_rules gt_semantic_rules;

/* Why a rule set did not compile: the JSON Pointer of the offending part of
 * the rule text ("/2/op") and one human line. */
typedef struct gt_semantic_problem {
    char location[128];
    char message[256];
} gt_semantic_problem;

/* One violation. Strings are owned by the result. */
typedef struct gt_semantic_violation {
    const char *rule_id;  /* the rule's "id" */
    const char *pointer;  /* JSON Pointer into the instance ("/needs_human") */
    const char *reason;   /* reason code (GT_REASON_*, or the rule's own "reason") */
    const char *message;  /* one human line */
    bool escalate;        /* never repair: escalate to a human or a safe fallback */
} gt_semantic_violation;

typedef struct gt_semantic_result {
    gt_semantic_violation *items;
    size_t count;
    size_t capacity;
    gt_arena *strings; /* private */
} gt_semantic_result;

/* Compile a rule set from JSON text: an array of rule objects. Returns the
 * rules (free with gt_semantic_rules_free) or NULL with `problem` filled
 * (`problem` may be NULL). `json` is not retained. */
gt_semantic_rules *gt_semantic_compile(const char *json, size_t len, gt_semantic_problem *problem);

/* Same, from a value (serialised and copied; `rules` need not outlive the result). */
gt_semantic_rules *gt_semantic_compile_value(const gt_value *rules, gt_semantic_problem *problem);

/* Free a rule set. NULL is a no-op. */
void gt_semantic_rules_free(gt_semantic_rules *rules);

/* Number of rules in the set. */
size_t gt_semantic_rule_count(const gt_semantic_rules *rules);

/* Prepare an empty result / forget its violations / release it. */
void gt_semantic_result_init(gt_semantic_result *result);
void gt_semantic_result_clear(gt_semantic_result *result);
void gt_semantic_result_free(gt_semantic_result *result);

/* Evaluate every rule against `instance` with trusted `context` (an object,
 * or NULL = empty). `result` is cleared first and receives every violation in
 * rule order. Returns 0 when there is none, 1 when there are violations, -1
 * when out of memory. Thread-safe for one rule set and distinct results. */
int gt_semantic_check(const gt_semantic_rules *rules, const gt_value *instance, const gt_value *context,
                      gt_semantic_result *result);

/* The gate's reason for a failed check: "missing_evidence" when any violation
 * is missing evidence (it escalates whatever else failed), otherwise the first
 * violation's reason. NULL when there is no violation. */
const char *gt_semantic_result_reason(const gt_semantic_result *result);

/* True when any violation escalates (never repaired). */
bool gt_semantic_result_escalates(const gt_semantic_result *result);

/* ---- helpers shared with the policy gate and repair ----------------------- */

/* Resolve an RFC 6901 JSON Pointer ("" = root, "/a/0", "~0" and "~1" escapes)
 * against `root`. NULL when any step is missing or the pointer is malformed. */
const gt_value *gt_pointer_get(const gt_value *root, const char *pointer);

/* True when `pointer` is "" or a well-formed RFC 6901 pointer. */
bool gt_pointer_valid(const char *pointer);

/* Write the "$.a[0][\"odd key\"]" form of `pointer` into `out` (truncated,
 * always NUL-terminated). Array steps are written as [n] when `root` shows the
 * parent is an array (or, with `root` NULL, when the step is all digits). */
void gt_pointer_to_dollar(const gt_value *root, const char *pointer, char *out, size_t out_len);

#endif
