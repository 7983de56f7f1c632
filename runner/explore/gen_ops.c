/* gen_ops.c — the generator's operators (docs/explore.md#operators-and-the-rules-they-probe):
 * valid variants, syntax mutations of the text, structure mutations of the
 * value and loop scripts. Each writes what it builds into a sink; the
 * intended outcome of each is fixed here, the reference confirms it. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/derive.h"
#include "gauntlet/limits.h"
#include "gen_impl.h"
#include "gen_schema.h"
#include "gen_text.h"

/* ---- rule ids each operator probes (corpus/rules.json) ---- */
#define RULES(...) ((const char *const[]){__VA_ARGS__, NULL})
#define R_VALID RULES("S2-11", "JSONSCHEMA-2020-12-validation")
#define R_WHITESPACE RULES("RFC8259-2", "S2-01")
#define R_KEY_ORDER RULES("S4-15", "RFC8259-2")
#define R_ESCAPES RULES("RFC8259-7", "RFC8259-8.3")
#define R_FLOAT RULES("RFC8259-6", "JSONSCHEMA-2020-12-validation")
#define R_FENCE RULES("S2-02", "S2-01", "DC-05")
#define R_PROSE RULES("S2-03", "S2-01")
#define R_GRAMMAR RULES("S2-01", "RFC8259-2")
#define R_BOM RULES("S2-01", "RFC8259-8.1")
#define R_NUMBER RULES("S2-01", "RFC8259-6")
#define R_DUPLICATE RULES("RFC8259-4", "S2-01", "DC-05")
#define R_TRUNCATE RULES("S2-01", "S2-25")
#define R_TWO_VALUES RULES("S2-04", "S2-01", "DC-05")
#define R_NUMBER_AS_STRING RULES("S2-05", "S2-11")
#define R_BOOL_AS_INT RULES("S2-10", "S2-11", "DC-05")
#define R_INT_AS_BOOL RULES("S2-06", "S2-11")
#define R_STRING_AS_BOOL RULES("S2-07", "S2-11")
#define R_COMMA_STRING RULES("S2-08", "S2-11")
#define R_MISSING RULES("S2-09", "S2-11")
#define R_EXTRA RULES("S2-12", "S2-11", "DC-05")
#define R_ENUM_CASE RULES("S4-13", "S2-11")
#define R_ENUM_LOOKALIKE RULES("S2-11", "RFC8259-8.3")
#define R_OVERLONG RULES("S2-11", "S2-29")
#define R_LOOP_VALID RULES("S0-20", "S0-27")
#define R_LOOP_LIMIT RULES("S0-19", "S0-24", "S0-25")
#define R_LOOP_TEXT RULES("S0-18")
#define R_LOOP_CUT RULES("S2-26", "S2-25")

/* Is item i of count one of at most max kept, evenly spaced? */
static bool evenly_kept(size_t i, size_t count, size_t max)
{
    return count <= max || i * max / count != (i + 1) * max / count;
}

/* ---- helpers over trees ---- */

/* A copy of `root` with the value at `path` replaced by `replacement`
 * (taken). NULL when out of memory or the path does not resolve. */
static cJSON *replaced(const cJSON *root, const char *path, cJSON *replacement)
{
    if (replacement == NULL)
        return NULL;
    if (path[0] == '\0')
        return replacement;
    cJSON *copy = cJSON_Duplicate(root, true);
    cJSON *parent = NULL;
    cJSON *node = copy ? gt_pointer_find(copy, path, &parent) : NULL;
    if (node == NULL || parent == NULL || !cJSON_ReplaceItemViaPointer(parent, node, replacement)) {
        cJSON_Delete(copy);
        cJSON_Delete(replacement);
        return NULL;
    }
    if (cJSON_IsObject(parent) && replacement->string == NULL) {
        /* ReplaceItemViaPointer keeps the position; the name moves with the old node */
        cJSON_Delete(copy);
        return NULL;
    }
    return copy;
}

/* cJSON_ReplaceItemViaPointer drops the member name: give the replacement the old name first. */
static cJSON *named(cJSON *replacement, const cJSON *root, const char *path)
{
    cJSON *parent = NULL;
    cJSON *node = replacement ? gt_pointer_find((cJSON *)root, path, &parent) : NULL;
    if (node != NULL && cJSON_IsObject(parent) && node->string != NULL) {
        if (replacement->string != NULL && !(replacement->type & cJSON_StringIsConst))
            cJSON_free(replacement->string); /* a duplicated member brings its own name */
        replacement->string = strdup(node->string);
        if (replacement->string == NULL) {
            cJSON_Delete(replacement);
            return NULL;
        }
    }
    return replacement;
}

/* Replace the value at `path` of `root`: a new tree, or NULL. */
static cJSON *with_value(const cJSON *root, const char *path, cJSON *replacement)
{
    return replaced(root, path, named(replacement, root, path));
}

static cJSON *number_node(double value)
{
    return cJSON_CreateNumber(value);
}

static char *value_text(const cJSON *value)
{
    char *text = gt_json_compact(value, NULL);
    if (text != NULL && strlen(text) > 40)
        strcpy(text + 37, "...");
    return text;
}

/* "what" texts: "<op> at <path>: <old> -> <new> (<base>)" */
static char *describe(const char *op, const char *path, const cJSON *old, const cJSON *new_value, const gen_base *base)
{
    char *from = old ? value_text(old) : NULL;
    char *to = new_value ? value_text(new_value) : NULL;
    char *text = from && to ? gen_format_text("%s at %s: %s -> %s (%s)", op, path[0] ? path : "/", from, to, base->name)
                 : from     ? gen_format_text("%s at %s: %s (%s)", op, path[0] ? path : "/", from, base->name)
                            : gen_format_text("%s at %s (%s)", op, path[0] ? path : "/", base->name);
    free(from);
    free(to);
    return text;
}

/* Emit a tree mutation: `replacement` (taken) at `path` of the base. */
static void emit_at(gt_gen *gen, gen_sink *sink, const char *family, const char *op, const gen_base *base,
                    const char *path, cJSON *replacement, const char *const *rules)
{
    if (replacement == NULL)
        return;
    const cJSON *old = gt_pointer_find(base->value, path, NULL);
    char *what = describe(op, path, old, replacement, base);
    cJSON *root = with_value(base->value, path, replacement);
    if (root == NULL) {
        free(what);
        return;
    }
    sink->tree(gen, sink, family, op, path, root, rules, what);
}

/* Emit `replacement` (taken) at `path` of the base, written as the JSON text
 * `literal` there (a respelling the tree writer would not choose). */
static void emit_literal_at(gt_gen *gen, gen_sink *sink, const char *op, const gen_base *base, const char *path,
                            cJSON *replacement, const char *literal, const char *const *rules)
{
    cJSON *root = replacement && literal ? with_value(base->value, path, replacement) : NULL;
    if (root == NULL) {
        if (replacement != NULL && literal == NULL)
            cJSON_Delete(replacement);
        return;
    }
    gt_json_style style = {.literal_node = gt_pointer_find(root, path, NULL), .literal_text = literal};
    gt_buf buf = {0};
    gt_json_write(&buf, root, &style);
    cJSON_Delete(root);
    size_t len;
    char *raw = gt_buf_take(&buf, &len);
    if (raw == NULL)
        return;
    gen_add_candidate(gen, "valid", "structure", op, path, raw, len, NULL, rules, GT_VERDICT_ACCEPT, NULL, NULL,
                      gen_format_text("%s at %s: written %.40s (%s)", op, path[0] ? path : "/", literal, base->name),
                      true);
}

/* `\uXXXX` (or a surrogate pair of them) for the UTF-8 sequence at `p` of `step` bytes. */
static void escape_sequence(const char *p, size_t step, char out[16])
{
    const unsigned char *u = (const unsigned char *)p;
    unsigned cp = step == 1   ? u[0]
                  : step == 2 ? (u[0] & 0x1Fu) << 6 | (u[1] & 0x3Fu)
                  : step == 3 ? (u[0] & 0x0Fu) << 12 | (u[1] & 0x3Fu) << 6 | (u[2] & 0x3Fu)
                              : (u[0] & 0x07u) << 18 | (u[1] & 0x3Fu) << 12 | (u[2] & 0x3Fu) << 6 | (u[3] & 0x3Fu);
    if (cp >= 0x10000)
        snprintf(out, 16, "\\u%04x\\u%04x", 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF));
    else
        snprintf(out, 16, "\\u%04x", cp);
}

/* The JSON string literal of `text` with the code point at byte `at` (`step`
 * bytes) written as a \u escape; malloc'd, or NULL. */
