/* derive.c — answers computed from a schema (gauntlet/derive.h).
 *
 * One small generator walks a schema (local `$ref`s, allOf merged, the first
 * anyOf/oneOf branch) and builds an instance: minimal (required members
 * only), full (every declared member: more boundaries for cut-at, a nested
 * member for nested-as-string) or loose (required members with placeholder
 * values that ignore every constraint but the type). The operators that
 * promise a valid instance check it with the reference validator and report
 * a schema they cannot satisfy as inexpressible, never an answer that merely
 * looks valid. Not for: corpus variants (runner/explore has its own
 * synthesiser, above this room) or rendering answers for an API (mocks/). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/derive.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"

static const char *const op_names[GT_DERIVE_OP_COUNT] = {"schema-echo", "nested-as-string", "loose-placeholder",
                                                         "cut-at",      "enum-case",        "valid"};
static const char *const boundary_names[] = {"inside_string", "between_members", "before_close"};

const char *gt_derive_op_name(gt_derive_op op)
{
    return (unsigned)op < GT_DERIVE_OP_COUNT ? op_names[op] : NULL;
}

int gt_derive_op_from_name(const char *name)
{
    for (int i = 0; name && i < GT_DERIVE_OP_COUNT; i++)
        if (strcmp(name, op_names[i]) == 0)
            return i;
    return -1;
}

const char *gt_derive_boundary_name(gt_derive_boundary at)
{
    return (unsigned)at < 3 ? boundary_names[at] : NULL;
}

int gt_derive_boundary_from_name(const char *name)
{
    for (int i = 0; name && i < 3; i++)
        if (strcmp(name, boundary_names[i]) == 0)
            return i;
    return -1;
}

static int spec_fail(char *field, size_t field_len, const char *name, char *err, size_t err_len, const char *format,
                     ...) __attribute__((format(printf, 6, 7)));
static int spec_fail(char *field, size_t field_len, const char *name, char *err, size_t err_len, const char *format,
                     ...)
{
    snprintf(field, field_len, "%s", name);
    va_list args;
    va_start(args, format);
    vsnprintf(err, err_len, format, args);
    va_end(args);
    return -1;
}

static const char *ops_list(void)
{
    return "schema-echo, nested-as-string, loose-placeholder, cut-at, enum-case, valid";
}

int gt_derive_spec_read(const gt_value *value, const char *message_id, const char *tool_use_id, gt_derive_spec *spec,
                        char *field, size_t field_len, char *err, size_t err_len)
{
    memset(spec, 0, sizeof *spec);
    spec->message_id = message_id;
    spec->tool_use_id = tool_use_id;
    field[0] = '\0';
    const gt_value *op = value;
    if (value->type == GT_OBJECT) {
        static const char *const known[] = {"op", "at", "nth", "end", "id", "message_id", NULL};
        for (size_t i = 0; i < value->u.obj.count; i++) {
            const char *key = value->u.obj.members[i].key;
            bool ok = false;
            for (size_t k = 0; known[k] && !ok; k++)
                ok = strcmp(key, known[k]) == 0;
            if (!ok)
                return spec_fail(field, field_len, key, err, err_len,
                                 "unknown derive field '%s' (op, at, nth, end, id, message_id)", key);
        }
        op = gt_value_get(value, "op", 2);
        if (op == NULL)
            return spec_fail(field, field_len, "op", err, err_len, "derive needs an op: one of %s", ops_list());
    }
    const char *op_field = value->type == GT_OBJECT ? "op" : "";
    if (op->type != GT_STRING)
        return spec_fail(field, field_len, op_field, err, err_len,
                         "derive must be an operator name or an object with \"op\", not a %s",
                         gt_type_name(op->type));
    int parsed = gt_derive_op_from_name(op->u.str.chars);
    if (parsed < 0)
        return spec_fail(field, field_len, op_field, err, err_len, "unknown derive operator \"%s\" (one of %s)",
                         op->u.str.chars, ops_list());
    spec->op = (gt_derive_op)parsed;
    if (value->type != GT_OBJECT) {
        if (spec->op == GT_DERIVE_CUT_AT)
            return spec_fail(field, field_len, "", err, err_len,
                             "cut-at needs its boundary: {\"op\": \"cut-at\", \"at\": \"inside_string\" | "
                             "\"between_members\" | \"before_close\"}");
        return 0;
    }
    const gt_value *at = gt_value_get(value, "at", 2), *nth = gt_value_get(value, "nth", 3);
    const gt_value *end = gt_value_get(value, "end", 3), *id = gt_value_get(value, "id", 2);
    const gt_value *mid = gt_value_get(value, "message_id", 10);
    if (spec->op != GT_DERIVE_CUT_AT && (at || nth || end))
        return spec_fail(field, field_len, at ? "at" : nth ? "nth" : "end", err, err_len,
                         "%s applies to cut-at only, not %s", at ? "at" : nth ? "nth" : "end", op_names[spec->op]);
    if (spec->op == GT_DERIVE_CUT_AT) {
        int boundary = at && at->type == GT_STRING ? gt_derive_boundary_from_name(at->u.str.chars) : -1;
        if (boundary < 0)
            return spec_fail(field, field_len, "at", err, err_len,
                             "cut-at needs \"at\": \"inside_string\", \"between_members\" or \"before_close\"");
        spec->at = (gt_derive_boundary)boundary;
        if (nth != NULL) {
            if (nth->type != GT_NUMBER || !gt_value_is_integer(nth) || nth->u.num.number < 1 ||
                nth->u.num.number > 1e6)
                return spec_fail(field, field_len, "nth", err, err_len, "nth must be an integer from 1 to 1000000");
            spec->nth = (size_t)nth->u.num.number;
        }
        if (end != NULL) {
            if (end->type != GT_STRING || (strcmp(end->u.str.chars, "cut") != 0 &&
                                           strcmp(end->u.str.chars, "max_tokens") != 0))
                return spec_fail(field, field_len, "end", err, err_len, "end must be \"cut\" or \"max_tokens\"");
            spec->max_tokens = strcmp(end->u.str.chars, "max_tokens") == 0;
        }
    }
    if (id != NULL) {
        if (id->type != GT_STRING || id->u.str.len == 0)
            return spec_fail(field, field_len, "id", err, err_len, "id (the tool_use id) must be a non-empty string");
        spec->tool_use_id = id->u.str.chars;
    }
    if (mid != NULL) {
        if (mid->type != GT_STRING || mid->u.str.len == 0)
            return spec_fail(field, field_len, "message_id", err, err_len, "message_id must be a non-empty string");
        spec->message_id = mid->u.str.chars;
    }
    return 0;
}

/* ---- the generator ---- */

