/* test_shard.c — `gauntlet run --shard K/N` and `gauntlet merge`: the shards
 * split the selected cases round-robin, every case lands in exactly one
 * shard, and the merged report equals the report of the unsharded run
 * (timing, job count and the command line aside) for the bundled corpus,
 * through the library and through the CLI. Merging refuses shards that do
 * not belong together; its exit codes follow `gauntlet run`. Bazel's
 * sharding environment (TEST_TOTAL_SHARDS, ...) selects the same shards. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/cli/commands.h"
#include "runner/corpus_shard.h"
#include "gauntlet/runner/report.h"
#include "gauntlet/runner/run.h"
#include "gt_test.h"
#include "reports/report_util.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/gt-shard-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

static char *in_dir(const char *name)
{
    static char paths[16][256];
    static int next;
    char *path = paths[next++ % 16];
    snprintf(path, 256, "%s/%s", dir, name);
    return path;
}

/* Drop what legitimately differs between runs of the same cases: when and
 * how fast they ran, on how many threads, and the command line. */
static cJSON *normalised(const char *text)
{
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    static const char *const top[] = {"started_at", "elapsed_ms", "jobs", "command"};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(root, top[i]);
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "certification"), "command");
    cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    for (cJSON *kase = cases ? cases->child : NULL; kase != NULL; kase = kase->next)
        cJSON_DeleteItemFromObjectCaseSensitive(kase, "elapsed_ms");
    return root;
}

static void assert_same_report(const char *merged, const char *unsharded)
{
    cJSON *a = normalised(merged), *b = normalised(unsharded);
    ck_assert_int_gt(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b, "cases")), 0);
    if (!cJSON_Compare(a, b, true)) {
        /* name the first case that differs */
        cJSON *ca = cJSON_GetObjectItemCaseSensitive(a, "cases"), *cb = cJSON_GetObjectItemCaseSensitive(b, "cases");
        int count = cJSON_GetArraySize(cb);
        for (int i = 0; i < count; i++)
            if (!cJSON_Compare(cJSON_GetArrayItem(ca, i), cJSON_GetArrayItem(cb, i), true)) {
                char *x = cJSON_PrintUnformatted(cJSON_GetArrayItem(ca, i));
                char *y = cJSON_PrintUnformatted(cJSON_GetArrayItem(cb, i));
                ck_abort_msg("case %d differs:\nmerged    %s\nunsharded %s", i, x ? x : "(none)", y);
            }
        ck_abort_msg("merged report differs from the unsharded one outside cases[]");
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* ---- through the library ------------------------------------------------- */

/* The JSON report of shard k of n of the bundled corpus (n = 0: unsharded). */
static char *library_report_of(const char *path, unsigned k, unsigned n, unsigned jobs)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_gt(gt_corpus_load(corpus, path), 0);
    char sha256[65];
    gt_report_corpus_hash(corpus, sha256);
    gt_report_info info = {.command = "gauntlet run", .corpus_sha256 = sha256,
                           .corpus_cases = gt_corpus_count(corpus), .shard_index = k, .shard_count = n};
    info.selected_cases = gt_corpus_filter(corpus, NULL, NULL, NULL);
    if (n > 0)
        gt_corpus_shard(corpus, k, n);
    char err[256];
    gt_run *run = gt_run_cases(corpus, "reference", jobs, NULL, NULL, err, sizeof err);
    ck_assert_msg(run != NULL, "%s", err);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert_int_eq(gt_report_json(out, run, &info), 0);
    fclose(out);
    gt_run_free(run);
    gt_corpus_free(corpus);
    return text;
}

static char *library_report(unsigned k, unsigned n, unsigned jobs)
{
    return library_report_of(GT_TEST_CORPUS, k, n, jobs);
}

