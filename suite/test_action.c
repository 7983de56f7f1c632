/* test_action.c — the GitHub Action (action.yml) played on this machine by
 * scripts/run-action.py, step by step as a runner would: it builds
 * gauntlet, runs a target, uploads the reports, writes the Markdown report
 * to the job summary and gates: green against the reference, red on
 * regressions against a baseline (after uploading and summarising), green
 * when the baseline already knew the failures, red on every failure when
 * the baseline is missing. */
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "gt_test.h"

static char out[1 << 20];
static char workspace[] = "/tmp/gt-action-XXXXXX";
static char repo[PATH_MAX];

/* Play action.yml in the workspace with `inputs` (NAME=VALUE, NULL-ended).
 * Returns the action's exit code; its output is in `out`. */
static int play(const char *const *inputs)
{
    char command[8192];
    int len = snprintf(command, sizeof command,
                       "cd '%s' && GAUNTLET_BUILD_DIR='%s/%s' python3 '%s/scripts/run-action.py' --action "
                       "'%s/action.yml' --artifacts artifacts --summary summary.md",
                       workspace, repo, getenv("BUILD") ? getenv("BUILD") : "build", repo, repo);
    for (size_t i = 0; inputs[i] != NULL; i++)
        len += snprintf(command + len, sizeof command - (size_t)len, " --input '%s'", inputs[i]);
    snprintf(command + len, sizeof command - (size_t)len, " > out.txt 2>&1");
    int status = system(command);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/out.txt", workspace);
    char *text = gt_test_slurp(path);
    snprintf(out, sizeof out, "%s", text);
    free(text);
    fputs(out, stdout);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *workspace_file(const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", workspace, name);
    return gt_test_slurp(path);
}

static bool workspace_has(const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", workspace, name);
    return access(path, R_OK) == 0;
}

static void reset_workspace(void)
{
    char command[PATH_MAX + 64];
    snprintf(command, sizeof command, "rm -rf '%s'/artifacts '%s'/gauntlet-reports '%s'/summary.md", workspace,
             workspace, workspace);
    ck_assert_int_eq(system(command), 0);
}

START_TEST(action_builds_runs_uploads_summarises_and_gates)
{
    ck_assert_ptr_nonnull(getcwd(repo, sizeof repo));
    ck_assert_ptr_nonnull(mkdtemp(workspace));
    char failing[PATH_MAX + 64];
    snprintf(failing, sizeof failing, "target=adapter:sh %s/suite/adapters/fake.sh ok", repo);

    /* 1. the reference on the syntax gate: green, every report uploaded */
    const char *green[] = {"gate=syntax", NULL};
    ck_assert_int_eq(play(green), 0);
    ck_assert_ptr_nonnull(strstr(out, "step: Build gauntlet: exit 0\n"));
    ck_assert_ptr_nonnull(strstr(out, "step: Gate: exit 0\n"));
    ck_assert_ptr_nonnull(strstr(out, "output exit-code=0\n"));
    ck_assert_ptr_nonnull(strstr(out, " passed, 0 failed, 0 skipped\n"));
    static const char *const reports[] = {"gauntlet.json", "gauntlet.xml", "gauntlet.html", "gauntlet.md",
                                          "badge.json",    "badge.svg",    "console.txt"};
    for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
        char name[128];
        snprintf(name, sizeof name, "artifacts/gauntlet-reports/%s", reports[i]);
        ck_assert_msg(workspace_has(name), "%s was not uploaded", name);
    }
    char *summary = workspace_file("summary.md");
    ck_assert_ptr_nonnull(strstr(summary, "## gauntlet \xe2\x9c\x85"));
    free(summary);
    /* keep it as the baseline of the next runs */
    char command[PATH_MAX * 2];
    snprintf(command, sizeof command, "cp '%s/gauntlet-reports/gauntlet.json' '%s/baseline.json'", workspace,
             workspace);
    ck_assert_int_eq(system(command), 0);

    /* 2. an implementation that accepts everything, against that baseline:
     * regressions fail the action, after the upload and the summary */
    reset_workspace();
    const char *regressed[] = {"gate=syntax", failing, "baseline=baseline.json", "args=-q", NULL};
    ck_assert_int_eq(play(regressed), 1);
    ck_assert_ptr_nonnull(strstr(out, "step: Run gauntlet: exit 0\n"));
    ck_assert_ptr_nonnull(strstr(out, "step: Upload the reports: exit 0\n"));
    ck_assert_ptr_nonnull(strstr(out, "step: Job summary: exit 0\n"));
    ck_assert_ptr_nonnull(strstr(out, "step: Gate: exit 1\n"));
    ck_assert_ptr_nonnull(strstr(out, "output exit-code=1\n"));
    summary = workspace_file("summary.md");
    ck_assert_ptr_nonnull(strstr(summary, "## gauntlet \xe2\x9d\x8c"));
    ck_assert_ptr_nonnull(strstr(summary, " regressions against the baseline."));
    free(summary);
    ck_assert(workspace_has("artifacts/gauntlet-reports/gauntlet.xml"));
    snprintf(command, sizeof command, "cp '%s/gauntlet-reports/gauntlet.json' '%s/known-failures.json'", workspace,
             workspace);
    ck_assert_int_eq(system(command), 0);

    /* 3. the same failures, already in the baseline: no regression, green */
    reset_workspace();
    const char *known[] = {"gate=syntax", failing, "baseline=known-failures.json", "artifact-name=", "args=-q", NULL};
    ck_assert_int_eq(play(known), 0);
    ck_assert_ptr_nonnull(strstr(out, "step: Upload the reports: skipped\n"));
    ck_assert(!workspace_has("artifacts"));

    /* 4. a baseline that is not there: every failure gates, and it says so */
    reset_workspace();
    const char *missing[] = {"gate=syntax", failing, "baseline=nowhere.json", "args=-q", NULL};
    ck_assert_int_eq(play(missing), 1);
    ck_assert_ptr_nonnull(strstr(out, "no baseline at 'nowhere.json': every failure gates this run"));

    snprintf(command, sizeof command, "rm -rf '%s'", workspace);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("action");
    TCase *action = tcase_create("action");
    tcase_set_timeout(action, 900);
    tcase_add_test(action, action_builds_runs_uploads_summarises_and_gates);
    suite_add_tcase(suite, action);
    return suite;
}

GT_TEST_MAIN()