typedef enum gen_mode { GEN_MINIMAL = 0, GEN_FULL, GEN_LOOSE } gen_mode;

typedef struct gen {
    gt_arena *arena;
    const gt_value *root;
    gen_mode mode;
    gt_derive_op mutate; /* NESTED_AS_STRING or ENUM_CASE: the one mutation to make; else VALID */
    bool mutated;
    bool failed;         /* out of memory */
    char why[200];       /* why no instance could be built */
} gen;

/* A schema as the generator sees it: its own keywords plus allOf's and the
 * first anyOf/oneOf branch's, $refs followed. */
#define VIEW_MAX_PROPS 256
typedef struct view {
    const char *type;
    const gt_value *enum_list, *constant, *items, *prefix_items;
    const gt_value *pattern, *format;
    const gt_value *minimum, *maximum, *exclusive_minimum, *exclusive_maximum, *multiple_of;
    const gt_value *min_length, *max_length, *min_items;
    const char *prop_names[VIEW_MAX_PROPS];
    const gt_value *prop_schemas[VIEW_MAX_PROPS];
    size_t prop_count;
    const char *required[VIEW_MAX_PROPS];
    size_t required_count;
    bool has_object_words, has_array_words, has_string_words, has_number_words;
} view;

static const gt_value *get(const gt_value *object, const char *key)
{
    return gt_value_get(object, key, strlen(key));
}

/* Follow a local "#..." reference (JSON Pointer into the root). */
static const gt_value *resolve_ref(const gt_value *root, const char *ref)
{
    if (ref[0] != '#')
        return NULL;
    const gt_value *at = root;
    const char *p = ref + 1;
    while (*p == '/' && at != NULL) {
        p++;
        char token[256];
        size_t n = 0;
        while (*p && *p != '/' && n + 1 < sizeof token) {
            if (p[0] == '~' && p[1] == '1')
                token[n++] = '/', p += 2;
            else if (p[0] == '~' && p[1] == '0')
                token[n++] = '~', p += 2;
            else
                token[n++] = *p++;
        }
        token[n] = '\0';
        if (at->type == GT_OBJECT)
            at = gt_value_get(at, token, n);
        else if (at->type == GT_ARRAY) {
            char *end;
            unsigned long index = strtoul(token, &end, 10);
            at = *end == '\0' && index < at->u.arr.count ? at->u.arr.items[index] : NULL;
        } else
            at = NULL;
    }
    return *p == '\0' ? at : NULL;
}

