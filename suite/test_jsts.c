/* test_jsts.c — `gauntlet run --jsts DIR`: every JSON-Schema-Test-Suite test
 * of a dialect folder becomes a structure case (ids from file, group and test,
 * stable and unique; optional/ tier optional; optional/format/ only with
 * --formats, `format` asserted; remote references through the suite's
 * remotes/), run against the reference and through the reference adapter;
 * a missing folder is exit 2. A small suite is written into a temporary
 * directory, so nothing here needs ../shared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runner/cli/commands.h"
#include "gauntlet/runner/corpus.h"
#include "gt_test.h"
#include "runner/jsts.h"

static char dir[64];
static char tests[128];

static void write_file(const char *relative, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, relative);
    FILE *out = fopen(path, "w");
    ck_assert_ptr_nonnull(out);
    fputs(text, out);
    fclose(out);
}

/* A two-group file whose descriptions slug alike, an optional file, a format
 * file and a remote. */
static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/gt-jsts-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    const char *dirs[] = {"tests", "tests/draft2020-12", "tests/draft2020-12/optional",
                          "tests/draft2020-12/optional/format", "remotes"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, dirs[i]);
        ck_assert_int_eq(mkdir(path, 0700), 0);
    }
    snprintf(tests, sizeof tests, "%s/tests/draft2020-12", dir);
    write_file("remotes/integer.json", "{\"type\": \"integer\"}");
    write_file("tests/draft2020-12/minLength.json",
               "[{\"description\": \"minLength validation\",\n"
               "  \"schema\": {\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"minLength\": 2},\n"
               "  \"tests\": [{\"description\": \"longer is valid\", \"data\": \"foo\", \"valid\": true},\n"
               "            {\"description\": \"too short is invalid\", \"data\": \"f\", \"valid\": false},\n"
               "            {\"description\": \"Too short is INVALID!\", \"data\": \"g\", \"valid\": false}]},\n"
               " {\"description\": \"remote ref\",\n"
               "  \"schema\": {\"$ref\": \"http://localhost:1234/integer.json\"},\n"
               "  \"tests\": [{\"description\": \"remote ref valid\", \"data\": 1, \"valid\": true},\n"
               "            {\"description\": \"remote ref invalid\", \"data\": \"a\", \"valid\": false}]}]\n");
    char long_name[400];
    memset(long_name, 'a', 300);
    long_name[300] = '\0';
    char text[1024];
    snprintf(text, sizeof text,
             "[{\"description\": \"%s\", \"schema\": {\"type\": \"number\"},\n"
             "  \"tests\": [{\"description\": \"%s\", \"data\": 1.5, \"valid\": true}]}]\n",
             long_name, long_name);
    write_file("tests/draft2020-12/optional/long.json", text);
    write_file("tests/draft2020-12/optional/format/date.json",
               "[{\"description\": \"date\", \"schema\": {\"format\": \"date\"},\n"
               "  \"tests\": [{\"description\": \"not a date\", \"data\": \"2020-13-45\", \"valid\": false}]}]\n");
}

static void teardown(void)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

static const gt_case *find(const gt_corpus *corpus, const char *id)
{
    for (size_t i = 0; i < gt_corpus_count(corpus); i++)
        if (strcmp(gt_corpus_case(corpus, i)->input.id, id) == 0)
            return gt_corpus_case(corpus, i);
    return NULL;
}

