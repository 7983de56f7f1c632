/* policy.c — the policy gate's table and decision; see policy.h and
 * docs/rules.md. Checks run in a fixed order (action known, identity, role,
 * limits, approval) so the first failing check is always the reason. */
#include "gauntlet/policy.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/parse.h"
#include "gauntlet/semantic.h"
#include "rule_table.h"

typedef struct policy_limit {
    const char *pointer;          /* amount in the object */
    const char *context;          /* trusted limit, or NULL */
    const gt_value *max;          /* literal limit, or NULL */
} policy_limit;

typedef struct policy_action {
    const char *name;
    const gt_value *roles; /* array of strings */
    policy_limit *limits;
    size_t limit_count;
    bool approval;
    const char *subject; /* object pointer an approval must name, or NULL */
} policy_action;

struct gt_policy {
    gt_arena *arena;
    const char *action_pointer;
    const char *role_context;
    const char *approvals_context;
    const gt_value *claims; /* array of pointers: fields the model may write but that grant nothing */
    policy_action *actions;
    size_t action_count;
};

static const char *const default_claims =
    "[\"/approved\",\"/authorized_by\",\"/approval\",\"/approval_token\",\"/authorization\"]";

/* Short names for the table helpers this file shares with semantic.c. */
#define set_problem gt_table_problem
#define member gt_table_member
#define plain_string gt_table_plain_string

/* True when every reference token of `pointer` decodes to fewer than
 * GT_SEMANTIC_MAX_POINTER bytes: gt_pointer_get resolves no longer token, so a
 * table naming one would read nothing there (an action pointer or a limit's
 * amount that is never found would authorize without checking). */
static bool tokens_resolvable(const char *pointer)
{
    size_t token = 0;
    for (const char *p = pointer; *p; p++) {
        if (*p == '/')
            token = 0;
        else if (*p != '~' && ++token >= GT_SEMANTIC_MAX_POINTER)
            return false;
    }
    return true;
}

/* Pointer member with a default. */
static bool pointer_field(const gt_value *object, const char *name, const char *fallback, const char **out,
                          const char *where, gt_policy_problem *problem)
{
    const gt_value *value = member(object, name);
    if (value == NULL) {
        *out = fallback;
        return true;
    }
    bool pointer = plain_string(value) && gt_pointer_valid(value->u.str.chars);
    if (!pointer || !tokens_resolvable(value->u.str.chars)) {
        char location[128];
        snprintf(location, sizeof location, "%s/%s", where, name);
        if (!pointer)
            set_problem(problem, location, "\"%s\" must be a JSON Pointer", name);
        else
            set_problem(problem, location, "\"%s\" names a member longer than %u bytes, which no lookup resolves",
                        name, GT_SEMANTIC_MAX_POINTER - 1);
        return false;
    }
    *out = value->u.str.chars;
    return true;
}

static bool compile_limit(gt_arena *arena, const gt_value *value, policy_limit *out, const char *where,
                          gt_policy_problem *problem)
{
    static const char *const allowed[] = {"pointer", "context", "max"};
    (void)arena;
    memset(out, 0, sizeof *out);
    if (value->type != GT_OBJECT) {
        set_problem(problem, where, "a limit must be an object {\"pointer\", and \"context\" or \"max\"}");
        return false;
    }
    if (!gt_table_only_members(value, allowed, 3, where, "", problem))
        return false;
    if (!pointer_field(value, "pointer", NULL, &out->pointer, where, problem) ||
        !pointer_field(value, "context", NULL, &out->context, where, problem))
        return false;
    out->max = member(value, "max");
    if (out->max != NULL && out->max->type != GT_NUMBER) {
        char location[128];
        snprintf(location, sizeof location, "%s/max", where);
        set_problem(problem, location,
                    "a limit needs \"pointer\" and exactly one of \"context\" or a numeric \"max\"");
        return false;
    }
    if (out->pointer == NULL || (out->context == NULL) == (out->max == NULL) ||
        (out->max != NULL && out->max->type != GT_NUMBER)) {
        set_problem(problem, where, "a limit needs \"pointer\" and exactly one of \"context\" or a numeric \"max\"");
        return false;
    }
    return true;
}

