/* wire_transform.c — the SDK-style transform of seed 004.
 *
 * What anthropic-sdk-python `transform_schema` and anthropic-sdk-typescript
 * `transformJSONSchema` do to a schema before it goes on the wire: keep what
 * the API supports, close every object (additionalProperties false), and move
 * every other keyword into the description as "\n\n{key: value, ...}" so the
 * model *might* follow it; validation keeps using the original schema. The
 * flavour only changes how values are written (Python str() or
 * JSON.stringify). Where gauntlet deliberately differs from the SDKs (type
 * arrays, a combinator beside "type": "object", complex enums, boolean
 * subschemas, definitions, reference checks) docs/wire.md says so and why.
 * Not for: the strict subset of seed 000 (wire_strict.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/wire.h"
#include "wire_internal.h"

/* String formats both SDKs keep (SupportedStringFormats / SUPPORTED_STRING_FORMATS). */
static const char *const kept_formats[] = {"date-time", "time",     "date", "duration", "email",
                                           "hostname",  "uri",      "ipv4", "ipv6",     "uuid"};
static const char *const type_names[] = {"object", "array", "string", "integer", "number", "boolean", "null"};

int gt_wire_flavor_from_name(const char *name)
{
    if (name == NULL)
        return -1;
    if (strcmp(name, "python") == 0)
        return GT_WIRE_FLAVOR_PYTHON;
    if (strcmp(name, "typescript") == 0)
        return GT_WIRE_FLAVOR_TYPESCRIPT;
    return -1;
}

/* ---- rendering values --------------------------------------------------- */

typedef struct text_buf {
    char *data;
    size_t len, cap;
    bool failed;
} text_buf;

