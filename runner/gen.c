/* gen.c — the adversarial case generator for one contract (gen.h,
 * docs/explore.md). Operators come in four families: valid variants,
 * syntax mutations of the text, structure mutations of the value, and loop
 * scripts. Each operator writes candidates into a sink; the generator's sink
 * checks them with the reference and keeps them, explore's combination sink
 * collects them to pick one at random. */
#include "gen.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_io.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
#include "gauntlet/value.h"
#include "gen_json.h"
#include "gen_schema.h"

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

typedef struct gen_base {
    cJSON *value;
    char *raw;   /* the exact text (a sample as given; else compact JSON) */
    size_t raw_len;
    char *name;  /* "sample a.json", "the minimal instance", ... */
    bool valid;  /* the reference accepts it */
} gen_base;

typedef struct op_counter {
    char *name;
    unsigned count;
} op_counter;

struct gt_gen {
    gt_gen_options options;
    char *schema_text;    /* as given (written to schema.json) */
    char *schema_compact; /* what targets are given */
    cJSON *schema;
    gt_target *reference;
    uint64_t rng;
    gen_base *bases;
    size_t base_count;
    gt_gen_case *cases;
    size_t count, cap;
    uint64_t *seen; /* open-addressing set of candidate hashes (0 = empty) */
    size_t seen_count, seen_cap;
    op_counter *counters;
    size_t counter_count;
    char *note;
    bool out_of_memory;
};

/* Where operators put what they build. */
typedef struct gen_sink gen_sink;
struct gen_sink {
    /* A value for family "valid" (want accept) or "structure" (want a structure rejection at `path`). */
    void (*tree)(gt_gen *gen, gen_sink *sink, const char *family, const char *op, const char *path, cJSON *root,
                 const char *const *rules, char *what);
    /* A raw text for family "syntax", wanting rejection `reason`. */
    void (*text)(gt_gen *gen, gen_sink *sink, const char *op, const char *path, char *raw, size_t len,
                 const char *const *rules, const char *reason, char *what);
    void *user;
};

static char *format_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format_text(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, args) < 0)
        text = NULL;
    va_end(args);
    return text;
}

void gt_gen_outcome_text(gt_verdict verdict, const char *gate, const char *reason, char *out, size_t out_len)
{
    if (verdict == GT_VERDICT_ACCEPT)
        snprintf(out, out_len, "accept");
    else if (verdict == GT_VERDICT_REJECT)
        snprintf(out, out_len, "reject %s/%s", gate ? gate : "?", reason ? reason : "?");
    else
        snprintf(out, out_len, "no verdict");
}

/* ---- candidates ---- */

static bool seen_insert(gt_gen *gen, uint64_t hash)
{
    if (hash == 0)
        hash = 1;
    if ((gen->seen_count + 1) * 2 > gen->seen_cap) {
        size_t cap = gen->seen_cap ? gen->seen_cap * 2 : 1024;
        uint64_t *table = calloc(cap, sizeof *table);
        if (table == NULL) {
            gen->out_of_memory = true;
            return false;
        }
        for (size_t i = 0; i < gen->seen_cap; i++) {
            if (gen->seen[i] == 0)
                continue;
            size_t at = gen->seen[i] & (cap - 1);
            while (table[at] != 0)
                at = (at + 1) & (cap - 1);
            table[at] = gen->seen[i];
        }
        free(gen->seen);
        gen->seen = table;
        gen->seen_cap = cap;
    }
    size_t at = hash & (gen->seen_cap - 1);
    for (; gen->seen[at] != 0; at = (at + 1) & (gen->seen_cap - 1))
        if (gen->seen[at] == hash)
            return false;
    gen->seen[at] = hash;
    gen->seen_count++;
    return true;
}

static unsigned next_number(gt_gen *gen, const char *op)
{
    for (size_t i = 0; i < gen->counter_count; i++)
        if (strcmp(gen->counters[i].name, op) == 0)
            return gen->counters[i].count++;
    op_counter *grown = realloc(gen->counters, (gen->counter_count + 1) * sizeof *grown);
    if (grown == NULL)
        return 0;
    gen->counters = grown;
    gen->counters[gen->counter_count].name = strdup(op);
    gen->counters[gen->counter_count].count = 1;
    gen->counter_count++;
    return 0;
}

static void case_free(gt_gen_case *kase)
{
    free(kase->id);
    free(kase->ops);
    free(kase->path);
    free(kase->description);
    free(kase->raw);
    free(kase->script_json);
    free(kase->case_json);
    gt_observed_clear(&kase->reference);
}

/* Whether the reference confirms what the candidate's operator intends. */
static bool confirms(const gt_gen_case *kase)
{
    const gt_observed *seen = &kase->reference;
    if (seen->verdict != kase->want_verdict)
        return false;
    if (kase->want_verdict == GT_VERDICT_ACCEPT)
        return true;
    if (seen->gate == NULL || strcmp(seen->gate, kase->want_gate) != 0)
        return false;
    if (kase->want_reason != NULL && (seen->reason == NULL || strcmp(seen->reason, kase->want_reason) != 0))
        return false;
    if (strcmp(kase->family, "structure") != 0 || strchr(kase->ops, '+') != NULL)
        return true;
    /* a structure mutation must fail where it was made (or at an enclosing node: anyOf, required) */
    for (size_t i = 0; i < seen->error_count; i++) {
        const char *at = seen->errors[i].path ? seen->errors[i].path : "";
        size_t len = strlen(at);
        if (strncmp(kase->path, at, len) == 0 && (kase->path[len] == '\0' || kase->path[len] == '/'))
            return true;
    }
    return false;
}

static void check_candidate(gt_gen *gen, gt_gen_case *kase)
{
    gt_case_input input;
    gt_gen_input(gen, kase, &input);
    char note[512] = "";
    int status = gt_target_check(gen->reference, &input, &kase->reference, note, sizeof note);
    if (status != GT_CHECK_DONE) {
        gt_observed_clear(&kase->reference);
        kase->reference.message = strdup(note[0] ? note : "the reference gave no verdict");
        kase->confirmed = false;
        return;
    }
    kase->confirmed = confirms(kase);
}

/* Add and check a candidate; takes `raw`, `script` and `what`. NULL for a
 * duplicate of an earlier candidate (or out of memory). */