static bool compile_action(gt_arena *arena, const gt_value *value, size_t index, void *entry,
                           gt_policy_problem *problem)
{
    policy_action *out = entry;
    static const char *const allowed[] = {"action", "roles", "limits", "approval", "subject", "description"};
    char where[64];
    snprintf(where, sizeof where, "/actions/%zu", index);
    memset(out, 0, sizeof *out);
    if (value->type != GT_OBJECT) {
        set_problem(problem, where, "an action entry must be an object");
        return false;
    }
    if (!gt_table_only_members(value, allowed, 6, where, "", problem))
        return false;
    /* A problem names the member at fault (the entry when the member is missing). */
    char location[96];
    const gt_value *name = member(value, "action");
    if (!plain_string(name) || name->u.str.len == 0) {
        snprintf(location, sizeof location, "%s%s", where, name != NULL ? "/action" : "");
        set_problem(problem, location, "\"action\" must be a non-empty string");
        return false;
    }
    out->name = name->u.str.chars;
    out->roles = member(value, "roles");
    if (out->roles == NULL || out->roles->type != GT_ARRAY) {
        snprintf(location, sizeof location, "%s%s", where, out->roles != NULL ? "/roles" : "");
        set_problem(problem, location, "action \"%s\": \"roles\" must be an array of role names", out->name);
        return false;
    }
    for (size_t i = 0; i < out->roles->u.arr.count; i++)
        if (!plain_string(out->roles->u.arr.items[i])) {
            snprintf(location, sizeof location, "%s/roles/%zu", where, i);
            set_problem(problem, location, "action \"%s\": roles must be strings", out->name);
            return false;
        }
    const gt_value *approval = member(value, "approval");
    if (approval != NULL && approval->type != GT_TRUE && approval->type != GT_FALSE) {
        snprintf(location, sizeof location, "%s/approval", where);
        set_problem(problem, location, "action \"%s\": \"approval\" must be true or false", out->name);
        return false;
    }
    out->approval = approval != NULL && approval->type == GT_TRUE;
    if (!pointer_field(value, "subject", NULL, &out->subject, where, problem))
        return false;
    const gt_value *limits = member(value, "limits");
    if (limits != NULL) {
        if (limits->type != GT_ARRAY) {
            snprintf(location, sizeof location, "%s/limits", where);
            set_problem(problem, location, "action \"%s\": \"limits\" must be an array", out->name);
            return false;
        }
        out->limit_count = limits->u.arr.count;
        out->limits = gt_arena_alloc(arena, (out->limit_count ? out->limit_count : 1) * sizeof *out->limits);
        if (out->limits == NULL) {
            set_problem(problem, where, "out of memory");
            return false;
        }
        for (size_t i = 0; i < out->limit_count; i++) {
            snprintf(location, sizeof location, "%s/limits/%zu", where, i);
            if (!compile_limit(arena, limits->u.arr.items[i], &out->limits[i], location, problem))
                return false;
        }
    }
    return true;
}