static char *merged_report(unsigned n, const unsigned *order)
{
    gt_report_doc **docs = calloc(n, sizeof *docs);
    char err[256];
    for (unsigned i = 0; i < n; i++) {
        unsigned k = order ? order[i] : i + 1;
        char *text = library_report(k, n, 1 + k % 3);
        docs[i] = gt_report_load_text("shard", text, strlen(text), err, sizeof err);
        ck_assert_msg(docs[i] != NULL, "%s", err);
        free(text);
    }
    gt_report_doc *merged = gt_report_merge(docs, n, err, sizeof err);
    ck_assert_msg(merged != NULL, "%s", err);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert_int_eq(gt_report_json(out, gt_report_doc_run(merged), gt_report_doc_info(merged)), 0);
    fclose(out);
    gt_report_doc_free(merged);
    for (unsigned i = 0; i < n; i++)
        gt_report_doc_free(docs[i]);
    free(docs);
    return text;
}

START_TEST(merged_shards_equal_the_unsharded_run)
{
    char *unsharded = library_report(0, 0, 1);
    static const unsigned shuffled[] = {3, 1, 4, 2};
    char *four = merged_report(4, shuffled), *seven = merged_report(7, NULL);
    assert_same_report(four, unsharded);
    assert_same_report(seven, unsharded);
    free(four);
    free(seven);
    free(unsharded);
}
END_TEST

START_TEST(more_shards_than_cases)
{
    static const char text[] = "{\"format\": \"gauntlet-corpus/1\", \"cases\": ["
                               "{\"id\": \"a\", \"gate\": \"syntax\", \"category\": \"c\", \"input\": \"1\", "
                               "\"expect\": {\"verdict\": \"accept\"}}]}";
    char err[256];
    gt_report_doc *docs[3];
    for (unsigned k = 1; k <= 3; k++) {
        gt_corpus *corpus = gt_corpus_new();
        gt_corpus_load_text(corpus, "c.cases.json", text, sizeof text - 1);
        gt_report_info info = {.corpus_sha256 = "x", .corpus_cases = 1, .selected_cases = 1, .shard_index = k,
                               .shard_count = 3};
        gt_corpus_shard(corpus, k, 3);
        gt_run *run = gt_run_cases(corpus, "reference", 1, NULL, NULL, err, sizeof err);
        ck_assert_uint_eq(run->count, k == 1 ? 1 : 0);
        char *json = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&json, &len);
        gt_report_json(out, run, &info);
        fclose(out);
        docs[k - 1] = gt_report_load_text("s", json, len, err, sizeof err);
        ck_assert_msg(docs[k - 1] != NULL, "%s", err);
        free(json);
        gt_run_free(run);
        gt_corpus_free(corpus);
    }
    gt_report_doc *merged = gt_report_merge(docs, 3, err, sizeof err);
    ck_assert_msg(merged != NULL, "%s", err);
    ck_assert_uint_eq(gt_report_doc_run(merged)->count, 1);
    ck_assert_uint_eq(gt_report_doc_info(merged)->shard_count, 0);
    gt_report_doc_free(merged);
    for (int i = 0; i < 3; i++)
        gt_report_doc_free(docs[i]);
}
END_TEST