static char *literal_escaping(const char *text, size_t at, size_t step)
{
    char *prefix = strndup(text, at);
    cJSON *head = prefix ? cJSON_CreateString(prefix) : NULL, *tail = cJSON_CreateString(text + at + step);
    char *head_text = head ? gt_json_compact(head, NULL) : NULL, *tail_text = tail ? gt_json_compact(tail, NULL) : NULL;
    char escape[16];
    escape_sequence(text + at, step, escape);
    char *literal = head_text && tail_text ? gen_format_text("%.*s%s%s", (int)strlen(head_text) - 1, head_text, escape,
                                                             tail_text + 1)
                                           : NULL;
    free(prefix);
    cJSON_Delete(head);
    cJSON_Delete(tail);
    free(head_text);
    free(tail_text);
    return literal;
}

#define ASTRAL "\xf0\x9f\x98\x80" /* U+1F600: one code point, two UTF-16 units */

/* ---- sites: every instance location of a base, with the schema there ---- */

void gen_collect_sites(const cJSON *root_schema, cJSON *value, const cJSON *schema, const char *path, site_list *list,
                       int depth)
{
    if (depth > 64)
        return;
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 32;
        gen_site *grown = realloc(list->items, cap * sizeof *grown);
        if (grown == NULL)
            return;
        list->items = grown;
        list->cap = cap;
    }
    char *copy = strdup(path);
    if (copy == NULL)
        return;
    list->items[list->count++] = (gen_site){copy, schema, value};
    gt_gen_view view;
    gt_gen_view_build(root_schema, &view, schema, value, NULL);
    size_t index = 0;
    for (cJSON *child = value->child; child != NULL; child = child->next, index++) {
        char token[24];
        snprintf(token, sizeof token, "%zu", index);
        char *child_path = gt_pointer_append(path, cJSON_IsObject(value) ? child->string : token);
        if (child_path == NULL)
            return;
        const cJSON *child_schema = schema == NULL          ? NULL
                                    : cJSON_IsObject(value) ? gt_gen_property_schema(&view, child->string)
                                                            : gt_gen_item_schema(&view, index);
        gen_collect_sites(root_schema, child, child_schema, child_path, list, depth + 1);
        free(child_path);
    }
}

void gen_sites_free(site_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i].path);
    free(list->items);
    *list = (site_list){0};
}

/* ---- valid variants ---- */

static void emit_styled(gt_gen *gen, gen_sink *sink, const char *op, const char *path, const gen_base *base,
                        gt_json_style *style, const char *const *rules, const char *what)
{
    gt_buf buf = {0};
    gt_json_write(&buf, base->value, style);
    size_t len;
    char *raw = gt_buf_take(&buf, &len);
    if (raw == NULL)
        return;
    gen_add_candidate(gen, "valid", "structure", op, path, raw, len, NULL, rules, GT_VERDICT_ACCEPT, NULL, NULL,
                      gen_format_text("%s (%s)", what, base->name), true);
}

/* Strings at their length bounds in astral code points (one code point, two
 * UTF-16 units: a counter of UTF-16 units sees twice the length), also
 * written as surrogate-pair escapes. */
static void valid_astral_lengths(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site,
                                 const gt_gen_view *view)
{
    static const char *const ops[2][2] = {{"min-length-astral", "min-length-escaped"},
                                          {"max-length-astral", "max-length-escaped"}};
    static const char *const keywords[2] = {"minLength", "maxLength"};
    for (int k = 0; k < 2; k++) {
        bool present;
        double bound = gt_gen_kw_number(view, keywords[k], &present);
        if (!present || bound < 1 || bound > GT_GEN_MAX_BOUNDARY_LENGTH)
            continue;
        char *text = gen_text_repeat(ASTRAL, (size_t)bound);
        char *literal = NULL;
        if (text != NULL) {
            char escape[16];
            escape_sequence(ASTRAL, 4, escape);
            char *escapes = gen_text_repeat(escape, (size_t)bound);
            literal = escapes ? gen_format_text("\"%s\"", escapes) : NULL;
            free(escapes);
        }
        emit_at(gen, sink, "valid", ops[k][0], base, site->path, text ? cJSON_CreateString(text) : NULL, R_VALID);
        emit_literal_at(gen, sink, ops[k][1], base, site->path, text ? cJSON_CreateString(text) : NULL, literal,
                        R_ESCAPES);
        free(text);
        free(literal);
    }
}

/* Other strings the pattern matches, drawn from the seed; each code point
 * of the value (evenly spaced) alone as a \u escape. */
static void valid_respellings(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site,
                              const gt_gen_view *view)
{
    const char *text = site->node->valuestring;
    const cJSON *pattern = gt_gen_kw(view, "pattern");
    if (cJSON_IsString(pattern) && !gt_gen_kw(view, "enum") && !gt_gen_kw(view, "const"))
        for (int i = 0; i < 4; i++) {
            const char *why = NULL;
            char *other = gt_gen_pattern_string(pattern->valuestring, &gen->rng, &why);
            if (other != NULL && strcmp(other, text) != 0)
                emit_at(gen, sink, "valid", "pattern-variant", base, site->path, cJSON_CreateString(other), R_VALID);
            free(other);
        }
    /* raw bytes JSON allows inside a string though they look like control characters */
    static const char *const raw_forms[][2] = {{"raw-del", "\x7f"}, {"raw-separator", "\xe2\x80\xa8"}};
    for (size_t i = 0; i < 2; i++) {
        char *with = gen_format_text("%s%s", text, raw_forms[i][1]);
        emit_at(gen, sink, "valid", raw_forms[i][0], base, site->path, with ? cJSON_CreateString(with) : NULL,
                R_ESCAPES);
        free(with);
    }
    size_t points = gt_gen_utf8_length(text), index = 0, taken = 0;
    for (size_t at = 0; text[at] != '\0'; index++) {
        unsigned char lead = (unsigned char)text[at];
        size_t step = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        if (points <= GT_GEN_TEXT_POSITIONS || index * GT_GEN_TEXT_POSITIONS / points == taken) {
            taken++;
            char *literal = literal_escaping(text, at, step);
            emit_literal_at(gen, sink, "escape-one", base, site->path, cJSON_CreateString(text), literal, R_ESCAPES);
            free(literal);
        }
        at += step;
    }
}

/* Where the type is a union: values of each other listed type (minimal and
 * full), each still valid (the reference says). */
static void valid_union_branches(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site,
                                 const gt_gen_view *view)
{
    const cJSON *type = gt_gen_kw(view, "type");
    if (!cJSON_IsArray(type) || cJSON_GetArraySize(type) < 2)
        return;
    const cJSON *kind;
    cJSON_ArrayForEach(kind, type)
    {
        if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "null") == 0 || gt_gen_type_allows(kind, site->node))
            continue; /* null: the operator `nullable` */
        for (int full = 0; full < 2; full++) {
            char why[256];
            cJSON *value =
                gt_gen_synthesize_kind(gen->schema, site->schema, kind->valuestring, full, &gen->rng, why, sizeof why);
            emit_at(gen, sink, "valid", "union-branch", base, site->path, value, R_VALID);
        }
    }
}

/* A number respelled with an exponent (`12.5e0`, `125e-1`): the same value. */
static void valid_exponents(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site)
{
    char number[32];
    gt_json_number(number, site->node->valuedouble);
    if (strchr(number, 'e') != NULL || strchr(number, 'E') != NULL)
        return;
    char *forms[3] = {gen_format_text("%se0", number), NULL, gen_format_text("%sE+0", number)};
    const char *dot = strchr(number, '.');
    if (dot == NULL)
        forms[1] = gen_format_text("%s0e-1", number);
    else if (dot[1] != '\0')
        forms[1] = gen_format_text("%.*s%se-%zu", (int)(dot - number), number, dot + 1, strlen(dot + 1));
    for (int i = 0; i < 3; i++) {
        if (forms[i] != NULL)
            emit_literal_at(gen, sink, "exponent-form", base, site->path, cJSON_Duplicate(site->node, true), forms[i],
                            R_FLOAT);
        free(forms[i]);
    }
}

/* `object` (taken) grown with "extra_N": "x" members up to `size` members. */
static cJSON *grown_object(cJSON *object, size_t size)
{
    for (int i = 0; object != NULL && (size_t)cJSON_GetArraySize(object) < size; i++) {
        char name[24];
        snprintf(name, sizeof name, "extra_%d", i);
        if (cJSON_GetObjectItemCaseSensitive(object, name) == NULL)
            cJSON_AddItemToObject(object, name, cJSON_CreateString("x"));
    }
    return object;
}