static void view_add(gen *g, view *v, const gt_value *schema, int depth)
{
    if (schema == NULL || schema->type != GT_OBJECT || depth > GT_DERIVE_MAX_DEPTH)
        return;
    const gt_value *ref = get(schema, "$ref");
    if (ref && ref->type == GT_STRING)
        view_add(g, v, resolve_ref(g->root, ref->u.str.chars), depth + 1);
    const gt_value *type = get(schema, "type");
    if (type && type->type == GT_STRING && v->type == NULL)
        v->type = type->u.str.chars;
    else if (type && type->type == GT_ARRAY && v->type == NULL) {
        for (size_t i = 0; i < type->u.arr.count; i++) {
            const gt_value *t = type->u.arr.items[i];
            if (t->type == GT_STRING && (v->type == NULL || strcmp(v->type, "null") == 0))
                v->type = t->u.str.chars;
        }
    }
#define TAKE(field, key)                                                                                               \
    do {                                                                                                               \
        const gt_value *found_ = get(schema, key);                                                                     \
        if (found_ && v->field == NULL)                                                                                \
            v->field = found_;                                                                                         \
    } while (0)
    TAKE(enum_list, "enum");
    TAKE(constant, "const");
    TAKE(items, "items");
    TAKE(prefix_items, "prefixItems");
    TAKE(pattern, "pattern");
    TAKE(format, "format");
    TAKE(minimum, "minimum");
    TAKE(maximum, "maximum");
    TAKE(exclusive_minimum, "exclusiveMinimum");
    TAKE(exclusive_maximum, "exclusiveMaximum");
    TAKE(multiple_of, "multipleOf");
    TAKE(min_length, "minLength");
    TAKE(max_length, "maxLength");
    TAKE(min_items, "minItems");
#undef TAKE
    const gt_value *props = get(schema, "properties");
    if (props && props->type == GT_OBJECT) {
        v->has_object_words = true;
        for (size_t i = 0; i < props->u.obj.count && v->prop_count < VIEW_MAX_PROPS; i++) {
            bool seen = false;
            for (size_t j = 0; j < v->prop_count && !seen; j++)
                seen = strcmp(v->prop_names[j], props->u.obj.members[i].key) == 0;
            if (!seen) {
                v->prop_names[v->prop_count] = props->u.obj.members[i].key;
                v->prop_schemas[v->prop_count++] = props->u.obj.members[i].value;
            }
        }
    }
    const gt_value *required = get(schema, "required");
    if (required && required->type == GT_ARRAY) {
        v->has_object_words = true;
        for (size_t i = 0; i < required->u.arr.count && v->required_count < VIEW_MAX_PROPS; i++)
            if (required->u.arr.items[i]->type == GT_STRING)
                v->required[v->required_count++] = required->u.arr.items[i]->u.str.chars;
    }
    v->has_array_words |= get(schema, "items") || get(schema, "prefixItems") || get(schema, "minItems");
    v->has_string_words |= get(schema, "pattern") || get(schema, "format") || get(schema, "minLength") ||
                           get(schema, "maxLength");
    v->has_number_words |= get(schema, "minimum") || get(schema, "maximum") || get(schema, "multipleOf") ||
                           get(schema, "exclusiveMinimum") || get(schema, "exclusiveMaximum");
    const gt_value *all = get(schema, "allOf");
    for (size_t i = 0; all && all->type == GT_ARRAY && i < all->u.arr.count; i++)
        view_add(g, v, all->u.arr.items[i], depth + 1);
    const char *branches[] = {"anyOf", "oneOf"};
    for (int b = 0; b < 2; b++) {
        const gt_value *list = get(schema, branches[b]);
        if (list && list->type == GT_ARRAY && list->u.arr.count > 0)
            view_add(g, v, list->u.arr.items[0], depth + 1);
    }
}

static const char *view_type(const view *v)
{
    if (v->type)
        return v->type;
    if (v->has_object_words)
        return "object";
    if (v->has_array_words)
        return "array";
    if (v->has_number_words)
        return "number";
    return "string";
}

static gt_value *mark(gen *g, gt_value *value)
{
    if (value == NULL)
        g->failed = true;
    return value;
}

/* The shortest string of the regex subset that schemas use most (literals,
 * classes, \\d \\w \\s, `.`, groups with alternation, `{n,m}` `+` `*` `?`):
 * the first alternative, each atom its minimal number of times. Appends to
 * `out` (capacity `cap`) from `*len`; false for anything outside the subset
 * (a negated class, a back-reference, a lookaround). The caller checks the
 * result with the real regex engine. */
static bool pattern_sample(const char *p, size_t n, char *out, size_t cap, size_t *len, int depth)
{
    if (depth > 8)
        return false;
    size_t i = 0;
    if (i < n && p[i] == '^')
        i++;
    while (i < n) {
        char atom[256];
        size_t atom_len = 0;
        char c = p[i];
        if (c == '|' || (c == '$' && i + 1 == n))
            break; /* the first alternative is enough; `$` ends the pattern */
        if (c == '(') {
            size_t start = ++i, nest = 0;
            bool in_class = false;
            for (; i < n && (nest > 0 || in_class || p[i] != ')'); i++) {
                if (p[i] == '\\')
                    i++;
                else if (in_class && p[i] == ']')
                    in_class = false;
                else if (!in_class && p[i] == '[')
                    in_class = true;
                else if (!in_class && p[i] == '(')
                    nest++;
                else if (!in_class && p[i] == ')')
                    nest--;
            }
            if (i >= n)
                return false;
            size_t body = start;
            if (body + 1 < i && p[body] == '?') {
                if (p[body + 1] != ':')
                    return false; /* lookaround or a named group */
                body += 2;
            }
            if (!pattern_sample(p + body, i - body, atom, sizeof atom, &atom_len, depth + 1))
                return false;
            i++;
        } else if (c == '[') {
            i++;
            if (i < n && p[i] == '^')
                return false;
            if (i >= n)
                return false;
            if (p[i] == '\\' && i + 1 < n) {
                char e = p[i + 1];
                atom[0] = e == 'd' ? '0' : e == 'w' ? 'a' : e == 's' ? ' ' : e;
            } else
                atom[0] = p[i];
            atom_len = 1;
            for (; i < n && p[i] != ']'; i++)
                if (p[i] == '\\')
                    i++;
            if (i >= n)
                return false;
            i++;
        } else if (c == '\\' && i + 1 < n) {
            char e = p[i + 1];
            if ((e >= '1' && e <= '9') || e == 'b' || e == 'B' || e == 'p' || e == 'P' || e == 'u' || e == 'x')
                return false;
            atom[0] = e == 'd' ? '0' : e == 'w' ? 'a' : e == 's' ? ' ' : e == 'D' ? 'a' : e == 'W' ? '-' : e == 'S' ? 'a' : e;
            atom_len = 1;
            i += 2;
        } else if (c == '.' ) {
            atom[0] = 'a', atom_len = 1, i++;
        } else if (c == '*' || c == '+' || c == '?' || c == '{' || c == ')' || c == '$' || c == '^') {
            return false;
        } else {
            atom[0] = c, atom_len = 1, i++;
        }
        size_t times = 1;
        if (i < n && (p[i] == '*' || p[i] == '?'))
            times = 0, i++;
        else if (i < n && p[i] == '+')
            times = 1, i++;
        else if (i < n && p[i] == '{') {
            char *end;
            unsigned long low = strtoul(p + i + 1, &end, 10);
            if (end == p + i + 1 || low > 64)
                return false;
            while ((size_t)(end - p) < n && *end != '}')
                end++;
            if ((size_t)(end - p) >= n)
                return false;
            times = low;
            i = (size_t)(end - p) + 1;
        }
        if (i < n && p[i] == '?')
            i++; /* lazy */
        for (size_t t = 0; t < times; t++) {
            if (*len + atom_len + 1 > cap)
                return false;
            memcpy(out + *len, atom, atom_len);
            *len += atom_len;
        }
    }
    out[*len] = '\0';
    return true;
}

