/* semantic.c — the semantic gate's rule language; see semantic.h and
 * docs/rules.md. A rule set is parsed once into its own arena and validated
 * field by field, so evaluation never meets a malformed rule: it only walks
 * pointers and compares values. */
#include "gauntlet/semantic.h"

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/parse.h"
#include "rule_table.h"

/* ---- JSON Pointer --------------------------------------------------------- */

bool gt_pointer_valid(const char *pointer)
{
    if (pointer == NULL)
        return false;
    if (pointer[0] == '\0')
        return true;
    if (pointer[0] != '/')
        return false;
    for (const char *p = pointer; *p; p++)
        if (*p == '~' && p[1] != '0' && p[1] != '1')
            return false;
    return true;
}

/* Decode the token that starts at `start` (just after a '/') into `out`.
 * Returns the token length, or -1 when it does not fit. *next points at the
 * following '/' or the terminating NUL. */
static long pointer_token(const char *start, char *out, size_t out_len, const char **next)
{
    size_t used = 0;
    const char *p = start;
    for (; *p && *p != '/'; p++) {
        char c = *p;
        if (c == '~') {
            c = p[1] == '1' ? '/' : '~';
            p++;
        }
        if (used + 1 >= out_len)
            return -1;
        out[used++] = c;
    }
    out[used] = '\0';
    *next = p;
    return (long)used;
}

/* Array index token: "0" or digits without a leading zero. -1 otherwise. */
static long array_index(const char *token, size_t len)
{
    if (len == 0 || len > 9 || (len > 1 && token[0] == '0'))
        return -1;
    long index = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)token[i]))
            return -1;
        index = index * 10 + (token[i] - '0');
    }
    return index;
}

const gt_value *gt_pointer_get(const gt_value *root, const char *pointer)
{
    if (root == NULL || !gt_pointer_valid(pointer))
        return NULL;
    const gt_value *at = root;
    const char *p = pointer;
    char token[GT_SEMANTIC_MAX_POINTER];
    while (*p == '/' && at != NULL) {
        long len = pointer_token(p + 1, token, sizeof token, &p);
        if (len < 0)
            return NULL;
        if (at->type == GT_OBJECT)
            at = gt_value_get(at, token, (size_t)len);
        else if (at->type == GT_ARRAY) {
            long index = array_index(token, (size_t)len);
            at = index >= 0 && (size_t)index < at->u.arr.count ? at->u.arr.items[index] : NULL;
        } else
            at = NULL;
    }
    return at;
}

