/* test_record.c — `gauntlet record` (mocks/record.c): a client's JSON and
 * streamed exchanges through the proxy to the mock as upstream, then the
 * recording replayed by a mock loaded from it; redaction; bad input; the
 * latency the proxy adds to a stream. Loopback only. */
#include <check.h>
#include <ctype.h>
#include <microhttpd.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gt_test.h"
#include "gt_test_http.h"
#include "runner/cli/commands.h"
#include "runner/cli/gen_cli.h"

static const char *const secret_headers[] = {"x-api-key: SECRETKEY-7f3a", "anthropic-version: 2023-06-01", NULL};
static const char json_request[] = "{\"model\":\"m\",\"max_tokens\":64,\"metadata\":{\"user_id\":\"SECRETUSER-91\"},"
                                   "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
static const char stream_request[] = "{\"model\":\"m\",\"max_tokens\":64,\"stream\":true,"
                                     "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

/* Every folder temp_dir makes is removed after its test (remove_temp_dirs, a
 * checked fixture: it runs in the test's own process, pass or fail), so a
 * run of the suite leaves no /tmp/gt-record-* behind. */
static char made_dirs[32][32];
static size_t made_count;

static void temp_dir(char *out, size_t len)
{
    snprintf(out, len, "/tmp/gt-record-XXXXXX");
    ck_assert(mkdtemp(out) != NULL);
    ck_assert(made_count < sizeof made_dirs / sizeof made_dirs[0]);
    snprintf(made_dirs[made_count++], sizeof made_dirs[0], "%s", out);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path); /* keep going past one that will not go */
    return 0;
}

