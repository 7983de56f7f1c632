/* schema_keywords.c — compile one schema object into its ordered keyword array.
 *
 * Which keywords exist depends on the node's dialect (draft 4 ... 2020-12) and
 * on the vocabularies its metaschema enables. Sibling-dependent keywords
 * (additionalItems, then/else, minContains, draft 4 exclusiveMaximum) are
 * folded into the keyword that owns them. unevaluated* are moved last: they
 * read the annotations of every other keyword of the node. Not for:
 * evaluation (schema_validate.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_impl.h"

typedef struct kw_ctx {
    gt_schema *s;
    sc_node *n;
    const gt_member *m;
    const char *location; /* of the keyword */
} kw_ctx;

/* Dialect range: `newest` .. `oldest` in gt_schema_dialect order (newest = 0). */
typedef struct kw_def {
    const char *name;
    sc_kind kind;
    gt_schema_dialect newest, oldest;
    uint32_t vocab; /* 0 = core, always on */
    uint32_t applies;
} kw_def;

#define NUM (SC_T_INTEGER | SC_T_NUMBER)
#define D20 GT_SCHEMA_DRAFT2020_12
#define D19 GT_SCHEMA_DRAFT2019_09
#define D7 GT_SCHEMA_DRAFT7
#define D6 GT_SCHEMA_DRAFT6
#define D4 GT_SCHEMA_DRAFT4
#define VAL SC_VOC_VALIDATION
#define APP SC_VOC_APPLICATOR

static const kw_def defs[] = {
    {"type", KW_TYPE, D20, D4, VAL, SC_T_ANY},
    {"enum", KW_ENUM, D20, D4, VAL, SC_T_ANY},
    {"const", KW_CONST, D20, D6, VAL, SC_T_ANY},
    {"multipleOf", KW_MULTIPLE_OF, D20, D4, VAL, NUM},
    {"maximum", KW_MAXIMUM, D20, D4, VAL, NUM},
    {"exclusiveMaximum", KW_EXCLUSIVE_MAXIMUM, D20, D6, VAL, NUM},
    {"minimum", KW_MINIMUM, D20, D4, VAL, NUM},
    {"exclusiveMinimum", KW_EXCLUSIVE_MINIMUM, D20, D6, VAL, NUM},
    {"maxLength", KW_MAX_LENGTH, D20, D4, VAL, SC_T_STRING},
    {"minLength", KW_MIN_LENGTH, D20, D4, VAL, SC_T_STRING},
    {"pattern", KW_PATTERN, D20, D4, VAL, SC_T_STRING},
    {"format", KW_FORMAT, D20, D4, 0, SC_T_STRING},
    {"items", KW_ITEMS, D20, D4, APP, SC_T_ARRAY},
    {"prefixItems", KW_PREFIX_ITEMS, D20, D20, APP, SC_T_ARRAY},
    {"additionalItems", KW_ITEMS, D19, D4, APP, SC_T_ARRAY},
    {"maxItems", KW_MAX_ITEMS, D20, D4, VAL, SC_T_ARRAY},
    {"minItems", KW_MIN_ITEMS, D20, D4, VAL, SC_T_ARRAY},
    {"uniqueItems", KW_UNIQUE_ITEMS, D20, D4, VAL, SC_T_ARRAY},
    {"contains", KW_CONTAINS, D20, D6, APP, SC_T_ARRAY},
    {"maxProperties", KW_MAX_PROPERTIES, D20, D4, VAL, SC_T_OBJECT},
    {"minProperties", KW_MIN_PROPERTIES, D20, D4, VAL, SC_T_OBJECT},
    {"required", KW_REQUIRED, D20, D4, VAL, SC_T_OBJECT},
    {"properties", KW_PROPERTIES, D20, D4, APP, SC_T_OBJECT},
    {"patternProperties", KW_PATTERN_PROPERTIES, D20, D4, APP, SC_T_OBJECT},
    {"additionalProperties", KW_ADDITIONAL_PROPERTIES, D20, D4, APP, SC_T_OBJECT},
    {"dependentRequired", KW_DEPENDENT_REQUIRED, D20, D19, VAL, SC_T_OBJECT},
    {"dependentSchemas", KW_DEPENDENT_SCHEMAS, D20, D19, APP, SC_T_OBJECT},
    {"dependencies", KW_DEPENDENT_SCHEMAS, D20, D4, APP, SC_T_OBJECT},
    {"propertyNames", KW_PROPERTY_NAMES, D20, D6, APP, SC_T_OBJECT},
    {"allOf", KW_ALL_OF, D20, D4, APP, SC_T_ANY},
    {"anyOf", KW_ANY_OF, D20, D4, APP, SC_T_ANY},
    {"oneOf", KW_ONE_OF, D20, D4, APP, SC_T_ANY},
    {"not", KW_NOT, D20, D4, APP, SC_T_ANY},
    {"if", KW_IF, D20, D7, APP, SC_T_ANY},
    {"$ref", KW_REF, D20, D4, 0, SC_T_ANY},
    {"$dynamicRef", KW_DYNAMIC_REF, D20, D20, 0, SC_T_ANY},
    {"$recursiveRef", KW_RECURSIVE_REF, D19, D19, 0, SC_T_ANY},
    {"unevaluatedItems", KW_UNEVALUATED_ITEMS, D20, D19, SC_VOC_UNEVALUATED, SC_T_ARRAY},
    {"unevaluatedProperties", KW_UNEVALUATED_PROPERTIES, D20, D19, SC_VOC_UNEVALUATED, SC_T_OBJECT},
};

