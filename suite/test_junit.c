/* test_junit.c — JUnit reports that strict consumers accept: real `gauntlet
 * run` reports (the bundled corpus, full of injection strings and invisible
 * bytes, against misbehaving adapters that fail, skip and error) validate
 * against the Apache Ant JUnit schema (JUnit.xsd: GT_JUNIT_XSD, the
 * third_party/JUnit-Schema submodule or ../shared/junit; the schema check is
 * skipped by name when absent everywhere) with xmllint; a failure's body
 * carries why, where, the expected and observed verdicts and the input, cut at a character boundary; cases outside
 * the claimed profiles are no test cases, and a failure's type is its class. */
#include <string.h>

#include "runner/cli/commands.h"
#include "gauntlet/runner/report.h"
#include "gauntlet/runner/run.h"
#include "gt_test.h"

/* `gauntlet run` over the bundled corpus against fake.sh in `mode`, with a
 * JUnit report; returns the report's text and the exit code in *code. */
static char *run_fake(const char *mode, int *code)
{
    static char output[1 << 16];
    char target[256], report[128], xml[64];
    snprintf(xml, sizeof xml, "/tmp/gt-junit-%d-%s.xml", (int)getpid(), mode);
    snprintf(target, sizeof target, "adapter:sh suite/adapters/fake.sh %s", mode);
    snprintf(report, sizeof report, "junit:%s", xml);
    char *argv[] = {"run", GT_TEST_CORPUS, "--target", target, "--report", report, "-q", NULL};
    *code = gt_test_cli(gt_cmd_run, argv, output, sizeof output);
    ck_assert_int_eq(gt_test_junit_validate(xml), 0);
    char *text = gt_test_slurp(xml);
    unlink(xml);
    return text;
}

/* An adapter that accepts everything and only speaks `syntax`: every
 * expected rejection is a <failure>, every other gate a <skipped>. */
START_TEST(real_report_with_failures_and_skips_is_valid)
{
    int code;
    char *text = run_fake("ok", &code);
    ck_assert_int_eq(code, 1);
    ck_assert_uint_gt(gt_test_count_of(text, "<failure "), 10);
    ck_assert_uint_gt(gt_test_count_of(text, "<skipped "), 10);
    /* the Markdown-fence case: its input shows, escaped, with the newline marked */
    const char *fence = strstr(text, "name=\"syntax.fence.");
    ck_assert_ptr_nonnull(fence);
    const char *body = strstr(fence, "<failure ");
    ck_assert_ptr_nonnull(body);
    ck_assert_ptr_nonnull(strstr(body, "\nexpected: reject syntax/markdown_fence"));
    ck_assert_ptr_nonnull(strstr(body, "\nobserved: accept\n"));
    ck_assert_ptr_nonnull(strstr(body, "\ninput ("));
    ck_assert_ptr_nonnull(strstr(body, "```json\xe2\x9f\xa8LF\xe2\x9f\xa9\n"));
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"location:syntax.fence."));
    /* the adapter claims core alone: the cases of other profiles are no test
     * cases (one location per test case), counted in the properties; every
     * failure is an accepted rejection, an unsafe one */
    ck_assert_uint_eq(gt_test_count_of(text, "<testcase "), gt_test_count_of(text, "<property name=\"location:"));
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"profiles_claimed\" value=\"core\"/>"));
    ck_assert_ptr_null(strstr(text, "<property name=\"not_applicable\" value=\"0\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"coverage:core\" value=\"core: "));
    ck_assert_uint_eq(gt_test_count_of(text, "type=\"unsafe\""), gt_test_count_of(text, "<failure "));
    free(text);
}
END_TEST

/* An adapter that reports an error on every case: <error> elements. */
START_TEST(real_report_with_errors_is_valid)
{
    int code;
    char *text = run_fake("erroredaftersmoke", &code);
    ck_assert_int_eq(code, 1);
    ck_assert_uint_gt(gt_test_count_of(text, "<error "), 10);
    ck_assert_ptr_nonnull(strstr(text, "type=\"target_error\""));
    ck_assert_ptr_nonnull(strstr(text, "validator raised KeyError"));
    free(text);
}
END_TEST

