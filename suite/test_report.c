/* test_report.c — report writers: the JSON report parses and has every
 * documented field and reads back to the same report; JUnit, TAP, Markdown,
 * HTML and the console escape injection strings, control bytes and invalid
 * UTF-8 (each escaper is tested on its own too); the console table, the
 * attempt-accounting table, the baseline lists and the certification
 * footer; SHA-256 and base64 against known vectors; JUnit, TAP, Markdown and
 * HTML show the verdict model (not-applicable cases counted, never listed or
 * run as tests; classes on failures, unsafe first; other-reason passes apart;
 * profiles claimed and coverage). */
#include <cJSON.h>
#include <math.h>
#include <string.h>

#include "gauntlet/runner/report.h"
#include "gt_test.h"
#include "gauntlet/util.h"
#include "reports/report_util.h"

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
    "\"accept\", \"subtype\": \"success\", \"accounting\": {\"attempts_used\": 2, \"model_calls\": 2}}},\n"
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

static char *render_info(gt_report_writer writer, const gt_run *run, const gt_report_info *info)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert_int_eq(writer(out, run, info), 0);
    fclose(out);
    return text;
}

static char *render(gt_report_writer writer, const gt_run *run)
{
    return render_info(writer, run, NULL);
}

static int console_colour(FILE *out, const gt_run *run, const gt_report_info *info)
{
    return gt_report_console(out, run, info, true);
}

static gt_baseline_diff *sample_diff(void)
{
    gt_baseline_diff *diff = calloc(1, sizeof *diff);
    diff->file = strdup("base<line>.json");
    diff->baseline_cases = 5;
    diff->not_run = 1;
    diff->entries = calloc(2, sizeof *diff->entries);
    diff->entries[0] = (gt_baseline_entry){strdup("structure.types.fail"), GT_BASELINE_REGRESSED, GT_OUTCOME_PASS,
                                           GT_OUTCOME_FAIL};
    diff->entries[1] = (gt_baseline_entry){strdup("syntax.fence.pass"), GT_BASELINE_FIXED, GT_OUTCOME_FAIL,
                                           GT_OUTCOME_PASS};
    diff->entry_count = 2;
    diff->counts[GT_BASELINE_REGRESSED] = diff->counts[GT_BASELINE_FIXED] = 1;
    return diff;
}

static gt_report_info sample_info(const gt_baseline_diff *diff)
{
    return (gt_report_info){.command = "gauntlet run --target 'adapter:./v <x>' --report json:r.json",
                            .corpus_version = "2026.1",
                            .corpus_sha256 = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
                            .corpus_cases = 9,
                            .selected_cases = 4,
                            .baseline = diff,
                            .certify = true};
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
    /* the Ant schema allows no attribute on <testsuites> */
    ck_assert_ptr_nonnull(strstr(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"));
    /* name, classname and time only; file and line live in the suite's properties */
    ck_assert_ptr_nonnull(strstr(text, "<testcase name=\"syntax.fence.pass\" classname=\"gauntlet.syntax.fence\" "
                                       "time=\"0.000250\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"location:syntax.fence.pass\" "
                                       "value=\"corpus/&lt;evil&gt;&amp;&quot;dir&quot;/r.cases.json:3\"/>"));
    ck_assert_ptr_null(strstr(text, " line=\""));
    ck_assert_ptr_null(strstr(text, " file=\""));
    ck_assert_ptr_nonnull(strstr(text, "<testsuite name=\"syntax\" package=\"gauntlet.syntax\" id=\"0\" "
                                       "timestamp=\"2026-01-02T03:04:05\" hostname=\""));
    ck_assert_ptr_nonnull(strstr(text, "tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.001000\">"));
    ck_assert_uint_eq(gt_test_count_of(text, "<testsuite "), 4); /* syntax, structure, loop, corpus */
    ck_assert_uint_eq(gt_test_count_of(text, "</testsuite>"), 4);
    ck_assert_uint_eq(gt_test_count_of(text, "<system-out>"), 4);
    ck_assert_uint_eq(gt_test_count_of(text, "<system-err/>"), 4);
    ck_assert_uint_eq(gt_test_count_of(text, "<failure "), 1);
    ck_assert_uint_eq(gt_test_count_of(text, "<error "), 2);
    ck_assert_uint_eq(gt_test_count_of(text, "<skipped "), 1);
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"target\" value=\"adapter:./vendor --x &apos;&lt;y&gt;&apos;\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<error type=\"load_problem\""));
    /* a failure's body: why, where, expected, observed (with errors) and the input */
    ck_assert_ptr_nonnull(strstr(text, "type=\"unsafe\">expected reject structure/type, observed accept\n"
                                       "at: corpus/&lt;evil&gt;&amp;\"dir\"/r.cases.json:6\n"
                                       "expected: reject structure/type\n"
                                       "observed: accept\n"
                                       "observed error: /a\"b type: expected integer, got \"4\" \xef\xbf\xbd\n"
                                       "input (2 bytes):\n{}</failure>"));
    free(text);
    gt_report_info info = sample_info(NULL);
    text = render_info(gt_report_junit, run, &info);
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"command\" value=\"gauntlet run --target &apos;adapter:./v "
                                       "&lt;x&gt;&apos; --report json:r.json\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"corpus_sha256\" value=\"0011"));
    ck_assert_ptr_nonnull(strstr(text, "<system-out>reproduce: gauntlet run --target 'adapter:./v &lt;x&gt;'"));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* The same hand-made run (injection strings, forbidden characters, a
 * failure, an error, a skip, a load problem) is valid against the Apache Ant
 * JUnit schema, with and without run information. */
START_TEST(junit_valid_against_ant_schema)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    gt_report_info info = sample_info(NULL);
    for (int with_info = 0; with_info < 2; with_info++) {
        char path[] = "/tmp/gt-junit-XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        FILE *out = fdopen(fd, "w");
        ck_assert_int_eq(gt_report_junit(out, run, with_info ? &info : NULL), 0);
        fclose(out);
        ck_assert_int_eq(gt_test_junit_validate(path), 0);
        unlink(path);
    }
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
                                       "accept [unsafe]\n"));
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
    ck_assert_ptr_eq(gt_report_writer_for("tap"), gt_report_tap);
    ck_assert_ptr_eq(gt_report_writer_for("html"), gt_report_html);
    ck_assert_ptr_eq(gt_report_writer_for("md"), gt_report_markdown);
    ck_assert_ptr_eq(gt_report_writer_for("markdown"), gt_report_markdown);
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

/* ---- escapers ------------------------------------------------------------ */

static char *capture_html(const char *text, size_t len)
{
    char *out_text = NULL;
    size_t out_len = 0;
    FILE *out = open_memstream(&out_text, &out_len);
    gt_report_html_text_n(out, text, len);
    fclose(out);
    return out_text;
}

