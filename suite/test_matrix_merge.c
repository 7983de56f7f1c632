/* test_matrix_merge.c — `gauntlet matrix --merge`: a one-run three-column
 * matrix of fake targets (the reference client wrapper, a lax JSON-text
 * "library", a client that is not installed) against the merge of three
 * one-column runs: the same Markdown, HTML and JSON apart from the
 * generated-by line; and every input that must not merge (not a matrix JSON,
 * another merge version, another corpus, another case set, a column twice,
 * options that run columns) exits 2 naming the file and the column. The
 * "Reported in the field" section (--repos, --previous) in md, html and
 * json, and kept by a merge. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gt_test.h"
#include "runner/cli/commands.h"

#define CASES "corpus/loop/attempts"
#define ONLY "loop.attempts.[fi][in][rv]*" /* first-try-valid, five-invalid-default-limit, invalid-then-valid */
#define REFERENCE "reference=http:adapters/http-reference-client/run.sh"
#define LAX "lax=http:python3 suite/adapters/form_client.py forced-tool"
#define MISSING "missing=http:/no/such/client.sh"

/* `text` without its lines that hold `marker` (the generated-by line). */
static char *without_lines(const char *text, const char *marker)
{
    char *out = malloc(strlen(text) + 1);
    size_t used = 0, dropped = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        char *copy = strndup(line, len);
        if (strstr(copy, marker) == NULL) {
            memcpy(out + used, line, len);
            used += len;
        } else {
            dropped++;
        }
        free(copy);
        line += len;
    }
    out[used] = '\0';
    ck_assert_int_eq(dropped, 1); /* exactly the generated-by line differs */
    return out;
}

static void write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    fclose(file);
}

/* `from` with the first `old` replaced by `new`, written to `to`. */
static void edited_copy(const char *from, const char *to, const char *old, const char *new)
{
    char *text = gt_test_slurp(from);
    char *at = strstr(text, old);
    ck_assert_msg(at != NULL, "no %s in %s", old, from);
    char *edited = malloc(strlen(text) + strlen(new) + 1);
    size_t before = (size_t)(at - text);
    memcpy(edited, text, before);
    strcpy(edited + before, new);
    strcat(edited, at + strlen(old));
    write_file(to, edited);
    free(edited);
    free(text);
}

static void compare(const char *dir, const char *one, const char *merged, const char *marker)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, one);
    char *a = gt_test_slurp(path);
    snprintf(path, sizeof path, "%s/%s", dir, merged);
    char *b = gt_test_slurp(path);
    char *a_rest = without_lines(a, marker), *b_rest = without_lines(b, marker);
    ck_assert_msg(strcmp(a_rest, b_rest) == 0, "%s and %s differ beyond the generated-by line", one, merged);
    ck_assert_msg(strcmp(a, b) != 0, "%s and %s have the same generated-by line", one, merged);
    free(a), free(b), free(a_rest), free(b_rest);
}