static void remove_temp_dirs(void)
{
    for (size_t i = 0; i < made_count; i++) {
        nftw(made_dirs[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        /* a folder named `-gen` beside it (gen's output) goes too */
        char gen[48];
        snprintf(gen, sizeof gen, "%.31s-gen", made_dirs[i]);
        nftw(gen, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    made_count = 0;
}

/* 1 when `needle` occurs in any file directly under `dir`. */
static int dir_contains(const char *dir, const char *needle)
{
    DIR *listing = opendir(dir);
    ck_assert(listing != NULL);
    int found = 0;
    for (struct dirent *e; (e = readdir(listing)) != NULL;) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        char buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        if (strstr(buf, needle))
            found = 1;
    }
    closedir(listing);
    return found;
}

static gt_record_server *record_start_with(const char *upstream, const char *dir, bool record_errors)
{
    static const char *const redact[] = {"metadata.user_id"};
    gt_record_options options = {.upstream = upstream, .out_dir = dir, .redact = redact, .redact_count = 1,
                                 .record_errors = record_errors};
    char err[1200];
    gt_record_server *proxy = gt_record_start(&options, err, sizeof err);
    ck_assert_msg(proxy != NULL, "%s", err);
    return proxy;
}

static gt_record_server *record_start(const char *upstream, const char *dir)
{
    return record_start_with(upstream, dir, false);
}

/* DIR's file (or scenario) REST of a recording named after DIR, as the
 * recorder names it: "NAME.REST", NAME being DIR's last component
 * lowercased (a temp_dir's is [a-z0-9-]). Four rotating buffers. */
static const char *in_rec(const char *dir, const char *rest)
{
    static char bufs[4][256];
    static int next;
    char *out = bufs[next++ % 4];
    snprintf(out, sizeof bufs[0], "%s.%s", strrchr(dir, '/') + 1, rest);
    for (char *p = out; *p && p < out + strlen(strrchr(dir, '/') + 1); p++)
        *p = (char)tolower((unsigned char)*p);
    return out;
}

/* Start `$GAUNTLET ARGS...` (build/gauntlet when GAUNTLET is unset) with its
 * stderr into ERR_PATH; its first stdout line (the base URL) into `url`.
 * Returns the child's pid. */
static pid_t spawn_gauntlet(const char *const *args, const char *err_path, char *url, size_t url_len)
{
    const char *bin = getenv("GAUNTLET") ? getenv("GAUNTLET") : "build/gauntlet";
    char *argv[32] = {(char *)bin};
    for (size_t i = 0; args[i] && i < 30; i++)
        argv[i + 1] = (char *)args[i];
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int err_fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fds[1], 1);
        dup2(err_fd, 2);
        close(fds[0]);
        close(fds[1]);
        /* under `make sanitize`, ASan's quarantine would hold up to 256 MB
         * of freed memory: keep it small so the peak RSS test measures
         * what the recorder keeps, not what ASan delays freeing */
        char asan[1024];
        const char *given = getenv("ASAN_OPTIONS");
        snprintf(asan, sizeof asan, "%s%squarantine_size_mb=1", given ? given : "", given && *given ? ":" : "");
        setenv("ASAN_OPTIONS", asan, 1);
        execv(bin, argv);
        _exit(127);
    }
    close(fds[1]);
    FILE *out = fdopen(fds[0], "r");
    ck_assert_ptr_nonnull(out);
    url[0] = '\0';
    ck_assert_msg(fgets(url, (int)url_len, out) != NULL, "%s printed no URL (see %s)", bin, err_path);
    url[strcspn(url, "\r\n")] = '\0';
    fclose(out);
    return pid;
}

/* A new temp folder's `rec` (the recording, not yet made) and
 * `record.log` (a spawned recorder's stderr): 128 bytes each. */
static void temp_recording(char *rec, char *err_path)
{
    char dir[64];
    temp_dir(dir, sizeof dir);
    snprintf(rec, 128, "%s/rec", dir);
    snprintf(err_path, 128, "%s/record.log", dir);
}

/* Wait until the file at `path` holds `needle` (at most `seconds`). */
static bool file_gets(const char *path, const char *needle, double seconds)
{
    for (int i = 0; i < (int)(seconds * 200); i++) {
        FILE *f = fopen(path, "r");
        char buf[8192] = "";
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        buf[n] = '\0';
        if (f)
            fclose(f);
        if (strstr(buf, needle))
            return true;
        usleep(5000);
    }
    return false;
}

/* The exit status of child `pid` (waits at most `seconds`; -1 when it did not exit). */
static int child_exit(pid_t pid, double seconds)
{
    int status = 0;
    for (int i = 0; i < (int)(seconds * 200); i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        usleep(5000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

/* DIR/NAME as text (fails the test when absent). */
static char *dir_file(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return gt_test_slurp(path);
}

/* Fail unless DIR/NAME holds every one of `needles` (NULL-terminated). */
static void file_has_all(const char *dir, const char *name, const char *const *needles)
{
    char *text = dir_file(dir, name);
    for (size_t i = 0; needles[i]; i++)
        ck_assert_msg(strstr(text, needles[i]) != NULL, "%s/%s: no %s", dir, name, needles[i]);
    free(text);
}

static bool dir_has(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* `gauntlet run DIR` against the reference: its exit code, output in `out`. */
static int run_dir(const char *dir, char *out, size_t out_len)
{
    char *argv[] = {"run", (char *)dir, NULL};
    return gt_test_cli(gt_cmd_run, argv, out, out_len);
}

static const char triage_schema[] = "{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"},"
                                    "\"fixes\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
                                    "\"required\":[\"cause\",\"fixes\"],\"additionalProperties\":false}";

/* The reference client (libcurl, gauntlet/client.h) runs one query against
 * BASE; returns the terminal subtype's name. */
static const char *client_query_with(const char *base, bool stream, gt_stream_provider provider, const char *schema)
{
    gt_client_options options = {.base_url = base, .stream = stream, .provider = provider,
                                 .api_key = "SECRETKEY-7f3a", .backoff_ms = -1};
    gt_loop_model model;
    gt_loop_config config;
    gt_client *client = gt_test_client_loop(&options, schema, &model, &config);
    gt_loop_result result;
    ck_assert_int_eq(gt_loop_run(&config, &model, &result), 0);
    const char *subtype = gt_loop_subtype_name(result.subtype);
    gt_loop_result_free(&result);
    gt_client_free(client);
    return subtype;
}

static const char *client_query(const char *base, bool stream, gt_stream_provider provider)
{
    return client_query_with(base, stream, provider, triage_schema);
}

/* An answer with an integer and a boolean, whose variants include the
 * scalar near-misses. */
static const char ticket_schema[] = "{\"type\":\"object\",\"properties\":{\"priority\":{\"type\":\"integer\"},"
                                    "\"urgent\":{\"type\":\"boolean\"}},\"required\":[\"priority\",\"urgent\"],"
                                    "\"additionalProperties\":false}";
static const char ticket_script[] = "{\"turns\":[{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_t\","
                                    "\"name\":\"StructuredOutput\",\"input\":{\"priority\":4,\"urgent\":true}}]}}]}";

static gt_test_response via(const char *base, const char *path, const char *body)
{
    char url[1200];
    snprintf(url, sizeof url, "%s%s", base, path);
    return gt_test_http(NULL, url, body, secret_headers);
}

START_TEST(test_record_replays_json_and_stream)
{
    char dir[64];
    temp_dir(dir, sizeof dir);
    gt_mock_server *upstream = gt_test_mock_start(NULL, "suite/data/record", 1);
    gt_record_server *proxy = record_start(gt_mock_base_url(upstream), dir);
    const char *base = gt_record_base_url(proxy);
    gt_test_response direct_json = gt_test_mock_request(upstream, NULL, "/s/answer/d1/v1/messages", json_request, NULL);
    gt_test_response direct_stream = gt_test_mock_request(upstream, NULL, "/s/answer/d2/v1/messages", stream_request, NULL);
    gt_test_response json = via(base, "/s/answer/r1/v1/messages", json_request);
    gt_test_response stream = via(base, "/s/answer/r2/v1/messages", stream_request);
    ck_assert_msg(json.status == 200, "%ld %s", json.status, json.body);
    ck_assert_str_eq(json.body, direct_json.body);
    ck_assert_int_eq(stream.status, 200);
    ck_assert_ptr_nonnull(strstr(stream.body, "event: message_stop"));
    ck_assert_str_eq(stream.body, direct_stream.body);
    printf("record: streamed answer direct first byte %.2f ms total %.2f ms; via proxy first byte %.2f ms total %.2f ms\n",
           direct_stream.first_byte_s * 1e3, direct_stream.total_s * 1e3, stream.first_byte_s * 1e3,
           stream.total_s * 1e3);
    ck_assert_uint_eq(gt_record_exchange_count(proxy), 2);
    gt_record_stop(proxy);
    gt_mock_stop(upstream);
    ck_assert_msg(!dir_contains(dir, "SECRETKEY-7f3a"), "the API key reached %s", dir);
    ck_assert_msg(!dir_contains(dir, "SECRETUSER-91"), "a --redact field reached %s", dir);
    ck_assert(dir_contains(dir, "\"metadata.user_id\""));

    gt_mock_server *replay = gt_test_mock_start(NULL, dir, 2);
    char path[200];
    snprintf(path, sizeof path, "/s/%s/x/v1/messages", in_rec(dir, "0001"));
    gt_test_response again_json = gt_test_mock_request(replay, NULL, path, json_request, NULL);
    snprintf(path, sizeof path, "/s/%s/x/v1/messages", in_rec(dir, "0002"));
    gt_test_response again_stream = gt_test_mock_request(replay, NULL, path, stream_request, NULL);
    ck_assert_int_eq(again_json.status, 200);
    ck_assert_str_eq(again_json.body, json.body);
    ck_assert_int_eq(again_stream.status, 200);
    ck_assert_str_eq(again_stream.body, stream.body);
    gt_mock_stop(replay);
    gt_test_response *all[] = {&direct_json, &direct_stream, &json, &stream, &again_json, &again_stream};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        gt_test_response_free(all[i]);
}
END_TEST

START_TEST(test_record_unreachable_upstream_is_502)
{
    char dir[64];
    temp_dir(dir, sizeof dir);
    gt_record_server *proxy = record_start("http://127.0.0.1:1", dir);
    gt_test_response r = via(gt_record_base_url(proxy), "/v1/messages", json_request);
    ck_assert_int_eq(r.status, 502);
    ck_assert_ptr_nonnull(strstr(r.body, "upstream http://127.0.0.1:1/v1/messages: "));
    ck_assert_msg(strcasestr(r.body, "connect") != NULL, "the 502 names no cause: %s", r.body); /* curl's */
    ck_assert_uint_eq(gt_record_exchange_count(proxy), 0);
    gt_test_response_free(&r);
    gt_record_stop(proxy);
    ck_assert(!dir_has(dir, in_rec(dir, "0001.exchange.txt"))); /* no --record-errors: nothing recorded */
    ck_assert(dir_has(dir, "recording.txt"));
}
END_TEST

START_TEST(test_record_bad_options)
{
    char dir[64], err[1200];
    temp_dir(dir, sizeof dir);
    gt_record_options remote = {.upstream = "http://127.0.0.1:9", .out_dir = dir, .host = "0.0.0.0"};
    ck_assert_ptr_null(gt_record_start(&remote, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "--allow-remote"));
    char stray[128];
    snprintf(stray, sizeof stray, "%s/notes.txt", dir);
    FILE *f = fopen(stray, "w");
    ck_assert(f != NULL);
    fputs("mine\n", f);
    fclose(f);
    gt_record_options full = {.upstream = "http://127.0.0.1:9", .out_dir = dir};
    ck_assert_ptr_null(gt_record_start(&full, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "not empty and not a recording"));
    full.record_missing = true; /* serve --record-missing names its own flag */
    ck_assert_ptr_null(gt_record_start(&full, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "--corpus "));
    gt_record_options bad_url = {.upstream = "ftp://x", .out_dir = "/tmp/gt-record-never"};
    ck_assert_ptr_null(gt_record_start(&bad_url, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "--upstream ftp://x"));
}
END_TEST

/* A dripped stream reaches the client piece by piece through the proxy: its
 * first byte comes long before its last (no whole-body buffering). */
START_TEST(test_record_streams_as_it_arrives)
{
    char dir[64];
    temp_dir(dir, sizeof dir);
    gt_mock_server *upstream = gt_test_mock_start(NULL, "suite/data/record", 2);
    gt_record_server *proxy = record_start(gt_mock_base_url(upstream), dir);
    gt_test_response r = via(gt_record_base_url(proxy), "/s/drip/r1/v1/messages", stream_request);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "event: message_stop"));
    printf("record: dripped stream via proxy first byte %.1f ms, total %.1f ms\n", r.first_byte_s * 1e3,
           r.total_s * 1e3);
    ck_assert_msg(r.total_s - r.first_byte_s > 0.1, "first byte %.3f s, total %.3f s: the proxy held the stream",
                  r.first_byte_s, r.total_s);
    gt_test_response_free(&r);
    gt_record_stop(proxy);
    gt_mock_stop(upstream);
}
END_TEST

/* A tool loop (an invalid StructuredOutput call, its is_error tool_result,
 * a valid call) records as ONE scenario of two turns and one case whose
 * expectation is the reference's verdict; `gauntlet run DIR` passes; the
 * recorded scenario replays to the same verdict; no key reaches DIR. */
START_TEST(test_record_tool_loop_is_one_case)
{
    char dir[64], out[16384], url[1200];
    temp_dir(dir, sizeof dir);
    gt_mock_server *upstream = gt_test_mock_start(NULL, "suite/data/mock", 10);
    gt_record_server *proxy = record_start(gt_mock_base_url(upstream), dir);
    const char *base = gt_record_base_url(proxy);
    snprintf(url, sizeof url, "%s/s/cc-invalid-then-valid/r1", base);
    ck_assert_str_eq(client_query(url, true, GT_PROVIDER_ANTHROPIC), "success");
    snprintf(url, sizeof url, "%s/s/openai-tool-call/r2", base);
    ck_assert_str_eq(client_query(url, false, GT_PROVIDER_OPENAI), "success");
    /* a cut JSON body, the resend (past the script: plain text), the enforce message, text again */
    snprintf(url, sizeof url, "%s/s/fault-cut-bytes/r3", base);
    ck_assert_str_eq(client_query(url, false, GT_PROVIDER_ANTHROPIC), "error_no_structured_output");
    char err[1200];
    ck_assert_msg(gt_mock_add_scenario(upstream, "ticket", ticket_script, NULL, err, sizeof err) == 0, "%s", err);
    snprintf(url, sizeof url, "%s/s/ticket/r4", base);
    ck_assert_str_eq(client_query_with(url, true, GT_PROVIDER_ANTHROPIC, ticket_schema), "success");
    ck_assert_uint_eq(gt_record_exchange_count(proxy), 7);
    /* the retry hint and the request id pass through, and the 529 replays with its retry-after */
    gt_test_response busy = via(base, "/s/overloaded-then-success/r5/v1/messages", json_request);
    ck_assert_int_eq(busy.status, 529);
    ck_assert_ptr_nonnull(strstr(busy.headers, "retry-after: 1"));
    ck_assert_ptr_nonnull(strstr(busy.headers, "request-id: "));
    gt_test_response_free(&busy);
    gt_record_stop(proxy);
    gt_mock_stop(upstream);
    ck_assert_msg(!dir_contains(dir, "SECRETKEY-7f3a"), "the API key reached %s", dir);
    ck_assert(!dir_has(dir, in_rec(dir, "0006.scenario.json")));
    char *busy_script = dir_file(dir, in_rec(dir, "0005.scenario.json"));
    ck_assert_ptr_nonnull(strstr(busy_script, "\"retry_after\":\t1"));
    free(busy_script);

    char *loop = dir_file(dir, in_rec(dir, "0001.scenario.json"));
    ck_assert_uint_eq(gt_test_count_of(loop, "\"stream\""), 2); /* two turns, one scenario */
    free(loop);
    char *kase = dir_file(dir, in_rec(dir, "0001.cases.json"));
    char id[96];
    snprintf(id, sizeof id, "\"recorded.%s.0001\"", strrchr(dir, '/') + 1); /* the recording is named after DIR */
    for (char *p = id; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    ck_assert_msg(strstr(kase, id) != NULL, "no %s", id);
    ck_assert_ptr_nonnull(strstr(kase, "\"recorded\""));
    ck_assert_ptr_nonnull(strstr(kase, "\"tier\":\t\"optional\""));
    ck_assert_ptr_nonnull(strstr(kase, "\"attempts_used\":\t2"));
    ck_assert_ptr_nonnull(strstr(kase, "\"answer_form\":\t\"structured_output_tool\""));
    free(kase);
    char *cut = dir_file(dir, in_rec(dir, "0003.scenario.json"));
    ck_assert_ptr_nonnull(strstr(cut, "\"cut_after_bytes\""));
    free(cut);
    char *cut_case = dir_file(dir, in_rec(dir, "0003.cases.json"));
    ck_assert_ptr_nonnull(strstr(cut_case, "\"api_attempts\":\t3"));
    ck_assert_ptr_nonnull(strstr(cut_case, "\"reason\":\t\"error_no_structured_output\""));
    free(cut_case);
    int code = run_dir(dir, out, sizeof out);
    ck_assert_msg(code == 0 && strstr(out, "4 passed, 0 failed"), "exit %d:\n%s", code, out); /* 0005: no schema */

    /* gen --from: every variant's expectation is the reference's, so the folder passes; each operator shows */
    char grown[80];
    snprintf(grown, sizeof grown, "%s-gen", dir);
    gt_gen_from_counts counts;
    ck_assert_int_eq(gt_gen_cli_from_recording(dir, grown, &counts), 0);
    int variants = counts.variants;
    ck_assert_int_gt(variants, 20);
    ck_assert_int_gt(counts.near_misses, 10);
    char *grown_cases = dir_file(grown, in_rec(dir, "0001.cases.json"));
    /* the wire operators, and gen's own on a recorded string value and the root */
    static const char *const operators[] = {"cut_inside_string", "cut_between_members", "cut_before_close",
                                            "max_tokens_at", "refusal_at", "fallback_retracts", "second_call",
                                            "\"operator\":\t\"extra-member\"", "\"operator\":\t\"wrong-type\"",
                                            "wrong-type at /cause: \\\"missing symbol\\\" -> 42", NULL};
    for (size_t i = 0; operators[i]; i++)
        ck_assert_msg(strstr(grown_cases, operators[i]) != NULL, "no %s variant", operators[i]);
    ck_assert_ptr_nonnull(strstr(grown_cases, "\"S2-26\""));
    free(grown_cases);
    char *scalar_cases = dir_file(grown, in_rec(dir, "0004.cases.json"));
    ck_assert_ptr_nonnull(strstr(scalar_cases, "\"operator\":\t\"number-as-string\"")); /* "4" for 4 */
    ck_assert_ptr_nonnull(strstr(scalar_cases, "\"operator\":\t\"bool-as-int\""));      /* 1 for true */
    ck_assert_ptr_nonnull(strstr(scalar_cases, "\"S2-05\""));
    free(scalar_cases);
    code = run_dir(grown, out, sizeof out);
    char passed[64];
    snprintf(passed, sizeof passed, "%d passed, 0 failed", variants);
    ck_assert_msg(code == 0 && strstr(out, passed), "exit %d:\n%s", code, out);
    char *http_argv[] = {"run", grown, "--target", "http-reference", NULL}; /* and over HTTP, the mock playing them */
    code = gt_test_cli(gt_cmd_run, http_argv, out, sizeof out);
    ck_assert_msg(code == 0 && strstr(out, passed), "http-reference: exit %d:\n%s", code, out);
    char *gen_argv[] = {"gen", "--from", dir, "--out", grown, NULL}; /* not empty: refused */
    ck_assert_int_eq(gt_test_cli(gt_cmd_gen, gen_argv, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "give a new or empty folder"));

    gt_mock_server *replay = gt_test_mock_start(NULL, dir, 3);
    char path5[200];
    snprintf(path5, sizeof path5, "/s/%s/x/v1/messages", in_rec(dir, "0005"));
    gt_test_response busy_again = gt_test_mock_request(replay, NULL, path5, json_request, NULL);
    ck_assert_int_eq(busy_again.status, 529);
    ck_assert_ptr_nonnull(strstr(busy_again.headers, "retry-after: 1"));
    gt_test_response_free(&busy_again);
    snprintf(url, sizeof url, "%s/s/%s/x", gt_mock_base_url(replay), in_rec(dir, "0001"));
    ck_assert_str_eq(client_query(url, true, GT_PROVIDER_ANTHROPIC), "success");
    snprintf(url, sizeof url, "%s/s/%s/x", gt_mock_base_url(replay), in_rec(dir, "0002"));
    ck_assert_str_eq(client_query(url, false, GT_PROVIDER_OPENAI), "success");
    gt_mock_stop(replay);
}
END_TEST

/* Responses API traffic (text.format json_schema, JSON and SSE; a forced
 * function tool) makes a case, and a first request that already carries
 * earlier turns (a tool call and its result) has them as the script's
 * history. */
START_TEST(test_record_responses_and_history_make_cases)
{
    char dir[64], out[16384], err[1200];
    temp_dir(dir, sizeof dir);
    gt_mock_server *upstream = gt_test_mock_start(NULL, "suite/data/mock", 10);
    ck_assert_msg(gt_mock_add_scenario(upstream, "ticket", ticket_script, NULL, err, sizeof err) == 0, "%s", err);
    gt_record_server *proxy = record_start(gt_mock_base_url(upstream), dir);
    const char *base = gt_record_base_url(proxy);
    char body[2048];
    snprintf(body, sizeof body,
             "{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":\"triage\"}],"
             "\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"ticket\",\"schema\":%s}}}",
             ticket_schema);
    gt_test_response json = via(base, "/s/ticket/q1/v1/responses", body);
    ck_assert_int_eq(json.status, 200);
    ck_assert_ptr_nonnull(strstr(json.body, "\"output_text\""));
    char *json_body = strdup(json.body), *json_request_body = strdup(body);
    gt_test_response_free(&json);
    snprintf(body, sizeof body,
             "{\"model\":\"m\",\"stream\":true,\"input\":\"triage\","
             "\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"ticket\",\"schema\":%s}}}",
             ticket_schema);
    gt_test_response sse = via(base, "/s/ticket/q2/v1/responses", body);
    ck_assert_ptr_nonnull(strstr(sse.body, "response.completed"));
    char *sse_body = strdup(sse.body), *sse_request_body = strdup(body);
    gt_test_response_free(&sse);
    snprintf(body, sizeof body,
             "{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"t\"}]}],"
             "\"tools\":[{\"type\":\"function\",\"name\":\"file_ticket\",\"parameters\":%s}],"
             "\"tool_choice\":{\"type\":\"function\",\"name\":\"file_ticket\"}}",
             ticket_schema);
    gt_test_response tool = via(base, "/s/ticket/q3/v1/responses", body);
    ck_assert_ptr_nonnull(strstr(tool.body, "\"function_call\""));
    gt_test_response_free(&tool);
    /* the first request resumes a conversation: a Bash call and its result came before the recording */
    snprintf(body, sizeof body,
             "{\"model\":\"m\",\"max_tokens\":64,\"tools\":[{\"name\":\"StructuredOutput\",\"input_schema\":%s},"
             "{\"name\":\"Bash\",\"input_schema\":{\"type\":\"object\"}}],\"messages\":["
             "{\"role\":\"user\",\"content\":\"why did the build fail?\"},"
             "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_bash\",\"name\":\"Bash\","
             "\"input\":{\"command\":\"make\"}}]},"
             "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_bash\","
             "\"content\":\"disk full\"}]}]}",
             ticket_schema);
    gt_test_response resumed = via(base, "/s/ticket/q4/v1/messages", body);
    ck_assert_int_eq(resumed.status, 200);
    gt_test_response_free(&resumed);
    /* the same in Chat Completions (assistant tool_calls, a tool message) and Responses (function_call items) */
    snprintf(body, sizeof body,
             "{\"model\":\"m\",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"t\",\"schema\":%s}},"
             "\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},{\"role\":\"user\",\"content\":\"why?\"},"
             "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_bash\",\"type\":\"function\","
             "\"function\":{\"name\":\"Bash\",\"arguments\":\"{\\\"command\\\":\\\"make\\\"}\"}}]},"
             "{\"role\":\"tool\",\"tool_call_id\":\"call_bash\",\"content\":\"disk full\"}]}",
             ticket_schema);
    gt_test_response chat = via(base, "/s/ticket/q5/v1/chat/completions", body);
    ck_assert_int_eq(chat.status, 200);
    gt_test_response_free(&chat);
    snprintf(body, sizeof body,
             "{\"model\":\"m\",\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"t\",\"schema\":%s}},"
             "\"input\":[{\"role\":\"user\",\"content\":\"why?\"},{\"type\":\"function_call\",\"call_id\":\"call_bash\","
             "\"name\":\"Bash\",\"arguments\":\"{}\"},{\"type\":\"function_call_output\",\"call_id\":\"call_bash\","
             "\"output\":\"disk full\"}]}",
             ticket_schema);
    gt_test_response resp = via(base, "/s/ticket/q6/v1/responses", body);
    ck_assert_int_eq(resp.status, 200);
    gt_test_response_free(&resp);
    gt_record_stop(proxy);
    gt_mock_stop(upstream);

    static const char *const forms[] = {"text.format", "text.format", "tool_choice"};
    for (int i = 0; i < 3; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s", in_rec(dir, (const char *const[]){"0001.cases.json", "0002.cases.json", "0003.cases.json"}[i]));
        char *kase = dir_file(dir, name);
        ck_assert_ptr_nonnull(strstr(kase, "\"api\":\t\"responses\""));
        char form[64];
        snprintf(form, sizeof form, "\"answer_form\":\t\"%s\"", forms[i]);
        ck_assert_msg(strstr(kase, form) != NULL, "%s: no %s", name, form);
        ck_assert_ptr_nonnull(strstr(kase, "\"verdict\":\t\"accept\""));
        ck_assert_ptr_nonnull(strstr(kase, "\"priority\":\t4"));
        free(kase);
    }
    file_has_all(dir, in_rec(dir, "0002.cases.json"), (const char *const[]){"\"from_message\"", "\"prompt\":\t\"triage\"", NULL});
    file_has_all(dir, in_rec(dir, "0004.cases.json"),
                 (const char *const[]){"\"history\"", "\"name\":\t\"Bash\"", "\"content\":\t\"disk full\"",
                                       "\"text\":\t\"why did the build fail?\"", NULL});
    for (int i = 5; i <= 6; i++) { /* user text, the Bash call, its result; no system message; no prompt of its own */
        char name[256];
        snprintf(name, sizeof name, "%s", in_rec(dir, i == 5 ? "0005.cases.json" : "0006.cases.json"));
        file_has_all(dir, name,
                     (const char *const[]){"\"history\"", "\"name\":\t\"Bash\"", "\"tool_use_id\":\t\"call_bash\"",
                                           "\"content\":\t\"disk full\"", "\"text\":\t\"why?\"", NULL});
        char *kase = dir_file(dir, name);
        ck_assert_ptr_null(strstr(kase, "be brief"));
        ck_assert_ptr_null(strstr(kase, "\"prompt\""));
        free(kase);
    }
    int code = run_dir(dir, out, sizeof out);
    ck_assert_msg(code == 0 && strstr(out, "6 passed, 0 failed"), "exit %d:\n%s", code, out);
    char *argv[] = {"run", dir, "--target", "http-reference", NULL};
    code = gt_test_cli(gt_cmd_run, argv, out, sizeof out);
    ck_assert_msg(code == 0 && strstr(out, "6 passed, 0 failed"), "http-reference: exit %d:\n%s", code, out);
    /* the recorded Responses answers replay byte for byte, JSON and SSE */
    gt_mock_server *replay = gt_test_mock_start(NULL, dir, 3);
    char path[200];
    snprintf(path, sizeof path, "/s/%s/x/v1/responses", in_rec(dir, "0001"));
    gt_test_response again = gt_test_mock_request(replay, NULL, path, json_request_body, NULL);
    ck_assert_msg(strcmp(again.body, json_body) == 0, "JSON replay differs: %.300s", again.body);
    gt_test_response_free(&again);
    snprintf(path, sizeof path, "/s/%s/x/v1/responses", in_rec(dir, "0002"));
    again = gt_test_mock_request(replay, NULL, path, sse_request_body, NULL);
    ck_assert_msg(strcmp(again.body, sse_body) == 0, "SSE replay differs: %.300s", again.body);
    gt_test_response_free(&again);
    gt_mock_stop(replay);
    free(json_body);
    free(json_request_body);
    free(sse_body);
    free(sse_request_body);
}
END_TEST

/* Two recordings run and served together: each conversation's files, its
 * replay scenario and its case id carry the recording's name (--name, else
 * DIR's last component): NAME.NNNN and recorded.NAME.NNNN, so none clashes;
 * a recording keeps its name when it grows. A recording made before names
 * (suite/data/record-v0: NNNN files, case id recorded.NNNN, no `name` line
 * in recording.txt) still loads, runs and replays beside them, and grows
 * under a name while its old conversation keeps NNNN. */
START_TEST(test_record_two_recordings_run_together)
{
    char parent[64], first[128], second[128], old[128], out[16384], err[1200], url[1200], command[512];
    temp_dir(parent, sizeof parent);
    snprintf(first, sizeof first, "%s/Team A.rec", parent);
    snprintf(second, sizeof second, "%s/b", parent);
    snprintf(old, sizeof old, "%s/old", parent);
    snprintf(command, sizeof command, "cp -r suite/data/record-v0 '%s'", old);
    ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 0);
    gt_mock_server *upstream = gt_test_mock_start(NULL, "suite/data/mock", 10);
    ck_assert_msg(gt_mock_add_scenario(upstream, "ticket", ticket_script, NULL, err, sizeof err) == 0, "%s", err);
    const char *dirs[2] = {first, second}, *names[2] = {NULL, "night-run"};
    const char *scenarios[2] = {"ticket", "cc-invalid-then-valid"}, *schemas[2] = {ticket_schema, triage_schema};
    for (int i = 0; i < 2; i++) {
        gt_record_options options = {.upstream = gt_mock_base_url(upstream), .out_dir = dirs[i], .name = names[i]};
        gt_record_server *proxy = gt_record_start(&options, err, sizeof err);
        ck_assert_msg(proxy != NULL, "%s", err);
        snprintf(url, sizeof url, "%s/s/%s/n%d", gt_record_base_url(proxy), scenarios[i], i);
        ck_assert_str_eq(client_query_with(url, false, GT_PROVIDER_ANTHROPIC, schemas[i]), "success");
        gt_record_stop(proxy);
    }
    char *a = dir_file(first, "team-a-rec.0001.cases.json"), *b = dir_file(second, "night-run.0001.cases.json");
    ck_assert_ptr_nonnull(strstr(a, "\"recorded.team-a-rec.0001\""));
    ck_assert_ptr_nonnull(strstr(b, "\"recorded.night-run.0001\""));
    ck_assert_ptr_nonnull(strstr(b, "\"recording\":\t\"night-run\""));
    ck_assert_ptr_nonnull(strstr(b, "\"scenario\":\t\"night-run.0001\""));
    free(a);
    free(b);
    file_has_all(second, "night-run.0001.exchange.txt", (const char *const[]){"\"scenario\":\t\"night-run.0001\"", NULL});
    ck_assert(!dir_has(second, "0001.scenario.json"));
    char *marker = dir_file(second, "recording.txt");
    ck_assert_ptr_nonnull(strstr(marker, "name night-run\n"));
    free(marker);
    char *argv[] = {"run", first, second, old, NULL};
    int code = gt_test_cli(gt_cmd_run, argv, out, sizeof out);
    ck_assert_msg(code == 0 && strstr(out, "3 passed, 0 failed"), "exit %d:\n%s", code, out);

    /* served together (serve --corpus A --corpus B --corpus OLD): every replay scenario under its own name */
    gt_mock_server *replay = gt_test_mock_start(NULL, first, 2);
    ck_assert_msg(gt_mock_load_corpus(replay, second, err, sizeof err) == 2, "%s", err);
    ck_assert_msg(gt_mock_load_corpus(replay, old, err, sizeof err) == 2, "%s", err);
    ck_assert_uint_eq(gt_mock_scenario_count(replay), 6);
    gt_test_response list = gt_test_mock_request(replay, NULL, "/_gauntlet/scenarios", NULL, NULL);
    static const char *const served[] = {"\"team-a-rec.0001\"", "\"night-run.0001\"", "\"0001\"",
                                         "\"recorded.team-a-rec.0001\"", "\"recorded.night-run.0001\"",
                                         "\"recorded.0001\"", NULL};
    for (size_t i = 0; served[i]; i++)
        ck_assert_msg(strstr(list.body, served[i]) != NULL, "%s not served: %s", served[i], list.body);
    gt_test_response_free(&list);
    snprintf(url, sizeof url, "%s/s/team-a-rec.0001/x", gt_mock_base_url(replay));
    ck_assert_str_eq(client_query_with(url, false, GT_PROVIDER_ANTHROPIC, ticket_schema), "success");
    gt_test_response night = gt_test_mock_request(replay, NULL, "/s/night-run.0001/x/v1/messages", json_request, NULL);
    gt_test_response v0 = gt_test_mock_request(replay, NULL, "/s/0001/x/v1/messages", json_request, NULL);
    ck_assert_msg(strstr(night.body, "\"cause\":1") != NULL, "%s", night.body); /* the first, invalid call */
    ck_assert_msg(strstr(v0.body, "\"cause\":1") != NULL, "%s", v0.body); /* the old recording replays too */
    gt_test_response_free(&night);
    gt_test_response_free(&v0);
    gt_mock_stop(replay);

    /* the named recording grows under its name; another --name is refused */
    gt_record_options again = {.upstream = gt_mock_base_url(upstream), .out_dir = second};
    gt_record_server *proxy = gt_record_start(&again, err, sizeof err);
    ck_assert_msg(proxy != NULL, "%s", err);
    snprintf(url, sizeof url, "%s/s/ticket/n9", gt_record_base_url(proxy));
    ck_assert_str_eq(client_query_with(url, false, GT_PROVIDER_ANTHROPIC, ticket_schema), "success");
    gt_record_stop(proxy);
    b = dir_file(second, "night-run.0002.cases.json");
    ck_assert_ptr_nonnull(strstr(b, "\"recorded.night-run.0002\""));
    free(b);
    again.name = "other";
    ck_assert_ptr_null(gt_record_start(&again, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "--name other: "));
    ck_assert_ptr_nonnull(strstr(err, "is the recording night-run"));
    again.name = "bad name";
    ck_assert_ptr_null(gt_record_start(&again, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "--name bad name: use 1-48 lowercase letters"));

    /* the old recording grows: a new conversation is old.0002, the old one keeps 0001 and recorded.0001 */
    gt_record_options grow = {.upstream = gt_mock_base_url(upstream), .out_dir = old};
    proxy = gt_record_start(&grow, err, sizeof err);
    ck_assert_msg(proxy != NULL, "%s", err);
    snprintf(url, sizeof url, "%s/s/ticket/n10", gt_record_base_url(proxy));
    ck_assert_str_eq(client_query_with(url, false, GT_PROVIDER_ANTHROPIC, ticket_schema), "success");
    gt_record_stop(proxy);
    file_has_all(old, "old.0002.cases.json", (const char *const[]){"\"recorded.old.0002\"", NULL});
    file_has_all(old, "0001.cases.json", (const char *const[]){"\"recorded.0001\"", NULL});
    file_has_all(old, "recording.txt", (const char *const[]){"name old\n", NULL});
    char *old_argv[] = {"run", old, NULL};
    code = gt_test_cli(gt_cmd_run, old_argv, out, sizeof out);
    ck_assert_msg(code == 0 && strstr(out, "2 passed, 0 failed"), "exit %d:\n%s", code, out);
    gt_mock_stop(upstream);
}
END_TEST

/* An upstream that never answers: the client gets a 502 naming the cause,
 * recorded as that fault only with --record-errors. */
START_TEST(test_record_errors_on_request)
{
    char dir[64];
    temp_dir(dir, sizeof dir);
    gt_record_server *proxy = record_start_with("http://127.0.0.1:1", dir, true);
    gt_test_response r = via(gt_record_base_url(proxy), "/v1/messages", json_request);
    ck_assert_int_eq(r.status, 502);
    gt_test_response_free(&r);
    gt_record_stop(proxy);
    char *script = dir_file(dir, in_rec(dir, "0001.scenario.json"));
    ck_assert_ptr_nonnull(strstr(script, "\"status\":\t502"));
    char *cause = strstr(script, "upstream http://127.0.0.1:1/v1/messages: ");
    ck_assert_msg(cause != NULL && strcasestr(cause, "connect") != NULL, "the recorded fault names no cause: %s", script);
    free(script);
    char *info = dir_file(dir, in_rec(dir, "0001.exchange.txt"));
    ck_assert_ptr_nonnull(strstr(info, "\"upstream_error\""));
    free(info);
}
END_TEST

/* Record-on-miss: a second run against the same recording is answered from
 * it (the upstream is gone by then), request by request; a request it does
 * not hold is forwarded (here: 502, the upstream is unreachable). */
START_TEST(test_record_missing_replays_then_forwards)
{
    char dir[64], url[1200];
    temp_dir(dir, sizeof dir);
    gt_mock_server *upstream = gt_test_mock_start(NULL, "suite/data/mock", 10);
    gt_record_server *proxy = record_start(gt_mock_base_url(upstream), dir);
    snprintf(url, sizeof url, "%s/s/cc-invalid-then-valid/r1", gt_record_base_url(proxy));
    ck_assert_str_eq(client_query(url, false, GT_PROVIDER_ANTHROPIC), "success");
    gt_record_stop(proxy);
    gt_mock_stop(upstream);

    gt_record_options options = {.upstream = "http://127.0.0.1:1", .out_dir = dir, .record_missing = true};
    char err[1200];
    gt_record_server *again = gt_record_start(&options, err, sizeof err);
    ck_assert_msg(again != NULL, "%s", err);
    snprintf(url, sizeof url, "%s/s/cc-invalid-then-valid/r1", gt_record_base_url(again));
    ck_assert_str_eq(client_query(url, false, GT_PROVIDER_ANTHROPIC), "success");
    ck_assert_uint_eq(gt_record_replayed_count(again), 2);
    ck_assert_uint_eq(gt_record_exchange_count(again), 0);
    gt_test_response miss = via(gt_record_base_url(again), "/s/other/r9/v1/messages", json_request);
    ck_assert_int_eq(miss.status, 502);
    gt_test_response_free(&miss);
    gt_record_stop(again);
}
END_TEST

/* A streamed request the recording proxy is forwarding, run in a thread. */
typedef struct {
    const char *url;
    gt_test_response response;
} in_flight_request;

static void *send_in_flight(void *arg)
{
    in_flight_request *r = arg;
    r->response = gt_test_http(NULL, r->url, stream_request, secret_headers);
    return NULL;
}

/* SIGTERM while a dripped answer (about 2 s) is in flight: the client still
 * gets all of it, its exchange is written; a request arriving after the
 * signal gets a 503 naming the shutdown and is not recorded; exit 0. */
START_TEST(test_record_signal_drains_in_flight)
{
    char rec[128], err_path[128], url[256], target[400];
    temp_recording(rec, err_path);
    gt_mock_server *upstream = gt_test_mock_start(NULL, "suite/data/record", 2);
    char err[256];
    static const char slow[] = "{\"turns\":[{\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"a\\\":1}\"}],"
                               "\"stop_reason\":\"end_turn\"},\"faults\":{\"drip_bytes\":24,\"drip_interval_ms\":50}}]}";
    ck_assert_msg(gt_mock_add_scenario(upstream, "slow", slow, NULL, err, sizeof err) == 0, "%s", err);
    const char *args[] = {"record", "--upstream", gt_mock_base_url(upstream), "--out", rec, NULL};
    pid_t pid = spawn_gauntlet(args, err_path, url, sizeof url);
    snprintf(target, sizeof target, "%s/s/slow/r1/v1/messages", url);
    in_flight_request first = {.url = target};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, send_in_flight, &first), 0);
    for (int i = 0; i < 2000 && gt_mock_request_count(upstream) == 0; i++) /* the upstream is dripping it */
        usleep(5000);
    ck_assert_uint_eq(gt_mock_request_count(upstream), 1);
    ck_assert_int_eq(kill(pid, SIGTERM), 0);
    ck_assert_msg(file_gets(err_path, "finishing 1 exchange in flight", 5), "no drain message in %s", err_path);
    gt_test_response late = via(url, "/s/slow/r2/v1/messages", stream_request);
    ck_assert_int_eq(late.status, 503);
    ck_assert_ptr_nonnull(strstr(late.body, "shutting down (SIGINT/SIGTERM received)"));
    gt_test_response_free(&late);
    pthread_join(thread, NULL);
    ck_assert_int_eq(child_exit(pid, 10), 0);
    gt_test_response direct = gt_test_mock_request(upstream, NULL, "/s/slow/d1/v1/messages", stream_request, NULL);
    ck_assert_int_eq(first.response.status, 200);
    ck_assert_int_eq(first.response.code, CURLE_OK);
    ck_assert_ptr_nonnull(strstr(first.response.body, "event: message_stop"));
    ck_assert_str_eq(first.response.body, direct.body);
    printf("record: drained a dripped answer of %zu bytes (%.0f ms) across SIGTERM\n", first.response.len,
           first.response.total_s * 1e3);
    ck_assert_uint_eq(gt_mock_request_count(upstream), 2); /* the late request never reached it */
    ck_assert(file_gets(err_path, "1 exchanges recorded, stopping", 1));
    file_has_all(rec, "rec.0001.scenario.json", (const char *const[]){"message_stop", NULL});
    ck_assert(!dir_has(rec, "rec.0002.scenario.json"));
    gt_test_response_free(&first.response);
    gt_test_response_free(&direct);
    gt_mock_stop(upstream);
}
END_TEST