START_TEST(html_escaper_neutralises_markup_and_bytes)
{
    char *text = capture_html("<script>alert('x')</script>", 27);
    ck_assert_str_eq(text, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
    free(text);
    text = capture_html("</script><img src=x onerror=\"a&b\">", 34);
    ck_assert_str_eq(text, "&lt;/script&gt;&lt;img src=x onerror=&quot;a&amp;b&quot;&gt;");
    free(text);
    /* NUL, SOH, ESC, DEL, a C1 CSI, tab and newline kept */
    text = capture_html("a\0b\x01\x1b[31m\x7f\xc2\x9b\t\n", 14);
    ck_assert_str_eq(text, "a\\x00b\\x01\\x1b[31m\\x7f\\u009b\t\n");
    free(text);
    /* invalid UTF-8 (stray continuation, overlong, surrogate, truncated), U+2028/2029, U+FFFE */
    static const char invalid[] = "\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x82|\xe2\x80\xa8\xe2\x80\xa9|\xef\xbf\xbe|\xe2\x9c\x93";
    text = capture_html(invalid, sizeof invalid - 1);
    ck_assert_str_eq(text, "&#xfffd;|&#xfffd;&#xfffd;|&#xfffd;&#xfffd;&#xfffd;|&#xfffd;&#xfffd;|&#x2028;&#x2029;|"
                           "&#xfffd;|\xe2\x9c\x93");
    free(text);
    /* the result never holds a byte that could open markup or an attribute */
    static const char every_byte[] = "<>&\"'`=/\\";
    text = capture_html(every_byte, sizeof every_byte - 1);
    ck_assert_ptr_null(strpbrk(text, "<>\"'"));
    free(text);
}
END_TEST

static char *capture_md(const char *value)
{
    char *out_text = NULL;
    size_t out_len = 0;
    FILE *out = open_memstream(&out_text, &out_len);
    gt_report_md_code(out, value);
    fclose(out);
    return out_text;
}

START_TEST(markdown_code_span_is_inert)
{
    char *text = capture_md("<img src=x onerror=alert(1)> @octocat [x](javascript:y) | *b*");
    ck_assert_str_eq(text, "` <img src=x onerror=alert(1)> @octocat [x](javascript:y) \\| *b* `");
    free(text);
    text = capture_md("a``b`c\nd\x01\xff");
    ck_assert_str_eq(text, "``` a``b`c\\nd\\x01\xef\xbf\xbd ```");
    free(text);
    text = capture_md(NULL);
    ck_assert_str_eq(text, "`  `");
    free(text);
}
END_TEST

START_TEST(visible_raw_input_marks_invisible_bytes)
{
    static const char raw[] = "\xef\xbb\xbf{\"a\": \"\0\xe2\x80\x8b\xff\xe2\x80\xae\xc2\xa0\"}\r\n<b>";
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    gt_report_visible(out, (const unsigned char *)raw, sizeof raw - 1, false);
    fclose(out);
    ck_assert_str_eq(text, "\xe2\x9f\xa8U+FEFF BOM\xe2\x9f\xa9{\"a\": \"\xe2\x9f\xa8NUL\xe2\x9f\xa9\xe2\x9f\xa8U+200B "
                           "ZWSP\xe2\x9f\xa9\xe2\x9f\xa8\\xff\xe2\x9f\xa9\xe2\x9f\xa8U+202E RLO\xe2\x9f\xa9\xe2\x9f\xa8U+00A0 "
                           "NBSP\xe2\x9f\xa9\"}\xe2\x9f\xa8" "CR\xe2\x9f\xa9\xe2\x9f\xa8LF\xe2\x9f\xa9\n<b>");
    free(text);
    out = open_memstream(&text, &len);
    gt_report_visible(out, (const unsigned char *)raw, sizeof raw - 1, true);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "<span class=\"m\">\xe2\x9f\xa8NUL\xe2\x9f\xa9</span>"));
    ck_assert_ptr_nonnull(strstr(text, "&lt;b&gt;"));
    ck_assert_ptr_null(strstr(text, "<b>"));
    free(text);
}
END_TEST

START_TEST(base64_and_sha256)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    gt_report_base64_json(out, (const unsigned char *)"\0\xff" "ab", 4);
    fclose(out);
    ck_assert_str_eq(text, "\"AP9hYg==\"");
    free(text);
    size_t decoded_len = 0;
    unsigned char *decoded = gt_report_base64_decode("AP9hYg==", &decoded_len);
    ck_assert_uint_eq(decoded_len, 4);
    ck_assert(memcmp(decoded, "\0\xff" "ab", 4) == 0);
    free(decoded);
    ck_assert_ptr_null(gt_report_base64_decode("AP9hYh==", &decoded_len)); /* non-zero padding bits */
    ck_assert_ptr_null(gt_report_base64_decode("AP9", &decoded_len));
    ck_assert_ptr_null(gt_report_base64_decode("A*9h", &decoded_len));
    /* white space is not base64 here (libnettle's decoder would skip it: docs/architecture.md) */
    ck_assert_ptr_null(gt_report_base64_decode("AP9 hYg=", &decoded_len));
    ck_assert_ptr_null(gt_report_base64_decode("AP9\nhYg=", &decoded_len));

    char hex[65];
    gt_sha256 sha;
    gt_sha256_init(&sha);
    gt_sha256_hex(&sha, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    gt_sha256_init(&sha);
    gt_sha256_update(&sha, "abc", 3);
    gt_sha256_hex(&sha, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    gt_sha256_init(&sha);
    for (int i = 0; i < 1000; i++)
        gt_sha256_update(&sha, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                         1000);
    gt_sha256_hex(&sha, hex); /* one million 'a' (FIPS 180-2 appendix B.3) */
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

/* The corpus hash of a small fixed corpus, pinned with the hand-written SHA-256
 * it had before libnettle computed it: the hash names a corpus across gauntlet
 * versions, so whichever library computes it must give the same digits. */
START_TEST(corpus_hash_is_pinned)
{
    static const char text[] =
        "{\"format\": \"gauntlet-corpus/1\", \"cases\": ["
        "{\"id\": \"nul\", \"gate\": \"syntax\", \"category\": \"c\", "
        "\"input\": \"{\\\"a\\\": \\\"x\\u0000y\\\"}\\r\\n\", "
        "\"expect\": {\"verdict\": \"reject\", \"gate\": \"syntax\", \"reason\": \"control_character\"}},"
        "{\"id\": \"schema-ok\", \"gate\": \"structure\", \"category\": \"type\", "
        "\"schema\": {\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\", \"minimum\": 0}}}, "
        "\"input\": \"{\\\"n\\\": 3, \\\"note\\\": \\\"caf\\u00e9 \\u2014 a string long enough to span a block\\\"}\", "
        "\"expect\": {\"verdict\": \"accept\"}}]}";
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "pinned.cases.json", text, sizeof text - 1), 2);
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 0);
    char hex[65];
    gt_report_corpus_hash(corpus, hex);
    ck_assert_str_eq(hex, "03cfd995cfb8b1089b9b34b5712044dc2f9ab136479b32229b92cd8d3915ee78");
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(split_name_and_pass_rate)
{
    char name[64], version[64];
    gt_report_split_name("acme-guard 2.3.1", name, sizeof name, version, sizeof version);
    ck_assert_str_eq(name, "acme-guard");
    ck_assert_str_eq(version, "2.3.1");
    gt_report_split_name("naive node v18.1", name, sizeof name, version, sizeof version);
    ck_assert_str_eq(name, "naive node");
    ck_assert_str_eq(version, "v18.1");
    gt_report_split_name("reference", name, sizeof name, version, sizeof version);
    ck_assert_str_eq(name, "reference");
    ck_assert_str_eq(version, "");
    gt_run_counts row = {.cases = 10, .pass = 6, .fail = 2, .skip = 2};
    ck_assert(gt_report_pass_rate(&row) == 0.75);
    gt_run_counts skipped = {.cases = 3, .skip = 3};
    ck_assert(gt_report_pass_rate(&skipped) < 0);
}
END_TEST

/* ---- writers with run information ---------------------------------------- */