static gt_gen_case *add_candidate(gt_gen *gen, const char *family, const char *gate, const char *ops,
                                  const char *path, char *raw, size_t raw_len, char *script,
                                  const char *const *rules, gt_verdict verdict, const char *want_gate,
                                  const char *want_reason, char *what, bool dedupe)
{
    uint64_t hash = gt_hash_bytes(GT_HASH_START, gate, strlen(gate) + 1);
    hash = raw ? gt_hash_bytes(hash, raw, raw_len) : gt_hash_bytes(hash, script ? script : "", script ? strlen(script) : 0);
    if ((raw == NULL && script == NULL) || (dedupe && !seen_insert(gen, hash)) || gen->out_of_memory) {
        free(raw);
        free(script);
        free(what);
        return NULL;
    }
    if (gen->count == gen->cap) {
        size_t cap = gen->cap ? gen->cap * 2 : 256;
        gt_gen_case *grown = realloc(gen->cases, cap * sizeof *grown);
        if (grown == NULL) {
            gen->out_of_memory = true;
            free(raw);
            free(script);
            free(what);
            return NULL;
        }
        gen->cases = grown;
        gen->cap = cap;
    }
    gt_gen_case *kase = &gen->cases[gen->count];
    *kase = (gt_gen_case){0};
    gt_accounting_init(&kase->reference.accounting);
    kase->family = family;
    kase->gate = gate;
    kase->ops = strdup(ops);
    kase->path = strdup(path);
    char *id_ops = strdup(ops);
    for (char *p = id_ops; p && *p; p++)
        if (*p == '+')
            *p = '.';
    kase->id = id_ops ? format_text("gen.%s.%s.%u", family, id_ops, next_number(gen, ops)) : NULL;
    free(id_ops);
    kase->description = what;
    kase->raw = (unsigned char *)raw;
    kase->raw_len = raw_len;
    kase->script_json = script;
    for (size_t i = 0; rules != NULL && rules[i] != NULL && i < 4; i++)
        kase->rules[kase->rule_count++] = rules[i];
    kase->want_verdict = verdict;
    kase->want_gate = want_gate;
    kase->want_reason = want_reason;
    if (kase->ops == NULL || kase->path == NULL || kase->id == NULL) {
        gen->out_of_memory = true;
        case_free(kase);
        return NULL;
    }
    gen->count++;
    check_candidate(gen, kase);
    return kase;
}

static void keep_tree(gt_gen *gen, gen_sink *sink, const char *family, const char *op, const char *path, cJSON *root,
                      const char *const *rules, char *what)
{
    size_t len = 0;
    char *raw = root ? gt_json_compact(root, &len) : NULL;
    cJSON_Delete(root);
    bool valid = strcmp(family, "valid") == 0;
    add_candidate(gen, family, "structure", op, path, raw, len, NULL, rules,
                  valid ? GT_VERDICT_ACCEPT : GT_VERDICT_REJECT, valid ? NULL : "structure", NULL, what, true);
}

static void keep_text(gt_gen *gen, gen_sink *sink, const char *op, const char *path, char *raw, size_t len,
                      const char *const *rules, const char *reason, char *what)
{
    add_candidate(gen, "syntax", "syntax", op, path, raw, len, NULL, rules, GT_VERDICT_REJECT, "syntax", reason, what,
                  true);
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
    char *text = from && to   ? format_text("%s at %s: %s -> %s (%s)", op, path[0] ? path : "/", from, to, base->name)
                 : from       ? format_text("%s at %s: %s (%s)", op, path[0] ? path : "/", from, base->name)
                              : format_text("%s at %s (%s)", op, path[0] ? path : "/", base->name);
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

/* ---- sites: every instance location of a base, with the schema there ---- */

typedef struct gen_site {
    char *path;
    const cJSON *schema; /* as written at the location; NULL = none applies */
    cJSON *node;         /* in the base */
} gen_site;

typedef struct site_list {
    gen_site *items;
    size_t count, cap;
} site_list;

static void collect_sites(const cJSON *root_schema, cJSON *value, const cJSON *schema, const char *path,
                          site_list *list, int depth)
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
        const cJSON *child_schema = schema == NULL       ? NULL
                                    : cJSON_IsObject(value) ? gt_gen_property_schema(&view, child->string)
                                                            : gt_gen_item_schema(&view, index);
        collect_sites(root_schema, child, child_schema, child_path, list, depth + 1);
        free(child_path);
    }
}

static void sites_free(site_list *list)
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
    add_candidate(gen, "valid", "structure", op, path, raw, len, NULL, rules, GT_VERDICT_ACCEPT, NULL, NULL,
                  format_text("%s (%s)", what, base->name), true);
}

static void valid_boundaries(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site)
{
    gt_gen_view view;
    gt_gen_view_build(gen->schema, &view, site->schema, site->node, NULL);
    if (site->schema == NULL || view.unresolved)
        return;
    const cJSON *node = site->node;
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

static void gen_valid(gt_gen *gen, gen_sink *sink, const gen_base *base, const site_list *sites)
{
    add_candidate(gen, "valid", "structure", "as-is", "", strndup(base->raw, base->raw_len), base->raw_len, NULL,
                  R_VALID, GT_VERDICT_ACCEPT, NULL, NULL, format_text("%s, as it is", base->name), true);
    gt_json_style pretty = {.indent = "  "};
    emit_styled(gen, sink, "pretty", "", base, &pretty, R_WHITESPACE, "indented with two spaces");
    gt_json_style spaced = {.indent = "\t", .newline = "\r\n", .colon = " : "};
    emit_styled(gen, sink, "whitespace", "", base, &spaced, R_WHITESPACE, "tabs, CRLF and spaces around colons");
    gt_json_style reversed = {.reverse_keys = true};
    emit_styled(gen, sink, "key-order", "", base, &reversed, R_KEY_ORDER, "members in reverse order");
    gt_json_style escaped_keys = {.escape_keys = true};
    emit_styled(gen, sink, "key-escape", "", base, &escaped_keys, R_ESCAPES, "member names as \\u escapes");
    for (size_t i = 0; i < sites->count; i++) {
        const gen_site *site = &sites->items[i];
        if (cJSON_IsString(site->node) && site->node->valuestring[0] != '\0') {
            gt_json_style style = {.escape_string = site->node};
            char *what = format_text("the string at %s as \\u escapes", site->path);
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
            char *what = format_text("the number at %s written %s", site->path, literal);
            emit_styled(gen, sink, "float-form", site->path, base, &style, R_FLOAT, what ? what : "");
            free(what);
        }
        valid_boundaries(gen, sink, base, site);
    }
}

/* ---- syntax mutations ---- */

static const char *const prose_before[] = {"Here is the JSON you asked for:", "Sure! The result is below.",
                                           "Output:"};
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
        sink->text(gen, sink, op, "", raw, out_len, rules, reason, format_text("%s (%s, %s)", op, base->name, form));
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
                   format_text("%s at byte %zu (%s, %s)", op, at, base->name, form));
}

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
        splice_op(gen, sink, "trailing-comma", "trailing_comma", R_GRAMMAR, base, form, text, len,
                  style->closers[i], style->closers[i], ",");
    /* truncation at every structural boundary, and inside every token longer
     * than two bytes (a string, a number, a literal): a cut stream */
    for (size_t i = 0; i < style->mark_count; i++) {
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
                           format_text("cut inside a token after byte %zu of %zu (%s, %s)", middle, len, base->name,
                                       form));
        }
        if (at == 0 || at >= len)
            continue;
        char *raw = strndup(text, at);
        if (raw != NULL)
            sink->text(gen, sink, "truncate", "", raw, at, R_TRUNCATE, "unexpected_end",
                       format_text("cut after byte %zu of %zu (%s, %s)", at, len, base->name, form));
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
                   format_text("%s at %s (%s)", what, site->path[0] ? site->path : "/", base->name));
}

