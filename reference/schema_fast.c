/* schema_fast.c — the valid-document fast pass of the structure gate.
 *
 * Most model outputs are valid, and a valid document needs no error, no
 * instance path, no annotation and no memo: only a yes. This pass walks the
 * same compiled graph (schema_impl.h) with none of that bookkeeping and
 * answers "valid" only when the full evaluation (schema_validate.c) would
 * answer valid with no limit hit; any other answer (not valid, or a keyword or
 * situation the pass leaves alone) sends gt_schema_validate to the full
 * evaluation, which then decides and writes every error exactly as before.
 * So it can make a verdict cheaper but never different.
 *
 * Why "valid here" implies "valid there with no limit hit":
 *   - keywords are evaluated with the same functions on the same values, in
 *     the same order, stopping at the first failure like the full pass's
 *     probe mode; a keyword it does not handle ends the pass ("cannot tell");
 *     only a leaf plan (sc_leaf_plan) checks its node's keywords in an order
 *     of its own, and those keywords look at the instance alone, never give
 *     up and charge nothing, so their order cannot change any answer;
 *   - it counts one evaluation per non-boolean node as the full pass does (and
 *     the same uniqueItems charges), without the memo that lets the full pass
 *     skip some: its count is never below the full pass's, and it gives up
 *     past the same budget;
 *   - it gives up past SC_FAST_MAX_DEPTH nested nodes (the full pass's stack
 *     budget is then far away), and is not used with a deadline, a custom
 *     stack budget, unevaluated*, dynamic references or loop-guarded nodes;
 *   - a regex error (a limit, the JIT stack) ends the pass.
 * When the answer is not "valid", the pass hands over the subschema
 * evaluations it found valid near the root, with their exact cost
 * (sc_known_valid; only for schemas without memoised nodes, where the two
 * passes count alike): the full evaluation skips them and counts the cost.
 * suite/test_fastpaths.c checks on generated documents that both agree. */
#include <stdlib.h>
#include <string.h>

#include "schema_impl.h"

/* Nested node evaluations the pass follows at most before it gives up. */
#define SC_FAST_MAX_DEPTH 256u

typedef struct fctx {
    size_t evaluations, max_evaluations;
    unsigned depth;
    bool unsure; /* the pass cannot tell: the full evaluation must decide */
    pcre2_match_data **md; /* the caller's, created on the first regex */
    sc_known_valid *known; /* or NULL */
} fctx;

/* What one node's `properties` saw of the instance, for its siblings:
 * `required` and `additionalProperties` then need no lookup of their own. */
typedef struct seen_props {
    bool known;        /* `properties` ran over an object of at most 64 members, every entry index below 64 */
    uint64_t members;  /* bit i: member i is declared */
    uint64_t entries;  /* bit k: properties entry k is present */
} seen_props;

static inline bool fast_node(fctx *f, const sc_node *n, const gt_value *inst);

/* Nesting (node evaluations) down to which a valid subschema evaluation is
 * remembered for the full evaluation (sc_known_valid); deeper ones are many
 * and small. */
#define SC_FAST_REMEMBER_DEPTH 3u

static bool give_up(fctx *f)
{
    f->unsure = true;
    return false;
}

/* multipleOf. A divisor written 10^-k (0.01) divides every literal of at most
 * 18 characters (so at most 18 digits) with no exponent and at most k digits
 * after the point: exactly what gt_number_is_multiple's 64-bit path answers
 * for them, without reading the divisor again. Everything else goes to
 * gt_number_is_multiple. (The literal is one the syntax gate accepted: an
 * integer literal has neither point nor exponent, and a literal whose last
 * non-digit is the point has no exponent.) */
static bool fast_multiple(const sc_kw *kw, const gt_value *inst)
{
    const char *text = inst->u.num.text;
    size_t len = inst->u.num.text_len;
    if (kw->u.pow10_fraction != 0 && text != NULL && len <= 18) {
        if (inst->flags & GT_NUM_INTEGER_LITERAL)
            return true;
        size_t start = len;
        while (start > 0 && text[start - 1] >= '0' && text[start - 1] <= '9')
            start--;
        if (start > 0 && text[start - 1] == '.' && len - start + 1 <= kw->u.pow10_fraction)
            return true;
    }
    return gt_number_is_multiple(inst, kw->value);
}