static void valid_boundaries(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site)
{
    gt_gen_view view;
    gt_gen_view_build(gen->schema, &view, site->schema, site->node, NULL);
    if (site->schema == NULL || view.unresolved)
        return;
    const cJSON *node = site->node;
    bool has_max_properties;
    double max_properties = gt_gen_kw_number(&view, "maxProperties", &has_max_properties);
    if (cJSON_IsObject(node) && has_max_properties && max_properties <= 64 &&
        max_properties > cJSON_GetArraySize(node))
        emit_at(gen, sink, "valid", "max-properties", base, site->path,
                grown_object(cJSON_Duplicate(node, true), (size_t)max_properties), R_VALID);
    if (cJSON_IsNumber(node) && !gt_gen_kw(&view, "enum") && !gt_gen_kw(&view, "const")) {
        gt_gen_number_facts facts;
        gt_gen_number_facts_read(&view, &facts);
        double value;
        if (gt_gen_number_low(&facts, &value))
            emit_at(gen, sink, "valid", "boundary-low", base, site->path, number_node(value), R_VALID);
        if (gt_gen_number_high(&facts, &value))
            emit_at(gen, sink, "valid", "boundary-high", base, site->path, number_node(value), R_VALID);
    }
    if (cJSON_IsString(node) && !gt_gen_kw(&view, "pattern") && !gt_gen_kw(&view, "format") &&
        !gt_gen_kw(&view, "enum") && !gt_gen_kw(&view, "const")) {
        bool present;
        double min = gt_gen_kw_number(&view, "minLength", &present);
        if (present && min >= 0 && min <= GT_GEN_MAX_BOUNDARY_LENGTH) {
            char *text = gt_gen_text_of_length((size_t)min, &gen->rng);
            emit_at(gen, sink, "valid", "min-length", base, site->path, text ? cJSON_CreateString(text) : NULL,
                    R_VALID);
            free(text);
        }
        double max = gt_gen_kw_number(&view, "maxLength", &present);
        if (present && max >= 1 && max <= GT_GEN_MAX_BOUNDARY_LENGTH) {
            char *text = gt_gen_text_of_length((size_t)max, &gen->rng);
            emit_at(gen, sink, "valid", "max-length", base, site->path, text ? cJSON_CreateString(text) : NULL,
                    R_VALID);
            free(text);
        }
        valid_astral_lengths(gen, sink, base, site, &view);
    }
    if (cJSON_IsArray(node)) {
        bool has_min, has_max;
        double min = gt_gen_kw_number(&view, "minItems", &has_min);
        double max = gt_gen_kw_number(&view, "maxItems", &has_max);
        size_t size = (size_t)cJSON_GetArraySize(node);
        size_t targets[2] = {has_min ? (size_t)min : 0, has_max ? (size_t)max : 0};
        const char *ops[2] = {"min-items", "max-items"};
        for (int t = 0; t < 2; t++) {
            if (!(t == 0 ? has_min : has_max) || targets[t] == size || targets[t] > 64)
                continue;
            cJSON *array = cJSON_Duplicate(node, true);
            while (array && (size_t)cJSON_GetArraySize(array) > targets[t])
                cJSON_DeleteItemFromArray(array, cJSON_GetArraySize(array) - 1);
            char why[256];
            for (size_t i = (size_t)cJSON_GetArraySize(array); array && i < targets[t]; i++) {
                cJSON *item = gt_gen_synthesize(gen->schema, gt_gen_item_schema(&view, i), true, &gen->rng,
                                                (unsigned)i + 7, 1, why, sizeof why, site->path);
                if (item == NULL) {
                    cJSON_Delete(array);
                    array = NULL;
                } else {
                    cJSON_AddItemToArray(array, item);
                }
            }
            emit_at(gen, sink, "valid", ops[t], base, site->path, array, R_VALID);
        }
    }
    const cJSON *members = gt_gen_kw(&view, "enum");
    const cJSON *member;
    int shown = 0;
    cJSON_ArrayForEach(member, members)
    {
        if (shown++ < GT_GEN_MAX_ENUM_MEMBERS && !cJSON_Compare(member, node, true))
            emit_at(gen, sink, "valid", "enum-member", base, site->path, cJSON_Duplicate(member, true), R_VALID);
    }
    if (!cJSON_IsNull(node) && gt_gen_view_type_has(&view, "null"))
        emit_at(gen, sink, "valid", "nullable", base, site->path, cJSON_CreateNull(), R_VALID);
}

void gen_valid(gt_gen *gen, gen_sink *sink, const gen_base *base, const site_list *sites)
{
    gen_add_candidate(gen, "valid", "structure", "as-is", "", strndup(base->raw, base->raw_len), base->raw_len, NULL,
                      R_VALID, GT_VERDICT_ACCEPT, NULL, NULL, gen_format_text("%s, as it is", base->name), true);
    gt_json_style pretty = {.indent = "  "};
    emit_styled(gen, sink, "pretty", "", base, &pretty, R_WHITESPACE, "indented with two spaces");
    gt_json_style spaced = {.indent = "\t", .newline = "\r\n", .colon = " : "};
    emit_styled(gen, sink, "whitespace", "", base, &spaced, R_WHITESPACE, "tabs, CRLF and spaces around colons");
    gt_json_style reversed = {.reverse_keys = true};
    emit_styled(gen, sink, "key-order", "", base, &reversed, R_KEY_ORDER, "members in reverse order");
    static const char *const around[][2] = {{" ", ""}, {"", "\n"}, {"\r\n\t", " \r\n"}};
    for (size_t i = 0; i < 3; i++) { /* whitespace around the value is part of the JSON text (RFC 8259 §2) */
        char *raw = gen_format_text("%s%.*s%s", around[i][0], (int)base->raw_len, base->raw, around[i][1]);
        if (raw != NULL)
            gen_add_candidate(gen, "valid", "structure", "outer-whitespace", "", raw, strlen(raw), NULL,
                              R_WHITESPACE, GT_VERDICT_ACCEPT, NULL, NULL,
                              gen_format_text("whitespace around the value (%s)", base->name), true);
    }
    gt_json_style escaped_keys = {.escape_keys = true};
    emit_styled(gen, sink, "key-escape", "", base, &escaped_keys, R_ESCAPES, "member names as \\u escapes");
    for (size_t i = 0; i < sites->count; i++) {
        const gen_site *site = &sites->items[i];
        if (cJSON_IsString(site->node) && site->node->valuestring[0] != '\0') {
            gt_json_style style = {.escape_string = site->node};
            char *what = gen_format_text("the string at %s as \\u escapes", site->path);
            emit_styled(gen, sink, "unicode-escape", site->path, base, &style, R_ESCAPES, what ? what : "");
            free(what);
        }
        gt_gen_view view;
        gt_gen_view_build(gen->schema, &view, site->schema, site->node, NULL);
        if (cJSON_IsNumber(site->node) && site->node->valuedouble == floor(site->node->valuedouble) &&
            fabs(site->node->valuedouble) < 1e15 &&
            (gt_gen_view_type_has(&view, "number") || gt_gen_kw(&view, "type") == NULL)) {
            char literal[48];
            snprintf(literal, sizeof literal, "%.0f.0", site->node->valuedouble);
            gt_json_style style = {.literal_node = site->node, .literal_text = literal};
            char *what = gen_format_text("the number at %s written %s", site->path, literal);
            emit_styled(gen, sink, "float-form", site->path, base, &style, R_FLOAT, what ? what : "");
            free(what);
        }
        if (cJSON_IsString(site->node))
            if (evenly_kept(i, sites->count, GT_GEN_TEXT_SITES))
                valid_respellings(gen, sink, base, site, &view);
        if (cJSON_IsNumber(site->node) && evenly_kept(i, sites->count, GT_GEN_TEXT_SITES))
            valid_exponents(gen, sink, base, site);
        valid_union_branches(gen, sink, base, site, &view);
        valid_boundaries(gen, sink, base, site);
    }
}

/* ---- syntax mutations ---- */

static const char *const prose_before[] = {"Here is the JSON you asked for:", "Sure! The result is below.", "Output:"};
static const char *const prose_after[] = {"Let me know if you need anything else.", "I hope this helps!",
                                          "(end of output)"};

static void text_op(gt_gen *gen, gen_sink *sink, const char *op, const char *reason, const char *const *rules,
                    const char *form, const gen_base *base, const char *prefix, const char *text, size_t len,
                    const char *suffix)
{
    gt_buf buf = {0};
    gt_buf_str(&buf, prefix);
    gt_buf_add(&buf, text, len);
    gt_buf_str(&buf, suffix);
    size_t out_len;
    char *raw = gt_buf_take(&buf, &out_len);
    if (raw != NULL)
        sink->text(gen, sink, op, "", raw, out_len, rules, reason,
                   gen_format_text("%s (%s, %s)", op, base->name, form));
}