START_TEST(merge_of_one_column_runs_is_the_one_run)
{
    char dir[] = "/tmp/gt-mmerge-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char reports[600], column_a[320], column_b[320], column_c[320], file_a[300], file_b[300], file_c[300];
    static char out[1 << 16];
    snprintf(reports, sizeof reports, "json:%s/one.json,md:%s/one.md,html:%s/one.html", dir, dir, dir);
    char *one[] = {"matrix",     CASES,
                   "--id",       ONLY,
                   "--target",   REFERENCE,
                   "--target",   LAX,
                   "--target",   MISSING,
                   "--profile",  "reference=all",
                   "--profile",  "lax=all",
                   "--evidence", "lax=its docs say so",
                   "--version",  "reference=gauntlet client",
                   "--report",   reports,
                   NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, one, out, sizeof out), 1);
    snprintf(file_a, sizeof file_a, "%s/a.json", dir);
    snprintf(file_b, sizeof file_b, "%s/b.json", dir);
    snprintf(file_c, sizeof file_c, "%s/c.json", dir);
    snprintf(column_a, sizeof column_a, "json:%s", file_a);
    snprintf(column_b, sizeof column_b, "json:%s", file_b);
    snprintf(column_c, sizeof column_c, "json:%s", file_c);
    char *a[] = {"matrix",    CASES,
                 "--id",      ONLY,
                 "--target",  REFERENCE,
                 "--profile", "reference=all",
                 "--version", "reference=gauntlet client",
                 "--report",  column_a,
                 NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, a, out, sizeof out), 0);
    char *b[] = {"matrix",   CASES,       "--id",    ONLY,         "--target",
                 LAX,        "--profile", "lax=all", "--evidence", "lax=its docs say so",
                 "--report", column_b,    NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, b, out, sizeof out), 0);
    char *c[] = {"matrix", CASES, "--id", ONLY, "--target", MISSING, "--report", column_c, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, c, out, sizeof out), 1);

    snprintf(reports, sizeof reports, "json:%s/m.json,md:%s/m.md,html:%s/m.html", dir, dir, dir);
    char *merge[] = {"matrix", "--merge", file_a, file_b, file_c, "--report", reports, NULL};
    /* a column that could not run stays so: exit 1, as the one run */
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, merge, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "reference: played 3, pass 3, fail 0 (unsafe 0)") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "lax: played 3, pass 1, fail 2 (unsafe 2)") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "missing: could not run") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "matrix: 3 implementations, 3 cases, 1 could not run") != NULL, "%s", out);
    compare(dir, "one.md", "m.md", "Generated by ");
    compare(dir, "one.html", "m.html", "<p>gauntlet matrix ");
    compare(dir, "one.json", "m.json", "\"generated_at\"");
    /* another order: the columns follow the files */
    snprintf(reports, sizeof reports, "md:%s/ba.md", dir);
    char *reorder[] = {"matrix", "--merge", file_b, file_a, "--report", reports, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, reorder, out, sizeof out), 0);
    snprintf(reports, sizeof reports, "%s/ba.md", dir);
    char *md = gt_test_slurp(reports);
    ck_assert_ptr_nonnull(strstr(md, "| ` loop.attempts.five-invalid-default-limit ` | reject | **✗!** | ✓ |"));
    free(md);
    /* --notes DIR: the notes as they are now, not as the column was run with */
    char notes_dir[320], notes_file[340];
    snprintf(notes_dir, sizeof notes_dir, "%s/notes", dir);
    ck_assert_int_eq(mkdir(notes_dir, 0700), 0);
    snprintf(notes_file, sizeof notes_file, "%s/lax.md", notes_dir);
    FILE *notes = fopen(notes_file, "w");
    ck_assert_ptr_nonnull(notes);
    fputs("Relabelled after the run: a lax parser.\n", notes);
    ck_assert_int_eq(fclose(notes), 0);
    snprintf(reports, sizeof reports, "md:%s/notes.md", dir);
    char *renotes[] = {"matrix", "--merge", file_a, file_b, "--notes", notes_dir, "--report", reports, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, renotes, out, sizeof out), 0);
    snprintf(reports, sizeof reports, "%s/notes.md", dir);
    md = gt_test_slurp(reports);
    ck_assert_ptr_nonnull(strstr(md, "Relabelled after the run: a lax parser."));
    free(md);

    char command[400];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

/* Exit 2, and the output names `file` and holds `what`. */
static void refused(char **argv, const char *file, const char *what)
{
    static char out[1 << 16];
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, argv, out, sizeof out), 2);
    ck_assert_msg(strstr(out, file) != NULL, "no %s in: %s", file, out);
    ck_assert_msg(strstr(out, what) != NULL, "no \"%s\" in: %s", what, out);
}