static inline __attribute__((always_inline)) bool fast_length(const sc_kw *kw, const gt_value *inst)
{
    size_t bytes = inst->u.str.len;
    bool is_max = kw->kind == KW_MAX_LENGTH;
    if (is_max ? bytes <= kw->u.count : bytes / 4 >= kw->u.count)
        return true;
    size_t length = sc_utf8_length(inst->u.str.chars, bytes);
    return is_max ? length <= kw->u.count : length >= kw->u.count;
}

/* 1 match, 0 no match; a regex error gives up (the full pass would stop). */
static int fast_regex(fctx *f, const sc_regex *re, const char *text, size_t len)
{
    if (*f->md == NULL && (*f->md = pcre2_match_data_create(1, NULL)) == NULL)
        return give_up(f), -1;
    int rc = sc_regex_search(re, text, len, *f->md, NULL);
    if (rc < 0)
        give_up(f);
    return rc;
}

static bool fast_count(const sc_kw *kw, size_t have)
{
    bool is_max = kw->kind == KW_MAX_ITEMS || kw->kind == KW_MAX_PROPERTIES;
    return is_max ? have <= kw->u.count : have >= kw->u.count;
}

static bool fast_unique(fctx *f, const gt_value *inst)
{
    size_t count = inst->u.arr.count;
    for (size_t i = 0; i < count; i++) {
        f->evaluations += (count - i) / 64; /* what the full pass charges */
        if (f->evaluations > f->max_evaluations)
            return give_up(f);
        for (size_t j = i + 1; j < count; j++)
            if (gt_value_equal(inst->u.arr.items[i], inst->u.arr.items[j]))
                return false;
    }
    return true;
}

static bool has_member(const gt_value *obj, const gt_value *name)
{
    return name->type == GT_STRING && gt_value_get(obj, name->u.str.chars, name->u.str.len) != NULL;
}

static bool fast_required(const gt_value *names, const gt_value *inst)
{
    for (size_t i = 0; i < names->u.arr.count; i++) {
        const gt_value *name = names->u.arr.items[i];
        if (name->type == GT_STRING && !has_member(inst, name))
            return false;
    }
    return true;
}

static bool fast_properties(fctx *f, const sc_kw *kw, const gt_value *inst, seen_props *seen)
{
    size_t count = inst->u.obj.count;
    seen_props local = {count <= 64 && kw->u.props.count <= 64, 0, 0}; /* bits for every member and entry */
    for (size_t i = 0; i < count; i++) {
        const gt_member *m = &inst->u.obj.members[i];
        const sc_prop *p = sc_find_prop_at(kw, i, m->key, m->key_len);
        if (p == NULL)
            continue;
        if (local.known) {
            local.members |= 1ull << i;
            local.entries |= 1ull << (p - kw->u.props.props);
        }
        if (!fast_node(f, p->schema, m->value))
            return false;
    }
    *seen = local;
    return true;
}

static bool fast_pattern_properties(fctx *f, const sc_kw *kw, const gt_value *inst)
{
    for (size_t i = 0; i < inst->u.obj.count; i++) {
        const gt_member *m = &inst->u.obj.members[i];
        for (size_t k = 0; k < kw->u.pats.count; k++) {
            int rc = fast_regex(f, &kw->u.pats.pats[k].re, m->key, m->key_len);
            if (rc < 0 || (rc == 1 && !fast_node(f, kw->u.pats.pats[k].schema, m->value)))
                return false;
        }
    }
    return true;
}

