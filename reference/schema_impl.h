/* schema_impl.h — private structures of the structure gate (reference/schema*.c).
 *
 * A compiled schema is a graph of sc_node (one per subschema) holding an
 * ordered array of sc_kw (one per keyword, schema order). References are
 * resolved to node pointers at compile time; nothing here is mutated after
 * gt_schema_compile returns. Not a public interface. */
#ifndef GT_SCHEMA_IMPL_H
#define GT_SCHEMA_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "gauntlet/arena.h"
#include "gauntlet/schema.h"
#include "gauntlet/value.h"
#include "swar.h"

/* Instance type bits ("type" keyword, keyword applicability). */
enum {
    SC_T_NULL = 1u << 0,
    SC_T_BOOLEAN = 1u << 1,
    SC_T_INTEGER = 1u << 2,
    SC_T_NUMBER = 1u << 3, /* "number" in a type list admits integers too */
    SC_T_STRING = 1u << 4,
    SC_T_ARRAY = 1u << 5,
    SC_T_OBJECT = 1u << 6,
    SC_T_ANY = 0x7f
};

/* Vocabularies a document's metaschema enables (2019-09+ `$vocabulary`). */
enum {
    SC_VOC_APPLICATOR = 1u << 0,
    SC_VOC_VALIDATION = 1u << 1,
    SC_VOC_UNEVALUATED = 1u << 2,
    SC_VOC_FORMAT_ASSERT = 1u << 3,
    SC_VOC_ALL = 0x7
};

typedef enum sc_kind {
    KW_TYPE,
    KW_ENUM,
    KW_CONST,
    KW_MULTIPLE_OF,
    KW_MAXIMUM,
    KW_EXCLUSIVE_MAXIMUM,
    KW_MINIMUM,
    KW_EXCLUSIVE_MINIMUM,
    KW_MAX_LENGTH,
    KW_MIN_LENGTH,
    KW_PATTERN,
    KW_FORMAT,
    KW_ITEMS,            /* one schema for every item from `start` on */
    KW_PREFIX_ITEMS,     /* prefixItems, or array-form items (draft 4 - 2019-09) */
    KW_MAX_ITEMS,
    KW_MIN_ITEMS,
    KW_UNIQUE_ITEMS,
    KW_CONTAINS,
    KW_MAX_PROPERTIES,
    KW_MIN_PROPERTIES,
    KW_REQUIRED,
    KW_PROPERTIES,
    KW_PATTERN_PROPERTIES,
    KW_ADDITIONAL_PROPERTIES,
    KW_DEPENDENT_REQUIRED,
    KW_DEPENDENT_SCHEMAS,
    KW_PROPERTY_NAMES,
    KW_ALL_OF,
    KW_ANY_OF,
    KW_ONE_OF,
    KW_NOT,
    KW_IF,
    KW_REF,
    KW_DYNAMIC_REF,
    KW_RECURSIVE_REF,
    KW_UNEVALUATED_ITEMS,
    KW_UNEVALUATED_PROPERTIES
} sc_kind;

/* Does a keyword of `kind` look at the instance alone (no subschema)? A node
 * of only such keywords costs no more than its own checks: it is not memoised
 * (schema_compile.c) and the fast pass checks it without a call (schema_fast.c). */
static inline bool sc_kind_is_leaf(sc_kind kind)
{
    switch (kind) {
    case KW_TYPE:
    case KW_ENUM:
    case KW_CONST:
    case KW_MULTIPLE_OF:
    case KW_MAXIMUM:
    case KW_MINIMUM:
    case KW_EXCLUSIVE_MAXIMUM:
    case KW_EXCLUSIVE_MINIMUM:
    case KW_MAX_LENGTH:
    case KW_MIN_LENGTH:
    case KW_PATTERN:
    case KW_FORMAT:
    case KW_MAX_ITEMS:
    case KW_MIN_ITEMS:
    case KW_UNIQUE_ITEMS:
    case KW_MAX_PROPERTIES:
    case KW_MIN_PROPERTIES:
    case KW_REQUIRED: return true;
    default: return false;
    }
}

typedef struct sc_node sc_node;

/* How the fast pass enters a node (sc_node.fast_kind, set by
 * sc_fast_prepare from the fields it fills; a node it never prepared, as in
 * a metaschema compiled for the compile-time check, is SC_FAST_INNER: the
 * general walk, right for any node). A loop-guarded node is always
 * SC_FAST_INNER, which gives up on it. */
