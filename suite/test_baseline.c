/* test_baseline.c — `gauntlet run --baseline FILE`: exit 1 only when a case
 * that passed in the baseline fails or errors now; known failures, fixed
 * cases, new cases and skips never gate; an unreadable baseline and load
 * problems exit 2. Also the diff itself (gt_baseline_compare) and the
 * baseline object of the JSON report. Runs gt_cmd_run in a child process. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/cli/commands.h"
#include "gauntlet/runner/report.h"
#include "gt_test.h"

/* Three cases against the reference: a.pass and c.pass pass, b.fail fails
 * (the reference accepts "{}", the case expects a fence rejection). */
static const char cases_text[] =
    "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": \"syntax\", \"category\": \"t\"}, \"cases\": [\n"
    " {\"id\": \"a.pass\", \"input\": \"{}\", \"expect\": {\"verdict\": \"accept\"}},\n"
    " {\"id\": \"b.fail\", \"input\": \"{}\", \"expect\": {\"verdict\": \"reject\", \"gate\": \"syntax\", "
    "\"reason\": \"markdown_fence\"}},\n"
    " {\"id\": \"c.pass\", \"input\": \"```json\\n{}\\n```\", \"expect\": {\"verdict\": \"reject\", \"gate\": "
    "\"syntax\", \"reason\": \"markdown_fence\"}}\n"
    "]}\n";

static char dir[64];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = fopen(path, "w");
    ck_assert_ptr_nonnull(out);
    fputs(text, out);
    fclose(out);
}

static const char *in_dir(const char *name)
{
    static char paths[8][256];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, 256, "%s/%s", dir, name);
    return path;
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/gt-baseline-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char corpus_dir[128];
    snprintf(corpus_dir, sizeof corpus_dir, "%s/corpus", dir);
    mkdir(corpus_dir, 0700);
    write_file("corpus/t.cases.json", cases_text);
}

static void teardown(void)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* A minimal baseline report: ids and outcomes ("a.pass=pass,b.fail=fail"). */
static const char *baseline_of(const char *name, const char *spec)
{
    char text[4096];
    size_t used = (size_t)snprintf(text, sizeof text, "{\"format\": \"gauntlet-report/1\", \"cases\": [");
    char copy[512];
    snprintf(copy, sizeof copy, "%s", spec);
    bool first = true;
    for (char *item = strtok(copy, ","); item != NULL; item = strtok(NULL, ",")) {
        char *equals = strchr(item, '=');
        *equals = '\0';
        used += (size_t)snprintf(text + used, sizeof text - used, "%s{\"id\": \"%s\", \"gate\": \"syntax\", "
                                 "\"outcome\": \"%s\"}", first ? "" : ", ", item, equals + 1);
        first = false;
    }
    snprintf(text + used, sizeof text - used, "]}\n");
    write_file(name, text);
    return in_dir(name);
}

static int cli(int (*command)(int, char **), char **argv, char *out, size_t out_len)
{
    return gt_test_cli(command, argv, out, out_len);
}

static int run_with_baseline(const char *baseline, char *out, size_t out_len)
{
    char *argv[] = {"run", (char *)in_dir("corpus"), "--baseline", (char *)baseline, NULL};
    return cli(gt_cmd_run, argv, out, out_len);
}

START_TEST(known_failures_do_not_gate)
{
    char out[16384];
    char *plain[] = {"run", (char *)in_dir("corpus"), NULL};
    ck_assert_int_eq(cli(gt_cmd_run, plain, out, sizeof out), 1); /* without a baseline b.fail fails the run */
    const char *baseline = baseline_of("known.json", "a.pass=pass,b.fail=fail,c.pass=pass");
    ck_assert_int_eq(run_with_baseline(baseline, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, ": 0 regressed, 0 fixed, 0 new, 0 now skipped (3 baseline cases, 0 not run)\n"));
    ck_assert_ptr_nonnull(strstr(out, "\nFAIL b.fail: ")); /* still shown, just not gating */
    ck_assert_ptr_nonnull(strstr(out, "\n2 passed, 1 failed, 0 skipped\n")); /* totals line unchanged, last */
    /* an error in the baseline is a failure too: still failing is not a regression */
    baseline = baseline_of("errored.json", "a.pass=pass,b.fail=error,c.pass=pass");
    ck_assert_int_eq(run_with_baseline(baseline, out, sizeof out), 0);
}
END_TEST