START_TEST(json_report_has_certification_baseline_and_details)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    run->results[2].observed.has_accounting = true;
    gt_accounting_init(&run->results[2].observed.accounting);
    run->results[2].observed.accounting.attempts_used = 3;
    run->results[1].observed.transcript = strdup("turn 1 </script>\n");
    run->results[3].outcome = GT_OUTCOME_FAIL; /* a loop case that ran: its accounting counts */
    gt_baseline_diff *diff = sample_diff();
    gt_report_info info = sample_info(diff);
    char *text = render_info(gt_report_json, run, &info);
    assert_clean_utf8(text, false);
    ck_assert_ptr_null(strstr(text, "<"));
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    ck_assert_str_eq(json_str(root, "command"), info.command);
    const cJSON *corpus_info = cJSON_GetObjectItemCaseSensitive(root, "corpus");
    ck_assert_str_eq(json_str(corpus_info, "format"), "gauntlet-corpus/1");
    ck_assert_str_eq(json_str(corpus_info, "version"), "2026.1");
    ck_assert_str_eq(json_str(corpus_info, "sha256"), info.corpus_sha256);
    ck_assert(json_num(corpus_info, "cases") == 9 && json_num(corpus_info, "selected") == 4);
    assert_null(root, "shard");
    const cJSON *cert = cJSON_GetObjectItemCaseSensitive(root, "certification");
    const cJSON *impl = cJSON_GetObjectItemCaseSensitive(cert, "implementation");
    ck_assert_str_eq(json_str(impl, "name"), "vendor \"impl\" <1.0>"); /* "<1.0>" is no version */
    assert_null(impl, "version");
    cJSON_Delete(root);
    free(text);

    /* pass rates: syntax 1 pass of 2 judged, structure 0 of 1, loop 0 of 1, wire none */
    free(run->target_name);
    run->target_name = strdup("vendor-impl 1.0.2");
    text = render_info(gt_report_json, run, &info);
    root = cJSON_Parse(text);
    cert = cJSON_GetObjectItemCaseSensitive(root, "certification");
    impl = cJSON_GetObjectItemCaseSensitive(cert, "implementation");
    ck_assert_str_eq(json_str(impl, "name"), "vendor-impl");
    ck_assert_str_eq(json_str(impl, "version"), "1.0.2");
    const cJSON *rates = cJSON_GetObjectItemCaseSensitive(cert, "pass_rates");
    ck_assert(json_num(rates, "syntax") == 0.5);
    ck_assert(json_num(rates, "structure") == 0);
    ck_assert(json_num(rates, "loop") == 0);
    assert_null(rates, "wire");
    ck_assert(json_num(rates, "total") == 0.25);
    const cJSON *accounting = cJSON_GetObjectItemCaseSensitive(cert, "accounting");
    ck_assert(json_num(accounting, "cases") == 1 && json_num(accounting, "missing") == 1);
    ck_assert(json_num(cJSON_GetObjectItemCaseSensitive(accounting, "expected"), "attempts_used") == 2);
    ck_assert_str_eq(json_str(cert, "command"), info.command);

    const cJSON *baseline = cJSON_GetObjectItemCaseSensitive(root, "baseline");
    ck_assert_str_eq(json_str(baseline, "file"), "base<line>.json");
    ck_assert(json_num(baseline, "not_run") == 1);
    ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(baseline, "regressed"), 0)->valuestring,
                     "structure.types.fail");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(baseline, "new")), 0);

    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    const cJSON *pass = cJSON_GetArrayItem(cases, 0), *fail = cJSON_GetArrayItem(cases, 1),
                *loop = cJSON_GetArrayItem(cases, 3);
    ck_assert(json_num(fail, "index") == 1);
    assert_null(pass, "input_base64");               /* passing cases stay small */
    ck_assert_str_eq(json_str(fail, "input_base64"), "e30="); /* "{}" */
    ck_assert_str_eq(json_str(cJSON_GetObjectItemCaseSensitive(fail, "observed"), "transcript"),
                     "turn 1 </script>\n");
    const cJSON *loop_expected = cJSON_GetObjectItemCaseSensitive(loop, "expected");
    ck_assert_str_eq(json_str(loop_expected, "subtype"), "success");
    const cJSON *figures = cJSON_GetObjectItemCaseSensitive(loop_expected, "accounting");
    ck_assert(json_num(figures, "attempts_used") == 2 && json_num(figures, "model_calls") == 2);
    assert_null(figures, "retracted");
    assert_null(cJSON_GetObjectItemCaseSensitive(loop, "observed"), "accounting");
    const cJSON *error_observed = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cases, 2), "observed");
    ck_assert(json_num(cJSON_GetObjectItemCaseSensitive(error_observed, "accounting"), "attempts_used") == 3);
    cJSON_Delete(root);
    free(text);

    /* a shard report numbers its cases by their place in the whole selection */
    info.shard_index = 2;
    info.shard_count = 3;
    text = render_info(gt_report_json, run, &info);
    root = cJSON_Parse(text);
    const cJSON *shard = cJSON_GetObjectItemCaseSensitive(root, "shard");
    ck_assert(json_num(shard, "index") == 2 && json_num(shard, "count") == 3);
    cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    ck_assert(json_num(cJSON_GetArrayItem(cases, 0), "index") == 1);
    ck_assert(json_num(cJSON_GetArrayItem(cases, 2), "index") == 7);
    cJSON_Delete(root);
    free(text);
    gt_baseline_diff_free(diff);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(json_report_reads_back_to_the_same_report)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    run->results[1].observed.transcript = strdup("t\n");
    run->results[1].observed.output_json = strdup("{\"a\":1}");
    run->results[1].observed.subtype = strdup("success");
    run->results[1].observed.has_accounting = true;
    gt_accounting_init(&run->results[1].observed.accounting);
    run->results[1].observed.accounting.model_calls = 4;
    gt_report_info info = sample_info(NULL);
    char *first = render_info(gt_report_json, run, &info);
    char err[256] = "";
    gt_report_doc *doc = gt_report_load_text("mem", first, strlen(first), err, sizeof err);
    ck_assert_msg(doc != NULL, "%s", err);
    char *second = render_info(gt_report_json, gt_report_doc_run(doc), gt_report_doc_info(doc));
    cJSON *a = cJSON_Parse(first), *b = cJSON_Parse(second);
    ck_assert_msg(cJSON_Compare(a, b, true), "round trip differs:\n%s\n---\n%s", first, second);
    /* every other writer formats the read-back run too */
    static const char *const formats[] = {"console", "junit", "tap", "html", "md"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        char *one = render_info(gt_report_writer_for(formats[i]), run, &info);
        char *two = render_info(gt_report_writer_for(formats[i]), gt_report_doc_run(doc), gt_report_doc_info(doc));
        ck_assert(one[0] != '\0' && two[0] != '\0');
        free(one);
        free(two);
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
    free(second);
    free(first);
    gt_report_doc_free(doc);

    ck_assert_ptr_null(gt_report_load_text("x", "{\"format\": \"other\"}", 19, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "format"));
    ck_assert_ptr_null(gt_report_load_text("x", "[1]", 3, err, sizeof err));
    static const char bad_case[] = "{\"format\": \"gauntlet-report/1\", \"cases\": [{\"id\": 3}]}";
    ck_assert_ptr_null(gt_report_load_text("x", bad_case, sizeof bad_case - 1, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "id"));
    ck_assert_ptr_null(gt_report_load("/nonexistent/r.json", err, sizeof err));
    static const char negative[] = "{\"format\": \"gauntlet-report/1\", \"cases\": [{\"id\": \"a\", \"gate\": "
                                   "\"syntax\", \"outcome\": \"pass\", \"index\": -1}]}";
    ck_assert_ptr_null(gt_report_load_text("x", negative, sizeof negative - 1, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "index"));
    static const char huge[] = "{\"format\": \"gauntlet-report/1\", \"shard\": {\"index\": 1e300, \"count\": 2}, "
                               "\"cases\": []}";
    ck_assert_ptr_null(gt_report_load_text("x", huge, sizeof huge - 1, err, sizeof err));
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(tap_report)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    char *text = render(gt_report_tap, run);
    assert_clean_utf8(text, false);
    ck_assert_ptr_nonnull(strstr(text, "TAP version 13\n1..5\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nok 1 - syntax.fence.pass\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nnot ok 2 - structure.types.fail\n  ---\n  outcome: \"fail\"\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nnot ok 3 - syntax.utf8.error\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nok 4 - loop.retries.skip # SKIP no loop layer\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nnot ok 5 - corpus problem corpus/<evil>&\"dir\"/r.cases.json:10\n"));
    ck_assert_ptr_nonnull(strstr(text, "  message: \"crash \\u0001\\u001b[31m red \\ufffd\\ufffd \\u003c/script"));
    ck_assert_uint_eq(gt_test_count_of(text, "  ---\n"), 3);
    ck_assert_uint_eq(gt_test_count_of(text, "  ...\n"), 3);
    free(text);

    /* '#' in a description is escaped so it cannot become a directive */
    run->results[1].note = (free(run->results[1].note), strdup("x # TODO y\nok 9 - fake"));
    run->results[1].outcome = GT_OUTCOME_SKIP;
    text = render(gt_report_tap, run);
    ck_assert_ptr_nonnull(strstr(text, "# SKIP x \\# TODO y\\x0aok 9 - fake\n"));
    ck_assert_ptr_null(strstr(text, "\nok 9"));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(markdown_report)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    run->results[2].observed.has_accounting = true;
    gt_accounting_init(&run->results[2].observed.accounting);
    run->results[2].observed.accounting.attempts_used = 3;
    { /* the case gives a figure: it has accounting to compare */
        gt_case *kase = (gt_case *)run->results[2].kase;
        kase->expect.accounting_given = true;
        gt_accounting_init(&kase->expect.accounting);
        kase->expect.accounting.attempts_used = 3;
    }
    gt_baseline_diff *diff = sample_diff();
    gt_report_info info = sample_info(diff);
    char *text = render_info(gt_report_markdown, run, &info);
    assert_clean_utf8(text, false);
    ck_assert_ptr_nonnull(strstr(text, "## gauntlet \xe2\x9d\x8c: 1 passed, 2 failed, 1 skipped\n"));
    ck_assert_ptr_nonnull(strstr(text, "1 regression against the baseline."));
    ck_assert_ptr_nonnull(strstr(text, "| syntax | 2 | 1 | 0 | 1 | 0 | 50.00% |\n"));
    ck_assert_ptr_nonnull(strstr(text, "| loop | 1 | 0 | 0 | 0 | 1 | n/a |\n"));
    ck_assert_ptr_nonnull(strstr(text, "| reproduce | ` gauntlet run --target 'adapter:./v <x>' --report json:r.json ` |"));
    ck_assert_ptr_nonnull(strstr(text, "sha256 ` 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff ` (9 "
                                       "cases, 4 selected)"));
    ck_assert_ptr_nonnull(strstr(text, "- regressed ` structure.types.fail ` (pass \xe2\x86\x92 fail)"));
    ck_assert_ptr_nonnull(strstr(text, "### Attempt accounting"));
    ck_assert_ptr_nonnull(strstr(text, "|  | ` syntax.utf8.error ` | 3 / 3 | - / - |"));
    ck_assert_ptr_null(strstr(text, "| ` loop.retries.skip ` | 2 / ? |")); /* skipped: nothing to compare */
    ck_assert_ptr_nonnull(strstr(text,
                                 "| ` syntax.utf8.error ` | accept | \xe2\x80\x94 | ` crash \\x01\\x1b[31m "
                                 "red \xef\xbf\xbd\xef\xbf\xbd </script><script>alert(1)</script> \\u2028 end ` |"));
    ck_assert_ptr_nonnull(strstr(text, "### Corpus problems (1)"));
    /* outside code spans nothing from the corpus appears */
    const char *script = strstr(text, "<script>");
    ck_assert(script != NULL && strstr(script + 1, "<script>") == NULL); /* only the one inside the note's span */
    free(text);
    gt_baseline_diff_free(diff);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* Markdown for a job summary: failures first (before the gate table), skips
 * collapsed into one row per reason inside <details>, after everything. */
START_TEST(markdown_failures_first_and_skips_collapsed)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    run->results[0].outcome = GT_OUTCOME_SKIP; /* a second skip with the same reason */
    run->results[0].note = dup_text("no loop layer");
    char *text = render(gt_report_markdown, run);
    const char *failures = strstr(text, "### Failures (2)\n\n#### unsafe (1): accepted what must be refused");
    const char *gates = strstr(text, "| gate | cases |");
    const char *skips = strstr(text, "<details><summary>2 skipped</summary>\n\n| cases | reason | first case |\n"
                                     "|---|---|---|\n| 2 | ` no loop layer ` | ` syntax.fence.pass ` |\n\n</details>\n");
    ck_assert_ptr_nonnull(failures);
    ck_assert_ptr_nonnull(gates);
    ck_assert_ptr_nonnull(skips);
    ck_assert(failures < gates && gates < skips);
    ck_assert_ptr_nonnull(strstr(failures, "| ` structure.types.fail ` | reject ` structure ` ` type ` | accept |"));
    ck_assert_ptr_nonnull(strstr(failures, "\n#### error (1): "));
    ck_assert(strstr(failures, "#### unsafe") < strstr(failures, "#### error"));
    ck_assert_ptr_null(strstr(text, "\n| skip | `")); /* skips are never listed one by one */
    free(text);
    /* a green run has neither section */
    for (size_t i = 0; i < run->count; i++)
        run->results[i].outcome = GT_OUTCOME_PASS;
    text = render(gt_report_markdown, run);
    ck_assert_ptr_null(strstr(text, "### Failures"));
    ck_assert_ptr_null(strstr(text, "<details>"));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* The HTML report people read: a bar per gate, failures before the folded
 * skips, and a gate matrix that is not red when the rejections were the
 * ones the cases asked for. */
START_TEST(html_report_charts_and_order)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    run->results[0].observed.gates[GT_GATE_SYNTAX] = GT_GATE_FAILED; /* the pass: an expected rejection */
    char *text = render(gt_report_html, run);
    ck_assert_ptr_nonnull(strstr(text, "<svg class=\"chart\" role=\"img\" aria-label=\"pass, fail, error and skip per gate\""));
    ck_assert_ptr_nonnull(strstr(text, "<title>total: 1 passed</title>"));
    ck_assert_ptr_nonnull(strstr(text, "<title>total: 1 skipped</title>"));
    const char *failure = strstr(text, "structure.types.fail");
    const char *skips = strstr(text, "<div class=\"klass\" id=\"g-skip\">\n<details class=\"cases\"><summary>1 "
                                     "skipped case</summary>");
    ck_assert_ptr_nonnull(failure);
    ck_assert_ptr_nonnull(skips);
    ck_assert(strstr(failure, "<section") < skips || strstr(text, "<section") < skips);
    /* syntax row: the expected rejection is grey, not red */
    ck_assert_ptr_nonnull(strstr(text, "<span class=\"rej\">1</span>"));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* The page's one script: exactly one <script> element, just before </body>,
 * holding no '<' (so it cannot end itself early or read as markup), and the
 * CSP allows exactly its bytes: script-src 'sha256-<base64 of its SHA-256>',
 * computed here from the page, not taken from the writer. */
static void assert_own_script(const char *text)
{
    const char *open = strstr(text, "<script>");
    ck_assert_ptr_nonnull(open);
    ck_assert_ptr_null(strstr(open + 1, "<script"));
    const char *body = open + strlen("<script>"), *close = strstr(body, "</script>");
    ck_assert_ptr_nonnull(close);
    ck_assert_ptr_eq(strstr(text, "<script"), open);
    ck_assert_msg(strncmp(close, "</script>\n</body>\n</html>\n", 26) == 0, "the script is not last in the body");
    ck_assert_msg(memchr(body, '<', (size_t)(close - body)) == NULL, "the script holds a '<'");
    gt_sha256 sha;
    unsigned char digest[GT_SHA256_SIZE];
    gt_sha256_init(&sha);
    gt_sha256_update(&sha, body, (size_t)(close - body));
    gt_sha256_digest(&sha, digest);
    char *encoded = gt_base64_encode(digest, sizeof digest), csp[200];
    snprintf(csp, sizeof csp,
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-%s'; "
             "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n",
             encoded);
    free(encoded);
    ck_assert_msg(strstr(text, csp) != NULL, "the CSP does not name the script's hash: want %s", csp);
}

/* Every '<' in the page opens one of the page's own elements. */
static void assert_only_own_markup(const char *text)
{
    static const char *const own[] = {"!DOCTYPE", "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3",
                                      "p", "strong", "table", "tr", "th", "td", "code", "span", "pre", "section",
                                      "dl", "dt", "dd", "br", "details", "summary", "svg", "rect", "text", "ul", "li",
                                      "a", "div", "label", "select", "option", "input", "script"};
    assert_own_script(text);
    for (const char *at = strchr(text, '<'); at != NULL; at = strchr(at + 1, '<')) {
        const char *name = at + 1 + (at[1] == '/');
        size_t len = strcspn(name, " >");
        bool known = false;
        for (size_t i = 0; i < sizeof own / sizeof own[0] && !known; i++)
            known = strlen(own[i]) == len && strncmp(own[i], name, len) == 0;
        ck_assert_msg(known, "unexpected markup at: %.40s", at);
    }
}

START_TEST(html_report_escapes_everything)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    run->results[1].observed.transcript = strdup("<script>alert(2)</script>\n\x1b[2J");
    run->results[1].observed.output_json = strdup("{\"x\":\"<img src=x onerror=alert(3)>\"}");
    run->results[2].observed.has_accounting = true;
    gt_accounting_init(&run->results[2].observed.accounting);
    run->results[2].observed.accounting.attempts_used = 3;
    { /* the case gives a figure: it has accounting to compare */
        gt_case *kase = (gt_case *)run->results[2].kase;
        kase->expect.accounting_given = true;
        gt_accounting_init(&kase->expect.accounting);
        kase->expect.accounting.attempts_used = 3;
    }
    gt_baseline_diff *diff = sample_diff();
    gt_report_info info = sample_info(diff);
    char *text = render_info(gt_report_html, run, &info);
    assert_clean_utf8(text, false);
    assert_only_own_markup(text);
    ck_assert_ptr_nonnull(strstr(text, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"));
    ck_assert_ptr_null(strstr(text, "http://"));
    ck_assert_ptr_null(strstr(text, "https://"));
    ck_assert_ptr_nonnull(strstr(text, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    ck_assert_ptr_nonnull(strstr(text, "&lt;img src=x onerror=alert(3)&gt;"));
    ck_assert_ptr_nonnull(strstr(text, "<h2>Per-gate results</h2>"));
    ck_assert_ptr_nonnull(strstr(text, "<h2>Gate matrix</h2>"));
    ck_assert_ptr_nonnull(strstr(text, "<h2>Attempt accounting</h2>"));
    ck_assert_ptr_nonnull(strstr(text, "<h2>Baseline</h2>"));
    ck_assert_ptr_nonnull(strstr(text, "<h2 id=\"not-passed\">Cases that did not pass (3)</h2>"));
    ck_assert_ptr_nonnull(strstr(text, "<h2>Corpus problems (1)</h2>"));
    ck_assert_ptr_nonnull(strstr(text, "<pre class=\"raw\">{}</pre>"));
    ck_assert_ptr_nonnull(strstr(text, "corpus/&lt;evil&gt;&amp;&quot;dir&quot;/r.cases.json"));
    ck_assert_ptr_nonnull(strstr(text, "<code>adapter:./vendor --x &#39;&lt;y&gt;&#39;</code>"));
    free(text);
    gt_baseline_diff_free(diff);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(console_accounting_baseline_and_certification)
{
    gt_corpus *corpus;
    gt_run *run = nasty_run(&corpus);
    run->results[2].observed.has_accounting = true;
    gt_accounting_init(&run->results[2].observed.accounting);
    run->results[2].observed.accounting.attempts_used = 3;
    gt_baseline_diff *diff = sample_diff();
    gt_report_info info = sample_info(diff);
    char *text = render_info(gt_report_writer_for("console"), run, &info);
    assert_clean_utf8(text, false);
    /* the case gives no figure: nothing to compare, no accounting line (one
     * definition of "a case with accounting" in every report) */
    ck_assert_ptr_null(strstr(text, "\nattempt accounting"));
    ck_assert_ptr_null(strstr(text, "! loop.retries.skip")); /* skipped: nothing to compare */
    {
        /* a figure that differs: the table lists that case */
        gt_case *kase = (gt_case *)run->results[2].kase;
        kase->expect.accounting_given = true;
        gt_accounting_init(&kase->expect.accounting);
        kase->expect.accounting.attempts_used = 2;
        char *table = render_info(gt_report_writer_for("console"), run, &info);
        ck_assert_ptr_nonnull(
            strstr(table, "\nattempt accounting: 1 of 1 cases differ (expected/observed; - not given, ? not reported)\n"));
        ck_assert_ptr_nonnull(strstr(table, "! syntax.utf8.error        2/3        -/-        -/-        -/-        -/-        -/-\n"));
        free(table);
    }
    ck_assert_ptr_nonnull(strstr(text, "\nbaseline base<line>.json: 1 regressed, 1 fixed, 0 new, 0 now skipped (5 "
                                       "baseline cases, 1 not run)\nREGRESSED structure.types.fail (pass -> fail)\n"
                                       "FIXED syntax.fence.pass (fail -> pass)\n"));
    ck_assert_msg(strstr(text, "\ncertification\n  verdict         not certified: 3 of 4 required cases did not pass (1 failed, 1 error, 1 skipped or not run)\n  implementation  vendor \"impl\" <1.0> (version not reported)\n") != NULL, "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "  pass rates      syntax 50.00% (1/2) structure 0.00% (0/1) loop n/a (0/0) "
                                       "total 33.33% (1/3)\n"));
    ck_assert_ptr_nonnull(strstr(text, "  reproduce       gauntlet run --target 'adapter:./v <x>' --report json:r.json\n"));
    /* the totals line stays last */
    ck_assert_ptr_nonnull(strstr(text, "\n1 passed, 2 failed, 1 skipped\n"));
    ck_assert_str_eq(text + strlen(text) - strlen("1 passed, 2 failed, 1 skipped\n"), "1 passed, 2 failed, 1 skipped\n");
    free(text);
    gt_baseline_diff_free(diff);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST


/* Tier and rules of each case reach every report; required and optional
 * pass rates are shown apart (a certificate rests on the required tier). */
START_TEST(tiers_in_every_report)
{
    static const char text[] =
        "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": \"loop\", \"category\": \"t\"},\n"
        " \"cases\": [\n"
        "  {\"id\": \"req.pass\", \"rules\": [\"S0-21\", \"RFC8259-6\"], \"expect\": {\"verdict\": \"accept\"}},\n"
        "  {\"id\": \"req.fail\", \"tier\": \"required\", \"expect\": {\"verdict\": \"accept\"}},\n"
        "  {\"id\": \"opt.pass\", \"tier\": \"optional\", \"rules\": [\"S0-24\"], \"expect\": {\"verdict\": "
        "\"accept\"}}]}\n";
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "suite/data/tiers/sub/r.cases.json", text, sizeof text - 1), 3);
    gt_run *run = calloc(1, sizeof *run);
    run->corpus = corpus;
    run->count = 3;
    run->results = calloc(3, sizeof *run->results);
    run->target = dup_text("reference");
    for (size_t i = 0; i < 3; i++) {
        run->results[i].kase = gt_corpus_case(corpus, i);
        run->results[i].outcome = i == 1 ? GT_OUTCOME_FAIL : GT_OUTCOME_PASS;
        run->results[i].observed.verdict = GT_VERDICT_ACCEPT;
    }
    gt_run_counts tiers[GT_TIER_COUNT];
    gt_run_count_tiers(run, tiers);
    ck_assert_uint_eq(tiers[GT_TIER_REQUIRED].cases, 2);
    ck_assert_uint_eq(tiers[GT_TIER_REQUIRED].fail, 1);
    ck_assert_uint_eq(tiers[GT_TIER_OPTIONAL].pass, 1);
    gt_report_info info = {.certify = true};

    char *json = render_info(gt_report_json, run, &info);
    cJSON *root = cJSON_Parse(json);
    ck_assert_ptr_nonnull(root);
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    const cJSON *first = cJSON_GetArrayItem(cases, 0), *third = cJSON_GetArrayItem(cases, 2);
    ck_assert_str_eq(json_str(first, "tier"), "required");
    ck_assert_str_eq(json_str(third, "tier"), "optional");
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(first, "rules");
    ck_assert_int_eq(cJSON_GetArraySize(rules), 2);
    ck_assert_str_eq(cJSON_GetArrayItem(rules, 1)->valuestring, "RFC8259-6");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cases, 1), "rules")), 0);
    const cJSON *tier_counts = cJSON_GetObjectItemCaseSensitive(root, "tiers");
    ck_assert_double_eq(json_num(cJSON_GetObjectItemCaseSensitive(tier_counts, "required"), "fail"), 1);
    ck_assert_double_eq(json_num(cJSON_GetObjectItemCaseSensitive(tier_counts, "optional"), "pass"), 1);
    const cJSON *rates =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "certification"), "tier_pass_rates");
    ck_assert_double_eq_tol(json_num(rates, "required"), 0.5, 1e-9);
    ck_assert_double_eq_tol(json_num(rates, "optional"), 1.0, 1e-9);

    /* read back: tier and rules survive */
    char err[256] = "";
    gt_report_doc *doc = gt_report_load_text("mem", json, strlen(json), err, sizeof err);
    ck_assert_msg(doc != NULL, "%s", err);
    const gt_run *back = gt_report_doc_run(doc);
    ck_assert_int_eq(back->results[2].kase->tier, GT_TIER_OPTIONAL);
    ck_assert_uint_eq(back->results[0].kase->rule_count, 2);
    ck_assert_str_eq(back->results[0].kase->rules[0], "S0-21");
    char *again = render_info(gt_report_json, back, &info);
    ck_assert_str_eq(again, json);
    free(again);
    gt_report_doc_free(doc);
    cJSON_Delete(root);
    free(json);

    char *console = render_info(gt_report_writer_for("console"), run, &info);
    ck_assert_ptr_nonnull(strstr(console, "\ntiers      required 50.00% (1/2), optional 100.00% (1/1)\n"));
    ck_assert_ptr_nonnull(strstr(console, "\n  required tier   50.00% (1/2)  (a certificate rests on the required tier"));
    ck_assert_ptr_nonnull(strstr(console, "\n  optional tier   100.00% (1/1)\n"));
    free(console);
    char *md = render_info(gt_report_markdown, run, &info);
    ck_assert_ptr_nonnull(strstr(md, "| required | 2 | 1 | 1 | 0 | 0 | 50.00% |\n| optional | 1 | 1 | 0 | 0 | 0 | 100.00% |\n"));
    ck_assert_ptr_nonnull(strstr(md, "| required tier | **50.00% (1/2)** (a certificate rests"));
    ck_assert_ptr_nonnull(strstr(md, "| optional tier | 100.00% (1/1) |"));
    free(md);
    char *html = render_info(gt_report_html, run, &info);
    assert_only_own_markup(html);
    ck_assert_ptr_nonnull(strstr(html, "<h2>Tiers</h2>"));
    ck_assert_ptr_nonnull(strstr(html, "<tr><th>optional</th><td class=\"n\">1</td>"));
    ck_assert_ptr_nonnull(strstr(html, "<tr><th>required tier</th><td><strong>50.00% (1/2)</strong>"));
    ck_assert_ptr_nonnull(strstr(html, "<dt>tier</dt><dd>required</dd>"));
    free(html);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(corpus_hash_is_content_not_paths)
{
    gt_corpus *a = gt_corpus_new(), *b = gt_corpus_new(), *c = gt_corpus_new();
    gt_corpus_load_text(a, "one/x.cases.json", corpus_text, sizeof corpus_text - 1);
    gt_corpus_load_text(b, "elsewhere/y.cases.json", corpus_text, sizeof corpus_text - 1);
    char changed[sizeof corpus_text];
    memcpy(changed, corpus_text, sizeof corpus_text);
    *strstr(changed, "```json") = '~'; /* one byte of one input */
    gt_corpus_load_text(c, "one/x.cases.json", changed, sizeof changed - 1);
    char ha[65], hb[65], hc[65];
    gt_report_corpus_hash(a, ha);
    gt_report_corpus_hash(b, hb);
    gt_report_corpus_hash(c, hc);
    ck_assert_uint_eq(strspn(ha, "0123456789abcdef"), 64);
    ck_assert_str_eq(ha, hb);
    ck_assert_str_ne(ha, hc);
    gt_corpus_free(a);
    gt_corpus_free(b);
    gt_corpus_free(c);
}
END_TEST