/* additionalProperties: members neither `properties` nor `patternProperties` declare. */
static bool fast_additional(fctx *f, const sc_node *n, const sc_kw *kw, const gt_value *inst, const seen_props *seen)
{
    const sc_node *sub = kw->u.sub.schema;
    if (sub->is_bool && sub->bool_value)
        return true;
    size_t count = inst->u.obj.count; /* at most 64 when seen->known */
    if (seen->known && seen->members == (count == 64 ? ~0ull : (1ull << count) - 1))
        return true; /* every member is a `properties` one: nothing is additional */
    for (size_t i = 0; i < count; i++) {
        const gt_member *m = &inst->u.obj.members[i];
        if (seen->known ? (seen->members >> i) & 1 : n->properties && sc_find_prop_at(n->properties, i, m->key, m->key_len))
            continue;
        bool declared = false;
        for (size_t k = 0; n->pattern_properties && k < n->pattern_properties->u.pats.count && !declared; k++) {
            int rc = fast_regex(f, &n->pattern_properties->u.pats.pats[k].re, m->key, m->key_len);
            if (rc < 0)
                return false;
            declared = rc == 1;
        }
        if (!declared && !fast_node(f, sub, m->value))
            return false;
    }
    return true;
}

static bool fast_dependencies(fctx *f, const sc_kw *kw, const gt_value *inst)
{
    for (size_t d = 0; d < kw->u.deps.count; d++) {
        const sc_dep *dep = &kw->u.deps.deps[d];
        if (gt_value_get(inst, dep->name, dep->len) == NULL)
            continue;
        if (dep->schema != NULL && !fast_node(f, dep->schema, inst))
            return false;
        if (dep->required != NULL && !fast_required(dep->required, inst))
            return false;
    }
    return true;
}

static bool fast_items(fctx *f, const sc_kw *kw, const gt_value *inst)
{
    for (size_t i = kw->u.sub.start; i < inst->u.arr.count; i++)
        if (!fast_node(f, kw->u.sub.schema, inst->u.arr.items[i]))
            return false;
    return true;
}

static bool fast_prefix_items(fctx *f, const sc_kw *kw, const gt_value *inst)
{
    for (size_t i = 0; i < inst->u.arr.count && i < kw->u.list.count; i++)
        if (!fast_node(f, kw->u.list.nodes[i], inst->u.arr.items[i]))
            return false;
    return true;
}

static bool fast_any_of(fctx *f, const sc_kw *kw, const gt_value *inst)
{
    for (size_t i = 0; i < kw->u.list.count && !f->unsure; i++)
        if (fast_node(f, kw->u.list.nodes[i], inst))
            return true;
    return false;
}

static bool fast_one_of(fctx *f, const sc_kw *kw, const gt_value *inst)
{
    size_t matched = 0;
    for (size_t i = 0; i < kw->u.list.count && matched < 2 && !f->unsure; i++)
        matched += fast_node(f, kw->u.list.nodes[i], inst);
    return matched == 1;
}

static bool fast_all_of(fctx *f, const sc_kw *kw, const gt_value *inst)
{
    for (size_t i = 0; i < kw->u.list.count; i++)
        if (!fast_node(f, kw->u.list.nodes[i], inst))
            return false;
    return true;
}

/* A keyword of sc_kind_is_leaf (`required` here without what `properties` saw).
 * Inlined into both callers: a call per keyword was a tenth of the pass. */
static inline __attribute__((always_inline)) bool fast_leaf_kw(fctx *f, const sc_node *n, const sc_kw *kw, const gt_value *inst, uint32_t bits)
{
    switch (kw->kind) {
    case KW_TYPE: return (bits & kw->u.types) != 0;
    case KW_ENUM: return sc_enum_has(kw->value, inst);
    case KW_CONST: return gt_value_equal(kw->value, inst);
    case KW_MULTIPLE_OF: return fast_multiple(kw, inst);
    case KW_MAXIMUM:
    case KW_MINIMUM:
    case KW_EXCLUSIVE_MAXIMUM:
    case KW_EXCLUSIVE_MINIMUM: return sc_bound_holds(n, kw, inst);
    case KW_MAX_LENGTH:
    case KW_MIN_LENGTH: return fast_length(kw, inst);
    case KW_PATTERN: return fast_regex(f, &kw->u.re, inst->u.str.chars, inst->u.str.len) == 1;
    case KW_FORMAT: return kw->u.format(inst->u.str.chars, inst->u.str.len) != 0;
    case KW_MAX_ITEMS:
    case KW_MIN_ITEMS: return fast_count(kw, inst->u.arr.count);
    case KW_UNIQUE_ITEMS: return fast_unique(f, inst);
    case KW_MAX_PROPERTIES:
    case KW_MIN_PROPERTIES: return fast_count(kw, inst->u.obj.count);
    case KW_REQUIRED: return fast_required(kw->value, inst);
    default: return give_up(f);
    }
}