/* A fake upstream that answers every request with `big_answer_len` bytes,
 * byte i being 'a' + i % 26, as fast as the client takes them. */
static const uint64_t big_answer_len = 256ull << 20; /* 16 x GT_RECORD_MAX_ANSWER */

static ssize_t big_answer_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)cls;
    if (pos >= big_answer_len)
        return MHD_CONTENT_READER_END_OF_STREAM;
    size_t n = big_answer_len - pos < max ? (size_t)(big_answer_len - pos) : max;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)('a' + (pos + i) % 26);
    return (ssize_t)n;
}

static enum MHD_Result big_answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)cls, (void)url, (void)method, (void)version, (void)upload_data;
    if (*con_cls == NULL) {
        *con_cls = (void *)1;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    struct MHD_Response *response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536, big_answer_read, NULL, NULL);
    MHD_add_response_header(response, "content-type", "application/octet-stream");
    enum MHD_Result rc = MHD_queue_response(connection, 200, response);
    MHD_destroy_response(response);
    return rc;
}

/* What the client of the big answer checks: every byte, in order. */
typedef struct {
    uint64_t received, wrong;
} big_count;

static size_t big_count_body(char *data, size_t size, size_t count, void *user)
{
    big_count *c = user;
    for (size_t i = 0; i < size * count; i++, c->received++)
        if (data[i] != (char)('a' + c->received % 26))
            c->wrong++;
    return size * count;
}