/* ---- verdict classes and profiles in every writer (issue 26) ------------ */

/* An other-reason note with injection text: it reaches every report. */
#define OTHER_NOTE                                                                                                     \
    "expected reject syntax/unexpected_end, observed reject syntax/unexpected_character (<script>alert(4)</script> "   \
    "\x01)"

static const char classes_text[] =
    "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"profiles\": [\"core\"]},\n"
    " \"cases\": [\n"
    "  {\"id\": \"structure.types.refused\", \"gate\": \"structure\", \"category\": \"types\", \"schema\": {},\n"
    "   \"input\": \"{}\", \"expect\": {\"verdict\": \"accept\"}},\n"
    "  {\"id\": \"syntax.dup.unsafe\", \"gate\": \"syntax\", \"category\": \"dup\", \"input\": \"{}\",\n"
    "   \"expect\": {\"verdict\": \"reject\", \"gate\": \"syntax\", \"reason\": \"duplicate_key\"}},\n"
    "  {\"id\": \"syntax.eof.other\", \"gate\": \"syntax\", \"category\": \"eof\", \"input\": \"{\",\n"
    "   \"expect\": {\"verdict\": \"reject\", \"gate\": \"syntax\", \"reason\": \"unexpected_end\"}},\n"
    "  {\"id\": \"syntax.ok.pass\", \"gate\": \"syntax\", \"category\": \"ok\", \"input\": \"{}\", \"expect\": "
    "{\"verdict\": \"accept\"}},\n"
    "  {\"id\": \"loop.attempts.not-applicable\", \"gate\": \"loop\", \"category\": \"attempts\", \"profiles\": "
    "[\"claude-code\"], \"expect\": {\"verdict\": \"accept\"}},\n"
    "  {\"id\": \"stream.cut.skip\", \"gate\": \"stream\", \"category\": \"cut\", \"expect\": {\"verdict\": "
    "\"reject\", \"gate\": \"stream\", \"reason\": \"truncated\"}}\n"
    " ]}\n";