enum {
    SC_FAST_INNER = 0, /* fast_inner: the keyword loop with subschemas */
    SC_FAST_REF,       /* nothing but a $ref: its target (fast_ref) */
    SC_FAST_TYPES,     /* nothing but "type" (fast_types) */
    SC_FAST_PLAN,      /* a leaf with a plan (leaf_plan) */
    SC_FAST_LEAF       /* another leaf: the keyword loop without subschemas */
};
typedef struct sc_resource sc_resource;

/* A pattern simple enough to match without PCRE2 (schema_regex.c): anchored
 * with ^, a sequence of ASCII character sets with counts and optional groups
 * of them, and no choice a greedy scan could get wrong. */
typedef struct sc_simple_re sc_simple_re;

typedef struct sc_regex {
    pcre2_code *code;
    const char *source; /* the ECMA-262 pattern as written */
    bool jit;
    sc_simple_re *simple; /* the same pattern for short ASCII subjects, or NULL */
} sc_regex;

typedef struct sc_prop {
    const char *name;
    size_t len;
    sc_node *schema;
} sc_prop;

typedef struct sc_pattern_prop {
    sc_regex re;
    sc_node *schema;
} sc_pattern_prop;

/* dependentRequired / dependentSchemas / dependencies: one entry per property. */
typedef struct sc_dep {
    const char *name;
    size_t len;
    const gt_value *required; /* array of names, or NULL */
    sc_node *schema;          /* or NULL */
} sc_dep;

typedef int (*sc_format_fn)(const char *text, size_t len);

typedef struct sc_kw {
    sc_kind kind;
    uint32_t applies;     /* instance types the keyword constrains (SC_T_*) */
    const char *name;     /* keyword as spelled in the schema */
    const char *location; /* static keyword location */
    const gt_value *value;
    const char *message;  /* what an error of it says when that depends on the schema alone (sc_prepare_messages) */
    union {
        uint32_t types;
        size_t count;      /* minLength, maxItems, ... */
        struct {
            sc_node **nodes;
            size_t count;
        } list;            /* allOf, anyOf, oneOf, prefixItems */
        struct {
            sc_node *schema;
            size_t start;  /* items: first index covered (after prefixItems) */
        } sub;
        struct {
            sc_prop *props; /* sorted by (len, bytes) */
            size_t count;
            uint32_t *slots; /* open addressing over sc_prop_hash: index + 1, 0 = empty */
            uint32_t mask;   /* slots - 1 (a power of two, at least twice count) */
            uint32_t *order; /* order[i]: the entry sc_find_prop gives the i-th name in schema order */
        } props;
        struct {
            sc_pattern_prop *pats;
            size_t count;
        } pats;
        struct {
            sc_dep *deps;
            size_t count;
        } deps;
        sc_regex re;
        unsigned pow10_fraction; /* multipleOf (fast pass): k + 1 when the divisor is written 1 or 0.0...01 (10^-k), else 0 */
        sc_format_fn format;
        struct {
            sc_node *if_node, *then_node, *else_node;
        } cond;
        struct {
            sc_node *target;
            const char *dynamic_name; /* $dynamicRef that may re-target, or NULL */
        } ref;
    } u;
} sc_kw;

struct sc_node {
    bool is_bool;
    bool bool_value;
    bool exclusive_max_flag; /* draft 4 boolean exclusiveMaximum */
    bool exclusive_min_flag;
    gt_schema_dialect dialect;
    uint32_t type_mask; /* the node's own "type" (0 = none), for messages */
    sc_kw *kws;
    size_t nkw;
    sc_resource *resource;
    const gt_value *src;
    const char *location;
    /* siblings some keywords consult */
    const sc_kw *properties;
    const sc_kw *pattern_properties;
    const gt_value *minimum, *maximum, *exclusive_minimum, *exclusive_maximum;
    const gt_value *min_contains, *max_contains;
    const gt_value *min_length, *max_length;
    /* fast pass (schema_fast.c): `required` as bits of the sibling
     * `properties` entries, when every name is one of its first 64; whether
     * every keyword looks at the instance alone (no subschema); the target
     * when the node is nothing but a `$ref`; its types when nothing but a "type" */
    bool required_in_props;
    bool fast_leaf;
    uint32_t fast_types; /* nothing but "type": its SC_T_* bits, else 0 */
    uint64_t required_props;
    const sc_node *fast_ref;
    const struct sc_leaf_plan *leaf_plan; /* a leaf of the commonest keywords gathered into one check, or NULL */
    uint8_t fast_kind; /* SC_FAST_*: which of the above the fast pass enters by (one load, one branch) */
    bool loop_guard; /* on an in-place reference cycle: evaluation checks it does not re-enter at the same instance */
    bool memo;       /* may be evaluated twice at one instance and has subschema keywords: memoise its verdicts */
    uint32_t mark;   /* compile-time only: cycle detection state */
    uint32_t in_edges; /* compile-time only: keywords that apply this node (counted up to 2) */
    sc_node *next_pending;
};