/* The peak resident set (VmHWM) of process `pid` in KiB; 0 when unknown. */
static long peak_rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

/* An answer of 256 MiB (16 x the 16 MiB recording limit, docs/limits.md)
 * through the recorder: the client gets every byte in order, the recording
 * keeps the first 16 MiB and marks the exchange cut at the limit with a
 * note, and the recorder's peak RSS is bounded by the limit (it grows by
 * under 6 x the limit over its start), not by the answer: it never holds
 * it whole. */
START_TEST(test_record_answer_over_limit_passes_through)
{
    char rec[128], err_path[128], url[256], target[400];
    temp_recording(rec, err_path);
    struct MHD_Daemon *upstream = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0,
                                                   NULL, NULL, big_answer, NULL, MHD_OPTION_END);
    ck_assert_ptr_nonnull(upstream);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(upstream, MHD_DAEMON_INFO_BIND_PORT);
    char upstream_url[64];
    snprintf(upstream_url, sizeof upstream_url, "http://127.0.0.1:%u", (unsigned)info->port);
    const char *args[] = {"record", "--upstream", upstream_url, "--out", rec, NULL};
    pid_t pid = spawn_gauntlet(args, err_path, url, sizeof url);
    long idle_kib = peak_rss_kib(pid);
    snprintf(target, sizeof target, "%s/v1/messages", url);
    big_count count = {0};
    CURL *curl = curl_easy_init();
    curl_easy_setopt(curl, CURLOPT_URL, target);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, json_request);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, big_count_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &count);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 120L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CURLcode code = curl_easy_perform(curl);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(curl);
    ck_assert_msg(code == CURLE_OK, "%s", curl_easy_strerror(code));
    ck_assert_int_eq(status, 200);
    ck_assert_msg(count.received == big_answer_len, "the client got %llu of %llu bytes",
                  (unsigned long long)count.received, (unsigned long long)big_answer_len);
    ck_assert_uint_eq(count.wrong, 0);
    char index[160];
    snprintf(index, sizeof index, "%s/rec.0001.exchange.txt", rec);
    ck_assert_msg(file_gets(index, "\"answer_cut_at_limit\":\ttrue", 30), "no answer_cut_at_limit in %s", index);
    long peak_kib = peak_rss_kib(pid);
    kill(pid, SIGTERM);
    ck_assert_int_eq(child_exit(pid, 30), 0);
    MHD_stop_daemon(upstream);
    printf("record: %llu MiB answer through the recorder in %.2f s, every byte in order; recorder peak RSS (VmHWM) "
           "%ld KiB (%ld KiB at start)\n",
           (unsigned long long)(big_answer_len >> 20),
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, peak_kib, idle_kib);
    /* what the answer added to the peak, over the recorder's own start
     * (under ASan the start alone is ~20 MiB of shadow and runtime) */
    ck_assert_msg(peak_kib > 0 && peak_kib - idle_kib < 6 * (long)(GT_RECORD_MAX_ANSWER >> 10),
                  "recorder peak RSS %ld KiB (%ld KiB at start) for a %llu MiB answer", peak_kib, idle_kib,
                  (unsigned long long)(big_answer_len >> 20));
    char *script = dir_file(rec, "rec.0001.scenario.json");
    char kept[64];
    snprintf(kept, sizeof kept, "\"cut_after_bytes\":\t%u", GT_RECORD_MAX_ANSWER);
    ck_assert_msg(strstr(script, kept) != NULL, "no %s", kept);
    ck_assert_ptr_nonnull(strstr(script, "answer over the recording limit"));
    free(script);
}
END_TEST

