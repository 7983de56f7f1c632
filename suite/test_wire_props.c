/* test_wire_props.c — properties of the wire layer over real schemas.
 *
 * For every schema of the bundled corpus and of the JSON-Schema-Test-Suite
 * (draft 2020-12; GT_JSTS_DIR, the third_party/ submodule or ../shared; skipped
 * with a message when absent), using the suite's test instances:
 *   1. transform: when it accepts, the output passes `lint --provider
 *      anthropic`, has no dangling $ref, and only loosens: every instance
 *      valid under the original with its objects closed is valid under the
 *      output. Closing is the one deliberate narrowing (additionalProperties
 *      false, seed 004), so "closed" means the original plus, on every node
 *      the transform treats as an object, propertyNames limited to the
 *      declared properties. Instances valid under the plain original but
 *      not under the output are counted and must all be explained by closing.
 *   2. strict: when it converts, the output accepts exactly the instances
 *      the original (with additionalProperties false made explicit) accepts.
 * The figures are printed so that a reviewer can see how much was checked. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/util.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
#include "gauntlet/wire.h"
#include "gt_test.h"

typedef struct wire_figures {
    size_t schemas, uncompilable;
    size_t transform_accepted, transform_rejected, transform_instances, transform_raw_narrowed,
        transform_counterexamples, lint_failures, budget_only, closing_approximate;
    size_t strict_converted, strict_instances, strict_mismatches, strict_exact;
    const char *reject_codes[32];
    size_t reject_counts[32];
    char first_failure[600];
} wire_figures;

static void count_rejection(wire_figures *figures, const char *code)
{
    for (size_t i = 0; i < 32; i++) {
        if (figures->reject_codes[i] == NULL)
            figures->reject_codes[i] = code;
        if (strcmp(figures->reject_codes[i], code) == 0) {
            figures->reject_counts[i]++;
            return;
        }
    }
}

static void note_failure(wire_figures *figures, const char *format, const char *where, const char *detail)
{
    if (figures->first_failure[0] == '\0')
        snprintf(figures->first_failure, sizeof figures->first_failure, format, where, detail);
}

/* `max_depth` 0 is the parser's default (a model output's limit). */
static const gt_value *parse_json_depth(gt_arena *arena, const char *text, size_t len, size_t max_depth)
{
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    options.max_depth = max_depth;
    gt_parse_error error;
    return gt_parse(arena, text, len, &options, &error);
}

static const gt_value *parse_json(gt_arena *arena, const char *text, size_t len)
{
    return parse_json_depth(arena, text, len, 0);
}

static bool string_is(const gt_value *value, const char *text)
{
    return value != NULL && value->type == GT_STRING && strcmp(value->u.str.chars, text) == 0;
}

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

static const gt_value *get(const gt_value *object, const char *key)
{
    return object->type == GT_OBJECT ? gt_value_get(object, key, strlen(key)) : NULL;
}

static gt_value *map_of(gt_arena *arena, const gt_value *map, const gt_value *(*close)(gt_arena *, const gt_value *, bool *),
                        bool *approximate)
{
    gt_value *out = gt_value_new_object(arena);
    for (size_t i = 0; i < map->u.obj.count; i++)
        gt_value_object_append(arena, out, map->u.obj.members[i].key, map->u.obj.members[i].key_len,
                               (gt_value *)close(arena, map->u.obj.members[i].value, approximate));
    return out;
}

/* The original with every node the transform treats as an object closed the
 * way the transform closes it (walks exactly the keywords the transform keeps). */
