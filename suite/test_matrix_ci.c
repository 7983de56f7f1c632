/* test_matrix_ci.c — the matrix as CI runs it: matrix/run.sh's column mode
 * (MATRIX_COLUMN_ONLY, `make matrix-column`) and merge mode (MATRIX_MERGE,
 * `make matrix-merge`) give the reports of one full run over the same
 * columns; a missing column file stops the merge; and the workflow
 * .github/workflows/matrix.yml has one column job per column run.sh knows
 * (no more, no fewer), a merge job that needs them, and only make targets
 * that exist (`make -n`). Runs over one case, reference-client and
 * naive-node (no npm packages: MATRIX_NO_INSTALL). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/runner/matrix.h"
#include "gt_test.h"

/* `text` after the generated-by line: from `marker` on. */
static const char *after(const char *text, const char *marker)
{
    const char *at = strstr(text, marker);
    ck_assert_msg(at != NULL, "no %s", marker);
    return at;
}

#define ENV                                                                                                            \
    "MATRIX_NO_INSTALL=1 MATRIX_PATHS=corpus/loop/attempts MATRIX_SELECT='--id loop.attempts.f*' "                     \
    "MATRIX_TARGETS='reference-client naive-node' GAUNTLET=\"${GAUNTLET:-build/gauntlet}\" "

START_TEST(column_jobs_then_merge_equal_one_run)
{
    char dir[] = "/tmp/gt-matrix-ci-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static char out[1 << 16];
    char command[1024], path[300];
    snprintf(command, sizeof command, ENV "MATRIX_OUT=%s/one sh matrix/run.sh 2>&1", dir);
    ck_assert_msg(gt_test_shell(command, out, sizeof out) == 0, "%s", out);
    snprintf(command, sizeof command, ENV "MATRIX_OUT=%s/ci MATRIX_COLUMN_ONLY=1 sh matrix/run.sh 2>&1", dir);
    ck_assert_msg(gt_test_shell(command, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "--report json:") != NULL, "%s", out);
    /* the column files, one folder per artifact as download-artifact leaves them, or flat */
    snprintf(command, sizeof command,
             "mkdir -p %s/ci/columns/matrix-column-naive-node && mv %s/ci/columns/naive-node.json "
             "%s/ci/columns/matrix-column-naive-node/",
             dir, dir, dir);
    ck_assert_int_eq(system(command), 0);
    snprintf(command, sizeof command, ENV "MATRIX_OUT=%s/ci MATRIX_MERGE=1 sh matrix/run.sh 2>&1", dir);
    ck_assert_msg(gt_test_shell(command, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "matrix: 2 implementations, 4 cases, 0 could not run") != NULL, "%s", out);
    static const char *const reports[] = {"matrix.md", "matrix.html", "matrix.json"};
    static const char *const markers[] = {"\n## Summary", "<h2>Legend</h2>", "\"corpus_sha256\""};
    for (size_t r = 0; r < 3; r++) {
        snprintf(path, sizeof path, "%s/one/%s", dir, reports[r]);
        char *one = gt_test_slurp(path);
        snprintf(path, sizeof path, "%s/ci/%s", dir, reports[r]);
        char *merged = gt_test_slurp(path);
        ck_assert_msg(strcmp(after(one, markers[r]), after(merged, markers[r])) == 0, "%s differs", reports[r]);
        ck_assert_ptr_nonnull(strstr(merged, "naive-node"));
        ck_assert_ptr_nonnull(strstr(merged, "reference-client"));
        free(one);
        free(merged);
    }
    /* a column without its file: exit 2, naming it */
    snprintf(command, sizeof command, "rm -r %s/ci/columns/matrix-column-naive-node", dir);
    ck_assert_int_eq(system(command), 0);
    snprintf(command, sizeof command, ENV "MATRIX_OUT=%s/ci MATRIX_MERGE=1 sh matrix/run.sh 2>&1", dir);
    ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "no column file") != NULL && strstr(out, "naive-node.json") != NULL, "%s", out);
    snprintf(command, sizeof command, "rm -rf %s", dir);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

/* The workflow's jobs, read with PyYAML: "LIBRARY name" per column-job matrix
 * value, "NEEDS job" for the merge job, "MAKE args" per make command. */
#define READ_WORKFLOW                                                                                                  \
    "python3 -c 'import re, yaml\n"                                                                                    \
    "w = yaml.safe_load(open(\".github/workflows/matrix.yml\"))\n"                                                     \
    "jobs = w[\"jobs\"]\n"                                                                                             \
    "for n in jobs[\"column\"][\"strategy\"][\"matrix\"][\"library\"]: print(\"LIBRARY\", n)\n"                        \
    "print(\"NEEDS\", jobs[\"merge\"][\"needs\"])\n"                                                                   \
    "for job in jobs.values():\n"                                                                                      \
    "    for step in job[\"steps\"]:\n"                                                                                \
    "        for line in step.get(\"run\", \"\").splitlines():\n"                                                      \
    "            line = line.strip()\n"                                                                                \
    "            if line.startswith(\"make \"): print(\"MAKE\", line[5:])\n"                                           \
    "            elif line and not line.startswith((\"cat \", \"cp \")): print(\"OTHER\", line)\n"                     \
    "' 2>&1"