/* The response id and the first function_call's call_id of a Responses
 * answer (a JSON response, or a stream's response.completed event). */
static void response_ids(const gt_test_response *r, char *id, char *call_id, size_t len)
{
    const char *json = r->body;
    const char *completed = strstr(r->body, "\"type\":\"response.completed\"");
    cJSON *event = NULL, *response = NULL;
    if (completed) { /* the data line holding it */
        const char *start = completed;
        while (start > r->body && start[-1] != '\n')
            start--;
        event = cJSON_ParseWithLength(start + 5, strcspn(start + 5, "\n"));
        response = cJSON_GetObjectItemCaseSensitive(event, "response");
    } else {
        event = cJSON_Parse(json);
        response = event;
    }
    ck_assert_msg(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(response, "id")), "no response id: %.300s", r->body);
    snprintf(id, len, "%s", cJSON_GetObjectItemCaseSensitive(response, "id")->valuestring);
    const cJSON *item = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(response, "output"), 0);
    const cJSON *call = cJSON_GetObjectItemCaseSensitive(item, "call_id");
    ck_assert_msg(cJSON_IsString(call), "no function_call: %.300s", r->body);
    snprintf(call_id, len, "%s", call->valuestring);
    cJSON_Delete(event);
}

/* OpenAI Responses tool loops that continue with `previous_response_id`
 * (only the function_call_output in `input`), JSON and streamed: each is
 * ONE scenario of two turns and ONE case (the invalid StructuredOutput call,
 * then the valid one: attempts 2), passing in process and over HTTP; a
 * request naming a response the recording never saw starts a conversation
 * of its own. */