static uint32_t node_vocab(const sc_node *n) { return n->resource ? n->resource->vocab : SC_VOC_ALL; }

static const gt_value *sibling(const sc_node *n, const char *name)
{
    return gt_value_get(n->src, name, strlen(name));
}

static const char *child_location(kw_ctx *k, const char *token, size_t len)
{
    return sc_location_child(k->s->arena, k->location, token, len);
}

static sc_node *sub_node(kw_ctx *k, const gt_value *v, const char *location)
{
    return sc_child_node(k->s, k->n, v, location ? location : k->location);
}

static size_t count_of(const gt_value *v)
{
    double d = v->type == GT_NUMBER ? v->u.num.number : 0;
    if (d <= 0)
        return 0;
    return d >= 1e18 ? (size_t)-1 : (size_t)d;
}

static uint32_t type_bit(const gt_value *name)
{
    static const struct {
        const char *name;
        uint32_t bit;
    } types[] = {{"null", SC_T_NULL},     {"boolean", SC_T_BOOLEAN}, {"integer", SC_T_INTEGER}, {"number", SC_T_NUMBER},
                 {"string", SC_T_STRING}, {"array", SC_T_ARRAY},     {"object", SC_T_OBJECT}};
    if (name->type != GT_STRING)
        return 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].name, name->u.str.chars) == 0)
            return types[i].bit;
    return 0;
}

static int compile_type(kw_ctx *k, sc_kw *kw)
{
    const gt_value *v = k->m->value;
    uint32_t mask = 0;
    if (v->type == GT_ARRAY)
        for (size_t i = 0; i < v->u.arr.count; i++)
            mask |= type_bit(v->u.arr.items[i]);
    else
        mask = type_bit(v);
    kw->u.types = mask;
    k->n->type_mask = mask;
    return 0;
}

static int compile_list(kw_ctx *k, sc_kw *kw)
{
    const gt_value *v = k->m->value;
    if (v->type != GT_ARRAY)
        return 1;
    kw->u.list.count = v->u.arr.count;
    kw->u.list.nodes = sc_alloc(k->s, v->u.arr.count * sizeof(sc_node *));
    if (kw->u.list.nodes == NULL)
        return -1;
    for (size_t i = 0; i < v->u.arr.count; i++) {
        const char *loc = sc_location_index(k->s->arena, k->location, i);
        kw->u.list.nodes[i] = sub_node(k, v->u.arr.items[i], loc);
        if (kw->u.list.nodes[i] == NULL)
            return -1;
    }
    return 0;
}

static int prop_compare(const void *a, const void *b)
{
    const sc_prop *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->name, y->name, x->len);
}