START_TEST(a_case_that_passed_and_fails_now_exits_1)
{
    char out[16384];
    const char *baseline = baseline_of("regressed.json", "a.pass=pass,b.fail=pass,c.pass=pass");
    ck_assert_int_eq(run_with_baseline(baseline, out, sizeof out), 1);
    ck_assert_ptr_nonnull(strstr(out, ": 1 regressed, 0 fixed, 0 new"));
    ck_assert_ptr_nonnull(strstr(out, "\nREGRESSED b.fail (pass -> fail)\n"));
    /* --quiet never hides a regression */
    char *quiet[] = {"run", (char *)in_dir("corpus"), "--baseline", (char *)baseline, "-q", NULL};
    ck_assert_int_eq(cli(gt_cmd_run, quiet, out, sizeof out), 1);
    ck_assert_ptr_nonnull(strstr(out, "REGRESSED b.fail (pass -> fail)\n"));
    ck_assert_ptr_null(strstr(out, "gate        cases"));
}
END_TEST

START_TEST(fixed_new_and_not_run_are_listed_without_gating)
{
    char out[16384];
    /* a.pass failed before (fixed), c.pass is new, old.case is no longer run */
    const char *baseline = baseline_of("mixed.json", "a.pass=fail,b.fail=fail,old.case=pass");
    ck_assert_int_eq(run_with_baseline(baseline, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, ": 0 regressed, 1 fixed, 1 new, 0 now skipped (3 baseline cases, 1 not run)\n"));
    ck_assert_ptr_nonnull(strstr(out, "\nFIXED a.pass (fail -> pass)\n"));
    ck_assert_ptr_nonnull(strstr(out, "\nNEW c.pass (absent -> pass)\n"));
    /* a new case that fails does not gate either */
    baseline = baseline_of("without-b.json", "a.pass=pass,c.pass=pass");
    ck_assert_int_eq(run_with_baseline(baseline, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "\nNEW b.fail (absent -> fail)\n"));
}
END_TEST

START_TEST(a_real_report_is_a_baseline_and_the_report_carries_the_diff)
{
    char out[16384];
    char *first[] = {"run", (char *)in_dir("corpus"), "--report", (char *)"json:/dev/null", NULL};
    ck_assert_int_eq(cli(gt_cmd_run, first, out, sizeof out), 1);
    /* a report to a device is written in place: renaming a temporary over
     * /dev/null would replace the device with a file (we may run as root) */
    struct stat null_info;
    ck_assert_int_eq(stat("/dev/null", &null_info), 0);
    ck_assert_msg(S_ISCHR(null_info.st_mode), "--report json:/dev/null replaced /dev/null with a file");
    char report_arg[300], next_arg[300];
    snprintf(report_arg, sizeof report_arg, "json:%s", in_dir("base.json"));
    char *write_base[] = {"run", (char *)in_dir("corpus"), "--report", report_arg, NULL};
    ck_assert_int_eq(cli(gt_cmd_run, write_base, out, sizeof out), 1);
    snprintf(next_arg, sizeof next_arg, "json:%s,md:%s", in_dir("next.json"), in_dir("next.md"));
    char *compare[] = {"run", (char *)in_dir("corpus"), "--baseline", (char *)in_dir("base.json"), "--report", next_arg,
                       NULL};
    ck_assert_int_eq(cli(gt_cmd_run, compare, out, sizeof out), 0);

    char err[256];
    gt_report_doc *doc = gt_report_load(in_dir("next.json"), err, sizeof err);
    ck_assert_msg(doc != NULL, "%s", err);
    gt_report_doc_free(doc);
    FILE *in = fopen(in_dir("next.json"), "r");
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, in);
    text[len] = '\0';
    fclose(in);
    cJSON *root = cJSON_Parse(text);
    const cJSON *baseline = cJSON_GetObjectItemCaseSensitive(root, "baseline");
    ck_assert(cJSON_IsObject(baseline));
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(baseline, "file")->valuestring, in_dir("base.json"));
    ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(baseline, "baseline_cases")->valueint, 3);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(baseline, "regressed")), 0);
    cJSON_Delete(root);
}
END_TEST

