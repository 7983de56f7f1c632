/* gen_schema.c — reading a JSON Schema for the generator: which keywords
 * apply to an instance location (through $ref, allOf and the anyOf/oneOf
 * branch the value takes), and synthesis of valid values, patterns included
 * (gen_schema.h). Synthesis is a best effort: the reference has the last
 * word on every value it builds. */
#include "gen_schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The schema a local reference ("#", "#/$defs/x") names, or NULL. */
static const cJSON *resolve_ref(const cJSON *root, const char *ref)
{
    if (ref[0] != '#')
        return NULL;
    if (ref[1] == '\0')
        return root;
    if (ref[1] != '/')
        return NULL;
    return gt_pointer_find((cJSON *)root, ref + 1, NULL);
}

/* The first schema (document order, the root first) carrying `$dynamicAnchor`
 * `anchor` (for "": `$recursiveAnchor: true`). */
static const cJSON *find_anchor(const cJSON *node, const char *anchor, int depth)
{
    if ((!cJSON_IsObject(node) && !cJSON_IsArray(node)) || depth > 64)
        return NULL;
    const cJSON *mark = cJSON_GetObjectItemCaseSensitive(node, anchor[0] ? "$dynamicAnchor" : "$recursiveAnchor");
    if (cJSON_IsObject(node) && ((anchor[0] && cJSON_IsString(mark) && strcmp(mark->valuestring, anchor) == 0) ||
                                 (!anchor[0] && cJSON_IsTrue(mark))))
        return node;
    for (const cJSON *child = node->child; child != NULL; child = child->next) {
        const cJSON *found = find_anchor(child, anchor, depth + 1);
        if (found != NULL)
            return found;
    }
    return NULL;
}

/* What "$dynamicRef": "#node" (or "$recursiveRef": "#") names: the outermost
 * schema with that dynamic anchor, which for a contract that extends a
 * generic tree is the contract itself; else a plain local reference. */
static const cJSON *resolve_dynamic(const cJSON *root, const char *ref)
{
    if (ref[0] == '#' && ref[1] != '/') {
        const cJSON *found = find_anchor(root, ref + 1, 0);
        if (found != NULL || ref[1] != '\0')
            return found;
    }
    return resolve_ref(root, ref);
}

static bool type_is(const cJSON *type, const char *name)
{
    if (cJSON_IsString(type))
        return strcmp(type->valuestring, name) == 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, type) if (cJSON_IsString(item) && strcmp(item->valuestring, name) == 0) return true;
    return false;
}

bool gt_gen_type_allows(const cJSON *type, const cJSON *value)
{
    if (type == NULL)
        return true;
    if (cJSON_IsObject(value))
        return type_is(type, "object");
    if (cJSON_IsArray(value))
        return type_is(type, "array");
    if (cJSON_IsString(value))
        return type_is(type, "string");
    if (cJSON_IsBool(value))
        return type_is(type, "boolean");
    if (cJSON_IsNull(value))
        return type_is(type, "null");
    if (cJSON_IsNumber(value))
        return type_is(type, "number") || (type_is(type, "integer") && value->valuedouble == floor(value->valuedouble));
    return false;
}

bool gt_gen_view_type_has(const gt_gen_view *view, const char *name)
{
    const cJSON *type = gt_gen_kw(view, "type");
    return type != NULL && type_is(type, name);
}

const cJSON *gt_gen_kw(const gt_gen_view *view, const char *keyword)
{
    for (size_t i = 0; i < view->count; i++) {
        const cJSON *found = cJSON_GetObjectItemCaseSensitive(view->parts[i], keyword);
        if (found != NULL)
            return found;
    }
    return NULL;
}

double gt_gen_kw_number(const gt_gen_view *view, const char *keyword, bool *present)
{
    const cJSON *found = gt_gen_kw(view, keyword);
    *present = cJSON_IsNumber(found);
    return *present ? found->valuedouble : 0;
}

static bool branch_fits(const cJSON *root, const cJSON *branch, const cJSON *value, int depth);

