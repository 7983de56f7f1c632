/* test_action.c — the GitHub Action (action.yml) played on this machine by
 * scripts/run-action.py, step by step as a runner would: it builds
 * gauntlet, runs a target, uploads the reports, writes the Markdown report
 * to the job summary and gates: green against the reference, red on
 * regressions against a baseline (after uploading and summarising), green
 * when the baseline already knew the failures, red on every failure when
 * the baseline is missing. The complete workflow of docs/ci.md, played job by
 * job from that page by scripts/run-workflow.py: the baseline comes from
 * main's latest run whatever its outcome, and the badge is always published. */
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

static bool workspace_in(const char *folder, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", folder, name);
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

/* ---- the complete workflow of docs/ci.md ---------------------------------- */

static char flow[] = "/tmp/gt-workflow-XXXXXX";

/* Play job `job` of the workflow in docs/ci.md on `event` (matrix value
 * `shard` when > 0) in the workspace `flow`, with suite/fake-gh/gh as gh.
 * Returns the job's exit code; its output is in `out`. */
static int play_job(const char *job, const char *event, int shard, bool needs_failed)
{
    char command[PATH_MAX * 8], matrix[32] = "";
    if (shard > 0)
        snprintf(matrix, sizeof matrix, "--matrix shard=%d", shard);
    snprintf(command, sizeof command,
             "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u SAN -u COV -u OPT PATH='%s/suite/fake-gh':\"$PATH\" "
             "GT_FAKE_GH_STORE='%s/gh' GT_WORKFLOW_REPOSITORY=owner/impl GAUNTLET_BUILD_DIR='%s/%s' "
             "python3 '%s/scripts/run-workflow.py' --workflow '%s/docs/ci.md' --job %s --gauntlet '%s' "
             "--event %s %s %s --artifacts artifacts --summary summary.md > out.txt 2>&1",
             flow, repo, flow, repo, getenv("BUILD") ? getenv("BUILD") : "build", repo, repo, job, repo, event,
             matrix, needs_failed ? "--needs-failed" : "");
    int status = system(command);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/out.txt", flow);
    char *text = gt_test_slurp(path);
    snprintf(out, sizeof out, "%s", text);
    free(text);
    fputs(out, stdout);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void flow_shell(const char *fmt, const char *arg)
{
    char command[PATH_MAX * 4], line[PATH_MAX * 3];
    snprintf(line, sizeof line, fmt, arg);
    snprintf(command, sizeof command, "cd '%s' && %s", flow, line);
    ck_assert_msg(system(command) == 0, "%s", command);
}

/* One workflow run for `event`: a fresh workspace per run (as every job of
 * GitHub's gets one), the four shard jobs, then the merge job; returns the
 * merge job's exit code. */
static int play_shards_and_merge(const char *event)
{
    flow_shell("rm -rf artifacts shards report baseline shard-* summary.md gauntlet%s", "");
    for (int shard = 1; shard <= 4; shard++) {
        ck_assert_int_eq(play_job("shard", event, shard, false), 0);
        ck_assert_ptr_nonnull(strstr(out, "step: gauntlet, shard "));
    }
    return play_job("merge", event, 0, false);
}

/* The merge job exited `want`; else fail with what it printed (the tail of
 * `out`), so a failure says which step and why. */
static void merge_job_exits(int got, int want)
{
    size_t len = strlen(out);
    ck_assert_msg(got == want, "merge job exit %d, expected %d; its output ends: %s", got, want,
                  out + (len > 3000 ? len - 3000 : 0));
}

/* The workflow users copy from docs/ci.md, its jobs played from that page:
 * main's run with failing cases fails its merge job but still uploads its
 * baseline and still publishes the badge; a pull request then finds that
 * red run's baseline (not only a green run's, of which there is none) and
 * passes with the same failures, and fails on a regression. */
START_TEST(workflow_baseline_from_a_red_main_and_badge_always)
{
    ck_assert_ptr_nonnull(getcwd(repo, sizeof repo));
    ck_assert_ptr_nonnull(mkdtemp(flow));
    char adapter[PATH_MAX * 2 + 256];
    snprintf(adapter, sizeof adapter,
             "printf '#!/bin/sh\\nif [ \"$(cat mode)\" = worse ]; then exec sh %s/suite/adapters/fake.sh ok; fi\\n"
             "exec python3 %s/suite/adapters/python_nan.py\\n' > my-adapter && chmod +x my-adapter && echo lax > mode",
             repo, repo);
    flow_shell("%s", adapter);

    /* 1. a push to main: failing cases, so the merge job fails... */
    merge_job_exits(play_shards_and_merge("push"), 1);
    ck_assert_ptr_nonnull(strstr(out, "step: Baseline (the latest merged report of main, whatever that run's "
                                      "outcome): skipped\n"));
    ck_assert_ptr_nonnull(strstr(out, "step: Merge the shards and gate: exit 1\n"));
    /* ...and still uploads the baseline and the report */
    ck_assert(workspace_in(flow, "artifacts/gauntlet-baseline/gauntlet.json"));
    ck_assert(workspace_in(flow, "artifacts/gauntlet-report/badge.json"));
    /* the badge is published though the merge job failed */
    ck_assert_int_eq(play_job("badge", "push", 0, true), 0);
    ck_assert_ptr_nonnull(strstr(out, "deployed badge"));
    ck_assert(workspace_in(flow, "artifacts/github-pages/badge/badge.svg"));
    /* GitHub keeps that run: failed, with its artifact; a newer pull
     * request run and a main run still in progress are not baselines */
    flow_shell("mkdir -p gh/runs/101/artifacts gh/runs/102/artifacts/gauntlet-baseline gh/runs/103 && "
               "cp -R artifacts/gauntlet-baseline gh/runs/101/artifacts/ && "
               "echo '{\"workflow\": \"gauntlet.yml\", \"branch\": \"main\", \"event\": \"push\", "
               "\"status\": \"completed\", \"conclusion\": \"failure\"}' > gh/runs/101/run.json && "
               "echo '{\"workflow\": \"gauntlet.yml\", \"branch\": \"main\", \"event\": \"pull_request\", "
               "\"status\": \"completed\", \"conclusion\": \"success\"}' > gh/runs/102/run.json && "
               "echo '{\"workflow\": \"gauntlet.yml\", \"branch\": \"main\", \"event\": \"push\", "
               "\"status\": \"in_progress\", \"conclusion\": \"\"}' > gh/runs/103/run.json%s",
               "");

    /* 2. a pull request with the same failures: main's red baseline is
     * found, nothing regressed, green; no badge from a pull request */
    merge_job_exits(play_shards_and_merge("pull_request"), 0);
    ck_assert_ptr_nonnull(strstr(out, "baseline: the merged report of main's run 101\n"));
    ck_assert_ptr_nonnull(strstr(out, "step: Merge the shards and gate: exit 0\n"));
    ck_assert_int_eq(play_job("badge", "pull_request", 0, false), 0);
    ck_assert_ptr_nonnull(strstr(out, "job: badge: skipped"));

    /* 3. a pull request that makes it worse: regressions fail it */
    flow_shell("echo worse > mode%s", "");
    merge_job_exits(play_shards_and_merge("pull_request"), 1);
    ck_assert_ptr_nonnull(strstr(out, "baseline: the merged report of main's run 101\n"));
    ck_assert_ptr_nonnull(strstr(out, "REGRESSED "));

    /* 4. no finished main run has a baseline yet: said, and every failure gates */
    flow_shell("rm -rf gh/runs/101 && echo lax > mode%s", "");
    merge_job_exits(play_shards_and_merge("pull_request"), 1);
    ck_assert_ptr_nonnull(strstr(out, "no baseline on main yet: every failure gates this pull request"));

    char command[PATH_MAX + 16];
    snprintf(command, sizeof command, "rm -rf '%s'", flow);
    ck_assert_int_eq(system(command), 0);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("action");
    TCase *action = tcase_create("action");
    tcase_set_timeout(action, 900);
    tcase_add_test(action, action_builds_runs_uploads_summarises_and_gates);
    tcase_add_test(action, workflow_baseline_from_a_red_main_and_badge_always);
    suite_add_tcase(suite, action);
    return suite;
}

GT_TEST_MAIN()
