/* test_http_target.c — the black-box "http" target: a client run per
 * scenario against a private mock server, judged by its envelope and the
 * mock's request journal. Fake clients (shell one-liners) prove that the
 * target catches a client that fails open, one that never calls the model,
 * one that hangs or prints garbage; the reference client passes. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/run.h"
#include "runner/cli/commands.h"
#include "gt_test.h"
#include "runner/targets/child.h"
#include "runner/targets/reap.h"

extern const gt_target_ops gt_target_http_ops;
extern const gt_target_ops gt_target_http_worker_ops;

static gt_corpus *corpus;

static void setup(void)
{
    corpus = gt_corpus_new();
    ck_assert_int_gt(gt_corpus_load(corpus, "corpus/loop/attempts/attempts.cases.json"), 0);
    ck_assert_int_gt(gt_corpus_load(corpus, "corpus/loop/enforce/enforce.cases.json"), 0);
    ck_assert_int_gt(gt_corpus_load(corpus, "corpus/loop/tombstone/tombstone.cases.json"), 0);
}

static void teardown(void)
{
    gt_corpus_free(corpus);
}

static const gt_case *find_case(const char *id)
{
    for (size_t i = 0; i < gt_corpus_count(corpus); i++)
        if (strcmp(gt_corpus_case(corpus, i)->input.id, id) == 0)
            return gt_corpus_case(corpus, i);
    ck_abort_msg("no case %s", id);
    return NULL;
}

/* Run case `id` through client `command`; return the outcome, `why` filled. */
static gt_outcome run_client(const char *command, const char *id, int *status, char *why, size_t why_len)
{
    void *state;
    char err[512], note[1024] = "";
    ck_assert_msg(gt_target_http_ops.open(command, &state, err, sizeof err) == 0, "%s", err);
    const gt_case *kase = find_case(id);
    gt_observed observed;
    memset(&observed, 0, sizeof observed);
    *status = gt_target_http_ops.check(state, &kase->input, &observed, note, sizeof note);
    gt_outcome outcome = GT_OUTCOME_ERROR;
    if (*status == GT_CHECK_DONE)
        outcome = gt_compare(&kase->expect, &observed, why, why_len);
    else
        snprintf(why, why_len, "%s", note);
    gt_observed_clear(&observed);
    gt_target_http_ops.close(state);
    return outcome;
}

/* The subtype of a client's envelope is judged only where the client claims
 * claude-code (seed 000's subtypes), and against gauntlet's own subtype name
 * only as error or success. The reference client, its envelope's subtype
 * rewritten by sed, plays a case of core and claude-code that expects
 * error_no_structured_output: the verdict (no object) and the journal's
 * figures stay the reference's, so only the subtype differs. */
START_TEST(test_subtype_judged_only_for_claude_code)
{
    static const struct {
        const char *subtype, *profile;
        int exit;
        const char *says;
    } runs[] = {
        {"success", "core", 0, "1 passed, 0 failed"},             /* a core client names its subtypes its own way */
        {"success", "claude-code", 1, "expected subtype error_no_structured_output, observed success [figures]"},
        {"error_during_execution", "claude-code", 0, "1 passed, 0 failed"}, /* another error name: wording */
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char target[512];
        snprintf(target, sizeof target,
                 "http:sh -c 'adapters/http-reference-client/run.sh | sed s/error_no_structured_output/%s/'",
                 runs[i].subtype);
        char *argv[] = {"run", "corpus/field/missing-structured-output.cases.json", "--id",
                        "field.claude-agent-sdk-ts-277.json-in-text-never-success", "--target", target,
                        "--profile", (char *)runs[i].profile, NULL};
        static char out[1 << 16];
        int rc = gt_test_cli(gt_cmd_run, argv, out, sizeof out);
        ck_assert_msg(rc == runs[i].exit && strstr(out, runs[i].says) != NULL, "%s as %s: exit %d: %s",
                      runs[i].subtype, runs[i].profile, rc, out);
    }
}
END_TEST

START_TEST(test_reference_client_passes)
{
    char why[1024];
    int status;
    const char *ids[] = {"loop.attempts.first-try-valid", "loop.attempts.invalid-then-valid"};
    for (size_t i = 0; i < 2; i++)
        ck_assert_msg(run_client("adapters/http-reference-client/run.sh", ids[i], &status, why, sizeof why) ==
                          GT_OUTCOME_PASS,
                      "%s: %s", ids[i], why);
}
END_TEST