/* A string that satisfies `pattern` (checked by the reference's regex
 * engine through a one-keyword schema), or NULL. */
static const char *pattern_candidate(const gt_value *pattern, size_t min_length, char *sample, size_t sample_cap)
{
    static const char *const candidates[] = {"test", "a", "A", "0", "1", "aa", "abc", "ABC", "123", "a1", "A1",
                                             "x", "Test", "Abc", "2024-01-01", "a@example.com", "https://example.com",
                                             "00000000-0000-4000-8000-000000000000", "AB-123", "ab_cd", "a b"};
    gt_value_builder builder = {gt_arena_new(), false};
    if (builder.arena == NULL)
        return NULL;
    gt_value *schema = gt_build(&builder, gt_value_new_object(builder.arena));
    gt_build_put(&builder, schema, "pattern", (gt_value *)pattern);
    const char *found = NULL;
    gt_schema *compiled = builder.failed ? NULL : gt_schema_compile_value(schema, NULL, NULL);
    size_t sample_len = 0;
    if (compiled && pattern_sample(pattern->u.str.chars, pattern->u.str.len, sample, sample_cap, &sample_len, 0) &&
        sample_len >= min_length) {
        gt_value *text = gt_value_new_string(builder.arena, sample, sample_len);
        if (text && gt_schema_validate(compiled, text, NULL) == GT_SCHEMA_VALID)
            found = sample;
    }
    for (size_t i = 0; compiled && !found && i < sizeof candidates / sizeof *candidates; i++) {
        if (strlen(candidates[i]) < min_length)
            continue;
        gt_value *text = gt_value_new_string(builder.arena, candidates[i], strlen(candidates[i]));
        if (text && gt_schema_validate(compiled, text, NULL) == GT_SCHEMA_VALID)
            found = candidates[i];
    }
    gt_schema_free(compiled);
    gt_arena_free(builder.arena);
    return found;
}

static const char *format_sample(const char *format)
{
    static const char *const table[][2] = {
        {"date", "2024-01-01"},          {"date-time", "2024-01-01T00:00:00Z"},
        {"time", "00:00:00Z"},           {"email", "a@example.com"},
        {"idn-email", "a@example.com"},  {"uri", "https://example.com/"},
        {"iri", "https://example.com/"}, {"uri-reference", "https://example.com/"},
        {"hostname", "example.com"},     {"idn-hostname", "example.com"},
        {"ipv4", "192.0.2.1"},           {"ipv6", "2001:db8::1"},
        {"uuid", "00000000-0000-4000-8000-000000000000"},
        {"duration", "P1D"},             {"regex", "a"},
    };
    for (size_t i = 0; format && i < sizeof table / sizeof *table; i++)
        if (strcmp(format, table[i][0]) == 0)
            return table[i][1];
    return NULL;
}

static gt_value *gen_string(gen *g, const view *v)
{
    if (g->mode == GEN_LOOSE)
        return mark(g, gt_value_new_string(g->arena, GT_DERIVE_PLACEHOLDER_TEXT, strlen(GT_DERIVE_PLACEHOLDER_TEXT)));
    size_t min_length = v->min_length && v->min_length->type == GT_NUMBER ? (size_t)v->min_length->u.num.number : 0;
    size_t max_length = v->max_length && v->max_length->type == GT_NUMBER ? (size_t)v->max_length->u.num.number
                                                                          : (size_t)-1;
    const char *base = format_sample(v->format && v->format->type == GT_STRING ? v->format->u.str.chars : NULL);
    if (v->pattern && v->pattern->type == GT_STRING) {
        char sample[256];
        const char *matched = pattern_candidate(v->pattern, min_length, sample, sizeof sample);
        if (matched)
            return mark(g, gt_value_new_string(g->arena, matched, strlen(matched)));
    }
    if (base == NULL)
        base = GT_DERIVE_PLACEHOLDER_TEXT;
    size_t len = strlen(base);
    if (len < min_length && min_length <= 4096) {
        char *padded = gt_arena_alloc(g->arena, min_length + 1);
        if (padded == NULL)
            return mark(g, NULL);
        memcpy(padded, base, len);
        memset(padded + len, 'a', min_length - len);
        padded[min_length] = '\0';
        return mark(g, gt_value_new_string(g->arena, padded, min_length));
    }
    if (len > max_length)
        len = max_length;
    return mark(g, gt_value_new_string(g->arena, base, len));
}

