/* test_badge.c — `--report badge:FILE`: a shields.io endpoint document with
 * the required tier's pass rate (floored, never rounded up to 100%), its
 * colour, and a static SVG beside it that is well-formed XML; optional
 * cases never move the badge. Report files (every format) get their missing
 * parent folders created. */
#include <cJSON.h>
#include <string.h>

#include "runner/cli/commands.h"
#include "gauntlet/runner/report.h"
#include "gauntlet/runner/run.h"
#include "gt_test.h"

/* A run of `required` + `optional` cases of which the first `failed`
 * required ones fail and `skipped` required ones are skipped. */
static gt_run *tier_run(gt_corpus **corpus_out, size_t required, size_t optional, size_t failed, size_t skipped)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    fputs("{\"format\": \"gauntlet-corpus/1\", \"cases\": [", out);
    for (size_t i = 0; i < required + optional; i++)
        fprintf(out,
                "%s{\"id\": \"c%zu\", \"gate\": \"syntax\", \"category\": \"t\", \"tier\": \"%s\", "
                "\"input\": \"{}\", \"expect\": {\"verdict\": \"accept\"}}",
                i ? "," : "", i, i < required ? "required" : "optional");
    fputs("]}", out);
    fclose(out);
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "tiers.cases.json", text, len), (int)(required + optional));
    free(text);
    gt_run *run = calloc(1, sizeof *run);
    run->corpus = corpus;
    run->count = required + optional;
    run->results = calloc(run->count, sizeof *run->results);
    for (size_t i = 0; i < run->count; i++) {
        run->results[i].kase = gt_corpus_case(corpus, i);
        run->results[i].outcome = i < failed               ? GT_OUTCOME_FAIL
                                  : i < failed + skipped   ? GT_OUTCOME_SKIP
                                  : i >= required && i % 2 ? GT_OUTCOME_FAIL /* optional failures */
                                                           : GT_OUTCOME_PASS;
    }
    *corpus_out = corpus;
    return run;
}

static cJSON *badge_json(const gt_run *run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert_int_eq(gt_report_badge(out, run, NULL), 0);
    fclose(out);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    free(text);
    ck_assert_int_eq(cJSON_GetObjectItem(root, "schemaVersion")->valueint, 1);
    ck_assert_str_eq(cJSON_GetObjectItem(root, "label")->valuestring, "gauntlet");
    ck_assert_int_eq(cJSON_GetArraySize(root), 4); /* only the endpoint schema's keys */
    return root;
}

static void assert_badge(size_t required, size_t optional, size_t failed, size_t skipped, const char *message,
                         const char *color)
{
    gt_corpus *corpus;
    gt_run *run = tier_run(&corpus, required, optional, failed, skipped);
    cJSON *root = badge_json(run);
    ck_assert_str_eq(cJSON_GetObjectItem(root, "message")->valuestring, message);
    ck_assert_str_eq(cJSON_GetObjectItem(root, "color")->valuestring, color);
    cJSON_Delete(root);
    gt_run_free(run);
    gt_corpus_free(corpus);
}

START_TEST(rate_colour_and_counts)
{
    assert_badge(10, 4, 0, 0, "all profiles: 100% required (10/10), 100.0% ran", "brightgreen"); /* optional failures do not count */
    assert_badge(2000, 0, 1, 0, "all profiles: 99.9% required (1999/2000), 100.0% ran", "green"); /* 99.95% is not 100% */
    assert_badge(10, 0, 1, 0, "all profiles: 90.0% required (9/10), 100.0% ran", "yellowgreen");
    assert_badge(10, 0, 2, 0, "all profiles: 80.0% required (8/10), 100.0% ran", "yellow");
    assert_badge(10, 0, 3, 0, "all profiles: 70.0% required (7/10), 100.0% ran", "orange");
    assert_badge(3, 0, 2, 0, "all profiles: 33.3% required (1/3), 100.0% ran", "red");
    assert_badge(10, 0, 1, 5, "all profiles: 80.0% required (4/5), 50.0% ran", "yellow"); /* skips leave the denominator */
    /* a badge over less than 90% of its claim is never green, whatever its rate */
    assert_badge(10, 0, 0, 5, "all profiles: 100% required (5/5), 50.0% ran", "yellow");
    assert_badge(10, 0, 0, 1, "all profiles: 100% required (9/9), 90.0% ran", "brightgreen");
    assert_badge(2, 3, 0, 2, "all profiles: no required case ran", "lightgrey");
}
END_TEST

/* Through the CLI: badge:FILE writes FILE and FILE's .svg; the SVG is
 * well-formed XML with the message in its title. */