static void splice_op(gt_gen *gen, gen_sink *sink, const char *op, const char *reason, const char *const *rules,
                      const gen_base *base, const char *form, const char *text, size_t len, size_t at, size_t cut,
                      const char *insert)
{
    gt_buf buf = {0};
    gt_buf_add(&buf, text, at);
    gt_buf_str(&buf, insert);
    if (cut <= len)
        gt_buf_add(&buf, text + cut, len - cut);
    size_t out_len;
    char *raw = gt_buf_take(&buf, &out_len);
    if (raw != NULL)
        sink->text(gen, sink, op, "", raw, out_len, rules, reason,
                   gen_format_text("%s at byte %zu (%s, %s)", op, at, base->name, form));
}

/* Whether item `i` of `count` is one of `max` evenly spaced ones (all when count <= max). */

static void syntax_form(gt_gen *gen, gen_sink *sink, const gen_base *base, const char *form, gt_json_style *style)
{
    gt_buf buf = {0};
    style->record = true;
    gt_json_write(&buf, base->value, style);
    size_t len;
    char *text = gt_buf_take(&buf, &len);
    if (text == NULL) {
        gt_json_style_free(style);
        return;
    }
    size_t pick = (size_t)gt_rng_below(&gen->rng, sizeof prose_before / sizeof prose_before[0]);
    text_op(gen, sink, "fence-json", "markdown_fence", R_FENCE, form, base, "```json\n", text, len, "\n```");
    text_op(gen, sink, "fence-plain", "markdown_fence", R_FENCE, form, base, "```\n", text, len, "\n```");
    text_op(gen, sink, "fence-inline", "markdown_fence", R_FENCE, form, base, "`", text, len, "`");
    text_op(gen, sink, "fence-tilde", "leading_text", R_FENCE, form, base, "~~~json\n", text, len, "\n~~~");
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s\n```json\n", prose_before[pick]);
    text_op(gen, sink, "fence-prose", "markdown_fence", R_FENCE, form, base, prefix, text, len, "\n```\n");
    for (size_t p = 0; p < sizeof prose_before / sizeof prose_before[0]; p++) {
        snprintf(prefix, sizeof prefix, "%s\n", prose_before[p]);
        text_op(gen, sink, "prose-before", "leading_text", R_PROSE, form, base, prefix, text, len, "");
        snprintf(prefix, sizeof prefix, "\n\n%s", prose_after[p]);
        text_op(gen, sink, "prose-after", "trailing_text", R_PROSE, form, base, "", text, len, prefix);
    }
    text_op(gen, sink, "xml-wrapper", "leading_text", R_PROSE, form, base, "<output>", text, len, "</output>");
    text_op(gen, sink, "bom", "bom", R_BOM, form, base, "\xEF\xBB\xBF", text, len, "");
    text_op(gen, sink, "comment-line", "comment", R_GRAMMAR, form, base, "", text, len, " // generated");
    gt_buf twice = {0};
    gt_buf_add(&twice, text, len);
    gt_buf_str(&twice, style->indent ? "\n" : ",");
    char *second = gt_buf_take(&twice, NULL);
    if (second != NULL)
        text_op(gen, sink, style->indent ? "two-values" : "two-values-comma", "multiple_values", R_TWO_VALUES, form,
                base, "", second, strlen(second), text);
    free(second);
    if (len > 0 && (text[0] == '{' || text[0] == '['))
        splice_op(gen, sink, "comment-block", "comment", R_GRAMMAR, base, form, text, len, 1, 1, "/* generated */");
    for (size_t i = 0; i < style->closer_count; i++)
        if (evenly_kept(i, style->closer_count, GT_GEN_MAX_SITES))
            splice_op(gen, sink, "trailing-comma", "trailing_comma", R_GRAMMAR, base, form, text, len,
                      style->closers[i], style->closers[i], ",");
    /* truncation at every structural boundary, and inside every token longer
     * than two bytes (a string, a number, a literal): a cut stream */
    for (size_t i = 0; i < style->mark_count; i++) {
        if (!evenly_kept(i, style->mark_count, GT_GEN_MAX_SITES / 2)) /* a large sample stays linear */
            continue;
        size_t at = style->marks[i];
        size_t token_start = 0;
        for (size_t j = 0; j < i; j++)
            if (style->marks[j] < at && style->marks[j] > token_start)
                token_start = style->marks[j];
        while (token_start < at && (text[token_start] == ' ' || text[token_start] == '\n'))
            token_start++;
        size_t middle = token_start + (at - token_start) / 2;
        if (at - token_start > 2 && middle > 0 && middle < len && ((unsigned char)text[middle] & 0xC0) != 0x80) {
            char *raw = strndup(text, middle);
            if (raw != NULL)
                sink->text(gen, sink, "truncate", "", raw, middle, R_TRUNCATE, "unexpected_end",
                           gen_format_text("cut inside a token after byte %zu of %zu (%s, %s)", middle, len, base->name,
                                           form));
        }
        if (at == 0 || at >= len)
            continue;
        char *raw = strndup(text, at);
        if (raw != NULL)
            sink->text(gen, sink, "truncate", "", raw, at, R_TRUNCATE, "unexpected_end",
                       gen_format_text("cut after byte %zu of %zu (%s, %s)", at, len, base->name, form));
    }
    gt_json_style_free(style);
    free(text);
}

/* A value for a member that differs from `current` but still fits its schema when it can. */
static cJSON *different_value(gt_gen *gen, const cJSON *schema, const cJSON *current)
{
    char why[256];
    for (unsigned variant = 1; variant < 5; variant++) {
        cJSON *other = gt_gen_synthesize(gen->schema, schema, true, &gen->rng, variant, 1, why, sizeof why, "");
        if (other != NULL && !cJSON_Compare(other, current, true))
            return other;
        cJSON_Delete(other);
    }
    if (cJSON_IsBool(current))
        return cJSON_CreateBool(!cJSON_IsTrue(current));
    if (cJSON_IsNumber(current))
        return cJSON_CreateNumber(current->valuedouble + 1);
    return cJSON_CreateString("other");
}

static void emit_literal(gt_gen *gen, gen_sink *sink, const char *op, const char *reason, const char *const *rules,
                         const gen_base *base, const gen_site *site, gt_json_style *style, const char *what)
{
    gt_buf buf = {0};
    gt_json_write(&buf, base->value, style);
    size_t len;
    char *raw = gt_buf_take(&buf, &len);
    if (raw != NULL)
        sink->text(gen, sink, op, site->path, raw, len, rules, reason,
                   gen_format_text("%s at %s (%s)", what, site->path[0] ? site->path : "/", base->name));
}

/* Byte-level misspellings of one string or number (its literal text): each
 * breaks the JSON grammar in one known way (docs/reason-codes.md). */