START_TEST(shard_selection_is_round_robin)
{
    char text[4096];
    size_t used = (size_t)snprintf(text, sizeof text, "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": "
                                                      "\"syntax\", \"category\": \"c\"}, \"cases\": [");
    for (int i = 0; i < 10; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s{\"id\": \"c%d\", \"input\": \"1\", \"expect\": "
                                 "{\"verdict\": \"accept\"}}", i ? ", " : "", i);
    snprintf(text + used, sizeof text - used, "]}");
    int seen[10] = {0};
    for (unsigned k = 1; k <= 3; k++) {
        gt_corpus *corpus = gt_corpus_new();
        ck_assert_int_eq(gt_corpus_load_text(corpus, "r.cases.json", text, strlen(text)), 10);
        ck_assert_uint_eq(gt_corpus_shard(corpus, k, 3), k == 1 ? 4 : 3);
        for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
            int id = atoi(gt_corpus_case(corpus, i)->input.id + 1);
            ck_assert_int_eq(id, (int)(i * 3 + k - 1)); /* position p of the selection is result p/N of shard p%N+1 */
            seen[id]++;
        }
        gt_corpus_free(corpus);
    }
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(seen[i], 1);
    /* after a filter, the shards split what the filter kept */
    gt_corpus *corpus = gt_corpus_new();
    gt_corpus_load_text(corpus, "r.cases.json", text, strlen(text));
    gt_corpus_filter(corpus, NULL, NULL, "c[2-7]");
    ck_assert_uint_eq(gt_corpus_shard(corpus, 2, 2), 3);
    ck_assert_str_eq(gt_corpus_case(corpus, 0)->input.id, "c3");
    ck_assert_str_eq(gt_corpus_case(corpus, 2)->input.id, "c7");
    ck_assert_uint_eq(gt_corpus_shard(corpus, 5, 2), 3); /* a bad shard keeps everything */
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(merge_refuses_shards_that_do_not_belong_together)
{
    char err[256];
    char *texts[3];
    gt_report_doc *docs[3];
    for (unsigned k = 1; k <= 3; k++) {
        texts[k - 1] = library_report_of(GT_TEST_CORPUS "/syntax/fence", k, 3, 1);
        docs[k - 1] = gt_report_load_text("s", texts[k - 1], strlen(texts[k - 1]), err, sizeof err);
    }
    ck_assert_ptr_null(gt_report_merge(docs, 2, err, sizeof err)); /* one missing */
    ck_assert_ptr_nonnull(strstr(err, "split into 3 shards"));
    gt_report_doc *twice[3] = {docs[0], docs[1], docs[1]};
    ck_assert_ptr_null(gt_report_merge(twice, 3, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "given twice"));
    ck_assert_ptr_null(gt_report_merge(docs, 0, err, sizeof err));

    /* another corpus: change the hash of shard 2 */
    char *other = strdup(texts[1]);
    char *hash = strstr(other, "\"sha256\": \"") + 11;
    hash[0] = hash[0] == '0' ? '1' : '0';
    gt_report_doc *foreign = gt_report_load_text("s", other, strlen(other), err, sizeof err);
    gt_report_doc *mixed[3] = {docs[0], foreign, docs[2]};
    ck_assert_ptr_null(gt_report_merge(mixed, 3, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "corpus"));
    gt_report_doc_free(foreign);
    free(other);

    /* an unsharded report cannot be merged with others */
    char *whole = library_report_of(GT_TEST_CORPUS "/syntax/fence", 0, 0, 1);
    gt_report_doc *unsharded = gt_report_load_text("u", whole, strlen(whole), err, sizeof err);
    gt_report_doc *with_whole[2] = {unsharded, docs[0]};
    ck_assert_ptr_null(gt_report_merge(with_whole, 2, err, sizeof err));
    gt_report_doc_free(unsharded);
    free(whole);
    for (int i = 0; i < 3; i++) {
        gt_report_doc_free(docs[i]);
        free(texts[i]);
    }
}
END_TEST

START_TEST(command_without_outputs)
{
    char *plain = gt_report_command_without_outputs(
        "gauntlet run corpus --shard 2/4 --report json:s2.json,html:'a b.html' --gate syntax --certify -q "
        "--baseline=b.json --report=md:x.md --target 'adapter:./a --report x'");
    ck_assert_str_eq(plain, "gauntlet run corpus --gate syntax --target 'adapter:./a --report x'");
    free(plain);
    ck_assert_ptr_null(gt_report_command_without_outputs(NULL));
}
END_TEST

static int cli(int (*command)(int, char **), char **argv, char *out, size_t out_len)
{
    return gt_test_cli(command, argv, out, out_len);
}

START_TEST(cli_shard_and_merge_equal_the_unsharded_run)
{
    static char out[1 << 16];
    char report[300];
    for (int k = 1; k <= 3; k++) {
        char shard[16], name[32];
        snprintf(shard, sizeof shard, "%d/3", k);
        snprintf(name, sizeof name, "s%d.json", k);
        snprintf(report, sizeof report, "json:%s", in_dir(name));
        char *argv[] = {"run", GT_TEST_CORPUS, "--shard", shard, "--report", report, "-j", "2", NULL};
        ck_assert_msg(cli(gt_cmd_run, argv, out, sizeof out) == 0, "%s", out);
    }
    snprintf(report, sizeof report, "json:%s,tap:%s", in_dir("full.json"), in_dir("full.tap"));
    char *full[] = {"run", GT_TEST_CORPUS, "--report", report, NULL};
    ck_assert_int_eq(cli(gt_cmd_run, full, out, sizeof out), 0);
    char *full_output = strdup(out);

    snprintf(report, sizeof report, "json:%s,tap:%s,html:%s,md:%s,junit:%s", in_dir("merged.json"),
             in_dir("merged.tap"), in_dir("merged.html"), in_dir("merged.md"), in_dir("merged.xml"));
    char *merge[] = {"merge", in_dir("s3.json"), in_dir("s1.json"), in_dir("s2.json"), "--report", report, NULL};
    ck_assert_msg(cli(gt_cmd_merge, merge, out, sizeof out) == 0, "%s", out);
    /* the same console as the unsharded run from the gate table down to the totals line */
    ck_assert_str_eq(strstr(out, "\ngate "), strstr(full_output, "\ngate "));
    free(full_output);

    char *merged = gt_test_slurp(in_dir("merged.json")), *unsharded = gt_test_slurp(in_dir("full.json"));
    assert_same_report(merged, unsharded);
    cJSON *root = cJSON_Parse(merged);
    /* the reproduce command keeps what decides results; -j and output options are not among them */
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(root, "command")->valuestring, "gauntlet run corpus");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(root, "shard")));
    cJSON_Delete(root);
    free(merged);
    free(unsharded);
    char *tap_merged = gt_test_slurp(in_dir("merged.tap")), *tap_full = gt_test_slurp(in_dir("full.tap"));
    ck_assert_str_eq(tap_merged, tap_full); /* every case passes: no timing in the TAP */
    free(tap_merged);
    free(tap_full);
    struct stat info;
    ck_assert_int_eq(stat(in_dir("merged.html"), &info), 0);
    ck_assert_int_eq(stat(in_dir("merged.md"), &info), 0);
    ck_assert_int_eq(stat(in_dir("merged.xml"), &info), 0);

    /* without --report the merged JSON goes to standard output */
    char *to_stdout[] = {"merge", in_dir("s1.json"), in_dir("s2.json"), in_dir("s3.json"), "-q", NULL};
    ck_assert_int_eq(cli(gt_cmd_merge, to_stdout, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "\"format\": \"gauntlet-report/1\""));

    /* a missing shard, a shard twice, a shard of another selection, no input: exit 2 */
    char *missing[] = {"merge", in_dir("s1.json"), in_dir("s2.json"), "-q", NULL};
    ck_assert_int_eq(cli(gt_cmd_merge, missing, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "split into 3 shards"));
    char *twice[] = {"merge", in_dir("s1.json"), in_dir("s2.json"), in_dir("s2.json"), "-q", NULL};
    ck_assert_int_eq(cli(gt_cmd_merge, twice, out, sizeof out), 2);
    snprintf(report, sizeof report, "json:%s", in_dir("syntax-2.json"));
    char *other[] = {"run", GT_TEST_CORPUS, "--gate", "syntax", "--shard", "2/3", "--report", report, "-q", NULL};
    ck_assert_int_eq(cli(gt_cmd_run, other, out, sizeof out), 0);
    char *foreign[] = {"merge", in_dir("s1.json"), in_dir("syntax-2.json"), in_dir("s3.json"), "-q", NULL};
    ck_assert_int_eq(cli(gt_cmd_merge, foreign, out, sizeof out), 2);
    char *none[] = {"merge", NULL};
    ck_assert_int_eq(cli(gt_cmd_merge, none, out, sizeof out), 2);
    char *unreadable[] = {"merge", in_dir("nope.json"), NULL};
    ck_assert_int_eq(cli(gt_cmd_merge, unreadable, out, sizeof out), 2);
    char *bad_shard[] = {"run", GT_TEST_CORPUS, "--shard", "4/3", NULL};
    ck_assert_int_eq(cli(gt_cmd_run, bad_shard, out, sizeof out), 2);
    char *zero_shard[] = {"run", GT_TEST_CORPUS, "--shard", "0/3", NULL};
    ck_assert_int_eq(cli(gt_cmd_run, zero_shard, out, sizeof out), 2);
}
END_TEST