static void put_bytes(text_buf *buf, const char *bytes, size_t len)
{
    if (buf->failed)
        return;
    if (buf->len + len + 1 > buf->cap) {
        size_t cap = buf->cap ? buf->cap : 64;
        while (cap < buf->len + len + 1)
            cap *= 2;
        char *bigger = realloc(buf->data, cap);
        if (bigger == NULL) {
            buf->failed = true;
            return;
        }
        buf->data = bigger;
        buf->cap = cap;
    }
    memcpy(buf->data + buf->len, bytes, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
}

static void put_text(text_buf *buf, const char *text)
{
    put_bytes(buf, text, strlen(text));
}

/* Shortest decimal digits that read back as `number` (positive, finite):
 * digits without a point, and the exponent `point` such that the value is
 * 0.DIGITS x 10^point. */
static void shortest_digits(double number, char *digits, int *point)
{
    char text[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(text, sizeof text, "%.*e", precision - 1, number);
        if (strtod(text, NULL) == number)
            break;
    }
    size_t used = 0;
    const char *p = text;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[used++] = *p;
    while (used > 1 && digits[used - 1] == '0')
        used--;
    digits[used] = '\0';
    *point = atoi(p + 1) + 1;
}

/* Python float repr: fixed notation for exponents -4..15, else d.ddde+XX. */
static void python_float(text_buf *buf, double number)
{
    if (number == 0) {
        put_text(buf, signbit(number) ? "-0.0" : "0.0");
        return;
    }
    if (number < 0) {
        put_text(buf, "-");
        number = -number;
    }
    char digits[40];
    int point;
    shortest_digits(number, digits, &point);
    int count = (int)strlen(digits), exponent = point - 1;
    char out[400];
    if (exponent < -4 || exponent >= 16) {
        int n = snprintf(out, sizeof out, "%c", digits[0]);
        if (count > 1)
            n += snprintf(out + n, sizeof out - (size_t)n, ".%s", digits + 1);
        snprintf(out + n, sizeof out - (size_t)n, "e%c%02d", exponent < 0 ? '-' : '+', abs(exponent));
    } else if (point <= 0) {
        int n = snprintf(out, sizeof out, "0.");
        for (int i = 0; i < -point; i++)
            out[n++] = '0';
        snprintf(out + n, sizeof out - (size_t)n, "%s", digits);
    } else if (point >= count) {
        int n = snprintf(out, sizeof out, "%s", digits);
        for (int i = count; i < point; i++)
            out[n++] = '0';
        snprintf(out + n, sizeof out - (size_t)n, ".0");
    } else {
        snprintf(out, sizeof out, "%.*s.%s", point, digits, digits + point);
    }
    put_text(buf, out);
}

/* ECMAScript Number::toString. */
static void js_number(text_buf *buf, double number)
{
    if (number == 0) {
        put_text(buf, "0");
        return;
    }
    if (number < 0) {
        put_text(buf, "-");
        number = -number;
    }
    char digits[40];
    int point;
    shortest_digits(number, digits, &point);
    int count = (int)strlen(digits);
    char out[400];
    if (count <= point && point <= 21) {
        int n = snprintf(out, sizeof out, "%s", digits);
        for (int i = count; i < point; i++)
            out[n++] = '0';
        out[n] = '\0';
    } else if (0 < point && point <= 21) {
        snprintf(out, sizeof out, "%.*s.%s", point, digits, digits + point);
    } else if (-6 < point && point <= 0) {
        int n = snprintf(out, sizeof out, "0.");
        for (int i = 0; i < -point; i++)
            out[n++] = '0';
        snprintf(out + n, sizeof out - (size_t)n, "%s", digits);
    } else {
        int exponent = point - 1;
        int n = snprintf(out, sizeof out, "%c", digits[0]);
        if (count > 1)
            n += snprintf(out + n, sizeof out - (size_t)n, ".%s", digits + 1);
        snprintf(out + n, sizeof out - (size_t)n, "e%c%d", exponent < 0 ? '-' : '+', abs(exponent));
    }
    put_text(buf, out);
}

static void python_number(text_buf *buf, const gt_value *value)
{
    if (value->flags & GT_NUM_INTEGER_LITERAL) {
        /* A JSON integer literal is a Python int: exact, and -0 is 0. */
        const char *text = value->u.num.text;
        bool zero = strspn(text + (text[0] == '-'), "0") == strlen(text + (text[0] == '-'));
        put_text(buf, zero ? "0" : text);
    } else {
        python_float(buf, value->u.num.number);
    }
}

/* Decode one UTF-8 code point (input is valid UTF-8: it came from the parser
 * or a builder). Returns its length in bytes. */
static size_t utf8_decode(const unsigned char *p, size_t left, unsigned long *cp)
{
    if (p[0] < 0x80 || left < 2) {
        *cp = p[0];
        return 1;
    }
    if ((p[0] & 0xE0) == 0xC0) {
        *cp = ((unsigned long)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
        return 2;
    }
    if ((p[0] & 0xF0) == 0xE0 && left >= 3) {
        *cp = ((unsigned long)(p[0] & 0x0F) << 12) | ((unsigned long)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
        return 3;
    }
    if (left >= 4) {
        *cp = ((unsigned long)(p[0] & 0x07) << 18) | ((unsigned long)(p[1] & 0x3F) << 12) |
              ((unsigned long)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
        return 4;
    }
    *cp = p[0];
    return 1;
}

/* Python's str.isprintable, approximated: control and format characters,
 * separators other than the space, private use and noncharacters are not
 * printable (unassigned code points are treated as printable). */
static bool python_printable(unsigned long cp)
{
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0) || cp == 0xAD)
        return false;
    if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
        (cp >= 0x205F && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x206F) || cp == 0x3000 || cp == 0xFEFF)
        return false;
    if ((cp >= 0x600 && cp <= 0x605) || cp == 0x61C || cp == 0x6DD || cp == 0x70F || cp == 0x180E)
        return false;
    if ((cp >= 0xD800 && cp <= 0xF8FF) || (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
        (cp & 0xFFFE) == 0xFFFE)
        return false;
    if (cp >= 0xE0000 && (cp <= 0xE007F || cp >= 0xF0000))
        return false;
    return true;
}

/* Python repr() of a str. */
static void python_repr_string(text_buf *buf, const char *chars, size_t len)
{
    bool has_single = memchr(chars, '\'', len) != NULL, has_double = memchr(chars, '"', len) != NULL;
    char quote = has_single && !has_double ? '"' : '\'';
    put_bytes(buf, &quote, 1);
    const unsigned char *p = (const unsigned char *)chars;
    for (size_t i = 0; i < len;) {
        unsigned long cp;
        size_t step = utf8_decode(p + i, len - i, &cp);
        char esc[24];
        if (cp == (unsigned long)quote || cp == '\\') {
            esc[0] = '\\';
            esc[1] = (char)cp;
            put_bytes(buf, esc, 2);
        } else if (cp == '\t') {
            put_text(buf, "\\t");
        } else if (cp == '\n') {
            put_text(buf, "\\n");
        } else if (cp == '\r') {
            put_text(buf, "\\r");
        } else if (!python_printable(cp)) {
            if (cp <= 0xFF)
                snprintf(esc, sizeof esc, "\\x%02lx", cp);
            else if (cp <= 0xFFFF)
                snprintf(esc, sizeof esc, "\\u%04lx", cp);
            else
                snprintf(esc, sizeof esc, "\\U%08lx", cp);
            put_text(buf, esc);
        } else {
            put_bytes(buf, (const char *)p + i, step);
        }
        i += step;
    }
    put_bytes(buf, &quote, 1);
}

/* JSON.stringify of a string. */
static void js_string(text_buf *buf, const char *chars, size_t len)
{
    put_text(buf, "\"");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)chars[i];
        char esc[24];
        switch (c) {
        case '"': put_text(buf, "\\\""); break;
        case '\\': put_text(buf, "\\\\"); break;
        case '\b': put_text(buf, "\\b"); break;
        case '\f': put_text(buf, "\\f"); break;
        case '\n': put_text(buf, "\\n"); break;
        case '\r': put_text(buf, "\\r"); break;
        case '\t': put_text(buf, "\\t"); break;
        default:
            if (c < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                put_text(buf, esc);
            } else {
                put_bytes(buf, chars + i, 1);
            }
        }
    }
    put_text(buf, "\"");
}