static void scalar_syntax(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site)
{
    cJSON *node = site->node;
    char *literal = NULL;
    if (cJSON_IsString(node))
        literal = gt_json_compact(node, NULL);
    else if (cJSON_IsNumber(node) && (literal = malloc(32)) != NULL)
        gt_json_number(literal, node->valuedouble);
    if (literal == NULL)
        return;
    static const struct {
        const char *op, *reason, *insert; /* insert: after the opening quote; NULL: whole-literal forms below */
    } string_forms[] = {
        {"raw-control", "control_character", "\t"},
        {"raw-control", "control_character", "\n"},
        {"raw-control", "control_character", "\r"},
        {"raw-control", "control_character", "\x1f"},
        {"bad-escape", "bad_escape", "\\x41"},
        {"bad-escape", "bad_escape", "\\u12"},
        {"bad-escape", "bad_escape", "\\'"}, /* JavaScript and Python escapes JSON does not have */
        {"bad-escape", "bad_escape", "\\v"},
        {"bad-escape", "bad_escape", "\\0"},
        {"lone-surrogate", "lone_surrogate", "\\ud83d"},
        {"lone-surrogate", "lone_surrogate", "\\ude00"},
        {"invalid-utf8", "invalid_utf8", "\xc0\xaf"},     /* overlong '/' */
        {"invalid-utf8", "invalid_utf8", "\xff"},         /* never in UTF-8 */
        {"invalid-utf8", "invalid_utf8", "\xed\xa0\xbd"}, /* an encoded surrogate (CESU-8) */
    };
    size_t len = strlen(literal);
    if (cJSON_IsString(node)) {
        for (size_t i = 0; i < sizeof string_forms / sizeof string_forms[0]; i++) {
            char *text = gen_format_text("\"%s%s", string_forms[i].insert, literal + 1);
            gt_json_style style = {.literal_node = node, .literal_text = text};
            if (text != NULL)
                emit_literal(gen, sink, string_forms[i].op, string_forms[i].reason, R_GRAMMAR, base, site, &style,
                             string_forms[i].op);
            free(text);
        }
        /* typographic quotes, and no quotes at all: some syntax error, the reason depends on the text */
        char *text = gen_format_text("\xe2\x80\x9c%.*s\xe2\x80\x9d", (int)len - 2, literal + 1);
        gt_json_style style = {.literal_node = node, .literal_text = text};
        if (text != NULL)
            emit_literal(gen, sink, "smart-quotes", NULL, R_GRAMMAR, base, site, &style, "smart-quotes");
        free(text);
    } else {
        bool negative = literal[0] == '-';
        bool integral = strpbrk(literal, ".eE") == NULL;
        char *forms[][3] = {
            {"leading-zero", "leading_zero", gen_format_text("%s0%s", negative ? "-" : "", literal + negative)},
            {"bad-number", "bad_number", negative ? NULL : gen_format_text("+%s", literal)},
            {"bad-number", "bad_number", integral ? gen_format_text("%s.", literal) : NULL},
            {"bad-number", "bad_number", integral && !negative ? gen_format_text("0x%s", literal) : NULL},
            {"number-overflow", "number_overflow", gen_format_text("%s1e999", negative ? "-" : "")},
            {"number-precision", "number_precision", gen_format_text("%s9007199254740993", negative ? "-" : "")},
        };
        for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
            gt_json_style style = {.literal_node = node, .literal_text = forms[i][2]};
            if (forms[i][2] != NULL)
                emit_literal(gen, sink, forms[i][0], forms[i][1], R_NUMBER, base, site, &style, forms[i][0]);
            free(forms[i][2]);
        }
    }
    free(literal);
}

void gen_syntax(gt_gen *gen, gen_sink *sink, const gen_base *base, const site_list *sites)
{
    gt_json_style compact = {0};
    syntax_form(gen, sink, base, "compact", &compact);
    gt_json_style pretty = {.indent = "  "};
    syntax_form(gen, sink, base, "indented", &pretty);
    for (size_t i = 0; i < sites->count; i++) {
        const gen_site *site = &sites->items[i];
        cJSON *node = site->node;
        if (node->string != NULL) {
            gt_json_style style = {.single_quote_key = node};
            emit_literal(gen, sink, "single-quotes", "single_quotes", R_GRAMMAR, base, site, &style,
                         "member name in single quotes");
            bool identifier = node->string[0] != '\0';
            for (const char *p = node->string; *p; p++)
                identifier = identifier && (isalnum((unsigned char)*p) || *p == '_');
            gt_json_style bare = {.bare_key = node};
            if (identifier)
                emit_literal(gen, sink, "unquoted-key", "unquoted_key", R_GRAMMAR, base, site, &bare,
                             "member name without quotes");
        }
        if (cJSON_IsString(node) && strchr(node->valuestring, '\'') == NULL &&
            strchr(node->valuestring, '\\') == NULL) {
            char *literal = gen_format_text("'%s'", node->valuestring);
            gt_json_style style = {.literal_node = node, .literal_text = literal};
            if (literal != NULL)
                emit_literal(gen, sink, "single-quotes", "single_quotes", R_GRAMMAR, base, site, &style,
                             "string in single quotes");
            free(literal);
        }
        if (evenly_kept(i, sites->count, GT_GEN_TEXT_SITES))
            scalar_syntax(gen, sink, base, site);
        if (cJSON_IsNumber(node)) {
            gt_json_style nan = {.literal_node = node, .literal_text = "NaN"};
            emit_literal(gen, sink, "nan", "non_finite_number", R_NUMBER, base, site, &nan, "NaN for a number");
            gt_json_style infinity = {.literal_node = node, .literal_text = "Infinity"};
            emit_literal(gen, sink, "infinity", "non_finite_number", R_NUMBER, base, site, &infinity,
                         "Infinity for a number");
        }
        if (cJSON_IsObject(node)) {
            gt_gen_view view;
            gt_gen_view_build(gen->schema, &view, site->schema, node, NULL);
            for (cJSON *member = node->child; member != NULL; member = member->next) {
                /* the same name again right after it, with another value that fits the schema */
                cJSON *other =
                    different_value(gen, site->schema ? gt_gen_property_schema(&view, member->string) : NULL, member);
                char *literal = NULL;
                if (other != NULL) {
                    gt_buf buf = {0};
                    gt_json_write(&buf, member, NULL);
                    gt_buf_str(&buf, ",");
                    gt_json_write_text(&buf, member->string, false);
                    gt_buf_str(&buf, ":");
                    gt_json_write(&buf, other, NULL);
                    literal = gt_buf_take(&buf, NULL);
                }
                cJSON_Delete(other);
                if (literal == NULL)
                    continue;
                char *path = gt_pointer_append(site->path, member->string);
                gt_json_style style = {.literal_node = member, .literal_text = literal};
                gen_site member_site = {path ? path : (char *)"", NULL, member};
                emit_literal(gen, sink, "duplicate-key", "duplicate_key", R_DUPLICATE, base, &member_site, &style,
                             "the member again with another value");
                free(path);
                free(literal);
            }
        }
    }
}

/* ---- structure mutations ---- */

static char *homoglyph_of(const char *text)
{
    for (const char *p = text; *p; p++) {
        const char *lookalike = gen_text_lookalike(*p);
        if (lookalike != NULL)
            return gen_format_text("%.*s%s%s", (int)(p - text), text, lookalike, p + 1);
    }
    return NULL;
}

