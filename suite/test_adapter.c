/* test_adapter.c — the adapter target against misbehaving adapters
 * (suite/adapters/fake.sh): crash, hang, garbage, partial line, huge line,
 * wrong seq, undeclared capability, bad handshake, and the reference adapter. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gt_test.h"
#include "runner/cli/commands.h"
#include "gauntlet/limits.h"
#include "runner/targets/target_adapter.h"

static const gt_case_input syntax_case = {
    .id = "syntax.test.one",
    .gate = "syntax",
    .raw = (const unsigned char *)"{\"a\":1}",
    .raw_len = 7,
    .case_json = "{\"id\":\"syntax.test.one\",\"gate\":\"syntax\"}",
};

/* Open the fake adapter in `mode`; 0 on success. */
static int open_fake(const char *mode, void **state, char *err, size_t err_len)
{
    char command[256];
    snprintf(command, sizeof command, "sh suite/adapters/fake.sh %s /tmp/gauntlet-fake-%d", mode, (int)getpid());
    return gt_target_adapter_ops.open(command, state, err, err_len);
}

/* Run one case; returns the check status and leaves the note. */
static int check_once(void *state, const gt_case_input *input, gt_observed *observed, char *note, size_t len)
{
    memset(observed, 0, sizeof *observed);
    note[0] = '\0';
    return gt_target_adapter_ops.check(state, input, observed, note, len);
}

START_TEST(test_well_behaved)
{
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(open_fake("ok", &state, err, sizeof err), 0);
    ck_assert_str_eq(gt_target_adapter_ops.name(state), "fake ok");
    gt_observed observed;
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_DONE);
        ck_assert_int_eq(observed.verdict, GT_VERDICT_ACCEPT);
        gt_observed_clear(&observed);
    }
    gt_target_adapter_ops.close(state);
}
END_TEST

/* Processes other than this one whose environment holds `entry`; killed
 * when `kill_them` (a failing test leaves nothing running either). */
static int processes_with_env(const char *entry, bool kill_them)
{
    DIR *dir = opendir("/proc");
    int found = 0;
    struct dirent *d;
    while (dir && (d = readdir(dir)) != NULL) {
        char *end;
        long pid = strtol(d->d_name, &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid())
            continue;
        char path[64];
        static char text[1 << 16];
        snprintf(path, sizeof path, "/proc/%ld/environ", pid);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t got = read(fd, text, sizeof text - 1);
        close(fd);
        for (ssize_t at = 0; at < got; at += (ssize_t)strlen(text + at) + 1)
            if (strcmp(text + at, entry) == 0) {
                found++;
                if (kill_them)
                    kill((pid_t)pid, SIGKILL);
                break;
            }
    }
    if (dir)
        closedir(dir);
    return found;
}

/* An adapter whose descendants leave its process group (setsid) or its tree
 * (a double fork): none of them outlives the adapter, on a restart or at the
 * close (before: both sleepers were left, re-parented to init). */
START_TEST(test_descendants_do_not_outlive_the_adapter)
{
    char marker[64], entry[96];
    snprintf(marker, sizeof marker, "leak-%ld-%ld", (long)getpid(), (long)time(NULL));
    setenv("GT_LEAK_MARKER", marker, 1);
    snprintf(entry, sizeof entry, "GT_LEAK_MARKER=%s", marker);
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(open_fake("leaky", &state, err, sizeof err), 0);
    gt_observed observed;
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_DONE);
    gt_observed_clear(&observed);
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL); /* the sleepers are up */
    int running = processes_with_env(entry, false);
    gt_target_adapter_ops.close(state);
    int left = processes_with_env(entry, false);
    for (int tick = 0; tick < 20 && left > 0; tick++) {
        nanosleep(&pause, NULL);
        left = processes_with_env(entry, false);
    }
    fprintf(stderr, "adapter: %d processes while it ran (the adapter and its sleepers), %d left after its close\n",
            running, left);
    processes_with_env(entry, true);
    ck_assert_msg(running >= 3, "only %d processes started", running);
    ck_assert_msg(left == 0, "%d processes outlived the adapter", left);
}
END_TEST

