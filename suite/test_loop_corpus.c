/* test_loop_corpus.c — the bundled loop and stream corpus against the
 * reference: every case passes gt_compare (verdict, gate, reason, subtype,
 * accounting), and where a case names the expected structured_output the
 * envelope carries exactly that object (the "retracted object must not leak"
 * cases rely on it). */
#include <string.h>

#include "gauntlet/runner/corpus.h"
#include "gauntlet/parse.h"
#include "gauntlet/runner/run.h"
#include "gt_test.h"
#include "runner/targets/reference_hooks.h"

static gt_corpus *load(void)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_ptr_nonnull(corpus);
    ck_assert_int_gt(gt_corpus_load(corpus, GT_TEST_CORPUS "/loop"), 0);
    ck_assert_int_gt(gt_corpus_load(corpus, GT_TEST_CORPUS "/stream"), 0);
    for (size_t i = 0; i < gt_corpus_problem_count(corpus); i++) {
        const gt_load_problem *problem = gt_corpus_problem(corpus, i);
        ck_abort_msg("%s:%u %s: %s", problem->file, problem->line, problem->field, problem->message);
    }
    return corpus;
}

START_TEST(corpus_has_enough_cases)
{
    gt_corpus *corpus = load();
    ck_assert_uint_ge(gt_corpus_count(corpus), 50);
    size_t with_accounting = 0;
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        /* a refused --json-schema may leave out its subtype (error_invalid_json_schema is gauntlet's own) */
        ck_assert_msg(kase->expect.subtype != NULL ||
                          (kase->expect.reason != NULL && strncmp(kase->expect.reason, "json_schema_", 12) == 0),
                      "%s gives no subtype", kase->input.id);
        with_accounting += kase->expect.accounting.attempts_used >= 0 && kase->expect.accounting.api_attempts >= 0;
    }
    ck_assert_uint_eq(with_accounting, gt_corpus_count(corpus));
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(every_case_passes_with_its_object)
{
    gt_corpus *corpus = load();
    gt_arena *arena = gt_arena_new();
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        gt_observed observed;
        memset(&observed, 0, sizeof observed);
        gt_accounting_init(&observed.accounting);
        char note[512] = "";
        ck_assert_msg(gt_reference_check_loop(&kase->input, &observed, note, sizeof note) == GT_CHECK_DONE, "%s: %s",
                      kase->input.id, note);
        char why[512] = "";
        ck_assert_msg(gt_compare(&kase->expect, &observed, why, sizeof why) == GT_OUTCOME_PASS, "%s: %s\n%s",
                      kase->input.id, why, observed.transcript ? observed.transcript : "");
        gt_parse_error error;
        const gt_value *expect = gt_parse(arena, kase->expect.expect_json, strlen(kase->expect.expect_json), NULL, &error);
        const gt_value *want = gt_value_get(expect, "structured_output", 17);
        const gt_value *envelope = gt_parse(arena, observed.output_json, strlen(observed.output_json), NULL, &error);
        ck_assert_ptr_nonnull(envelope);
        const gt_value *got = gt_value_get(envelope, "structured_output", 17);
        if (want != NULL && want->type == GT_NULL) /* null: no object may survive */
            ck_assert_msg(got == NULL, "%s: an object survived: %s", kase->input.id, observed.output_json);
        else if (want != NULL)
            ck_assert_msg(got != NULL && gt_value_equal(want, got), "%s: structured_output differs: %s",
                          kase->input.id, observed.output_json);
        /* accept <=> success with an object */
        ck_assert_int_eq(kase->expect.verdict == GT_VERDICT_ACCEPT, got != NULL);
        gt_observed_clear(&observed);
    }
    gt_arena_free(arena);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(case_without_script_is_a_target_error)
{
    gt_case_input input = {.id = "x", .gate = "loop", .case_json = "{\"id\":\"x\",\"gate\":\"loop\"}"};
    gt_observed observed;
    memset(&observed, 0, sizeof observed);
    char note[256];
    ck_assert_int_eq(gt_reference_check_loop(&input, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert(strstr(note, "script") != NULL);
    input.case_json = "{\"id\":\"x\",\"script\":{\"turns\":[{\"message\":{\"content\":7}}]}}";
    ck_assert_int_eq(gt_reference_check_loop(&input, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_msg(strstr(note, "/script/turns/0/message/content") != NULL, "%s", note);
    gt_observed_clear(&observed);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("loop_corpus");
    TCase *corpus = tcase_create("corpus");
    tcase_set_timeout(corpus, 60);
    tcase_add_test(corpus, corpus_has_enough_cases);
    tcase_add_test(corpus, every_case_passes_with_its_object);
    tcase_add_test(corpus, case_without_script_is_a_target_error);
    suite_add_tcase(suite, corpus);
    return suite;
}

GT_TEST_MAIN()