/* The reference passes everything: a report with no failure at all. */
START_TEST(real_report_all_passed_is_valid)
{
    static char output[1 << 16];
    char xml[64], report[80];
    snprintf(xml, sizeof xml, "/tmp/gt-junit-%d-pass.xml", (int)getpid());
    snprintf(report, sizeof report, "junit:%s", xml);
    char *argv[] = {"run", GT_TEST_CORPUS, "--report", report, "-q", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, argv, output, sizeof output), 0);
    ck_assert_int_eq(gt_test_junit_validate(xml), 0);
    char *text = gt_test_slurp(xml);
    ck_assert_ptr_null(strstr(text, "<failure"));
    ck_assert_uint_eq(gt_test_count_of(text, "<testsuite "), GT_GATE_COUNT);
    free(text);
    unlink(xml);
}
END_TEST

/* A long input with a two-byte character across the cut: the body stops
 * before the character, counts the rest and stays valid UTF-8 and XML. */
START_TEST(long_input_is_cut_at_a_character_boundary)
{
    /* the input is '"', pad a's, "é" at bytes pad + 1 .. pad + 2 (across the cut), " </failure>\x01\"" */
    size_t pad = GT_REPORT_JUNIT_MAX_INPUT - 2;
    size_t cap = pad + 512;
    char *case_text = malloc(cap);
    int head = snprintf(case_text, cap,
                        "{\"format\": \"gauntlet-corpus/1\", \"cases\": [{\"id\": \"long.cut\", \"gate\": \"syntax\", "
                        "\"category\": \"long\", \"input\": \"\\\"");
    memset(case_text + head, 'a', pad);
    snprintf(case_text + head + pad, cap - head - pad,
             "\xc3\xa9 </failure>\\u0001\\\"\", \"expect\": {\"verdict\": \"reject\", \"gate\": \"syntax\", "
             "\"reason\": \"markdown_fence\"}}]}");
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "long.cases.json", case_text, strlen(case_text)), 1);
    free(case_text);
    char err[256];
    gt_run *run = gt_run_cases(corpus, "reference", 1, NULL, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(run);
    ck_assert_int_eq(run->results[0].outcome, GT_OUTCOME_FAIL); /* a JSON string is accepted */

    char xml[64];
    snprintf(xml, sizeof xml, "/tmp/gt-junit-%d-long.xml", (int)getpid());
    FILE *out = fopen(xml, "w");
    ck_assert_int_eq(gt_report_junit(out, run, NULL), 0);
    fclose(out);
    ck_assert_int_eq(gt_test_junit_validate(xml), 0);
    char *text = gt_test_slurp(xml);
    char label[96];
    snprintf(label, sizeof label, "input (%zu bytes, first %zu shown):\n\"a", pad + 16, pad + 1);
    ck_assert_ptr_nonnull(strstr(text, label));
    ck_assert_ptr_nonnull(strstr(text, "a\n... 15 more bytes</failure>"));
    ck_assert_ptr_null(strstr(text, "\xc3\xa9"));
    ck_assert_uint_eq(gt_test_count_of(text, "</failure>"), 1); /* the input's own "</failure>" is cut or escaped */
    free(text);
    unlink(xml);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("junit");
    TCase *schema = tcase_create("ant_schema");
    tcase_set_timeout(schema, 60);
    tcase_add_test(schema, real_report_with_failures_and_skips_is_valid);
    tcase_add_test(schema, real_report_with_errors_is_valid);
    tcase_add_test(schema, real_report_all_passed_is_valid);
    tcase_add_test(schema, long_input_is_cut_at_a_character_boundary);
    suite_add_tcase(suite, schema);
    return suite;
}

GT_TEST_MAIN()