static void enum_near_misses(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site,
                             const cJSON *member)
{
    const char *text = member->valuestring;
    size_t len = strlen(text);
    if (len == 0)
        return;
    char *toggled = strdup(text), *upper = strdup(text);
    if (toggled == NULL || upper == NULL) {
        free(toggled);
        free(upper);
        return;
    }
    for (char *p = toggled; *p; p++)
        if (isalpha((unsigned char)*p)) {
            *p = (char)(islower((unsigned char)*p) ? toupper((unsigned char)*p) : tolower((unsigned char)*p));
            break;
        }
    for (char *p = upper; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    if (strcmp(toggled, text) != 0)
        emit_at(gen, sink, "structure", "enum-case", base, site->path, cJSON_CreateString(toggled), R_ENUM_CASE);
    if (strcmp(upper, text) != 0 && strcmp(upper, toggled) != 0)
        emit_at(gen, sink, "structure", "enum-case", base, site->path, cJSON_CreateString(upper), R_ENUM_CASE);
    free(toggled);
    free(upper);
    char *spaced = gen_format_text("%s ", text);
    if (spaced != NULL)
        emit_at(gen, sink, "structure", "enum-space", base, site->path, cJSON_CreateString(spaced), R_ENUM_LOOKALIKE);
    free(spaced);
    spaced = gen_format_text(" %s", text);
    if (spaced != NULL)
        emit_at(gen, sink, "structure", "enum-space", base, site->path, cJSON_CreateString(spaced), R_ENUM_LOOKALIKE);
    free(spaced);
    char *lookalike = homoglyph_of(text);
    if (lookalike != NULL)
        emit_at(gen, sink, "structure", "enum-homoglyph", base, site->path, cJSON_CreateString(lookalike),
                R_ENUM_LOOKALIKE);
    free(lookalike);
}

static const struct {
    const char *format, *invalid[2];
} format_misses[] = {
    {"date", {"2024-02-30", "2024-3-15"}},
    {"date-time", {"2024-03-15 10:20:30", "2024-03-15T25:00:00Z"}},
    {"time", {"25:00:00Z", "10:20"}},
    {"email", {"user.example.com", "user@"}},
    {"idn-email", {"user.example.com", "user@"}},
    {"hostname", {"-bad-.example.com", "exa mple.com"}},
    {"ipv4", {"192.0.2.256", "192.0.2"}},
    {"ipv6", {"2001:db8:::1", "2001:db8::g"}},
    {"uri", {"example.com/a", "https://exa mple.com/"}},
    {"uuid", {"123e4567-e89b-12d3-a456-42661417400", "123e4567e89b12d3a456426614174000"}},
    {"duration", {"3D", "P"}},
};

/* Lengths one past a bound in astral code points: (minLength - 1) of them is
 * too short though a UTF-16 counter sees more; (maxLength + 1) too long. */
static void astral_length_misses(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site,
                                 const gt_gen_view *view)
{
    bool present;
    double min = gt_gen_kw_number(view, "minLength", &present);
    if (present && min >= 2 && min <= GT_GEN_MAX_BOUNDARY_LENGTH + 1) {
        char *text = gen_text_repeat(ASTRAL, (size_t)min - 1);
        emit_at(gen, sink, "structure", "too-short-astral", base, site->path, text ? cJSON_CreateString(text) : NULL,
                R_VALID);
        free(text);
    }
    double max = gt_gen_kw_number(view, "maxLength", &present);
    if (present && max >= 0 && max < GT_GEN_MAX_BOUNDARY_LENGTH) {
        char *text = gen_text_repeat(ASTRAL, (size_t)max + 1);
        emit_at(gen, sink, "structure", "too-long-astral", base, site->path, text ? cJSON_CreateString(text) : NULL,
                R_OVERLONG);
        free(text);
    }
}

static void string_misses(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site,
                          const gt_gen_view *view, bool per_character)
{
    const char *text = site->node->valuestring;
    bool present;
    double min = gt_gen_kw_number(view, "minLength", &present);
    if (present && min >= 1 && min <= GT_GEN_MAX_BOUNDARY_LENGTH + 1) {
        size_t length = (size_t)min - 1;
        char *shorter = gt_gen_text_of_length(length, NULL);
        if (shorter != NULL && gt_gen_utf8_length(text) > length) /* keep the prefix of the valid value */
            snprintf(shorter, length + 1, "%s", text);
        emit_at(gen, sink, "structure", "too-short", base, site->path, shorter ? cJSON_CreateString(shorter) : NULL,
                R_VALID);
        free(shorter);
    }
    double max = gt_gen_kw_number(view, "maxLength", &present);
    if (present && max >= 0 && max < GT_GEN_MAX_BOUNDARY_LENGTH) {
        char *longer = gt_gen_text_of_length((size_t)max + 1, &gen->rng);
        emit_at(gen, sink, "structure", "too-long", base, site->path, longer ? cJSON_CreateString(longer) : NULL,
                R_OVERLONG);
        free(longer);
    }
    if (cJSON_IsString(gt_gen_kw(view, "pattern"))) {
        static const char *const shapes[][2] = {
            {"pattern-newline", "%s\n"}, {"pattern-suffix", "%s#"}, {"pattern-prefix", " %s"}};
        for (size_t i = 0; i < 3; i++) {
            char *miss = gen_format_text(shapes[i][1], text);
            emit_at(gen, sink, "structure", shapes[i][0], base, site->path, miss ? cJSON_CreateString(miss) : NULL,
                    R_VALID);
            free(miss);
        }
    }
    const cJSON *format = gt_gen_kw(view, "format");
    bool shaped = cJSON_IsString(gt_gen_kw(view, "pattern")) || (gen->options.formats && cJSON_IsString(format));
    if (shaped && per_character) {
        gen_text_list misses = {0};
        gen_text_misses(text, GT_GEN_TEXT_POSITIONS, &misses);
        for (size_t i = 0; i < misses.count; i++) {
            const char *op = misses.items[i].op;
            bool lookalike = strcmp(op, "text-class") != 0 && strcmp(op, "text-drop") != 0 &&
                             strcmp(op, "text-repeat") != 0 && strcmp(op, "text-case") != 0;
            emit_at(gen, sink, "structure", op, base, site->path, cJSON_CreateString(misses.items[i].text),
                    lookalike ? R_ENUM_LOOKALIKE : R_VALID);
        }
        gen_text_list_free(&misses);
    } else if (!shaped) {
        astral_length_misses(gen, sink, base, site, view);
    }
    if (gen->options.formats && cJSON_IsString(format)) {
        for (size_t i = 0; i < sizeof format_misses / sizeof format_misses[0]; i++)
            if (strcmp(format_misses[i].format, format->valuestring) == 0)
                for (int j = 0; j < 2; j++)
                    emit_at(gen, sink, "structure", "format", base, site->path,
                            cJSON_CreateString(format_misses[i].invalid[j]), R_VALID);
    }
}

static void number_misses(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site,
                          const gt_gen_view *view)
{
    double value = site->node->valuedouble;
    gt_gen_number_facts facts;
    gt_gen_number_facts_read(view, &facts);
    double step = facts.multiple > 0 ? facts.multiple : 1;
    if (facts.has_low)
        emit_at(gen, sink, "structure", "below-minimum", base, site->path,
                number_node(facts.low_exclusive ? facts.low : facts.low - step), R_VALID);
    if (facts.has_high)
        emit_at(gen, sink, "structure", "above-maximum", base, site->path,
                number_node(facts.high_exclusive ? facts.high : facts.high + step), R_VALID);
    if (gt_gen_view_type_has(view, "integer") && !gt_gen_view_type_has(view, "number"))
        emit_at(gen, sink, "structure", "fraction", base, site->path, number_node(value + 0.5), R_VALID);
    if (facts.multiple > 0)
        emit_at(gen, sink, "structure", "multiple-of", base, site->path, number_node(value + facts.multiple / 2),
                R_VALID);
}

static void array_misses(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site,
                         const gt_gen_view *view)
{
    cJSON *node = site->node;
    size_t size = (size_t)cJSON_GetArraySize(node);
    bool present;
    double min = gt_gen_kw_number(view, "minItems", &present);
    if (present && min >= 1 && min <= 65) {
        cJSON *array = cJSON_Duplicate(node, true);
        char why[256];
        while (array && (size_t)cJSON_GetArraySize(array) > (size_t)min - 1)
            cJSON_DeleteItemFromArray(array, cJSON_GetArraySize(array) - 1);
        for (size_t i = (size_t)cJSON_GetArraySize(array); array && i + 1 < (size_t)min; i++)
            cJSON_AddItemToArray(array, gt_gen_synthesize(gen->schema, gt_gen_item_schema(view, i), true, &gen->rng,
                                                          (unsigned)i + 3, 1, why, sizeof why, ""));
        emit_at(gen, sink, "structure", "too-few-items", base, site->path, array, R_VALID);
    }
    double max = gt_gen_kw_number(view, "maxItems", &present);
    if (present && max >= 0 && max <= 64) {
        cJSON *array = cJSON_Duplicate(node, true);
        char why[256];
        for (size_t i = size; array && i < (size_t)max + 1; i++) {
            cJSON *item = gt_gen_synthesize(gen->schema, gt_gen_item_schema(view, i), true, &gen->rng, (unsigned)i + 11,
                                            1, why, sizeof why, "");
            cJSON_AddItemToArray(array, item ? item : cJSON_CreateString("x"));
        }
        emit_at(gen, sink, "structure", "too-many-items", base, site->path, array, R_VALID);
    }
    if (cJSON_IsTrue(gt_gen_kw(view, "uniqueItems")) && size > 0) {
        cJSON *array = cJSON_Duplicate(node, true);
        if (array != NULL)
            cJSON_AddItemToArray(array, cJSON_Duplicate(node->child, true));
        emit_at(gen, sink, "structure", "duplicate-item", base, site->path, array, R_VALID);
    }
}

static void object_misses(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site,
                          const gt_gen_view *view)
{
    for (cJSON *member = site->node->child; member != NULL; member = member->next) {
        if (!gt_gen_required(view, member->string))
            continue;
        cJSON *copy = cJSON_Duplicate(base->value, true);
        cJSON *object = copy ? gt_pointer_find(copy, site->path, NULL) : NULL;
        if (object == NULL) {
            cJSON_Delete(copy);
            continue;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(object, member->string);
        char *path = gt_pointer_append(site->path, member->string);
        sink->tree(gen, sink, "structure", "drop-required", site->path, copy, R_MISSING,
                   gen_format_text("drop-required %s (%s)", path ? path : "?", base->name));
        free(path);
    }
    bool present;
    double max = gt_gen_kw_number(view, "maxProperties", &present);
    if (present && max >= 0 && max < 64)
        emit_at(gen, sink, "structure", "too-many-properties", base, site->path,
                grown_object(cJSON_Duplicate(site->node, true), (size_t)max + 1), R_EXTRA);
    const char *name = "debug_context";
    if (cJSON_GetObjectItemCaseSensitive(site->node, name) != NULL)
        name = "debug_context_2";
    cJSON *copy = cJSON_Duplicate(base->value, true);
    cJSON *object = copy ? gt_pointer_find(copy, site->path, NULL) : NULL;
    if (object == NULL) {
        cJSON_Delete(copy);
        return;
    }
    cJSON_AddItemToObject(object, name, cJSON_CreateString("internal trace id 7f3a"));
    char *path = gt_pointer_append(site->path, name);
    if (path != NULL)
        sink->tree(gen, sink, "structure", "extra-member", path, copy, R_EXTRA,
                   gen_format_text("extra-member %s (%s)", path, base->name));
    else
        cJSON_Delete(copy);
    free(path);
}

/* A one-element array holding `node`, or an object {"value": node}. */
static cJSON *wrapped(const cJSON *node, bool in_object)
{
    cJSON *wrapper = in_object ? cJSON_CreateObject() : cJSON_CreateArray();
    cJSON *copy = cJSON_Duplicate(node, true);
    if (wrapper == NULL || copy == NULL) {
        cJSON_Delete(wrapper);
        cJSON_Delete(copy);
        return NULL;
    }
    if (in_object)
        cJSON_AddItemToObject(wrapper, "value", copy);
    else
        cJSON_AddItemToArray(wrapper, copy);
    return wrapper;
}

/* The JSON scalar a string's text spells ("404" -> 404, "true" -> true,
 * "null" -> null: the quotes dropped, the mirror of number-as-string), or
 * NULL when the text is not exactly a JSON number literal or literal name. */
static cJSON *unquoted_scalar(const char *text)
{
    if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)
        return cJSON_CreateBool(text[0] == 't');
    if (strcmp(text, "null") == 0)
        return cJSON_CreateNull();
    const char *p = text + (text[0] == '-');
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        p += strspn(p, "0123456789");
    else
        return NULL;
    if (*p == '.' && p[1] >= '0' && p[1] <= '9')
        p += 1 + strspn(p + 1, "0123456789");
    if ((*p == 'e' || *p == 'E')) {
        const char *digits = p + 1 + (p[1] == '+' || p[1] == '-');
        size_t n = strspn(digits, "0123456789");
        p = n > 0 ? digits + n : p;
    }
    if (*p != '\0' || strlen(text) > 17) /* beyond 17 characters the number may not round-trip */
        return NULL;
    return number_node(strtod(text, NULL));
}

/* Every other JSON type in place of the value, the classic coercions first. */
static void type_swaps(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site)
{
    cJSON *node = site->node;
    const char *path = site->path;
    if (cJSON_IsNumber(node)) {
        char literal[32];
        gt_json_number(literal, node->valuedouble);
        emit_at(gen, sink, "structure", "number-as-string", base, path, cJSON_CreateString(literal),
                R_NUMBER_AS_STRING);
        emit_at(gen, sink, "structure", "bool-as-int", base, path, cJSON_CreateBool(node->valuedouble != 0),
                R_BOOL_AS_INT);
    } else if (cJSON_IsBool(node)) {
        emit_at(gen, sink, "structure", "int-as-bool", base, path, number_node(cJSON_IsTrue(node) ? 1 : 0),
                R_INT_AS_BOOL);
        emit_at(gen, sink, "structure", "string-as-bool", base, path,
                cJSON_CreateString(cJSON_IsTrue(node) ? "true" : "false"), R_STRING_AS_BOOL);
    } else if (cJSON_IsString(node)) {
        emit_at(gen, sink, "structure", "string-unquoted", base, path, unquoted_scalar(node->valuestring), R_VALID);
        emit_at(gen, sink, "structure", "wrong-type", base, path, number_node(42), R_VALID);
        emit_at(gen, sink, "structure", "wrong-type", base, path, cJSON_CreateTrue(), R_VALID);
        emit_at(gen, sink, "structure", "wrong-type", base, path, cJSON_CreateFalse(), R_VALID);
        emit_at(gen, sink, "structure", "wrong-type", base, path, number_node(0), R_VALID);
        emit_at(gen, sink, "structure", "wrong-type", base, path, cJSON_CreateObject(), R_VALID);
        emit_at(gen, sink, "structure", "wrong-type", base, path, cJSON_CreateArray(), R_VALID);
        emit_at(gen, sink, "structure", "empty-string", base, path, cJSON_CreateString(""), R_VALID);
        char *quoted = gt_json_compact(node, NULL); /* the value as a JSON text inside a string */
        emit_at(gen, sink, "structure", "stringified-string", base, path, quoted ? cJSON_CreateString(quoted) : NULL,
                R_VALID);
        free(quoted);
    } else if (cJSON_IsArray(node)) {
        gt_buf joined = {0};
        for (const cJSON *item = node->child; item != NULL; item = item->next) {
            if (item != node->child)
                gt_buf_str(&joined, ",");
            if (cJSON_IsString(item))
                gt_buf_str(&joined, item->valuestring);
            else
                gt_json_write(&joined, item, NULL);
        }
        char *text = gt_buf_take(&joined, NULL);
        emit_at(gen, sink, "structure", "comma-string", base, path, text ? cJSON_CreateString(text) : NULL,
                R_COMMA_STRING);
        free(text);
        if (node->child != NULL) /* one element where a list belongs */
            emit_at(gen, sink, "structure", "unwrapped", base, path, cJSON_Duplicate(node->child, true), R_VALID);
        emit_at(gen, sink, "structure", "wrong-type", base, path, cJSON_CreateObject(), R_VALID);
        emit_at(gen, sink, "structure", "wrong-type", base, path, number_node(0), R_VALID);
    } else if (cJSON_IsObject(node)) {
        char *text = gt_json_compact(node, NULL);
        emit_at(gen, sink, "structure", "stringified-object", base, path, text ? cJSON_CreateString(text) : NULL,
                R_VALID);
        free(text);
        emit_at(gen, sink, "structure", "wrong-type", base, path, cJSON_CreateArray(), R_VALID);
    }
    if (!cJSON_IsArray(node)) /* a scalar or object where one element was meant: wrapped in a list */
        emit_at(gen, sink, "structure", "wrapped", base, path, wrapped(node, false), R_VALID);
    if (!cJSON_IsObject(node) && !cJSON_IsArray(node))
        emit_at(gen, sink, "structure", "wrapped", base, path, wrapped(node, true), R_VALID);
    if (!cJSON_IsNull(node))
        emit_at(gen, sink, "structure", "null", base, path, cJSON_CreateNull(), R_VALID);
}

void gen_structure(gt_gen *gen, gen_sink *sink, const gen_base *base, const site_list *sites)
{
    for (size_t i = 0; i < sites->count; i++) {
        const gen_site *site = &sites->items[i];
        gt_gen_view view;
        gt_gen_view_build(gen->schema, &view, site->schema, site->node, NULL);
        type_swaps(gen, sink, base, site);
        const cJSON *members = gt_gen_kw(&view, "enum");
        const cJSON *constant = gt_gen_kw(&view, "const");
        int shown = 0;
        const cJSON *member;
        cJSON_ArrayForEach(member, members) if (cJSON_IsString(member) && shown++ < GT_GEN_MAX_ENUM_MEMBERS)
            enum_near_misses(gen, sink, base, site, member);
        if (cJSON_IsString(constant))
            enum_near_misses(gen, sink, base, site, constant);
        if (cJSON_IsString(site->node) && members == NULL && constant == NULL)
            string_misses(gen, sink, base, site, &view, evenly_kept(i, sites->count, GT_GEN_TEXT_SITES));
        if (cJSON_IsNumber(site->node))
            number_misses(gen, sink, base, site, &view);
        if (cJSON_IsArray(site->node))
            array_misses(gen, sink, base, site, &view);
        if (cJSON_IsObject(site->node))
            object_misses(gen, sink, base, site, &view);
    }
}

/* ---- loop and stream scripts ---- */

static cJSON *script_new(const gt_gen *gen)
{
    cJSON *script = cJSON_CreateObject();
    if (script == NULL)
        return NULL;
    cJSON_AddStringToObject(script, "prompt", "Produce the structured output for this ticket.");
    cJSON_AddItemToObject(script, "json_schema", cJSON_Duplicate(gen->schema, true));
    cJSON_AddItemToObject(script, "turns", cJSON_CreateArray());
    return script;
}

static cJSON *tool_use(const cJSON *value, unsigned number)
{
    cJSON *block = cJSON_CreateObject();
    char id[32];
    snprintf(id, sizeof id, "toolu_%02u", number);
    cJSON_AddStringToObject(block, "type", "tool_use");
    cJSON_AddStringToObject(block, "id", id);
    cJSON_AddStringToObject(block, "name", "StructuredOutput");
    cJSON_AddItemToObject(block, "input", cJSON_Duplicate(value, true));
    cJSON *content = cJSON_CreateArray();
    cJSON_AddItemToArray(content, block);
    cJSON *message = cJSON_CreateObject();
    cJSON_AddItemToObject(message, "content", content);
    return message;
}

static void add_turn(cJSON *script, const char *kind, cJSON *body)
{
    cJSON *turn = cJSON_CreateObject();
    cJSON_AddItemToObject(turn, kind, body);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(script, "turns"), turn);
}