static void render(text_buf *buf, const gt_value *value, gt_wire_flavor flavor, bool top)
{
    bool python = flavor == GT_WIRE_FLAVOR_PYTHON;
    switch (value->type) {
    case GT_NULL: put_text(buf, python ? "None" : "null"); break;
    case GT_TRUE: put_text(buf, python ? "True" : "true"); break;
    case GT_FALSE: put_text(buf, python ? "False" : "false"); break;
    case GT_NUMBER:
        if (python)
            python_number(buf, value);
        else
            js_number(buf, value->u.num.number);
        break;
    case GT_STRING:
        if (python && top)
            put_bytes(buf, value->u.str.chars, value->u.str.len); /* str(s) is s */
        else if (python)
            python_repr_string(buf, value->u.str.chars, value->u.str.len);
        else
            js_string(buf, value->u.str.chars, value->u.str.len);
        break;
    case GT_ARRAY:
        put_text(buf, "[");
        for (size_t i = 0; i < value->u.arr.count; i++) {
            if (i > 0)
                put_text(buf, python ? ", " : ",");
            render(buf, value->u.arr.items[i], flavor, false);
        }
        put_text(buf, "]");
        break;
    case GT_OBJECT:
        put_text(buf, "{");
        for (size_t i = 0; i < value->u.obj.count; i++) {
            const gt_member *member = &value->u.obj.members[i];
            if (i > 0)
                put_text(buf, python ? ", " : ",");
            if (python)
                python_repr_string(buf, member->key, member->key_len);
            else
                js_string(buf, member->key, member->key_len);
            put_text(buf, python ? ": " : ":");
            render(buf, member->value, flavor, false);
        }
        put_text(buf, "}");
        break;
    }
}

char *gt_wire_render_value(const gt_value *value, gt_wire_flavor flavor)
{
    text_buf buf = {0};
    render(&buf, value, flavor, true);
    put_bytes(&buf, "", 0);
    if (buf.failed) {
        free(buf.data);
        return NULL;
    }
    return buf.data;
}

/* ---- the transform -------------------------------------------------------- */

typedef struct transform_ctx {
    gt_arena *arena;
    gt_wire_flavor flavor;
    wire_path path;
    gt_wire_problem *problem;
    bool out_of_memory;
    bool rejected;
} transform_ctx;

