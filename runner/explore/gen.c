/* gen.c — the adversarial case generator for one contract (gen.h,
 * docs/explore.md): bases, caps and orders, explore's combinations and
 * variants. A candidate (added, checked by the reference) is gen_candidate.c,
 * the operators are in gen_ops.c, the output in gen_write.c. */
#include "gen.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
#include "gauntlet/value.h"
#include "gen_impl.h"
#include "gen_schema.h"

static void keep_tree(gt_gen *gen, gen_sink *sink, const char *family, const char *op, const char *path, cJSON *root,
                      const char *const *rules, char *what)
{
    size_t len = 0;
    char *raw = root ? gt_json_compact(root, &len) : NULL;
    cJSON_Delete(root);
    bool valid = strcmp(family, "valid") == 0;
    gen_add_candidate(gen, family, "structure", op, path, raw, len, NULL, rules,
                      valid ? GT_VERDICT_ACCEPT : GT_VERDICT_REJECT, valid ? NULL : "structure", NULL, what, true);
}

static void keep_text(gt_gen *gen, gen_sink *sink, const char *op, const char *path, char *raw, size_t len,
                      const char *const *rules, const char *reason, char *what)
{
    gen_add_candidate(gen, "syntax", "syntax", op, path, raw, len, NULL, rules, GT_VERDICT_REJECT, "syntax", reason,
                      what, true);
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
    schema_options.registry = gen->options.registry;
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
        gen_case_free(&gen->cases[i]);
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
    gt_gen_case probe = {.id = "gen.probe",
                         .gate = "structure",
                         .family = "valid",
                         .ops = "sample",
                         .path = "",
                         .raw = (unsigned char *)text,
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
        snprintf(err, err_len, "%s: the reference rejects this sample (%s %s: %s)", name, seen.gate ? seen.gate : "",
                 seen.reason ? seen.reason : "", why);
        gt_observed_clear(&seen);
        return -1;
    }
    cJSON *value = cJSON_ParseWithLength(text, len);
    int status = add_base(gen, value, strndup(text, len), len, gen_format_text("sample %s", name), &seen);
    gt_observed_clear(&seen);
    if (status != 0)
        snprintf(err, err_len, "%s: out of memory", name);
    return status;
}

/* The schema written at `path` of `value` (NULL when none applies). */
static const cJSON *schema_at(const gt_gen *gen, cJSON *value, const char *path)
{
    site_list sites = {0};
    gen_collect_sites(gen->schema, value, gen->schema, "", &sites, 0);
    const cJSON *schema = NULL;
    for (size_t i = 0; i < sites.count; i++)
        if (strcmp(sites.items[i].path, path) == 0)
            schema = sites.items[i].schema;
    gen_sites_free(&sites);
    return schema;
}

/* The member a `required` error misses (`missing required property "x"`),
 * or a dependentRequired one (`property "a" requires property "x"`): the
 * last quoted name of the message. */
static char *missing_name(const char *message)
{
    const char *close = message ? strrchr(message, '"') : NULL;
    const char *open = close ? close - 1 : NULL;
    while (open != NULL && open >= message && *open != '"')
        open--;
    return open != NULL && open >= message && open < close ? strndup(open + 1, (size_t)(close - open - 1)) : NULL;
}

/* One fix for one error of the reference on a synthesised value: a missing
 * required member is added, a failing array element or optional member is
 * dropped, any other failing value is drawn again. True when it changed. */
static bool mend_error(gt_gen *gen, cJSON *value, const gt_observed_error *error, unsigned round)
{
    const char *path = error->path ? error->path : "";
    cJSON *parent = NULL;
    cJSON *node = gt_pointer_find(value, path, &parent);
    char why[256];
    if (node == NULL)
        return false;
    bool missing = error->keyword &&
                   (strcmp(error->keyword, "required") == 0 || strcmp(error->keyword, "dependentRequired") == 0 ||
                    strcmp(error->keyword, "dependencies") == 0);
    if (missing && cJSON_IsObject(node)) {
        char *name = missing_name(error->message);
        bool added = false;
        if (name != NULL && cJSON_GetObjectItemCaseSensitive(node, name) == NULL) {
            gt_gen_view view;
            gt_gen_view_build(gen->schema, &view, schema_at(gen, value, path), node, NULL);
            cJSON *member = gt_gen_synthesize(gen->schema, gt_gen_property_schema(&view, name), false, &gen->rng, round,
                                              1, why, sizeof why, path);
            added = member != NULL && cJSON_AddItemToObject(node, name, member);
        }
        free(name);
        return added;
    }
    if (parent == NULL)
        return false;
    bool optional = cJSON_IsArray(parent);
    if (cJSON_IsObject(parent)) {
        char *parent_path = strndup(path, (size_t)(strrchr(path, '/') - path));
        gt_gen_view view;
        gt_gen_view_build(gen->schema, &view, parent_path ? schema_at(gen, value, parent_path) : NULL, parent, NULL);
        optional = !gt_gen_required(&view, node->string);
        free(parent_path);
    }
    if (optional) {
        cJSON_Delete(cJSON_DetachItemViaPointer(parent, node));
        return true;
    }
    cJSON *redrawn =
        gt_gen_synthesize(gen->schema, schema_at(gen, value, path), true, &gen->rng, round, 1, why, sizeof why, path);
    if (redrawn == NULL)
        return false;
    if (node->string != NULL)
        redrawn->string = strdup(node->string);
    return cJSON_ReplaceItemViaPointer(parent, node, redrawn);
}