START_TEST(test_fail_open_client_is_caught)
{
    /* "success" with no object: the failure the suite exists to catch */
    char why[1024];
    int status;
    const char *fail_open = "echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\"}'";
    ck_assert_int_eq(run_client(fail_open, "loop.attempts.first-try-valid", &status, why, sizeof why),
                     GT_OUTCOME_FAIL);
    ck_assert_ptr_nonnull(strstr(why, "expected accept, observed reject"));
}
END_TEST

START_TEST(test_client_that_never_asks_the_model)
{
    /* an object invented without a single model call: the journal shows it */
    char why[1024];
    int status;
    const char *invent = "echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,"
                         "\"structured_output\":{\"cause\":\"x\",\"fixes\":[]}}'";
    ck_assert_int_eq(run_client(invent, "loop.attempts.first-try-valid", &status, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_msg(strstr(why, "observed 0") != NULL || strstr(why, "structured_output") != NULL, "%s", why);
}
END_TEST

START_TEST(test_garbage_and_refusal)
{
    char why[1024];
    int status;
    ck_assert_int_eq(run_client("echo hello", "loop.attempts.first-try-valid", &status, why, sizeof why),
                     GT_OUTCOME_ERROR);
    ck_assert_int_eq(status, GT_CHECK_ERROR);
    ck_assert_ptr_nonnull(strstr(why, "no result envelope"));
    /* exiting non-zero without an object is a rejection, with the evidence */
    ck_assert_int_eq(run_client("echo boom >&2; exit 1", "loop.attempts.first-try-valid", &status, why, sizeof why),
                     GT_OUTCOME_FAIL);
    ck_assert_ptr_nonnull(strstr(why, "observed reject"));
    /* ... but a client that cannot run at all gives no verdict: not installed
     * (127), not executable (126), the wrapper's own "cannot run" (3). A
     * reject case must not "pass" because nothing ran. */
    static const char *const cannot_run[] = {"echo not installed >&2; exit 3", "/no/such/client.sh",
                                             "exit 126"};
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(run_client(cannot_run[i], "loop.attempts.five-invalid-default-limit", &status, why, sizeof why),
                         GT_OUTCOME_ERROR);
        ck_assert_int_eq(status, GT_CHECK_ERROR);
        ck_assert_msg(strstr(why, "could not run") != NULL, "%s", why);
    }
    ck_assert_ptr_nonnull(strstr(why, "not executable"));
}
END_TEST

START_TEST(test_client_internal_events_are_skipped)
{
    char why[1024];
    int status;
    /* a fallback that retracts the message it follows is played on the wire;
     * one that retracts an older message, and a late attachment, cannot be */
    ck_assert_int_eq(run_client("exit 0", "loop.tombstone.only-retracted", &status, why, sizeof why), GT_OUTCOME_ERROR);
    ck_assert_int_eq(status, GT_CHECK_ERROR);
    ck_assert_ptr_nonnull(strstr(why, "no result envelope"));
    ck_assert_int_eq(run_client("exit 0", "loop.tombstone.older-message-retracted", &status, why, sizeof why),
                     GT_OUTCOME_ERROR);
    ck_assert_int_eq(status, GT_CHECK_SKIPPED);
    ck_assert_ptr_nonnull(strstr(why, "retracts an earlier message"));
    ck_assert_int_eq(run_client("exit 0", "loop.tombstone.late-attachment-dropped", &status, why, sizeof why),
                     GT_OUTCOME_ERROR);
    ck_assert_int_eq(status, GT_CHECK_SKIPPED);
    ck_assert_ptr_nonnull(strstr(why, "late attachment"));
    /* other gates are not the http target's */
    void *state;
    char err[256], note[256];
    ck_assert_int_eq(gt_target_http_ops.open("true", &state, err, sizeof err), 0);
    gt_case_input syntax = {.id = "syntax.x", .gate = "syntax", .case_json = "{}"};
    gt_observed observed;
    memset(&observed, 0, sizeof observed);
    ck_assert_int_eq(gt_target_http_ops.check(state, &syntax, &observed, note, sizeof note), GT_CHECK_SKIPPED);
    gt_observed_clear(&observed);
    gt_target_http_ops.close(state);
    ck_assert_int_eq(gt_target_http_ops.open("", &state, err, sizeof err), -1);
}
END_TEST

/* One persistent target (http-worker) over `ids` in order: each outcome and note. */
static void run_worker(const char *command, const char *const *ids, size_t count, gt_outcome *outcomes,
                       char (*why)[1024])
{
    void *state;
    char err[512];
    ck_assert_msg(gt_target_http_worker_ops.open(command, &state, err, sizeof err) == 0, "%s", err);
    for (size_t i = 0; i < count; i++) {
        const gt_case *kase = find_case(ids[i]);
        gt_observed observed;
        memset(&observed, 0, sizeof observed);
        char note[1024] = "";
        int status = gt_target_http_worker_ops.check(state, &kase->input, &observed, note, sizeof note);
        outcomes[i] = GT_OUTCOME_ERROR;
        if (status == GT_CHECK_DONE)
            outcomes[i] = gt_compare(&kase->expect, &observed, why[i], sizeof why[i]);
        else
            snprintf(why[i], sizeof why[i], "%s", note);
        gt_observed_clear(&observed);
    }
    gt_target_http_worker_ops.close(state);
}

START_TEST(test_worker_judges_as_one_process_per_case)
{
    /* the reference client served through a persistent bridge: every case's
     * outcome is the one a process per case gives */
    if (system("command -v python3 >/dev/null 2>&1") != 0) {
        fprintf(stderr, "SKIP test_worker_judges_as_one_process_per_case: python3 is not installed\n");
        return;
    }
    static const char *const ids[] = {"loop.attempts.first-try-valid", "loop.attempts.invalid-then-valid",
                                      "loop.attempts.five-invalid-default-limit", "loop.enforce.text-then-enforce-then-valid"};
    gt_outcome outcomes[4];
    char why[4][1024];
    run_worker("python3 suite/adapters/worker_bridge.py adapters/http-reference-client/run.sh", ids, 4, outcomes,
               why);
    for (size_t i = 0; i < 4; i++) {
        char one_why[1024];
        int status;
        gt_outcome one = run_client("adapters/http-reference-client/run.sh", ids[i], &status, one_why, sizeof one_why);
        ck_assert_msg(outcomes[i] == one, "%s: worker %d (%s), one process %d (%s)", ids[i], outcomes[i], why[i],
                      one, one_why);
        ck_assert_msg(outcomes[i] == GT_OUTCOME_PASS, "%s: %s", ids[i], why[i]);
    }
}
END_TEST

START_TEST(test_worker_crash_is_that_case_error)
{
    /* the first worker dies in its first case: that case is an error naming
     * it; the runner starts a new worker and the next cases run (here: a
     * fail-open answer, caught as a failure, then the status-3 "cannot run") */
    char marker[] = "/tmp/gauntlet-worker-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(marker));
    char command[1024];
    snprintf(command, sizeof command,
             "if [ -e %s/started ]; then n=0; while read -r line; do n=$((n+1)); if [ $n = 1 ]; then "
             "printf '%%s\\n' '{\"status\":0,\"stdout\":\"{\\\"type\\\":\\\"result\\\",\\\"subtype\\\":"
             "\\\"success\\\",\\\"is_error\\\":false}\\n\"}'; else echo not installed >&2; "
             "printf '%%s\\n' '{\"status\":3,\"stdout\":\"\"}'; fi; done; "
             "else touch %s/started; read -r line; echo worker crashed >&2; kill -9 $$; fi",
             marker, marker);
    static const char *const ids[] = {"loop.attempts.first-try-valid", "loop.attempts.first-try-valid",
                                      "loop.attempts.five-invalid-default-limit"};
    gt_outcome outcomes[3];
    char why[3][1024];
    run_worker(command, ids, 3, outcomes, why);
    ck_assert_int_eq(outcomes[0], GT_OUTCOME_ERROR);
    ck_assert_msg(strstr(why[0], "ended during the case") != NULL && strstr(why[0], "signal 9") != NULL &&
                      strstr(why[0], "worker crashed") != NULL,
                  "%s", why[0]);
    ck_assert_int_eq(outcomes[1], GT_OUTCOME_FAIL);
    ck_assert_msg(strstr(why[1], "expected accept, observed reject") != NULL, "%s", why[1]);
    ck_assert_int_eq(outcomes[2], GT_OUTCOME_ERROR);
    ck_assert_msg(strstr(why[2], "could not run") != NULL && strstr(why[2], "not installed") != NULL, "%s", why[2]);
    /* garbage instead of a reply line: an error, never a verdict */
    static const char *const one[] = {"loop.attempts.five-invalid-default-limit"};
    run_worker("while read -r line; do echo hello; done", one, 1, outcomes, why);
    ck_assert_int_eq(outcomes[0], GT_OUTCOME_ERROR);
    ck_assert_msg(strstr(why[0], "garbage") != NULL, "%s", why[0]);
    snprintf(command, sizeof command, "rm -rf %s", marker);
    ck_assert_int_eq(system(command), 0);
}
END_TEST


/* Everything a child printed on `fd` until it closed. */
static void read_all(int fd, char *out, size_t cap)
{
    size_t len = 0;
    ssize_t got;
    while (len + 1 < cap && (got = read(fd, out + len, cap - 1 - len)) > 0)
        len += (size_t)got;
    out[len] = '\0';
}

/* One way to start a client for every target (child.h): the caller's
 * variables replace the runner's own, the later of two wins, the reaper's
 * token is never replaced, stdin is /dev/null unless asked for. */
START_TEST(test_child_environment_and_stdin)
{
    setenv("GT_CHILD_SEEN", "runner", 1);
    char *env[] = {"GT_CHILD_SEEN=caller", "GT_CHILD_NEW=first", "GT_CHILD_NEW=second",
                   GT_ADAPTER_ID_ENV "=forged", "NO_EQUALS_SIGN"};
    gt_child child;
    char err[256] = "";
    ck_assert_int_eq(gt_child_start(&child, "printf '%s|%s|%s|' \"$GT_CHILD_SEEN\" \"$GT_CHILD_NEW\" "
                                            "\"$" GT_ADAPTER_ID_ENV "\"; cat; echo oops >&2; exit 7",
                                    env, 5, false, err, sizeof err),
                     0);
    ck_assert_int_eq(child.in, -1);
    char out[512], token[sizeof child.token];
    snprintf(token, sizeof token, "%s", child.token);
    read_all(child.out, out, sizeof out);
    char expect[256];
    snprintf(expect, sizeof expect, "caller|second|%s|", token); /* cat read /dev/null: nothing */
    ck_assert_str_eq(out, expect);
    read_all(child.err, out, sizeof out);
    ck_assert_str_eq(out, "oops\n");
    int status = gt_child_end(&child, false);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 7);
    ck_assert_int_eq(child.pid, 0);
    ck_assert_int_eq(child.out, -1);
    ck_assert_int_eq(gt_child_end(&child, true), -1); /* ended already: nothing */
    unsetenv("GT_CHILD_SEEN");
}
END_TEST

