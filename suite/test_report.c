/* test_report.c — report writers: the JSON report parses and has every
 * documented field; JUnit and the console escape injection strings, control
 * bytes and invalid UTF-8; the console table counts. */
#include <cJSON.h>
#include <string.h>

#include "gauntlet/report.h"
#include "gt_test.h"
#include "report_util.h"

/* A nasty note: control bytes, an escape sequence, invalid UTF-8, markup. */
#define NASTY_NOTE "crash \x01\x1b[31m red \xff\xfe </script><script>alert(1)</script> \xe2\x80\xa8 end"

static const char corpus_text[] =
    "{\"format\": \"gauntlet-corpus/1\",\n"
    " \"cases\": [\n"
    "  {\"id\": \"syntax.fence.pass\", \"gate\": \"syntax\", \"category\": \"fence\", \"tags\": [\"markdown\", "
    "\"x\"],\n"
    "   \"description\": \"A </script><script>alert(1)</script> \\u0001\\u2028 case \\\"q\\\"\",\n"
    "   \"input\": \"```json\\n{}\\n```\", \"expect\": {\"verdict\": \"reject\", \"gate\": \"syntax\", \"reason\": "
    "\"markdown_fence\"}},\n"
    "  {\"id\": \"structure.types.fail\", \"gate\": \"structure\", \"category\": \"types\", \"schema\": {},\n"
    "   \"input\": \"{}\", \"expect\": {\"verdict\": \"reject\", \"gate\": \"structure\", \"reason\": \"type\", "
    "\"errors\": [{\"path\": \"/priority\", \"keyword\": \"type\"}]}},\n"
    "  {\"id\": \"syntax.utf8.error\", \"gate\": \"syntax\", \"category\": \"utf8\", \"input\": \"{}\", \"expect\": "
    "{\"verdict\": \"accept\"}},\n"
    "  {\"id\": \"loop.retries.skip\", \"gate\": \"loop\", \"category\": \"retries\", \"expect\": {\"verdict\": "
    "\"accept\"}},\n"
    "  {\"id\": \"x\", \"gate\": \"</script>\\u0007\", \"category\": \"c\", \"input\": \"1\", \"expect\": "
    "{\"verdict\": \"accept\"}}\n"
    " ]}\n";

static char *dup_text(const char *text)
{
    return text ? strdup(text) : NULL;
}

/* A run built by hand: one pass, one fail, one error, one skip, one load problem. */
static gt_run *nasty_run(gt_corpus **corpus_out)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "corpus/<evil>&\"dir\"/r.cases.json", corpus_text,
                                         sizeof corpus_text - 1),
                     4);
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 1);
    gt_run *run = calloc(1, sizeof *run);
    run->corpus = corpus;
    run->count = 4;
    run->results = calloc(4, sizeof *run->results);
    run->target = dup_text("adapter:./vendor --x '<y>'");
    run->target_name = dup_text("vendor \"impl\" <1.0>");
    strcpy(run->started_at, "2026-01-02T03:04:05Z");
    run->elapsed_ms = 1234.5;
    run->jobs = 3;
    for (size_t i = 0; i < 4; i++) {
        run->results[i].kase = gt_corpus_case(corpus, i);
        run->results[i].elapsed_ms = 0.25 * (double)(i + 1);
    }
    gt_case_result *pass = &run->results[0], *fail = &run->results[1], *error = &run->results[2],
                   *skip = &run->results[3];
    pass->outcome = GT_OUTCOME_PASS;
    gt_observed_reject(&pass->observed, "syntax", "markdown_fence", "at 1:1: fence </script>\x02");
    fail->outcome = GT_OUTCOME_FAIL;
    fail->note = dup_text("expected reject structure/type, observed accept");
    fail->observed.verdict = GT_VERDICT_ACCEPT;
    fail->observed.gates[GT_GATE_SYNTAX] = GT_GATE_PASSED;
    fail->observed.gates[GT_GATE_STRUCTURE] = GT_GATE_PASSED;
    gt_observed_add_error(&fail->observed, "/a\"b", "type", "expected integer, got \"4\" \x03");
    error->outcome = GT_OUTCOME_ERROR;
    error->note = dup_text(NASTY_NOTE);
    skip->outcome = GT_OUTCOME_SKIP;
    skip->note = dup_text("no loop layer");
    *corpus_out = corpus;
    return run;
}

static char *render(int (*writer)(FILE *, const gt_run *), const gt_run *run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert_int_eq(writer(out, run), 0);
    fclose(out);
    return text;
}