START_TEST(tests_become_structure_cases)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_jsts_load_cases(corpus, "test", tests, false), 6);
    ck_assert_int_eq(gt_corpus_problem_count(corpus), 0);
    const gt_case *valid = find(corpus, "jsts.draft2020-12.minlength.minlength-validation.longer-is-valid");
    ck_assert_ptr_nonnull(valid);
    ck_assert_str_eq(valid->input.gate, "structure");
    ck_assert_int_eq(valid->expect.verdict, GT_VERDICT_ACCEPT);
    ck_assert_int_eq(valid->tier, GT_TIER_REQUIRED);
    ck_assert_str_eq((const char *)valid->input.raw, "\"foo\"");
    ck_assert_uint_eq(valid->line, 3); /* the test's line in minLength.json */
    ck_assert_int_eq(valid->tag_count, 2);
    ck_assert_str_eq(valid->tags[1], "draft2020-12");
    /* two descriptions that slug alike: the second is numbered */
    const gt_case *short1 = find(corpus, "jsts.draft2020-12.minlength.minlength-validation.too-short-is-invalid");
    const gt_case *short2 = find(corpus, "jsts.draft2020-12.minlength.minlength-validation.too-short-is-invalid-2");
    ck_assert_ptr_nonnull(short1);
    ck_assert_ptr_nonnull(short2);
    ck_assert_int_eq(short1->expect.verdict, GT_VERDICT_REJECT);
    ck_assert_str_eq(short1->expect.gate, "structure");
    ck_assert_ptr_null(short1->expect.reason);
    /* a root without $schema gets the folder's dialect; the remote resolves through remotes/ */
    const gt_case *remote = find(corpus, "jsts.draft2020-12.minlength.remote-ref.remote-ref-valid");
    ck_assert_ptr_nonnull(remote);
    ck_assert_ptr_nonnull(strstr(remote->input.schema_json, "\"$schema\":\"https://json-schema.org/draft/2020-12/schema\""));
    ck_assert_ptr_nonnull(remote->input.remotes_dir);
    ck_assert_ptr_nonnull(strstr(remote->input.remotes_dir, "/remotes"));
    /* optional/: tier optional; an id over 200 bytes is cut and hashed */
    const gt_case *optional = NULL;
    for (size_t i = 0; i < gt_corpus_count(corpus); i++)
        if (strncmp(gt_corpus_case(corpus, i)->input.id, "jsts.draft2020-12.optional.long.", 32) == 0)
            optional = gt_corpus_case(corpus, i);
    ck_assert_ptr_nonnull(optional);
    ck_assert_int_eq(optional->tier, GT_TIER_OPTIONAL);
    ck_assert_uint_le(strlen(optional->input.id), 200);
    /* without --formats, optional/format/ is not loaded */
    ck_assert_ptr_null(find(corpus, "jsts.draft2020-12.optional.format.date.date.not-a-date"));

    /* the same folder again: the same ids, so every one is a duplicate */
    char first_id[256];
    snprintf(first_id, sizeof first_id, "%s", optional->input.id);
    gt_corpus *again = gt_corpus_new();
    ck_assert_int_eq(gt_jsts_load_cases(again, "test", tests, true), 7);
    ck_assert_ptr_nonnull(find(again, first_id));
    const gt_case *date = find(again, "jsts.draft2020-12.optional.format.date.date.not-a-date");
    ck_assert_ptr_nonnull(date);
    ck_assert(date->input.assert_formats);
    ck_assert_int_eq(gt_jsts_load_cases(again, "test", tests, false), 0);
    ck_assert_int_eq(gt_corpus_problem_count(again), 6);
    ck_assert_ptr_nonnull(strstr(gt_corpus_problem(again, 0)->message, "duplicate id"));
    gt_corpus_free(again);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(cli_runs_the_suite_on_any_target)
{
    char out[16384];
    char *run[] = {"run", "--jsts", tests, "--formats", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, run, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "7 passed, 0 failed, 0 skipped") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "required 100.00% (5/5)") != NULL, "%s", out);

    const char *adapter = getenv("GAUNTLET_ADAPTER_REFERENCE");
    char target[512];
    snprintf(target, sizeof target, "adapter:%s", adapter ? adapter : "build/adapters/gauntlet-adapter-reference");
    char *through[] = {"run", "--jsts", tests, "--target", target, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, through, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "6 passed, 0 failed, 0 skipped") != NULL, "%s", out);

    /* filters and listing work on the converted cases as on any other */
    char *listed[] = {"run", "--jsts", tests, "--list", "--tag", "optional", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, listed, out, sizeof out), 0);
    ck_assert_msg(strncmp(out, "jsts.draft2020-12.optional.long.", 32) == 0 && strchr(out, '\n') == strrchr(out, '\n'),
                  "%s", out);

    char missing[256];
    snprintf(missing, sizeof missing, "%s/nope/draft7", dir);
    char *gone[] = {"run", "--jsts", missing, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, gone, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "no such file or directory") != NULL, "%s", out);
    char *no_dialect[] = {"run", "--jsts", dir, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, no_dialect, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "cannot tell the dialect") != NULL, "%s", out);
    char *formats_alone[] = {"run", "--formats", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, formats_alone, out, sizeof out), 2);
}
END_TEST