static bool is_identifier(const char *token)
{
    if (!(isalpha((unsigned char)token[0]) || token[0] == '_'))
        return false;
    for (const char *p = token; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return false;
    return true;
}

/* Append with truncation; `*used` never passes out_len - 1. */
static void out_append(char *out, size_t out_len, size_t *used, const char *text, size_t len)
{
    if (out_len == 0)
        return;
    size_t room = out_len - 1 - *used;
    if (len > room)
        len = room;
    memcpy(out + *used, text, len);
    *used += len;
    out[*used] = '\0';
}

void gt_pointer_to_dollar(const gt_value *root, const char *pointer, char *out, size_t out_len)
{
    size_t used = 0;
    if (out_len == 0)
        return;
    out[0] = '\0';
    out_append(out, out_len, &used, "$", 1);
    if (!gt_pointer_valid(pointer))
        return;
    const gt_value *at = root;
    const char *p = pointer;
    char token[GT_SEMANTIC_MAX_POINTER];
    while (*p == '/') {
        long len = pointer_token(p + 1, token, sizeof token, &p);
        if (len < 0)
            return;
        long index = array_index(token, (size_t)len);
        bool as_index = at != NULL ? at->type == GT_ARRAY && index >= 0 : index >= 0;
        char piece[64];
        if (as_index) {
            int n = snprintf(piece, sizeof piece, "[%ld]", index);
            out_append(out, out_len, &used, piece, (size_t)n);
        } else if (is_identifier(token)) {
            out_append(out, out_len, &used, ".", 1);
            out_append(out, out_len, &used, token, (size_t)len);
        } else {
            out_append(out, out_len, &used, "[\"", 2);
            for (long i = 0; i < len; i++) {
                unsigned char c = (unsigned char)token[i];
                if (c == '"' || c == '\\') {
                    piece[0] = '\\';
                    piece[1] = (char)c;
                    out_append(out, out_len, &used, piece, 2);
                } else if (c < 0x20 || c == 0x7f) {
                    int n = snprintf(piece, sizeof piece, "\\u%04x", c);
                    out_append(out, out_len, &used, piece, (size_t)n);
                } else
                    out_append(out, out_len, &used, (const char *)&token[i], 1);
            }
            out_append(out, out_len, &used, "\"]", 2);
        }
        if (at != NULL) {
            if (at->type == GT_OBJECT)
                at = gt_value_get(at, token, (size_t)len);
            else if (at->type == GT_ARRAY)
                at = index >= 0 && (size_t)index < at->u.arr.count ? at->u.arr.items[index] : NULL;
            else
                at = NULL;
        }
    }
}

/* ---- exact number comparison ---------------------------------------------- */

/* ---- compiled rules ------------------------------------------------------- */

typedef enum rule_kind { RULE_IMPLIES, RULE_MEMBER_OF, RULE_COMPARE, RULE_RESOLVES, RULE_ABSENT } rule_kind;

typedef enum cond_op { COND_EQUALS, COND_NOT_EQUALS, COND_IN, COND_PRESENT } cond_op;

typedef struct condition {
    bool given;
    const char *pointer;
    cond_op op;
    const gt_value *operand; /* equals / not_equals / in (array) / present (bool) */
} condition;

typedef enum cmp_op { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } cmp_op;
typedef enum operand_source { FROM_VALUE, FROM_CONTEXT, FROM_OTHER } operand_source;

typedef struct rule {
    const char *id;
    rule_kind kind;
    const char *reason; /* override, or NULL */
    bool escalate;
    condition when;
    /* implies */
    condition if_cond, then_cond;
    /* member_of, compare, resolves, absent */
    const char *pointer;
    /* member_of, resolves */
    const char *table;   /* context pointer */
    const char *key;     /* row member holding the id, or NULL = rows are ids */
    const char *scope_key;
    const char *scope_context;
    bool evidence;
    long min_items;
    /* compare */
    cmp_op op;
    operand_source source;
    const gt_value *literal;
    const char *operand_pointer;
} rule;

struct gt_semantic_rules {
    gt_arena *arena;
    rule *rules;
    size_t count;
};

/* Short names for the table helpers this file shares with policy.c. */
#define set_problem gt_table_problem
#define member gt_table_member
#define plain_string gt_table_plain_string

/* A pointer-valued field: absent is fine when !required. */
static bool read_pointer(const gt_value *object, const char *name, bool required, const char **out,
                         const char *where, gt_semantic_problem *problem)
{
    const gt_value *value = member(object, name);
    char location[128];
    snprintf(location, sizeof location, "%s/%s", where, name);
    *out = NULL;
    if (value == NULL) {
        if (required)
            set_problem(problem, where, "\"%s\" is required (a JSON Pointer)", name);
        return !required;
    }
    if (!plain_string(value) || !gt_pointer_valid(value->u.str.chars) ||
        value->u.str.len >= GT_SEMANTIC_MAX_POINTER) {
        set_problem(problem, location, "\"%s\" must be a JSON Pointer (\"\" or \"/a/b\", ~0 and ~1 escapes)", name);
        return false;
    }
    *out = value->u.str.chars;
    return true;
}

static bool read_name(const gt_value *object, const char *name, const char **out, const char *where,
                      gt_semantic_problem *problem)
{
    const gt_value *value = member(object, name);
    *out = NULL;
    if (value == NULL)
        return true;
    if (!plain_string(value) || value->u.str.len == 0) {
        char location[128];
        snprintf(location, sizeof location, "%s/%s", where, name);
        set_problem(problem, location, "\"%s\" must be a non-empty string", name);
        return false;
    }
    *out = value->u.str.chars;
    return true;
}

static bool is_snake_case(const char *text)
{
    if (!islower((unsigned char)text[0]))
        return false;
    for (const char *p = text; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
            return false;
    return true;
}

/* Only the listed members may appear in a rule or condition. */
static bool only_members(const gt_value *object, const char *const *allowed, size_t count, const char *where,
                         gt_semantic_problem *problem)
{
    return gt_table_only_members(object, allowed, count, where, " (docs/rules.md lists each kind's members)",
                                 problem);
}

static bool compile_condition(const gt_value *value, condition *out, const char *where,
                              gt_semantic_problem *problem)
{
    static const char *const allowed[] = {"pointer", "equals", "not_equals", "in", "present"};
    memset(out, 0, sizeof *out);
    if (value == NULL || value->type != GT_OBJECT) {
        set_problem(problem, where, "a condition must be an object {\"pointer\", and one of equals, not_equals, in, "
                                    "present}");
        return false;
    }
    if (!only_members(value, allowed, 5, where, problem) ||
        !read_pointer(value, "pointer", true, &out->pointer, where, problem))
        return false;
    static const char *const ops[] = {"equals", "not_equals", "in", "present"};
    int found = 0;
    for (int i = 0; i < 4; i++) {
        const gt_value *operand = member(value, ops[i]);
        if (operand == NULL)
            continue;
        found++;
        out->op = (cond_op)i;
        out->operand = operand;
    }
    if (found != 1) {
        set_problem(problem, where, "a condition needs exactly one of equals, not_equals, in, present");
        return false;
    }
    char location[128];
    snprintf(location, sizeof location, "%s/%s", where, ops[out->op]);
    if (out->op == COND_IN && out->operand->type != GT_ARRAY) {
        set_problem(problem, location, "\"in\" must be an array of values");
        return false;
    }
    if (out->op == COND_PRESENT && out->operand->type != GT_TRUE && out->operand->type != GT_FALSE) {
        set_problem(problem, location, "\"present\" must be true or false");
        return false;
    }
    out->given = true;
    return true;
}

static int kind_of(const char *name)
{
    static const char *const kinds[] = {"implies", "member_of", "compare", "resolves", "absent"};
    for (int i = 0; i < 5; i++)
        if (strcmp(name, kinds[i]) == 0)
            return i;
    return -1;
}

static int cmp_of(const char *name)
{
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    for (int i = 0; i < 6; i++)
        if (strcmp(name, ops[i]) == 0)
            return i;
    return -1;
}

static bool compile_table_fields(const gt_value *object, rule *out, const char *where, gt_semantic_problem *problem)
{
    if (!read_pointer(object, "table", true, &out->table, where, problem) ||
        !read_name(object, "key", &out->key, where, problem))
        return false;
    const gt_value *scope = member(object, "scope");
    if (scope == NULL)
        return true;
    char location[128];
    snprintf(location, sizeof location, "%s/scope", where);
    static const char *const allowed[] = {"key", "context"};
    if (scope->type != GT_OBJECT) {
        set_problem(problem, location, "\"scope\" must be an object {\"key\", \"context\"}");
        return false;
    }
    if (!only_members(scope, allowed, 2, location, problem) ||
        !read_name(scope, "key", &out->scope_key, location, problem) ||
        !read_pointer(scope, "context", true, &out->scope_context, location, problem))
        return false;
    if (out->scope_key == NULL) {
        set_problem(problem, location, "\"scope\" needs \"key\": the row member that must equal the context value");
        return false;
    }
    return true;
}

static bool compile_rule(gt_arena *arena, const gt_value *value, size_t index, void *entry,
                         gt_semantic_problem *problem)
{
    rule *out = entry;
    (void)arena;
    char where[64];
    snprintf(where, sizeof where, "/%zu", index);
    memset(out, 0, sizeof *out);
    if (value->type != GT_OBJECT) {
        set_problem(problem, where, "a rule must be an object");
        return false;
    }
    const gt_value *id = member(value, "id");
    const gt_value *kind = member(value, "kind");
    if (!plain_string(id) || id->u.str.len == 0 || id->u.str.len > GT_SEMANTIC_MAX_ID) {
        set_problem(problem, where, "a rule needs an \"id\": a string of 1 to %u characters", GT_SEMANTIC_MAX_ID);
        return false;
    }
    out->id = id->u.str.chars;
    if (!plain_string(kind) || kind_of(kind->u.str.chars) < 0) {
        set_problem(problem, where, "rule \"%s\": \"kind\" must be implies, member_of, compare, resolves or absent",
                    out->id);
        return false;
    }
    out->kind = (rule_kind)kind_of(kind->u.str.chars);

    static const char *const common[] = {"id", "kind", "when", "reason", "escalate", "description"};
    static const char *const per_kind[][8] = {
        [RULE_IMPLIES] = {"if", "then"},
        [RULE_MEMBER_OF] = {"pointer", "table", "key", "scope"},
        [RULE_COMPARE] = {"pointer", "op", "value", "context", "other"},
        [RULE_RESOLVES] = {"pointer", "table", "key", "scope", "evidence", "min_items"},
        [RULE_ABSENT] = {"pointer"},
    };
    const char *allowed[16];
    size_t allowed_count = 0;
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        allowed[allowed_count++] = common[i];
    for (size_t i = 0; i < 8 && per_kind[out->kind][i] != NULL; i++)
        allowed[allowed_count++] = per_kind[out->kind][i];
    if (!only_members(value, allowed, allowed_count, where, problem))
        return false;

    const gt_value *reason = member(value, "reason");
    if (reason != NULL) {
        if (!plain_string(reason) || !is_snake_case(reason->u.str.chars)) {
            set_problem(problem, where, "rule \"%s\": \"reason\" must be a snake_case reason code", out->id);
            return false;
        }
        out->reason = reason->u.str.chars;
    }
    const gt_value *escalate = member(value, "escalate");
    if (escalate != NULL && escalate->type != GT_TRUE && escalate->type != GT_FALSE) {
        set_problem(problem, where, "rule \"%s\": \"escalate\" must be true or false", out->id);
        return false;
    }
    out->escalate = escalate != NULL && escalate->type == GT_TRUE;
    char location[96];
    if (member(value, "when") != NULL) {
        snprintf(location, sizeof location, "%s/when", where);
        if (!compile_condition(member(value, "when"), &out->when, location, problem))
            return false;
    }

    switch (out->kind) {
    case RULE_IMPLIES:
        snprintf(location, sizeof location, "%s/if", where);
        if (!compile_condition(member(value, "if"), &out->if_cond, location, problem))
            return false;
        snprintf(location, sizeof location, "%s/then", where);
        return compile_condition(member(value, "then"), &out->then_cond, location, problem);
    case RULE_ABSENT:
        return read_pointer(value, "pointer", true, &out->pointer, where, problem);
    case RULE_MEMBER_OF:
        return read_pointer(value, "pointer", true, &out->pointer, where, problem) &&
               compile_table_fields(value, out, where, problem);
    case RULE_RESOLVES: {
        if (!read_pointer(value, "pointer", true, &out->pointer, where, problem) ||
            !compile_table_fields(value, out, where, problem))
            return false;
        const gt_value *evidence = member(value, "evidence");
        if (evidence != NULL && evidence->type != GT_TRUE && evidence->type != GT_FALSE) {
            set_problem(problem, where, "rule \"%s\": \"evidence\" must be true or false", out->id);
            return false;
        }
        out->evidence = evidence != NULL && evidence->type == GT_TRUE;
        const gt_value *min_items = member(value, "min_items");
        if (min_items != NULL) {
            if (!gt_value_is_integer(min_items) || min_items->u.num.number < 0 || min_items->u.num.number > 1e6) {
                set_problem(problem, where, "rule \"%s\": \"min_items\" must be an integer from 0", out->id);
                return false;
            }
            out->min_items = (long)min_items->u.num.number;
        }
        if (out->evidence) {
            out->escalate = true; /* missing evidence always escalates */
            if (out->reason != NULL && strcmp(out->reason, GT_REASON_MISSING_EVIDENCE) != 0) {
                set_problem(problem, where, "rule \"%s\": an evidence rule's reason is always missing_evidence",
                            out->id);
                return false;
            }
        }
        return true;
    }
    case RULE_COMPARE: {
        if (!read_pointer(value, "pointer", true, &out->pointer, where, problem))
            return false;
        const gt_value *op = member(value, "op");
        if (!plain_string(op) || cmp_of(op->u.str.chars) < 0) {
            set_problem(problem, where, "rule \"%s\": \"op\" must be one of ==, !=, <, <=, >, >=", out->id);
            return false;
        }
        out->op = (cmp_op)cmp_of(op->u.str.chars);
        int sources = (member(value, "value") != NULL) + (member(value, "context") != NULL) +
                      (member(value, "other") != NULL);
        if (sources != 1) {
            set_problem(problem, where, "rule \"%s\": give exactly one of value, context, other", out->id);
            return false;
        }
        if (member(value, "value") != NULL) {
            out->source = FROM_VALUE;
            out->literal = member(value, "value");
            return true;
        }
        out->source = member(value, "context") != NULL ? FROM_CONTEXT : FROM_OTHER;
        return read_pointer(value, out->source == FROM_CONTEXT ? "context" : "other", true, &out->operand_pointer,
                            where, problem);
    }
    }
    return false;
}

gt_semantic_rules *gt_semantic_compile(const char *json, size_t len, gt_semantic_problem *problem)
{
    gt_semantic_rules *rules = calloc(1, sizeof *rules);
    if (rules == NULL || (rules->arena = gt_arena_new()) == NULL) {
        free(rules);
        set_problem(problem, "", "out of memory");
        return NULL;
    }
    gt_parse_error error;
    const gt_value *root = gt_parse(rules->arena, json, len, NULL, &error);
    if (root == NULL) {
        set_problem(problem, "", "the rules are not one JSON value: %s", error.message);
        goto fail;
    }
    if (root->type != GT_ARRAY) {
        set_problem(problem, "", "the rules must be an array of rule objects");
        goto fail;
    }
    if (root->u.arr.count > GT_SEMANTIC_MAX_RULES) {
        set_problem(problem, "", "at most %u rules per set", GT_SEMANTIC_MAX_RULES);
        goto fail;
    }
    static const gt_table_list list = {sizeof(rule), compile_rule, offsetof(rule, id), "", "id", "rule id",
                                       "is used twice"};
    void *entries;
    if (!gt_table_compile_list(rules->arena, root, &list, &entries, &rules->count, problem))
        goto fail;
    rules->rules = entries;
    return rules;
fail:
    gt_semantic_rules_free(rules);
    return NULL;
}

gt_semantic_rules *gt_semantic_compile_value(const gt_value *value, gt_semantic_problem *problem)
{
    size_t len = 0;
    char *json = gt_table_value_json(value, &len, problem);
    gt_semantic_rules *rules = json ? gt_semantic_compile(json, len, problem) : NULL;
    free(json);
    return rules;
}

void gt_semantic_rules_free(gt_semantic_rules *rules)
{
    if (rules == NULL)
        return;
    gt_arena_free(rules->arena);
    free(rules);
}

size_t gt_semantic_rule_count(const gt_semantic_rules *rules)
{
    return rules ? rules->count : 0;
}

/* ---- results -------------------------------------------------------------- */

void gt_semantic_result_init(gt_semantic_result *result)
{
    memset(result, 0, sizeof *result);
}

void gt_semantic_result_clear(gt_semantic_result *result)
{
    result->count = 0;
    if (result->strings != NULL)
        gt_arena_reset(result->strings);
}

void gt_semantic_result_free(gt_semantic_result *result)
{
    free(result->items);
    gt_arena_free(result->strings);
    memset(result, 0, sizeof *result);
}

const char *gt_semantic_result_reason(const gt_semantic_result *result)
{
    if (result == NULL || result->count == 0)
        return NULL;
    for (size_t i = 0; i < result->count; i++)
        if (strcmp(result->items[i].reason, GT_REASON_MISSING_EVIDENCE) == 0)
            return GT_REASON_MISSING_EVIDENCE;
    return result->items[0].reason;
}

bool gt_semantic_result_escalates(const gt_semantic_result *result)
{
    for (size_t i = 0; result != NULL && i < result->count; i++)
        if (result->items[i].escalate)
            return true;
    return false;
}

/* Evaluation state for one check. */
typedef struct eval {
    const gt_value *instance;
    const gt_value *context;
    gt_semantic_result *result;
    bool out_of_memory;
} eval;

static char *dup_string(eval *ev, const char *text)
{
    char *copy = gt_arena_strndup(ev->result->strings, text, strlen(text));
    if (copy == NULL)
        ev->out_of_memory = true;
    return copy;
}

static void violation(eval *ev, const rule *r, const char *pointer, const char *reason, bool escalate,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void violation(eval *ev, const rule *r, const char *pointer, const char *reason, bool escalate,
                      const char *fmt, ...)
{
    gt_semantic_result *result = ev->result;
    if (result->count == result->capacity) {
        size_t capacity = result->capacity ? result->capacity * 2 : 8;
        gt_semantic_violation *items = realloc(result->items, capacity * sizeof *items);
        if (items == NULL) {
            ev->out_of_memory = true;
            return;
        }
        result->items = items;
        result->capacity = capacity;
    }
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    gt_semantic_violation *item = &result->items[result->count];
    item->rule_id = dup_string(ev, r->id);
    item->pointer = dup_string(ev, pointer);
    /* A rule's own reason names its primary failure; missing context keeps its code. */
    bool own_reason = r->reason != NULL && strcmp(reason, GT_REASON_MISSING_CONTEXT) != 0 &&
                      !(r->kind == RULE_RESOLVES && r->evidence);
    item->reason = dup_string(ev, own_reason ? r->reason : reason);
    item->message = dup_string(ev, message);
    item->escalate = escalate || r->escalate;
    if (!ev->out_of_memory)
        result->count++;
}

/* Compact JSON of a value for a message, cut at 80 bytes. */
static void shown(const gt_value *value, char *out, size_t out_len)
{
    if (value == NULL) {
        snprintf(out, out_len, "(absent)");
        return;
    }
    size_t len = 0;
    char *json = gt_value_to_json(value, &len);
    if (json == NULL) {
        snprintf(out, out_len, "(value)");
        return;
    }
    if (len > 80)
        snprintf(out, out_len, "%.77s...", json);
    else
        snprintf(out, out_len, "%s", json);
    free(json);
}

static bool condition_holds(const condition *cond, const gt_value *instance)
{
    const gt_value *value = gt_pointer_get(instance, cond->pointer);
    switch (cond->op) {
    case COND_EQUALS:
        return value != NULL && gt_value_equal(value, cond->operand);
    case COND_NOT_EQUALS:
        return value == NULL || !gt_value_equal(value, cond->operand);
    case COND_IN:
        for (size_t i = 0; value != NULL && i < cond->operand->u.arr.count; i++)
            if (gt_value_equal(value, cond->operand->u.arr.items[i]))
                return true;
        return false;
    case COND_PRESENT:
        return (value != NULL) == (cond->operand->type == GT_TRUE);
    }
    return false;
}

/* "is \"high\"" / "must be true" wording of a condition. */
static void describe_condition(const condition *cond, bool requirement, char *out, size_t out_len)
{
    char operand[96] = "";
    if (cond->op != COND_PRESENT)
        shown(cond->operand, operand, sizeof operand);
    const char *verb = requirement ? "must be" : "is";
    const char *verb_not = requirement ? "must not be" : "is not";
    switch (cond->op) {
    case COND_EQUALS:
        snprintf(out, out_len, "%s %s %s", cond->pointer, verb, operand);
        break;
    case COND_NOT_EQUALS:
        snprintf(out, out_len, "%s %s %s", cond->pointer, verb_not, operand);
        break;
    case COND_IN:
        snprintf(out, out_len, "%s %s one of %s", cond->pointer, verb, operand);
        break;
    case COND_PRESENT:
        snprintf(out, out_len, "%s %s %s", cond->pointer, cond->operand->type == GT_TRUE ? verb : verb_not,
                 "present");
        break;
    }
}

/* The trusted table at `pointer`, or NULL (after a violation) when missing. */
static const gt_value *trusted(eval *ev, const rule *r, const char *context_pointer, const char *at)
{
    const gt_value *value = gt_pointer_get(ev->context, context_pointer);
    if (value == NULL)
        violation(ev, r, at, GT_REASON_MISSING_CONTEXT, true, "trusted context %s is missing", context_pointer);
    return value;
}

/* Row of `table` whose id equals `id`: 0 = no such row, 1 = found and in
 * scope, 2 = found but outside the identity's scope. */
static int lookup(const rule *r, const gt_value *table, const gt_value *id, const gt_value *scope_value)
{
    bool out_of_scope = false;
    size_t count = table->type == GT_ARRAY ? table->u.arr.count : table->type == GT_OBJECT ? table->u.obj.count : 0;
    for (size_t i = 0; i < count; i++) {
        const gt_value *row = table->type == GT_ARRAY ? table->u.arr.items[i] : table->u.obj.members[i].value;
        const gt_value *row_id = row;
        if (table->type == GT_OBJECT && r->key == NULL) {
            /* An object table is keyed by id: {"invoice-483": {...}}. */
            const gt_member *m = &table->u.obj.members[i];
            if (id->type != GT_STRING || id->u.str.len != m->key_len || memcmp(id->u.str.chars, m->key, m->key_len))
                continue;
        } else {
            if (r->key != NULL)
                row_id = member(row, r->key);
            if (row_id == NULL || !gt_value_equal(row_id, id))
                continue;
        }
        if (r->scope_key == NULL)
            return 1;
        const gt_value *owner = member(row, r->scope_key);
        if (owner != NULL && scope_value != NULL && gt_value_equal(owner, scope_value))
            return 1;
        out_of_scope = true;
    }
    return out_of_scope ? 2 : 0;
}

static void check_membership(eval *ev, const rule *r)
{
    const gt_value *id = gt_pointer_get(ev->instance, r->pointer);
    if (id == NULL)
        return; /* nothing to check: requiring the field is the schema's job */
    const gt_value *table = trusted(ev, r, r->table, r->pointer);
    const gt_value *scope = NULL;
    if (table != NULL && r->scope_context != NULL)
        scope = trusted(ev, r, r->scope_context, r->pointer);
    if (table == NULL || (r->scope_context != NULL && scope == NULL))
        return;
    char text[96];
    shown(id, text, sizeof text);
    int found = lookup(r, table, id, scope);
    if (found == 1)
        return;
    if (r->scope_key != NULL)
        /* Not found and owned by someone else read the same: no existence oracle. */
        violation(ev, r, r->pointer, GT_REASON_NOT_VISIBLE, false, "%s at %s is not visible to this user", text,
                  r->pointer);
    else
        violation(ev, r, r->pointer, GT_REASON_NOT_IN_TABLE, false, "%s at %s is not in the trusted table %s", text,
                  r->pointer, r->table);
}

static void check_resolves(eval *ev, const rule *r)
{
    const gt_value *ids = gt_pointer_get(ev->instance, r->pointer);
    size_t count = ids == NULL ? 0 : ids->type == GT_ARRAY ? ids->u.arr.count : 1;
    const char *missing_reason = r->evidence ? GT_REASON_MISSING_EVIDENCE : GT_REASON_UNRESOLVED_REFERENCE;
    if ((long)count < r->min_items) {
        violation(ev, r, r->pointer, missing_reason, r->evidence, "at least %ld %s required at %s, got %zu",
                  r->min_items, r->evidence ? "evidence id is" : "id is", r->pointer, count);
        return;
    }
    if (ids == NULL)
        return;
    const gt_value *table = trusted(ev, r, r->table, r->pointer);
    const gt_value *scope = NULL;
    if (table != NULL && r->scope_context != NULL)
        scope = trusted(ev, r, r->scope_context, r->pointer);
    if (table == NULL || (r->scope_context != NULL && scope == NULL))
        return;
    for (size_t i = 0; i < count && !ev->out_of_memory; i++) {
        const gt_value *id = ids->type == GT_ARRAY ? ids->u.arr.items[i] : ids;
        if (lookup(r, table, id, scope) == 1)
            continue;
        char pointer[GT_SEMANTIC_MAX_POINTER + 24], text[96];
        if (ids->type == GT_ARRAY)
            snprintf(pointer, sizeof pointer, "%s/%zu", r->pointer, i);
        else
            snprintf(pointer, sizeof pointer, "%s", r->pointer);
        shown(id, text, sizeof text);
        if (r->evidence)
            violation(ev, r, pointer, missing_reason, true, "evidence %s at %s does not exist", text, pointer);
        else
            violation(ev, r, pointer, missing_reason, false, "%s at %s does not resolve in %s", text, pointer,
                      r->table);
    }
}

static const char *cmp_words(cmp_op op)
{
    static const char *const words[] = {"equal to", "different from", "less than", "at most", "greater than",
                                        "at least"};
    return words[op];
}

static void check_compare(eval *ev, const rule *r)
{
    const gt_value *left = gt_pointer_get(ev->instance, r->pointer);
    if (left == NULL)
        return;
    const gt_value *right = r->literal;
    char source[GT_SEMANTIC_MAX_POINTER + 32] = "";
    if (r->source == FROM_CONTEXT) {
        right = trusted(ev, r, r->operand_pointer, r->pointer);
        if (right == NULL)
            return;
        snprintf(source, sizeof source, " (trusted %s)", r->operand_pointer);
    } else if (r->source == FROM_OTHER) {
        right = gt_pointer_get(ev->instance, r->operand_pointer);
        if (right == NULL)
            return;
        snprintf(source, sizeof source, " (%s)", r->operand_pointer);
    }
    char left_text[96], right_text[96];
    shown(left, left_text, sizeof left_text);
    shown(right, right_text, sizeof right_text);
    bool holds;
    if (r->op == CMP_EQ || r->op == CMP_NE) {
        bool equal = gt_value_equal(left, right);
        holds = r->op == CMP_EQ ? equal : !equal;
    } else {
        int order;
        if (left->type == GT_NUMBER && right->type == GT_NUMBER)
            order = gt_number_compare(left, right);
        else if (left->type == GT_STRING && right->type == GT_STRING) {
            size_t shorter = left->u.str.len < right->u.str.len ? left->u.str.len : right->u.str.len;
            int bytes = memcmp(left->u.str.chars, right->u.str.chars, shorter);
            order = bytes != 0 ? (bytes < 0 ? -1 : 1)
                               : (left->u.str.len == right->u.str.len ? 0 : left->u.str.len < right->u.str.len ? -1 : 1);
        } else {
            violation(ev, r, r->pointer, GT_REASON_COMPARISON_FAILED, false,
                      "%s cannot be compared with %s%s: both must be numbers or both strings", left_text, right_text,
                      source);
            return;
        }
        holds = r->op == CMP_LT ? order < 0 : r->op == CMP_LE ? order <= 0 : r->op == CMP_GT ? order > 0 : order >= 0;
    }
    if (!holds)
        violation(ev, r, r->pointer, GT_REASON_COMPARISON_FAILED, false, "%s must be %s %s%s, got %s", r->pointer,
                  cmp_words(r->op), right_text, source, left_text);
}

static void check_rule(eval *ev, const rule *r)
{
    if (r->when.given && !condition_holds(&r->when, ev->instance))
        return;
    switch (r->kind) {
    case RULE_IMPLIES:
        if (condition_holds(&r->if_cond, ev->instance) && !condition_holds(&r->then_cond, ev->instance)) {
            char premise[256], conclusion[256], got[96];
            describe_condition(&r->if_cond, false, premise, sizeof premise);
            describe_condition(&r->then_cond, true, conclusion, sizeof conclusion);
            shown(gt_pointer_get(ev->instance, r->then_cond.pointer), got, sizeof got);
            violation(ev, r, r->then_cond.pointer, GT_REASON_IMPLICATION_VIOLATED, false, "when %s, %s (got %s)",
                      premise, conclusion, got);
        }
        break;
    case RULE_ABSENT:
        if (gt_pointer_get(ev->instance, r->pointer) != NULL)
            violation(ev, r, r->pointer, GT_REASON_FORBIDDEN_FIELD, false, "%s must not appear", r->pointer);
        break;
    case RULE_MEMBER_OF:
        check_membership(ev, r);
        break;
    case RULE_RESOLVES:
        check_resolves(ev, r);
        break;
    case RULE_COMPARE:
        check_compare(ev, r);
        break;
    }
}

int gt_semantic_check(const gt_semantic_rules *rules, const gt_value *instance, const gt_value *context,
                      gt_semantic_result *result)
{
    if (result->strings == NULL && (result->strings = gt_arena_new()) == NULL)
        return -1;
    gt_semantic_result_clear(result);
    eval ev = {instance, context, result, false};
    for (size_t i = 0; rules != NULL && i < rules->count && !ev.out_of_memory; i++)
        check_rule(&ev, &rules->rules[i]);
    if (ev.out_of_memory)
        return -1;
    return result->count > 0 ? 1 : 0;
}