static void gen_syntax(gt_gen *gen, gen_sink *sink, const gen_base *base, const site_list *sites)
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
        }
        if (cJSON_IsString(node) && strchr(node->valuestring, '\'') == NULL && strchr(node->valuestring, '\\') == NULL) {
            char *literal = format_text("'%s'", node->valuestring);
            gt_json_style style = {.literal_node = node, .literal_text = literal};
            if (literal != NULL)
                emit_literal(gen, sink, "single-quotes", "single_quotes", R_GRAMMAR, base, site, &style,
                             "string in single quotes");
            free(literal);
        }
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
                cJSON *other = different_value(gen, site->schema ? gt_gen_property_schema(&view, member->string) : NULL,
                                               member);
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

static const struct {
    char latin;
    const char *lookalike; /* Cyrillic or Greek */
} homoglyphs[] = {{'a', "\xd0\xb0"}, {'e', "\xd0\xb5"}, {'o', "\xd0\xbe"}, {'p', "\xd1\x80"}, {'c', "\xd1\x81"},
                  {'x', "\xd1\x85"}, {'y', "\xd1\x83"}, {'i', "\xd1\x96"}, {'s', "\xd1\x95"}, {'A', "\xd0\x90"},
                  {'B', "\xd0\x92"}, {'E', "\xd0\x95"}, {'O', "\xd0\x9e"}, {'P', "\xd0\xa0"}, {'T', "\xd0\xa2"},
                  {'H', "\xd0\x9d"}, {'K', "\xd0\x9a"}, {'M', "\xd0\x9c"}, {'C', "\xd0\xa1"}, {'X', "\xd0\xa5"}};

static char *homoglyph_of(const char *text)
{
    for (const char *p = text; *p; p++)
        for (size_t h = 0; h < sizeof homoglyphs / sizeof homoglyphs[0]; h++)
            if (*p == homoglyphs[h].latin)
                return format_text("%.*s%s%s", (int)(p - text), text, homoglyphs[h].lookalike, p + 1);
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
    char *spaced = format_text("%s ", text);
    if (spaced != NULL)
        emit_at(gen, sink, "structure", "enum-space", base, site->path, cJSON_CreateString(spaced), R_ENUM_LOOKALIKE);
    free(spaced);
    spaced = format_text(" %s", text);
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

static void string_misses(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site,
                          const gt_gen_view *view)
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
            char *miss = format_text(shapes[i][1], text);
            emit_at(gen, sink, "structure", shapes[i][0], base, site->path, miss ? cJSON_CreateString(miss) : NULL,
                    R_VALID);
            free(miss);
        }
    }
    const cJSON *format = gt_gen_kw(view, "format");
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
            cJSON *item = gt_gen_synthesize(gen->schema, gt_gen_item_schema(view, i), true, &gen->rng,
                                            (unsigned)i + 11, 1, why, sizeof why, "");
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
                   format_text("drop-required %s (%s)", path ? path : "?", base->name));
        free(path);
    }
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
                   format_text("extra-member %s (%s)", path, base->name));
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

/* Every other JSON type in place of the value, the classic coercions first. */
static void type_swaps(gt_gen *gen, gen_sink *sink, const gen_base *base, const gen_site *site)
{
    cJSON *node = site->node;
    const char *path = site->path;
    if (cJSON_IsNumber(node)) {
        char literal[32];
        gt_json_number(literal, node->valuedouble);
        emit_at(gen, sink, "structure", "number-as-string", base, path, cJSON_CreateString(literal), R_NUMBER_AS_STRING);
        emit_at(gen, sink, "structure", "bool-as-int", base, path, cJSON_CreateBool(node->valuedouble != 0),
                R_BOOL_AS_INT);
    } else if (cJSON_IsBool(node)) {
        emit_at(gen, sink, "structure", "int-as-bool", base, path, number_node(cJSON_IsTrue(node) ? 1 : 0),
                R_INT_AS_BOOL);
        emit_at(gen, sink, "structure", "string-as-bool", base, path,
                cJSON_CreateString(cJSON_IsTrue(node) ? "true" : "false"), R_STRING_AS_BOOL);
    } else if (cJSON_IsString(node)) {
        emit_at(gen, sink, "structure", "wrong-type", base, path, number_node(42), R_VALID);
        emit_at(gen, sink, "structure", "wrong-type", base, path, cJSON_CreateTrue(), R_VALID);
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

static void gen_structure(gt_gen *gen, gen_sink *sink, const gen_base *base, const site_list *sites)
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
            string_misses(gen, sink, base, site, &view);
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
    add_candidate(gen, "loop", gate, op, "", NULL, 0, text, rules, verdict, want_gate, reason, what, true);
}

static void gen_loop(gt_gen *gen, const gen_base *base, size_t structure_from)
{
    cJSON *script = script_new(gen);
    add_turn(script, "message", tool_use(base->value, 1));
    add_script(gen, "loop", "valid-call", script, R_LOOP_VALID, GT_VERDICT_ACCEPT, NULL, NULL,
               format_text("one StructuredOutput call with %s", base->name));

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
        for (unsigned turn = 1; turn <= 5; turn++)
            add_turn(script, "message", tool_use(value, turn));
        cJSON *mock = cJSON_CreateObject();
        cJSON_AddStringToObject(mock, "after_script", "repeat_last");
        cJSON_AddItemToObject(script, "mock", mock);
        add_script(gen, "loop", "retry-limit", script, R_LOOP_LIMIT, GT_VERDICT_REJECT, "loop",
                   "error_max_structured_output_retries",
                   format_text("five StructuredOutput calls with the object of %s (%s)", from->id, from->description));
        cJSON_Delete(value);
    }

    /* the model answers in text only: the enforce message, then text again */
    char *compact = gt_json_compact(base->value, NULL);
    const char *shapes[] = {"%s", "```json\n%s\n```", "Here is the result: %s"};
    for (size_t s = 0; compact != NULL && s < 3; s++) {
        script = script_new(gen);
        for (int turn = 0; turn < 2; turn++) {
            cJSON *message = cJSON_CreateObject();
            char *text = format_text(shapes[s], compact);
            cJSON_AddStringToObject(message, "content", text ? text : "");
            free(text);
            add_turn(script, "message", message);
        }
        add_script(gen, "loop", "text-only", script, R_LOOP_TEXT, GT_VERDICT_REJECT, "loop", "error_no_structured_output",
                   format_text("two text-only answers holding %s (%s)", base->name, s == 0 ? "bare" : s == 1 ? "fenced" : "with prose"));
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
                       format_text("%s stream of %s cut after event %zu", providers[p], base->name, cuts[c]));
        }
    }
    free(compact);
}