START_TEST(merge_refuses_what_does_not_belong_together)
{
    char dir[] = "/tmp/gt-mmerge-bad-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char a[300], b[300], other[300], junk[300], run[300], version[300], corpus[300], spec[400], out_md[300];
    static char out[1 << 16];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(other, sizeof other, "%s/other.json", dir);
    snprintf(junk, sizeof junk, "%s/junk.json", dir);
    snprintf(run, sizeof run, "%s/run.json", dir);
    snprintf(version, sizeof version, "%s/version.json", dir);
    snprintf(corpus, sizeof corpus, "%s/corpus.json", dir);
    snprintf(out_md, sizeof out_md, "md:%s/m.md", dir);
    snprintf(spec, sizeof spec, "json:%s", a);
    char *make_a[] = {"matrix", CASES, "--target", "a=reference", "--report", spec, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, make_a, out, sizeof out), 0);
    snprintf(spec, sizeof spec, "json:%s", b);
    char *make_b[] = {"matrix", CASES, "--target", "b=reference", "--profile", "b=core", "--report", spec, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, make_b, out, sizeof out), 0);
    snprintf(spec, sizeof spec, "json:%s", other);
    char *make_other[] = {"matrix", CASES, "--id", ONLY, "--target", "c=reference", "--report", spec, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, make_other, out, sizeof out), 0);
    snprintf(spec, sizeof spec, "json:%s", run);
    char *make_run[] = {"run", CASES, "--report", spec, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, make_run, out, sizeof out), 0);
    write_file(junk, "not json at all\n");
    edited_copy(a, version, "\"merge_version\": 1", "\"merge_version\": 7");
    edited_copy(b, corpus, "\"corpus_sha256\": \"", "\"corpus_sha256\": \"00");

    /* the good pair merges: a's 15 agreeing cells, b's core claim */
    char *good[] = {"matrix", "--merge", a, b, "--report", out_md, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, good, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "matrix: 2 implementations, 15 cases, 0 could not run") != NULL, "%s", out);

    char *not_json[] = {"matrix", "--merge", a, junk, "--report", out_md, NULL};
    refused(not_json, junk, "not a matrix JSON");
    char *run_report[] = {"matrix", "--merge", run, "--report", out_md, NULL};
    refused(run_report, run, "not a matrix JSON");
    char *wrong_version[] = {"matrix", "--merge", version, "--report", out_md, NULL};
    refused(wrong_version, version, "merge_version 7");
    char *wrong_corpus[] = {"matrix", "--merge", a, corpus, "--report", out_md, NULL};
    refused(wrong_corpus, corpus, "different corpora");
    char *wrong_cases[] = {"matrix", "--merge", a, other, "--report", out_md, NULL};
    refused(wrong_cases, other, "not the same case selection");
    char *twice[] = {"matrix", "--merge", a, b, a, "--report", out_md, NULL};
    refused(twice, a, "column a is already in");
    char *missing[] = {"matrix", "--merge", "/no/such/matrix.json", "--report", out_md, NULL};
    refused(missing, "/no/such/matrix.json", "cannot read");
    char *runs_too[] = {"matrix", "--merge", a, "--target", "x=reference", "--report", out_md, NULL};
    refused(runs_too, "--target", "takes no");
    char *no_report[] = {"matrix", "--merge", a, NULL};
    refused(no_report, "--report", "needs");
    char *no_notes[] = {"matrix", "--merge", a, "--notes", "/no/such/notes", "--report", out_md, NULL};
    refused(no_notes, "/no/such/notes", "--notes needs a directory");
    char *no_file[] = {"matrix", "--merge", "--report", out_md, NULL};
    refused(no_file, "--merge", "at least one matrix JSON");

    char command[400];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

#define FIELD_CASES "corpus/field/retry-count.cases.json", "corpus/field/stop-reasons.cases.json"
#define FIELD_LAX_REPOS "lax=anomalyco/opencode,pydantic/pydantic-ai"

/* `old`: `from` with lax's version 1.0, the pydantic case failed and the
 * bound case passed (so now one is fixed and one is new). */