/* A keyword that goes into the description. */
typedef struct leftover {
    const char *key;
    size_t key_len;
    const gt_value *value;
} leftover;

static bool string_in(const gt_value *value, const char *const *list, size_t count)
{
    if (value == NULL || value->type != GT_STRING)
        return false;
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == value->u.str.len && memcmp(list[i], value->u.str.chars, value->u.str.len) == 0)
            return true;
    return false;
}

static bool string_is(const gt_value *value, const char *text)
{
    return string_in(value, &text, 1);
}

/* True when `type` (a string or an array of strings) includes `name`. */
static bool type_has(const gt_value *type, const char *name)
{
    if (type == NULL)
        return false;
    if (type->type == GT_STRING)
        return string_is(type, name);
    for (size_t i = 0; type->type == GT_ARRAY && i < type->u.arr.count; i++)
        if (string_is(type->u.arr.items[i], name))
            return true;
    return false;
}

static void put(transform_ctx *ctx, gt_value *object, const char *key, size_t key_len, gt_value *value)
{
    if (value == NULL || gt_value_object_append(ctx->arena, object, key, key_len, value) != 0)
        ctx->out_of_memory = true;
}

static gt_value *reject(transform_ctx *ctx, const char *code, const char *key, const char *message)
{
    wire_problem_set(ctx->problem, code, &ctx->path, key, "%s", message);
    ctx->rejected = true;
    return NULL;
}

static gt_value *transform(transform_ctx *ctx, const gt_value *node, size_t depth);

/* Transform a child reached by `key` (and `index` or `name` below it). */
static gt_value *transform_at(transform_ctx *ctx, const gt_member *keyword, long index, const gt_member *name,
                              const gt_value *child, size_t depth)
{
    size_t mark = wire_path_push_key(&ctx->path, keyword->key, keyword->key_len);
    if (index >= 0)
        wire_path_push_index(&ctx->path, (size_t)index);
    if (name != NULL)
        wire_path_push_key(&ctx->path, name->key, name->key_len);
    gt_value *out = transform(ctx, child, depth + 1);
    wire_path_pop(&ctx->path, mark);
    return out;
}

/* A map of schemas ($defs, definitions, properties), each transformed. */
static gt_value *transform_map(transform_ctx *ctx, const gt_member *keyword, size_t depth)
{
    gt_value *out = gt_value_new_object(ctx->arena);
    if (out == NULL) {
        ctx->out_of_memory = true;
        return NULL;
    }
    const gt_value *map = keyword->value;
    for (size_t i = 0; i < map->u.obj.count; i++) {
        const gt_member *entry = &map->u.obj.members[i];
        gt_value *child = transform_at(ctx, keyword, -1, entry, entry->value, depth);
        if (child == NULL)
            return NULL;
        put(ctx, out, entry->key, entry->key_len, child);
    }
    return out;
}

/* The type keyword: one known type name or a non-empty array of them. */
static bool type_is_valid(const gt_value *type)
{
    size_t names = sizeof type_names / sizeof type_names[0];
    if (type->type == GT_STRING)
        return string_in(type, type_names, names);
    if (type->type != GT_ARRAY || type->u.arr.count == 0)
        return false;
    for (size_t i = 0; i < type->u.arr.count; i++)
        if (!string_in(type->u.arr.items[i], type_names, names))
            return false;
    return true;
}

/* Write the leftovers into the description ("\n\n{key: value, ...}"). */
static void describe_leftovers(transform_ctx *ctx, gt_value *out, const leftover *items, size_t count)
{
    text_buf buf = {0};
    gt_member *existing = NULL;
    for (size_t i = 0; i < out->u.obj.count; i++)
        if (wire_key_is(&out->u.obj.members[i], "description"))
            existing = &out->u.obj.members[i];
    if (existing != NULL) {
        put_bytes(&buf, existing->value->u.str.chars, existing->value->u.str.len);
        put_text(&buf, "\n\n");
    }
    put_text(&buf, "{");
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            put_text(&buf, ", ");
        put_bytes(&buf, items[i].key, items[i].key_len);
        put_text(&buf, ": ");
        render(&buf, items[i].value, ctx->flavor, true);
    }
    put_text(&buf, "}");
    gt_value *text = buf.failed ? NULL : gt_value_new_string(ctx->arena, buf.data, buf.len);
    free(buf.data);
    if (text == NULL) {
        ctx->out_of_memory = true;
        return;
    }
    if (existing != NULL)
        existing->value = text; /* Python assigns to the existing key: its position stays */
    else
        put(ctx, out, "description", 11, text);
}