/* A run of a target that claims core: a refused-valid fail (first in corpus
 * order), an unsafe fail, an other-reason pass, a pass, a not-applicable
 * claude-code case and a skip. With `reasons`, the target also claims
 * reasons and the other-reason case is a failure. */
static gt_run *classes_run(gt_corpus **corpus_out, bool reasons)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "corpus/c.cases.json", classes_text, sizeof classes_text - 1), 6);
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 0);
    gt_run *run = calloc(1, sizeof *run);
    run->corpus = corpus;
    run->count = 6;
    run->results = calloc(6, sizeof *run->results);
    run->target = dup_text("adapter:./mini");
    run->target_name = dup_text("mini 0.1");
    strcpy(run->started_at, "2026-01-02T03:04:05Z");
    run->jobs = 1;
    run->profiles = (1u << GT_PROFILE_CORE) | (reasons ? 1u << GT_PROFILE_REASONS : 0u);
    for (size_t i = 0; i < 6; i++)
        run->results[i].kase = gt_corpus_case(corpus, i);
    gt_case_result *refused = &run->results[0], *unsafe = &run->results[1], *other = &run->results[2],
                   *pass = &run->results[3], *na = &run->results[4], *skip = &run->results[5];
    refused->outcome = GT_OUTCOME_FAIL;
    refused->verdict_class = GT_CLASS_REFUSED_VALID;
    refused->note = dup_text("expected accept, observed reject structure/type");
    gt_observed_reject(&refused->observed, "structure", "type", "not an integer");
    unsafe->outcome = GT_OUTCOME_FAIL;
    unsafe->verdict_class = GT_CLASS_UNSAFE;
    unsafe->note = dup_text("expected reject syntax/duplicate_key, observed accept");
    unsafe->observed.verdict = GT_VERDICT_ACCEPT;
    other->outcome = reasons ? GT_OUTCOME_FAIL : GT_OUTCOME_PASS;
    other->verdict_class = GT_CLASS_OTHER_REASON;
    other->note = dup_text(OTHER_NOTE);
    gt_observed_reject(&other->observed, "syntax", "unexpected_character", "bad </pre><b>x</b>");
    pass->outcome = GT_OUTCOME_PASS;
    pass->observed.verdict = GT_VERDICT_ACCEPT;
    na->outcome = GT_OUTCOME_NOT_APPLICABLE;
    na->verdict_class = GT_CLASS_NOT_APPLICABLE;
    skip->outcome = GT_OUTCOME_SKIP;
    skip->verdict_class = GT_CLASS_SKIP;
    skip->note = dup_text("no stream layer");
    *corpus_out = corpus;
    return run;
}