static void previous_matrix(const char *from, const char *old)
{
    char *text = gt_test_slurp(from);
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *impl;
    int lax = -1, at = 0;
    cJSON_ArrayForEach(impl, cJSON_GetObjectItem(root, "implementations"))
    {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(impl, "name")), "lax") == 0) {
            lax = at;
            cJSON_ReplaceItemInObject((cJSON *)impl, "version", cJSON_CreateString("1.0"));
        }
        at++;
    }
    ck_assert_int_ge(lax, 0);
    cJSON *kase;
    cJSON_ArrayForEach(kase, cJSON_GetObjectItem(root, "cases"))
    {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(kase, "id"));
        cJSON *cell = cJSON_GetArrayItem(cJSON_GetObjectItem(kase, "cells"), lax);
        if (strcmp(id, "field.pydantic-ai-4310.openai-refusal-short-circuits") == 0)
            cJSON_ReplaceItemInObject(cell, "outcome", cJSON_CreateString("fail"));
        if (strcmp(id, "field.opencode-25430.configured-limit-is-the-bound") == 0)
            cJSON_ReplaceItemInObject(cell, "outcome", cJSON_CreateString("pass"));
    }
    char *edited = cJSON_Print(root);
    write_file(old, edited);
    free(edited);
    cJSON_Delete(root);
}

