/* test_client.c — the libcurl reference client and the http-reference target.
 *
 * The central check: every loop and stream case of the bundled corpus, run
 * through the mock server over HTTP, reaches the same verdict, gate, reason,
 * subtype and attempt accounting as the in-process reference. Plus the
 * client's own contract: request bodies, retry-after, transport errors. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gauntlet/client.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/loop.h"
#include "gauntlet/runner/mock.h"
#include "gauntlet/runner/run.h"
#include "gt_test.h"
#include "gt_test_http.h"

extern const gt_target_ops gt_target_http_reference_ops;

static int same_string(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

START_TEST(corpus_equal_over_http)
{
    ck_assert_int_eq(gt_target_register(&gt_target_http_reference_ops), 0);
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_ptr_nonnull(corpus);
    ck_assert_int_ge(gt_corpus_load(corpus, GT_TEST_CORPUS "/loop"), 0);
    ck_assert_int_ge(gt_corpus_load(corpus, GT_TEST_CORPUS "/stream"), 0);
    size_t count = gt_corpus_count(corpus);
    ck_assert_msg(count >= 20, "expected the loop and stream corpus, found %zu cases", count);
    char err[256];
    gt_run *local = gt_run_cases(corpus, "reference", 2, NULL, NULL, err, sizeof err);
    ck_assert_msg(local != NULL, "%s", err);
    gt_run *remote = gt_run_cases(corpus, "http-reference", 4, NULL, NULL, err, sizeof err);
    ck_assert_msg(remote != NULL, "%s", err);
    size_t mismatches = 0;
    for (size_t i = 0; i < count; i++) {
        const gt_case_result *a = &local->results[i], *b = &remote->results[i];
        const gt_observed *x = &a->observed, *y = &b->observed;
        bool same = a->outcome == b->outcome && x->verdict == y->verdict && same_string(x->gate, y->gate) &&
                    same_string(x->reason, y->reason) && same_string(x->subtype, y->subtype) &&
                    x->accounting.attempts_used == y->accounting.attempts_used &&
                    x->accounting.attempts_limit == y->accounting.attempts_limit &&
                    x->accounting.retracted == y->accounting.retracted &&
                    x->accounting.enforce_messages == y->accounting.enforce_messages &&
                    x->accounting.api_attempts == y->accounting.api_attempts &&
                    x->accounting.model_calls == y->accounting.model_calls;
        if (!same) {
            mismatches++;
            fprintf(stderr,
                    "MISMATCH %s: in-process %s %s/%s/%s acct %d/%d/%d/%d/%d/%d | http %s %s/%s/%s acct "
                    "%d/%d/%d/%d/%d/%d (%s)\n",
                    a->kase->input.id, gt_outcome_name(a->outcome), x->gate ? x->gate : "-",
                    x->reason ? x->reason : "-", x->subtype ? x->subtype : "-", x->accounting.attempts_used,
                    x->accounting.attempts_limit, x->accounting.retracted, x->accounting.enforce_messages,
                    x->accounting.api_attempts, x->accounting.model_calls, gt_outcome_name(b->outcome),
                    y->gate ? y->gate : "-", y->reason ? y->reason : "-", y->subtype ? y->subtype : "-",
                    y->accounting.attempts_used, y->accounting.attempts_limit, y->accounting.retracted,
                    y->accounting.enforce_messages, y->accounting.api_attempts, y->accounting.model_calls,
                    b->note ? b->note : "");
        }
    }
    fprintf(stderr, "http-reference: %zu loop/stream cases, %zu mismatches\n", count, mismatches);
    ck_assert_uint_eq(mismatches, 0);
    gt_run_free(local);
    gt_run_free(remote);
    gt_corpus_free(corpus);
}
END_TEST

#define SCHEMA "{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"}},\"required\":[\"cause\"]}"

static gt_loop_entry user_entry(const gt_block *blocks, size_t count)
{
    gt_loop_entry entry;
    memset(&entry, 0, sizeof entry);
    entry.role = GT_LOOP_USER;
    entry.blocks = blocks;
    entry.block_count = count;
    return entry;
}

START_TEST(request_bodies_for_both_apis)
{
    gt_block prompt = {.type = GT_BLOCK_TEXT, .text = "why?", .text_len = 4};
    gt_block call = {.type = GT_BLOCK_TOOL_USE, .id = "toolu_1", .name = "StructuredOutput",
                     .input_text = "{\"cause\":1}", .input_len = 11};
    gt_block broken = {.type = GT_BLOCK_TOOL_USE, .id = "toolu_2", .name = "StructuredOutput",
                       .input_text = "{\"cause\":", .input_len = 9};
    gt_block result = {.type = GT_BLOCK_TOOL_RESULT, .id = "toolu_1", .text = "bad", .text_len = 3, .is_error = true};
    gt_block assistant_blocks[] = {call, broken};
    gt_loop_entry entries[3];
    entries[0] = user_entry(&prompt, 1);
    memset(&entries[1], 0, sizeof entries[1]);
    entries[1].role = GT_LOOP_ASSISTANT;
    entries[1].blocks = assistant_blocks;
    entries[1].block_count = 2;
    entries[2] = user_entry(&result, 1);
    gt_loop_request request = {.api_attempt = 1, .model_turn = 2, .messages = entries, .message_count = 3,
                               .structured_output_tool = true, .tool_schema_json = SCHEMA, .strict = true};
    char err[128];
    gt_client_options options = {.base_url = "http://127.0.0.1:1", .stream = true};
    gt_client *client = gt_client_new(&options, err, sizeof err);
    char *body = gt_client_request_body(client, &request);
    ck_assert_ptr_nonnull(strstr(body, "\"stream\":true"));
    ck_assert_ptr_nonnull(strstr(body, "\"input\":{\"cause\":1}"));
    ck_assert_ptr_nonnull(strstr(body, "\"id\":\"toolu_2\",\"name\":\"StructuredOutput\",\"input\":{}"));
    ck_assert_ptr_nonnull(strstr(body, "\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"bad\",\"is_error\":true"));
    ck_assert_ptr_nonnull(strstr(body, "\"input_schema\":" SCHEMA ",\"strict\":true"));
    ck_assert_ptr_null(strstr(body, "web_search"));
    free(body);
    /* the script's server_tools are offered beside StructuredOutput (a server-tool loop is what pauses) */
    request.server_tools_json = "{\"type\":\"web_search_20250305\",\"name\":\"web_search\"}";
    body = gt_client_request_body(client, &request);
    ck_assert_msg(strstr(body, ",\"strict\":true},{\"type\":\"web_search_20250305\",\"name\":\"web_search\"}]") != NULL,
                  "%s", body);
    free(body);
    request.server_tools_json = NULL;
    gt_client_free(client);

    options.provider = GT_PROVIDER_OPENAI;
    client = gt_client_new(&options, err, sizeof err);
    body = gt_client_request_body(client, &request);
    ck_assert_ptr_nonnull(strstr(body, "\"stream_options\":{\"include_usage\":true}"));
    ck_assert_ptr_nonnull(strstr(body, "{\"role\":\"user\",\"content\":\"why?\"}"));
    ck_assert_ptr_nonnull(strstr(body, "\"arguments\":\"{\\\"cause\\\":\"}"));
    ck_assert_ptr_nonnull(strstr(body, "{\"role\":\"tool\",\"tool_call_id\":\"toolu_1\",\"content\":\"bad\"}"));
    ck_assert_ptr_nonnull(strstr(body, "\"parameters\":" SCHEMA ",\"strict\":true"));
    free(body);
    gt_client_free(client);
}
END_TEST

