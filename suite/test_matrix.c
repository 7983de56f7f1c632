/* test_matrix.c — `gauntlet matrix` with fake implementations, no npm: the
 * reference client wrapper (agrees everywhere), a lax "library" in JSON-text
 * form (suite/adapters/form_client.py), a fail-open shell one-liner, a
 * client that is not installed; the console lines, the exit codes, and the
 * JSON, Markdown and HTML reports (classification, versions, notes,
 * escaping). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cli/commands.h"
#include "gauntlet/runner/matrix.h"
#include "gt_test.h"

#define CASES "corpus/loop/attempts"
#define ONLY "loop.attempts.[fi][in][rv]*" /* first-try-valid, five-invalid-default-limit, invalid-then-valid */
#define FAIL_OPEN                                                                                                   \
    "fail-open=http:echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"structured_output\":{" \
    "\"cause\":\"<script>x</script>\",\"fixes\":[]},\"implementation\":{\"name\":\"fail <open>\",\"version\":"     \
    "\"9.9.9\",\"language\":\"sh\",\"packages\":{\"echo\":\"1\"}}}'"

static char *slurp(const char *path)
{
    FILE *file = fopen(path, "rb");
    ck_assert_msg(file != NULL, "no %s", path);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[len] = '\0';
    return strdup(text);
}

static const cJSON *implementation(const cJSON *root, const char *name)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItem(root, "implementations"))
    {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(item, "name")), name) == 0)
            return item;
    }
    ck_abort_msg("no implementation %s", name);
    return NULL;
}

static int number(const cJSON *object, const char *key)
{
    return (int)cJSON_GetNumberValue(cJSON_GetObjectItem(object, key));
}

/* The kind of `name`'s cell for case `id`. */
static const char *cell_kind(const cJSON *root, const char *id, const char *name)
{
    const cJSON *kase;
    cJSON_ArrayForEach(kase, cJSON_GetObjectItem(root, "cases"))
    {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(kase, "id")), id) != 0)
            continue;
        const cJSON *cell;
        cJSON_ArrayForEach(cell, cJSON_GetObjectItem(kase, "cells"))
        {
            if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cell, "implementation")), name) == 0)
                return cJSON_GetStringValue(cJSON_GetObjectItem(cell, "kind"));
        }
    }
    ck_abort_msg("no cell %s x %s", id, name);
    return NULL;
}