START_TEST(test_record_responses_chain_is_one_case)
{
    char dir[64], out[16384], body[4096], id[256], call_id[256];
    temp_dir(dir, sizeof dir);
    gt_mock_server *upstream = gt_test_mock_start(NULL, "suite/data/mock", 10);
    gt_record_server *proxy = record_start(gt_mock_base_url(upstream), dir);
    const char *base = gt_record_base_url(proxy);
    for (int stream = 0; stream < 2; stream++) {
        char path[128];
        snprintf(path, sizeof path, "/s/cc-invalid-then-valid/chain%d/v1/responses", stream);
        snprintf(body, sizeof body,
                 "{\"model\":\"m\",\"stream\":%s,\"input\":[{\"role\":\"user\",\"content\":\"Why did the build fail?\"}],"
                 "\"tools\":[{\"type\":\"function\",\"name\":\"StructuredOutput\",\"parameters\":%s}]}",
                 stream ? "true" : "false", triage_schema);
        gt_test_response first = via(base, path, body);
        ck_assert_int_eq(first.status, 200);
        response_ids(&first, id, call_id, sizeof id);
        gt_test_response_free(&first);
        snprintf(body, sizeof body,
                 "{\"model\":\"m\",\"stream\":%s,\"previous_response_id\":\"%s\",\"input\":[{\"type\":"
                 "\"function_call_output\",\"call_id\":\"%s\",\"output\":\"/cause: expected string\"}],"
                 "\"tools\":[{\"type\":\"function\",\"name\":\"StructuredOutput\",\"parameters\":%s}]}",
                 stream ? "true" : "false", id, call_id, triage_schema);
        gt_test_response second = via(base, path, body);
        ck_assert_int_eq(second.status, 200);
        ck_assert_ptr_nonnull(strstr(second.body, "missing symbol"));
        gt_test_response_free(&second);
    }
    /* a previous_response_id the recording never answered: a conversation of its own */
    snprintf(body, sizeof body,
             "{\"model\":\"m\",\"previous_response_id\":\"resp_elsewhere\",\"input\":\"go on\","
             "\"tools\":[{\"type\":\"function\",\"name\":\"StructuredOutput\",\"parameters\":%s}]}",
             triage_schema);
    gt_test_response other = via(base, "/s/ok-message/chain9/v1/responses", body);
    ck_assert_int_eq(other.status, 200);
    gt_test_response_free(&other);
    ck_assert_uint_eq(gt_record_exchange_count(proxy), 5);
    gt_record_stop(proxy);
    gt_mock_stop(upstream);
    for (int i = 0; i < 2; i++) {
        const char *name = in_rec(dir, i == 0 ? "0001.cases.json" : "0002.cases.json");
        char *kase = dir_file(dir, name);
        static const char *const needles[] = {"\"api\":\t\"responses\"", "\"answer_form\":\t\"structured_output_tool\"",
                                              "\"exchanges\":\t2", "\"attempts_used\":\t2", "\"verdict\":\t\"accept\"",
                                              "\"cause\":\t\"missing symbol\"", NULL};
        for (size_t k = 0; needles[k]; k++)
            ck_assert_msg(strstr(kase, needles[k]) != NULL, "%s: no %s", name, needles[k]);
        free(kase);
    }
    file_has_all(dir, in_rec(dir, "0002.cases.json"), (const char *const[]){"\"stream\":\ttrue", NULL});
    file_has_all(dir, in_rec(dir, "0003.exchange.txt"), (const char *const[]){"resp_elsewhere", NULL});
    ck_assert(!dir_has(dir, in_rec(dir, "0004.exchange.txt")));
    int code = run_dir(dir, out, sizeof out);
    ck_assert_msg(code == 0 && strstr(out, "3 passed, 0 failed"), "exit %d:\n%s", code, out);
    char *argv[] = {"run", dir, "--target", "http-reference", NULL};
    code = gt_test_cli(gt_cmd_run, argv, out, sizeof out);
    ck_assert_msg(code == 0 && strstr(out, "3 passed, 0 failed"), "http-reference: exit %d:\n%s", code, out);
}
END_TEST