START_TEST(cli_merge_exit_codes_follow_run)
{
    static char out[1 << 16];
    char corpus_dir[128];
    snprintf(corpus_dir, sizeof corpus_dir, "%s/corpus", dir);
    mkdir(corpus_dir, 0700);
    FILE *file = fopen(in_dir("corpus/t.cases.json"), "w");
    fputs("{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": \"syntax\", \"category\": \"t\"}, \"cases\": ["
          "{\"id\": \"a\", \"input\": \"{}\", \"expect\": {\"verdict\": \"accept\"}},"
          "{\"id\": \"b\", \"input\": \"{}\", \"expect\": {\"verdict\": \"reject\", \"gate\": \"syntax\", \"reason\": "
          "\"bom\"}},"
          "{\"id\": \"c\", \"input\": \"[]\", \"expect\": {\"verdict\": \"accept\"}}]}",
          file);
    fclose(file);
    char report[300];
    for (int k = 1; k <= 2; k++) {
        char shard[16], name[32];
        snprintf(shard, sizeof shard, "%d/2", k);
        snprintf(name, sizeof name, "t%d.json", k);
        snprintf(report, sizeof report, "json:%s", in_dir(name));
        char *argv[] = {"run", corpus_dir, "--shard", shard, "--report", report, NULL};
        ck_assert_int_eq(cli(gt_cmd_run, argv, out, sizeof out), k == 1 ? 0 : 1); /* b is in shard 2 */
    }
    snprintf(report, sizeof report, "json:%s", in_dir("merged.json"));
    char *merge[] = {"merge", in_dir("t1.json"), in_dir("t2.json"), "--report", report, "--certify", NULL};
    ck_assert_int_eq(cli(gt_cmd_merge, merge, out, sizeof out), 1);
    ck_assert_ptr_nonnull(strstr(out, "\nFAIL b: "));
    ck_assert_ptr_nonnull(strstr(out, "  reproduce       gauntlet run "));
    ck_assert_ptr_nonnull(strstr(out, "\n2 passed, 1 failed, 0 skipped\n"));
    /* the merged report is a baseline in which b already fails: nothing regressed */
    char *gated[] = {"merge", in_dir("t1.json"), in_dir("t2.json"), "--baseline", in_dir("merged.json"), "-o",
                     in_dir("again.json"), NULL};
    ck_assert_int_eq(cli(gt_cmd_merge, gated, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, ": 0 regressed, 0 fixed, 0 new"));
}
END_TEST