static int console_colour(FILE *out, const gt_run *run)
{
    return gt_report_console(out, run, true);
}

/* Every byte is well-formed UTF-8, and no control byte but newline appears. */
static void assert_clean_utf8(const char *text, bool allow_tab)
{
    const unsigned char *bytes = (const unsigned char *)text;
    size_t len = strlen(text);
    for (size_t i = 0; i < len;) {
        uint32_t code_point;
        size_t span = gt_report_utf8_decode(bytes + i, len - i, &code_point);
        ck_assert_msg(span > 0, "ill-formed UTF-8 at byte %zu", i);
        ck_assert_msg(code_point >= 0x20 || code_point == '\n' || (allow_tab && code_point == '\t'),
                      "control byte 0x%02x at %zu", (unsigned)code_point, i);
        i += span;
    }
}

static const char *json_str(const cJSON *object, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    ck_assert_msg(cJSON_IsString(item), "field %s is not a string", name);
    return item->valuestring;
}

static double json_num(const cJSON *object, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    ck_assert_msg(cJSON_IsNumber(item), "field %s is not a number", name);
    return item->valuedouble;
}

static void assert_null(const cJSON *object, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    ck_assert_msg(item != NULL && cJSON_IsNull(item), "field %s is not null", name);
}

START_TEST(json_report_parses_and_has_every_field)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    char *text = render(gt_report_json, run);
    assert_clean_utf8(text, false);
    ck_assert_ptr_null(strstr(text, "</script>"));
    ck_assert_ptr_null(strstr(text, "<"));

    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    ck_assert_str_eq(json_str(root, "format"), "gauntlet-report/1");
    ck_assert_str_eq(json_str(root, "gauntlet_version"), GAUNTLET_VERSION);
    ck_assert_str_eq(json_str(root, "started_at"), "2026-01-02T03:04:05Z");
    ck_assert(json_num(root, "elapsed_ms") == 1234.5);
    ck_assert_str_eq(json_str(root, "target"), "adapter:./vendor --x '<y>'");
    ck_assert_str_eq(json_str(root, "target_name"), "vendor \"impl\" <1.0>");
    ck_assert(json_num(root, "jobs") == 3);

    const cJSON *totals = cJSON_GetObjectItemCaseSensitive(root, "totals");
    ck_assert(json_num(totals, "cases") == 4 && json_num(totals, "pass") == 1 && json_num(totals, "fail") == 1 &&
              json_num(totals, "error") == 1 && json_num(totals, "skip") == 1);
    const cJSON *gates = cJSON_GetObjectItemCaseSensitive(root, "gates");
    ck_assert_int_eq(cJSON_GetArraySize(gates), GT_GATE_COUNT);
    ck_assert(json_num(cJSON_GetObjectItemCaseSensitive(gates, "syntax"), "cases") == 2);
    ck_assert(json_num(cJSON_GetObjectItemCaseSensitive(gates, "syntax"), "error") == 1);
    ck_assert(json_num(cJSON_GetObjectItemCaseSensitive(gates, "structure"), "fail") == 1);
    ck_assert(json_num(cJSON_GetObjectItemCaseSensitive(gates, "loop"), "skip") == 1);
    ck_assert(json_num(cJSON_GetObjectItemCaseSensitive(gates, "wire"), "cases") == 0);

    const cJSON *problems = cJSON_GetObjectItemCaseSensitive(root, "problems");
    ck_assert_int_eq(cJSON_GetArraySize(problems), 1);
    const cJSON *problem = cJSON_GetArrayItem(problems, 0);
    ck_assert_str_eq(json_str(problem, "file"), "corpus/<evil>&\"dir\"/r.cases.json");
    ck_assert(json_num(problem, "line") == 10);
    ck_assert_str_eq(json_str(problem, "field"), "/cases/4/gate");
    ck_assert_ptr_nonnull(strstr(json_str(problem, "message"), "'</script>\\x07'"));

    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    ck_assert_int_eq(cJSON_GetArraySize(cases), 4);
    const cJSON *first = cJSON_GetArrayItem(cases, 0);
    ck_assert_str_eq(json_str(first, "id"), "syntax.fence.pass");
    ck_assert_str_eq(json_str(first, "gate"), "syntax");
    ck_assert_str_eq(json_str(first, "category"), "fence");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(first, "tags")), 2);
    ck_assert_str_eq(json_str(first, "description"), "A </script><script>alert(1)</script> \x01\xe2\x80\xa8 case \"q\"");
    ck_assert_str_eq(json_str(first, "file"), "corpus/<evil>&\"dir\"/r.cases.json");
    ck_assert(json_num(first, "line") == 3);
    ck_assert_str_eq(json_str(first, "outcome"), "pass");
    ck_assert(json_num(first, "elapsed_ms") == 0.25);
    assert_null(first, "note");
    const cJSON *expected = cJSON_GetObjectItemCaseSensitive(first, "expected");
    ck_assert_str_eq(json_str(expected, "verdict"), "reject");
    ck_assert_str_eq(json_str(expected, "gate"), "syntax");
    ck_assert_str_eq(json_str(expected, "reason"), "markdown_fence");
    assert_null(expected, "errors");
    const cJSON *observed = cJSON_GetObjectItemCaseSensitive(first, "observed");
    ck_assert_str_eq(json_str(observed, "verdict"), "reject");
    ck_assert_str_eq(json_str(observed, "reason"), "markdown_fence");
    ck_assert_str_eq(json_str(observed, "message"), "at 1:1: fence </script>\x02");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(observed, "errors")), 0);
    const cJSON *observed_gates = cJSON_GetObjectItemCaseSensitive(observed, "gates");
    ck_assert_int_eq(cJSON_GetArraySize(observed_gates), GT_GATE_COUNT);
    ck_assert_str_eq(json_str(observed_gates, "syntax"), "failed");
    ck_assert_str_eq(json_str(observed_gates, "structure"), "not_run");

    const cJSON *second = cJSON_GetArrayItem(cases, 1);
    ck_assert_str_eq(json_str(second, "outcome"), "fail");
    const cJSON *expected_errors = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(second, "expected"),
                                                                    "errors");
    ck_assert_int_eq(cJSON_GetArraySize(expected_errors), 1);
    ck_assert_str_eq(json_str(cJSON_GetArrayItem(expected_errors, 0), "path"), "/priority");
    const cJSON *second_observed = cJSON_GetObjectItemCaseSensitive(second, "observed");
    ck_assert_str_eq(json_str(second_observed, "verdict"), "accept");
    assert_null(second_observed, "gate");
    assert_null(second_observed, "reason");
    const cJSON *observed_error = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(second_observed, "errors"), 0);
    ck_assert_str_eq(json_str(observed_error, "path"), "/a\"b");
    ck_assert_str_eq(json_str(observed_error, "keyword"), "type");
    ck_assert_str_eq(json_str(observed_error, "message"), "expected integer, got \"4\" \x03");
    ck_assert_str_eq(json_str(cJSON_GetObjectItemCaseSensitive(second_observed, "gates"), "structure"), "passed");

    const cJSON *third = cJSON_GetArrayItem(cases, 2);
    ck_assert_str_eq(json_str(third, "outcome"), "error");
    /* invalid UTF-8 bytes became U+FFFD; everything else survived exactly */
    ck_assert_str_eq(json_str(third, "note"),
                     "crash \x01\x1b[31m red \xef\xbf\xbd\xef\xbf\xbd </script><script>alert(1)</script> "
                     "\xe2\x80\xa8 end");
    assert_null(cJSON_GetObjectItemCaseSensitive(third, "observed"), "verdict");
    ck_assert_str_eq(json_str(cJSON_GetArrayItem(cases, 3), "outcome"), "skip");

    cJSON_Delete(root);
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(json_report_of_an_empty_run_parses)
{
    gt_corpus *corpus = gt_corpus_new();
    gt_run run = {.corpus = corpus, .jobs = 1};
    char *text = render(gt_report_json, &run);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "cases")), 0);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "problems")), 0);
    assert_null(root, "target");
    cJSON_Delete(root);
    free(text);
    gt_corpus_free(corpus);
}
END_TEST