static gt_value *gen_number(gen *g, const view *v, bool integer)
{
    if (g->mode == GEN_LOOSE)
        return mark(g, gt_value_new_number(g->arena, 0));
    double lo = -INFINITY, hi = INFINITY;
    bool lo_open = false, hi_open = false;
    if (v->minimum && v->minimum->type == GT_NUMBER)
        lo = v->minimum->u.num.number;
    if (v->exclusive_minimum && v->exclusive_minimum->type == GT_NUMBER &&
        v->exclusive_minimum->u.num.number >= lo)
        lo = v->exclusive_minimum->u.num.number, lo_open = true;
    if (v->maximum && v->maximum->type == GT_NUMBER)
        hi = v->maximum->u.num.number;
    if (v->exclusive_maximum && v->exclusive_maximum->type == GT_NUMBER &&
        v->exclusive_maximum->u.num.number <= hi)
        hi = v->exclusive_maximum->u.num.number, hi_open = true;
    double step = v->multiple_of && v->multiple_of->type == GT_NUMBER && v->multiple_of->u.num.number > 0
                      ? v->multiple_of->u.num.number
                      : (integer ? 1 : 0);
    double pick = 0;
    if (lo > 0 || (lo == 0 && lo_open))
        pick = lo;
    else if (hi < 0 || (hi == 0 && hi_open))
        pick = hi;
    if (step > 0) {
        double k = pick == lo ? ceil(lo / step) : pick == hi ? floor(hi / step) : 0;
        pick = k * step;
        if (lo_open && pick <= lo)
            pick += step;
        if (hi_open && pick >= hi)
            pick -= step;
    } else if (lo_open && pick <= lo)
        pick = isfinite(hi) ? (lo + hi) / 2 : lo + 1;
    else if (hi_open && pick >= hi)
        pick = isfinite(lo) ? (lo + hi) / 2 : hi - 1;
    return mark(g, gt_value_new_number(g->arena, pick));
}

/* `text` with its letters in another case: upper when it has a lower-case
 * letter, else lower. NULL when it has no cased ASCII letter. */
static gt_value *other_case(gen *g, const gt_value *text)
{
    bool has_lower = false, has_upper = false;
    for (size_t i = 0; i < text->u.str.len; i++) {
        has_lower |= islower((unsigned char)text->u.str.chars[i]) != 0;
        has_upper |= isupper((unsigned char)text->u.str.chars[i]) != 0;
    }
    if (!has_lower && !has_upper)
        return NULL;
    char *changed = gt_arena_alloc(g->arena, text->u.str.len + 1);
    if (changed == NULL)
        return mark(g, NULL);
    for (size_t i = 0; i < text->u.str.len; i++) {
        unsigned char c = (unsigned char)text->u.str.chars[i];
        changed[i] = (char)(has_lower ? toupper(c) : tolower(c));
    }
    changed[text->u.str.len] = '\0';
    return mark(g, gt_value_new_string(g->arena, changed, text->u.str.len));
}

static bool enum_has(const gt_value *list, const gt_value *value)
{
    for (size_t i = 0; i < list->u.arr.count; i++)
        if (gt_value_equal(list->u.arr.items[i], value))
            return true;
    return false;
}

static gt_value *gen_value(gen *g, const gt_value *schema, int depth, bool member);

static gt_value *gen_object(gen *g, const view *v, int depth)
{
    gt_value *object = mark(g, gt_value_new_object(g->arena));
    for (size_t i = 0; object && i < v->prop_count; i++) {
        bool required = false;
        for (size_t r = 0; r < v->required_count && !required; r++)
            required = strcmp(v->required[r], v->prop_names[i]) == 0;
        if (!required && g->mode != GEN_FULL)
            continue;
        gt_value *member = gen_value(g, v->prop_schemas[i], depth + 1, true);
        if (member == NULL)
            return NULL;
        if (gt_value_object_append(g->arena, object, v->prop_names[i], strlen(v->prop_names[i]), member) != 0)
            return mark(g, NULL);
    }
    /* required names no property declares: any value will do */
    for (size_t r = 0; object && r < v->required_count; r++) {
        if (gt_value_get(object, v->required[r], strlen(v->required[r])) != NULL)
            continue;
        bool declared = false;
        for (size_t i = 0; i < v->prop_count && !declared; i++)
            declared = strcmp(v->required[r], v->prop_names[i]) == 0;
        gt_value *member = mark(g, gt_value_new_string(g->arena, GT_DERIVE_PLACEHOLDER_TEXT,
                                                       strlen(GT_DERIVE_PLACEHOLDER_TEXT)));
        if (!declared && member &&
            gt_value_object_append(g->arena, object, v->required[r], strlen(v->required[r]), member) != 0)
            return mark(g, NULL);
    }
    return object;
}