START_TEST(matrix_of_fake_implementations)
{
    char dir[] = "/tmp/gt-matrix-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char notes[256], note_file[300], reports[1024];
    snprintf(notes, sizeof notes, "%s", dir);
    snprintf(note_file, sizeof note_file, "%s/lax.md", dir);
    FILE *note = fopen(note_file, "w");
    fputs("A hand-written note about *lax*.\n", note);
    fclose(note);
    snprintf(reports, sizeof reports, "json:%s/m.json,md:%s/m.md,html:%s/m.html", dir, dir, dir);
    char *argv[] = {"matrix", CASES, "--id", ONLY,
                    "--target", "reference=http:adapters/http-reference-client/run.sh",
                    "--target", "lax=http:python3 suite/adapters/form_client.py forced-tool",
                    "--target", FAIL_OPEN,
                    "--target", "missing=http:/no/such/client.sh",
                    "--version", "reference=gauntlet client",
                    "--profile", "reference=all", "--profile", "lax=all", "--profile", "fail-open=all",
                    "--notes", notes, "--report", reports, NULL};
    static char out[1 << 16];
    /* one implementation could not run: exit 1, and its column says why */
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, argv, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "reference: played 3, pass 3, fail 0 (unsafe 0)") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "fail-open: played 3, pass 0, fail 3 (unsafe 3)") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "missing: could not run") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "matrix: 4 implementations, 3 cases, 1 could not run") != NULL, "%s", out);

    char path[300];
    snprintf(path, sizeof path, "%s/m.json", dir);
    char *json = slurp(path);
    cJSON *root = cJSON_Parse(json);
    ck_assert_ptr_nonnull(root);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(root, "format")), "gauntlet-matrix/1");
    ck_assert_int_eq(number(root, "cases_selected"), 3);
    const cJSON *reference = implementation(root, "reference");
    ck_assert_int_eq(number(reference, "played"), 3);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(reference, "version")), "gauntlet client");
    const cJSON *fail_open = implementation(root, "fail-open");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(fail_open, "version")), "9.9.9");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(fail_open, "packages")), "echo 1");
    ck_assert_int_eq(number(fail_open, "unsafe"), 3);
    const cJSON *missing = implementation(root, "missing");
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(missing, "available")));
    ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(missing, "unavailable")), "exit status 127"));
    /* the lax library acts on the invalid first answer: unsafe, though its verdict is accept as expected */
    ck_assert_str_eq(cell_kind(root, "loop.attempts.invalid-then-valid", "lax"), "unsafe");
    ck_assert_str_eq(cell_kind(root, "loop.attempts.five-invalid-default-limit", "lax"), "unsafe");
    ck_assert_str_eq(cell_kind(root, "loop.attempts.first-try-valid", "lax"), "agrees");
    ck_assert_str_eq(cell_kind(root, "loop.attempts.first-try-valid", "missing"), "not_run");
    cJSON_Delete(root);
    free(json);

    snprintf(path, sizeof path, "%s/m.md", dir);
    char *md = slurp(path);
    ck_assert_ptr_nonnull(strstr(md, "## Summary"));
    ck_assert_ptr_nonnull(strstr(md, "| ` reference ` | ` gauntlet client ` |"));
    ck_assert_ptr_nonnull(strstr(md, "| ` loop.attempts.five-invalid-default-limit ` | reject | ✓ | **✗!** | **✗!** | · |"));
    ck_assert_ptr_nonnull(strstr(md, "A hand-written note about *lax*."));
    /* a column's list heading is bold once, its mark unbolded inside it */
    ck_assert_ptr_nonnull(strstr(md, "\n**✗! Unsafe: accepted what must be refused"));
    ck_assert_ptr_null(strstr(md, "****"));
    ck_assert_ptr_nonnull(strstr(md, "**Could not run**"));
    ck_assert_ptr_nonnull(strstr(md, "` fail <open> `")); /* what a client says is a code span, never markup */
    free(md);

    snprintf(path, sizeof path, "%s/m.html", dir);
    char *html = slurp(path);
    ck_assert_ptr_nonnull(strstr(html, "Content-Security-Policy"));
    ck_assert_ptr_null(strstr(html, "<script"));
    ck_assert_ptr_nonnull(strstr(html, "&lt;script&gt;"));
    ck_assert_ptr_nonnull(strstr(html, "<details>"));
    free(html);
    char command[400];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