static void view_add(const cJSON *root, gt_gen_view *view, const cJSON *schema, const cJSON *value, uint64_t *choice,
                     int depth)
{
    if (!cJSON_IsObject(schema) || view->count == GT_GEN_VIEW_PARTS || depth > 16)
        return;
    view->parts[view->count++] = schema;
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(schema, "$ref");
    if (cJSON_IsString(ref)) {
        const cJSON *target = resolve_ref(root, ref->valuestring);
        if (target == NULL)
            view->unresolved = true;
        view_add(root, view, target, value, choice, depth + 1);
    }
    const cJSON *dynamic = cJSON_GetObjectItemCaseSensitive(schema, "$dynamicRef");
    if (!cJSON_IsString(dynamic))
        dynamic = cJSON_GetObjectItemCaseSensitive(schema, "$recursiveRef");
    if (cJSON_IsString(dynamic)) {
        const cJSON *target = resolve_dynamic(root, dynamic->valuestring);
        if (target == NULL)
            view->unresolved = true;
        view_add(root, view, target, value, choice, depth + 1);
    }
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(schema, "allOf");
    const cJSON *item;
    cJSON_ArrayForEach(item, all) view_add(root, view, item, value, choice, depth + 1);
    static const char *const unions[] = {"anyOf", "oneOf"};
    for (size_t u = 0; u < 2; u++) {
        const cJSON *branches = cJSON_GetObjectItemCaseSensitive(schema, unions[u]);
        int count = cJSON_GetArraySize(branches);
        if (!cJSON_IsArray(branches) || count == 0)
            continue;
        const cJSON *pick = NULL;
        if (value != NULL) {
            cJSON_ArrayForEach(item, branches) if (pick == NULL && branch_fits(root, item, value, depth + 1)) pick =
                item;
        } else {
            pick = cJSON_GetArrayItem(branches, choice ? (int)gt_rng_below(choice, (uint64_t)count) : 0);
        }
        if (pick != NULL)
            view->branch = true;
        view_add(root, view, pick, value, choice, depth + 1);
    }
}

void gt_gen_view_build(const cJSON *root, gt_gen_view *view, const cJSON *schema, const cJSON *value, uint64_t *choice)
{
    *view = (gt_gen_view){0};
    view->schema = schema;
    if (cJSON_IsFalse(schema))
        view->never = true;
    view_add(root, view, schema, value, choice, 0);
}

/* Whether `value` plausibly takes this branch of a union: its const, enum
 * and type, and for objects the const/enum members that tag the branch. */
static bool branch_fits(const cJSON *root, const cJSON *branch, const cJSON *value, int depth)
{
    gt_gen_view view;
    *(&view) = (gt_gen_view){0};
    view_add(root, &view, branch, NULL, NULL, depth);
    const cJSON *constant = gt_gen_kw(&view, "const");
    if (constant != NULL && !cJSON_Compare(constant, value, true))
        return false;
    const cJSON *members = gt_gen_kw(&view, "enum");
    if (cJSON_IsArray(members)) {
        bool found = false;
        const cJSON *item;
        cJSON_ArrayForEach(item, members) found = found || cJSON_Compare(item, value, true);
        if (!found)
            return false;
    }
    if (!gt_gen_type_allows(gt_gen_kw(&view, "type"), value))
        return false;
    if (!cJSON_IsObject(value))
        return true;
    for (size_t i = 0; i < view.count; i++) {
        const cJSON *property;
        cJSON_ArrayForEach(property, cJSON_GetObjectItemCaseSensitive(view.parts[i], "properties"))
        {
            const cJSON *member = cJSON_GetObjectItemCaseSensitive(value, property->string);
            const cJSON *tag = cJSON_GetObjectItemCaseSensitive(property, "const");
            if (member != NULL && tag != NULL && !cJSON_Compare(tag, member, true))
                return false;
        }
        const cJSON *name;
        cJSON_ArrayForEach(name, cJSON_GetObjectItemCaseSensitive(view.parts[i], "required"))
        {
            if (cJSON_IsString(name) && cJSON_GetObjectItemCaseSensitive(value, name->valuestring) == NULL)
                return false;
        }
    }
    return true;
}

const cJSON *gt_gen_property_schema(const gt_gen_view *view, const char *name)
{
    for (size_t i = 0; i < view->count; i++) {
        const cJSON *found =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(view->parts[i], "properties"), name);
        if (found != NULL)
            return found;
    }
    const cJSON *additional = gt_gen_kw(view, "additionalProperties");
    return cJSON_IsObject(additional) ? additional : NULL;
}

const cJSON *gt_gen_item_schema(const gt_gen_view *view, size_t index)
{
    const cJSON *prefix = gt_gen_kw(view, "prefixItems");
    if (cJSON_IsArray(prefix) && index < (size_t)cJSON_GetArraySize(prefix))
        return cJSON_GetArrayItem(prefix, (int)index);
    const cJSON *items = gt_gen_kw(view, "items");
    if (cJSON_IsArray(items)) /* draft 4-2019 tuple form */
        return index < (size_t)cJSON_GetArraySize(items) ? cJSON_GetArrayItem(items, (int)index)
                                                         : gt_gen_kw(view, "additionalItems");
    return items;
}