static bool fast_kw(fctx *f, const sc_node *n, const sc_kw *kw, const gt_value *inst, uint32_t bits, seen_props *seen)
{
    switch (kw->kind) {
    case KW_REQUIRED:
        if (seen->known && n->required_in_props)
            return (seen->entries & n->required_props) == n->required_props;
        return fast_required(kw->value, inst);
    case KW_ITEMS: return fast_items(f, kw, inst);
    case KW_PREFIX_ITEMS: return fast_prefix_items(f, kw, inst);
    case KW_PROPERTIES: return fast_properties(f, kw, inst, seen);
    case KW_PATTERN_PROPERTIES: return fast_pattern_properties(f, kw, inst);
    case KW_ADDITIONAL_PROPERTIES: return fast_additional(f, n, kw, inst, seen);
    case KW_DEPENDENT_REQUIRED:
    case KW_DEPENDENT_SCHEMAS: return fast_dependencies(f, kw, inst);
    case KW_ALL_OF: return fast_all_of(f, kw, inst);
    case KW_ANY_OF: return fast_any_of(f, kw, inst);
    case KW_ONE_OF: return fast_one_of(f, kw, inst);
    case KW_NOT: return !fast_node(f, kw->u.sub.schema, inst);
    case KW_IF: {
        const sc_node *next = fast_node(f, kw->u.cond.if_node, inst) ? kw->u.cond.then_node : kw->u.cond.else_node;
        return next == NULL || fast_node(f, next, inst);
    }
    case KW_REF: return fast_node(f, kw->u.ref.target, inst);
    case KW_CONTAINS:
    case KW_PROPERTY_NAMES:
    case KW_DYNAMIC_REF:
    case KW_RECURSIVE_REF:
    case KW_UNEVALUATED_ITEMS:
    case KW_UNEVALUATED_PROPERTIES: return give_up(f);
    default: return fast_leaf_kw(f, n, kw, inst, bits);
    }
}

/* A node whose keywords all look at the instance alone: no recursion, no
 * depth to watch, nothing seen by `properties` to share. */
static __attribute__((noinline)) bool fast_leaf(fctx *f, const sc_node *n, const gt_value *inst)
{
    uint32_t bits = sc_instance_bits(inst, n->dialect);
    for (size_t i = 0; i < n->nkw; i++) {
        const sc_kw *kw = &n->kws[i];
        if ((kw->applies & bits) && !fast_leaf_kw(f, n, kw, inst, bits))
            return false;
    }
    return !f->unsure;
}

/* A leaf with a plan (sc_leaf_plan): the same keywords as fast_leaf checks,
 * with the same functions, gathered; none of them can give up. */
static inline __attribute__((always_inline)) bool fast_planned(const sc_node *n, const gt_value *inst)
{
    const sc_leaf_plan *plan = n->leaf_plan;
    uint32_t bits = sc_instance_bits(inst, n->dialect);
    if (!(bits & plan->types))
        return false;
    if (plan->enum_list != NULL && !sc_enum_has(plan->enum_list, inst))
        return false;
    if (plan->const_value != NULL && !gt_value_equal(plan->const_value, inst))
        return false;
    if (bits & SC_T_NUMBER) {
        for (unsigned k = 0; k < plan->numeric_count; k++) {
            const sc_kw *kw = plan->numeric[k];
            if (!(kw->kind == KW_MULTIPLE_OF ? fast_multiple(kw, inst) : sc_bound_holds(n, kw, inst)))
                return false;
        }
    } else if ((bits & SC_T_STRING) && plan->lengths) {
        size_t bytes = inst->u.str.len; /* code points lie between bytes/4 and bytes (fast_length) */
        if (bytes <= plan->max_length && bytes / 4 >= plan->min_length)
            return true;
        size_t length = sc_utf8_length(inst->u.str.chars, bytes);
        return length <= plan->max_length && length >= plan->min_length;
    }
    return true;
}