/* ---- the generator ---- */

static gt_gen_options options_or_default(const gt_gen_options *options)
{
    gt_gen_options copy = options ? *options : (gt_gen_options){0};
    if (copy.gates == 0)
        copy.gates = GT_GEN_ALL;
    if (copy.origin == NULL)
        copy.origin = "the schema";
    return copy;
}

gt_gen *gt_gen_new(const char *schema_json, size_t len, const gt_gen_options *options, char *err, size_t err_len)
{
    gt_gen *gen = calloc(1, sizeof *gen);
    if (gen == NULL) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    gen->options = options_or_default(options);
    gen->rng = gen->options.seed;
    gen->schema_text = strndup(schema_json, len);
    /* strict JSON first: the syntax gate names the line and the problem */
    gt_parse_error parse_error;
    gt_parse_options parse_options;
    gt_parse_options_init(&parse_options);
    parse_options.allow_big_integers = true;
    gt_arena *arena = gt_arena_new();
    gt_value *parsed = arena ? gt_parse(arena, schema_json, len, &parse_options, &parse_error) : NULL;
    bool strict = parsed != NULL;
    /* targets get the schema as compact JSON (one protocol line), numbers exact */
    gen->schema_compact = parsed ? gt_value_to_json(parsed, NULL) : NULL;
    gt_arena_free(arena);
    if (!strict) {
        snprintf(err, err_len, "%s: not strict JSON: line %u, column %u: %s", gen->options.origin, parse_error.line,
                 parse_error.column, parse_error.message);
        gt_gen_free(gen);
        return NULL;
    }
    gen->schema = cJSON_ParseWithLength(schema_json, len);
    if (gen->schema == NULL || gen->schema_text == NULL || gen->schema_compact == NULL) {
        snprintf(err, err_len, "%s: out of memory", gen->options.origin);
        gt_gen_free(gen);
        return NULL;
    }
    if (!cJSON_IsObject(gen->schema) && !cJSON_IsBool(gen->schema)) {
        snprintf(err, err_len, "%s: a JSON Schema is an object or a boolean", gen->options.origin);
        gt_gen_free(gen);
        return NULL;
    }
    gt_schema_options schema_options;
    gt_schema_options_init(&schema_options);
    gt_schema_problem problem;
    gt_schema *compiled = gt_schema_compile(schema_json, len, &schema_options, &problem);
    if (compiled == NULL) {
        snprintf(err, err_len, "%s: at \"%s\": %s (%s)", gen->options.origin, problem.location, problem.message,
                 gt_schema_problem_code_str(problem.code));
        gt_gen_free(gen);
        return NULL;
    }
    gt_schema_free(compiled);
    if (gt_target_open("reference", &gen->reference, err, err_len) != 0) {
        gt_gen_free(gen);
        return NULL;
    }
    return gen;
}

void gt_gen_free(gt_gen *gen)
{
    if (gen == NULL)
        return;
    for (size_t i = 0; i < gen->count; i++)
        case_free(&gen->cases[i]);
    free(gen->cases);
    for (size_t i = 0; i < gen->base_count; i++) {
        cJSON_Delete(gen->bases[i].value);
        free(gen->bases[i].raw);
        free(gen->bases[i].name);
    }
    free(gen->bases);
    for (size_t i = 0; i < gen->counter_count; i++)
        free(gen->counters[i].name);
    free(gen->counters);
    free(gen->seen);
    free(gen->note);
    if (gen->reference)
        gt_target_close(gen->reference);
    cJSON_Delete(gen->schema);
    free(gen->schema_text);
    free(gen->schema_compact);
    free(gen);
}

/* Check a text with the reference as a structure case; fills `seen`. */
static void check_text(gt_gen *gen, const char *text, size_t len, gt_observed *seen)
{
    gt_gen_case probe = {.id = "gen.probe", .gate = "structure", .family = "valid", .ops = "sample",
                         .path = "", .raw = (unsigned char *)text,
                         .raw_len = len};
    gt_case_input input;
    gt_gen_input(gen, &probe, &input);
    char note[256];
    gt_accounting_init(&seen->accounting);
    if (gt_target_check(gen->reference, &input, seen, note, sizeof note) != GT_CHECK_DONE) {
        gt_observed_clear(seen);
        seen->message = strdup(note);
    }
    free(probe.case_json);
}

static int add_base(gt_gen *gen, cJSON *value, char *raw, size_t raw_len, char *name, gt_observed *seen)
{
    gen_base *grown = realloc(gen->bases, (gen->base_count + 1) * sizeof *grown);
    if (grown == NULL || value == NULL || raw == NULL || name == NULL) {
        if (grown)
            gen->bases = grown;
        cJSON_Delete(value);
        free(raw);
        free(name);
        return -1;
    }
    gen->bases = grown;
    for (size_t i = 0; i < gen->base_count; i++) {
        if (gen->bases[i].raw_len == raw_len && memcmp(gen->bases[i].raw, raw, raw_len) == 0) {
            cJSON_Delete(value);
            free(raw);
            free(name);
            return 0; /* the same instance twice */
        }
    }
    gen->bases[gen->base_count++] = (gen_base){value, raw, raw_len, name, seen->verdict == GT_VERDICT_ACCEPT};
    return 0;
}

static void error_text(const gt_observed *seen, char *out, size_t out_len)
{
    if (seen->error_count > 0)
        snprintf(out, out_len, "%s: %s", seen->errors[0].path[0] ? seen->errors[0].path : "/",
                 seen->errors[0].message ? seen->errors[0].message : seen->errors[0].keyword);
    else
        snprintf(out, out_len, "%s", seen->message ? seen->message : seen->reason ? seen->reason : "rejected");
}