static int props_table_broken(kw_ctx *k, size_t slots)
{
    sc_fail(k->s, GT_SCHEMA_PROBLEM_INTERNAL, k->location, "internal: %zu properties do not fit a table of %zu slots",
            k->m->value->u.obj.count, slots);
    return -1;
}

static int compile_properties(kw_ctx *k, sc_kw *kw)
{
    const gt_value *v = k->m->value;
    if (v->type != GT_OBJECT)
        return 1;
    kw->u.props.count = v->u.obj.count;
    kw->u.props.props = sc_alloc(k->s, v->u.obj.count * sizeof(sc_prop));
    if (kw->u.props.props == NULL)
        return -1;
    for (size_t i = 0; i < v->u.obj.count; i++) {
        const gt_member *p = &v->u.obj.members[i];
        sc_prop *prop = &kw->u.props.props[i];
        prop->name = p->key, prop->len = p->key_len;
        prop->schema = sub_node(k, p->value, child_location(k, p->key, p->key_len));
        if (prop->schema == NULL)
            return -1;
    }
    qsort(kw->u.props.props, kw->u.props.count, sizeof(sc_prop), prop_compare);
    size_t slots = 8;
    while (slots < 2 * kw->u.props.count)
        slots *= 2;
    kw->u.props.slots = sc_alloc(k->s, slots * sizeof(uint32_t));
    if (kw->u.props.slots == NULL)
        return -1;
    kw->u.props.mask = (uint32_t)(slots - 1);
    /* At most half full, so every probe sequence meets an empty slot; checked,
     * and the probes bounded, so that a broken table is a compile error. */
    if (slots < 2 * kw->u.props.count)
        return props_table_broken(k, slots);
    for (size_t i = 0; i < kw->u.props.count; i++) {
        const sc_prop *prop = &kw->u.props.props[i];
        uint32_t at = sc_prop_hash(prop->name, prop->len) & kw->u.props.mask, probes = 0;
        while (kw->u.props.slots[at] != 0) {
            if (++probes > kw->u.props.mask)
                return props_table_broken(k, slots);
            at = (at + 1) & kw->u.props.mask;
        }
        kw->u.props.slots[at] = (uint32_t)i + 1;
    }
    kw->u.props.order = sc_alloc(k->s, (v->u.obj.count ? v->u.obj.count : 1) * sizeof(uint32_t));
    if (kw->u.props.order == NULL)
        return -1;
    for (size_t i = 0; i < kw->u.props.count; i++) { /* every name was just entered: p is never NULL */
        const sc_prop *p = sc_find_prop(kw, v->u.obj.members[i].key, v->u.obj.members[i].key_len);
        kw->u.props.order[i] = p != NULL ? (uint32_t)(p - kw->u.props.props) : 0;
    }
    return 0;
}

static int compile_regex(kw_ctx *k, sc_regex *re, const gt_value *pattern, const char *location)
{
    char why[160];
    if (pattern->type != GT_STRING)
        return 1;
    if (sc_regex_compile(re, pattern->u.str.chars, pattern->u.str.len, why, sizeof why) != 0) {
        sc_fail(k->s, GT_SCHEMA_PROBLEM_BAD_PATTERN, location, "invalid pattern /%.120s/: %s", pattern->u.str.chars, why);
        return -1;
    }
    re->source = pattern->u.str.chars;
    return 0;
}

static int compile_pattern_properties(kw_ctx *k, sc_kw *kw)
{
    const gt_value *v = k->m->value;
    if (v->type != GT_OBJECT)
        return 1;
    kw->u.pats.pats = sc_alloc(k->s, v->u.obj.count * sizeof(sc_pattern_prop));
    if (kw->u.pats.pats == NULL)
        return -1;
    for (size_t i = 0; i < v->u.obj.count; i++) {
        const gt_member *p = &v->u.obj.members[i];
        const char *loc = child_location(k, p->key, p->key_len);
        sc_pattern_prop *pp = &kw->u.pats.pats[i];
        gt_value key = {.type = GT_STRING, .u.str = {p->key, p->key_len}};
        if (compile_regex(k, &pp->re, &key, loc) != 0)
            return -1;
        kw->u.pats.count = i + 1; /* so that gt_schema_free frees what exists */
        pp->schema = sub_node(k, p->value, loc);
        if (pp->schema == NULL)
            return -1;
    }
    return 0;
}