static gt_value *gen_array(gen *g, const view *v, int depth)
{
    gt_value *array = mark(g, gt_value_new_array(g->arena));
    size_t want = v->min_items && v->min_items->type == GT_NUMBER ? (size_t)v->min_items->u.num.number : 0;
    size_t prefix = v->prefix_items && v->prefix_items->type == GT_ARRAY ? v->prefix_items->u.arr.count : 0;
    if (g->mode == GEN_LOOSE)
        want = 0;
    else if (g->mode == GEN_FULL && want == 0 && (v->items || prefix))
        want = 1;
    if (want > 64)
        want = 64;
    for (size_t i = 0; array && i < want; i++) {
        const gt_value *item_schema = i < prefix ? v->prefix_items->u.arr.items[i] : v->items;
        gt_value *item = item_schema && item_schema->type == GT_OBJECT ? gen_value(g, item_schema, depth + 1, false)
                                                                      : mark(g, gt_value_new_null(g->arena));
        if (item == NULL || gt_value_array_append(g->arena, array, item) != 0)
            return item ? mark(g, NULL) : NULL;
    }
    return array;
}

/* `member`: the value is a member of an object (nested-as-string turns the
 * first such object or array into its JSON text). */
static gt_value *gen_value(gen *g, const gt_value *schema, int depth, bool member)
{
    if (depth > GT_DERIVE_MAX_DEPTH) {
        snprintf(g->why, sizeof g->why, "the schema nests (or recurses) deeper than %d levels", GT_DERIVE_MAX_DEPTH);
        return NULL;
    }
    if (schema && schema->type == GT_TRUE)
        return mark(g, gt_value_new_string(g->arena, GT_DERIVE_PLACEHOLDER_TEXT, strlen(GT_DERIVE_PLACEHOLDER_TEXT)));
    if (schema == NULL || schema->type != GT_OBJECT) {
        snprintf(g->why, sizeof g->why, "a subschema is %s, which no instance satisfies",
                 schema && schema->type == GT_FALSE ? "false" : "not an object");
        return NULL;
    }
    view *v = calloc(1, sizeof *v);
    if (v == NULL)
        return mark(g, NULL);
    view_add(g, v, schema, 0); /* its own depth: a chain of $refs and allOfs, not the instance's nesting */
    gt_value *out = NULL;
    const char *type = view_type(v);
    /* nested-as-string takes the first object or array member in document order: claimed before its own
     * members are made, so an outer member wins over the ones inside it */
    bool claim = member && g->mutate == GT_DERIVE_NESTED_AS_STRING && !g->mutated && !v->constant && !v->enum_list &&
                 (strcmp(type, "object") == 0 || strcmp(type, "array") == 0);
    if (claim)
        g->mutated = true;
    if (g->mode != GEN_LOOSE && v->constant) {
        out = (gt_value *)v->constant;
    } else if (g->mode != GEN_LOOSE && v->enum_list && v->enum_list->type == GT_ARRAY && v->enum_list->u.arr.count) {
        out = (gt_value *)v->enum_list->u.arr.items[0];
        for (size_t i = 0; g->mutate == GT_DERIVE_ENUM_CASE && !g->mutated && i < v->enum_list->u.arr.count; i++) {
            const gt_value *item = v->enum_list->u.arr.items[i];
            gt_value *changed = item->type == GT_STRING ? other_case(g, item) : NULL;
            if (changed && !enum_has(v->enum_list, changed)) {
                out = changed;
                g->mutated = true;
            }
        }
    } else if (strcmp(type, "object") == 0) {
        out = gen_object(g, v, depth);
    } else if (strcmp(type, "array") == 0) {
        out = gen_array(g, v, depth);
    } else if (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0) {
        out = gen_number(g, v, strcmp(type, "integer") == 0);
    } else if (strcmp(type, "boolean") == 0) {
        out = mark(g, gt_value_new_bool(g->arena, g->mode != GEN_LOOSE));
    } else if (strcmp(type, "null") == 0) {
        out = mark(g, gt_value_new_null(g->arena));
    } else {
        out = gen_string(g, v);
    }
    free(v);
    if (out && claim) {
        size_t len;
        char *json = gt_value_to_json(out, &len);
        out = json ? mark(g, gt_value_new_string(g->arena, json, len)) : mark(g, NULL);
        free(json);
    }
    return out;
}

/* ---- cutting at a boundary ---- */

/* The length of the prefix of compact JSON `text` that ends at the nth
 * boundary of kind `at`, or 0 when it has fewer (`*found` the count). */