int gt_gen_add_sample(gt_gen *gen, const char *text, size_t len, const char *name, char *err, size_t err_len)
{
    gt_observed seen = {0};
    check_text(gen, text, len, &seen);
    if (seen.verdict != GT_VERDICT_ACCEPT) {
        char why[400];
        error_text(&seen, why, sizeof why);
        snprintf(err, err_len, "%s: the reference rejects this sample (%s %s: %s)", name,
                 seen.gate ? seen.gate : "", seen.reason ? seen.reason : "", why);
        gt_observed_clear(&seen);
        return -1;
    }
    cJSON *value = cJSON_ParseWithLength(text, len);
    int status = add_base(gen, value, strndup(text, len), len, format_text("sample %s", name), &seen);
    gt_observed_clear(&seen);
    if (status != 0)
        snprintf(err, err_len, "%s: out of memory", name);
    return status;
}

/* The minimal instance (required members, smallest values) and a full one
 * (every member, values drawn from the seed). */
static void synthesize_bases(gt_gen *gen)
{
    static const char *const names[] = {"the minimal instance", "the full instance"};
    for (int full = 0; full < 2; full++) {
        char why[400] = "";
        cJSON *value = gt_gen_synthesize(gen->schema, gen->schema, full, &gen->rng, 0, 0, why, sizeof why, "");
        if (value == NULL) {
            if (gen->note == NULL)
                gen->note = format_text("cannot synthesise a valid instance of %s: %s (give one with --sample)",
                                        gen->options.origin, why);
            continue;
        }
        size_t len;
        char *raw = gt_json_compact(value, &len);
        gt_observed seen = {0};
        if (raw != NULL)
            check_text(gen, raw, len, &seen);
        if (seen.verdict != GT_VERDICT_ACCEPT && gen->note == NULL && full == 0) {
            char detail[400];
            error_text(&seen, detail, sizeof detail);
            gen->note = format_text("cannot synthesise a valid instance of %s: the reference rejects the attempt %s "
                                    "(%s) (give one with --sample)",
                                    gen->options.origin, raw ? raw : "", detail);
        }
        if (seen.verdict == GT_VERDICT_ACCEPT || full == 0)
            add_base(gen, value, raw, len, strdup(names[full]), &seen);
        else {
            cJSON_Delete(value);
            free(raw);
        }
        gt_observed_clear(&seen);
    }
}

const char *gt_gen_synthesis_note(const gt_gen *gen)
{
    return gen->note;
}

int gt_gen_generate(gt_gen *gen, char *err, size_t err_len)
{
    if (gen->base_count == 0)
        synthesize_bases(gen);
    gen_sink sink = {keep_tree, keep_text, NULL};
    const gen_base *first_valid = NULL;
    size_t structure_from = gen->count;
    for (size_t b = 0; b < gen->base_count; b++) {
        const gen_base *base = &gen->bases[b];
        site_list sites = {0};
        collect_sites(gen->schema, base->value, gen->schema, "", &sites, 0);
        if (base->valid) {
            first_valid = first_valid ? first_valid : base;
            gen_valid(gen, &sink, base, &sites);
        }
        if (gen->options.gates & GT_GEN_SYNTAX)
            gen_syntax(gen, &sink, base, &sites);
        if ((gen->options.gates & GT_GEN_STRUCTURE) && base->valid)
            gen_structure(gen, &sink, base, &sites);
        sites_free(&sites);
    }
    if ((gen->options.gates & GT_GEN_LOOP) && first_valid != NULL)
        gen_loop(gen, first_valid, structure_from);
    if (gen->out_of_memory) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    return 0;
}

size_t gt_gen_count(const gt_gen *gen)
{
    return gen->count;
}

gt_gen_case *gt_gen_case_at(gt_gen *gen, size_t index)
{
    return index < gen->count ? &gen->cases[index] : NULL;
}

/* ---- caps and order ---- */

/* Group the confirmed, kept cases by operator in order of first appearance:
 * group_of[i] for case i (-1 when not in a group); returns the group count. */
static size_t group_cases(const gt_gen *gen, long *group_of, const char **names, size_t *sizes)
{
    size_t groups = 0;
    for (size_t i = 0; i < gen->count; i++) {
        group_of[i] = -1;
        if (!gen->cases[i].confirmed || gen->cases[i].dropped)
            continue;
        size_t g = 0;
        while (g < groups && strcmp(names[g], gen->cases[i].ops) != 0)
            g++;
        if (g == groups) {
            names[groups] = gen->cases[i].ops;
            sizes[groups++] = 0;
        }
        group_of[i] = (long)g;
        sizes[g]++;
    }
    return groups;
}

size_t gt_gen_cap(gt_gen *gen, size_t max)
{
    size_t n = gen->count;
    long *group_of = calloc(n + 1, sizeof *group_of);
    const char **names = calloc(n + 1, sizeof *names);
    size_t *sizes = calloc(n + 1, sizeof *sizes), *quota = calloc(n + 1, sizeof *quota),
           *rank = calloc(n + 1, sizeof *rank);
    size_t kept = 0;
    if (group_of && names && sizes && quota && rank) {
        size_t groups = group_cases(gen, group_of, names, sizes);
        size_t total = 0;
        for (size_t g = 0; g < groups; g++)
            total += sizes[g];
        if (max == 0 || max >= total) {
            kept = total;
        } else {
            /* round-robin quotas: every operator gets its turn */
            size_t given = 0;
            while (given < max)
                for (size_t g = 0; g < groups && given < max; g++)
                    if (quota[g] < sizes[g])
                        quota[g]++, given++;
            /* inside an operator, evenly spaced picks over its paths */
            for (size_t i = 0; i < n; i++) {
                if (group_of[i] < 0)
                    continue;
                size_t g = (size_t)group_of[i], r = rank[g]++;
                bool keep = quota[g] > 0 && (r * quota[g]) / sizes[g] != ((r + 1) * quota[g]) / sizes[g];
                gen->cases[i].dropped = !keep;
                kept += keep;
            }
        }
    }
    free(group_of);
    free(names);
    free(sizes);
    free(quota);
    free(rank);
    return kept;
}

size_t gt_gen_spread_order(const gt_gen *gen, size_t *order)
{
    size_t n = gen->count, placed = 0;
    long *group_of = calloc(n + 1, sizeof *group_of);
    const char **names = calloc(n + 1, sizeof *names);
    size_t *sizes = calloc(n + 1, sizeof *sizes), *next = calloc(n + 1, sizeof *next);
    if (group_of && names && sizes && next) {
        size_t groups = group_cases(gen, group_of, names, sizes);
        bool more = true;
        while (more) {
            more = false;
            for (size_t g = 0; g < groups; g++) {
                while (next[g] < n && group_of[next[g]] != (long)g)
                    next[g]++;
                if (next[g] < n) {
                    order[placed++] = next[g]++;
                    more = true;
                }
            }
        }
    }
    free(group_of);
    free(names);
    free(sizes);
    free(next);
    return placed;
}