START_TEST(field_section_per_library)
{
    char dir[] = "/tmp/gt-mmerge-field-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char reports[600], path[300], old[300], merged[300];
    static char out[1 << 16];
    snprintf(reports, sizeof reports, "json:%s/a.json,md:%s/a.md,html:%s/a.html", dir, dir, dir);
    char *first[] = {"matrix",    FIELD_CASES,       "--target",  LAX,
                     "--profile", "lax=all",         "--version", "lax=2.0",
                     "--repos",   FIELD_LAX_REPOS,   "--target",  "core=reference",
                     "--profile", "core=core",       "--repos",   "core=anomalyco/opencode",
                     "--target",  "none=reference",  "--repos",   "none=nobody/nothing",
                     "--target",  "plain=reference", "--report",  reports,
                     NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, first, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/a.md", dir);
    char *md = gt_test_slurp(path);
    ck_assert_ptr_nonnull(strstr(md,
                                 "**Reported in the field** (threads of ` anomalyco/opencode,pydantic/pydantic-ai `; "
                                 "3 cases)"));
    ck_assert_ptr_nonnull(
        strstr(md, "**✗!** ` anomalyco/opencode#25430 https://github.com/anomalyco/opencode/issues/25430 "
                   "` — ` field.opencode-25430.configured-limit-allows-retries `: ` still has it in 2.0: "));
    ck_assert_ptr_nonnull(
        strstr(md, "— ` field.pydantic-ai-4310.openai-refusal-short-circuits `: ` not reproduced in 2.0 `"));
    ck_assert_ptr_nonnull(strstr(md,
                                 "— ` field.opencode-25430.configured-limit-is-the-bound `: ` not applicable: outside "
                                 "the profiles it claims `"));
    ck_assert_ptr_nonnull(strstr(md, "(threads of ` nobody/nothing `; 0 cases): no case of the selection comes from"));
    ck_assert_ptr_null(strstr(md, "since")); /* no --previous: nothing fixed or new */
    /* a column without --repos has no field section: 3 sections for 4 columns */
    size_t sections = 0;
    for (const char *at = md; (at = strstr(at, "**Reported in the field**")) != NULL; at++)
        sections++;
    ck_assert_int_eq(sections, 3);
    free(md);
    snprintf(path, sizeof path, "%s/a.html", dir);
    char *html = gt_test_slurp(path);
    ck_assert_ptr_nonnull(strstr(html, "<p><b>Reported in the field</b> (threads of <code>anomalyco/opencode,pydantic/"
                                       "pydantic-ai</code>; 3 cases)</p>"));
    ck_assert_ptr_nonnull(strstr(html, "<li class=\"agrees\">✓ <code>pydantic/pydantic-ai#4310 "));
    free(html);
    snprintf(path, sizeof path, "%s/a.json", dir);
    char *json = gt_test_slurp(path);
    ck_assert_ptr_nonnull(strstr(json, "\"repos\": \"anomalyco/opencode,pydantic/pydantic-ai\""));
    ck_assert_ptr_nonnull(strstr(json, "\"case\": \"field.opencode-25430.configured-limit-allows-retries\", "
                                       "\"status\": \"still_has_it\", \"previous\": null, \"change\": null}"));
    ck_assert_ptr_nonnull(strstr(json, "\"field\": null")); /* plain */
    free(json);

    /* --previous with another version: fixed since, new since; kept by a merge */
    snprintf(old, sizeof old, "%s/old.json", dir);
    previous_matrix(path, old);
    snprintf(reports, sizeof reports, "json:%s/b.json,md:%s/b.md", dir, dir);
    char *second[] = {"matrix",  FIELD_CASES,     "--target",   LAX, "--profile", "lax=all", "--version", "lax=2.0",
                      "--repos", FIELD_LAX_REPOS, "--previous", old, "--report",  reports,   NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, second, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/b.md", dir);
    md = gt_test_slurp(path);
    ck_assert_ptr_nonnull(strstr(md,
                                 "` field.pydantic-ai-4310.openai-refusal-short-circuits `: ` not reproduced in 2.0; "
                                 "fixed since 1.0 `"));
    ck_assert_ptr_nonnull(
        strstr(md, "` field.opencode-25430.configured-limit-is-the-bound `: ` still has it in 2.0: "));
    ck_assert_ptr_nonnull(strstr(md, "; new since 1.0 `"));
    snprintf(merged, sizeof merged, "%s/b.json", dir);
    snprintf(reports, sizeof reports, "md:%s/c.md", dir);
    char *merge[] = {"matrix", "--merge", merged, "--report", reports, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, merge, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/c.md", dir);
    char *merged_md = gt_test_slurp(path);
    ck_assert_str_eq(strstr(merged_md, "\n## Summary"), strstr(md, "\n## Summary"));
    free(merged_md);
    free(md);
    /* the same version in --previous: nothing is "since" */
    snprintf(reports, sizeof reports, "md:%s/d.md", dir);
    char *same[] = {"matrix",  FIELD_CASES,     "--target",   LAX, "--profile", "lax=all", "--version", "lax=1.0",
                    "--repos", FIELD_LAX_REPOS, "--previous", old, "--report",  reports,   NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_matrix, same, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/d.md", dir);
    md = gt_test_slurp(path);
    ck_assert_ptr_nonnull(strstr(md, "not reproduced in 1.0 `"));
    ck_assert_ptr_null(strstr(md, "since"));
    free(md);

    /* bad --repos and --previous: exit 2, naming them */
    char *bad_repos[] = {"matrix", FIELD_CASES, "--target", "a=reference", "--repos", "a=not-a-repo", NULL};
    refused(bad_repos, "--repos", "OWNER/REPO");
    snprintf(path, sizeof path, "%s/junk.json", dir);
    write_file(path, "{\"format\": \"gauntlet-report/1\"}\n");
    char *bad_previous[] = {"matrix", FIELD_CASES, "--target", "a=reference", "--previous", path, NULL};
    refused(bad_previous, path, "not a matrix JSON");
    char *bad_previous_merge[] = {"matrix", "--merge", merged, "--previous", path, "--report", reports, NULL};
    refused(bad_previous_merge, path, "not a matrix JSON");
    char command[400];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("matrix_merge");
    TCase *cli = tcase_create("cli");
    tcase_set_timeout(cli, 240);
    tcase_add_test(cli, merge_of_one_column_runs_is_the_one_run);
    tcase_add_test(cli, merge_refuses_what_does_not_belong_together);
    tcase_add_test(cli, field_section_per_library);
    suite_add_tcase(suite, cli);
    return suite;
}

GT_TEST_MAIN()