static const gt_value *close_for_transform(gt_arena *arena, const gt_value *node, bool *approximate)
{
    if (node->type != GT_OBJECT)
        return node;
    static const char *const combinators[] = {"anyOf", "oneOf", "allOf"};
    bool has_ref = get(node, "$ref") != NULL;
    int winner = -1;
    for (int k = 0; k < 3 && winner < 0; k++) {
        const gt_value *branches = get(node, combinators[k]);
        if (branches != NULL && branches->type == GT_ARRAY)
            winner = k;
    }
    const gt_value *type = get(node, "type");
    bool is_object = !has_ref && winner < 0 && type_has(type, "object");
    bool is_array = !has_ref && winner < 0 && type_has(type, "array");
    gt_value *out = gt_value_new_object(arena);
    for (size_t i = 0; i < node->u.obj.count; i++) {
        const gt_member *member = &node->u.obj.members[i];
        const gt_value *value = member->value;
        bool is_map = value->type == GT_OBJECT;
        if ((strcmp(member->key, "$defs") == 0 || strcmp(member->key, "definitions") == 0) && is_map) {
            value = map_of(arena, value, close_for_transform, approximate);
        } else if (!has_ref && winner >= 0 && strcmp(member->key, combinators[winner]) == 0) {
            gt_value *branches = gt_value_new_array(arena);
            for (size_t k = 0; k < value->u.arr.count; k++)
                gt_value_array_append(arena, branches,
                                      (gt_value *)close_for_transform(arena, value->u.arr.items[k], approximate));
            value = branches;
        } else if (is_object && strcmp(member->key, "properties") == 0 && is_map) {
            value = map_of(arena, value, close_for_transform, approximate);
        } else if (is_array && strcmp(member->key, "items") == 0 && is_map) {
            value = close_for_transform(arena, value, approximate);
        }
        gt_value_object_append(arena, out, member->key, member->key_len, (gt_value *)value);
    }
    if (is_object) {
        if (get(node, "propertyNames") != NULL) {
            *approximate = true; /* cannot add a second propertyNames: the check is skipped */
            return out;
        }
        gt_value *names = gt_value_new_array(arena);
        const gt_value *properties = get(node, "properties");
        for (size_t i = 0; properties != NULL && properties->type == GT_OBJECT && i < properties->u.obj.count; i++)
            gt_value_array_append(arena, names,
                                  gt_value_new_string(arena, properties->u.obj.members[i].key,
                                                      properties->u.obj.members[i].key_len));
        gt_value *limit = gt_value_new_object(arena);
        gt_value_object_append(arena, limit, "enum", 4, names);
        gt_value_object_append(arena, out, "propertyNames", 13, limit);
    }
    return out;
}

/* The original with additionalProperties false made explicit on every object
 * node (what strict emits); `approximate` reports whether anything was added. */
static const gt_value *close_for_strict(gt_arena *arena, const gt_value *node, bool *added)
{
    if (node->type != GT_OBJECT)
        return node;
    gt_value *out = gt_value_new_object(arena);
    for (size_t i = 0; i < node->u.obj.count; i++) {
        const gt_member *member = &node->u.obj.members[i];
        const gt_value *value = member->value;
        if (strcmp(member->key, "properties") == 0 && value->type == GT_OBJECT) {
            value = map_of(arena, value, close_for_strict, added);
        } else if (strcmp(member->key, "items") == 0) {
            value = close_for_strict(arena, value, added);
        } else if (strcmp(member->key, "anyOf") == 0 && value->type == GT_ARRAY) {
            gt_value *branches = gt_value_new_array(arena);
            for (size_t k = 0; k < value->u.arr.count; k++)
                gt_value_array_append(arena, branches, (gt_value *)close_for_strict(arena, value->u.arr.items[k], added));
            value = branches;
        }
        gt_value_object_append(arena, out, member->key, member->key_len, (gt_value *)value);
    }
    if (string_is(get(node, "type"), "object") && get(node, "additionalProperties") == NULL) {
        gt_value_object_append(arena, out, "additionalProperties", 20, gt_value_new_bool(arena, false));
        *added = true;
    }
    return out;
}

static gt_schema *compile(const gt_value *schema)
{
    gt_schema_problem problem;
    return gt_schema_compile_value(schema, NULL, &problem);
}

static int verdict(const gt_schema *schema, const gt_value *instance)
{
    return gt_schema_validate(schema, instance, NULL);
}