START_TEST(cli_writes_endpoint_json_and_svg)
{
    char dir[] = "/tmp/gt-badge-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char report[128], json_path[96], svg_path[96];
    snprintf(json_path, sizeof json_path, "%s/gauntlet-badge.json", dir);
    snprintf(svg_path, sizeof svg_path, "%s/gauntlet-badge.svg", dir);
    snprintf(report, sizeof report, "badge:%s", json_path);
    static char out[1 << 16];
    char *argv[] = {
        "run", GT_TEST_CORPUS "/syntax", "--target", "adapter:sh suite/adapters/fake.sh ok", "--report", report, "-q",
        NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, argv, out, sizeof out), 1);
    char *json = gt_test_slurp(json_path);
    cJSON *root = cJSON_Parse(json);
    ck_assert_ptr_nonnull(root);
    const char *message = cJSON_GetObjectItem(root, "message")->valuestring;
    /* a core claim over the syntax cases alone: the text names the profile and what of it ran */
    ck_assert_msg(strncmp(message, "core: ", 6) == 0 && strstr(message, "% required (") && strstr(message, "% ran"),
                  "%s", message);
    ck_assert_str_eq(cJSON_GetObjectItem(root, "color")->valuestring, "red");
    char *svg = gt_test_slurp(svg_path);
    ck_assert(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
    char title[160];
    snprintf(title, sizeof title, "<title>gauntlet: %s</title>", message);
    ck_assert_ptr_nonnull(strstr(svg, title));
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"#e05d44\""));
    char command[256];
    snprintf(command, sizeof command, "xmllint --noout '%s'", svg_path);
    ck_assert_int_eq(system(command), 0);
    cJSON_Delete(root);
    free(json);
    free(svg);
    /* the reference: all pass */
    char *pass[] = {"run", GT_TEST_CORPUS, "--report", report, "-q", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, pass, out, sizeof out), 0);
    json = gt_test_slurp(json_path);
    ck_assert_msg(strstr(json, "\"message\": \"all profiles: 100% required (") && strstr(json, "100.0% ran\""), "%s",
                  json);
    ck_assert_ptr_nonnull(strstr(json, "\"color\": \"brightgreen\""));
    free(json);
    unlink(json_path);
    unlink(svg_path);
    rmdir(dir);
}
END_TEST

/* Report writers create missing parent folders (the README's
 * `--report json:out/report.json` in a fresh checkout, the badge and its SVG
 * too); a file in the way is exit 2 with a message naming it. */
START_TEST(reports_create_missing_parent_folders)
{
    char dir[] = "/tmp/gt-parents-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char report[512], path[256];
    snprintf(report, sizeof report, "json:%s/out/report.json,junit:%s/out/deep/er/report.xml,badge:%s/badge/gauntlet.json",
             dir, dir, dir);
    static char out[1 << 16];
    char *argv[] = {"run", GT_TEST_CORPUS "/syntax", "--report", report, "-q", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, argv, out, sizeof out), 0);
    const char *files[] = {"out/report.json", "out/deep/er/report.xml", "badge/gauntlet.json", "badge/gauntlet.svg"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        ck_assert_msg(access(path, R_OK) == 0, "%s not written", path);
        unlink(path);
    }
    /* a file where a folder must go */
    snprintf(path, sizeof path, "%s/blocker", dir);
    FILE *blocker = fopen(path, "w");
    ck_assert_ptr_nonnull(blocker);
    fclose(blocker);
    snprintf(report, sizeof report, "json:%s/blocker/report.json", dir);
    char *blocked[] = {"run", GT_TEST_CORPUS "/syntax", "--report", report, "-q", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, blocked, out, sizeof out), 2);
    char message[512];
    snprintf(message, sizeof message, "cannot write json report '%s/blocker/report.json': '%s/blocker' is not a folder",
             dir, dir);
    ck_assert_msg(strstr(out, message) != NULL, "%s", out);
    unlink(path);
    const char *folders[] = {"out/deep/er", "out/deep", "out", "badge", ""};
    for (size_t i = 0; i < sizeof folders / sizeof *folders; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, folders[i]);
        rmdir(path);
    }
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("badge");
    TCase *badge = tcase_create("badge");
    tcase_set_timeout(badge, 120);
    tcase_add_test(badge, rate_colour_and_counts);
    tcase_add_test(badge, cli_writes_endpoint_json_and_svg);
    tcase_add_test(badge, reports_create_missing_parent_folders);
    suite_add_tcase(suite, badge);
    return suite;
}

GT_TEST_MAIN()