/* Ending a child kills what it started, even a process that left its group
 * with setsid, and with stdin a pipe the child reads what we write. */
START_TEST(test_child_end_kills_what_it_started)
{
    gt_child child;
    char err[256] = "";
    ck_assert_int_eq(gt_child_start(&child, "read line; echo \"got $line\"; setsid sh -c 'echo $$; exec sleep 60' & "
                                            "wait",
                                    NULL, 0, true, err, sizeof err),
                     0);
    ck_assert_int_ge(child.in, 0);
    ck_assert_int_eq(write(child.in, "hello\n", 6), 6);
    char out[256] = "";
    size_t len = 0;
    ssize_t got;
    while (len < sizeof out - 1 && (got = read(child.out, out + len, sizeof out - 1 - len)) > 0) {
        len += (size_t)got;
        out[len] = '\0';
        if (strchr(out, '\n') != NULL && strchr(strchr(out, '\n') + 1, '\n') != NULL)
            break;
    }
    int sleeper = 0;
    ck_assert_msg(sscanf(out, "got hello\n%d", &sleeper) == 1, "%s", out);
    ck_assert_int_eq(kill(sleeper, 0), 0);
    gt_child_end(&child, true);
    ck_assert_int_eq(child.pid, 0);
    /* the setsid sleeper is gone (killed and reaped by the runner, its subreaper) */
    ck_assert_int_ne(kill(sleeper, 0), 0);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http target");
    TCase *tc = tcase_create("http");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_reference_client_passes);
    tcase_add_test(tc, test_subtype_judged_only_for_claude_code);
    tcase_add_test(tc, test_fail_open_client_is_caught);
    tcase_add_test(tc, test_client_that_never_asks_the_model);
    tcase_add_test(tc, test_garbage_and_refusal);
    tcase_add_test(tc, test_client_internal_events_are_skipped);
    tcase_add_test(tc, test_worker_judges_as_one_process_per_case);
    tcase_add_test(tc, test_worker_crash_is_that_case_error);
    tcase_add_test(tc, test_child_environment_and_stdin);
    tcase_add_test(tc, test_child_end_kills_what_it_started);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