static gt_value *transform_node(transform_ctx *ctx, const gt_value *node, size_t depth, leftover *left,
                                bool *consumed);

static gt_value *transform(transform_ctx *ctx, const gt_value *node, size_t depth)
{
    if (depth > GT_WIRE_MAX_DEPTH)
        return reject(ctx, "transform_too_deep", NULL, "schema nesting exceeds gauntlet's limit of 512 levels");
    if (node->type != GT_OBJECT)
        return reject(ctx, "transform_not_object", NULL,
                      node->type == GT_TRUE || node->type == GT_FALSE
                          ? "a boolean subschema has no SDK form: write an object schema"
                          : "a subschema must be a JSON object");
    size_t count = node->u.obj.count;
    leftover *left = malloc((count + 2) * sizeof *left);
    bool *consumed = calloc(count + 1, sizeof *consumed);
    gt_value *out = NULL;
    if (left == NULL || consumed == NULL)
        ctx->out_of_memory = true;
    else
        out = transform_node(ctx, node, depth, left, consumed);
    free(left);
    free(consumed);
    return ctx->out_of_memory ? NULL : out;
}

/* Index of member `key` in node, or -1. */
static long member_index(const gt_value *node, const char *key)
{
    for (size_t i = 0; i < node->u.obj.count; i++)
        if (wire_key_is(&node->u.obj.members[i], key))
            return (long)i;
    return -1;
}

/* Output member order, as the Python SDK builds it: $defs (and definitions),
 * then $ref alone, or anyOf/allOf/type, enum, description, title, object
 * (properties, additionalProperties, required), string (format), array
 * (items, minItems); the description is created last when there was none. */