static long long elapsed_ms_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)(now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/* --timeout bounds a case's whole time, its restart and hello included
 * (before: a restart added up to 10 s); an adapter that closes its stdout is
 * said to have closed it. */
START_TEST(test_timeout_bounds_restarts_and_closed_stdout_is_said)
{
    gt_adapter_set_timeout_ms(1000);
    void *state;
    char err[512], note[2048], path[64];
    snprintf(path, sizeof path, "/tmp/gauntlet-fake-%d", (int)getpid());
    unlink(path);
    ck_assert_int_eq(open_fake("slowrestart", &state, err, sizeof err), 0);
    gt_observed observed;
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR); /* crash */
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR); /* slow restart */
    long long took = elapsed_ms_since(&start);
    fprintf(stderr, "adapter: a case with a restart took %lld ms with --timeout 1s\n", took);
    ck_assert_msg(took < 2500, "the case took %lld ms: %s", took, note);
    ck_assert_msg(strstr(note, "timed out") && strstr(note, "hello"), "%s", note);
    gt_target_adapter_ops.close(state);
    unlink(path);

    gt_adapter_set_timeout_ms(5000);
    ck_assert_int_eq(open_fake("closeout", &state, err, sizeof err), 0);
    clock_gettime(CLOCK_MONOTONIC, &start);
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_msg(strstr(note, "closed its stdout") && strstr(note, "timed out") == NULL, "%s", note);
    ck_assert_int_lt(elapsed_ms_since(&start), 4000);
    gt_target_adapter_ops.close(state);
    gt_adapter_set_timeout_ms(0);
}
END_TEST

/* The smoke check obeys --timeout and still writes the reports asked for,
 * every case an error naming the failed smoke (before: 10 s, no report). */
START_TEST(test_failed_smoke_obeys_timeout_and_writes_reports)
{
    char report[64], command[128], reports[96];
    snprintf(report, sizeof report, "/tmp/gt-smoke-%d.json", (int)getpid());
    snprintf(command, sizeof command, "adapter:sh suite/adapters/fake.sh slowhello");
    snprintf(reports, sizeof reports, "json:%s", report);
    unlink(report);
    char *argv[] = {"run", "--target", command, "--timeout", "1s", "--report", reports,
                    "suite/data/loader/a-good.cases.json", NULL};
    static char out[1 << 16];
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, argv, out, sizeof out), 2);
    long long took = elapsed_ms_since(&start);
    fprintf(stderr, "smoke: a hanging hello failed the smoke in %lld ms with --timeout 1s\n", took);
    ck_assert_msg(took < 5000, "the smoke took %lld ms", took);
    ck_assert_msg(strstr(out, "smoke test failed"), "%s", out);
    ck_assert_msg(access(report, R_OK) == 0, "no report written: %s", out);
    char *text = gt_test_slurp(report);
    ck_assert_msg(strstr(text, "failed its smoke test") && strstr(text, "\"error\""), "%.2000s", text);
    free(text);
    unlink(report);
}
END_TEST

START_TEST(test_undeclared_capability_is_skipped)
{
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(open_fake("ok", &state, err, sizeof err), 0);
    gt_case_input loop_case = syntax_case;
    loop_case.gate = "loop";
    gt_observed observed;
    ck_assert_int_eq(check_once(state, &loop_case, &observed, note, sizeof note), GT_CHECK_SKIPPED);
    ck_assert_ptr_nonnull(strstr(note, "capability 'loop'"));
    gt_target_adapter_ops.close(state);
}
END_TEST

START_TEST(test_crash_is_an_error_with_evidence_then_restart)
{
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(open_fake("crash", &state, err, sizeof err), 0);
    gt_observed observed;
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_msg(strstr(note, "signal 11") != NULL, "%s", note);
    ck_assert_ptr_nonnull(strstr(note, "about to crash on case 1"));
    /* restarted for the next case: crashes again, still recorded */
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_ptr_nonnull(strstr(note, "signal 11"));
    gt_target_adapter_ops.close(state);
}
END_TEST

START_TEST(test_crash_once_recovers)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/gauntlet-fake-%d", (int)getpid());
    unlink(path);
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(open_fake("crashonce", &state, err, sizeof err), 0);
    gt_observed observed;
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_ptr_nonnull(strstr(note, "exited with status 3"));
    ck_assert_ptr_nonnull(strstr(note, "first run crashes"));
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_DONE);
    gt_observed_clear(&observed);
    gt_target_adapter_ops.close(state);
    unlink(path);
}
END_TEST