/* dependentRequired, dependentSchemas and draft 4-7 dependencies (mixed). */
static int compile_dependencies(kw_ctx *k, sc_kw *kw)
{
    const gt_value *v = k->m->value;
    if (v->type != GT_OBJECT)
        return 1;
    kw->u.deps.count = v->u.obj.count;
    kw->u.deps.deps = sc_alloc(k->s, v->u.obj.count * sizeof(sc_dep));
    if (kw->u.deps.deps == NULL)
        return -1;
    for (size_t i = 0; i < v->u.obj.count; i++) {
        const gt_member *p = &v->u.obj.members[i];
        sc_dep *dep = &kw->u.deps.deps[i];
        dep->name = p->key, dep->len = p->key_len;
        if (p->value->type == GT_ARRAY)
            dep->required = p->value;
        else if (kw->kind == KW_DEPENDENT_SCHEMAS) {
            dep->schema = sub_node(k, p->value, child_location(k, p->key, p->key_len));
            if (dep->schema == NULL)
                return -1;
        }
    }
    return 0;
}

static int compile_items(kw_ctx *k, sc_kw *kw)
{
    const gt_value *v = k->m->value;
    bool additional = strcmp(k->m->key, "additionalItems") == 0;
    if (additional) {
        const gt_value *items = sibling(k->n, "items");
        if (items == NULL || items->type != GT_ARRAY)
            return 1; /* additionalItems only matters after array-form items */
        kw->u.sub.start = items->u.arr.count;
    } else if (v->type == GT_ARRAY) {
        if (k->n->dialect == GT_SCHEMA_DRAFT2020_12)
            return 1;
        kw->kind = KW_PREFIX_ITEMS;
        return compile_list(k, kw);
    } else if (k->n->dialect == GT_SCHEMA_DRAFT2020_12) {
        const gt_value *prefix = sibling(k->n, "prefixItems");
        kw->u.sub.start = prefix && prefix->type == GT_ARRAY ? prefix->u.arr.count : 0;
    }
    kw->u.sub.schema = sub_node(k, v, NULL);
    return kw->u.sub.schema ? 0 : -1;
}

static int compile_single(kw_ctx *k, sc_kw *kw)
{
    kw->u.sub.schema = sub_node(k, k->m->value, NULL);
    return kw->u.sub.schema ? 0 : -1;
}

static int compile_contains(kw_ctx *k, sc_kw *kw)
{
    if (k->n->dialect <= GT_SCHEMA_DRAFT2019_09) {
        const gt_value *min = sibling(k->n, "minContains"), *max = sibling(k->n, "maxContains");
        k->n->min_contains = min && min->type == GT_NUMBER ? min : NULL;
        k->n->max_contains = max && max->type == GT_NUMBER ? max : NULL;
    }
    return compile_single(k, kw);
}

static int compile_if(kw_ctx *k, sc_kw *kw)
{
    const gt_value *then_v = sibling(k->n, "then"), *else_v = sibling(k->n, "else");
    kw->u.cond.if_node = sub_node(k, k->m->value, NULL);
    if (then_v != NULL)
        kw->u.cond.then_node = sc_child_node(k->s, k->n, then_v, sc_location_child(k->s->arena, k->n->location, "then", 4));
    if (else_v != NULL)
        kw->u.cond.else_node = sc_child_node(k->s, k->n, else_v, sc_location_child(k->s->arena, k->n->location, "else", 4));
    return k->s->failed ? -1 : 0;
}