static gt_value *transform_node(transform_ctx *ctx, const gt_value *node, size_t depth, leftover *left,
                                bool *consumed)
{
    gt_value *out = gt_value_new_object(ctx->arena);
    if (out == NULL) {
        ctx->out_of_memory = true;
        return NULL;
    }
    size_t left_count = 0;
    leftover extras[2]; /* format and minItems put back: they come last, as in the SDK */
    size_t extra_count = 0;
    const gt_member *members = node->u.obj.members;

    static const char *const map_keywords[] = {"$defs", "definitions"};
    for (size_t k = 0; k < 2; k++) {
        long at = member_index(node, map_keywords[k]);
        if (at < 0 || members[at].value->type != GT_OBJECT)
            continue;
        consumed[at] = true;
        gt_value *defs = transform_map(ctx, &members[at], depth);
        if (defs == NULL)
            return NULL;
        put(ctx, out, map_keywords[k], strlen(map_keywords[k]), defs);
    }
    long ref_at = member_index(node, "$ref");
    if (ref_at >= 0) {
        /* The SDK returns {$defs?, $ref}: every sibling is dropped. */
        put(ctx, out, "$ref", 4, members[ref_at].value);
        return out;
    }

    long type_at = member_index(node, "type");
    const gt_value *type = type_at >= 0 ? members[type_at].value : NULL;
    if (type_at >= 0)
        consumed[type_at] = true;
    static const char *const combinators[] = {"anyOf", "oneOf", "allOf"};
    long combinator_at[3];
    int winner = -1;
    for (int k = 0; k < 3; k++) {
        combinator_at[k] = member_index(node, combinators[k]);
        if (combinator_at[k] >= 0) {
            consumed[combinator_at[k]] = true; /* the losers are dropped, as in the SDK */
            if (winner < 0 && members[combinator_at[k]].value->type == GT_ARRAY)
                winner = k;
        }
    }
    if (winner >= 0) {
        const gt_member *keyword = &members[combinator_at[winner]];
        gt_value *branches = gt_value_new_array(ctx->arena);
        if (branches == NULL) {
            ctx->out_of_memory = true;
            return NULL;
        }
        for (size_t i = 0; i < keyword->value->u.arr.count; i++) {
            gt_value *branch = transform_at(ctx, keyword, (long)i, NULL, keyword->value->u.arr.items[i], depth);
            if (branch == NULL)
                return NULL;
            if (winner == 2 && wire_get(branch, "$ref") != NULL) {
                size_t mark = wire_path_push_key(&ctx->path, keyword->key, keyword->key_len);
                wire_path_push_index(&ctx->path, i);
                reject(ctx, "transform_allof_ref", "$ref",
                       "an allOf branch that is a $ref is not supported by the API: inline it");
                wire_path_pop(&ctx->path, mark);
                return NULL;
            }
            if (gt_value_array_append(ctx->arena, branches, branch) != 0) {
                ctx->out_of_memory = true;
                return NULL;
            }
        }
        put(ctx, out, winner == 2 ? "allOf" : "anyOf", 5, branches);
        type = NULL; /* a sibling type is dropped; its keywords become leftovers */
    } else {
        if (type == NULL)
            return reject(ctx, "transform_missing_type", NULL,
                          "schema must have a 'type', 'anyOf', 'oneOf', or 'allOf' field");
        if (!type_is_valid(type))
            return reject(ctx, "transform_unknown_type", "type",
                          "type must be object, array, string, integer, number, boolean, null or an array of them");
        put(ctx, out, "type", 4, (gt_value *)type);
    }

    long enum_at = member_index(node, "enum");
    if (enum_at >= 0 && members[enum_at].value->type == GT_ARRAY) {
        const gt_value *values = members[enum_at].value;
        bool simple = true;
        for (size_t i = 0; i < values->u.arr.count; i++)
            simple = simple && wire_is_primitive(values->u.arr.items[i]);
        if (simple) { /* complex values are unsupported by the API: they stay leftovers */
            consumed[enum_at] = true;
            put(ctx, out, "enum", 4, (gt_value *)values);
        }
    }
    long description_at = member_index(node, "description");
    if (description_at >= 0) {
        if (members[description_at].value->type != GT_STRING)
            return reject(ctx, "transform_bad_description", "description", "description must be a string");
        consumed[description_at] = true;
        put(ctx, out, "description", 11, members[description_at].value);
    }
    long title_at = member_index(node, "title");
    if (title_at >= 0 && members[title_at].value->type == GT_STRING) {
        consumed[title_at] = true;
        put(ctx, out, "title", 5, members[title_at].value);
    }

    if (type_has(type, "object")) {
        long properties_at = member_index(node, "properties");
        gt_value *properties;
        if (properties_at >= 0) {
            if (members[properties_at].value->type != GT_OBJECT)
                return reject(ctx, "transform_bad_properties", "properties", "properties must be an object");
            consumed[properties_at] = true;
            properties = transform_map(ctx, &members[properties_at], depth);
        } else {
            properties = gt_value_new_object(ctx->arena);
        }
        if (properties == NULL) {
            ctx->out_of_memory = !ctx->rejected;
            return NULL;
        }
        put(ctx, out, "properties", 10, properties);
        long additional_at = member_index(node, "additionalProperties");
        if (additional_at >= 0)
            consumed[additional_at] = true;
        put(ctx, out, "additionalProperties", 20, gt_value_new_bool(ctx->arena, false));
        long required_at = member_index(node, "required");
        if (required_at >= 0) {
            consumed[required_at] = true;
            put(ctx, out, "required", 8, members[required_at].value);
        }
    }
    if (type_has(type, "string")) {
        long format_at = member_index(node, "format");
        if (format_at >= 0) {
            consumed[format_at] = true;
            if (string_in(members[format_at].value, kept_formats, sizeof kept_formats / sizeof kept_formats[0]))
                put(ctx, out, "format", 6, members[format_at].value);
            else
                extras[extra_count++] = (leftover){members[format_at].key, 6, members[format_at].value};
        }
    }
    if (type_has(type, "array")) {
        long items_at = member_index(node, "items");
        /* A tuple stays a leftover; so does items beside prefixItems, which
         * then governs only the items after the prefix (2020-12 core
         * 10.3.1.2): sent alone it would bind every item, a narrowing. */
        bool after_prefix = member_index(node, "prefixItems") >= 0;
        if (items_at >= 0 && members[items_at].value->type != GT_ARRAY && !after_prefix) {
            consumed[items_at] = true;
            gt_value *items = transform_at(ctx, &members[items_at], -1, NULL, members[items_at].value, depth);
            if (items == NULL)
                return NULL;
            put(ctx, out, "items", 5, items);
        }
        long min_at = member_index(node, "minItems");
        if (min_at >= 0) {
            const gt_value *min = members[min_at].value;
            consumed[min_at] = true;
            if (min->type == GT_NUMBER && (min->u.num.number == 0 || min->u.num.number == 1))
                put(ctx, out, "minItems", 8, (gt_value *)min);
            else
                extras[extra_count++] = (leftover){members[min_at].key, 8, min};
        }
    }

    for (size_t i = 0; i < node->u.obj.count; i++)
        if (!consumed[i])
            left[left_count++] = (leftover){members[i].key, members[i].key_len, members[i].value};
    for (size_t i = 0; i < extra_count; i++)
        left[left_count++] = extras[i];
    if (left_count > 0)
        describe_leftovers(ctx, out, left, left_count);
    return ctx->out_of_memory ? NULL : out;
}

