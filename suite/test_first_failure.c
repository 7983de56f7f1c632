/* test_first_failure.c — the verdict-only structure gate
 * (gt_schema_validate_first_failure) against the all-errors one
 * (gt_schema_validate with an error list), case by case, on every test of the
 * JSON-Schema-Test-Suite (required, optional and optional/format folders of
 * the five dialects; formats as annotations and as assertions; the default
 * evaluation budget and small ones that make the all-errors gate stop at
 * its limit) and on every corpus case that carries a schema and an output the
 * syntax gate accepts. The contract (schema.h): VALID exactly when the
 * all-errors gate says VALID; otherwise the same verdict, except that where
 * the all-errors gate stops at a limit the first-failure gate may answer
 * INVALID (it stopped before reaching the limit). The scratch list stays
 * empty, and the verdict with no scratch at all (errors NULL) is the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/parse.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/schema.h"
#include "gt_test.h"
#include "runner/jsts.h"

/* Small evaluation budgets: enough for most suite tests, too little for the
 * ones that nest or collect many errors, so both gates meet their limit. */
static const size_t small_budgets[] = {40, 8};

typedef struct agreement {
    size_t compared;       /* (schema, instance, configuration) triples */
    size_t invalid;        /* of which the all-errors gate said INVALID */
    size_t limit_in_full;  /* the all-errors gate stopped at a limit */
    size_t limit_answered; /* ... where the first-failure gate answered INVALID */
    gt_schema_errors errors, scratch;
} agreement;

/* Compare the gates on one instance; `where` names it in a failure. */
static void compare(agreement *a, const gt_schema *schema, const gt_value *instance, const char *where)
{
    gt_schema_result full = gt_schema_validate(schema, instance, &a->errors);
    gt_schema_result quick = gt_schema_validate_first_failure(schema, instance, &a->scratch);
    gt_schema_result bare = gt_schema_validate_first_failure(schema, instance, NULL);
    ck_assert_msg((quick == GT_SCHEMA_VALID) == (full == GT_SCHEMA_VALID),
                  "%s: first-failure %d, all errors %d", where, quick, full);
    ck_assert_msg(quick == bare, "%s: first-failure %d with scratch, %d without", where, quick, bare);
    ck_assert_msg(a->scratch.count == 0, "%s: the first-failure gate wrote %zu errors", where, a->scratch.count);
    bool limit = full == GT_SCHEMA_ERROR && gt_schema_failure_is_limit(a->errors.failure);
    if (limit) {
        a->limit_in_full++;
        a->limit_answered += quick == GT_SCHEMA_INVALID;
        ck_assert_msg(quick != GT_SCHEMA_VALID, "%s: first-failure valid past a limit", where);
    } else
        ck_assert_msg(quick == full, "%s: first-failure %d, all errors %d", where, quick, full);
    a->invalid += full == GT_SCHEMA_INVALID;
    a->compared++;
}

typedef struct jsts_run {
    agreement *agreement;
    bool formats;
    size_t budget;
} jsts_run;

static int compare_file(void *user, const gt_jsts_file *file)
{
    const jsts_run *run = user;
    gt_schema_options options;
    gt_schema_options_init(&options);
    options.default_dialect = (gt_schema_dialect)file->dialect;
    options.assert_formats = run->formats || file->part == GT_JSTS_FORMAT;
    options.remotes_dir = file->remotes;
    options.max_evaluations = run->budget;
    options.skip_metaschema = run->budget != 0; /* the metaschema check would spend the small budget */
    for (size_t g = 0; g < file->root->u.arr.count; g++) {
        const gt_value *group = file->root->u.arr.items[g];
        const gt_value *schema_v = gt_value_get(group, "schema", 6), *tests = gt_value_get(group, "tests", 5);
        if (schema_v == NULL || tests == NULL || tests->type != GT_ARRAY)
            continue;
        gt_schema *schema = gt_schema_compile_value(schema_v, &options, NULL);
        for (size_t t = 0; schema != NULL && t < tests->u.arr.count; t++) {
            const gt_value *data = gt_value_get(tests->u.arr.items[t], "data", 4);
            if (data == NULL)
                continue;
            char where[512];
            snprintf(where, sizeof where, "%s group %zu test %zu (formats %d, budget %zu)", file->path, g, t,
                     options.assert_formats, run->budget);
            compare(run->agreement, schema, data, where);
        }
        gt_schema_free(schema);
    }
    return 0;
}

