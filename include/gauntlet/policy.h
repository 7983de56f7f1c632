/* policy.h — gate 4, policy: may the action the object proposes happen?
 *
 * A policy table (JSON, docs/rules.md#policy) lists each action the
 * application knows, the roles that may take it, limits on amounts and
 * whether an approval from trusted state is required. The decision reads only
 * the trusted context (the authenticated identity's role, the approvals the
 * application recorded) and the proposed action: the object's own fields
 * ("approved": true, "authorized_by": "admin", an approval token it quotes)
 * never grant anything. Decisions are deterministic: the same object, table
 * and context always give the same verdict, reason and message.
 * Not for: consistency with facts (semantic.h). */
#ifndef GAUNTLET_POLICY_H
#define GAUNTLET_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/semantic.h"
#include "gauntlet/value.h"

/* Most actions one policy table may list. */
#define GT_POLICY_MAX_ACTIONS 128u

/* Reason codes of the policy gate (docs/rules.md lists them). */
#define GT_REASON_ACTION_NOT_IN_POLICY "action_not_in_policy"
#define GT_REASON_MISSING_IDENTITY "missing_identity"
#define GT_REASON_ROLE_NOT_PERMITTED "role_not_permitted"
#define GT_REASON_OVER_LIMIT "over_limit"
#define GT_REASON_APPROVAL_REQUIRED "approval_required"
#define GT_REASON_POLICY_MISSING_CONTEXT "missing_trusted_context"
/* The policy table itself does not compile: nothing is authorized (fail closed). */
#define GT_REASON_POLICY_INVALID "policy_invalid"

typedef struct gt_policy gt_policy;

/* Why a policy table did not compile: a JSON Pointer into the table and a
 * message, the same record as a rule set's problem (semantic.h). */
typedef gt_semantic_problem gt_policy_problem;

/* The decision for one object. */
typedef struct gt_policy_decision {
    bool allowed;
    bool action_proposed;  /* false: the object proposes no action (allowed, nothing to authorize) */
    char action[64];       /* the proposed action, cut to fit */
    const char *reason;    /* static reason code when denied, NULL when allowed */
    char pointer[256];     /* JSON Pointer of the field the denial concerns */
    char message[512];     /* one human line */
} gt_policy_decision;

/* Compile a policy table from JSON text. Returns it (free with
 * gt_policy_free) or NULL with `problem` filled (may be NULL). */
gt_policy *gt_policy_compile(const char *json, size_t len, gt_policy_problem *problem);

/* Same, from a value (copied). */
gt_policy *gt_policy_compile_value(const gt_value *table, gt_policy_problem *problem);

/* Free a policy. NULL is a no-op. */
void gt_policy_free(gt_policy *policy);

/* Decide whether the action `instance` proposes is allowed under `context`
 * (the trusted state; NULL = empty, which denies every action). Fills
 * `decision`. Returns 0 when allowed, 1 when denied. Thread-safe. */
int gt_policy_decide(const gt_policy *policy, const gt_value *instance, const gt_value *context,
                     gt_policy_decision *decision);

#endif