START_TEST(test_hang_times_out)
{
    gt_adapter_set_timeout_ms(300);
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(open_fake("hang", &state, err, sizeof err), 0);
    gt_observed observed;
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_ptr_nonnull(strstr(note, "timed out after 300 ms"));
    gt_target_adapter_ops.close(state);
    gt_adapter_set_timeout_ms(0);
}
END_TEST

START_TEST(test_partial_line_times_out)
{
    gt_adapter_set_timeout_ms(300);
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(open_fake("partial", &state, err, sizeof err), 0);
    gt_observed observed;
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_ptr_nonnull(strstr(note, "partial line"));
    gt_target_adapter_ops.close(state);
    gt_adapter_set_timeout_ms(0);
}
END_TEST

START_TEST(test_garbage_is_an_error)
{
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(open_fake("garbage", &state, err, sizeof err), 0);
    gt_observed observed;
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_ptr_nonnull(strstr(note, "garbage on stdout"));
    ck_assert_ptr_nonnull(strstr(note, "Traceback"));
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR);
    gt_target_adapter_ops.close(state);
}
END_TEST

START_TEST(test_huge_line_is_an_error)
{
    void *state;
    char err[512], note[2048];
    /* Deterministic: the fake writes 70 MB; a 1 MiB limit is passed after a
     * few reads, long before a minute's deadline, however loaded the machine
     * (with the 64 MiB default the 10 s timeout could win under load). */
    gt_adapter_set_max_line(1024 * 1024);
    gt_adapter_set_timeout_ms(60000);
    ck_assert_int_eq(open_fake("huge", &state, err, sizeof err), 0);
    gt_adapter_set_max_line(0);
    gt_adapter_set_timeout_ms(0);
    gt_observed observed;
    ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_msg(strstr(note, "line over 1048576 bytes") != NULL, "%s", note);
    gt_target_adapter_ops.close(state);
}
END_TEST

START_TEST(test_protocol_violations)
{
    const char *modes[] = {"wrongseq", "errored", "skipped", "noverdict"};
    const int expect[] = {GT_CHECK_ERROR, GT_CHECK_ERROR, GT_CHECK_SKIPPED, GT_CHECK_ERROR};
    const char *evidence[] = {"seq does not match", "KeyError", "not implemented", "verdict"};
    for (int i = 0; i < 4; i++) {
        void *state;
        char err[512], note[2048];
        ck_assert_int_eq(open_fake(modes[i], &state, err, sizeof err), 0);
        gt_observed observed;
        ck_assert_int_eq(check_once(state, &syntax_case, &observed, note, sizeof note), expect[i]);
        ck_assert_msg(strstr(note, evidence[i]) != NULL, "%s: %s", modes[i], note);
        gt_observed_clear(&observed);
        gt_target_adapter_ops.close(state);
    }
}
END_TEST

START_TEST(test_bad_handshakes)
{
    void *state;
    char err[2048];
    ck_assert_int_eq(open_fake("badhello", &state, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "handshake failed"));
    ck_assert_int_eq(gt_target_adapter_ops.open("exit 7", &state, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "status 7"));
    ck_assert_int_eq(gt_target_adapter_ops.open("", &state, err, sizeof err), -1);
    ck_assert_int_eq(gt_target_adapter_ops.open(NULL, &state, err, sizeof err), -1);
}
END_TEST