static size_t cut_point(const char *text, size_t len, gt_derive_boundary at, size_t nth, size_t *found)
{
    /* container stack: 'o' object, 'a' array; in objects, whether a string is a key */
    char stack[GT_DERIVE_MAX_DEPTH * 2 + 8];
    int top = -1;
    bool expect_key = false;
    size_t count = 0, last = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '"') {
            bool is_key = top >= 0 && stack[top] == 'o' && expect_key;
            size_t start = i;
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\')
                    i++;
            if (!is_key && at == GT_DERIVE_INSIDE_STRING && ++count == nth) {
                *found = count;
                /* after the string's first character (a whole escape or UTF-8 sequence), or its opening quote */
                size_t cut = start + 1;
                if (cut < i) {
                    if (text[cut] == '\\')
                        cut += text[cut + 1] == 'u' ? 6 : 2;
                    else {
                        cut++;
                        while (cut < i && ((unsigned char)text[cut] & 0xC0) == 0x80)
                            cut++;
                    }
                }
                return cut;
            }
            if (is_key)
                expect_key = false;
        } else if (c == '{' || c == '[') {
            if (top + 1 < (int)sizeof stack)
                stack[++top] = c == '{' ? 'o' : 'a';
            expect_key = c == '{';
        } else if (c == '}' || c == ']') {
            if (c == '}' && at == GT_DERIVE_BEFORE_CLOSE) {
                count++;
                last = i;
                if (count == nth) {
                    *found = count;
                    return i;
                }
            }
            if (top >= 0)
                top--;
        } else if (c == ',') {
            bool in_object = top >= 0 && stack[top] == 'o';
            if (in_object) {
                expect_key = true;
                if (at == GT_DERIVE_BETWEEN_MEMBERS && ++count == nth) {
                    *found = count;
                    return i + 1;
                }
            }
        }
    }
    *found = count;
    if (at == GT_DERIVE_BEFORE_CLOSE && nth == 0 && count > 0)
        return last; /* the default: the root's closing brace */
    return 0;
}

/* ---- the operators ---- */

static int inexpressible(char *why, size_t why_len, const char *format, ...) __attribute__((format(printf, 3, 4)));
static int inexpressible(char *why, size_t why_len, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(why, why_len, format, args);
    va_end(args);
    return 1;
}

/* Build one instance; NULL with g->why (or g->failed) when none. */
static gt_value *build(gt_arena *arena, const gt_value *root, gen_mode mode, gt_derive_op mutate, bool *mutated,
                       bool *failed, char *why, size_t why_len)
{
    gen g = {.arena = arena, .root = root, .mode = mode, .mutate = mutate};
    gt_value *out = gen_value(&g, root, 0, false);
    if (mutated)
        *mutated = g.mutated;
    *failed = g.failed;
    if (out == NULL && !g.failed)
        snprintf(why, why_len, "no instance of the schema could be built: %s", g.why[0] ? g.why : "unknown");
    return g.failed ? NULL : out;
}

/* 0 when `instance` validates against `schema_json`; 1 with `why`; -1 OOM. */
static int check_valid(const char *schema_json, size_t schema_len, const gt_value *instance, char *why,
                       size_t why_len)
{
    gt_schema_problem problem;
    gt_schema *schema = gt_schema_compile(schema_json, schema_len, NULL, &problem);
    if (schema == NULL)
        return inexpressible(why, why_len, "the schema does not compile, so no valid instance exists");
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    errors.max_errors = 1;
    gt_schema_result result = gt_schema_validate(schema, instance, &errors);
    int rc = 0;
    if (result == GT_SCHEMA_INVALID && errors.count > 0)
        rc = inexpressible(why, why_len, "the instance gauntlet built fails the schema at %s: %s (%s)",
                           errors.items[0].instance_path[0] ? errors.items[0].instance_path : "root",
                           errors.items[0].message, errors.items[0].keyword);
    else if (result != GT_SCHEMA_VALID)
        rc = errors.failure == GT_SCHEMA_FAILURE_OUT_OF_MEMORY
                 ? -1
                 : inexpressible(why, why_len, "the schema's validation stopped (%s)",
                                 gt_schema_failure_code_str(errors.failure));
    gt_schema_errors_free(&errors);
    gt_schema_free(schema);
    return rc;
}

static int take_text(const gt_value *value, size_t cut, char **text, size_t *len)
{
    size_t full;
    char *json = gt_value_to_json(value, &full);
    if (json == NULL)
        return -1;
    if (cut > 0 && cut < full)
        json[cut] = '\0', full = cut;
    *text = json;
    *len = full;
    return 0;
}