/* Check one schema against its instances. `where` names it in messages. */
static void check_schema(wire_figures *figures, gt_arena *arena, const gt_value *schema, const gt_value *const *instances,
                         size_t count, const char *where)
{
    figures->schemas++;
    gt_schema *original = compile(schema);
    if (original == NULL) {
        figures->uncompilable++;
        return;
    }
    /* 1. transform */
    gt_value *out = NULL;
    gt_wire_problem problem;
    int status = gt_wire_transform(arena, schema, GT_WIRE_FLAVOR_PYTHON, &out, &problem);
    ck_assert_int_ne(status, GT_WIRE_OUT_OF_MEMORY);
    if (status == GT_WIRE_REJECTED) {
        figures->transform_rejected++;
        count_rejection(figures, problem.code);
    } else {
        figures->transform_accepted++;
        const gt_value *outputs[] = {out};
        gt_wire_findings findings = {0};
        gt_wire_lint_options options;
        gt_wire_lint_options_init(&options);
        int lint = gt_wire_lint(outputs, 1, &options, &findings);
        ck_assert_int_ge(lint, 0);
        size_t schema_findings = 0;
        for (size_t i = 0; i < findings.count; i++)
            /* a value that must not be cached is the schema author's to remove: no transform touches values */
            if (findings.items[i].schema_index != GT_WIRE_REQUEST &&
                strcmp(findings.items[i].code, "anthropic_sensitive_value") != 0) {
                if (schema_findings++ == 0)
                    note_failure(figures, "%s: transform output fails anthropic lint: %s", where,
                                 findings.items[i].code);
            }
        if (schema_findings > 0)
            figures->lint_failures++;
        else if (findings.count > 0)
            figures->budget_only++; /* a per-request budget: no transform can fix it */
        gt_wire_findings_free(&findings);
        bool approximate = false;
        const gt_value *closed_value = close_for_transform(arena, schema, &approximate);
        gt_schema *transformed = compile(out);
        gt_schema *closed = approximate ? NULL : compile(closed_value);
        if (approximate)
            figures->closing_approximate++;
        if (transformed == NULL) {
            figures->transform_counterexamples++;
            note_failure(figures, "%s: the transform output does not compile%s", where, "");
        }
        for (size_t i = 0; transformed != NULL && i < count; i++) {
            int before = verdict(original, instances[i]), after = verdict(transformed, instances[i]);
            figures->transform_instances++;
            if (before == GT_SCHEMA_VALID && after != GT_SCHEMA_VALID)
                figures->transform_raw_narrowed++;
            if (closed != NULL && verdict(closed, instances[i]) == GT_SCHEMA_VALID && after != GT_SCHEMA_VALID) {
                figures->transform_counterexamples++;
                char *text = gt_value_to_json(instances[i], NULL);
                note_failure(figures, "%s: transform narrowed beyond closing objects on instance %s", where, text);
                free(text);
            }
        }
        gt_schema_free(transformed);
        gt_schema_free(closed);
    }
    /* 2. strict */
    status = gt_wire_strict(arena, schema, &out, &problem);
    ck_assert_int_ne(status, GT_WIRE_OUT_OF_MEMORY);
    if (status == GT_WIRE_OK) {
        figures->strict_converted++;
        bool added = false;
        gt_schema *strict = compile(out);
        gt_schema *closed = compile(close_for_strict(arena, schema, &added));
        ck_assert_ptr_nonnull(strict);
        ck_assert_ptr_nonnull(closed);
        if (!added)
            figures->strict_exact++;
        for (size_t i = 0; i < count; i++) {
            figures->strict_instances++;
            if (verdict(strict, instances[i]) != verdict(closed, instances[i])) {
                figures->strict_mismatches++;
                char *text = gt_value_to_json(instances[i], NULL);
                note_failure(figures, "%s: strict output disagrees with the original on %s", where, text);
                free(text);
            }
        }
        gt_schema_free(strict);
        gt_schema_free(closed);
    }
    gt_schema_free(original);
}