START_TEST(test_reference_adapter_round_trip)
{
    /* built by `make test`; scripts/run-tests.sh names it */
    const char *bin = getenv("GAUNTLET_ADAPTER_REFERENCE");
    if (bin == NULL)
        bin = "build/adapters/gauntlet-adapter-reference";
    ck_assert_msg(access(bin, X_OK) == 0, "reference adapter %s is not built", bin);
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(gt_target_adapter_ops.open(bin, &state, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(gt_target_adapter_ops.name(state), "gauntlet-reference"));
    /* a fence is rejected; a raw NUL byte travels as "\u0000" in `raw` (the
     * request stays readable); bytes that are not UTF-8 travel exactly
     * through raw_base64 */
    const struct {
        const char *raw;
        size_t len;
        const char *reason;
    } rejects[] = {
        {"```json\n{}\n```", 14, "markdown_fence"},
        {"[\"a\0b\"]", 7, "control_character"},
        {"[\"\xc0\xaf\"]", 6, "invalid_utf8"},
    };
    for (size_t i = 0; i < sizeof rejects / sizeof *rejects; i++) {
        gt_case_input input = syntax_case;
        input.raw = (const unsigned char *)rejects[i].raw;
        input.raw_len = rejects[i].len;
        gt_observed observed;
        ck_assert_msg(check_once(state, &input, &observed, note, sizeof note) == GT_CHECK_DONE, "%s", note);
        ck_assert_int_eq(observed.verdict, GT_VERDICT_REJECT);
        ck_assert_str_eq(observed.gate, "syntax");
        ck_assert_str_eq(observed.reason, rejects[i].reason);
        gt_observed_clear(&observed);
    }
    gt_target_adapter_ops.close(state);
}
END_TEST

/* Every number of a request is range-checked before use: max_bytes 1e300,
 * -1 or 1.5 is a protocol error naming the field (before: 1e300 was a
 * float-to-integer overflow, flagged by UBSan, and the case was answered). */
START_TEST(test_reference_adapter_checks_request_numbers)
{
    const char *bin = getenv("GAUNTLET_ADAPTER_REFERENCE");
    if (bin == NULL)
        bin = "build/adapters/gauntlet-adapter-reference";
    ck_assert_msg(access(bin, X_OK) == 0, "reference adapter %s is not built", bin);
    static const char *const values[] = {"1e300", "-1", "1.5", "\"16\"", "1e16"};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        char command[1024], out[4096];
        snprintf(command, sizeof command,
                 "printf '%%s\\n' '{\"cmd\":\"check\",\"seq\":7,\"id\":\"a\",\"gate\":\"syntax\",\"raw_base64\":\"e30=\","
                 "\"max_bytes\":%s}' | %s 2>&1",
                 values[i], bin);
        ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 0);
        ck_assert_msg(strstr(out, "\"seq\":7,\"errored\":true") && strstr(out, "max_bytes must be an integer"),
                      "max_bytes %s: %s", values[i], out);
    }
    char command[1024], out[4096];
    snprintf(command, sizeof command,
             "printf '%%s\\n' '{\"cmd\":\"check\",\"seq\":8,\"id\":\"a\",\"gate\":\"syntax\",\"raw_base64\":\"e30=\","
             "\"max_bytes\":0}' '{\"cmd\":\"check\",\"seq\":9,\"id\":\"a\",\"gate\":\"syntax\",\"raw_base64\":\"e30=\","
             "\"max_bytes\":1}' | %s 2>&1",
             bin);
    ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "\"seq\":8,\"verdict\":\"accept\"") && strstr(out, "\"seq\":9,\"verdict\":\"reject\""),
                  "%s", out);
}
END_TEST

/* A reply echoing an accepted value as deep as any target accepts, plus the
 * envelope's 64 levels, is read; one over the reply limit is an error. */
START_TEST(test_reply_depth)
{
    const unsigned depths[] = {GT_PARSE_DEFAULT_MAX_DEPTH + 63u, GT_SCHEMA_MAX_DEPTH + 63u,
                               GT_ADAPTER_REPLY_MAX_DEPTH};
    for (size_t i = 0; i < 3; i++) {
        char mode[32];
        snprintf(mode, sizeof mode, "deep%u", depths[i]);
        void *state;
        char err[512], note[2048];
        ck_assert_int_eq(open_fake(mode, &state, err, sizeof err), 0);
        gt_observed observed;
        int status = check_once(state, &syntax_case, &observed, note, sizeof note);
        if (i < 2) {
            ck_assert_msg(status == GT_CHECK_DONE, "%s: %s", mode, note);
            ck_assert_uint_eq(strlen(observed.output_json), 2u * depths[i]);
        } else {
            ck_assert_int_eq(status, GT_CHECK_ERROR);
            ck_assert_msg(strstr(note, "too_deep") != NULL, "%s", note);
        }
        gt_observed_clear(&observed);
        gt_target_adapter_ops.close(state);
    }
}
END_TEST

/* Replies written by Python's json.dumps ("\u0000", lone surrogate escapes,
 * integers of any size) are valid JSON: read, never `error`. */