/* A not-applicable case outside the claim is counted by its profile; one a
 * claimed profile holds (the client put it out: a stream fault it did not
 * stream) is counted apart, never as "in <unclaimed> only". */
START_TEST(not_applicable_to_the_client_is_counted_apart)
{
    gt_corpus *corpus;
    gt_run *run = classes_run(&corpus, false);
    char text[256];
    ck_assert_uint_eq(gt_report_not_applicable_to_client(run), 0);
    ck_assert_str_eq(gt_report_not_applicable_text(text, sizeof text, run), "claude-code 1");
    run->profiles |= 1u << GT_PROFILE_CLAUDE_CODE; /* now the case is in the claim */
    ck_assert_uint_eq(gt_report_not_applicable_to_client(run), 1);
    ck_assert_str_eq(gt_report_not_applicable_text(text, sizeof text, run),
                     "1 to this client: a stream fault it did not stream");
    char why[256];
    gt_report_certified(run, NULL, why, sizeof why);
    /* the certificate neither holds that case against the client nor counts it as not run */
    ck_assert_str_eq(why, "not certified: 3 of 5 required cases did not pass (2 failed, 0 errors, 1 skipped or not run); "
                          "1 more not applicable to this client");
    char *console = render_info(gt_report_writer_for("console"), run, NULL);
    ck_assert_msg(strstr(console, "; 1 case not applicable to this client (a stream fault it did not stream)\n") != NULL &&
                      strstr(console, " only)") == NULL,
                  "%s", console);
    free(console);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* JUnit: the not-applicable case is no test case (and its gate no suite);
 * the properties give the claim, the not-applicable count and the coverage;
 * a failure's type is its class; the other-reason pass is a passing test
 * case whose note is in the suite's <system-out>. Valid against the schema. */
START_TEST(junit_shows_classes_and_profiles)
{
    gt_corpus *corpus;
    gt_run *run = classes_run(&corpus, false);
    char path[] = "/tmp/gt-junit-classes-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *out = fdopen(fd, "w");
    ck_assert_int_eq(gt_report_junit(out, run, NULL), 0);
    fclose(out);
    ck_assert_int_eq(gt_test_junit_validate(path), 0);
    char *text = gt_test_slurp(path);
    unlink(path);
    assert_clean_utf8(text, false);
    ck_assert_ptr_null(strstr(text, "not-applicable"));
    ck_assert_ptr_null(strstr(text, "<testsuite name=\"loop\""));
    ck_assert_uint_eq(gt_test_count_of(text, "<testcase "), 5);
    ck_assert_uint_eq(gt_test_count_of(text, "<property name=\"profiles_claimed\" value=\"core\"/>"), 3);
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"profiles_not_claimed\" value=\"repair-loop,claude-code,"
                                       "sdk-transform,reasons\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"not_applicable\" value=\"1\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"not_applicable_by_profile\" value=\"claude-code 1\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"verdicts\" value=\"1 unsafe, 1 refused_valid, 0 figures, "
                                       "1 other_reason (passes: reasons is not claimed), 0 error, 1 skip\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<property name=\"coverage:core\" value=\"core: 4 of 5 required cases ran "
                                       "(80.0%), 2 passed; 1 skipped, 0 error\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<failure message=\"expected reject syntax/duplicate_key, observed accept "
                                       "[unsafe]\" type=\"unsafe\">"));
    ck_assert_ptr_nonnull(strstr(text, "<failure message=\"expected accept, observed reject structure/type "
                                       "[refused_valid]\" type=\"refused_valid\">"));
    ck_assert_ptr_null(strstr(text, "type=\"mismatch\""));
    ck_assert_ptr_nonnull(strstr(text, "<testcase name=\"syntax.eof.other\" classname=\"gauntlet.syntax.eof\" "
                                       "time=\"0.000000\"/>"));
    ck_assert_ptr_nonnull(strstr(text, "<system-out>other_reason (a pass: reasons is not claimed) syntax.eof.other: "
                                       "expected reject syntax/unexpected_end, observed reject "
                                       "syntax/unexpected_character (&lt;script&gt;alert(4)&lt;/script&gt; "
                                       "\xef\xbf\xbd)</system-out>"));
    ck_assert_ptr_null(strstr(text, "<script"));
    ck_assert_ptr_nonnull(strstr(text, "tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\""));
    free(text);

    /* claiming reasons, the other-reason case is a failure of that class */
    gt_run_free(run);
    gt_corpus_free(corpus);
    run = classes_run(&corpus, true);
    text = render(gt_report_junit, run);
    ck_assert_ptr_nonnull(strstr(text, "type=\"other_reason\""));
    ck_assert_ptr_nonnull(strstr(text, "tests=\"3\" failures=\"2\""));
    ck_assert_ptr_null(strstr(text, "other_reason (a pass"));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* TAP: the plan counts the applicable cases only; comments give the claim,
 * the not-applicable count and the coverage; each not ok carries its class;
 * the other-reason pass is an ok with a YAML block. */