/* ---- explore: combinations and variants ---- */

typedef struct pick_sink {
    gen_sink sink;
    cJSON *tree;     /* the chosen tree (reservoir sampling) */
    char *text;
    size_t text_len;
    char op[64], path[512], reason[64];
    const char *const *rules;
    size_t seen;
} pick_sink;

static void pick_tree(gt_gen *gen, gen_sink *sink, const char *family, const char *op, const char *path, cJSON *root,
                      const char *const *rules, char *what)
{
    pick_sink *pick = (pick_sink *)sink;
    free(what);
    if (strcmp(family, "structure") != 0 || gt_rng_below(&gen->rng, ++pick->seen) != 0) {
        cJSON_Delete(root);
        return;
    }
    cJSON_Delete(pick->tree);
    pick->tree = root;
    snprintf(pick->op, sizeof pick->op, "%s", op);
    snprintf(pick->path, sizeof pick->path, "%s", path);
    pick->rules = rules;
}

static void pick_text(gt_gen *gen, gen_sink *sink, const char *op, const char *path, char *raw, size_t len,
                      const char *const *rules, const char *reason, char *what)
{
    pick_sink *pick = (pick_sink *)sink;
    free(what);
    if (gt_rng_below(&gen->rng, ++pick->seen) != 0) {
        free(raw);
        return;
    }
    free(pick->text);
    pick->text = raw;
    pick->text_len = len;
    snprintf(pick->op, sizeof pick->op, "%s", op);
    snprintf(pick->reason, sizeof pick->reason, "%s", reason);
    pick->rules = rules;
}

long gt_gen_combination(gt_gen *gen)
{
    size_t valid = 0;
    for (size_t b = 0; b < gen->base_count; b++)
        valid += gen->bases[b].valid;
    if (valid == 0)
        return -1;
    size_t choice = (size_t)gt_rng_below(&gen->rng, valid);
    const gen_base *start = NULL;
    for (size_t b = 0; b < gen->base_count && start == NULL; b++)
        if (gen->bases[b].valid && choice-- == 0)
            start = &gen->bases[b];
    gen_base current = {cJSON_Duplicate(start->value, true), NULL, 0, start->name, true};
    gt_buf chain = {0};
    const char *const *rules = R_VALID;
    char first_path[512] = "";
    unsigned steps = 2 + (unsigned)gt_rng_below(&gen->rng, 2);
    for (unsigned step = 0; step < steps && current.value != NULL; step++) {
        pick_sink pick = {.sink = {pick_tree, pick_text, NULL}};
        site_list sites = {0};
        collect_sites(gen->schema, current.value, gen->schema, "", &sites, 0);
        gen_structure(gen, &pick.sink, &current, &sites);
        sites_free(&sites);
        if (pick.tree == NULL)
            break;
        cJSON_Delete(current.value);
        current.value = pick.tree;
        gt_buf_printf(&chain, "%s%s", chain.len ? "+" : "", pick.op);
        if (step == 0) {
            snprintf(first_path, sizeof first_path, "%s", pick.path);
            rules = pick.rules;
        }
    }
    size_t len = 0;
    char *raw = current.value ? gt_json_compact(current.value, &len) : NULL;
    const char *family = "structure", *gate = "structure", *reason = NULL;
    if (raw != NULL && gt_rng_below(&gen->rng, 3) == 0 && (gen->options.gates & GT_GEN_SYNTAX)) {
        pick_sink pick = {.sink = {pick_tree, pick_text, NULL}};
        site_list sites = {0};
        collect_sites(gen->schema, current.value, gen->schema, "", &sites, 0);
        gen_syntax(gen, &pick.sink, &current, &sites);
        sites_free(&sites);
        if (pick.text != NULL) {
            free(raw);
            raw = pick.text;
            len = pick.text_len;
            gt_buf_printf(&chain, "%s%s", chain.len ? "+" : "", pick.op);
            family = gate = "syntax";
            reason = NULL; /* any syntax reason: the structure operators may add their own */
            rules = pick.rules;
            first_path[0] = '\0';
        }
    }
    cJSON_Delete(current.value);
    char *ops = gt_buf_take(&chain, NULL);
    if (raw == NULL || ops == NULL || ops[0] == '\0') {
        free(raw);
        free(ops);
        return -1;
    }
    gt_gen_case *kase = add_candidate(gen, family, gate, ops, strcmp(family, "structure") == 0 ? "" : first_path, raw,
                                      len, NULL, rules, GT_VERDICT_REJECT, gate, reason,
                                      format_text("random combination %s on %s", ops, start->name), false);
    free(ops);
    return kase ? (long)(kase - gen->cases) : -1;
}

long gt_gen_variant(gt_gen *gen, size_t from, const unsigned char *raw, size_t raw_len)
{
    if (from >= gen->count)
        return -1;
    char *copy = malloc(raw_len + 1);
    if (copy == NULL)
        return -1;
    memcpy(copy, raw, raw_len);
    copy[raw_len] = '\0';
    gt_gen_case base = gen->cases[from]; /* copied: adding may move the array */
    char *ops = strdup(base.ops), *path = strdup(base.path);
    gt_gen_case *kase = ops && path ? add_candidate(gen, base.family, base.gate, ops, path, copy, raw_len, NULL,
                                                    base.rules, base.want_verdict, base.want_gate, base.want_reason,
                                                    strdup("shrunk"), false)
                                    : (free(copy), NULL);
    free(ops);
    free(path);
    if (kase == NULL)
        return -1;
    for (size_t i = 0; i < base.rule_count; i++)
        kase->rules[i] = base.rules[i];
    kase->rule_count = base.rule_count;
    return (long)(kase - gen->cases);
}