static size_t count_of(const char *text, const char *needle)
{
    size_t count = 0;
    for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle))
        count++;
    return count;
}

START_TEST(junit_escapes_markup_and_forbidden_characters)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    char *text = render(gt_report_junit, run);
    assert_clean_utf8(text, false);
    ck_assert_ptr_null(strstr(text, "<script"));
    ck_assert_ptr_null(strstr(text, "</script"));
    ck_assert_ptr_null(strstr(text, "<evil>"));
    ck_assert_ptr_nonnull(strstr(text, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    ck_assert_ptr_nonnull(strstr(text, "crash \xef\xbf\xbd\xef\xbf\xbd[31m red \xef\xbf\xbd\xef\xbf\xbd"));
    ck_assert_ptr_nonnull(strstr(text, "corpus/&lt;evil&gt;&amp;&quot;dir&quot;/r.cases.json"));
    ck_assert_ptr_nonnull(strstr(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gauntlet\" "
                                       "tests=\"5\" failures=\"1\" errors=\"2\" skipped=\"1\""));
    ck_assert_ptr_nonnull(
        strstr(text, "<testcase classname=\"gauntlet.syntax.fence\" name=\"syntax.fence.pass\""));
    ck_assert_ptr_nonnull(strstr(text, "<testsuite name=\"syntax\" tests=\"2\" failures=\"0\" errors=\"1\""));
    ck_assert_uint_eq(count_of(text, "<testsuite "), 4); /* syntax, structure, loop, corpus */
    ck_assert_uint_eq(count_of(text, "</testsuite>"), 4);
    ck_assert_uint_eq(count_of(text, "<failure "), 1);
    ck_assert_uint_eq(count_of(text, "<error "), 2);
    ck_assert_uint_eq(count_of(text, "<skipped "), 1);
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"target\" value=\"adapter:./vendor --x &apos;&lt;y&gt;&apos;\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<error type=\"load_problem\""));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(console_table_counts_and_escapes)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    char *text = render(gt_report_writer_for("console"), run);
    assert_clean_utf8(text, false);
    ck_assert_ptr_nonnull(strstr(text, "gate        cases   pass   fail  error   skip\n"
                                       "syntax          2      1      0      1      0\n"
                                       "structure       1      0      1      0      0\n"
                                       "loop            1      0      0      0      1\n"
                                       "total           4      1      1      1      1\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nFAIL structure.types.fail: expected reject structure/type, observed "
                                       "accept\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nERROR syntax.utf8.error: crash \\x01\\x1b[31m red \\xff\\xfe </script>"));
    ck_assert_ptr_nonnull(strstr(text, "\nSKIP loop.retries.skip: no loop layer\n"));
    ck_assert_ptr_null(strstr(text, "PASS"));
    ck_assert_ptr_nonnull(strstr(text, "\n1 passed, 2 failed, 1 skipped\n"));
    ck_assert_ptr_nonnull(strstr(text, "4 cases against vendor \"impl\" <1.0> (adapter:./vendor --x '<y>'), 3 jobs"));
    free(text);

    text = render(console_colour, run);
    ck_assert_ptr_nonnull(strstr(text, "\033[31mFAIL\033[0m structure.types.fail"));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(writer_lookup)
{
    ck_assert_ptr_eq(gt_report_writer_for("json"), gt_report_json);
    ck_assert_ptr_eq(gt_report_writer_for("junit"), gt_report_junit);
    ck_assert_ptr_nonnull(gt_report_writer_for("console"));
    ck_assert_ptr_null(gt_report_writer_for("yaml"));
    ck_assert_ptr_null(gt_report_writer_for(NULL));
}
END_TEST