static void add_script(gt_gen *gen, const char *gate, const char *op, cJSON *script, const char *const *rules,
                       gt_verdict verdict, const char *want_gate, const char *reason, char *what)
{
    char *text = script ? gt_json_compact(script, NULL) : NULL;
    cJSON_Delete(script);
    gen_add_candidate(gen, "loop", gate, op, "", NULL, 0, text, rules, verdict, want_gate, reason, what, true);
}

/* True when `spec` can be derived from `schema_text` (docs/loop-scripts.md "derive"). */
static bool derivable(const gt_derive_spec *spec, const char *schema_text)
{
    char *text = NULL, why[256];
    size_t len;
    int rc = schema_text ? gt_derive_text(spec, schema_text, strlen(schema_text), &text, &len, why, sizeof why) : 1;
    free(text);
    return rc == 0;
}

/* Schema-derived faults: each fault operator answered five times (the
 * answer computed from the schema, by the mock from the one its client
 * sends), and a valid instance cut at each kind of boundary. */
static void gen_loop_derived(gt_gen *gen)
{
    char *schema_text = gt_json_compact(gen->schema, NULL);
    static const gt_derive_op faults[] = {GT_DERIVE_SCHEMA_ECHO, GT_DERIVE_NESTED_AS_STRING,
                                          GT_DERIVE_LOOSE_PLACEHOLDER, GT_DERIVE_ENUM_CASE};
    for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++) {
        gt_derive_spec spec = {.op = faults[f]};
        if (!derivable(&spec, schema_text))
            continue;
        char op[48];
        snprintf(op, sizeof op, "derive-%s", gt_derive_op_name(faults[f]));
        cJSON *script = script_new(gen);
        for (unsigned turn = 1; turn <= GT_LOOP_DEFAULT_MAX_ATTEMPTS; turn++)
            add_turn(script, "derive", cJSON_CreateString(gt_derive_op_name(faults[f])));
        cJSON *mock = cJSON_CreateObject();
        cJSON_AddStringToObject(mock, "after_script", "repeat_last");
        cJSON_AddItemToObject(script, "mock", mock);
        add_script(gen, "loop", op, script, R_LOOP_LIMIT, GT_VERDICT_REJECT, "loop",
                   "error_max_structured_output_retries",
                   gen_format_text("%d StructuredOutput calls derived by %s from the schema",
                                   GT_LOOP_DEFAULT_MAX_ATTEMPTS, gt_derive_op_name(faults[f])));
    }
    static const gt_derive_boundary boundaries[] = {GT_DERIVE_INSIDE_STRING, GT_DERIVE_BETWEEN_MEMBERS,
                                                    GT_DERIVE_BEFORE_CLOSE};
    for (size_t b = 0; b < sizeof boundaries / sizeof boundaries[0]; b++) {
        gt_derive_spec spec = {.op = GT_DERIVE_CUT_AT, .at = boundaries[b]};
        if (!derivable(&spec, schema_text))
            continue;
        cJSON *script = script_new(gen);
        cJSON *derive = cJSON_CreateObject();
        cJSON_AddStringToObject(derive, "op", "cut-at");
        cJSON_AddStringToObject(derive, "at", gt_derive_boundary_name(boundaries[b]));
        add_turn(script, "derive", derive);
        cJSON_AddNumberToObject(script, "max_api_retries", 0);
        add_script(gen, "stream", "derive-cut-at", script, R_LOOP_CUT, GT_VERDICT_REJECT, "stream", "stream_truncated",
                   gen_format_text("a valid instance of the schema streamed and cut at %s (derive cut-at)",
                                   gt_derive_boundary_name(boundaries[b])));
    }
    free(schema_text);
}