static int compile_ref(kw_ctx *k, sc_kw *kw)
{
    const gt_value *v = k->m->value;
    if (v->type != GT_STRING)
        return 1;
    const gt_value *target_value = NULL;
    const char *ref = kw->kind == KW_RECURSIVE_REF ? "#" : v->u.str.chars;
    kw->u.ref.target = sc_resolve_ref(k->s, k->n, ref, k->location, &target_value);
    if (kw->u.ref.target == NULL)
        return -1;
    if (kw->kind == KW_DYNAMIC_REF) {
        const char *hash = strchr(ref, '#');
        const char *name = hash ? hash + 1 : NULL;
        const sc_anchor *a = NULL;
        if (name && name[0] != '\0' && name[0] != '/' && kw->u.ref.target->resource != NULL)
            a = sc_anchor_find(kw->u.ref.target->resource, name);
        if (a != NULL && a->dynamic && a->value == target_value)
            kw->u.ref.dynamic_name = sc_strdup(k->s, name);
        else
            kw->kind = KW_REF;
        k->s->uses_dynamic |= kw->kind == KW_DYNAMIC_REF;
    } else if (kw->kind == KW_RECURSIVE_REF)
        k->s->uses_dynamic = true;
    return 0;
}

static int compile_format(kw_ctx *k, sc_kw *kw)
{
    const gt_value *v = k->m->value;
    bool assert = k->s->options.assert_formats || (node_vocab(k->n) & SC_VOC_FORMAT_ASSERT);
    if (!assert || v->type != GT_STRING)
        return 1;
    kw->u.format = sc_format_lookup(v->u.str.chars);
    return kw->u.format ? 0 : 1;
}

static int compile_bound(kw_ctx *k, sc_kw *kw)
{
    const gt_value *v = k->m->value;
    if (v->type != GT_NUMBER)
        return 1;
    sc_node *n = k->n;
    switch (kw->kind) {
    case KW_MAXIMUM: n->maximum = v; break;
    case KW_MINIMUM: n->minimum = v; break;
    case KW_EXCLUSIVE_MAXIMUM: n->exclusive_maximum = v; break;
    case KW_EXCLUSIVE_MINIMUM: n->exclusive_minimum = v; break;
    default: break;
    }
    if (n->dialect == GT_SCHEMA_DRAFT4) {
        const gt_value *flag = sibling(n, kw->kind == KW_MAXIMUM ? "exclusiveMaximum" : "exclusiveMinimum");
        bool exclusive = flag != NULL && flag->type == GT_TRUE;
        if (kw->kind == KW_MAXIMUM)
            n->exclusive_max_flag = exclusive;
        else
            n->exclusive_min_flag = exclusive;
    }
    return 0;
}

/* Compile keyword `def` from member `m`: 0 added, 1 ignored, -1 failed. */
static int compile_one(kw_ctx *k, const kw_def *def, sc_kw *kw)
{
    const gt_value *v = k->m->value;
    kw->kind = def->kind;
    kw->applies = def->applies;
    kw->name = k->m->key;
    kw->location = k->location;
    kw->value = v;
    switch (def->kind) {
    case KW_TYPE: return compile_type(k, kw);
    case KW_ENUM: return v->type == GT_ARRAY ? 0 : 1;
    case KW_CONST: return 0;
    case KW_MULTIPLE_OF: return v->type == GT_NUMBER && v->u.num.number > 0 ? 0 : 1;
    case KW_MAXIMUM:
    case KW_MINIMUM:
    case KW_EXCLUSIVE_MAXIMUM:
    case KW_EXCLUSIVE_MINIMUM: return compile_bound(k, kw);
    case KW_MAX_LENGTH:
    case KW_MIN_LENGTH:
        if (def->kind == KW_MAX_LENGTH)
            k->n->max_length = v;
        else
            k->n->min_length = v;
        /* fall through */
    case KW_MAX_ITEMS:
    case KW_MIN_ITEMS:
    case KW_MAX_PROPERTIES:
    case KW_MIN_PROPERTIES:
        if (v->type != GT_NUMBER)
            return 1;
        kw->u.count = count_of(v);
        return 0;
    case KW_UNIQUE_ITEMS: return v->type == GT_TRUE ? 0 : 1;
    case KW_PATTERN: return compile_regex(k, &kw->u.re, v, k->location);
    case KW_FORMAT: return compile_format(k, kw);
    case KW_ITEMS: return compile_items(k, kw);
    case KW_PREFIX_ITEMS:
    case KW_ALL_OF:
    case KW_ANY_OF:
    case KW_ONE_OF: return compile_list(k, kw);
    case KW_CONTAINS: return compile_contains(k, kw);
    case KW_REQUIRED: return v->type == GT_ARRAY ? 0 : 1;
    case KW_PROPERTIES: return compile_properties(k, kw);
    case KW_PATTERN_PROPERTIES: return compile_pattern_properties(k, kw);
    case KW_DEPENDENT_REQUIRED:
    case KW_DEPENDENT_SCHEMAS: return compile_dependencies(k, kw);
    case KW_ADDITIONAL_PROPERTIES:
    case KW_PROPERTY_NAMES:
    case KW_NOT: return compile_single(k, kw);
    case KW_IF: return compile_if(k, kw);
    case KW_REF:
    case KW_DYNAMIC_REF:
    case KW_RECURSIVE_REF: return compile_ref(k, kw);
    case KW_UNEVALUATED_ITEMS:
    case KW_UNEVALUATED_PROPERTIES: k->s->uses_unevaluated = true; return compile_single(k, kw);
    }
    return 1;
}