static void print_figures(const char *name, const wire_figures *figures)
{
    printf("wire properties, %s: %zu schemas (%zu do not compile), transform accepted %zu and rejected %zu; %zu "
           "instances checked, %zu narrowed only by closing objects, %zu counterexamples, %zu lint failures (%zu "
           "over a request budget only), %zu skipped (propertyNames already present); strict converted %zu (%zu needed no closing), %zu instances, "
           "%zu mismatches\n",
           name, figures->schemas, figures->uncompilable, figures->transform_accepted, figures->transform_rejected,
           figures->transform_instances, figures->transform_raw_narrowed, figures->transform_counterexamples,
           figures->lint_failures, figures->budget_only, figures->closing_approximate, figures->strict_converted, figures->strict_exact,
           figures->strict_instances, figures->strict_mismatches);
    for (size_t i = 0; i < 32 && figures->reject_codes[i] != NULL; i++)
        printf("  transform rejected %zu with %s\n", figures->reject_counts[i], figures->reject_codes[i]);
    if (figures->first_failure[0] != '\0')
        printf("  first failure: %s\n", figures->first_failure);
}

static void assert_figures(const wire_figures *figures)
{
    ck_assert_msg(figures->transform_counterexamples == 0, "%s", figures->first_failure);
    ck_assert_msg(figures->lint_failures == 0, "%s", figures->first_failure);
    ck_assert_msg(figures->strict_mismatches == 0, "%s", figures->first_failure);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The instance pool: every test instance of the suite, kept in `arena`. */
typedef struct instance_pool {
    const gt_value **items;
    size_t count, cap;
} instance_pool;

static void pool_add(instance_pool *pool, const gt_value *value)
{
    if (pool->count == pool->cap) {
        pool->cap = pool->cap ? pool->cap * 2 : 256;
        pool->items = realloc(pool->items, pool->cap * sizeof *pool->items);
        ck_assert_ptr_nonnull(pool->items);
    }
    pool->items[pool->count++] = value;
}

/* Walk the suite's draft 2020-12 files: with `figures`, check every group's
 * schema against its own instances; always add the instances to `pool`.
 * Returns false (after printing why) when the suite is absent. */
static bool walk_suite(gt_arena *arena, wire_figures *figures, instance_pool *pool)
{
    const char *root = gt_test_jsts_dir();
    const char *env = getenv("GT_JSTS_DIR");
    ck_assert_msg(root != NULL || env == NULL || env[0] == '\0', "GT_JSTS_DIR=%s has no tests/ folder", env);
    if (root == NULL) {
        gt_test_data_skip("wire properties over the JSON-Schema-Test-Suite", "JSON-Schema-Test-Suite",
                          GT_TEST_JSTS_WHERE);
        return false;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/draft2020-12", root);
    DIR *listing = opendir(dir);
    ck_assert_msg(listing != NULL, "%s: cannot open the JSON-Schema-Test-Suite's draft 2020-12 folder", dir);
    char *names[256];
    size_t name_count = 0;
    for (struct dirent *entry; (entry = readdir(listing)) != NULL && name_count < 256;) {
        size_t len = strlen(entry->d_name);
        if (len > 5 && strcmp(entry->d_name + len - 5, ".json") == 0)
            names[name_count++] = strdup(entry->d_name);
    }
    closedir(listing);
    qsort(names, name_count, sizeof names[0], compare_names);
    for (size_t f = 0; f < name_count; f++) {
        char path[1400], err[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]);
        size_t len;
        char *text = gt_read_file(path, &len, err, sizeof err);
        ck_assert_msg(text != NULL, "%s", err);
        const gt_value *groups = parse_json(arena, text, len);
        ck_assert_msg(groups != NULL && groups->type == GT_ARRAY, "%s is not a test file", path);
        for (size_t g = 0; g < groups->u.arr.count; g++) {
            const gt_value *group = groups->u.arr.items[g];
            const gt_value *schema = get(group, "schema"), *tests = get(group, "tests");
            if (schema == NULL || tests == NULL || tests->type != GT_ARRAY)
                continue;
            size_t first = pool->count;
            for (size_t t = 0; t < tests->u.arr.count; t++) {
                const gt_value *data = get(tests->u.arr.items[t], "data");
                if (data != NULL)
                    pool_add(pool, data);
            }
            if (figures == NULL)
                continue;
            char where[600];
            const gt_value *description = get(group, "description");
            snprintf(where, sizeof where, "%s: %s", names[f],
                     description && description->type == GT_STRING ? description->u.str.chars : "?");
            check_schema(figures, arena, schema, pool->items + first, pool->count - first, where);
        }
        free(text);
        free(names[f]);
    }
    return true;
}

START_TEST(test_properties_on_json_schema_test_suite)
{
    gt_arena *arena = gt_arena_new();
    wire_figures totals = {0};
    instance_pool pool = {0};
    if (walk_suite(arena, &totals, &pool)) {
        print_figures("JSON-Schema-Test-Suite draft2020-12 (each schema with its own instances)", &totals);
        ck_assert_uint_gt(totals.transform_accepted, 0);
        ck_assert_uint_gt(totals.strict_converted, 0);
        assert_figures(&totals);
    }
    free(pool.items);
    gt_arena_free(arena);
}
END_TEST

/* Every schema the corpus carries: case schemas (instances: the raw outputs
 * of the cases that use it, when they are JSON) and wire case schemas. */
START_TEST(test_properties_on_corpus)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_ge(gt_corpus_load(corpus, GT_TEST_CORPUS), 0);
    gt_arena *arena = gt_arena_new();
    wire_figures totals = {0};
    instance_pool pool = {0};
    walk_suite(arena, NULL, &pool); /* every suite instance is an instance for every corpus schema */
    size_t cases = gt_corpus_count(corpus);
    const char **seen = calloc(cases + 1, sizeof *seen);
    size_t seen_count = 0;
    const gt_value **instances = calloc(cases + pool.count + 1, sizeof *instances);
    if (pool.count > 0)
        memcpy(instances, pool.items, pool.count * sizeof *instances);
    for (size_t i = 0; i < cases; i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        const char *schema_json = kase->input.schema_json;
        if (schema_json != NULL) {
            bool done = false;
            for (size_t k = 0; k < seen_count && !done; k++)
                done = strcmp(seen[k], schema_json) == 0;
            if (done)
                continue;
            seen[seen_count++] = schema_json;
            size_t count = pool.count;
            for (size_t j = i; j < cases; j++) {
                const gt_case *other = gt_corpus_case(corpus, j);
                if (other->input.schema_json == NULL || strcmp(other->input.schema_json, schema_json) != 0 ||
                    other->input.raw == NULL)
                    continue;
                const gt_value *value = parse_json(arena, (const char *)other->input.raw, other->input.raw_len);
                if (value != NULL)
                    instances[count++] = value;
            }
            /* a corpus schema (a schema_file may nest far deeper than a model output) */
            const gt_value *schema = parse_json_depth(arena, schema_json, strlen(schema_json), GT_SCHEMA_PARSE_MAX_DEPTH);
            ck_assert_ptr_nonnull(schema);
            check_schema(&totals, arena, schema, instances, count,
                         kase->input.schema_origin ? kase->input.schema_origin : kase->input.id);
        } else if (kase->input.gate != NULL && strcmp(kase->input.gate, "wire") == 0) {
            const gt_value *whole = parse_json(arena, kase->input.case_json, strlen(kase->input.case_json));
            const gt_value *wire = whole ? get(whole, "wire") : NULL;
            const gt_value *schema = wire ? get(wire, "schema") : NULL;
            if (schema != NULL)
                check_schema(&totals, arena, schema, instances, pool.count, kase->input.id);
        }
    }
    print_figures("bundled corpus (each schema with its cases' outputs and every suite instance)", &totals);
    free(pool.items);
    free(seen);
    free(instances);
    gt_arena_free(arena);
    gt_corpus_free(corpus);
    assert_figures(&totals);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("wire-properties");
    TCase *properties = tcase_create("properties");
    tcase_set_timeout(properties, 300);
    tcase_add_test(properties, test_properties_on_json_schema_test_suite);
    tcase_add_test(properties, test_properties_on_corpus);
    suite_add_tcase(suite, properties);
    return suite;
}

GT_TEST_MAIN()