bool gt_gen_required(const gt_gen_view *view, const char *name)
{
    for (size_t i = 0; i < view->count; i++) {
        const cJSON *item;
        cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(view->parts[i], "required"))
        {
            if (cJSON_IsString(item) && strcmp(item->valuestring, name) == 0)
                return true;
        }
    }
    return false;
}

/* ---- numbers ---- */

void gt_gen_number_facts_read(const gt_gen_view *view, gt_gen_number_facts *facts)
{
    bool present;
    *facts = (gt_gen_number_facts){0};
    facts->integer = gt_gen_view_type_has(view, "integer") && !gt_gen_view_type_has(view, "number");
    facts->multiple = gt_gen_kw_number(view, "multipleOf", &present);
    if (!present || facts->multiple <= 0)
        facts->multiple = 0;
    double value = gt_gen_kw_number(view, "minimum", &present);
    if (present)
        facts->has_low = true, facts->low = value;
    value = gt_gen_kw_number(view, "exclusiveMinimum", &present);
    if (present && (!facts->has_low || value >= facts->low))
        facts->has_low = true, facts->low = value, facts->low_exclusive = true;
    if (facts->has_low && cJSON_IsTrue(gt_gen_kw(view, "exclusiveMinimum"))) /* draft 4: a flag on minimum */
        facts->low_exclusive = true;
    value = gt_gen_kw_number(view, "maximum", &present);
    if (present)
        facts->has_high = true, facts->high = value;
    value = gt_gen_kw_number(view, "exclusiveMaximum", &present);
    if (present && (!facts->has_high || value <= facts->high))
        facts->has_high = true, facts->high = value, facts->high_exclusive = true;
    if (facts->has_high && cJSON_IsTrue(gt_gen_kw(view, "exclusiveMaximum")))
        facts->high_exclusive = true;
}

/* The step between neighbouring allowed values, or 0 when they are dense. */
static double step_of(const gt_gen_number_facts *facts)
{
    if (facts->multiple > 0)
        return facts->integer && facts->multiple < 1 ? ceil(facts->multiple) : facts->multiple;
    return facts->integer ? 1 : 0;
}

bool gt_gen_number_low(const gt_gen_number_facts *facts, double *out)
{
    double step = step_of(facts);
    if (!facts->has_low || (step == 0 && facts->low_exclusive))
        return false;
    double value = step > 0 ? ceil(facts->low / step - 1e-9) * step : facts->low;
    if (facts->low_exclusive && value <= facts->low)
        value += step;
    if (facts->has_high && (value > facts->high || (facts->high_exclusive && value >= facts->high)))
        return false;
    *out = value;
    return true;
}

bool gt_gen_number_high(const gt_gen_number_facts *facts, double *out)
{
    double step = step_of(facts);
    if (!facts->has_high || (step == 0 && facts->high_exclusive))
        return false;
    double value = step > 0 ? floor(facts->high / step + 1e-9) * step : facts->high;
    if (facts->high_exclusive && value >= facts->high)
        value -= step;
    if (facts->has_low && (value < facts->low || (facts->low_exclusive && value <= facts->low)))
        return false;
    *out = value;
    return true;
}

static bool number_inside(const gt_gen_number_facts *facts, double value)
{
    if (facts->has_low && (value < facts->low || (facts->low_exclusive && value <= facts->low)))
        return false;
    if (facts->has_high && (value > facts->high || (facts->high_exclusive && value >= facts->high)))
        return false;
    return true;
}

static cJSON *synth_number(const gt_gen_view *view, bool random, uint64_t *rng, unsigned variant)
{
    gt_gen_number_facts facts;
    gt_gen_number_facts_read(view, &facts);
    double step = step_of(&facts);
    if (step == 0)
        step = 1;
    double low, value;
    bool has_low = gt_gen_number_low(&facts, &low);
    double start = has_low ? low : 0;
    if (!has_low && !number_inside(&facts, 0)) {
        double high;
        start = gt_gen_number_high(&facts, &high) ? high - 60 * step : facts.has_low ? facts.low + 1 : 0;
        if (!number_inside(&facts, start) && facts.has_low && facts.has_high)
            start = (facts.low + facts.high) / 2; /* two exclusive bounds of a dense number */
    }
    unsigned offset = variant + (random ? (unsigned)gt_rng_below(rng, 50) : 0);
    value = start + offset * step;
    if (!number_inside(&facts, value))
        value = start;
    if (!has_low && number_inside(&facts, (double)offset * step))
        value = (double)offset * step;
    return cJSON_CreateNumber(value);
}

/* ---- patterns ---- */