START_TEST(matrix_usage_errors_exit_2)
{
    static char out[1 << 14];
    char *none[] = {"matrix", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, none, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "at least one --target"));
    char *bad_name[] = {"matrix", "--target", "a b=reference", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, bad_name, out, sizeof out), 2);
    char *twice[] = {"matrix", "--target", "a=reference", "--target", "a=reference", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, twice, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "must differ"));
    char *format[] = {"matrix", "--target", "a=reference", "--report", "junit:x.xml", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, format, out, sizeof out), 2);
    char *empty[] = {"matrix", "--target", "a=reference", "--id", "no-such-case*", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, empty, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "no case matches"));
    /* the in-process reference: every case agrees, exit 0 */
    char *reference[] = {"matrix", "--target", "ref=reference", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, reference, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "ref: played 15, pass 15, fail 0 (unsafe 0), error 0, skip 0") != NULL, "%s", out);
    char *evidence[] = {"matrix", "--evidence", "a=why", "--target", "a=reference", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, evidence, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--evidence names no --target given before it: a"));
    char *language[] = {"matrix", "--target", "a=reference", "--language", "a", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, language, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--language needs NAME=TEXT, got a"));
    /* --column-jobs NAME=N: a named column, N from 1 to 64; the column then runs with N threads */
    char *jobs_unknown[] = {"matrix", "--target", "a=reference", "--column-jobs", "b=2", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, jobs_unknown, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--column-jobs names no --target given before it: b"));
    char *jobs_zero[] = {"matrix", "--target", "a=reference", "--column-jobs", "a=0", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, jobs_zero, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--column-jobs needs NAME=N with N from 1 to 64, got a=0"));
    char *jobs_word[] = {"matrix", "--target", "a=reference", "--column-jobs", "a=two", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, jobs_word, out, sizeof out), 2);
    char *jobs[] = {"matrix", "--target", "ref=reference", "--column-jobs", "ref=3", CASES, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, jobs, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "ref: played 15, pass 15, fail 0 (unsafe 0), error 0, skip 0") != NULL, "%s", out);
}
END_TEST

/* A column that claims only core: the repair-loop and claude-code cases are
 * not applicable (a mark of their own, counted apart), the claim and its
 * evidence and the --language fallback are shown, and the cells carry the
 * verdict class. */
START_TEST(matrix_not_applicable_and_claims)
{
    char dir[] = "/tmp/gt-matrix-na-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char reports[600];
    snprintf(reports, sizeof reports, "json:%s/m.json,md:%s/m.md,html:%s/m.html", dir, dir, dir);
    char *argv[] = {"matrix", CASES, "-j", "2", "--target", "all=reference", "--target", "core=reference",
                    "--profile", "core=core", "--evidence", "core=one call, no loop (its docs)",
                    "--language", "core=C", "--report", reports, NULL};
    static char out[1 << 16];
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, argv, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "all: played 15, pass 15, fail 0 (unsafe 0), error 0, skip 0") != NULL, "%s", out);
    char path[300];
    snprintf(path, sizeof path, "%s/m.json", dir);
    char *json = slurp(path);
    cJSON *root = cJSON_Parse(json);
    const cJSON *core = implementation(root, "core");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(core, "profiles")), "core");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(core, "language")), "C");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(core, "evidence")), "one call, no loop (its docs)");
    const cJSON *classes = cJSON_GetObjectItem(core, "classes");
    ck_assert_int_gt(number(classes, "not_applicable"), 0);
    ck_assert_int_eq(number(classes, "not_applicable") + number(core, "played"), 15);
    ck_assert_str_eq(cell_kind(root, "loop.attempts.five-invalid-default-limit", "core"), "not_applicable");
    cJSON_Delete(root);
    free(json);
    snprintf(path, sizeof path, "%s/m.md", dir);
    char *md = slurp(path);
    ck_assert_ptr_nonnull(strstr(md, "| n/a | `not_applicable` |")); /* the legend */
    ck_assert_ptr_nonnull(strstr(md, "| ` loop.attempts.five-invalid-default-limit ` | reject | ✓ | n/a |"));
    ck_assert_ptr_nonnull(strstr(md, "Profiles claimed: ` core ` — ` one call, no loop (its docs) `"));
    free(md);
    snprintf(path, sizeof path, "%s/m.html", dir);
    char *html = slurp(path);
    ck_assert_ptr_nonnull(strstr(html, "<td class=\"not_applicable\"><details><summary>n/a</summary>"));
    ck_assert_ptr_nonnull(strstr(html, "<h2>Implementations</h2>"));
    free(html);
    char command[400];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

static void write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    fclose(file);
}

/* matrix/notes/NAME.labels (docs/matrix-labels.md): one row per label with
 * its cells by class, each listed cell with its label, the unlabelled and
 * the stale shown, the summary's true-defect count, the JSON members, and
 * the labels carried through --merge without the file. */