/* Mend `value` while the reference rejects it at the structure gate, one
 * fix per round (if/then and dependentRequired show their next error only
 * once the earlier one is fixed). `*raw` and `seen` follow the value. */
static void mend(gt_gen *gen, cJSON *value, char **raw, size_t *len, gt_observed *seen)
{
    for (unsigned round = 1; round <= GT_GEN_MEND_ROUNDS && *raw != NULL && seen->verdict == GT_VERDICT_REJECT &&
                             seen->gate != NULL && strcmp(seen->gate, "structure") == 0;
         round++) {
        bool changed = false;
        for (size_t e = 0; e < seen->error_count && !changed; e++)
            changed = mend_error(gen, value, &seen->errors[e], round);
        if (!changed)
            return;
        free(*raw);
        *raw = gt_json_compact(value, len);
        gt_observed_clear(seen);
        if (*raw != NULL)
            check_text(gen, *raw, *len, seen);
    }
}

/* A root whose type is a union: a full instance of each listed type too
 * (when valid and not a base already), so every branch gets its mutations. */
static void union_bases(gt_gen *gen)
{
    gt_gen_view view;
    gt_gen_view_build(gen->schema, &view, gen->schema, NULL, NULL);
    const cJSON *type = gt_gen_kw(&view, "type"), *kind;
    if (!cJSON_IsArray(type) || cJSON_GetArraySize(type) < 2)
        return;
    cJSON_ArrayForEach(kind, type)
    {
        char why[400];
        cJSON *value = cJSON_IsString(kind) ? gt_gen_synthesize_kind(gen->schema, gen->schema, kind->valuestring, true,
                                                                      &gen->rng, why, sizeof why)
                                            : NULL;
        size_t len = 0;
        char *raw = value ? gt_json_compact(value, &len) : NULL;
        gt_observed seen = {0};
        if (raw != NULL)
            check_text(gen, raw, len, &seen);
        if (raw != NULL && seen.verdict == GT_VERDICT_ACCEPT)
            add_base(gen, value, raw, len, gen_format_text("the full instance (%s)", kind->valuestring), &seen);
        else {
            cJSON_Delete(value);
            free(raw);
        }
        gt_observed_clear(&seen);
    }
}

/* The minimal instance (required members, smallest values) and a full one
 * (every member, values drawn from the seed), each mended by the
 * reference's errors where the generator's reading of the schema fell short. */
static void synthesize_bases(gt_gen *gen)
{
    static const char *const names[] = {"the minimal instance", "the full instance"};
    char *note = NULL;
    bool any_valid = false, schema_refused = false;
    for (int full = 0; full < 2; full++) {
        char why[400] = "";
        cJSON *value = gt_gen_synthesize(gen->schema, gen->schema, full, &gen->rng, 0, 0, why, sizeof why, "");
        if (value == NULL) {
            if (note == NULL)
                note = gen_format_text("cannot synthesise a valid instance of %s: %s (give one with --sample)",
                                       gen->options.origin, why);
            continue;
        }
        size_t len = 0;
        char *raw = gt_json_compact(value, &len);
        gt_observed seen = {0};
        if (raw != NULL)
            check_text(gen, raw, len, &seen);
        mend(gen, value, &raw, &len, &seen);
        if (seen.verdict != GT_VERDICT_ACCEPT && note == NULL) {
            char detail[400];
            error_text(&seen, detail, sizeof detail);
            note = gen_format_text("cannot synthesise a valid instance of %s: the reference rejects the attempt %s "
                                   "(%s) (give one with --sample)",
                                   gen->options.origin, raw ? raw : "", detail);
        }
        any_valid = any_valid || seen.verdict == GT_VERDICT_ACCEPT;
        /* not the instance but the schema: no instance can ever pass it */
        if (seen.verdict != GT_VERDICT_ACCEPT && seen.reason != NULL && strcmp(seen.reason, "schema_ref_cycle") == 0)
            schema_refused = true;
        if (raw != NULL && (seen.verdict == GT_VERDICT_ACCEPT || full == 0))
            add_base(gen, value, raw, len, strdup(names[full]), &seen);
        else {
            cJSON_Delete(value);
            free(raw);
        }
        gt_observed_clear(&seen);
    }
    if (any_valid)
        free(note); /* one of the two is valid: enough to go on */
    else {
        gen->note = note;
        gen->unsatisfiable = schema_refused;
    }
    union_bases(gen);
}

const char *gt_gen_synthesis_note(const gt_gen *gen)
{
    return gen->note;
}

bool gt_gen_unsatisfiable(const gt_gen *gen)
{
    return gen->unsatisfiable; /* set only when synthesis ran: without samples */
}