typedef struct regex_gen {
    const char *p, *end;
    gt_buf *out;
    uint64_t *rng;   /* NULL: the shortest, first choice everywhere */
    const char *why; /* why the pattern is out of reach, or NULL */
} regex_gen;

static void rx_alternation(regex_gen *rx, int depth);

static unsigned rx_pick(regex_gen *rx, unsigned count)
{
    return rx->rng ? (unsigned)gt_rng_below(rx->rng, count) : 0;
}

static void rx_utf8(gt_buf *out, unsigned cp)
{
    char bytes[4];
    size_t len = 0;
    if (cp < 0x80) {
        bytes[len++] = (char)cp;
    } else if (cp < 0x800) {
        bytes[len++] = (char)(0xC0 | (cp >> 6));
        bytes[len++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        bytes[len++] = (char)(0xE0 | (cp >> 12));
        bytes[len++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        bytes[len++] = (char)(0x80 | (cp & 0x3F));
    } else {
        bytes[len++] = (char)(0xF0 | (cp >> 18));
        bytes[len++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        bytes[len++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        bytes[len++] = (char)(0x80 | (cp & 0x3F));
    }
    gt_buf_add(out, bytes, len);
}

/* A class escape (\d \w \s and their negations) into `set`. True when `c` is one. */
static bool rx_class_escape(char c, bool set[128])
{
    bool negate = c == 'D' || c == 'W' || c == 'S';
    char lower = (char)(c | 0x20);
    if (lower != 'd' && lower != 'w' && lower != 's')
        return false;
    for (int ch = 0; ch < 128; ch++) {
        bool in = lower == 'd' ? (ch >= '0' && ch <= '9')
                  : lower == 'w'
                      ? ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_')
                      : (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v');
        if (in != negate)
            set[ch] = true;
    }
    return true;
}

static int rx_escaped_char(regex_gen *rx)
{
    char c = *rx->p++;
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'v': return '\v';
    case 'x':
        if (rx->end - rx->p >= 2) {
            char hex[3] = {rx->p[0], rx->p[1], 0};
            rx->p += 2;
            return (int)strtol(hex, NULL, 16);
        }
        break;
    default:
        if ((c >= '1' && c <= '9') || c == 'b' || c == 'B' || c == 'p' || c == 'P' || c == 'k' || c == 'u') {
            rx->why = "back-references, \\b, \\p{...} and \\u escapes";
            return -1;
        }
        return (unsigned char)c;
    }
    rx->why = "an escape it cannot read";
    return -1;
}

static void rx_class(regex_gen *rx)
{
    bool set[128] = {false};
    bool negate = rx->p < rx->end && *rx->p == '^';
    if (negate)
        rx->p++;
    bool first = true;
    while (rx->p < rx->end && (*rx->p != ']' || first)) {
        first = false;
        int low;
        if (*rx->p == '\\' && rx->p + 1 < rx->end) {
            rx->p++;
            if (rx_class_escape(*rx->p, set)) {
                rx->p++;
                continue;
            }
            low = rx_escaped_char(rx);
        } else {
            low = (unsigned char)*rx->p++;
        }
        if (low < 0 || low >= 128) {
            rx->why = rx->why ? rx->why : "a character class beyond ASCII";
            return;
        }
        int high = low;
        if (rx->p + 1 < rx->end && *rx->p == '-' && rx->p[1] != ']') {
            rx->p++;
            high = *rx->p == '\\' ? (rx->p++, rx_escaped_char(rx)) : (unsigned char)*rx->p++;
            if (high < low || high >= 128) {
                rx->why = rx->why ? rx->why : "a character class beyond ASCII";
                return;
            }
        }
        for (int ch = low; ch <= high; ch++)
            set[ch] = true;
    }
    if (rx->p >= rx->end) {
        rx->why = "an unterminated character class";
        return;
    }
    rx->p++; /* ']' */
    char members[128];
    unsigned count = 0;
    /* printable members first, letters and digits before punctuation */
    static const char order[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_. @:/+~!#$%&*=?";
    for (const char *o = order; *o; o++)
        if (set[(unsigned char)*o] != negate)
            members[count++] = *o;
    if (count == 0) {
        rx->why = "an empty character class";
        return;
    }
    gt_buf_add(rx->out, &members[rx_pick(rx, count)], 1);
}

/* One atom; returns false at the end of a sequence. */
static void rx_atom(regex_gen *rx, int depth)
{
    char c = *rx->p++;
    if (c == '(') {
        if (rx->p < rx->end && *rx->p == '?') {
            if (rx->p + 1 < rx->end && rx->p[1] == ':') {
                rx->p += 2;
            } else if (rx->p + 2 < rx->end && rx->p[1] == '<' && rx->p[2] != '=' && rx->p[2] != '!') {
                const char *close = memchr(rx->p, '>', (size_t)(rx->end - rx->p));
                if (close == NULL) {
                    rx->why = "an unterminated group name";
                    return;
                }
                rx->p = close + 1;
            } else {
                rx->why = "lookaround assertions and inline flags";
                return;
            }
        }
        rx_alternation(rx, depth + 1);
        if (rx->why == NULL && (rx->p >= rx->end || *rx->p != ')'))
            rx->why = "an unbalanced group";
        else if (rx->why == NULL)
            rx->p++;
    } else if (c == '[') {
        rx_class(rx);
    } else if (c == '.') {
        gt_buf_add(rx->out, rx->rng ? &"abcxyz"[rx_pick(rx, 6)] : "a", 1);
    } else if (c == '\\' && rx->p < rx->end) {
        bool set[128] = {false};
        if (rx_class_escape(*rx->p, set)) {
            rx->p++;
            static const char order[] = "a0x9_- ";
            for (const char *o = order; *o; o++)
                if (set[(unsigned char)*o]) {
                    gt_buf_add(rx->out, o, 1);
                    return;
                }
            return;
        }
        int ch = rx_escaped_char(rx);
        if (ch >= 0)
            rx_utf8(rx->out, (unsigned)ch);
    } else if (c == '^' || c == '$') {
        /* anchors write nothing */
    } else {
        gt_buf_add(rx->out, &c, 1);
        while (rx->p < rx->end && ((unsigned char)*rx->p & 0xC0) == 0x80) /* the rest of a UTF-8 character */
            gt_buf_add(rx->out, rx->p++, 1);
    }
}

/* A quantifier at rx->p: its bounds (max -1 = unbounded); false when none. */
static bool rx_quantifier(regex_gen *rx, long *min, long *max)
{
    if (rx->p >= rx->end)
        return false;
    char c = *rx->p;
    if (c == '?' || c == '*' || c == '+') {
        rx->p++;
        *min = c == '+' ? 1 : 0;
        *max = c == '?' ? 1 : -1;
    } else if (c == '{') {
        char *end;
        long low = strtol(rx->p + 1, &end, 10);
        if (end == rx->p + 1)
            return false; /* a literal brace */
        long high = low;
        if (*end == ',') {
            high = end[1] == '}' ? -1 : strtol(end + 1, &end, 10);
            if (high == -1)
                end++;
        }
        if (*end != '}')
            return false;
        rx->p = end + 1;
        *min = low;
        *max = high;
    } else {
        return false;
    }
    if (rx->p < rx->end && (*rx->p == '?' || *rx->p == '+')) /* lazy, possessive */
        rx->p++;
    return true;
}

static void rx_sequence(regex_gen *rx, int depth)
{
    while (rx->why == NULL && rx->p < rx->end && *rx->p != '|' && *rx->p != ')') {
        const char *atom = rx->p;
        size_t before = rx->out->len;
        rx_atom(rx, depth);
        long min, max;
        if (rx->why != NULL || !rx_quantifier(rx, &min, &max))
            continue;
        const char *after = rx->p;
        long spread = (max < 0 ? min + 3 : max) - min;
        long times = min + (rx->rng && spread > 0 ? (long)gt_rng_below(rx->rng, (uint64_t)spread + 1) : 0);
        if (times > 64)
            times = 64 > min ? 64 : min;
        if (times == 0) {
            rx->out->len = before;
            if (rx->out->data)
                rx->out->data[before] = '\0';
        }
        for (long i = 1; i < times && rx->why == NULL; i++) {
            rx->p = atom;
            rx_atom(rx, depth);
        }
        rx->p = after;
    }
}

/* Skip one alternative without writing it. */
static void rx_skip(regex_gen *rx)
{
    int level = 0;
    while (rx->p < rx->end) {
        char c = *rx->p;
        if (c == '\\') {
            rx->p += rx->p + 1 < rx->end ? 2 : 1;
            continue;
        }
        if (c == '[') {
            rx->p++;
            if (rx->p < rx->end && *rx->p == '^')
                rx->p++;
            if (rx->p < rx->end && *rx->p == ']')
                rx->p++;
            while (rx->p < rx->end && *rx->p != ']')
                rx->p += *rx->p == '\\' ? 2 : 1;
            rx->p++;
            continue;
        }
        if (c == '(')
            level++;
        else if (c == ')' && level-- == 0)
            return;
        else if (c == '|' && level == 0)
            return;
        rx->p++;
    }
}

static void rx_alternation(regex_gen *rx, int depth)
{
    if (depth > 32) {
        rx->why = "nesting deeper than 32 groups";
        return;
    }
    /* count the alternatives at this level, then write the chosen one */
    const char *start = rx->p;
    unsigned count = 1;
    for (;;) {
        rx_skip(rx);
        if (rx->p < rx->end && *rx->p == '|') {
            rx->p++;
            count++;
            continue;
        }
        break;
    }
    const char *stop = rx->p;
    rx->p = start;
    unsigned chosen = rx_pick(rx, count);
    for (unsigned i = 0; i < chosen; i++) {
        rx_skip(rx);
        rx->p++;
    }
    rx_sequence(rx, depth);
    if (rx->why == NULL)
        rx->p = stop;
}

char *gt_gen_pattern_string(const char *pattern, uint64_t *rng, const char **why)
{
    gt_buf out = {0};
    regex_gen rx = {.p = pattern, .end = pattern + strlen(pattern), .out = &out, .rng = rng};
    rx_alternation(&rx, 0);
    if (rx.why == NULL && rx.p < rx.end)
        rx.why = "an unbalanced group";
    if (rx.why != NULL) {
        *why = rx.why;
        gt_buf_free(&out);
        return NULL;
    }
    *why = NULL;
    return gt_buf_take(&out, NULL);
}

/* ---- strings ---- */

static const struct {
    const char *format, *valid;
} format_samples[] = {
    {"date", "2024-03-15"},
    {"date-time", "2024-03-15T10:20:30Z"},
    {"time", "10:20:30Z"},
    {"duration", "P3D"},
    {"email", "user@example.com"},
    {"idn-email", "user@example.com"},
    {"hostname", "example.com"},
    {"idn-hostname", "example.com"},
    {"ipv4", "192.0.2.1"},
    {"ipv6", "2001:db8::1"},
    {"uri", "https://example.com/a"},
    {"uri-reference", "https://example.com/a"},
    {"iri", "https://example.com/a"},
    {"iri-reference", "https://example.com/a"},
    {"uuid", "123e4567-e89b-12d3-a456-426614174000"},
    {"json-pointer", "/a/b"},
    {"relative-json-pointer", "0/a"},
    {"regex", "^a+$"},
};

const char *gt_gen_format_sample(const char *format)
{
    for (size_t i = 0; i < sizeof format_samples / sizeof format_samples[0]; i++)
        if (strcmp(format, format_samples[i].format) == 0)
            return format_samples[i].valid;
    return NULL;
}

static const char *const words[] = {"refund", "order",   "late",  "invoice", "customer", "asked",
                                    "twice",  "shipped", "error", "billing", "account",  "again"};

size_t gt_gen_utf8_length(const char *text)
{
    size_t count = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        count += (*p & 0xC0) != 0x80;
    return count;
}

char *gt_gen_text_of_length(size_t length, uint64_t *rng)
{
    char *text = malloc(length + 1);
    if (text == NULL)
        return NULL;
    size_t at = 0;
    while (at < length) {
        const char *word = words[rng ? gt_rng_below(rng, sizeof words / sizeof words[0]) : 0];
        for (const char *w = word; *w && at < length; w++)
            text[at++] = *w;
        if (at < length)
            text[at++] = ' ';
    }
    if (length > 1 && text[length - 1] == ' ')
        text[length - 1] = 'x';
    text[length] = '\0';
    return text;
}

static cJSON *synth_string(const gt_gen_view *view, bool random, uint64_t *rng, unsigned variant, const char **why)
{
    bool has_min, has_max;
    double min = gt_gen_kw_number(view, "minLength", &has_min);
    double max = gt_gen_kw_number(view, "maxLength", &has_max);
    const cJSON *pattern = gt_gen_kw(view, "pattern");
    const cJSON *format = gt_gen_kw(view, "format");
    if (cJSON_IsString(pattern)) {
        char *text = NULL;
        /* a few tries for a length inside the bounds and, for variants, another string */
        for (unsigned attempt = 0; attempt < 8 + variant; attempt++) {
            free(text);
            text = gt_gen_pattern_string(pattern->valuestring, attempt == 0 && !random ? NULL : rng, why);
            if (text == NULL)
                return NULL;
            size_t length = gt_gen_utf8_length(text);
            bool fits = (!has_min || length >= min) && (!has_max || length <= max);
            if (fits && attempt >= variant)
                break;
        }
        cJSON *made = cJSON_CreateString(text);
        free(text);
        return made;
    }
    if (cJSON_IsString(format) && gt_gen_format_sample(format->valuestring) != NULL && variant == 0)
        return cJSON_CreateString(gt_gen_format_sample(format->valuestring));
    size_t low = has_min && min > 0 ? (size_t)min : 0;
    size_t high = has_max && max >= 0 ? (size_t)max : low + 40;
    size_t length = random ? low + (size_t)gt_rng_below(rng, (high - low < 30 ? high - low : 30) + 1) : low;
    if (length == 0 && high > 0)
        length = 1;
    if (length > GT_GEN_MAX_BOUNDARY_LENGTH)
        length = low > GT_GEN_MAX_BOUNDARY_LENGTH ? low : GT_GEN_MAX_BOUNDARY_LENGTH;
    char *text = gt_gen_text_of_length(length, random ? rng : NULL);
    if (text == NULL)
        return NULL;
    if (variant > 0) { /* distinct strings for uniqueItems: end with the variant's digits */
        char digits[24];
        int n = snprintf(digits, sizeof digits, "%u", variant);
        if ((size_t)n <= length)
            memcpy(text + length - (size_t)n, digits, (size_t)n);
        else if (high >= (size_t)n) {
            free(text);
            text = strdup(digits);
        }
    }
    cJSON *made = text ? cJSON_CreateString(text) : NULL;
    free(text);
    return made;
}

/* ---- synthesis ---- */

static cJSON *synthesize(const cJSON *root, const cJSON *schema, bool full, uint64_t *rng, unsigned variant, int depth,
                         char *why, size_t why_len, const char *path, const char *forced_kind);

cJSON *gt_gen_synthesize(const cJSON *root, const cJSON *schema, bool full, uint64_t *rng, unsigned variant, int depth,
                         char *why, size_t why_len, const char *path)
{
    return synthesize(root, schema, full, rng, variant, depth, why, why_len, path, NULL);
}

cJSON *gt_gen_synthesize_kind(const cJSON *root, const cJSON *schema, const char *kind, bool full, uint64_t *rng,
                              char *why, size_t why_len)
{
    return synthesize(root, schema, full, rng, 0, 0, why, why_len, "", kind);
}

static cJSON *synthesize(const cJSON *root, const cJSON *schema, bool full, uint64_t *rng, unsigned variant, int depth,
                         char *why, size_t why_len, const char *path, const char *forced_kind)
{
    if (depth > 24) {
        snprintf(why, why_len, "%s: the schema nests deeper than the generator follows", path);
        return NULL;
    }
    if (schema == NULL || cJSON_IsTrue(schema))
        return cJSON_CreateString("x");
    if (depth >= GT_GEN_FULL_DEPTH)
        full = false; /* deeper down, the minimal shape: a recursive schema ends */
    gt_gen_view view;
    gt_gen_view_build(root, &view, schema, NULL, full ? rng : NULL);
    if (view.never || !cJSON_IsObject(schema)) {
        snprintf(why, why_len, "%s: the schema is false (no value is valid)", path[0] ? path : "/");
        return NULL;
    }
    if (view.unresolved) {
        snprintf(why, why_len, "%s: a $ref outside the schema document", path[0] ? path : "/");
        return NULL;
    }
    const cJSON *constant = gt_gen_kw(&view, "const");
    if (constant != NULL)
        return cJSON_Duplicate(constant, true);
    const cJSON *members = gt_gen_kw(&view, "enum");
    if (cJSON_IsArray(members) && cJSON_GetArraySize(members) > 0) {
        int count = cJSON_GetArraySize(members);
        int pick = (int)((variant + (full ? gt_rng_below(rng, (uint64_t)count) : 0)) % (unsigned)count);
        return cJSON_Duplicate(cJSON_GetArrayItem(members, pick), true);
    }
    const cJSON *type = gt_gen_kw(&view, "type");
    const char *kind = NULL;
    static const char *const kinds[] = {"object", "array", "string", "integer", "number", "boolean", "null"};
    const char *listed[7];
    size_t listed_count = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (type != NULL && type_is(type, kinds[i]) && (i < 6 || listed_count == 0)) /* null only when alone */
            listed[listed_count++] = kinds[i];
    if (listed_count > 0) /* the minimal instance takes the first listed; the full one any of them */
        kind = listed[full ? gt_rng_below(rng, listed_count) : 0];
    if (forced_kind != NULL && type != NULL && type_is(type, forced_kind))
        kind = forced_kind;
    if (kind == NULL) {
        kind = gt_gen_kw(&view, "properties") || gt_gen_kw(&view, "required") ? "object"
               : gt_gen_kw(&view, "items") || gt_gen_kw(&view, "prefixItems") ? "array"
               : gt_gen_kw(&view, "minimum") || gt_gen_kw(&view, "maximum") || gt_gen_kw(&view, "multipleOf")
                   ? "number"
                   : "string";
    }
    if (strcmp(kind, "object") == 0) {
        cJSON *object = cJSON_CreateObject();
        for (size_t i = 0; object != NULL && i < view.count; i++) {
            const cJSON *property;
            cJSON_ArrayForEach(property, cJSON_GetObjectItemCaseSensitive(view.parts[i], "properties"))
            {
                if (cJSON_GetObjectItemCaseSensitive(object, property->string) != NULL ||
                    (!full && !gt_gen_required(&view, property->string)))
                    continue;
                char *child_path = gt_pointer_append(path, property->string);
                cJSON *child = child_path ? gt_gen_synthesize(root, property, full, rng, variant, depth + 1, why,
                                                              why_len, child_path)
                                          : NULL;
                free(child_path);
                if (child == NULL) {
                    cJSON_Delete(object);
                    return NULL;
                }
                cJSON_AddItemToObject(object, property->string, child);
            }
        }
        for (size_t i = 0; object != NULL && i < view.count; i++) {
            const cJSON *name;
            cJSON_ArrayForEach(name, cJSON_GetObjectItemCaseSensitive(view.parts[i], "required"))
            {
                if (!cJSON_IsString(name) || cJSON_GetObjectItemCaseSensitive(object, name->valuestring) != NULL)
                    continue;
                char *child_path = gt_pointer_append(path, name->valuestring);
                cJSON *child = child_path ? gt_gen_synthesize(root, gt_gen_property_schema(&view, name->valuestring),
                                                              full, rng, variant, depth + 1, why, why_len, child_path)
                                          : NULL;
                free(child_path);
                if (child == NULL) {
                    cJSON_Delete(object);
                    return NULL;
                }
                cJSON_AddItemToObject(object, name->valuestring, child);
            }
        }
        return object;
    }
    if (strcmp(kind, "array") == 0) {
        bool has_min, has_max;
        double min = gt_gen_kw_number(&view, "minItems", &has_min);
        double max = gt_gen_kw_number(&view, "maxItems", &has_max);
        size_t count = has_min && min > 0 ? (size_t)min : 0;
        /* the full instance holds two elements where it may: paths inside, and a sibling */
        for (size_t want = 1; full && want <= 2; want++)
            if (count < want && (!has_max || max >= (double)want) && !cJSON_IsFalse(gt_gen_item_schema(&view, 0)))
                count = want;
        const cJSON *prefix = gt_gen_kw(&view, "prefixItems");
        if (full && cJSON_IsArray(prefix) && (size_t)cJSON_GetArraySize(prefix) > count)
            count = (size_t)cJSON_GetArraySize(prefix);
        if (count > GT_GEN_MAX_BOUNDARY_LENGTH) {
            snprintf(why, why_len, "%s: minItems is over %d", path[0] ? path : "/", GT_GEN_MAX_BOUNDARY_LENGTH);
            return NULL;
        }
        const cJSON *contains = gt_gen_kw(&view, "contains");
        double min_contains = gt_gen_kw_number(&view, "minContains", &has_min);
        size_t containing = contains == NULL ? 0 : has_min ? (size_t)min_contains : 1;
        if (containing > count)
            count = containing;
        cJSON *array = cJSON_CreateArray();
        for (size_t i = 0; array != NULL && i < count; i++) {
            char index[24];
            snprintf(index, sizeof index, "%zu", i);
            char *child_path = gt_pointer_append(path, index);
            cJSON *child = child_path
                               ? gt_gen_synthesize(root, i < containing ? contains : gt_gen_item_schema(&view, i), full,
                                                   rng, variant * 31 + (unsigned)i, depth + 1, why, why_len, child_path)
                               : NULL;
            free(child_path);
            if (child == NULL) {
                cJSON_Delete(array);
                return NULL;
            }
            cJSON_AddItemToArray(array, child);
        }
        return array;
    }
    if (strcmp(kind, "string") == 0) {
        const char *reason = NULL;
        cJSON *made = synth_string(&view, full, rng, variant, &reason);
        if (made == NULL && reason != NULL)
            snprintf(why, why_len, "%s: pattern /%s/ uses %s, which the generator cannot satisfy", path[0] ? path : "/",
                     cJSON_GetStringValue(gt_gen_kw(&view, "pattern")), reason);
        else if (made == NULL)
            snprintf(why, why_len, "out of memory");
        return made;
    }
    if (strcmp(kind, "integer") == 0 || strcmp(kind, "number") == 0)
        return synth_number(&view, full, rng, variant);
    if (strcmp(kind, "boolean") == 0)
        return cJSON_CreateBool(((variant + (full ? gt_rng_below(rng, 2) : 1)) & 1) != 0);
    return cJSON_CreateNull();
}