/* docs/record.md's "Try it" block, taken from the doc (the first ```sh block
 * after that heading) so the doc and this test cannot drift, run with sh -e
 * from the repository root in a process group of its own (killed after, so
 * a failure leaves no server behind). The one change: `./gauntlet` is
 * $GAUNTLET, the binary under test. Its output must show what the block's
 * comments say. */
START_TEST(test_record_doc_example)
{
    char *doc = gt_test_slurp("docs/record.md");
    char *heading = strstr(doc, "\n## Try it");
    ck_assert_msg(heading != NULL, "docs/record.md: no \"## Try it\" section");
    char *start = strstr(heading, "\n```sh\n");
    ck_assert_ptr_nonnull(start);
    start += 7;
    char *end = strstr(start, "\n```\n");
    ck_assert_ptr_nonnull(end);
    char dir[64], script_path[128], out_path[128];
    temp_dir(dir, sizeof dir);
    snprintf(script_path, sizeof script_path, "%s/example.sh", dir);
    snprintf(out_path, sizeof out_path, "%s/example.out", dir);
    FILE *script = fopen(script_path, "w");
    ck_assert_ptr_nonnull(script);
    for (const char *p = start; p <= end; p++) {
        if (strncmp(p, "./gauntlet ", 11) == 0) {
            fputs("\"$GAUNTLET\" ", script);
            p += 10;
        } else {
            fputc(*p, script);
        }
    }
    ck_assert_int_eq(fclose(script), 0);
    free(doc);
    if (getenv("GAUNTLET") == NULL)
        setenv("GAUNTLET", "build/gauntlet", 1);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setpgid(0, 0);
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl("/bin/sh", "sh", "-e", script_path, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    int code = child_exit(pid, 50);
    kill(-pid, SIGTERM); /* anything the block left running */
    char *out = gt_test_slurp(out_path);
    ck_assert_msg(code == 0, "the example exited %d:\n%s", code, out);
    ck_assert_msg(gt_test_count_of(out, "\"subtype\":\"success\"") == 2, "recorded and replayed: %s", out);
    static const char *const needles[] = {"demo.0001.cases.json", "demo.0001.exchange.txt", "demo.0001.scenario.json",
                                          "recording.txt", "1 passed, 0 failed", "gauntlet gen: ", NULL};
    for (size_t i = 0; needles[i]; i++)
        ck_assert_msg(strstr(out, needles[i]) != NULL, "no %s in the example's output:\n%s", needles[i], out);
    int variants = atoi(strstr(out, "gauntlet gen: ") + 14);
    char passed[64];
    snprintf(passed, sizeof passed, "\n%d passed, 0 failed", variants);
    ck_assert_msg(variants > 10 && strstr(out, passed) != NULL, "%d variants, not all passed:\n%s", variants, out);
    printf("record: docs/record.md's example ran: recorded, run, replayed, %d variants all passing\n", variants);
    free(out);
}
END_TEST

/* Bad input at the command line: each refused with exit 2 and a message
 * naming the flag (or the folder), before anything binds or is written. */
START_TEST(test_record_cli_bad_input)
{
    char dir[64], stray[128], out[4096];
    temp_dir(dir, sizeof dir);
    snprintf(stray, sizeof stray, "%s/notes.txt", dir);
    FILE *f = fopen(stray, "w");
    ck_assert_ptr_nonnull(f);
    fputs("mine\n", f);
    fclose(f);
    struct {
        const char *args[12];
        const char *message;
    } bad[] = {
        {{"record", NULL}, "--upstream URL and --out DIR are required"},
        {{"record", "--upstream", "http://127.0.0.1:9", "--out", "/tmp/gt-record-never", "--host", "0.0.0.0", NULL},
         "--host 0.0.0.0 is not loopback: add --allow-remote to bind it"},
        {{"record", "--upstream", "http://127.0.0.1:9", "--out", dir, NULL}, "not empty and not a recording"},
        {{"record", "--upstream", "ftp://x", "--out", "/tmp/gt-record-never", NULL}, "--upstream ftp://x: needs an http://"},
        {{"record", "--upstream", "http://127.0.0.1:9", "--out", "/tmp/gt-record-never", "--port", "99999", NULL},
         "--port must be 0-65535, not '99999'"},
        {{"record", "--upstream", "http://127.0.0.1:9", "--out", "/tmp/gt-record-never", "--name", "Team A", NULL},
         "--name Team A: use 1-48 lowercase letters"},
        {{"record", "--upstream", "http://127.0.0.1:9", "--out", "/tmp/gt-record-never", "--bogus", "x", NULL},
         "unknown option '--bogus'"},
        {{"record", "--upstream", NULL}, "--upstream needs a value"},
        {{"serve", "--corpus", dir, "--upstream", "http://127.0.0.1:9", NULL}, "--upstream and --redact go with --record-missing"},
        {{"serve", "--corpus", dir, "--upstream", "http://127.0.0.1:9", "--record-missing", NULL},
         "--corpus "}, /* the folder named by the flag that gave it */
        {{"serve", "--corpus", "/tmp/gt-record-never", "--record-missing", NULL}, "--upstream and --redact go with"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int (*command)(int, char **) = strcmp(bad[i].args[0], "serve") == 0 ? gt_cmd_serve : gt_cmd_record;
        int code = gt_test_cli(command, (char **)bad[i].args, out, sizeof out);
        ck_assert_msg(code == 2 && strstr(out, bad[i].message) != NULL, "case %zu: exit %d, wanted \"%s\":\n%s", i,
                      code, bad[i].message, out);
    }
    ck_assert(access("/tmp/gt-record-never", F_OK) != 0); /* nothing was created for a refused command */
    char *help[] = {"record", "--help", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_record, help, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "SIGINT/SIGTERM: the exchanges in flight finish"));
}
END_TEST

/* gen --from on a recorded string value: besides wrong-type, the string
 * whose text spells a number or a literal gets it unquoted ("404" -> 404,
 * "true" -> true), the mirror of "4" for 4; every variant passes. */
START_TEST(test_record_gen_string_near_misses)
{
    char dir[64], grown[80], out[16384], err[256], url[1200];
    temp_dir(dir, sizeof dir);
    static const char schema[] = "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\"},"
                                 "\"flag\":{\"type\":\"string\"},\"note\":{\"type\":\"string\"}},"
                                 "\"required\":[\"code\",\"flag\",\"note\"],\"additionalProperties\":false}";
    static const char script[] = "{\"turns\":[{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_c\","
                                 "\"name\":\"StructuredOutput\",\"input\":{\"code\":\"404\",\"flag\":\"true\","
                                 "\"note\":\"not found\"}}]}}]}";
    gt_mock_server *upstream = gt_test_mock_start(NULL, "suite/data/record", 2);
    ck_assert_msg(gt_mock_add_scenario(upstream, "codes", script, NULL, err, sizeof err) == 0, "%s", err);
    gt_record_server *proxy = record_start(gt_mock_base_url(upstream), dir);
    snprintf(url, sizeof url, "%s/s/codes/r1", gt_record_base_url(proxy));
    ck_assert_str_eq(client_query_with(url, false, GT_PROVIDER_ANTHROPIC, schema), "success");
    gt_record_stop(proxy);
    gt_mock_stop(upstream);
    snprintf(grown, sizeof grown, "%s-gen", dir);
    gt_gen_from_counts counts;
    ck_assert_int_eq(gt_gen_cli_from_recording(dir, grown, &counts), 0);
    char *cases = dir_file(grown, in_rec(dir, "0001.cases.json"));
    static const char *const needles[] = {"string-unquoted at /code: \\\"404\\\" -> 404",
                                          "string-unquoted at /flag: \\\"true\\\" -> true",
                                          "wrong-type at /note: ", NULL};
    for (size_t i = 0; needles[i]; i++)
        ck_assert_msg(strstr(cases, needles[i]) != NULL, "no variant %s", needles[i]);
    ck_assert_ptr_null(strstr(cases, "string-unquoted at /note")); /* "not found" spells no JSON scalar */
    free(cases);
    char passed[64];
    snprintf(passed, sizeof passed, "%d passed, 0 failed", counts.variants);
    int code = run_dir(grown, out, sizeof out);
    ck_assert_msg(code == 0 && strstr(out, passed), "exit %d:\n%s", code, out);
}
END_TEST

/* Issue 33, "Test it here": the latency the proxy adds to a streamed answer
 * is measured against a direct connection. scripts/record-latency.sh (the
 * command docs/record.md's "Latency" gives) run here with 3 runs each way
 * (the doc's figures are from 40): it must exit 0 and print first byte and
 * total, median and p90, for the streamed and the dripped answer, direct
 * and through the recorder; the doc's table has the same four rows. */
START_TEST(test_record_latency_measured)
{
    char dir[64], out_path[128], command[400];
    temp_dir(dir, sizeof dir);
    snprintf(out_path, sizeof out_path, "%s/latency.out", dir);
    const char *gauntlet = getenv("GAUNTLET") ? getenv("GAUNTLET") : "build/gauntlet";
    snprintf(command, sizeof command, "GAUNTLET='%s' sh scripts/record-latency.sh 3 >'%s' 2>&1", gauntlet, out_path);
    int code = system(command);
    char *out = gt_test_slurp(out_path);
    ck_assert_msg(code == 0, "scripts/record-latency.sh exited %d:\n%s", code, out);
    static const char *const rows[] = {"ok-stream direct n=  3  first byte median", "ok-stream proxy  n=  3  first byte median",
                                       "slow-drip direct n=  3  first byte median", "slow-drip proxy  n=  3  first byte median",
                                       NULL};
    for (size_t i = 0; rows[i]; i++)
        ck_assert_msg(strstr(out, rows[i]) != NULL, "no \"%s\" in:\n%s", rows[i], out);
    ck_assert_uint_eq(gt_test_count_of(out, " p90 "), 8);
    ck_assert_uint_eq(gt_test_count_of(out, "total median"), 4);
    printf("record: scripts/record-latency.sh 3:\n%s", out);
    free(out);
    char *doc = gt_test_slurp("docs/record.md");
    char *latency = strstr(doc, "\n## Latency\n");
    ck_assert_msg(latency != NULL, "docs/record.md: no \"## Latency\" section");
    ck_assert_ptr_nonnull(strstr(latency, "scripts/record-latency.sh"));
    static const char *const table[] = {"| `ok-stream` | direct |", "| `ok-stream` | through the recorder |",
                                        "| `slow-drip` | direct |", "| `slow-drip` | through the recorder |", NULL};
    for (size_t i = 0; table[i]; i++)
        ck_assert_msg(strstr(latency, table[i]) != NULL, "docs/record.md \"Latency\": no row %s", table[i]);
    free(doc);
}
END_TEST

/* Issue 33, "Done when": docs/record.md explains recording, redaction,
 * replay, record-on-miss and `gen --from` (each its section; the pasteable
 * example is run by test_record_doc_example); README has one example of
 * record then run and gen --from; docs/limits.md states the recording
 * limit the recorder uses (GT_RECORD_MAX_ANSWER). */
START_TEST(test_record_docs_cover_the_issue)
{
    char *doc = gt_test_slurp("docs/record.md");
    ck_assert_msg(strncmp(doc, "# Recording provider traffic: `gauntlet record`\n", 48) == 0, "docs/record.md: title");
    static const char *const sections[] = {"\n## What it writes\n",
                                           "\n## Redaction\n", "\n## Try it: record, run, replay, grow\n",
                                           "\n## Record-on-miss\n", "\n## Growing it: `gauntlet gen --from DIR --out DIR2`\n",
                                           "\n## Latency\n", NULL};
    for (size_t i = 0; sections[i]; i++)
        ck_assert_msg(strstr(doc, sections[i]) != NULL, "docs/record.md: no section%s", sections[i]);
    static const char *const words[] = {"--record-errors", "--allow-remote", "--redact", "--record-missing",
                                        "previous_response_id", "SIGTERM", NULL};
    for (size_t i = 0; words[i]; i++)
        ck_assert_msg(strstr(doc, words[i]) != NULL, "docs/record.md never mentions %s", words[i]);
    free(doc);
    char *readme = gt_test_slurp("README.md");
    ck_assert_msg(strstr(readme, "./gauntlet record --upstream ") != NULL, "README.md: no `gauntlet record` example");
    ck_assert_msg(strstr(readme, "./gauntlet gen --from ") != NULL, "README.md: no `gauntlet gen --from` example");
    free(readme);
    char *limits = gt_test_slurp("docs/limits.md");
    char row[96];
    snprintf(row, sizeof row, "recorded by `gauntlet record` | %u MiB (`GT_RECORD_MAX_ANSWER`", GT_RECORD_MAX_ANSWER >> 20);
    ck_assert_msg(strstr(limits, row) != NULL, "docs/limits.md: no row \"%s\"", row);
    free(limits);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("record");
    TCase *tc = tcase_create("record");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, NULL, remove_temp_dirs);
    tcase_add_test(tc, test_record_replays_json_and_stream);
    tcase_add_test(tc, test_record_streams_as_it_arrives);
    tcase_add_test(tc, test_record_unreachable_upstream_is_502);
    tcase_add_test(tc, test_record_bad_options);
    tcase_add_test(tc, test_record_tool_loop_is_one_case);
    tcase_add_test(tc, test_record_errors_on_request);
    tcase_add_test(tc, test_record_responses_and_history_make_cases);
    tcase_add_test(tc, test_record_responses_chain_is_one_case);
    tcase_add_test(tc, test_record_two_recordings_run_together);
    tcase_add_test(tc, test_record_missing_replays_then_forwards);
    tcase_add_test(tc, test_record_signal_drains_in_flight);
    tcase_add_test(tc, test_record_answer_over_limit_passes_through);
    tcase_add_test(tc, test_record_doc_example);
    tcase_add_test(tc, test_record_cli_bad_input);
    tcase_add_test(tc, test_record_gen_string_near_misses);
    tcase_add_test(tc, test_record_latency_measured);
    tcase_add_test(tc, test_record_docs_cover_the_issue);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