static const kw_def *find_def(const char *name, gt_schema_dialect dialect, uint32_t vocab)
{
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
        const kw_def *d = &defs[i];
        if (strcmp(d->name, name) != 0)
            continue;
        if (dialect < d->newest || dialect > d->oldest)
            continue;
        if (d->vocab != 0 && !(vocab & d->vocab))
            continue;
        return d;
    }
    return NULL;
}

void sc_compile_keywords(gt_schema *s, sc_node *n)
{
    const gt_value *obj = n->src;
    n->kws = sc_alloc(s, (obj->u.obj.count + 1) * sizeof(sc_kw));
    if (n->kws == NULL)
        return;
    bool ref_only = n->dialect >= GT_SCHEMA_DRAFT7 && gt_value_get(obj, "$ref", 4) != NULL;
    uint32_t vocab = node_vocab(n);
    size_t unevaluated = 0;
    for (size_t i = 0; i < obj->u.obj.count && !s->failed; i++) {
        const gt_member *m = &obj->u.obj.members[i];
        if (ref_only && strcmp(m->key, "$ref") != 0)
            continue;
        const kw_def *def = find_def(m->key, n->dialect, vocab);
        if (def == NULL)
            continue;
        kw_ctx k = {s, n, m, sc_location_child(s->arena, n->location, m->key, m->key_len)};
        if (k.location == NULL)
            return;
        sc_kw *kw = &n->kws[n->nkw];
        memset(kw, 0, sizeof *kw);
        int rc = compile_one(&k, def, kw);
        if (rc < 0) {
            n->nkw++; /* keep it so that gt_schema_free frees its regexes */
            /* every failing keyword has recorded why; if not, never go on with it */
            sc_fail(s, GT_SCHEMA_PROBLEM_INTERNAL, k.location, "internal: keyword \"%s\" failed to compile", m->key);
            return;
        }
        if (rc == 0) {
            unevaluated += kw->kind == KW_UNEVALUATED_ITEMS || kw->kind == KW_UNEVALUATED_PROPERTIES;
            n->nkw++;
        }
    }
    if (unevaluated > 0) {
        /* stable move of unevaluated* to the end */
        sc_kw moved[2];
        size_t w = 0, u = 0;
        for (size_t i = 0; i < n->nkw; i++) {
            if ((n->kws[i].kind == KW_UNEVALUATED_ITEMS || n->kws[i].kind == KW_UNEVALUATED_PROPERTIES) && u < 2)
                moved[u++] = n->kws[i];
            else
                n->kws[w++] = n->kws[i];
        }
        for (size_t i = 0; i < u; i++)
            n->kws[w++] = moved[i];
    }
    sc_prepare_messages(s, n);
    /* siblings that other keywords consult */
    n->properties = n->pattern_properties = NULL;
    for (size_t i = 0; i < n->nkw; i++) {
        if (n->kws[i].kind == KW_PROPERTIES)
            n->properties = &n->kws[i];
        else if (n->kws[i].kind == KW_PATTERN_PROPERTIES)
            n->pattern_properties = &n->kws[i];
    }
}