/* A node with subschema keywords. */
static __attribute__((noinline)) bool fast_inner(fctx *f, const sc_node *n, const gt_value *inst)
{
    if (n->loop_guard || f->depth >= SC_FAST_MAX_DEPTH)
        return give_up(f);
    size_t first = f->evaluations; /* this node's own evaluation is counted already */
    f->depth++;
    uint32_t bits = sc_instance_bits(inst, n->dialect);
    bool ok = true;
    seen_props seen = {false, 0, 0};
    for (size_t i = 0; i < n->nkw && ok; i++) {
        const sc_kw *kw = &n->kws[i];
        if (kw->applies & bits)
            ok = fast_kw(f, n, kw, inst, bits, &seen);
    }
    f->depth--;
    ok = ok && !f->unsure;
    if (ok && f->depth - 1u < SC_FAST_REMEMBER_DEPTH && f->known != NULL && f->known->count < SC_KNOWN_VALID_MAX) {
        sc_known_valid *known = f->known; /* below the root (depth 0), near it */
        known->items[known->count].node = n, known->items[known->count].inst = inst;
        known->items[known->count++].units = f->evaluations - first + 1;
    }
    return ok;
}

/* Any node: inlined into every caller, so that a leaf costs one call. */
static inline __attribute__((always_inline)) bool fast_node(fctx *f, const sc_node *n, const gt_value *inst)
{
    for (;;) { /* a node that is only a $ref: its target, one evaluation each as in the full pass */
        if (n->is_bool)
            return n->bool_value;
        if (++f->evaluations > f->max_evaluations)
            return give_up(f);
        if (n->fast_kind != SC_FAST_REF) /* never a loop-guarded node (SC_FAST_INNER gives up on those) */
            break;
        n = n->fast_ref;
    }
    switch (n->fast_kind) {
    case SC_FAST_TYPES: /* the commonest leaf ({"type": "null"}, ...), without a call */
        return (sc_instance_bits(inst, n->dialect) & n->fast_types) != 0;
    case SC_FAST_PLAN: return fast_planned(n, inst);
    case SC_FAST_LEAF: return fast_leaf(f, n, inst);
    default: return fast_inner(f, n, inst);
    }
}

/* k + 1 when the number is written "1" or "0.0...01" (10^-k), else 0. */
static unsigned pow10_fraction(const gt_value *divisor)
{
    const char *text = divisor->u.num.text;
    size_t len = divisor->u.num.text_len;
    if (text == NULL || len == 0 || len > 19 || text[len - 1] != '1')
        return 0;
    if (len == 1)
        return 1;
    if (len < 3 || text[0] != '0' || text[1] != '.')
        return 0;
    for (size_t i = 2; i + 1 < len; i++)
        if (text[i] != '0')
            return 0;
    return (unsigned)(len - 2) + 1;
}

/* The plan of a leaf node, or NULL when one of its keywords is not for a
 * plan (or appears twice, or applies to other types than usual). */