START_TEST(test_python_json_dumps_replies)
{
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(gt_target_adapter_ops.open("python3 suite/adapters/json_dumps.py", &state, err, sizeof err), 0);
    ck_assert_str_eq(gt_target_adapter_ops.name(state), "json-dumps \xef\xbf\xbd");
    const char *raws[] = {"[\"a\\u0000b\"]", "{\"s\":\"\\ud800\"}", "[\"\\udfff x\"]", "[\"a\0b\"]",
                          "[123456789012345678901234567890]", "[1e999]", "{\"k\":1,\"k\":2}", "not json"};
    const int verdicts[] = {GT_VERDICT_ACCEPT, GT_VERDICT_ACCEPT, GT_VERDICT_ACCEPT, GT_VERDICT_REJECT,
                            GT_VERDICT_ACCEPT, GT_VERDICT_ACCEPT, GT_VERDICT_ACCEPT, GT_VERDICT_REJECT};
    for (size_t i = 0; i < sizeof raws / sizeof *raws; i++) {
        gt_case_input input = syntax_case;
        input.raw = (const unsigned char *)raws[i];
        input.raw_len = i == 3 ? 7 : strlen(raws[i]);
        gt_observed observed;
        ck_assert_msg(check_once(state, &input, &observed, note, sizeof note) == GT_CHECK_DONE, "%s: %s", raws[i],
                      note);
        ck_assert_int_eq(observed.verdict, verdicts[i]);
        if (i == 0)
            ck_assert_str_eq(observed.output_json, "[\"a\\u0000b\"]");
        if (i == 1)
            ck_assert_str_eq(observed.output_json, "{\"s\":\"\xef\xbf\xbd\"}");
        if (i == 3)
            ck_assert_ptr_nonnull(observed.message);
        gt_observed_clear(&observed);
    }
    gt_target_adapter_ops.close(state);
}
END_TEST

/* The same adapter over the whole syntax corpus: lax verdicts fail cases,
 * but no case is an error. */
START_TEST(test_python_adapter_syntax_corpus_has_no_error)
{
    char *argv[] = {"run", "corpus/syntax", "--target", "adapter:python3 suite/adapters/json_dumps.py", NULL};
    static char out[1 << 20];
    gt_test_cli(gt_cmd_run, argv, out, sizeof out);
    const char *total = strstr(out, "\ntotal ");
    ck_assert_msg(total != NULL, "%s", out);
    int cases = 0, pass = 0, fail = 0, error = -1, skip = -1;
    ck_assert_int_eq(sscanf(total, " total %d %d %d %d %d", &cases, &pass, &fail, &error, &skip), 5);
    ck_assert_int_gt(cases, 100);
    ck_assert_msg(error == 0 && skip == 0 && pass + fail == cases, "%s", out);
    ck_assert_msg(strstr(out, "ERROR ") == NULL, "%s", out);
}
END_TEST

/* Replies written with json.dumps' default allow_nan=True carry Infinity,
 * -Infinity and NaN when the pipeline accepted a value Python read as a
 * non-finite float: the runner reads them (Infinity as 1e999, NaN as null),
 * so the accept is judged. Over the corpus: the overflow cases fail as
 * unsafe accepts, and no case is an `error`. */
START_TEST(test_python_non_finite_replies)
{
    void *state;
    char err[512], note[2048];
    ck_assert_int_eq(gt_target_adapter_ops.open("python3 suite/adapters/python_nan.py", &state, err, sizeof err), 0);
    const char *raws[] = {"{\"score\": 1e999}", "[-1e999, NaN]", "Infinity", "{\"s\": \"NaN Infinity\"}"};
    const char *outputs[] = {"{\"score\":1e999}", "[-1e999,null]", "1e999", "{\"s\":\"NaN Infinity\"}"};
    for (size_t i = 0; i < sizeof raws / sizeof *raws; i++) {
        gt_case_input input = syntax_case;
        input.raw = (const unsigned char *)raws[i];
        input.raw_len = strlen(raws[i]);
        gt_observed observed;
        ck_assert_msg(check_once(state, &input, &observed, note, sizeof note) == GT_CHECK_DONE, "%s: %s", raws[i],
                      note);
        ck_assert_int_eq(observed.verdict, GT_VERDICT_ACCEPT);
        ck_assert_str_eq(observed.output_json, outputs[i]);
        gt_observed_clear(&observed);
    }
    gt_target_adapter_ops.close(state);
    /* still garbage: a bare word that is not a number, and NaN inside a broken line */
    gt_observed observed;
    char why[256];
    const char *garbage[] = {"{\"seq\": 1, \"verdict\": \"accept\", \"output\": NaNa}", "{\"seq\": 1, NaN: 1}"};
    for (size_t i = 0; i < 2; i++) {
        memset(&observed, 0, sizeof observed);
        ck_assert_int_eq(gt_adapter_reply_read(garbage[i], strlen(garbage[i]), &observed, why, sizeof why), -1);
        gt_observed_clear(&observed);
    }

    /* overflow-1e999 is an optional case (gauntlet's reason), so judge on every profile */
    char *argv[] = {"run", "corpus/syntax", "--target", "adapter:python3 suite/adapters/python_nan.py", "--profile", "all",
                    NULL};
    static char out[1 << 20];
    gt_test_cli(gt_cmd_run, argv, out, sizeof out);
    ck_assert_msg(strstr(out, "ERROR ") == NULL, "%.2000s", out);
    ck_assert_msg(strstr(out, "garbage on stdout") == NULL, "%.2000s", out);
    ck_assert_msg(strstr(out, "FAIL syntax.number.overflow-1e999: expected reject syntax/number_overflow, observed "
                              "accept") != NULL,
                  "%.2000s", out);
}
END_TEST