START_TEST(workflow_has_a_job_per_column_and_real_targets)
{
    static char workflow[1 << 16], names[1 << 14];
    ck_assert_msg(gt_test_shell(READ_WORKFLOW, workflow, sizeof workflow) == 0, "%s", workflow);
    ck_assert_int_eq(gt_test_shell("MATRIX_LIST=1 sh matrix/run.sh", names, sizeof names), 0);
    /* every column run.sh knows is a job, and every job is a column */
    size_t columns = 0, jobs = 0;
    for (char *name = strtok(names, "\n"); name; name = strtok(NULL, "\n")) {
        char want[200];
        snprintf(want, sizeof want, "LIBRARY %s\n", name);
        ck_assert_msg(strstr(workflow, want) != NULL, "no column job for %s", name);
        columns++;
    }
    for (const char *at = workflow; (at = strstr(at, "LIBRARY ")) != NULL; at++)
        jobs++;
    ck_assert_int_eq(jobs, columns);
    ck_assert_int_ge(columns, 15);
    ck_assert_ptr_nonnull(strstr(workflow, "NEEDS column\n"));
    ck_assert_msg(strstr(workflow, "OTHER") == NULL, "a step the test cannot check: %s", workflow);
    /* every make command names targets that exist */
    size_t makes = 0;
    bool column = false, merge = false;
    char *copy = strdup(workflow);
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "MAKE ", 5) != 0)
            continue;
        char args[512], command[700], out[4096];
        snprintf(args, sizeof args, "%s", line + 5);
        char *expr = strstr(args, "${{ matrix.library }}");
        if (expr != NULL)
            memcpy(expr, "naive-node", 10), memmove(expr + 10, expr + 21, strlen(expr + 21) + 1);
        column |= strstr(args, "matrix-column NAME=naive-node") != NULL;
        merge |= strcmp(args, "matrix-merge") == 0;
        /* outside any make that runs the suite (make sanitize passes BUILD=... down in MAKEFLAGS) */
        /* the whole of make -n's output is read (a pipe left unread would stop
         * make with SIGPIPE when there is no build yet); its tail is kept */
        snprintf(command, sizeof command,
                 "o=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u SAN -u COV -u OPT make -n %s 2>&1); s=$?; "
                 "printf '%%s' \"$o\" | tail -c 1500; exit $s",
                 args);
        ck_assert_msg(gt_test_shell(command, out, sizeof out) == 0, "make -n %s: %.1500s", args, out);
        makes++;
    }
    free(copy);
    ck_assert(column && merge);
    ck_assert_int_ge(makes, 6);
}
END_TEST

/* Every red cell (✗!, ✗, ≠) of the committed Claude Code column of
 * docs/matrix.md is accounted for by case id in its notes
 * (matrix/notes/claude-code.md, issue 27): committed files only, no npm. */
static bool is_id_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* A character that can continue a case id (ids are [a-z0-9._-]; a '.' continues
 * one only when an id character follows it, so an id ending a sentence counts). */
static bool continues_id(const char *at)
{
    return is_id_char((unsigned char)at[0]) || (at[0] == '.' && is_id_char((unsigned char)at[1]));
}

/* `id` occurs in `text` as a whole id: neither preceded nor followed by a
 * character that would make it part of a longer id. */
static bool names_whole_id(const char *text, const char *id)
{
    size_t n = strlen(id);
    for (const char *at = strstr(text, id); at; at = strstr(at + 1, id)) {
        bool starts = at == text || !(is_id_char((unsigned char)at[-1]) || at[-1] == '.');
        if (starts && !continues_id(at + n))
            return true;
    }
    return false;
}

/* Every red cell (✗!, ✗, ≠, E) listed in an implementation's section of the
 * committed docs/matrix.md carries a label of matrix/notes/NAME.labels
 * (issue 27, docs/matrix-labels.md: a true defect, a figures/profile
 * difference, a wrapper/library limit or a mock artefact), and its case id
 * is named, as a whole id, in NAME.md (the evidence); no label is stale
 * (every labelled case is a red, other-reason or skip cell of this grid).
 * Committed files only: no npm. */