gt_policy *gt_policy_compile(const char *json, size_t len, gt_policy_problem *problem)
{
    static const char *const allowed[] = {"action_pointer", "role_context", "approvals_context", "untrusted_claims",
                                          "actions", "description"};
    gt_policy *policy = calloc(1, sizeof *policy);
    if (policy == NULL || (policy->arena = gt_arena_new()) == NULL) {
        free(policy);
        set_problem(problem, "", "out of memory");
        return NULL;
    }
    gt_parse_error error;
    const gt_value *root = gt_parse(policy->arena, json, len, NULL, &error);
    if (root == NULL) {
        set_problem(problem, "", "the policy is not one JSON value: %s", error.message);
        goto fail;
    }
    if (root->type != GT_OBJECT) {
        set_problem(problem, "", "a policy must be an object {\"actions\": [...]}");
        goto fail;
    }
    if (!gt_table_only_members(root, allowed, 6, "", "", problem))
        goto fail;
    if (!pointer_field(root, "action_pointer", "/action", &policy->action_pointer, "", problem) ||
        !pointer_field(root, "role_context", "/identity/role", &policy->role_context, "", problem) ||
        !pointer_field(root, "approvals_context", "/approvals", &policy->approvals_context, "", problem))
        goto fail;
    policy->claims = member(root, "untrusted_claims");
    if (policy->claims == NULL)
        policy->claims = gt_parse(policy->arena, default_claims, strlen(default_claims), NULL, &error);
    if (policy->claims == NULL || policy->claims->type != GT_ARRAY) {
        set_problem(problem, "/untrusted_claims", "\"untrusted_claims\" must be an array of JSON Pointers");
        goto fail;
    }
    for (size_t i = 0; i < policy->claims->u.arr.count; i++) {
        const gt_value *claim = policy->claims->u.arr.items[i];
        if (!plain_string(claim) || !gt_pointer_valid(claim->u.str.chars) || !tokens_resolvable(claim->u.str.chars)) {
            char location[64];
            snprintf(location, sizeof location, "/untrusted_claims/%zu", i);
            set_problem(problem, location,
                        "\"untrusted_claims\" must be an array of JSON Pointers naming members of at most %u bytes",
                        GT_SEMANTIC_MAX_POINTER - 1);
            goto fail;
        }
    }
    const gt_value *actions = member(root, "actions");
    if (actions == NULL || actions->type != GT_ARRAY || actions->u.arr.count > GT_POLICY_MAX_ACTIONS) {
        set_problem(problem, "/actions", "\"actions\" must be an array of at most %u entries", GT_POLICY_MAX_ACTIONS);
        goto fail;
    }
    static const gt_table_list list = {sizeof(policy_action), compile_action, offsetof(policy_action, name),
                                       "/actions", "action", "action", "is listed twice"};
    void *entries;
    if (!gt_table_compile_list(policy->arena, actions, &list, &entries, &policy->action_count, problem))
        goto fail;
    policy->actions = entries;
    return policy;
fail:
    gt_policy_free(policy);
    return NULL;
}

gt_policy *gt_policy_compile_value(const gt_value *table, gt_policy_problem *problem)
{
    size_t len = 0;
    char *json = gt_table_value_json(table, &len, problem);
    gt_policy *policy = json ? gt_policy_compile(json, len, problem) : NULL;
    free(json);
    return policy;
}

void gt_policy_free(gt_policy *policy)
{
    if (policy == NULL)
        return;
    gt_arena_free(policy->arena);
    free(policy);
}