int gt_derive_text(const gt_derive_spec *spec, const char *schema_json, size_t schema_len, char **text, size_t *len,
                   char *why, size_t why_len)
{
    *text = NULL;
    *len = 0;
    why[0] = '\0';
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return -1;
    gt_parse_error error;
    const gt_value *root = schema_json ? gt_parse(arena, schema_json, schema_len, NULL, &error) : NULL;
    int rc;
    bool failed = false, mutated = false;
    gt_value *instance = NULL;
    if (root == NULL || root->type != GT_OBJECT) {
        rc = inexpressible(why, why_len, "%s", schema_json == NULL ? "the request carries no schema to derive from"
                                              : root == NULL      ? "the schema is not valid JSON"
                                                                  : "the schema is not a JSON object");
        goto done;
    }
    switch (spec->op) {
    case GT_DERIVE_SCHEMA_ECHO:
        rc = take_text(root, 0, text, len);
        goto done;
    case GT_DERIVE_LOOSE_PLACEHOLDER:
        instance = build(arena, root, GEN_LOOSE, GT_DERIVE_VALID, NULL, &failed, why, why_len);
        break;
    case GT_DERIVE_VALID: {
        instance = build(arena, root, GEN_MINIMAL, GT_DERIVE_VALID, NULL, &failed, why, why_len);
        if (instance && (rc = check_valid(schema_json, schema_len, instance, why, why_len)) != 0)
            goto done;
        break;
    }
    case GT_DERIVE_NESTED_AS_STRING:
    case GT_DERIVE_ENUM_CASE:
    case GT_DERIVE_CUT_AT: {
        /* the full instance, valid; then the same walk with the mutation */
        gt_value *valid = build(arena, root, GEN_FULL, GT_DERIVE_VALID, NULL, &failed, why, why_len);
        gen_mode mode = GEN_FULL;
        if (valid && check_valid(schema_json, schema_len, valid, why, why_len) != 0) {
            mode = GEN_MINIMAL; /* every declared member was too many (maxProperties, dependencies) */
            valid = build(arena, root, GEN_MINIMAL, GT_DERIVE_VALID, NULL, &failed, why, why_len);
            if (valid && (rc = check_valid(schema_json, schema_len, valid, why, why_len)) != 0)
                goto done;
        }
        if (valid == NULL || spec->op == GT_DERIVE_CUT_AT) {
            instance = valid;
            break;
        }
        instance = build(arena, root, mode, spec->op, &mutated, &failed, why, why_len);
        if (instance && !mutated) {
            rc = inexpressible(why, why_len, "%s",
                               spec->op == GT_DERIVE_ENUM_CASE
                                   ? "the schema has no enum with a string value whose other letter case it lacks"
                                   : "the schema has no object or array member to send as a string");
            goto done;
        }
        break;
    }
    default:
        rc = inexpressible(why, why_len, "unknown derive operator");
        goto done;
    }
    if (instance == NULL) {
        rc = failed ? -1 : 1;
        goto done;
    }
    size_t cut = 0;
    if (spec->op == GT_DERIVE_CUT_AT) {
        size_t full_len, found = 0;
        char *json = gt_value_to_json(instance, &full_len);
        if (json == NULL) {
            rc = -1;
            goto done;
        }
        size_t nth = spec->nth ? spec->nth : (spec->at == GT_DERIVE_BEFORE_CLOSE ? 0 : 1);
        cut = cut_point(json, full_len, spec->at, nth, &found);
        free(json);
        if (cut == 0) {
            rc = inexpressible(why, why_len, "a valid instance of the schema has %zu %s boundar%s, and cut-at asks for "
                                             "number %zu",
                               found, gt_derive_boundary_name(spec->at), found == 1 ? "y" : "ies", nth);
            goto done;
        }
    }
    rc = take_text(instance, cut, text, len);
done:
    gt_arena_free(arena);
    return rc;
}

int gt_derive_reply(const gt_derive_spec *spec, const char *schema_json, size_t schema_len, size_t turn,
                    gt_stream_provider provider, const char *model, gt_arena *arena, gt_loop_reply *reply, char *why,
                    size_t why_len)
{
    char *text = NULL;
    size_t len = 0;
    int rc = gt_derive_text(spec, schema_json, schema_len, &text, &len, why, why_len);
    if (rc != 0)
        return rc;
    memset(reply, 0, sizeof *reply);
    reply->turn = turn;
    gt_message *message = gt_arena_alloc(arena, sizeof *message);
    gt_block *block = gt_arena_alloc(arena, 2 * sizeof *block);
    char *input = gt_arena_strndup(arena, text, len);
    free(text);
    if (message == NULL || block == NULL || input == NULL)
        return -1;
    memset(message, 0, sizeof *message);
    memset(block, 0, 2 * sizeof *block);
    block->type = GT_BLOCK_TOOL_USE;
    block->id = spec->tool_use_id ? spec->tool_use_id : "toolu_derived";
    block->name = GT_LOOP_TOOL_NAME;
    block->input_text = input;
    block->input_len = len;
    message->id = spec->message_id ? spec->message_id : "msg_derived";
    message->blocks = block;
    message->block_count = 1;
    bool cut_stream = spec->op == GT_DERIVE_CUT_AT && !spec->max_tokens;
    message->stop_reason = spec->op == GT_DERIVE_CUT_AT && spec->max_tokens ? "max_tokens" : "tool_use";
    if (!cut_stream) {
        reply->kind = GT_LOOP_REPLY_MESSAGE;
        reply->message = message;
        return 0;
    }
    /* the canonical stream of the message, ended right after the last input delta: the connection dropped
     * before content_block_stop (Anthropic) / the finish chunk (OpenAI), three events and [DONE] short */
    gt_value *events = gt_stream_events_from_message(message, provider, 0, model ? model : "gauntlet-scripted", arena);
    if (events == NULL)
        return -1;
    size_t count = events->u.arr.count;
    size_t *ends = malloc((count ? count : 1) * sizeof *ends);
    gt_buffer out = {0};
    size_t bad = 0;
    if (ends == NULL || gt_stream_render_events(events, provider, &out, ends, &bad) != 0 || out.failed || count < 5) {
        free(ends);
        gt_buffer_free(&out);
        return -1;
    }
    size_t keep = ends[count - 4];
    free(ends);
    reply->kind = GT_LOOP_REPLY_STREAM;
    reply->provider = provider;
    reply->sse = gt_arena_strndup(arena, out.data, keep);
    reply->sse_len = keep;
    gt_buffer_free(&out);
    return reply->sse ? 0 : -1;
}