START_TEST(escaping_helpers)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    gt_report_json_string_n(out, "a\0b\xc0\x80\xed\xa0\x80\xf4\x90\x80\x80\x7f", 13);
    fclose(out);
    /* NUL escaped; overlong, surrogate and > U+10FFFF bytes each become U+FFFD */
    ck_assert_str_eq(text, "\"a\\u0000b\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\u007f\"");
    free(text);

    out = open_memstream(&text, &len);
    gt_report_xml_text(out, "\t\r\n\"'\xef\xbf\xbe&", true);
    fputc('|', out);
    gt_report_xml_text(out, "\t\r\n\"'&", false);
    fclose(out);
    ck_assert_str_eq(text, "&#9;&#13;&#10;&quot;&apos;\xef\xbf\xbd&amp;|\t&#13;\n\"'&amp;");
    free(text);

    out = open_memstream(&text, &len);
    gt_report_console_text(out, "ok \xc2\x9b" "31m \xe2\x9c\x93");
    fclose(out);
    ck_assert_str_eq(text, "ok \\u009b31m \xe2\x9c\x93"); /* C1 CSI shown, a check mark kept */
    free(text);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("report");
    TCase *writers = tcase_create("writers");
    tcase_add_test(writers, json_report_parses_and_has_every_field);
    tcase_add_test(writers, json_report_of_an_empty_run_parses);
    tcase_add_test(writers, junit_escapes_markup_and_forbidden_characters);
    tcase_add_test(writers, console_table_counts_and_escapes);
    tcase_add_test(writers, writer_lookup);
    tcase_add_test(writers, escaping_helpers);
    suite_add_tcase(suite, writers);
    return suite;
}

GT_TEST_MAIN()