/* Bazel's and GoogleTest's sharding contract: TEST_TOTAL_SHARDS and the
 * 0-based TEST_SHARD_INDEX pick the same cases as --shard K/N (K = index +
 * 1), TEST_SHARD_STATUS_FILE is touched, XML_OUTPUT_FILE gets a JUnit
 * report beside any --report; a bad variable is exit 2 naming it; --shard
 * given wins over the environment. */
START_TEST(cli_bazel_sharding_environment)
{
    static char out[1 << 16], flag_out[1 << 16];
    char *by_flag[] = {"run", GT_TEST_CORPUS, "--list", "--shard", "2/4", NULL};
    ck_assert_int_eq(cli(gt_cmd_run, by_flag, flag_out, sizeof flag_out), 0);
    setenv("TEST_TOTAL_SHARDS", "4", 1);
    setenv("TEST_SHARD_INDEX", "1", 1);
    setenv("TEST_SHARD_STATUS_FILE", in_dir("status/shard"), 1);
    char *by_env[] = {"run", GT_TEST_CORPUS, "--list", NULL};
    ck_assert_int_eq(cli(gt_cmd_run, by_env, out, sizeof out), 0);
    ck_assert_str_eq(out, flag_out);
    ck_assert_int_eq(access(in_dir("status/shard"), F_OK), 0);
    char *flag_wins[] = {"run", GT_TEST_CORPUS, "--list", "--shard", "1/4", NULL};
    ck_assert_int_eq(cli(gt_cmd_run, flag_wins, out, sizeof out), 0);
    ck_assert_str_ne(out, flag_out);

    /* a run: its JUnit report at XML_OUTPUT_FILE, with a --report too */
    setenv("XML_OUTPUT_FILE", in_dir("bazel/test.xml"), 1);
    char report[300];
    snprintf(report, sizeof report, "json:%s", in_dir("shard.json"));
    char *run[] = {"run", GT_TEST_CORPUS "/syntax", "--report", report, "-q", NULL};
    ck_assert_msg(cli(gt_cmd_run, run, out, sizeof out) == 0, "%s", out);
    char *xml = gt_test_slurp(in_dir("bazel/test.xml"));
    ck_assert_ptr_nonnull(strstr(xml, "<testsuites>"));
    free(xml);
    char *json = gt_test_slurp(in_dir("shard.json"));
    ck_assert_ptr_nonnull(strstr(json, "\"shard\": {\"index\": 2, \"count\": 4}"));
    free(json);
    ck_assert_int_eq(gt_test_junit_validate(in_dir("bazel/test.xml")), 0);
    unsetenv("XML_OUTPUT_FILE");

    /* bad values name the variable */
    const char *bad[][3] = {{"4", "4", "TEST_SHARD_INDEX needs a number from 0 to 3 (TEST_TOTAL_SHARDS=4), got '4'"},
                            {"0", "0", "TEST_TOTAL_SHARDS needs a number from 1 to 1024, got '0'"},
                            {"x", "0", "TEST_TOTAL_SHARDS needs a number from 1 to 1024, got 'x'"},
                            {"2", "-1", "TEST_SHARD_INDEX needs a number from 0 to 1 (TEST_TOTAL_SHARDS=2), got '-1'"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("TEST_TOTAL_SHARDS", bad[i][0], 1);
        setenv("TEST_SHARD_INDEX", bad[i][1], 1);
        ck_assert_int_eq(cli(gt_cmd_run, by_env, out, sizeof out), 2);
        ck_assert_msg(strstr(out, bad[i][2]) != NULL, "%s", out);
    }
    unsetenv("TEST_SHARD_INDEX");
    ck_assert_int_eq(cli(gt_cmd_run, by_env, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "TEST_TOTAL_SHARDS is set but TEST_SHARD_INDEX is not"));
    unsetenv("TEST_TOTAL_SHARDS");
    setenv("TEST_SHARD_STATUS_FILE", "/dev/null/status", 1);
    ck_assert_int_eq(cli(gt_cmd_run, by_env, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "cannot touch TEST_SHARD_STATUS_FILE '/dev/null/status'"));
    unsetenv("TEST_SHARD_STATUS_FILE");
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("shard");
    TCase *library = tcase_create("library");
    tcase_set_timeout(library, 120);
    tcase_add_test(library, shard_selection_is_round_robin);
    tcase_add_test(library, merged_shards_equal_the_unsharded_run);
    tcase_add_test(library, more_shards_than_cases);
    tcase_add_test(library, merge_refuses_shards_that_do_not_belong_together);
    tcase_add_test(library, command_without_outputs);
    suite_add_tcase(suite, library);
    TCase *cli_case = tcase_create("cli");
    tcase_set_timeout(cli_case, 120);
    tcase_add_checked_fixture(cli_case, setup, teardown);
    tcase_add_test(cli_case, cli_shard_and_merge_equal_the_unsharded_run);
    tcase_add_test(cli_case, cli_merge_exit_codes_follow_run);
    tcase_add_test(cli_case, cli_bazel_sharding_environment);
    suite_add_tcase(suite, cli_case);
    return suite;
}

GT_TEST_MAIN()