START_TEST(bad_options_and_refused_connections)
{
    char err[256];
    gt_client_options options = {.base_url = "ftp://x"};
    ck_assert_ptr_null(gt_client_new(&options, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "http://"));
    /* nothing listens on port 1: a connection error, retried, then the query fails */
    options.base_url = "http://127.0.0.1:1";
    options.backoff_ms = -1;
    gt_loop_model model;
    gt_loop_config config;
    gt_client *client = gt_test_client_loop(&options, SCHEMA, &model, &config);
    gt_loop_result result;
    ck_assert_int_eq(gt_loop_run(&config, &model, &result), 0);
    ck_assert_int_eq(result.subtype, GT_LOOP_ERROR_DURING_EXECUTION);
    ck_assert_int_eq(result.accounting.api_attempts, 1 + GT_LOOP_DEFAULT_API_RETRIES);
    ck_assert_uint_eq(gt_client_get_stats(client)->transport_errors, 1 + GT_LOOP_DEFAULT_API_RETRIES);
    ck_assert_msg(result.error_count > 0 && strstr(result.errors[0], "connection error"), "%s",
                  result.error_count ? result.errors[0] : "");
    gt_loop_result_free(&result);
    gt_client_free(client);
}
END_TEST

/* The OpenAI dialect end to end: the request parses, tool_calls come back. */
START_TEST(openai_over_http)
{
    char err[256];
    gt_mock_server *server = gt_test_mock_start(NULL, "suite/data/mock", 1);
    static const struct {
        const char *scenario;
        bool stream;
        const char *reason; /* NULL = success */
    } runs[] = {{"openai-tool-call", true, NULL},
                {"openai-tool-call", false, NULL},
                {"openai-refusal", true, "refusal"},
                {"openai-refusal", false, "refusal"},
                {"openai-length", false, "max_tokens_truncated"},
                {"openai-content-filter", true, "refusal"}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char base[512];
        snprintf(base, sizeof base, "%s/s/%s/o%zu", gt_mock_base_url(server), runs[i].scenario, i);
        gt_client_options options = {.base_url = base, .provider = GT_PROVIDER_OPENAI, .stream = runs[i].stream};
        gt_client *client = gt_client_new(&options, err, sizeof err);
        gt_loop_model model;
        gt_client_model(client, &model);
        gt_loop_config config;
        gt_loop_config_init(&config);
        const char *schema = "{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"},\"fixes\":{"
                             "\"type\":\"array\"}},\"required\":[\"cause\",\"fixes\"]}";
        config.json_schema_text = schema;
        config.json_schema_len = strlen(schema);
        gt_loop_result result;
        ck_assert_int_eq(gt_loop_run(&config, &model, &result), 0);
        if (runs[i].reason == NULL)
            ck_assert_msg(result.subtype == GT_LOOP_SUCCESS && result.accepted, "%s: %s", runs[i].scenario,
                          result.error_count ? result.errors[0] : gt_loop_subtype_name(result.subtype));
        else
            ck_assert_msg(result.reason && strcmp(result.reason, runs[i].reason) == 0, "%s: reason %s",
                          runs[i].scenario, result.reason ? result.reason : "(none)");
        ck_assert_int_eq(gt_client_get_stats(client)->last_status, 200);
        gt_loop_result_free(&result);
        gt_client_free(client);
    }
    char *journal = gt_mock_journal_json(server, "openai-tool-call/o0");
    ck_assert_ptr_nonnull(strstr(journal, "\"route\":\"/v1/chat/completions\""));
    ck_assert_ptr_nonnull(strstr(journal, "\"include_usage\":true"));
    free(journal);
    gt_mock_stop(server);
}
END_TEST