START_TEST(unreadable_baseline_and_load_problems_exit_2)
{
    char out[16384];
    ck_assert_int_eq(run_with_baseline(in_dir("missing.json"), out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--baseline: cannot open"));
    write_file("garbage.json", "not json");
    ck_assert_int_eq(run_with_baseline(in_dir("garbage.json"), out, sizeof out), 2);
    write_file("other.json", "{\"format\": \"something-else/1\", \"cases\": []}");
    ck_assert_int_eq(run_with_baseline(in_dir("other.json"), out, sizeof out), 2);
    /* load problems exit 2 even when the baseline says everything is fine */
    const char *baseline = baseline_of("all-known.json", "a.pass=pass,b.fail=fail,c.pass=pass");
    write_file("corpus/broken.cases.json", "{\"format\": \"gauntlet-corpus/1\", \"cases\": [{\"id\": \"x\"}]}");
    ck_assert_int_eq(run_with_baseline(baseline, out, sizeof out), 2);
}
END_TEST

START_TEST(diff_classifies_every_transition)
{
    static const char before_text[] =
        "{\"format\": \"gauntlet-report/1\", \"cases\": ["
        "{\"id\": \"p-p\", \"gate\": \"syntax\", \"outcome\": \"pass\"},"
        "{\"id\": \"p-f\", \"gate\": \"syntax\", \"outcome\": \"pass\"},"
        "{\"id\": \"p-e\", \"gate\": \"syntax\", \"outcome\": \"pass\"},"
        "{\"id\": \"p-s\", \"gate\": \"syntax\", \"outcome\": \"pass\"},"
        "{\"id\": \"f-p\", \"gate\": \"syntax\", \"outcome\": \"fail\"},"
        "{\"id\": \"s-p\", \"gate\": \"syntax\", \"outcome\": \"skip\"},"
        "{\"id\": \"f-e\", \"gate\": \"syntax\", \"outcome\": \"fail\"},"
        "{\"id\": \"gone\", \"gate\": \"syntax\", \"outcome\": \"pass\"}]}";
    static const char after_text[] =
        "{\"format\": \"gauntlet-report/1\", \"cases\": ["
        "{\"id\": \"p-p\", \"gate\": \"syntax\", \"outcome\": \"pass\"},"
        "{\"id\": \"p-f\", \"gate\": \"syntax\", \"outcome\": \"fail\"},"
        "{\"id\": \"p-e\", \"gate\": \"syntax\", \"outcome\": \"error\"},"
        "{\"id\": \"p-s\", \"gate\": \"syntax\", \"outcome\": \"skip\"},"
        "{\"id\": \"f-p\", \"gate\": \"syntax\", \"outcome\": \"pass\"},"
        "{\"id\": \"s-p\", \"gate\": \"syntax\", \"outcome\": \"pass\"},"
        "{\"id\": \"f-e\", \"gate\": \"syntax\", \"outcome\": \"error\"},"
        "{\"id\": \"new\", \"gate\": \"syntax\", \"outcome\": \"fail\"}]}";
    char err[256];
    gt_report_doc *before = gt_report_load_text("before", before_text, sizeof before_text - 1, err, sizeof err);
    gt_report_doc *after = gt_report_load_text("after", after_text, sizeof after_text - 1, err, sizeof err);
    ck_assert(before && after);
    gt_baseline_diff *diff = gt_baseline_compare(gt_report_doc_run(before), "before", gt_report_doc_run(after));
    ck_assert_ptr_nonnull(diff);
    ck_assert_uint_eq(diff->counts[GT_BASELINE_REGRESSED], 2);
    ck_assert_uint_eq(diff->counts[GT_BASELINE_NOW_SKIPPED], 1);
    ck_assert_uint_eq(diff->counts[GT_BASELINE_FIXED], 2);
    ck_assert_uint_eq(diff->counts[GT_BASELINE_NEW], 1);
    ck_assert_uint_eq(diff->not_run, 1);
    ck_assert_uint_eq(diff->baseline_cases, 8);
    ck_assert_uint_eq(diff->entry_count, 6);
    ck_assert_str_eq(diff->entries[0].id, "p-f");
    ck_assert_int_eq(diff->entries[0].kind, GT_BASELINE_REGRESSED);
    ck_assert_str_eq(diff->entries[1].id, "p-e");
    ck_assert_int_eq(diff->entries[5].kind, GT_BASELINE_NEW);
    ck_assert_int_eq(diff->entries[5].before, -1);
    ck_assert_str_eq(gt_baseline_kind_name(GT_BASELINE_NOW_SKIPPED), "now_skipped");
    gt_baseline_diff_free(diff);
    gt_report_doc_free(before);
    gt_report_doc_free(after);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("baseline");
    TCase *cli_case = tcase_create("cli");
    tcase_add_checked_fixture(cli_case, setup, teardown);
    tcase_set_timeout(cli_case, 60);
    tcase_add_test(cli_case, known_failures_do_not_gate);
    tcase_add_test(cli_case, a_case_that_passed_and_fails_now_exits_1);
    tcase_add_test(cli_case, fixed_new_and_not_run_are_listed_without_gating);
    tcase_add_test(cli_case, a_real_report_is_a_baseline_and_the_report_carries_the_diff);
    tcase_add_test(cli_case, unreadable_baseline_and_load_problems_exit_2);
    suite_add_tcase(suite, cli_case);
    TCase *diff_case = tcase_create("diff");
    tcase_add_test(diff_case, diff_classifies_every_transition);
    suite_add_tcase(suite, diff_case);
    return suite;
}

GT_TEST_MAIN()