void gen_loop(gt_gen *gen, const gen_base *base, size_t structure_from)
{
    cJSON *script = script_new(gen);
    add_turn(script, "message", tool_use(base->value, 1));
    add_script(gen, "loop", "valid-call", script, R_LOOP_VALID, GT_VERDICT_ACCEPT, NULL, NULL,
               gen_format_text("one StructuredOutput call with %s", base->name));

    /* the bad object of a few structure mutations, called until the attempt limit */
    size_t bad[GT_GEN_MAX_LOOP_OBJECTS], bad_count = 0, candidates = 0;
    for (size_t i = structure_from; i < gen->count; i++)
        candidates += strcmp(gen->cases[i].family, "structure") == 0 && gen->cases[i].confirmed;
    size_t wanted = candidates < GT_GEN_MAX_LOOP_OBJECTS ? candidates : GT_GEN_MAX_LOOP_OBJECTS;
    for (size_t i = structure_from, rank = 0; i < gen->count && bad_count < wanted; i++) {
        if (strcmp(gen->cases[i].family, "structure") != 0 || !gen->cases[i].confirmed)
            continue;
        if (rank++ == bad_count * candidates / wanted) /* evenly spaced over the mutations */
            bad[bad_count++] = i;
    }
    for (size_t b = 0; b < bad_count; b++) {
        const gt_gen_case *from = &gen->cases[bad[b]];
        cJSON *value = cJSON_ParseWithLength((const char *)from->raw, from->raw_len);
        if (value == NULL)
            continue;
        script = script_new(gen);
        for (unsigned turn = 1; turn <= GT_LOOP_DEFAULT_MAX_ATTEMPTS; turn++) /* the default attempt limit */
            add_turn(script, "message", tool_use(value, turn));
        cJSON *mock = cJSON_CreateObject();
        cJSON_AddStringToObject(mock, "after_script", "repeat_last");
        cJSON_AddItemToObject(script, "mock", mock);
        add_script(gen, "loop", "retry-limit", script, R_LOOP_LIMIT, GT_VERDICT_REJECT, "loop",
                   "error_max_structured_output_retries",
                   gen_format_text("%d StructuredOutput calls with the object of %s (%s)", GT_LOOP_DEFAULT_MAX_ATTEMPTS,
                                   from->id, from->description));
        cJSON_Delete(value);
    }

    /* the model answers in text only: the enforce message, then text again */
    char *compact = gt_json_compact(base->value, NULL);
    const char *shapes[] = {"%s", "```json\n%s\n```", "Here is the result: %s"};
    for (size_t s = 0; compact != NULL && s < 3; s++) {
        script = script_new(gen);
        for (int turn = 0; turn < 2; turn++) {
            cJSON *message = cJSON_CreateObject();
            char *text = gen_format_text(shapes[s], compact);
            cJSON_AddStringToObject(message, "content", text ? text : "");
            free(text);
            add_turn(script, "message", message);
        }
        add_script(gen, "loop", "text-only", script, R_LOOP_TEXT, GT_VERDICT_REJECT, "loop",
                   "error_no_structured_output",
                   gen_format_text("two text-only answers holding %s (%s)", base->name,
                                   s == 0   ? "bare"
                                   : s == 1 ? "fenced"
                                            : "with prose"));
    }

    /* a stream cut before its terminal event, no retry left */
    size_t deltas = compact ? (strlen(compact) + 15) / 16 : 1;
    size_t events = deltas + 5;
    size_t cuts[] = {0, 1, 2, 2 + deltas / 2, events - 3, events - 2};
    static const char *const providers[] = {"anthropic", "openai"};
    for (size_t p = 0; compact != NULL && p < 2; p++) {
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            script = script_new(gen);
            cJSON *stream = cJSON_CreateObject();
            cJSON_AddItemToObject(stream, "from_message", tool_use(base->value, 1));
            cJSON_AddNumberToObject(stream, "chunk_bytes", 16);
            cJSON_AddStringToObject(stream, "provider", providers[p]);
            cJSON *cut = cJSON_CreateObject();
            cJSON_AddNumberToObject(cut, "after_event", (double)cuts[c]);
            cJSON_AddItemToObject(stream, "cut", cut);
            add_turn(script, "stream", stream);
            cJSON_AddNumberToObject(script, "max_api_retries", 0);
            add_script(gen, "stream", "cut-stream", script, R_LOOP_CUT, GT_VERDICT_REJECT, "stream", "stream_truncated",
                       gen_format_text("%s stream of %s cut after event %zu", providers[p], base->name, cuts[c]));
        }
    }
    free(compact);
    gen_loop_derived(gen);
}