START_TEST(tap_shows_classes_and_profiles)
{
    gt_corpus *corpus;
    gt_run *run = classes_run(&corpus, false);
    char *text = render(gt_report_tap, run);
    assert_clean_utf8(text, false);
    ck_assert_ptr_nonnull(strstr(text,
                                 "TAP version 13\n1..5\n"
                                 "# profiles claimed: core; not claimed: repair-loop, claude-code, sdk-transform, "
                                 "reasons\n"
                                 "# 1 case not applicable (never run, not test points): claude-code 1\n"
                                 "# verdicts: 1 unsafe, 1 refused_valid, 0 figures, 1 other_reason (passes: "
                                 "reasons is not claimed), 0 error, 1 skip\n"
                                 "# coverage core: 4 of 5 required cases ran (80.0%), 2 passed; 1 skipped, 0 error\n"
                                 "not ok 1 - structure.types.refused\n  ---\n  outcome: \"fail\"\n  class: "
                                 "\"refused_valid\"\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "\nnot ok 2 - syntax.dup.unsafe\n  ---\n  outcome: \"fail\"\n  class: \"unsafe\"\n"));
    ck_assert_ptr_nonnull(strstr(text,
                                 "\nok 3 - syntax.eof.other\n  ---\n  outcome: \"pass\"\n  class: \"other_reason\"\n"
                                 "  note: \"right verdict, other reason: a pass unless reasons is claimed\"\n"));
    ck_assert_ptr_nonnull(strstr(text, "  message: \"expected reject syntax/unexpected_end, observed reject "
                                       "syntax/unexpected_character (\\u003cscript\\u003ealert(4)"));
    ck_assert_ptr_nonnull(strstr(text, "\nok 4 - syntax.ok.pass\nok 5 - stream.cut.skip # SKIP no stream layer\n"));
    ck_assert_ptr_null(strstr(text, "not-applicable"));
    ck_assert_ptr_null(strstr(text, " 6 - "));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
    run = classes_run(&corpus, true);
    text = render(gt_report_tap, run);
    ck_assert_ptr_nonnull(
        strstr(text, "\nnot ok 3 - syntax.eof.other\n  ---\n  outcome: \"fail\"\n  class: \"other_reason\"\n"));
    ck_assert_ptr_nonnull(strstr(text, "other_reason (failures: reasons is claimed)"));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* Markdown: the headline has the claim, the not-applicable count by profile,
 * the coverage and the classes; failures are grouped by class, unsafe first;
 * the other-reason pass is listed apart; the not-applicable case is never
 * listed; the certification block has profiles, coverage and skips by reason. */
START_TEST(markdown_shows_classes_and_profiles)
{
    gt_corpus *corpus;
    gt_run *run = classes_run(&corpus, false);
    char *text = render(gt_report_markdown, run);
    assert_clean_utf8(text, false);
    ck_assert_ptr_nonnull(strstr(text,
                                 "## gauntlet \xe2\x9d\x8c: 2 passed, 2 failed, 1 skipped\n\n"
                                 "**Profiles** claimed: `core`; not claimed: `repair-loop`, `claude-code`, "
                                 "`sdk-transform`, `reasons`. 1 case not applicable, never run (claude-code 1).\n\n"
                                 "- core: 4 of 5 required cases ran (80.0%), 2 passed; 1 skipped, 0 error "
                                 "\xe2\x80\x94 **below 90%**\n\n"
                                 "**Verdicts:** **1 unsafe**, 1 refused_valid, 0 figures, 1 other_reason "
                                 "(passes: reasons is not claimed), 0 error, 1 skip.\n\n### Failures (2)\n"));
    const char *unsafe = strstr(text, "\n#### unsafe (1): accepted what must be refused");
    const char *refused = strstr(text, "\n#### refused_valid (1): refused what is valid");
    const char *other = strstr(text, "<details><summary>1 right verdict, other reason \xe2\x80\x94 a pass unless "
                                     "reasons is claimed</summary>\n\n| case | expected | observed | note |\n");
    const char *gates = strstr(text, "| gate | cases |");
    ck_assert(unsafe != NULL && refused != NULL && other != NULL && gates != NULL);
    ck_assert(unsafe < refused && refused < other && other < gates);
    ck_assert_ptr_nonnull(strstr(other, "| ` syntax.eof.other ` | reject ` syntax ` ` unexpected_end ` | reject ` "
                                        "syntax ` ` unexpected_character ` | ` expected reject"));
    ck_assert_uint_eq(gt_test_count_of(text, "<script>"), 1); /* inside the note's code span only */
    ck_assert_ptr_null(strstr(text, "not-applicable"));
    ck_assert_ptr_nonnull(strstr(text,
                                 "| profiles claimed | core |\n| profiles not claimed | repair-loop, claude-code, "
                                 "sdk-transform, reasons |\n| coverage | core: 4 of 5 required cases ran (80.0%), "
                                 "2 passed; 1 skipped, 0 error |\n| not applicable | 1 case (claude-code 1) |\n"
                                 "| skips by reason | 1 ` no stream layer ` |\n"));
    ck_assert_ptr_nonnull(strstr(text, "not judged (the target claims neither claude-code nor repair-loop) |"));
    free(text);

    /* claiming reasons: the other-reason case is a failure group of its own */
    gt_run_free(run);
    gt_corpus_free(corpus);
    run = classes_run(&corpus, true);
    text = render(gt_report_markdown, run);
    ck_assert_ptr_nonnull(strstr(text, "### Failures (3)\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n#### other_reason (1): verdict and gate right"));
    ck_assert_ptr_null(strstr(text, "right verdict, other reason"));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* HTML: the summary has the claim, the not-applicable count, the coverage
 * and the classes before the certification block; failures are grouped by
 * class, unsafe first; the other-reason pass is folded apart; nothing from
 * the corpus or the target becomes markup. */
START_TEST(html_shows_classes_and_profiles)
{
    gt_corpus *corpus;
    gt_run *run = classes_run(&corpus, false);
    char *text = render(gt_report_html, run);
    assert_clean_utf8(text, false);
    assert_only_own_markup(text);
    ck_assert_ptr_null(strstr(text, "<b>"));
    ck_assert_ptr_nonnull(strstr(text, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"));
    const char *summary =
        strstr(text, "<p><strong>Profiles</strong> claimed: <code>core</code>; not claimed: "
                     "<code>repair-loop</code>, <code>claude-code</code>, <code>sdk-transform</code>, "
                     "<code>reasons</code>. 1 case not applicable, never run (claude-code 1).</p>\n"
                     "<ul class=\"coverage\"><li class=\"low\">core: 4 of 5 required cases ran (80.0%), "
                     "2 passed; 1 skipped, 0 error (below 90%)</li>\n</ul>\n"
                     "<p><strong>Verdicts</strong>: <span class=\"fail\">1 unsafe</span>, <span "
                     "class=\"fail\">1 refused_valid</span>, <span class=\"n\">0 figures</span>, 1 "
                     "other_reason (passes: reasons is not claimed), <span class=\"n\">0 "
                     "error</span>, <span class=\"skip\">1 skip</span>.</p>\n");
    const char *certification = strstr(text, "<h2>Certification</h2>");
    ck_assert(summary != NULL && certification != NULL && summary < certification);
    ck_assert_ptr_nonnull(
        strstr(text, "<tr><th>profiles claimed</th><td><code>core</code></td></tr>\n"
                     "<tr><th>profiles not claimed</th><td><code>repair-loop</code>, "
                     "<code>claude-code</code>, <code>sdk-transform</code>, <code>reasons</code></td></tr>\n"
                     "<tr><th>coverage</th><td>core: 4 of 5 required cases ran (80.0%), 2 passed; 1 skipped, 0 error</td></tr>\n"
                     "<tr><th>not applicable</th><td>1 case (claude-code 1)</td></tr>\n"
                     "<tr><th>skips by reason</th><td>1 <code>no stream layer</code></td></tr>\n"));
    const char *unsafe =
        strstr(text, "<h3 class=\"group\"><span class=\"fail\">unsafe</span> (1): accepted what must be refused");
    const char *refused = strstr(text, "<h3 class=\"group\"><span class=\"fail\">refused_valid</span> (1): ");
    const char *other = strstr(text, "<details class=\"cases\"><summary>1 right verdict, other reason \xe2\x80\x94 a "
                                     "pass unless reasons is claimed</summary>\n<details class=\"cases\" "
                                     "id=\"g-other_reason_pass-syntax\"><summary>syntax (1)</summary>\n"
                                     "<section class=\"case o-pass\" id=\"case-2\" data-outcome=\"pass\" "
                                     "data-class=\"other_reason\" data-gate=\"syntax\" "
                                     "data-reason=\"unexpected_character\">\n"
                                     "<h3><span class=\"pass\">pass</span> <span class=\"cls\">other_reason</span> "
                                     "<code>syntax.eof.other</code></h3>");
    const char *skips = strstr(text, "<details class=\"cases\"><summary>1 skipped case</summary>");
    ck_assert(unsafe != NULL && refused != NULL && other != NULL && skips != NULL);
    ck_assert(unsafe < refused && refused < other && other < skips);
    ck_assert_ptr_nonnull(strstr(unsafe, "<span class=\"fail\">fail</span> <span class=\"cls\">unsafe</span> "
                                         "<code>syntax.dup.unsafe</code>"));
    ck_assert_ptr_nonnull(strstr(text, "<h2 id=\"not-passed\">Cases that did not pass (3)</h2>"));
    ck_assert_ptr_nonnull(strstr(text, "(&lt;script&gt;alert(4)&lt;/script&gt; \\x01)"));
    ck_assert_ptr_nonnull(strstr(text, "bad &lt;/pre&gt;&lt;b&gt;x&lt;/b&gt;"));
    ck_assert_ptr_null(strstr(text, "not-applicable"));
    free(text);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* HTML order: the one-screen summary (headline, claim, coverage, classes,
 * the gate bars), then at once the cases that did not pass, by class
 * (unsafe first and open, the others folded) and within a class by gate,
 * each group a <details> with its count, an index of links to the groups;
 * then the other-reason passes and the skips folded; then the tables, the
 * gate matrix and the certification. The filter's controls are hidden until
 * the script shows them, and a reason or gate from a case is a matched
 * value, escaped in its attribute and its menu entry, never markup. */
START_TEST(html_failures_first_by_class_and_gate)
{
    for (int reasons = 0; reasons < 2; reasons++) {
        gt_corpus *corpus;
        gt_run *run = classes_run(&corpus, reasons);
        gt_case_result *refused = &run->results[0], *error = &run->results[3];
        free(refused->observed.reason);
        refused->observed.reason = dup_text("type\" data-class=\"unsafe\"><select id=\"gt-f-class\">");
        error->outcome = GT_OUTCOME_ERROR;
        error->verdict_class = GT_CLASS_ERROR;
        error->note = dup_text("adapter crashed </details></div><div id=\"gt-cases\">");
        char *text = render(gt_report_html, run);
        assert_only_own_markup(text);
        const char *order[] = {
            "<h1>gauntlet report</h1>",
            "<p><strong>Verdicts</strong>",
            "<svg class=\"chart\" role=\"img\" aria-label=\"pass, fail, error and skip per gate\"",
            "<h2 id=\"not-passed\">Cases that did not pass (",
            "<ul class=\"index\">\n<li><a href=\"#g-unsafe\" class=\"fail\">unsafe</a> 1: "
            "<a href=\"#g-unsafe-syntax\">syntax 1</a></li>\n"
            "<li><a href=\"#g-refused_valid\" class=\"fail\">refused_valid</a> 1: "
            "<a href=\"#g-refused_valid-structure\">structure 1</a></li>\n",
            "<div id=\"gt-filter\" hidden>\n<label>gate <select id=\"gt-f-gate\"><option value=\"\">any</option>",
            "<div id=\"gt-cases\">\n<div class=\"klass\" id=\"g-unsafe\">\n<h3 class=\"group\"><span "
            "class=\"fail\">unsafe</span> (1): ",
            "<details class=\"cases\" id=\"g-unsafe-syntax\" open><summary>syntax (1)</summary>\n<section class=\"case "
            "o-fail\"",
            "<div class=\"klass\" id=\"g-refused_valid\">",
            "<details class=\"cases\" id=\"g-refused_valid-structure\"><summary>structure (1)</summary>",
            "data-reason=\"type&quot; data-class=&quot;unsafe&quot;&gt;&lt;select id=&quot;gt-f-class&quot;&gt;\">",
            reasons ? "<div class=\"klass\" id=\"g-other_reason\">" : "<div class=\"klass\" id=\"g-error\">",
            reasons ? "<div class=\"klass\" id=\"g-error\">" : "adapter crashed &lt;/details&gt;",
            reasons ? "adapter crashed &lt;/details&gt;" : "<div class=\"klass\" id=\"g-other_reason_pass\">",
            "<div class=\"klass\" id=\"g-skip\">\n<details class=\"cases\"><summary>1 skipped case</summary>",
            "<h2>Per-gate results</h2>",
            "<h2>Tiers</h2>",
            "<h2>Gate matrix</h2>",
            "<h2>Certification</h2>",
            "<script>",
        };
        const char *at = text;
        for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
            const char *next = strstr(at, order[i]);
            ck_assert_msg(next != NULL, "%s: missing or out of order: %s", reasons ? "reasons" : "core", order[i]);
            at = next;
        }
        ck_assert_ptr_nonnull(strstr(text, "<option value=\"type&quot; data-class=&quot;unsafe&quot;&gt;&lt;select "
                                           "id=&quot;gt-f-class&quot;&gt;\">type&quot; data-class="));
        ck_assert_ptr_nonnull(strstr(text, "<option value=\"no stream layer\">no stream layer</option>"));
        ck_assert_uint_eq(gt_test_count_of(text, " open>"), 1); /* only unsafe is open */
        ck_assert_uint_eq(gt_test_count_of(text, "id=\"gt-cases\""), 1);
        ck_assert_uint_eq(gt_test_count_of(text, "id=\"gt-f-class\""), 1);
        free(text);
        gt_run_free(run);
        gt_corpus_free(corpus);
    }
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("report");
    TCase *writers = tcase_create("writers");
    tcase_add_test(writers, json_report_parses_and_has_every_field);
    tcase_add_test(writers, corpus_hash_is_pinned);
    tcase_add_test(writers, html_report_charts_and_order);
    tcase_add_test(writers, json_report_of_an_empty_run_parses);
    tcase_add_test(writers, junit_escapes_markup_and_forbidden_characters);
    tcase_add_test(writers, junit_valid_against_ant_schema);
    tcase_add_test(writers, markdown_failures_first_and_skips_collapsed);
    tcase_add_test(writers, console_table_counts_and_escapes);
    tcase_add_test(writers, writer_lookup);
    tcase_add_test(writers, escaping_helpers);
    tcase_add_test(writers, html_escaper_neutralises_markup_and_bytes);
    tcase_add_test(writers, markdown_code_span_is_inert);
    tcase_add_test(writers, visible_raw_input_marks_invisible_bytes);
    tcase_add_test(writers, base64_and_sha256);
    tcase_add_test(writers, split_name_and_pass_rate);
    tcase_add_test(writers, json_report_has_certification_baseline_and_details);
    tcase_add_test(writers, json_report_reads_back_to_the_same_report);
    tcase_add_test(writers, tap_report);
    tcase_add_test(writers, markdown_report);
    tcase_add_test(writers, html_report_escapes_everything);
    tcase_add_test(writers, console_accounting_baseline_and_certification);
    tcase_add_test(writers, corpus_hash_is_content_not_paths);
    tcase_add_test(writers, tiers_in_every_report);
    tcase_add_test(writers, junit_shows_classes_and_profiles);
    tcase_add_test(writers, not_applicable_to_the_client_is_counted_apart);
    tcase_add_test(writers, tap_shows_classes_and_profiles);
    tcase_add_test(writers, markdown_shows_classes_and_profiles);
    tcase_add_test(writers, html_shows_classes_and_profiles);
    tcase_add_test(writers, html_failures_first_by_class_and_gate);
    suite_add_tcase(suite, writers);
    return suite;
}

GT_TEST_MAIN()