START_TEST(matrix_labels_group_red_cells)
{
    char dir[] = "/tmp/gt-matrix-labels-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[400], reports[1024];
    snprintf(path, sizeof path, "%s/fail-open.labels", dir);
    write_file(path, "# the one-liner's red cells\n"
                     "defect accepts-anything: the one-liner returns its fixed object, *whatever* the model said\n"
                     "    loop.attempts.five-invalid-default-limit,loop.attempts.invalid-then-valid\n"
                     "\n"
                     "difference gone: a label whose case is not in the selection\n"
                     "\tloop.attempts.no-such-case\n");
    snprintf(reports, sizeof reports, "json:%s/m.json,md:%s/m.md,html:%s/m.html", dir, dir, dir);
    char *argv[] = {"matrix",    CASES, "--id", ONLY, "--target", FAIL_OPEN, "--profile", "fail-open=all",
                    "--notes", dir,   "--report", reports, NULL};
    static char out[1 << 16];
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, argv, out, sizeof out), 0);

    snprintf(path, sizeof path, "%s/m.md", dir);
    char *md = slurp(path);
    ck_assert_msg(strstr(md, "**Red cells by label** (3 red cells;") != NULL, "%s", md);
    ck_assert_msg(strstr(md, "| ` accepts-anything ` | **true defect** | 2 | 2 | 0 | 0 | 0 | 0 | 0 | the one-liner "
                             "returns its fixed object, *whatever* the model said |") != NULL,
                  "%s", md);
    ck_assert_ptr_nonnull(strstr(md, "| **unlabelled** | – | 1 | 1 |"));
    ck_assert_ptr_nonnull(strstr(md, "Labels with no cell in this run: ` gone `."));
    ck_assert_ptr_nonnull(strstr(md, "- ` loop.attempts.no-such-case `: not in this selection"));
    ck_assert_ptr_nonnull(strstr(md, "(subtype success) ` — label **true defect** ` accepts-anything `\n"));
    ck_assert_ptr_nonnull(strstr(md, "- ` loop.attempts.first-try-valid `:"));
    ck_assert_ptr_nonnull(strstr(strstr(md, "- ` loop.attempts.first-try-valid `:"), " — **unlabelled**\n"));
    ck_assert_msg(strstr(md, " | 1 (2 cells) | 3 |") != NULL, "summary: %s", md);
    /* the table comes before the hand-written notes and the lists */
    ck_assert(strstr(md, "**Red cells by label**") < strstr(md, "**✗! Unsafe"));
    free(md);

    snprintf(path, sizeof path, "%s/m.json", dir);
    char *json = slurp(path);
    cJSON *root = cJSON_Parse(json);
    ck_assert_ptr_nonnull(root);
    const cJSON *column = implementation(root, "fail-open");
    const cJSON *label = cJSON_GetArrayItem(cJSON_GetObjectItem(column, "labels"), 0);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(label, "id")), "accepts-anything");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(label, "kind")), "defect");
    ck_assert_int_eq(number(label, "cells"), 2);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(column, "unlabelled")), 1);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(column, "unlabelled"), 0)),
                     "loop.attempts.first-try-valid");
    const cJSON *stale = cJSON_GetArrayItem(cJSON_GetObjectItem(column, "stale_labels"), 0);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(stale, "case")), "loop.attempts.no-such-case");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(column, "true_defects")), "1 (2 cells)");
    ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(column, "labels_text")), "accepts-anything"));
    cJSON_Delete(root);
    free(json);

    snprintf(path, sizeof path, "%s/m.html", dir);
    char *html = slurp(path);
    ck_assert_ptr_nonnull(strstr(html, "<b>Red cells by label</b> (3 red cells)"));
    ck_assert_ptr_nonnull(strstr(html, "<code>accepts-anything</code></td><td class=\"unsafe\">true defect</td>"));
    ck_assert_ptr_nonnull(strstr(html, " — label <i>true defect</i> <code>accepts-anything</code>"));
    free(html);

    /* --merge without --notes renders the labels the column was run with */
    char merged[400], from[400];
    snprintf(from, sizeof from, "%s/m.json", dir);
    snprintf(merged, sizeof merged, "md:%s/merged.md", dir);
    char *merge[] = {"matrix", "--merge", from, "--report", merged, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, merge, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/merged.md", dir);
    md = slurp(path);
    ck_assert_ptr_nonnull(strstr(md, "| ` accepts-anything ` | **true defect** | 2 |"));
    free(md);

    /* a bad labels file: exit 2 before anything runs, naming the file and line */
    snprintf(path, sizeof path, "%s/fail-open.labels", dir);
    write_file(path, "# ok\ndefect a: one\n    loop.x\nbug b: two\n");
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, argv, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "fail-open.labels:4: a label line starts with its kind") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "'bug'") != NULL, "%s", out);
    ck_assert_ptr_null(strstr(out, "played"));
    char command[500];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