static const sc_leaf_plan *leaf_plan_of(gt_schema *s, const sc_node *n)
{
    sc_leaf_plan plan = {SC_T_ANY, NULL, NULL, false, 0, (size_t)-1, 0, {NULL}};
    const uint32_t numbers = SC_T_INTEGER | SC_T_NUMBER;
    uint32_t seen = 0; /* bit per kind */
    for (size_t i = 0; i < n->nkw; i++) {
        const sc_kw *kw = &n->kws[i];
        if (kw->kind >= 32 || (seen >> kw->kind) & 1)
            return NULL;
        seen |= 1u << kw->kind;
        switch (kw->kind) {
        case KW_TYPE:
        case KW_ENUM:
        case KW_CONST:
            if (kw->applies != SC_T_ANY)
                return NULL;
            if (kw->kind == KW_TYPE)
                plan.types = kw->u.types;
            else if (kw->kind == KW_ENUM)
                plan.enum_list = kw->value;
            else
                plan.const_value = kw->value;
            break;
        case KW_MULTIPLE_OF:
        case KW_MAXIMUM:
        case KW_MINIMUM:
        case KW_EXCLUSIVE_MAXIMUM:
        case KW_EXCLUSIVE_MINIMUM:
            if (kw->applies != numbers || plan.numeric_count == SC_LEAF_PLAN_NUMERIC)
                return NULL;
            plan.numeric[plan.numeric_count++] = kw;
            break;
        case KW_MAX_LENGTH:
        case KW_MIN_LENGTH:
            if (kw->applies != SC_T_STRING)
                return NULL;
            plan.lengths = true;
            if (kw->kind == KW_MAX_LENGTH)
                plan.max_length = kw->u.count;
            else
                plan.min_length = kw->u.count;
            break;
        default: return NULL;
        }
    }
    sc_leaf_plan *kept = sc_alloc(s, sizeof *kept);
    if (kept != NULL)
        *kept = plan;
    return kept; /* out of memory: no plan, the keyword loop checks the node */
}

void sc_fast_prepare(gt_schema *s, sc_node *n)
{
    const sc_kw *required = NULL;
    n->fast_leaf = true;
    for (size_t i = 0; i < n->nkw; i++) {
        sc_kw *kw = &n->kws[i];
        if (kw->kind == KW_REQUIRED)
            required = kw;
        if (kw->kind == KW_MULTIPLE_OF)
            kw->u.pow10_fraction = pow10_fraction(kw->value);
        n->fast_leaf &= sc_kind_is_leaf(kw->kind);
    }
    n->fast_ref = n->nkw == 1 && n->kws[0].kind == KW_REF ? n->kws[0].u.ref.target : NULL;
    n->fast_types = n->nkw == 1 && n->kws[0].kind == KW_TYPE ? n->kws[0].u.types : 0;
    n->leaf_plan = n->fast_leaf && n->fast_types == 0 && n->nkw > 0 ? leaf_plan_of(s, n) : NULL;
    n->fast_kind = n->loop_guard        ? SC_FAST_INNER
                   : n->fast_ref != NULL  ? SC_FAST_REF
                   : n->fast_types != 0   ? SC_FAST_TYPES
                   : n->leaf_plan != NULL ? SC_FAST_PLAN
                   : n->fast_leaf         ? SC_FAST_LEAF
                                          : SC_FAST_INNER;
    n->required_in_props = false;
    if (required == NULL || n->properties == NULL)
        return;
    uint64_t bits = 0;
    const gt_value *names = required->value;
    for (size_t i = 0; i < names->u.arr.count; i++) {
        const gt_value *name = names->u.arr.items[i];
        if (name->type != GT_STRING)
            continue; /* the full pass skips these too */
        const sc_prop *p = sc_find_prop(n->properties, name->u.str.chars, name->u.str.len);
        size_t entry = p != NULL ? (size_t)(p - n->properties->u.props.props) : 64;
        if (entry >= 64)
            return;
        bits |= 1ull << entry;
    }
    n->required_props = bits;
    n->required_in_props = true;
}

bool sc_fast_usable(const gt_schema *schema)
{
    return !schema->uses_unevaluated && !schema->uses_dynamic && schema->options.max_stack == 0;
}

int sc_fast_verdict(const gt_schema *schema, const gt_value *instance, pcre2_match_data **md, sc_known_valid *known)
{
    fctx f = {0, schema->options.max_evaluations ? schema->options.max_evaluations : GT_SCHEMA_MAX_EVALUATIONS, 0,
              false, md, schema->has_memo ? NULL : known};
    bool valid = fast_node(&f, schema->root, instance);
    return f.unsure ? -1 : valid ? 1 : 0;
}

bool sc_fast_valid(const gt_schema *schema, const gt_value *instance, pcre2_match_data **md, sc_known_valid *known)
{
    return sc_fast_verdict(schema, instance, md, known) == 1;
}