typedef struct sc_anchor {
    const char *name;
    const gt_value *value;
    sc_node *node; /* filled for dynamic anchors after compilation */
    bool dynamic;
} sc_anchor;

/* A schema resource: a document root or a subschema with `$id`. */
struct sc_resource {
    char *uri; /* absolute, without fragment */
    const gt_value *root;
    gt_schema_dialect dialect;
    uint32_t vocab;
    bool recursive_anchor; /* 2019-09 `$recursiveAnchor: true` at the root */
    sc_anchor *anchors;
    size_t nanchors, anchors_cap;
    sc_node *root_node;
};

/* Per-value compile information: which resource a subschema belongs to. */
typedef struct sc_info {
    const gt_value *value;
    sc_resource *resource;
    const char *location;
    gt_schema_dialect dialect;
    uint32_t vocab;
    sc_node *node;
} sc_info;

struct gt_schema {
    gt_arena *arena;
    gt_schema_options options;
    char *remotes_base;
    char *remotes_dir;
    gt_schema_dialect dialect;
    sc_node *root;
    bool uses_unevaluated; /* collect annotations only when needed */
    bool uses_dynamic;
    bool has_memo; /* some node is memoised: the full evaluation may count fewer evaluations than the fast pass */
    size_t compile_stack_budget; /* stack the metaschema check may use */
    /* compile-time tables (kept; read-only afterwards) */
    sc_resource **resources;
    size_t nresources, resources_cap;
    sc_info *infos; /* open-addressing hash keyed by value pointer */
    size_t infos_cap, infos_count;
    sc_node *pending;
    size_t node_count;
    gt_schema_problem *problem;
    gt_schema_problem scratch_problem;
    bool failed;
};