/* Every $ref of the output must be local, resolve, not recurse and not be
 * an allOf branch (already checked while transforming). */
static int check_references(transform_ctx *ctx, const gt_value *root)
{
    wire_refs refs = {0};
    if (wire_refs_collect(root, &refs) != 0) {
        wire_refs_free(&refs);
        return GT_WIRE_OUT_OF_MEMORY;
    }
    int status = GT_WIRE_OK;
    for (size_t i = 0; i < refs.count && status == GT_WIRE_OK; i++) {
        const wire_ref *ref = &refs.items[i];
        if (ref->target != NULL)
            continue;
        const gt_value *value = ref->value;
        bool external = value->type == GT_STRING && value->u.str.chars[0] != '#';
        snprintf(ctx->problem->location, sizeof ctx->problem->location, "%s/$ref", ref->at);
        ctx->problem->code = external ? "transform_external_ref" : "transform_dangling_ref";
        snprintf(ctx->problem->message, sizeof ctx->problem->message,
                 external ? "$ref \"%.120s\" points outside the schema: the API accepts local references only"
                          : "$ref \"%.120s\" names nothing in the transformed schema",
                 value->type == GT_STRING ? value->u.str.chars : "(not a string)");
        status = GT_WIRE_REJECTED;
    }
    if (status == GT_WIRE_OK) {
        long cycle = wire_refs_find_cycle(&refs);
        if (cycle == -2) {
            status = GT_WIRE_OUT_OF_MEMORY;
        } else if (cycle >= 0) {
            const wire_ref *ref = &refs.items[cycle];
            ctx->problem->code = "transform_recursive_ref";
            snprintf(ctx->problem->location, sizeof ctx->problem->location, "%s/$ref", ref->at);
            snprintf(ctx->problem->message, sizeof ctx->problem->message,
                     "$ref \"%.120s\" makes the schema recursive, which the API does not support",
                     ref->value->u.str.chars);
            status = GT_WIRE_REJECTED;
        }
    }
    wire_refs_free(&refs);
    return status;
}

int gt_wire_transform(gt_arena *arena, const gt_value *schema, gt_wire_flavor flavor, gt_value **out,
                      gt_wire_problem *problem)
{
    gt_wire_problem scratch;
    if (problem == NULL)
        problem = &scratch;
    memset(problem, 0, sizeof *problem);
    *out = NULL;
    transform_ctx ctx = {.arena = arena, .flavor = flavor, .problem = problem};
    gt_value *root = transform(&ctx, schema, 0);
    bool out_of_memory = ctx.out_of_memory || ctx.path.failed;
    wire_path_free(&ctx.path);
    if (out_of_memory)
        return GT_WIRE_OUT_OF_MEMORY;
    if (root == NULL)
        return GT_WIRE_REJECTED;
    int status = check_references(&ctx, root);
    if (status == GT_WIRE_OK)
        *out = root;
    return status;
}