START_TEST(first_failure_agrees_on_the_test_suite)
{
    const char *root = gt_test_jsts_dir();
    if (root == NULL) {
        gt_test_data_skip("first-failure verdicts on the JSON-Schema-Test-Suite", "the suite", GT_TEST_JSTS_WHERE);
        return;
    }
    static const char *const dialects[] = {"draft4", "draft6", "draft7", "draft2019-09", "draft2020-12"};
    agreement a = {0};
    gt_schema_errors_init(&a.errors), gt_schema_errors_init(&a.scratch);
    for (int config = 0; config < 4; config++) {
        jsts_run run = {&a, config == 1, config >= 2 ? small_budgets[config - 2] : 0};
        for (size_t d = 0; d < sizeof dialects / sizeof dialects[0]; d++) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/tests/%s", root, dialects[d]);
            gt_jsts_walk_options walk = {.optional = true, .format = true};
            ck_assert_int_eq(gt_jsts_walk("test_first_failure", dir, &walk, compare_file, &run), 0);
        }
    }
    printf("first-failure on the JSON-Schema-Test-Suite: %zu comparisons (%zu invalid, %zu at a limit of the "
           "all-errors gate, %zu of them invalid by first failure), all in agreement\n",
           a.compared, a.invalid, a.limit_in_full, a.limit_answered);
    ck_assert_uint_gt(a.compared, 4 * 7000); /* every dialect's tests, four ways */
    ck_assert_uint_gt(a.limit_answered, 0);  /* the small budget reached the case the contract allows */
    gt_schema_errors_free(&a.errors), gt_schema_errors_free(&a.scratch);
}
END_TEST

START_TEST(first_failure_agrees_on_the_corpus)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_gt(gt_corpus_load(corpus, GT_TEST_CORPUS), 0);
    agreement a = {0};
    gt_schema_errors_init(&a.errors), gt_schema_errors_init(&a.scratch);
    gt_arena *arena = gt_arena_new();
    size_t structure = 0;
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case_input *input = &gt_corpus_case(corpus, i)->input;
        if (input->schema_json == NULL || input->raw == NULL)
            continue;
        gt_schema_options options;
        gt_schema_options_init(&options);
        options.assert_formats = input->assert_formats;
        options.registry = input->schemas;
        options.remotes_dir = input->remotes_dir;
        gt_schema *schema = gt_schema_compile(input->schema_json, strlen(input->schema_json), &options, NULL);
        gt_parse_options parse;
        gt_parse_options_init(&parse);
        parse.reject_nul = input->reject_nul;
        parse.max_bytes = input->max_bytes;
        gt_parse_error perr;
        gt_arena_reset(arena);
        const gt_value *value =
            schema != NULL ? gt_parse(arena, (const char *)input->raw, input->raw_len, &parse, &perr) : NULL;
        if (value != NULL) {
            compare(&a, schema, value, input->id);
            structure += strcmp(input->gate, "structure") == 0;
        }
        gt_schema_free(schema);
    }
    printf("first-failure on the corpus: %zu comparisons (%zu structure cases, %zu invalid, %zu at a limit of the "
           "all-errors gate), all in agreement\n",
           a.compared, structure, a.invalid, a.limit_in_full);
    ck_assert_uint_gt(structure, 100);
    gt_arena_free(arena);
    gt_schema_errors_free(&a.errors), gt_schema_errors_free(&a.scratch);
    gt_corpus_free(corpus);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("first_failure");
    TCase *tc = tcase_create("verdicts");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, first_failure_agrees_on_the_test_suite);
    tcase_add_test(tc, first_failure_agrees_on_the_corpus);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