/* A parent started with no standard input (as CI starts gauntlet): the
 * adapter's stdin pipe is handed fd 0, and the child must still read it
 * (before the fix it saw EOF and exited 0 before answering hello). */
START_TEST(test_parent_without_stdin)
{
    const char *bin = getenv("GAUNTLET_ADAPTER_REFERENCE");
    if (bin == NULL)
        bin = "build/adapters/gauntlet-adapter-reference";
    close(0);
    void *state;
    char err[512], note[2048];
    ck_assert_msg(gt_target_adapter_ops.open(bin, &state, err, sizeof err) == 0, "%s", err);
    gt_case_input input = syntax_case;
    input.raw = (const unsigned char *)"```json\n{}\n```";
    input.raw_len = 14;
    gt_observed observed;
    ck_assert_msg(check_once(state, &input, &observed, note, sizeof note) == GT_CHECK_DONE, "%s", note);
    ck_assert_str_eq(observed.reason, "markdown_fence");
    gt_observed_clear(&observed);
    gt_target_adapter_ops.close(state);
    /* the whole command, started with fd 0 closed, runs every case */
    char command[1024];
    snprintf(command, sizeof command, "%s run corpus/syntax --target 'adapter:%s' <&- 2>&1 | tail -n 1",
             getenv("GAUNTLET") ? getenv("GAUNTLET") : "build/gauntlet", bin);
    FILE *pipe = popen(command, "r");
    ck_assert_ptr_nonnull(pipe);
    char line[256] = "";
    ck_assert_ptr_nonnull(fgets(line, sizeof line, pipe));
    pclose(pipe);
    ck_assert_msg(strstr(line, " passed, 0 failed, 0 skipped") != NULL && line[0] != '0', "%s", line);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("adapter target");
    TCase *tc = tcase_create("adapter");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_well_behaved);
    tcase_add_test(tc, test_descendants_do_not_outlive_the_adapter);
    tcase_add_test(tc, test_timeout_bounds_restarts_and_closed_stdout_is_said);
    tcase_add_test(tc, test_failed_smoke_obeys_timeout_and_writes_reports);
    tcase_add_test(tc, test_undeclared_capability_is_skipped);
    tcase_add_test(tc, test_crash_is_an_error_with_evidence_then_restart);
    tcase_add_test(tc, test_crash_once_recovers);
    tcase_add_test(tc, test_hang_times_out);
    tcase_add_test(tc, test_partial_line_times_out);
    tcase_add_test(tc, test_garbage_is_an_error);
    tcase_add_test(tc, test_huge_line_is_an_error);
    tcase_add_test(tc, test_protocol_violations);
    tcase_add_test(tc, test_bad_handshakes);
    tcase_add_test(tc, test_reference_adapter_round_trip);
    tcase_add_test(tc, test_reference_adapter_checks_request_numbers);
    tcase_add_test(tc, test_parent_without_stdin);
    tcase_add_test(tc, test_reply_depth);
    tcase_add_test(tc, test_python_json_dumps_replies);
    tcase_add_test(tc, test_python_adapter_syntax_corpus_has_no_error);
    tcase_add_test(tc, test_python_non_finite_replies);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