/* The parser alone: every error names the path and the line. */
START_TEST(matrix_labels_parse_errors)
{
    static const struct {
        const char *text, *error;
    } bad[] = {
        {"    loop.a\n", "x.labels:1: a case id before the first label line"},
        {"defect Upper: t\n", "x.labels:1: a label line is 'KIND ID: TITLE'"},
        {"defect a:\n", "x.labels:1: the label has no title"},
        {"defect a t\n", "x.labels:1: a label line is 'KIND ID: TITLE'"},
        {"defect a: t\nlimit a: u\n", "x.labels:2: a second label with the id 'a'"},
        {"defect a: t\n  loop.a\nlimit b: u\n  loop.b loop.a\n",
         "x.labels:4: case 'loop.a' is in two labels: 'a' (line 1) and 'b'"},
        {"defect a: t\n  loop.a;rm\n", "x.labels:2: a case line holds case ids"},
        {"\n\n# c\nfixme a: t\n", "x.labels:4: a label line starts with its kind"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[300] = "";
        gt_matrix_labels *labels = gt_matrix_labels_parse(bad[i].text, "x.labels", err, sizeof err);
        ck_assert_msg(labels == NULL, "accepted: %s", bad[i].text);
        ck_assert_msg(strstr(err, bad[i].error) != NULL, "%s: got '%s'", bad[i].text, err);
    }
    char err[300] = "";
    gt_matrix_labels *labels = gt_matrix_labels_parse("# c\r\ndefect a-1: t *md*\r\n  x.a, x.b\r\n\r\nmock m_2: the mock\n"
                                                      "\tx.c\n", "ok.labels", err, sizeof err);
    ck_assert_msg(labels != NULL, "%s", err);
    ck_assert_int_eq(labels->count, 2);
    ck_assert_int_eq(labels->case_count, 3);
    ck_assert_str_eq(labels->items[0].title, "t *md*");
    ck_assert_int_eq(labels->items[1].kind, GT_MATRIX_LABEL_MOCK);
    ck_assert_str_eq(gt_matrix_labels_find(labels, "x.b")->id, "a-1");
    ck_assert_str_eq(gt_matrix_labels_find(labels, "x.c")->id, "m_2");
    ck_assert_ptr_null(gt_matrix_labels_find(labels, "x"));
    gt_matrix_labels_free(labels);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("matrix");
    TCase *cli = tcase_create("cli");
    tcase_set_timeout(cli, 240);
    tcase_add_test(cli, matrix_of_fake_implementations);
    tcase_add_test(cli, matrix_usage_errors_exit_2);
    tcase_add_test(cli, matrix_not_applicable_and_claims);
    tcase_add_test(cli, matrix_labels_group_red_cells);
    tcase_add_test(cli, matrix_labels_parse_errors);
    suite_add_tcase(suite, cli);
    return suite;
}

GT_TEST_MAIN()