void gt_gen_input(gt_gen *gen, const gt_gen_case *kase, gt_case_input *input)
{
    gt_gen_case *mutable = (gt_gen_case *)kase;
    if (mutable->case_json == NULL) {
        gt_buf buf = {0};
        gt_buf_str(&buf, "{\"id\":");
        gt_json_write_text(&buf, kase->id, false);
        gt_buf_printf(&buf, ",\"gate\":\"%s\",\"category\":", kase->gate);
        char category[64];
        snprintf(category, sizeof category, "%.*s", (int)strcspn(kase->ops, "+"), kase->ops);
        gt_json_write_text(&buf, category, false);
        gt_buf_str(&buf, ",\"tags\":[\"gen\"");
        for (const char *op = kase->ops; *op;) {
            size_t len = strcspn(op, "+");
            gt_buf_printf(&buf, ",\"%.*s\"", (int)len, op);
            op += len + (op[len] == '+');
        }
        gt_buf_str(&buf, "]");
        if (gen->options.formats)
            gt_buf_str(&buf, ",\"formats\":true");
        if (kase->script_json != NULL) {
            gt_buf_str(&buf, ",\"script\":");
            gt_buf_str(&buf, kase->script_json);
        }
        gt_buf_str(&buf, "}");
        mutable->case_json = gt_buf_take(&buf, NULL);
    }
    bool layered = kase->script_json != NULL;
    *input = (gt_case_input){
        .id = kase->id,
        .gate = kase->gate,
        .raw = kase->raw,
        .raw_len = kase->raw_len,
        .schema_json = layered ? NULL : gen->schema_compact,
        .schema_origin = gen->options.origin,
        .case_json = kase->case_json ? kase->case_json : "{}",
        .assert_formats = gen->options.formats,
    };
}

/* ---- output ---- */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **gt_gen_rules_used(const gt_gen *gen, size_t *count)
{
    size_t total = 0;
    for (size_t i = 0; i < gen->count; i++)
        total += gen->cases[i].rule_count;
    const char **ids = calloc(total + 1, sizeof *ids);
    if (ids == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < gen->count; i++)
        for (size_t r = 0; gen->cases[i].confirmed && r < gen->cases[i].rule_count; r++)
            ids[n++] = gen->cases[i].rules[r];
    qsort(ids, n, sizeof *ids, compare_strings);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++)
        if (unique == 0 || strcmp(ids[unique - 1], ids[i]) != 0)
            ids[unique++] = ids[i];
    ids[unique] = NULL;
    *count = unique;
    return ids;
}

static cJSON *expectation(const gt_gen_case *kase)
{
    const gt_observed *seen = &kase->reference;
    cJSON *expect = cJSON_CreateObject();
    cJSON_AddStringToObject(expect, "verdict", seen->verdict == GT_VERDICT_ACCEPT ? "accept" : "reject");
    if (seen->verdict == GT_VERDICT_REJECT) {
        cJSON_AddStringToObject(expect, "gate", seen->gate);
        cJSON_AddStringToObject(expect, "reason", seen->reason);
    }
    if (seen->verdict == GT_VERDICT_REJECT && strcmp(seen->gate, "structure") == 0 && kase->script_json == NULL) {
        cJSON *errors = cJSON_AddArrayToObject(expect, "errors");
        for (size_t i = 0; i < seen->error_count; i++) {
            cJSON *error = cJSON_CreateObject();
            cJSON_AddStringToObject(error, "path", seen->errors[i].path ? seen->errors[i].path : "");
            cJSON_AddStringToObject(error, "keyword", seen->errors[i].keyword ? seen->errors[i].keyword : "");
            cJSON_AddItemToArray(errors, error);
        }
    }
    if (seen->subtype != NULL)
        cJSON_AddStringToObject(expect, "subtype", seen->subtype);
    if (seen->has_accounting && kase->script_json != NULL) {
        const gt_accounting *a = &seen->accounting;
        cJSON *accounting = cJSON_AddObjectToObject(expect, "accounting");
        const struct {
            const char *name;
            int value;
        } figures[] = {{"attempts_used", a->attempts_used},       {"attempts_limit", a->attempts_limit},
                       {"retracted", a->retracted},               {"enforce_messages", a->enforce_messages},
                       {"api_attempts", a->api_attempts},         {"model_calls", a->model_calls}};
        for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
            if (figures[i].value >= 0)
                cJSON_AddNumberToObject(accounting, figures[i].name, figures[i].value);
    }
    return expect;
}

static void add_input(cJSON *object, const gt_gen_case *kase)
{
    if (kase->raw == NULL)
        return;
    bool text = gt_utf8_valid((const char *)kase->raw, kase->raw_len) && memchr(kase->raw, 0, kase->raw_len) == NULL;
    if (text) {
        cJSON_AddStringToObject(object, "input", (const char *)kase->raw);
    } else {
        char *encoded = gt_base64_encode(kase->raw, kase->raw_len);
        cJSON_AddStringToObject(object, "input_base64", encoded ? encoded : "");
        free(encoded);
    }
}

static cJSON *case_object(const gt_gen_case *kase)
{
    cJSON *object = cJSON_CreateObject();
    cJSON_AddStringToObject(object, "id", kase->id);
    cJSON_AddStringToObject(object, "gate", kase->gate);
    char category[64];
    snprintf(category, sizeof category, "%.*s", (int)strcspn(kase->ops, "+"), kase->ops);
    cJSON_AddStringToObject(object, "category", category);
    cJSON *tags = cJSON_AddArrayToObject(object, "tags");
    cJSON_AddItemToArray(tags, cJSON_CreateString("gen"));
    for (const char *op = kase->ops; *op;) {
        size_t len = strcspn(op, "+");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, op);
        cJSON_AddItemToArray(tags, cJSON_CreateString(name));
        op += len + (op[len] == '+');
    }
    if (kase->description != NULL)
        cJSON_AddStringToObject(object, "description", kase->description);
    cJSON *rules = cJSON_AddArrayToObject(object, "rules");
    for (size_t r = 0; r < kase->rule_count; r++)
        cJSON_AddItemToArray(rules, cJSON_CreateString(kase->rules[r]));
    add_input(object, kase);
    if (kase->script_json != NULL)
        cJSON_AddItemToObject(object, "script", cJSON_Parse(kase->script_json));
    cJSON_AddItemToObject(object, "expect", expectation(kase));
    return object;
}

static int write_json_file(const char *path, const cJSON *value, char *err, size_t err_len)
{
    char *text = cJSON_Print(value);
    FILE *out = text ? fopen(path, "w") : NULL;
    bool ok = out != NULL && fputs(text, out) >= 0 && fputc('\n', out) != EOF;
    if (out != NULL && fclose(out) != 0)
        ok = false;
    free(text);
    if (!ok)
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno ? errno : ENOMEM));
    return ok ? 0 : -1;
}