static int deny(gt_policy_decision *decision, const char *reason, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int deny(gt_policy_decision *decision, const char *reason, const char *pointer, const char *fmt, ...)
{
    decision->allowed = false;
    decision->reason = reason;
    snprintf(decision->pointer, sizeof decision->pointer, "%s", pointer);
    va_list args;
    va_start(args, fmt);
    vsnprintf(decision->message, sizeof decision->message, fmt, args);
    va_end(args);
    return 1;
}

/* Append "; the output's own /approved is not an approval" when the model
 * wrote fields that look like grants: they are named, never honoured. */
static void note_claims(const gt_policy *policy, const gt_value *instance, gt_policy_decision *decision)
{
    char names[192] = "";
    size_t used = 0;
    int count = 0;
    for (size_t i = 0; i < policy->claims->u.arr.count; i++) {
        const char *pointer = policy->claims->u.arr.items[i]->u.str.chars;
        if (gt_pointer_get(instance, pointer) == NULL)
            continue;
        int wrote = snprintf(names + used, sizeof names - used, "%s%s", count ? ", " : "", pointer);
        if (wrote < 0 || (size_t)wrote >= sizeof names - used) {
            names[used] = '\0'; /* a name that does not fit is left out whole, never cut */
            break;
        }
        used += (size_t)wrote;
        count++;
    }
    if (count == 0)
        return;
    size_t len = strlen(decision->message);
    snprintf(decision->message + len, sizeof decision->message - len,
             "; the output's own %s grant%s nothing (the model cannot approve)", names, count == 1 ? "s" : "");
}

static bool role_listed(const gt_value *roles, const gt_value *role)
{
    for (size_t i = 0; i < roles->u.arr.count; i++)
        if (gt_value_equal(roles->u.arr.items[i], role))
            return true;
    return false;
}

static bool approval_present(const gt_value *approvals, const policy_action *action, const gt_value *subject)
{
    for (size_t i = 0; approvals != NULL && approvals->type == GT_ARRAY && i < approvals->u.arr.count; i++) {
        const gt_value *approval = approvals->u.arr.items[i];
        const gt_value *name = member(approval, "action");
        if (!plain_string(name) || strcmp(name->u.str.chars, action->name) != 0)
            continue;
        if (action->subject == NULL)
            return true;
        const gt_value *granted_for = member(approval, "subject");
        if (subject != NULL && granted_for != NULL && gt_value_equal(subject, granted_for))
            return true;
    }
    return false;
}

static void shown(const gt_value *value, char *out, size_t out_len)
{
    char *json = value ? gt_value_to_json(value, NULL) : NULL;
    snprintf(out, out_len, "%s", json ? json : "(absent)");
    free(json);
}

static int decide(const gt_policy *policy, const gt_value *instance, const gt_value *context,
                  gt_policy_decision *decision)
{
    const gt_value *proposed = gt_pointer_get(instance, policy->action_pointer);
    if (proposed == NULL)
        return 0; /* nothing proposed, nothing to authorize */
    decision->action_proposed = true;
    if (!plain_string(proposed))
        return deny(decision, GT_REASON_ACTION_NOT_IN_POLICY, policy->action_pointer,
                    "the proposed action at %s is not a string naming an action", policy->action_pointer);
    snprintf(decision->action, sizeof decision->action, "%s", proposed->u.str.chars);
    const policy_action *action = NULL;
    for (size_t i = 0; i < policy->action_count && action == NULL; i++)
        if (strcmp(policy->actions[i].name, proposed->u.str.chars) == 0)
            action = &policy->actions[i];
    char text[128];
    shown(proposed, text, sizeof text);
    if (action == NULL)
        return deny(decision, GT_REASON_ACTION_NOT_IN_POLICY, policy->action_pointer,
                    "action %s is not in the policy table (default deny)", text);

    const gt_value *role = gt_pointer_get(context, policy->role_context);
    if (!plain_string(role))
        return deny(decision, GT_REASON_MISSING_IDENTITY, policy->action_pointer,
                    "action %s needs an authenticated identity with a role at %s in trusted state", text,
                    policy->role_context);
    if (!role_listed(action->roles, role))
        return deny(decision, GT_REASON_ROLE_NOT_PERMITTED, policy->action_pointer,
                    "role \"%s\" may not take action %s", role->u.str.chars, text);

    for (size_t i = 0; i < action->limit_count; i++) {
        const policy_limit *limit = &action->limits[i];
        const gt_value *amount = gt_pointer_get(instance, limit->pointer);
        if (amount == NULL)
            continue;
        const gt_value *max = limit->max != NULL ? limit->max : gt_pointer_get(context, limit->context);
        if (max == NULL || max->type != GT_NUMBER)
            return deny(decision, GT_REASON_POLICY_MISSING_CONTEXT, limit->pointer,
                        "action %s: the limit for %s is missing from trusted state (%s)", text, limit->pointer,
                        limit->context);
        char amount_text[64], max_text[64];
        shown(amount, amount_text, sizeof amount_text);
        shown(max, max_text, sizeof max_text);
        if (amount->type != GT_NUMBER || gt_number_compare(amount, max) > 0)
            return deny(decision, GT_REASON_OVER_LIMIT, limit->pointer,
                        "action %s: %s %s exceeds the limit %s for role \"%s\"", text, limit->pointer, amount_text,
                        max_text, role->u.str.chars);
    }

    if (action->approval) {
        const gt_value *subject = action->subject ? gt_pointer_get(instance, action->subject) : NULL;
        if (!approval_present(gt_pointer_get(context, policy->approvals_context), action, subject)) {
            if (action->subject != NULL) {
                char subject_text[96];
                shown(subject, subject_text, sizeof subject_text);
                deny(decision, GT_REASON_APPROVAL_REQUIRED, policy->action_pointer,
                     "action %s for %s needs an approval recorded in trusted state (%s); none matches", text,
                     subject_text, policy->approvals_context);
            } else
                deny(decision, GT_REASON_APPROVAL_REQUIRED, policy->action_pointer,
                     "action %s needs an approval recorded in trusted state (%s); none is present", text,
                     policy->approvals_context);
            return 1;
        }
    }
    return 0;
}

int gt_policy_decide(const gt_policy *policy, const gt_value *instance, const gt_value *context,
                     gt_policy_decision *decision)
{
    memset(decision, 0, sizeof *decision);
    decision->allowed = true;
    int denied = decide(policy, instance, context, decision);
    if (denied)
        note_claims(policy, instance, decision);
    return denied;
}