/* Keep at most GT_GEN_MAX_SITES locations, evenly spaced in document order
 * (the root first): each mutation copies the whole instance, so a large
 * sample must not make the work quadratic. */
static void thin_sites(site_list *sites)
{
    if (sites->count <= GT_GEN_MAX_SITES)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < sites->count; i++) {
        bool keep = i * GT_GEN_MAX_SITES / sites->count != (i + 1) * GT_GEN_MAX_SITES / sites->count || i == 0;
        if (keep && kept < GT_GEN_MAX_SITES)
            sites->items[kept++] = sites->items[i];
        else
            free(sites->items[i].path);
    }
    sites->count = kept;
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
        gen_collect_sites(gen->schema, base->value, gen->schema, "", &sites, 0);
        thin_sites(&sites);
        if (base->valid) {
            first_valid = first_valid ? first_valid : base;
            gen_valid(gen, &sink, base, &sites);
        }
        if (gen->options.gates & GT_GEN_SYNTAX)
            gen_syntax(gen, &sink, base, &sites);
        if ((gen->options.gates & GT_GEN_STRUCTURE) && base->valid)
            gen_structure(gen, &sink, base, &sites);
        gen_sites_free(&sites);
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

/* The order the cap's round-robin visits the `groups` operators: the first
 * of each family, then the second of each, ..., so that a cap below the
 * number of operators still keeps cases of every family (it kept valid and
 * syntax operators only: the structure and loop ones come last). */
static void interleave_families(const gt_gen *gen, const long *group_of, size_t groups, size_t *family,
                                size_t *position, size_t *visit)
{
    static const char *const families[] = {"valid", "syntax", "structure", "loop"};
    size_t in_family[5] = {0};
    for (size_t g = 0; g < groups; g++)
        family[g] = SIZE_MAX;
    for (size_t i = 0; i < gen->count; i++) {
        if (group_of[i] < 0 || family[group_of[i]] != SIZE_MAX)
            continue;
        size_t f = 0;
        while (f < 4 && strcmp(families[f], gen->cases[i].family) != 0)
            f++;
        family[group_of[i]] = f;
    }
    for (size_t g = 0; g < groups; g++) /* groups are numbered in order of first appearance */
        position[g] = in_family[family[g]]++;
    size_t placed = 0;
    for (size_t round = 0; placed < groups; round++)
        for (size_t f = 0; f < 5; f++)
            for (size_t g = 0; g < groups; g++)
                if (family[g] == f && position[g] == round)
                    visit[placed++] = g;
}

size_t gt_gen_cap(gt_gen *gen, size_t max)
{
    size_t n = gen->count;
    long *group_of = calloc(n + 1, sizeof *group_of);
    const char **names = calloc(n + 1, sizeof *names);
    size_t *sizes = calloc(n + 1, sizeof *sizes), *quota = calloc(n + 1, sizeof *quota),
           *rank = calloc(n + 1, sizeof *rank), *visit = calloc(3 * (n + 1), sizeof *visit);
    size_t kept = 0;
    if (group_of && names && sizes && quota && rank && visit) {
        size_t groups = group_cases(gen, group_of, names, sizes);
        size_t total = 0;
        for (size_t g = 0; g < groups; g++)
            total += sizes[g];
        if (max == 0 || max >= total) {
            kept = total;
        } else {
            /* round-robin quotas: every operator gets its turn, the families interleaved */
            interleave_families(gen, group_of, groups, visit + (n + 1), visit + 2 * (n + 1), visit);
            size_t given = 0;
            while (given < max)
                for (size_t v = 0; v < groups && given < max; v++)
                    if (quota[visit[v]] < sizes[visit[v]])
                        quota[visit[v]]++, given++;
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
    free(visit);
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
    cJSON *tree; /* the chosen tree (reservoir sampling) */
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
    const char *const *rules = NULL; /* the first operator's, below */
    char first_path[512] = "";
    unsigned steps = 2 + (unsigned)gt_rng_below(&gen->rng, 2);
    for (unsigned step = 0; step < steps && current.value != NULL; step++) {
        pick_sink pick = {.sink = {pick_tree, pick_text, NULL}};
        site_list sites = {0};
        gen_collect_sites(gen->schema, current.value, gen->schema, "", &sites, 0);
        thin_sites(&sites);
        gen_structure(gen, &pick.sink, &current, &sites);
        gen_sites_free(&sites);
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
        gen_collect_sites(gen->schema, current.value, gen->schema, "", &sites, 0);
        thin_sites(&sites);
        gen_syntax(gen, &pick.sink, &current, &sites);
        gen_sites_free(&sites);
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
    gt_gen_case *kase = gen_add_candidate(gen, family, gate, ops, strcmp(family, "structure") == 0 ? "" : first_path,
                                          raw, len, NULL, rules, GT_VERDICT_REJECT, gate, reason,
                                          gen_format_text("random combination %s on %s", ops, start->name), false);
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
    gt_gen_case *kase =
        ops && path ? gen_add_candidate(gen, base.family, base.gate, ops, path, copy, raw_len, NULL, base.rules,
                                        base.want_verdict, base.want_gate, base.want_reason, strdup("shrunk"), false)
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