int gt_gen_write_corpus(const gt_gen *gen, const char *dir, const bool *keep, const struct gt_rule *rules,
                        size_t rule_count, char *err, size_t err_len)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "%s: cannot create the directory: %s", dir, strerror(errno));
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/schema.json", dir);
    FILE *out = fopen(path, "w");
    if (out == NULL || fputs(gen->schema_text, out) < 0 || fclose(out) != 0) {
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    /* the rules the written cases name, with their statements */
    cJSON *list = cJSON_CreateObject();
    cJSON_AddStringToObject(list, "format", GT_CORPUS_RULES_FORMAT);
    cJSON_AddStringToObject(list, "description", "the rules the generated cases probe (from gauntlet's rules.json)");
    cJSON *items = cJSON_AddArrayToObject(list, "rules");
    size_t used_count = 0;
    const char **used = gt_gen_rules_used(gen, &used_count);
    for (size_t u = 0; used != NULL && u < used_count; u++) {
        const struct gt_rule *rule = NULL;
        for (size_t r = 0; r < rule_count && rule == NULL; r++)
            if (strcmp(rules[r].id, used[u]) == 0)
                rule = &rules[r];
        if (rule == NULL) {
            snprintf(err, err_len, "rule id '%s' is not in gauntlet's rules.json", used[u]);
            free(used);
            cJSON_Delete(list);
            return -1;
        }
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "id", rule->id);
        if (rule->source != NULL)
            cJSON_AddStringToObject(item, "source", rule->source);
        cJSON_AddStringToObject(item, "statement", rule->statement);
        cJSON_AddItemToArray(items, item);
    }
    free(used);
    snprintf(path, sizeof path, "%s/rules.json", dir);
    int status = write_json_file(path, list, err, err_len);
    cJSON_Delete(list);
    static const char *const families[] = {"valid", "syntax", "structure", "loop"};
    for (size_t f = 0; status == 0 && f < 4; f++) {
        cJSON *file = cJSON_CreateObject();
        cJSON_AddStringToObject(file, "format", GT_CORPUS_FORMAT);
        char *description = format_text("gauntlet gen: %s cases for %s (seed %llu)", families[f], gen->options.origin,
                                         (unsigned long long)gen->options.seed);
        cJSON_AddStringToObject(file, "description", description ? description : "gauntlet gen");
        free(description);
        if (f < 3) {
            cJSON *defaults = cJSON_AddObjectToObject(file, "defaults");
            cJSON_AddStringToObject(defaults, "schema_file", "schema.json");
            if (gen->options.formats)
                cJSON_AddBoolToObject(defaults, "formats", true);
        }
        cJSON *cases = cJSON_AddArrayToObject(file, "cases");
        size_t written = 0;
        for (size_t i = 0; i < gen->count; i++) {
            const gt_gen_case *kase = &gen->cases[i];
            bool wanted = keep ? keep[i] : kase->confirmed && !kase->dropped;
            if (!wanted || strcmp(kase->family, families[f]) != 0)
                continue;
            cJSON_AddItemToArray(cases, case_object(kase));
            written++;
        }
        snprintf(path, sizeof path, "%s/%s.cases.json", dir, families[f]);
        if (written > 0)
            status = write_json_file(path, file, err, err_len);
        else
            remove(path); /* a file left by an earlier run with other options */
        cJSON_Delete(file);
    }
    return status;
}

int gt_gen_write_report(const gt_gen *gen, const char *path, char *err, size_t err_len)
{
    cJSON *report = cJSON_CreateObject();
    cJSON_AddStringToObject(report, "format", "gauntlet-gen-report/1");
    cJSON_AddStringToObject(report, "schema", gen->options.origin);
    cJSON_AddNumberToObject(report, "seed", (double)gen->options.seed);
    size_t confirmed = 0, kept = 0;
    for (size_t i = 0; i < gen->count; i++) {
        confirmed += gen->cases[i].confirmed;
        kept += gen->cases[i].confirmed && !gen->cases[i].dropped;
    }
    cJSON_AddNumberToObject(report, "candidates", (double)gen->count);
    cJSON_AddNumberToObject(report, "cases", (double)kept);
    cJSON_AddNumberToObject(report, "capped", (double)(confirmed - kept));
    cJSON_AddNumberToObject(report, "ambiguous", (double)(gen->count - confirmed));
    if (gen->note != NULL)
        cJSON_AddStringToObject(report, "synthesis", gen->note);
    cJSON *operators = cJSON_AddArrayToObject(report, "operators");
    for (size_t i = 0; i < gen->count; i++) {
        const gt_gen_case *kase = &gen->cases[i];
        cJSON *row = NULL, *item;
        cJSON_ArrayForEach(item, operators) if (strcmp(cJSON_GetObjectItem(item, "operator")->valuestring, kase->ops) == 0)
            row = item;
        if (row == NULL) {
            row = cJSON_CreateObject();
            cJSON_AddStringToObject(row, "operator", kase->ops);
            cJSON_AddStringToObject(row, "family", kase->family);
            cJSON *ids = cJSON_AddArrayToObject(row, "rules");
            for (size_t r = 0; r < kase->rule_count; r++)
                cJSON_AddItemToArray(ids, cJSON_CreateString(kase->rules[r]));
            cJSON_AddNumberToObject(row, "cases", 0);
            cJSON_AddNumberToObject(row, "ambiguous", 0);
            cJSON_AddItemToArray(operators, row);
        }
        cJSON *counter = cJSON_GetObjectItem(row, kase->confirmed ? "cases" : "ambiguous");
        if (!kase->confirmed || !kase->dropped)
            cJSON_SetNumberValue(counter, counter->valuedouble + 1);
    }
    cJSON *ambiguous = cJSON_AddArrayToObject(report, "ambiguous_candidates");
    for (size_t i = 0; i < gen->count; i++) {
        const gt_gen_case *kase = &gen->cases[i];
        if (kase->confirmed)
            continue;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "id", kase->id);
        cJSON_AddStringToObject(row, "operator", kase->ops);
        cJSON_AddStringToObject(row, "path", kase->path);
        if (kase->description)
            cJSON_AddStringToObject(row, "description", kase->description);
        char text[200];
        gt_gen_outcome_text(kase->want_verdict, kase->want_gate, kase->want_reason ? kase->want_reason : "*", text,
                            sizeof text);
        cJSON_AddStringToObject(row, "intended", text);
        const gt_observed *seen = &kase->reference;
        gt_gen_outcome_text(seen->verdict, seen->gate, seen->reason, text, sizeof text);
        cJSON_AddStringToObject(row, "reference", text);
        if (seen->error_count > 0)
            cJSON_AddStringToObject(row, "reference_error_path", seen->errors[0].path ? seen->errors[0].path : "");
        if (seen->message != NULL)
            cJSON_AddStringToObject(row, "reference_message", seen->message);
        add_input(row, kase);
        if (kase->script_json != NULL)
            cJSON_AddItemToObject(row, "script", cJSON_Parse(kase->script_json));
        cJSON_AddItemToArray(ambiguous, row);
    }
    int status = write_json_file(path, report, err, err_len);
    cJSON_Delete(report);
    return status;
}