/* DIR may be the suite's optional/ or optional/format/ folder (docs/jsts.md),
 * and a tests/<draft> folder without optional/ is a suite too: only what is
 * below DIR is read, and a missing sub-folder is not a problem. */
START_TEST(optional_folders_and_a_suite_without_them)
{
    char optional[300], format[300], bare[300];
    snprintf(optional, sizeof optional, "%s/optional", tests);
    snprintf(format, sizeof format, "%s/optional/format", tests);
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_jsts_load_cases(corpus, "test", optional, false), 1);
    ck_assert_int_eq(gt_jsts_load_cases(corpus, "test", format, true), 1);
    ck_assert_ptr_nonnull(find(corpus, "jsts.draft2020-12.optional.format.date.date.not-a-date"));
    gt_corpus_free(corpus);
    corpus = gt_corpus_new();
    ck_assert_int_eq(gt_jsts_load_cases(corpus, "test", optional, true), 2); /* optional/ and its format/ */
    gt_corpus_free(corpus);

    char out[16384];
    char *run[] = {"run", "--jsts", optional, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, run, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "1 passed, 0 failed, 0 skipped") != NULL && strstr(out, "cannot read") == NULL, "%s",
                  out);

    snprintf(bare, sizeof bare, "%s/bare/draft7", dir);
    char parent[300];
    snprintf(parent, sizeof parent, "%s/bare", dir);
    ck_assert_int_eq(mkdir(parent, 0700), 0);
    ck_assert_int_eq(mkdir(bare, 0700), 0);
    write_file("bare/draft7/type.json", "[{\"description\": \"t\", \"schema\": {\"type\": \"string\"},\n"
                                        "  \"tests\": [{\"description\": \"s\", \"data\": \"a\", \"valid\": true}]}]\n");
    char *plain[] = {"run", "--jsts", bare, "--formats", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, plain, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "1 passed, 0 failed, 0 skipped") != NULL, "%s", out);
}
END_TEST

/* A failing suite test fails its case, with the file and the test named. */
START_TEST(cli_reports_a_failing_test)
{
    write_file("tests/draft2020-12/wrong.json",
               "[{\"description\": \"g\", \"schema\": {\"type\": \"string\"},\n"
               "  \"tests\": [{\"description\": \"claims 1 is a string\", \"data\": 1, \"valid\": true}]}]\n");
    char out[16384];
    char *run[] = {"run", "--jsts", tests, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, run, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "FAIL jsts.draft2020-12.wrong.g.claims-1-is-a-string") != NULL, "%s", out);
    /* an invalid-instance test whose schema does not compile is no pass */
    write_file("tests/draft2020-12/wrong.json",
               "[{\"description\": \"g\", \"schema\": {\"$schema\": \"http://localhost:1234/no-such-meta.json\","
               " \"type\": \"string\"},\n"
               "  \"tests\": [{\"description\": \"a number is not a string\", \"data\": 1, \"valid\": false}]}]\n");
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, run, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "FAIL jsts.draft2020-12.wrong.g.a-number-is-not-a-string: expected reject structure on the "
                              "instance, observed reject structure/schema_unknown_dialect: the schema did not compile") !=
                      NULL,
                  "%s", out);
    write_file("tests/draft2020-12/wrong.json", "[{\"description\": \"g\", \"schema\": {}, \"tests\": [{\"data\": 1}]}]");
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, run, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "wrong.json:1: /0/tests/0: a test needs \"data\" and a boolean \"valid\"") != NULL, "%s",
                  out);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("jsts");
    TCase *tc = tcase_create("jsts");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, tests_become_structure_cases);
    tcase_add_test(tc, cli_runs_the_suite_on_any_target);
    tcase_add_test(tc, cli_reports_a_failing_test);
    tcase_add_test(tc, optional_folders_and_a_suite_without_them);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