/* --- schema_compile.c (compile-time helpers shared with schema_keywords.c) --- */
/* Record the first compile problem; later calls are ignored. */
void sc_fail(gt_schema *s, gt_schema_problem_code code, const char *location, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Zeroed arena memory; NULL (and a recorded problem) when out of memory. */
void *sc_alloc(gt_schema *s, size_t size);
char *sc_strdup(gt_schema *s, const char *text);
void sc_prepare_messages(gt_schema *s, sc_node *n);
/* Node of a subschema value found under a keyword of `parent`. */
sc_node *sc_child_node(gt_schema *s, const sc_node *parent, const gt_value *v, const char *location);
/* Resolve a reference string from `node`; NULL with a problem when unresolvable. */
sc_node *sc_resolve_ref(gt_schema *s, const sc_node *node, const char *ref, const char *kwloc,
                        const gt_value **target_value);
/* Find an anchor of a resource by name; NULL when absent. */
const sc_anchor *sc_anchor_find(const sc_resource *res, const char *name);

/* Hash of a property name for sc_kw.u.props.slots: length and three bytes,
 * enough to tell a schema's property names apart in one probe, cheap enough
 * to run on every member of every instance object. */
static inline uint32_t sc_prop_hash(const char *name, size_t len)
{
    uint32_t h = (uint32_t)len;
    if (len > 0)
        h ^= (uint32_t)(unsigned char)name[0] << 8 ^ (uint32_t)(unsigned char)name[len - 1] << 16 ^
             (uint32_t)(unsigned char)name[len / 2] << 24;
    h *= 0x9E3779B1u;
    return h ^ (h >> 16); /* the product's high bits, which every input bit reaches, into the low ones */
}

/* Draft 4 defines an integer as "a JSON number without a fraction or
 * exponent part" (so 1.0 is not one); later drafts by value (1.0 and 1e2 are,
 * 1.0000000000000001 is not). */
static inline bool sc_is_integer_in(const gt_value *v, gt_schema_dialect dialect)
{
    if (v->flags & GT_NUM_INTEGER_LITERAL) /* the common case in every dialect, without a call */
        return true;
    return dialect != GT_SCHEMA_DRAFT4 && gt_number_is_integer(v);
}

/* The instance's SC_T_* bits under `dialect` (what "type" and keyword
 * applicability test). */
static inline uint32_t sc_instance_bits(const gt_value *v, gt_schema_dialect dialect)
{
    /* a table by gt_type (a switch was a jump per node), numbers apart */
    static const uint32_t bits[GT_OBJECT + 1] = {SC_T_NULL,   SC_T_BOOLEAN, SC_T_BOOLEAN, SC_T_NUMBER,
                                                 SC_T_STRING, SC_T_ARRAY,   SC_T_OBJECT};
    if (v->type == GT_NUMBER)
        return sc_is_integer_in(v, dialect) ? SC_T_INTEGER | SC_T_NUMBER : SC_T_NUMBER;
    return (unsigned)v->type <= GT_OBJECT ? bits[v->type] : 0;
}

/* The `properties` entry for a member name, or NULL: one hash probe, rarely two. */
static inline __attribute__((always_inline)) const sc_prop *sc_find_prop(const sc_kw *kw, const char *name, size_t len)
{
    uint32_t mask = kw->u.props.mask, at = sc_prop_hash(name, len) & mask;
    for (uint32_t probes = 0; probes <= mask; probes++, at = (at + 1) & mask) { /* bounded: never loops */
        uint32_t slot = kw->u.props.slots[at];
        if (slot == 0)
            return NULL;
        const sc_prop *p = &kw->u.props.props[slot - 1];
        if (p->len == len && gt_swar_same(p->name, name, len))
            return p;
    }
    return NULL;
}

/* The same entry as sc_find_prop for member `i` of an instance: instances
 * mostly list their members in the schema's order, so the entry of the
 * schema's i-th name is tried first (one compare, no hash). That entry is
 * what sc_find_prop gives its own name, so when the names are equal it is
 * what sc_find_prop gives this one. */
static inline __attribute__((always_inline)) const sc_prop *sc_find_prop_at(const sc_kw *kw, size_t i,
                                                                           const char *name, size_t len)
{
    if (i < kw->u.props.count) {
        const sc_prop *p = &kw->u.props.props[kw->u.props.order[i]];
        if (p->len == len && gt_swar_same(p->name, name, len))
            return p;
    }
    return sc_find_prop(kw, name, len);
}

/* A non-negative count keyword's value as size_t; past SIZE_MAX (1e300) it
 * saturates: converting such a double is undefined behaviour. */
static inline size_t sc_count_of(const gt_value *v)
{
    double number = v->u.num.number;
    if (!(number > 0))
        return 0;
    return number >= 18446744073709551615.0 ? (size_t)-1 : (size_t)number;
}

/* Is `inst` one of the `enum` list's values? Strings by bytes, the rest by
 * JSON equality. */
static inline bool sc_enum_has(const gt_value *list, const gt_value *inst)
{
    for (size_t i = 0; i < list->u.arr.count; i++) {
        const gt_value *item = list->u.arr.items[i];
        if (item->type != inst->type) /* the common miss, without a call */
            continue;
        if (inst->type == GT_STRING ? item->u.str.len == inst->u.str.len &&
                                          gt_swar_same(item->u.str.chars, inst->u.str.chars, inst->u.str.len)
                                    : gt_value_equal(item, inst))
            return true;
    }
    return false;
}

/* Does the number `inst` satisfy a bound keyword (maximum, minimum and their
 * exclusive forms, draft 4's boolean flags included)? */
static inline bool sc_bound_holds(const sc_node *n, const sc_kw *kw, const gt_value *inst)
{
    double x = inst->u.num.number, y = kw->value->u.num.number;
    /* different doubles order as gt_number_compare orders them; only equal ones need the literals */
    int cmp = x != y ? (x > y) - (x < y) : gt_number_compare(inst, kw->value);
    switch (kw->kind) {
    case KW_MAXIMUM: return n->exclusive_max_flag ? cmp < 0 : cmp <= 0;
    case KW_MINIMUM: return n->exclusive_min_flag ? cmp > 0 : cmp >= 0;
    case KW_EXCLUSIVE_MAXIMUM: return cmp < 0;
    default: return cmp > 0;
    }
}

/* --- schema_fast.c --- */
/* Bounds and multipleOf a leaf plan holds at most (one of each keyword). */
#define SC_LEAF_PLAN_NUMERIC 5u

/* A leaf node (sc_kind_is_leaf) whose keywords are all among type, enum,
 * const, the four bounds, multipleOf, minLength and maxLength (each once, each
 * applying to its usual instance types), gathered at compile time for the
 * fast pass: one check of the types, the enum or const, then the numeric
 * keywords or the two lengths, instead of a loop over the keywords. These
 * keywords look at the instance alone, never give up and charge no
 * evaluation, so the order they are checked in cannot change the answer. */
typedef struct sc_leaf_plan {
    uint32_t types;              /* "type": the bits the instance must meet (SC_T_ANY without one) */
    const gt_value *enum_list;   /* "enum", or NULL */
    const gt_value *const_value; /* "const", or NULL */
    bool lengths;                /* minLength or maxLength is present */
    size_t min_length, max_length; /* in code points: 0 and SIZE_MAX when absent */
    unsigned numeric_count;
    const struct sc_kw *numeric[SC_LEAF_PLAN_NUMERIC]; /* bounds and multipleOf, in schema order */
} sc_leaf_plan;

/* Subschema evaluations the fast pass found valid below the root, with the
 * evaluations each cost, for the full evaluation that follows a "not valid":
 * it skips them (their verdict is known and they add no error) and counts
 * their cost, so its budget runs out exactly where it would have. The pass
 * only appends (a valid document never needs them); the full evaluation
 * indexes them by a small hash of (node, instance) when it starts. */
#define SC_KNOWN_VALID_MAX 48u
#define SC_KNOWN_VALID_SLOTS 128u /* a power of two, over twice SC_KNOWN_VALID_MAX */
typedef struct sc_known_valid {
    size_t count;
    struct {
        const sc_node *node;
        const gt_value *inst;
        size_t units;
    } items[SC_KNOWN_VALID_MAX];
    uint8_t slots[SC_KNOWN_VALID_SLOTS]; /* item index + 1, 0 = empty (filled by sc_known_valid_index) */
} sc_known_valid;

static inline size_t sc_known_slot(const sc_node *n, const gt_value *inst)
{
    uint64_t h = ((uint64_t)(uintptr_t)n * 0x9e3779b97f4a7c15u) ^ ((uint64_t)(uintptr_t)inst * 0xc2b2ae3d27d4eb4fu);
    return (size_t)(h ^ (h >> 29)) & (SC_KNOWN_VALID_SLOTS - 1);
}

/* Fill `slots` from the items (once, before lookups). */
static inline void sc_known_valid_index(sc_known_valid *known)
{
    memset(known->slots, 0, sizeof known->slots);
    for (size_t i = 0; i < known->count; i++) {
        size_t at = sc_known_slot(known->items[i].node, known->items[i].inst);
        while (known->slots[at] != 0)
            at = (at + 1) & (SC_KNOWN_VALID_SLOTS - 1);
        known->slots[at] = (uint8_t)(i + 1);
    }
}

/* Evaluations (node, inst) cost when the fast pass found it valid, else 0. */
static inline size_t sc_known_valid_units(const sc_known_valid *known, const sc_node *n, const gt_value *inst)
{
    if (known == NULL || known->count == 0)
        return 0;
    for (size_t at = sc_known_slot(n, inst);; at = (at + 1) & (SC_KNOWN_VALID_SLOTS - 1)) {
        unsigned slot = known->slots[at];
        if (slot == 0)
            return 0;
        if (known->items[slot - 1].node == n && known->items[slot - 1].inst == inst)
            return known->items[slot - 1].units;
    }
}

/* The valid-document fast pass: true only when `instance` is valid and the
 * full evaluation (schema_validate.c) would find it valid with no limit hit;
 * false when it is not valid or when the pass cannot tell (a keyword or a
 * situation it leaves to the full evaluation). `*md` is the caller's match
 * data (created when NULL and a regex needs it; the caller frees it). `known`
 * (may be NULL; its count set to 0 by the caller) receives the valid
 * subschema evaluations it saw. Used by gt_schema_validate before the full
 * evaluation, never instead of it when the answer is false. */
bool sc_fast_valid(const gt_schema *schema, const gt_value *instance, pcre2_match_data **md, sc_known_valid *known);
/* The same pass with its "not valid" told apart from its "cannot tell":
 * 1 valid, 0 not valid, -1 cannot tell. A 0 is the full evaluation's
 * verdict when it stops at the first failure (errors NULL, or
 * gt_schema_validate_first_failure): the pass evaluates the same keywords
 * in the same order with the same functions, reached its failure within the
 * evaluation budget, depth and regex limits (past any of them it cannot
 * tell), and stopped there, where the first-failure evaluation stops too. */
int sc_fast_verdict(const gt_schema *schema, const gt_value *instance, pcre2_match_data **md, sc_known_valid *known);
/* Fill a compiled node's fast-pass fields (gt_schema_compile, once per node;
 * a leaf plan goes into the schema's arena). */
void sc_fast_prepare(gt_schema *s, sc_node *n);
/* May the fast pass run for this schema and these options at all? */
bool sc_fast_usable(const gt_schema *schema);

/* --- schema_keywords.c --- */
/* Fill node->kws from its schema object (keyword order kept). */
void sc_compile_keywords(gt_schema *s, sc_node *n);

/* --- schema_uri.c --- */
/* Resolve `ref` against absolute `base` (RFC 3986 §5.2) into the arena. */
char *sc_uri_resolve(gt_arena *arena, const char *base, const char *ref);
/* Split `uri` at '#': returns the part before, sets *fragment (decoded, NULL when absent). */
char *sc_uri_split(gt_arena *arena, const char *uri, char **fragment);
/* Percent-decode into the arena. */
char *sc_uri_decode(gt_arena *arena, const char *text, size_t len);
/* Follow a JSON Pointer (already percent-decoded) from `root`; NULL when absent. */
const gt_value *sc_pointer_get(const gt_value *root, const char *pointer);
/* Append "/" + escaped token to a location, into the arena. */
char *sc_location_child(gt_arena *arena, const char *parent, const char *token, size_t len);
char *sc_location_index(gt_arena *arena, const char *parent, size_t index);

/* --- schema_regex.c --- */
/* Compile an ECMA-262 pattern. Returns 0, or -1 with a message in `why`. */
int sc_regex_compile(sc_regex *re, const char *pattern, size_t len, char *why, size_t why_size);
/* 1 match, 0 no match, or PCRE2's negative error code (a limit hit, out of
 * memory). `match_data` is the caller's; `limits` (sc_regex_limits_new) may be
 * NULL for PCRE2's defaults. A JIT stack overflow falls back to the interpreter.
 * A simple pattern (re->simple) decides a short ASCII subject itself, with the
 * verdict PCRE2 would give (suite/test_schema.c checks both agree). */
int sc_regex_search(const sc_regex *re, const char *text, size_t len, pcre2_match_data *match_data,
                    pcre2_match_context *limits);
/* A match context with gauntlet's regex limits (limits.h) and a JIT stack that
 * grows to GT_SCHEMA_REGEX_JIT_STACK_MAX; NULL when out of memory. */
pcre2_match_context *sc_regex_limits_new(pcre2_jit_stack **jit_stack);
void sc_regex_limits_free(pcre2_match_context *limits, pcre2_jit_stack *jit_stack);
/* Name a limit error code ("match limit (10000000 backtracking steps)") into
 * `buf`; false when `rc` is not a limit (out of memory, ...). */
bool sc_regex_limit_describe(int rc, char *buf, size_t cap);
void sc_regex_free(sc_regex *re);

/* --- schema_registry.c --- */
/* Text of the document registered under `uri` (no fragment), or NULL. */
const char *sc_registry_find(const gt_schema_registry *registry, const char *uri, size_t *len);

/* --- schema_format.c --- */
sc_format_fn sc_format_lookup(const char *name);

/* --- schema_validate.c --- */
/* gt_schema_validate without the fast pass: the full evaluation, which alone
 * writes errors (the differential tests compare the two). `known` (may be
 * NULL): what a fast pass found valid on this instance, to skip. */
gt_schema_result sc_validate_full(const gt_schema *schema, const gt_value *instance, gt_schema_errors *errors,
                                  sc_known_valid *known);
size_t sc_utf8_length(const char *text, size_t len);
/* A host name (schema_idna.c): LDH labels, A-labels that IDNA2008 accepts and,
 * with allow_unicode (idn-hostname), U-labels too. 1 valid, 0 not. */
int sc_idna_hostname_ok(const char *s, size_t len, bool allow_unicode);

/* --- metaschemas (generated) --- */
typedef struct sc_embedded {
    const char *name; /* file name: "draft7.json", "vocabularies.json" */
    const char *text;
    size_t len;
} sc_embedded;
extern const sc_embedded sc_embedded_metaschemas[];
extern const size_t sc_embedded_metaschema_count;

#endif