START_TEST(every_red_cell_is_labelled_in_its_notes)
{
    char *grid = gt_test_slurp("docs/matrix.md");
    const char *impls = strstr(grid, "\n## Implementations\n");
    ck_assert_msg(impls != NULL, "docs/matrix.md has no Implementations section");
    size_t sections = 0, red = 0, unlabelled = 0;
    bool saw_claude_code = false;
    char missing[1200] = ""; /* the first ones; Check's message is short */
    for (const char *sec = strstr(impls, "\n### ` "); sec; sec = strstr(sec + 1, "\n### ` ")) {
        const char *name = sec + strlen("\n### ` "), *name_end = strstr(name, " `\n");
        ck_assert_ptr_nonnull(name_end);
        char path[400], err[600];
        snprintf(path, sizeof path, "matrix/notes/%.*s.labels", (int)(name_end - name), name);
        saw_claude_code |= strncmp(name, "claude-code `", 13) == 0;
        sections++;
        char *text = gt_test_slurp(path);
        gt_matrix_labels *labels = gt_matrix_labels_parse(text, path, err, sizeof err);
        char notes_path[400];
        snprintf(notes_path, sizeof notes_path, "matrix/notes/%.*s.md", (int)(name_end - name), name);
        char *notes = gt_test_slurp(notes_path);
        ck_assert_msg(labels != NULL, "%s", err);
        const char *end = strstr(sec + 1, "\n### ");
        if (end == NULL)
            end = strstr(sec + 1, "\n## ");
        size_t len = end ? (size_t)(end - sec) : strlen(sec);
        char *section = strndup(sec, len);
        ck_assert_msg(strstr(section, "Labelled, but in this run no red cell") == NULL &&
                          strstr(section, "Labels with no cell in this run") == NULL,
                      "%s: a stale label (a case or a label the committed grid shows no red cell for)", path);
        bool in_red = false;
        for (const char *line = section; line && *line; line = strchr(line, '\n')) {
            line += *line == '\n';
            if (strncmp(line, "**", 2) == 0)
                in_red = strncmp(line, "**\xe2\x9c\x97", 5) == 0 /* ✗! and ✗ */ ||
                         strncmp(line, "**\xe2\x89\xa0", 5) == 0 /* ≠ */ || strncmp(line, "**E ", 4) == 0;
            if (!in_red || strncmp(line, "- ` ", 4) != 0)
                continue;
            const char *id = line + 4, *stop = strstr(id, " `");
            ck_assert_ptr_nonnull(stop);
            char wanted[300];
            snprintf(wanted, sizeof wanted, "%.*s", (int)(stop - id), id);
            red++;
            const char *eol = strchr(line, '\n');
            const char *tag = strstr(line, " \xe2\x80\x94 label "); /* " — label " */
            if (gt_matrix_labels_find(labels, wanted) != NULL && tag != NULL && (eol == NULL || tag < eol) &&
                names_whole_id(notes, wanted))
                continue;
            unlabelled++;
            if (strlen(missing) + strlen(path) + strlen(wanted) + 4 < sizeof missing)
                strcat(strcat(strcat(strcat(missing, " "), path), ":"), wanted);
        }
        free(section);
        free(notes);
        gt_matrix_labels_free(labels);
        free(text);
    }
    ck_assert_msg(saw_claude_code && sections > 2, "docs/matrix.md: %zu implementation sections, claude-code %s "
                  "(has the grid's layout changed?)", sections, saw_claude_code ? "present" : "missing");
    ck_assert_msg(red > 0, "no red cell found in docs/matrix.md (has the grid's layout changed?)");
    ck_assert_msg(unlabelled == 0, "%zu of %zu red cells without a label in NAME.labels or not named in NAME.md (first ones:%s)",
                  unlabelled, red, missing);
    free(grid);
}
END_TEST

/* The whole-id match itself: a prefix, a longer id or a wildcard does not count. */
START_TEST(red_id_match_is_whole_id)
{
    ck_assert(names_whole_id("see `loop.a.b`.", "loop.a.b"));
    ck_assert(names_whole_id("loop.a.b, loop.c", "loop.a.b"));
    ck_assert(names_whole_id("ends loop.a.b.\n", "loop.a.b"));
    ck_assert(!names_whole_id("`loop.a.b-twice`", "loop.a.b"));
    ck_assert(!names_whole_id("`loop.a.bc`", "loop.a.b"));
    ck_assert(!names_whole_id("`loop.a.b.c`", "loop.a.b"));
    ck_assert(!names_whole_id("`xloop.a.b`", "loop.a.b"));
    ck_assert(!names_whole_id("`field.x.*`", "field.x.y"));
    ck_assert(names_whole_id("`loop.a.b-twice` and `loop.a.b`", "loop.a.b"));
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("matrix_ci");
    TCase *ci = tcase_create("ci");
    tcase_set_timeout(ci, 300);
    tcase_add_test(ci, column_jobs_then_merge_equal_one_run);
    tcase_add_test(ci, workflow_has_a_job_per_column_and_real_targets);
    tcase_add_test(ci, every_red_cell_is_labelled_in_its_notes);
    tcase_add_test(ci, red_id_match_is_whole_id);
    suite_add_tcase(suite, ci);
    return suite;
}

GT_TEST_MAIN()