/* The CLI: one envelope line, exit 0 / 1 / 2. */
static int run_cli(const char *args, char *out, size_t out_len)
{
    const char *gauntlet = getenv("GAUNTLET") ? getenv("GAUNTLET") : "build/gauntlet";
    char command[2048];
    snprintf(command, sizeof command, "%s client %s 2>/dev/null", gauntlet, args);
    return gt_test_shell(command, out, out_len);
}

START_TEST(cli_exit_codes)
{
    if (access(getenv("GAUNTLET") ? getenv("GAUNTLET") : "build/gauntlet", X_OK) != 0)
        return; /* the CLI is built by `make test`; nothing to drive here */
    gt_mock_server *server = gt_test_mock_start(NULL, "suite/data/mock", 1);
    char args[1024], out[8192];
    snprintf(args, sizeof args, "--base-url %s/s/ok-stream/cli1 --json-schema @suite/data/mock/schema.json \"why?\"",
             gt_mock_base_url(server));
    ck_assert_int_eq(run_cli(args, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "\"subtype\":\"success\""));
    ck_assert_ptr_nonnull(strstr(out, "\"structured_output\":{\"cause\":\"missing symbol\""));
    ck_assert_ptr_eq(strchr(out, '\n'), out + strlen(out) - 1); /* exactly one line */
    snprintf(args, sizeof args, "--base-url %s/s/cc-max-retries/cli2 --no-stream --json-schema @suite/data/mock/schema.json go",
             gt_mock_base_url(server));
    ck_assert_int_eq(run_cli(args, out, sizeof out), 1);
    ck_assert_ptr_nonnull(strstr(out, "error_max_structured_output_retries"));
    /* issue 12: the first stream is cut inside the StructuredOutput block, the
     * second answer is valid: the cut call is tombstoned, retracted, counted,
     * the request sent again, and the query succeeds */
    snprintf(args, sizeof args, "--base-url %s/s/cc-cut-stream/cli-cut --json-schema @suite/data/mock/schema.json why",
             gt_mock_base_url(server));
    ck_assert_msg(run_cli(args, out, sizeof out) == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "\"structured_output\":{\"cause\":\"missing symbol\""));
    ck_assert_msg(strstr(out, "\"attempts_used\":2,\"attempts_limit\":5,\"retracted\":1,\"enforce_messages\":0,"
                              "\"api_attempts\":2,\"model_calls\":2") != NULL,
                  "%s", out);
    ck_assert_int_eq(run_cli("--json-schema {} go", out, sizeof out), 2);
    ck_assert_int_eq(run_cli("--base-url http://127.0.0.1:1 --provider bogus --json-schema {} go", out, sizeof out), 2);
    /* the README's example run again with the same run id: its script was
     * played, the mock says so (x-gauntlet-beyond-script) and so does the
     * client, on stderr; a first run says nothing */
    const char *gauntlet = getenv("GAUNTLET") ? getenv("GAUNTLET") : "build/gauntlet";
    snprintf(args, sizeof args,
             "%s client --base-url %s/s/ok-stream/cli1 --json-schema @suite/data/mock/schema.json \"why?\" 2>&1 "
             ">/dev/null",
             gauntlet, gt_mock_base_url(server));
    ck_assert_int_eq(gt_test_shell(args, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "came after the end of the mock's script: this run id had already played it (each "
                              "run id plays a scenario once); use a new run id to replay it") != NULL,
                  "%s", out);
    snprintf(args, sizeof args,
             "%s client --base-url %s/s/ok-stream/cli-fresh --json-schema @suite/data/mock/schema.json \"why?\" "
             "2>&1 >/dev/null",
             gauntlet, gt_mock_base_url(server));
    ck_assert_int_eq(gt_test_shell(args, out, sizeof out), 0);
    ck_assert_ptr_null(strstr(out, "end of the mock's script"));
    gt_mock_stop(server);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("client");
    TCase *unit = tcase_create("client");
    tcase_set_timeout(unit, 60);
    tcase_add_test(unit, request_bodies_for_both_apis);
    tcase_add_test(unit, bad_options_and_refused_connections);
    tcase_add_test(unit, cli_exit_codes);
    tcase_add_test(unit, openai_over_http);
    suite_add_tcase(suite, unit);
    TCase *equal = tcase_create("equality");
    tcase_set_timeout(equal, 300);
    tcase_add_test(equal, corpus_equal_over_http);
    suite_add_tcase(suite, equal);
    return suite;
}

GT_TEST_MAIN()
