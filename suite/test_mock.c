/* test_mock.c — the mock model server over real HTTP, driven with libcurl.
 *
 * Every endpoint (Anthropic messages JSON and SSE, count_tokens, models,
 * OpenAI chat completions JSON and SSE, the /_gauntlet control routes),
 * scenario selection (path prefix, header, API key; run ids isolated),
 * every fault scenario of suite/data/mock, the journal, and
 * robustness (malformed HTTP, oversized bodies, unknown paths, wrong
 * methods: JSON 4xx, and the server keeps serving). Each test starts its own
 * server on 127.0.0.1:0 and stops it. */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gauntlet/client.h"
#include "gauntlet/loop.h"
#include "gauntlet/runner/mock.h"
#include "mocks/mock_buf.h"
#include "mocks/mock_impl.h"
#include "gt_test.h"
#include "gt_test_http.h"

#define SCENARIOS "suite/data/mock"
#define SCHEMA                                                                                                    \
    "{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"},\"fixes\":{\"type\":\"array\",\"items\":{" \
    "\"type\":\"string\"}}},\"required\":[\"cause\",\"fixes\"],\"additionalProperties\":false}"
#define ANTHROPIC_BODY(stream)                                                                                  \
    "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":1024,\"stream\":" stream ",\"messages\":[{\"role\":\"user\"," \
    "\"content\":\"hi\"}],\"tools\":[{\"name\":\"StructuredOutput\",\"input_schema\":" SCHEMA "}]}"
#define OPENAI_BODY(stream)                                                                                   \
    "{\"model\":\"gpt-4o-mini\",\"stream\":" stream ",\"stream_options\":{\"include_usage\":true},\"messages\":[{" \
    "\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":"          \
    "\"StructuredOutput\",\"parameters\":" SCHEMA "}}]}"

static gt_mock_server *server;

static void start(void)
{
    gt_mock_options options = {0};
    options.max_body = 64 * 1024;
    server = gt_test_mock_start(&options, SCENARIOS, 20);
}

static void stop(void)
{
    gt_mock_stop(server);
    server = NULL;
}

/* ---- requests (suite/gt_test_http.h) ------------------------------------ */

typedef gt_test_response response;

/* `method` NULL = GET, or POST when body given. `extra` are header lines. */
static response request(const char *method, const char *path, const char *body, const char *const *extra)
{
    return gt_test_mock_request(server, method, path, body, extra);
}

static response post(const char *path, const char *body)
{
    return request(NULL, path, body, NULL);
}

static void release(response *r)
{
    gt_test_response_free(r);
}

static cJSON *json_of(const response *r)
{
    cJSON *json = cJSON_Parse(r->body);
    ck_assert_msg(json != NULL, "not JSON (HTTP %ld): %.300s", r->status, r->body);
    return json;
}

static const char *str_at(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* An Anthropic error body of `type`. */
static void assert_anthropic_error(const response *r, long status, const char *type)
{
    ck_assert_int_eq(r->status, status);
    cJSON *json = json_of(r);
    ck_assert_str_eq(str_at(json, "type"), "error");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(json, "error");
    ck_assert_str_eq(str_at(error, "type"), type);
    ck_assert_ptr_nonnull(str_at(error, "message"));
    ck_assert_msg(strstr(r->headers, "request-id: req_") != NULL, "no request-id header");
    cJSON_Delete(json);
}

/* ---- endpoints ------------------------------------------------------------- */

/* The connection pool (GT_MOCK_CONNECTION_MEMORY) holds the header block: a
 * 24 KB header is served (more than Node's default limit of 16 KiB), one
 * larger than the pool is refused with 431. */
START_TEST(header_block_bounded_by_connection_memory)
{
    size_t big = GT_MOCK_CONNECTION_MEMORY + 4096, fits = 24000;
    char *header = malloc(big + 16);
    ck_assert_ptr_nonnull(header);
    memcpy(header, "x-big: ", 7);
    memset(header + 7, 'x', fits);
    header[7 + fits] = '\0';
    const char *extra[] = {header, NULL};
    response r = request(NULL, "/v1/messages", ANTHROPIC_BODY("false"), extra);
    ck_assert_int_eq(r.status, 200);
    release(&r);
    memset(header + 7, 'x', big);
    header[7 + big] = '\0';
    r = request(NULL, "/v1/messages", ANTHROPIC_BODY("false"), extra);
    ck_assert_int_eq(r.status, 431);
    release(&r);
    free(header);
}
END_TEST

START_TEST(messages_json_without_scenario)
{
    response r = post("/v1/messages?beta=true", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    cJSON *json = json_of(&r);
    ck_assert_str_eq(str_at(json, "type"), "message");
    ck_assert_str_eq(str_at(json, "role"), "assistant");
    ck_assert_str_eq(str_at(json, "stop_reason"), "end_turn");
    ck_assert_ptr_nonnull(strstr(r.headers, "request-id: req_"));
    cJSON_Delete(json);
    release(&r);
}
END_TEST

START_TEST(messages_stream_event_sequence)
{
    response r = post("/s/ok-stream/a/v1/messages", ANTHROPIC_BODY("true"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_int_eq(r.code, CURLE_OK);
    ck_assert_ptr_nonnull(strstr(r.headers, "content-type: text/event-stream"));
    /* the exact order of the API's events */
    static const char *const order[] = {"event: message_start",    "event: content_block_start",
                                        "event: content_block_delta", "event: content_block_stop",
                                        "event: content_block_start", "\"input_json_delta\"",
                                        "event: content_block_stop", "event: message_delta",
                                        "\"stop_reason\":\"tool_use\"", "event: message_stop"};
    const char *at = r.body;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *next = strstr(at, order[i]);
        ck_assert_msg(next != NULL, "missing or out of order: %s in\n%s", order[i], r.body);
        at = next;
    }
    ck_assert_ptr_nonnull(strstr(r.body, "\"text_delta\""));
    release(&r);
}
END_TEST

START_TEST(messages_json_from_script_keeps_input)
{
    response r = post("/s/ok-message/a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    cJSON *json = json_of(&r);
    ck_assert_str_eq(str_at(json, "stop_reason"), "tool_use");
    const cJSON *block = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "content"), 0);
    ck_assert_str_eq(str_at(block, "type"), "tool_use");
    ck_assert_str_eq(str_at(block, "name"), "StructuredOutput");
    ck_assert_str_eq(str_at(cJSON_GetObjectItemCaseSensitive(block, "input"), "cause"), "missing symbol");
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(json, "usage");
    ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(usage, "input_tokens")->valueint, 120);
    ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(usage, "output_tokens")->valueint, 30);
    cJSON_Delete(json);
    release(&r);
}
END_TEST

START_TEST(count_tokens_and_models)
{
    response r = post("/v1/messages/count_tokens", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    cJSON *json = json_of(&r);
    ck_assert(cJSON_GetObjectItemCaseSensitive(json, "input_tokens")->valueint > 0);
    cJSON_Delete(json);
    release(&r);
    r = request(NULL, "/v1/models", NULL, NULL);
    ck_assert_int_eq(r.status, 200);
    json = json_of(&r);
    ck_assert(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "data")) >= 2);
    ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(json, "has_more"));
    ck_assert_str_eq(str_at(json, "object"), "list");
    cJSON_Delete(json);
    release(&r);
    r = request(NULL, "/s/ok-message/a/v1/models/claude-x", NULL, NULL);
    ck_assert_int_eq(r.status, 200);
    json = json_of(&r);
    ck_assert_str_eq(str_at(json, "id"), "claude-x");
    cJSON_Delete(json);
    release(&r);
}
END_TEST

START_TEST(accepts_what_real_clients_send)
{
    /* system role messages, thinking, context_management, output_config,
     * metadata, odd versions and long beta lists: accepted and ignored */
    static const char *const headers[] = {
        "anthropic-version: 2099-01-01", "x-api-key: sk-ant-real-looking",
        "anthropic-beta: claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14,"
        "context-management-2025-06-27,structured-outputs-2025-11-13,oauth-2025-04-20",
        NULL};
    const char *body = "{\"model\":\"claude-opus-4-1\",\"max_tokens\":32000,\"messages\":[{\"role\":\"system\","
                       "\"content\":\"be brief\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\","
                       "\"cache_control\":{\"type\":\"ephemeral\"}}]}],\"thinking\":{\"type\":\"enabled\","
                       "\"budget_tokens\":1024},\"context_management\":{\"edits\":[]},\"output_config\":{\"format\":"
                       "{\"type\":\"json_schema\",\"schema\":{}}},\"metadata\":{\"user_id\":\"u\"},\"temperature\":1}";
    response r = request(NULL, "/s/ok-message/b/v1/messages?beta=true", body, headers);
    ck_assert_int_eq(r.status, 200);
    /* output_config.format asks for the answer as JSON text (test_mock_forms.c) */
    ck_assert_ptr_nonnull(strstr(r.body, "\"type\":\"text\""));
    ck_assert_ptr_nonnull(strstr(r.body, "missing symbol"));
    release(&r);
    /* the journal records the selected headers, with the key redacted */
    char *journal = gt_mock_journal_json(server, "ok-message/b");
    ck_assert_ptr_nonnull(strstr(journal, "\"anthropic-version\":\"2099-01-01\""));
    ck_assert_ptr_nonnull(strstr(journal, "\"x-api-key\":\"[redacted]\""));
    ck_assert_ptr_nonnull(strstr(journal, "\"beta\":\"true\""));
    ck_assert_ptr_null(strstr(journal, "sk-ant-real-looking"));
    free(journal);
}
END_TEST

START_TEST(openai_json_and_stream)
{
    response r = post("/s/openai-tool-call/a/v1/chat/completions", OPENAI_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    cJSON *json = json_of(&r);
    ck_assert_str_eq(str_at(json, "object"), "chat.completion");
    const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "choices"), 0);
    ck_assert_str_eq(str_at(choice, "finish_reason"), "tool_calls");
    const cJSON *call = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(choice, "message"), "tool_calls"), 0);
    const char *arguments = str_at(cJSON_GetObjectItemCaseSensitive(call, "function"), "arguments");
    ck_assert_str_eq(arguments, "{\"cause\":\"missing symbol\",\"fixes\":[\"link libm\"]}");
    cJSON_Delete(json);
    release(&r);

    r = post("/s/openai-tool-call/b/v1/chat/completions", OPENAI_BODY("true"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"object\":\"chat.completion.chunk\""));
    ck_assert_ptr_nonnull(strstr(r.body, "\"tool_calls\":[{\"index\":0,\"id\":"));
    ck_assert_ptr_nonnull(strstr(r.body, "\"finish_reason\":\"tool_calls\""));
    ck_assert_ptr_nonnull(strstr(r.body, "\"usage\":{\"prompt_tokens\""));
    const char *done = strstr(r.body, "data: [DONE]\n\n");
    ck_assert_ptr_nonnull(done);
    ck_assert_str_eq(done, "data: [DONE]\n\n");
    release(&r);
}
END_TEST

START_TEST(openai_finish_reasons_and_refusal)
{
    response r = post("/s/openai-refusal/a/v1/chat/completions", OPENAI_BODY("false"));
    cJSON *json = json_of(&r);
    const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "choices"), 0);
    const cJSON *message = cJSON_GetObjectItemCaseSensitive(choice, "message");
    ck_assert_str_eq(str_at(message, "refusal"), "I'm sorry, I cannot help with that.");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(message, "content")));
    cJSON_Delete(json);
    release(&r);
    r = post("/s/openai-length/a/v1/chat/completions", OPENAI_BODY("false"));
    ck_assert_ptr_nonnull(strstr(r.body, "\"finish_reason\":\"length\""));
    release(&r);
    r = post("/s/openai-content-filter/a/v1/chat/completions", OPENAI_BODY("true"));
    ck_assert_ptr_nonnull(strstr(r.body, "\"finish_reason\":\"content_filter\""));
    release(&r);
    r = post("/s/openai-refusal/b/v1/chat/completions", OPENAI_BODY("true"));
    ck_assert_ptr_nonnull(strstr(r.body, "\"delta\":{\"refusal\":\"I'm sorry"));
    release(&r);
}
END_TEST

START_TEST(openai_error_shape)
{
    response r = post("/s/error-401/a/v1/chat/completions", OPENAI_BODY("false"));
    ck_assert_int_eq(r.status, 401);
    cJSON *json = json_of(&r);
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(json, "error");
    ck_assert_str_eq(str_at(error, "message"), "invalid x-api-key");
    ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(error, "param"));
    ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(error, "code"));
    cJSON_Delete(json);
    release(&r);
}
END_TEST

START_TEST(anthropic_error_shapes)
{
    response r = post("/s/error-401/a/v1/messages", ANTHROPIC_BODY("false"));
    assert_anthropic_error(&r, 401, "authentication_error");
    release(&r);
    r = post("/s/error-413/a/v1/messages", ANTHROPIC_BODY("false"));
    assert_anthropic_error(&r, 413, "request_too_large");
    release(&r);
    r = post("/s/overloaded-then-success/a/v1/messages", ANTHROPIC_BODY("false"));
    assert_anthropic_error(&r, 529, "overloaded_error");
    ck_assert_ptr_nonnull(strstr(r.headers, "retry-after: 1"));
    release(&r);
    r = post("/s/rate-limited-then-success/a/v1/messages", ANTHROPIC_BODY("false"));
    assert_anthropic_error(&r, 429, "rate_limit_error");
    release(&r);
    r = post("/s/error-500-exhausts/a/v1/messages", ANTHROPIC_BODY("false"));
    assert_anthropic_error(&r, 500, "api_error");
    release(&r);
    r = post("/s/capability-400-then-no-strict/a/v1/messages", ANTHROPIC_BODY("false"));
    assert_anthropic_error(&r, 400, "invalid_request_error");
    release(&r);
    r = post("/s/no-such-scenario/a/v1/messages", ANTHROPIC_BODY("false"));
    assert_anthropic_error(&r, 404, "not_found_error");
    release(&r);
}
END_TEST

/* ---- selection and sessions ------------------------------------------------ */

START_TEST(selection_by_path_header_and_key)
{
    response r = post("/s/ok-message/p1/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_ptr_nonnull(strstr(r.body, "tool_use"));
    release(&r);
    static const char *const by_header[] = {"x-gauntlet-scenario: ok-message", "x-gauntlet-run: h1", NULL};
    r = request(NULL, "/v1/messages", ANTHROPIC_BODY("false"), by_header);
    ck_assert_ptr_nonnull(strstr(r.body, "tool_use"));
    release(&r);
    static const char *const by_key[] = {"x-api-key: gauntlet-ok-message~k1", NULL};
    r = request(NULL, "/v1/messages", ANTHROPIC_BODY("false"), by_key);
    ck_assert_ptr_nonnull(strstr(r.body, "tool_use"));
    release(&r);
    static const char *const by_bearer[] = {"authorization: Bearer gauntlet-openai-tool-call", NULL};
    r = request(NULL, "/v1/chat/completions", OPENAI_BODY("false"), by_bearer);
    ck_assert_ptr_nonnull(strstr(r.body, "tool_calls"));
    release(&r);
    char *journal = gt_mock_journal_json(server, NULL);
    ck_assert_ptr_nonnull(strstr(journal, "\"session\":\"ok-message/p1\""));
    ck_assert_ptr_nonnull(strstr(journal, "\"selected_by\":\"header\""));
    ck_assert_ptr_nonnull(strstr(journal, "\"session\":\"ok-message/k1\""));
    ck_assert_ptr_nonnull(strstr(journal, "\"session\":\"openai-tool-call/default\""));
    free(journal);
}
END_TEST

/* Counts of "beyond_script":true and false in a session's journal. */
static void beyond_counts(const char *session, int *beyond, int *within)
{
    char *journal = gt_mock_journal_json(server, session);
    *beyond = *within = 0;
    for (const char *at = journal; (at = strstr(at, "\"beyond_script\":")) != NULL; at++)
        (strncmp(at + 16, "true", 4) == 0 ? (*beyond)++ : (*within)++);
    free(journal);
}

START_TEST(run_ids_have_their_own_cursor)
{
    /* two runs of the same script interleaved: each starts at turn 0 */
    response a = post("/s/overloaded-then-success/run-a/v1/messages", ANTHROPIC_BODY("false"));
    response b = post("/s/overloaded-then-success/run-b/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(a.status, 529);
    ck_assert_int_eq(b.status, 529);
    release(&a);
    release(&b);
    a = post("/s/overloaded-then-success/run-a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(a.status, 200);
    release(&a);
    /* past the script (default after_script "end_turn_text"): the mock keeps
     * playing a model that ends its turn with a short text, and says so */
    a = post("/s/overloaded-then-success/run-a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(a.status, 200);
    ck_assert_ptr_nonnull(strstr(a.body, MOCK_AFTER_SCRIPT_TEXT));
    ck_assert_ptr_nonnull(strstr(a.body, "\"stop_reason\":\"end_turn\""));
    ck_assert_ptr_null(strstr(a.body, "tool_use"));
    release(&a);
    char *journal = gt_mock_journal_json(server, "overloaded-then-success/run-a");
    ck_assert_ptr_null(strstr(journal, "script exhausted"));
    ck_assert_ptr_nonnull(strstr(journal, "\"count\":3"));
    ck_assert_ptr_nonnull(strstr(journal, "\"turn\":null,\"side\":false,\"stream\":false,\"status\":200"));
free(journal);
    /* reset: the run starts over */
    response reset = request("POST", "/_gauntlet/reset?session=overloaded-then-success/run-a", "", NULL);
    ck_assert_int_eq(reset.status, 200);
    release(&reset);
    a = post("/s/overloaded-then-success/run-a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(a.status, 529);
    release(&a);
}
END_TEST

#define AFTER_SCRIPT(policy)                                                                                          \
    "{\"json_schema\":{\"type\":\"object\"},\"mock\":{\"after_script\":\"" policy "\"},\"turns\":["                \
    "{\"message\":{\"content\":\"first answer\"}},"                                                                   \
    "{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"StructuredOutput\","              \
    "\"input\":{\"last\":1}}]}}]}"

START_TEST(after_script_policies)
{
    char err[256];
    ck_assert_int_eq(gt_mock_add_scenario(server, "after-repeat", AFTER_SCRIPT("repeat_last"), NULL, err, sizeof err), 0);
    ck_assert_int_eq(gt_mock_add_scenario(server, "after-400", AFTER_SCRIPT("error_400"), NULL, err, sizeof err), 0);
    ck_assert_int_eq(gt_mock_add_scenario(server, "after-text", AFTER_SCRIPT("end_turn_text"), NULL, err, sizeof err), 0);
    ck_assert_int_ne(gt_mock_add_scenario(server, "after-bad", AFTER_SCRIPT("loop_forever"), NULL, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "/mock/after_script") != NULL, "%s", err);
    static const char *const names[] = {"after-repeat", "after-400", "after-text"};
    for (size_t i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof path, "/s/%s/r/v1/messages", names[i]);
        for (int call = 0; call < 2; call++) {
            response r = post(path, ANTHROPIC_BODY("false"));
            ck_assert_int_eq(r.status, 200);
            release(&r);
        }
        /* the third and fourth calls are beyond the script */
        for (int call = 0; call < 2; call++) {
            response r = post(path, ANTHROPIC_BODY("false"));
            if (i == 0) {
                ck_assert_int_eq(r.status, 200);
                ck_assert_ptr_nonnull(strstr(r.body, "\"toolu_9\"")); /* the last turn again */
            } else if (i == 1) {
                assert_anthropic_error(&r, 400, "invalid_request_error");
                ck_assert_ptr_nonnull(strstr(r.body, "no turn left"));
            } else {
                ck_assert_int_eq(r.status, 200);
                ck_assert_ptr_nonnull(strstr(r.body, MOCK_AFTER_SCRIPT_TEXT));
            }
            release(&r);
        }
        char session[64];
        snprintf(session, sizeof session, "%s/r", names[i]);
        int beyond, within;
        beyond_counts(session, &beyond, &within);
        ck_assert_int_eq(beyond, 2);
        ck_assert_int_eq(within, 2);
    }
    /* streamed too: the end-of-script text is a complete SSE message */
    response r = post("/s/after-text/s2/v1/messages", ANTHROPIC_BODY("true"));
    release(&r);
    r = post("/s/after-text/s2/v1/messages", ANTHROPIC_BODY("true"));
    release(&r);
    r = post("/s/after-text/s2/v1/messages", ANTHROPIC_BODY("true"));
    ck_assert_int_eq(r.code, CURLE_OK);
    ck_assert_ptr_nonnull(strstr(r.body, "event: message_stop"));
    ck_assert_ptr_nonnull(strstr(r.body, "\"stop_reason\":\"end_turn\""));
    release(&r);
}
END_TEST

START_TEST(deviation_is_answered_and_recorded)
{
    response r = post("/s/no-tool-result-deviation/a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    release(&r);
    /* the next request does not answer toolu_1 */
    r = post("/s/no-tool-result-deviation/a/v1/messages", ANTHROPIC_BODY("false"));
    assert_anthropic_error(&r, 400, "invalid_request_error");
    ck_assert_ptr_nonnull(strstr(r.body, "expected a tool_result for toolu_1"));
    release(&r);
    response journal = request(NULL, "/_gauntlet/journal?session=no-tool-result-deviation/a", NULL, NULL);
    ck_assert_int_eq(journal.status, 200);
    ck_assert_ptr_nonnull(strstr(journal.body, "\"deviations\":[\"no tool_result for toolu_1\"]"));
    release(&journal);
}
END_TEST

START_TEST(capability_400_then_retry_without_strict)
{
    /* the reference client over HTTP: strict, 400, then the same request without strict */
    char base[512];
    snprintf(base, sizeof base, "%s/s/capability-400-then-no-strict/c1", gt_mock_base_url(server));
    gt_client_options options = {.base_url = base, .stream = true, .backoff_ms = -1};
    gt_loop_model model;
    gt_loop_config config;
    gt_client *client = gt_test_client_loop(&options, SCHEMA, &model, &config);
    config.strict = true;
    gt_loop_result result;
    ck_assert_int_eq(gt_loop_run(&config, &model, &result), 0);
    ck_assert_int_eq(result.subtype, GT_LOOP_SUCCESS);
    ck_assert(result.strict_stripped);
    ck_assert_int_eq(result.accounting.api_attempts, 2);
    gt_loop_result_free(&result);
    gt_client_free(client);
    char *journal = gt_mock_journal_json(server, "capability-400-then-no-strict/c1");
    /* first request strict, second not, no deviation recorded */
    const char *first = strstr(journal, "\"strict\":true");
    ck_assert_ptr_nonnull(first);
    const char *second = strstr(first, "\"turn\":1");
    ck_assert_ptr_nonnull(second);
    ck_assert_ptr_null(strstr(journal, "expected strict"));
    free(journal);
}
END_TEST

START_TEST(retry_after_is_honoured)
{
    char base[512];
    snprintf(base, sizeof base, "%s/s/overloaded-then-success/c2", gt_mock_base_url(server));
    gt_client_options options = {.base_url = base, .stream = false};
    gt_loop_model model;
    gt_loop_config config;
    gt_client *client = gt_test_client_loop(&options, SCHEMA, &model, &config);
    gt_loop_result result;
    ck_assert_int_eq(gt_loop_run(&config, &model, &result), 0);
    ck_assert_int_eq(result.subtype, GT_LOOP_SUCCESS);
    ck_assert_int_eq(result.accounting.api_attempts, 2);
    ck_assert_int_ge(gt_client_get_stats(client)->waited_ms, 900); /* retry-after: 1 */
    gt_loop_result_free(&result);
    gt_client_free(client);
}
END_TEST

/* ---- faults ------------------------------------------------------------------ */

START_TEST(fault_cut_streams)
{
    response r = post("/s/cut-after-event/a/v1/messages", ANTHROPIC_BODY("true"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_int_ne(r.code, CURLE_OK); /* the connection closed mid-stream */
    ck_assert_ptr_nonnull(strstr(r.body, "event: message_start"));
    ck_assert_ptr_null(strstr(r.body, "message_stop"));
    release(&r);
    /* the resend without stream is scripted too */
    r = post("/s/cut-after-event/a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"toolu_2\""));
    release(&r);
    char *journal = gt_mock_journal_json(server, "cut-after-event/a");
    ck_assert_ptr_null(strstr(journal, "expected stream"));
    free(journal);

    r = post("/s/cut-inside-delta/a/v1/messages", ANTHROPIC_BODY("true"));
    ck_assert_int_ne(r.code, CURLE_OK);
    ck_assert_ptr_nonnull(strstr(r.body, "content_block_start"));
    ck_assert(r.body[r.len - 1] != '\n'); /* cut inside the event */
    release(&r);

    r = post("/s/fault-cut-event/a/v1/messages", ANTHROPIC_BODY("true"));
    ck_assert_int_ne(r.code, CURLE_OK);
    ck_assert_ptr_nonnull(strstr(r.body, "content_block_start"));
    ck_assert_ptr_null(strstr(r.body, "content_block_delta"));
    release(&r);

    r = post("/s/fault-cut-bytes/a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_ne(r.code, CURLE_OK);
    ck_assert_uint_eq(r.len, 60);
    release(&r);
}
END_TEST

START_TEST(fault_malformed_sse_and_raw)
{
    response r = post("/s/malformed-sse/a/v1/messages", ANTHROPIC_BODY("true"));
    ck_assert_int_eq(r.code, CURLE_OK);
    ck_assert_ptr_nonnull(strstr(r.body, "\n\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\n\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "message_stop"));
    release(&r);
    r = post("/s/raw-sse/a/v1/messages", ANTHROPIC_BODY("true"));
    ck_assert_ptr_nonnull(strstr(r.body, ": a comment line\n\nevent: ping"));
    release(&r);
}
END_TEST

START_TEST(fault_content_type_error_body_reset)
{
    response r = post("/s/wrong-content-type/a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.headers, "content-type: text/html"));
    release(&r);
    r = post("/s/http-error-body/a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 502);
    ck_assert_str_eq(r.body, "<html><body>502 Bad Gateway</body></html>");
    release(&r);
    r = post("/s/connection-reset/a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_ne(r.code, CURLE_OK);
    release(&r);
    /* the server survives and the script goes on */
    r = post("/s/connection-reset/a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "toolu_2"));
    release(&r);
}
END_TEST

START_TEST(fault_oversized_latency_drip)
{
    response r = post("/s/oversized/a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_gt(r.len, 2097152);
    cJSON *json = json_of(&r); /* padding is whitespace: still one JSON value */
    cJSON_Delete(json);
    release(&r);
    r = post("/s/latency/a/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_msg(r.first_byte_s >= 0.28, "first byte after %.3f s", r.first_byte_s);
    release(&r);
    r = post("/s/slow-drip/a/v1/messages", ANTHROPIC_BODY("true"));
    ck_assert_int_eq(r.code, CURLE_OK);
    size_t pieces = r.len / 64;
    ck_assert_msg(r.total_s >= 0.02 * (double)(pieces - 1) * 0.8, "%zu bytes in %.3f s", r.len, r.total_s);
    ck_assert_ptr_nonnull(strstr(r.body, "message_stop"));
    release(&r);
}
END_TEST

/* A pause (latency, drip, cut linger) parks its connection on the timer: the
 * few event-loop threads keep serving everyone else meanwhile. */
typedef struct slow_call {
    const char *path, *body;
    response r;
} slow_call;

static void *slow_request(void *arg)
{
    slow_call *call = arg;
    call->r = post(call->path, call->body);
    return NULL;
}

START_TEST(pauses_never_stall_other_connections)
{
    slow_call calls[] = {{"/s/latency/p1/v1/messages", ANTHROPIC_BODY("false"), {0}},
                         {"/s/latency/p2/v1/messages", ANTHROPIC_BODY("false"), {0}},
                         {"/s/slow-drip/p3/v1/messages", ANTHROPIC_BODY("true"), {0}},
                         {"/s/slow-drip/p4/v1/messages", ANTHROPIC_BODY("true"), {0}},
                         {"/s/fault-cut-event/p5/v1/messages", ANTHROPIC_BODY("true"), {0}},
                         {"/s/fault-cut-event/p6/v1/messages", ANTHROPIC_BODY("true"), {0}}};
    enum { SLOW = sizeof calls / sizeof calls[0] };
    pthread_t threads[SLOW];
    for (size_t i = 0; i < SLOW; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, slow_request, &calls[i]), 0);
    struct timespec settle = {0, 50 * 1000000L}; /* the slow ones are parked by now */
    nanosleep(&settle, NULL);
    for (int i = 0; i < 20; i++) {
        response r = post("/v1/messages", ANTHROPIC_BODY("false"));
        ck_assert_int_eq(r.status, 200);
        ck_assert_msg(r.total_s < 0.25, "request %d waited %.3f s behind a pause", i, r.total_s);
        release(&r);
    }
    for (size_t i = 0; i < SLOW; i++) {
        pthread_join(threads[i], NULL);
        if (strstr(calls[i].path, "/latency/")) {
            ck_assert_int_eq(calls[i].r.status, 200);
            ck_assert_msg(calls[i].r.first_byte_s >= 0.28, "first byte after %.3f s", calls[i].r.first_byte_s);
        } else if (strstr(calls[i].path, "/slow-drip/")) {
            ck_assert_ptr_nonnull(strstr(calls[i].r.body, "message_stop"));
        } else {
            ck_assert_int_ne(calls[i].r.code, CURLE_OK); /* cut */
        }
        release(&calls[i].r);
    }
}
END_TEST

/* The journal prints a request body itself (no temporary string): byte for
 * byte what cJSON_PrintUnformatted prints, numbers and escapes included. */
START_TEST(journal_body_prints_as_cjson)
{
    static const char *const texts[] = {
        "{}", "[]", "null", "true", "false", "0", "-0", "-0.0", "1", "-1", "1024", "0.1", "-0.5", "1e300", "-1e-300",
        "5e-324", "1.7976931348623157e308", "123456789012345", "999999999999999", "1000000000000000",
        "1234567890123456789", "-999999999999999", "3.141592653589793", "2.5e15", "1e21", "100.0", "1E2",
        "[1,2.5,-3,4e10,0.30000000000000004]", "\"\"", "\"a\\\"b\\\\c\\/d\\n\\r\\t\\b\\f\\u0001\\u001f\\u007f\"",
        "\"caf\\u00e9 \\ud83d\\ude00 \xc3\xa9\"", "{\"\":1,\"a\\nb\":[{},[],{\"x\":null}],\"k\":\"v\"}",
        "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":1024,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
        ANTHROPIC_BODY("true"), OPENAI_BODY("false"),
        "{\"a\":{\"b\":{\"c\":[[[[1]]]],\"d\":-12.75,\"e\":6.02214076e23,\"f\":1.5e-7}}}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        cJSON *json = cJSON_Parse(texts[i]);
        ck_assert_msg(json != NULL, "%s", texts[i]);
        char *expected = cJSON_PrintUnformatted(json);
        mock_buf buf;
        mock_buf_init(&buf);
        mock_buf_adds(&buf, "x");
        ck_assert(mock_buf_add_cjson(&buf, json));
        ck_assert_str_eq(buf.data + 1, expected);
        free(expected);
        mock_buf_free(&buf);
        cJSON_Delete(json);
    }
    /* a type cJSON cannot print: nothing appended, as cJSON_PrintUnformatted gives NULL */
    cJSON *odd = cJSON_CreateObject();
    cJSON *invalid = cJSON_CreateNull();
    invalid->type = 0;
    cJSON_AddItemToObject(odd, "bad", invalid);
    ck_assert_ptr_null(cJSON_PrintUnformatted(odd));
    mock_buf buf;
    mock_buf_init(&buf);
    mock_buf_adds(&buf, "kept");
    ck_assert(!mock_buf_add_cjson(&buf, odd));
    ck_assert_str_eq(buf.data, "kept");
    mock_buf_free(&buf);
    cJSON_Delete(odd);
}
END_TEST

START_TEST(client_limits_oversized_body)
{
    char base[512];
    snprintf(base, sizeof base, "%s/s/oversized/c1", gt_mock_base_url(server));
    gt_client_options options = {.base_url = base, .stream = false, .max_response = 1024 * 1024};
    gt_loop_model model;
    gt_loop_config config;
    gt_client *client = gt_test_client_loop(&options, SCHEMA, &model, &config);
    gt_loop_result result;
    ck_assert_int_eq(gt_loop_run(&config, &model, &result), 0);
    ck_assert_int_eq(result.subtype, GT_LOOP_ERROR_DURING_EXECUTION);
    ck_assert_msg(result.error_count > 0 && strstr(result.errors[0], "over the limit"), "%s",
                  result.error_count ? result.errors[0] : "(none)");
    gt_loop_result_free(&result);
    gt_client_free(client);
}
END_TEST

START_TEST(notices_travel_in_a_header)
{
    /* the mirroring reference client gets the fallback as a notice */
    static const char *const mirror[] = {"x-gauntlet-mirror: 1", NULL};
    response r = request(NULL, "/s/fallback-retracts/a/v1/messages", ANTHROPIC_BODY("false"), mirror);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.headers, "x-gauntlet-notices: "));
    ck_assert_ptr_nonnull(strstr(r.headers, "x-gauntlet-turn: 0"));
    release(&r);
}
END_TEST

/* A real client never reads x-gauntlet-notices: the fallback is played on
 * the wire the way a provider makes a client fall back. */
START_TEST(fallback_is_played_on_the_wire)
{
    response r = post("/s/fallback-retracts/w1/v1/messages", ANTHROPIC_BODY("true"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_null(strstr(r.headers, "x-gauntlet-notices: "));
    ck_assert_ptr_nonnull(strstr(r.body, "event: content_block_stop")); /* the message streamed completely ... */
    ck_assert_ptr_nonnull(strstr(r.body, "link libm"));
    const char *error = strstr(r.body, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"");
    ck_assert_ptr_nonnull(error); /* ... then the stream failed */
    ck_assert_ptr_null(strstr(r.body, "message_stop"));
    ck_assert_ptr_null(strstr(r.body, "message_delta"));
    release(&r);
    r = post("/s/fallback-retracts/w1/v1/messages", ANTHROPIC_BODY("true"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"toolu_2\""));
    ck_assert_ptr_nonnull(strstr(r.body, "message_stop"));
    release(&r);
    char *journal = gt_mock_journal_json(server, "fallback-retracts/w1");
    ck_assert_msg(strstr(journal, "\"faults\":[\"fallback\",\"stream_error\"]") != NULL, "%s", journal);
    ck_assert_msg(strstr(journal, "no tool_result") == NULL, "%s", journal); /* nothing to answer */
    free(journal);

    /* not streamed: the overload error the API answers instead of the message */
    r = post("/s/fallback-retracts/w2/v1/messages", ANTHROPIC_BODY("false"));
    assert_anthropic_error(&r, 529, "overloaded_error");
    release(&r);
    /* OpenAI: an error chunk and no [DONE] */
    r = post("/s/fallback-retracts/w3/v1/chat/completions",
             "{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    ck_assert_ptr_nonnull(strstr(r.body, "data: {\"error\":"));
    ck_assert_ptr_null(strstr(r.body, "[DONE]"));
    ck_assert_ptr_null(strstr(r.body, "finish_reason\":\"tool_calls"));
    release(&r);
}
END_TEST

/* A scripted cut or malformed stream sent as-is is journaled as the fault it is. */
START_TEST(scripted_faults_are_journaled)
{
    response r = post("/s/cut-after-event/j/v1/messages", ANTHROPIC_BODY("true"));
    release(&r);
    char *journal = gt_mock_journal_json(server, "cut-after-event/j");
    ck_assert_msg(strstr(journal, "\"faults\":[\"cut\"]") != NULL, "%s", journal);
    free(journal);
    r = post("/s/malformed-sse/j/v1/messages", ANTHROPIC_BODY("true"));
    release(&r);
    journal = gt_mock_journal_json(server, "malformed-sse/j");
    ck_assert_msg(strstr(journal, "\"faults\":[\"malformed_sse\"]") != NULL, "%s", journal);
    free(journal);
    r = post("/s/ok-stream/j/v1/messages", ANTHROPIC_BODY("true"));
    release(&r);
    journal = gt_mock_journal_json(server, "ok-stream/j");
    ck_assert_msg(strstr(journal, "\"faults\":[]") != NULL, "%s", journal);
    free(journal);
}
END_TEST

/* Each fault scenario through the reference client: the verdict it must reach.
 * A cut or malformed stream is resent within the API retry budget (seed 000's
 * fallback): with a budget of 0 the one-turn fault scenarios end with the
 * stream reason; cut-after-event, whose next turn is valid, succeeds. */
typedef struct fault_case {
    const char *scenario;
    bool stream;
    gt_loop_subtype subtype;
    const char *reason; /* NULL for success */
    int api_retries;    /* the loop's max_api_retries; -1 = the default */
} fault_case;

static const fault_case fault_cases[] = {
    {"ok-message", false, GT_LOOP_SUCCESS, NULL, -1},
    {"ok-stream", true, GT_LOOP_SUCCESS, NULL, -1},
    {"overloaded-then-success", true, GT_LOOP_SUCCESS, NULL, -1},
    {"rate-limited-then-success", false, GT_LOOP_SUCCESS, NULL, -1},
    {"refusal", true, GT_LOOP_ERROR_DURING_EXECUTION, "refusal", -1},
    {"refusal", false, GT_LOOP_ERROR_DURING_EXECUTION, "refusal", -1},
    {"max-tokens", true, GT_LOOP_ERROR_DURING_EXECUTION, "max_tokens_truncated", -1},
    {"max-tokens", false, GT_LOOP_ERROR_DURING_EXECUTION, "max_tokens_truncated", -1},
    {"cut-after-event", true, GT_LOOP_SUCCESS, NULL, -1},
    {"cut-after-event", true, GT_LOOP_ERROR_DURING_EXECUTION, "stream_truncated", 0},
    {"cut-inside-delta", true, GT_LOOP_ERROR_DURING_EXECUTION, "stream_truncated", 0},
    {"fault-cut-event", true, GT_LOOP_ERROR_DURING_EXECUTION, "stream_truncated", 0},
    {"fault-cut-bytes", true, GT_LOOP_ERROR_DURING_EXECUTION, "stream_truncated", 0},
    {"malformed-sse", true, GT_LOOP_ERROR_DURING_EXECUTION, "sse_bad_json", 0},
    {"raw-sse", true, GT_LOOP_ERROR_DURING_EXECUTION, "stream_truncated", 0},
    {"connection-reset", true, GT_LOOP_SUCCESS, NULL, -1},
    {"http-error-body", false, GT_LOOP_SUCCESS, NULL, -1},
    {"oversized", true, GT_LOOP_SUCCESS, NULL, -1},
    {"latency", true, GT_LOOP_SUCCESS, NULL, -1},
    {"slow-drip", true, GT_LOOP_SUCCESS, NULL, -1},
    {"invalid-then-valid", true, GT_LOOP_SUCCESS, NULL, -1},
    {"fallback-retracts", false, GT_LOOP_SUCCESS, NULL, -1}, /* 529 instead of the message, retried */
    {"fallback-retracts", true, GT_LOOP_SUCCESS, NULL, -1},  /* streamed, then an overloaded_error event: resent */
    {"error-500-exhausts", false, GT_LOOP_ERROR_DURING_EXECUTION, "error_during_execution", -1},
    {"error-401", false, GT_LOOP_ERROR_DURING_EXECUTION, "error_during_execution", -1},
};

START_TEST(fault_scenarios_through_the_client)
{
    const fault_case *fc = &fault_cases[_i];
    char base[512];
    snprintf(base, sizeof base, "%s/s/%s/fc%d", gt_mock_base_url(server), fc->scenario, _i);
    gt_client_options options = {.base_url = base, .stream = fc->stream, .backoff_ms = -1,
                                 .max_retry_after_ms = 50};
    gt_loop_model model;
    gt_loop_config config;
    gt_client *client = gt_test_client_loop(&options, SCHEMA, &model, &config);
    if (fc->api_retries >= 0)
        config.max_api_retries = fc->api_retries;
    gt_loop_result result;
    ck_assert_int_eq(gt_loop_run(&config, &model, &result), 0);
    ck_assert_msg(result.subtype == fc->subtype, "%s: subtype %s, expected %s (%s)", fc->scenario,
                  gt_loop_subtype_name(result.subtype), gt_loop_subtype_name(fc->subtype),
                  result.error_count ? result.errors[0] : "");
    if (fc->reason)
        ck_assert_msg(result.reason && strcmp(result.reason, fc->reason) == 0, "%s: reason %s, expected %s",
                      fc->scenario, result.reason ? result.reason : "(none)", fc->reason);
    else
        ck_assert(result.accepted);
    gt_loop_result_free(&result);
    gt_client_free(client);
}
END_TEST

/* ---- robustness ---------------------------------------------------------------- */

START_TEST(unknown_paths_wrong_methods_bad_bodies)
{
    response r = post("/v1/nothing-here", "{}");
    assert_anthropic_error(&r, 404, "not_found_error");
    release(&r);
    r = request(NULL, "/v1/messages", NULL, NULL); /* GET */
    assert_anthropic_error(&r, 405, "invalid_request_error");
    release(&r);
    r = request("DELETE", "/v1/models", NULL, NULL);
    assert_anthropic_error(&r, 405, "invalid_request_error");
    release(&r);
    r = post("/v1/messages", "{not json");
    assert_anthropic_error(&r, 400, "invalid_request_error");
    release(&r);
    r = post("/v1/messages", "[1,2]");
    assert_anthropic_error(&r, 400, "invalid_request_error");
    release(&r);
    r = post("/v1/chat/completions", "nope");
    ck_assert_int_eq(r.status, 400);
    ck_assert_ptr_nonnull(strstr(r.body, "\"error\":{\"message\""));
    release(&r);
    /* over the body limit (64 KiB in these tests) */
    size_t big = 200 * 1024;
    char *body = malloc(big + 1);
    memset(body, 'x', big);
    body[big] = '\0';
    r = post("/v1/messages", body);
    assert_anthropic_error(&r, 413, "request_too_large");
    release(&r);
    free(body);
    /* still serving */
    r = post("/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_int_eq(r.status, 200);
    release(&r);
}
END_TEST

/* Raw bytes over a socket; returns the status code of the reply, 0 if none. */
static int raw_exchange(const char *bytes, size_t len)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)gt_mock_port(server))};
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    struct timeval tv = {2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ssize_t sent = send(fd, bytes, len, MSG_NOSIGNAL);
    (void)sent;
    shutdown(fd, SHUT_WR);
    char reply[4096] = "";
    ssize_t n = recv(fd, reply, sizeof reply - 1, 0);
    close(fd);
    int status = 0;
    if (n > 12 && strncmp(reply, "HTTP/1.", 7) == 0)
        status = atoi(reply + 9);
    return status;
}

START_TEST(malformed_http_is_survived)
{
    static const char *const garbage[] = {
        "GARBAGE\r\n\r\n",
        "GET /v1/models HTTP/9.9\r\n\r\n",
        "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
        "POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", /* a TLS hello */
        "GET / HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        int status = raw_exchange(garbage[i], strlen(garbage[i]));
        ck_assert_msg(status == 0 || (status >= 400 && status < 600), "garbage %zu got %d", i, status);
    }
    /* libmicrohttpd is lenient about a missing Host: served, not dropped */
    const char *no_host = "GET /v1/models HTTP/1.1\r\n\r\n";
    int status = raw_exchange(no_host, strlen(no_host));
    ck_assert(status == 200 || status == 400);
    /* and the server keeps serving */
    response r = request(NULL, "/_gauntlet/health", NULL, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"ok\":true"));
    release(&r);
}
END_TEST

START_TEST(control_routes)
{
    const char *script = "{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"content\":\"plain text\"}}]}";
    response r = request("POST", "/_gauntlet/scenarios?name=posted", script, NULL);
    ck_assert_int_eq(r.status, 201);
    release(&r);
    r = request("POST", "/_gauntlet/scenarios?name=broken", "{\"turns\":[{\"bogus\":1}]}", NULL);
    assert_anthropic_error(&r, 400, "invalid_request_error");
    ck_assert_ptr_nonnull(strstr(r.body, "/turns/0"));
    release(&r);
    r = request(NULL, "/_gauntlet/scenarios", NULL, NULL);
    ck_assert_ptr_nonnull(strstr(r.body, "\"posted\""));
    release(&r);
    r = post("/s/posted/z/v1/messages", ANTHROPIC_BODY("false"));
    ck_assert_ptr_nonnull(strstr(r.body, "plain text"));
    release(&r);
    r = request(NULL, "/s/posted/z/_gauntlet/journal", NULL, NULL);
    cJSON *json = json_of(&r);
    ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(json, "count")->valueint, 1);
    cJSON_Delete(json);
    release(&r);
}
END_TEST

START_TEST(journal_file_and_restart)
{
    char path[] = "/tmp/gauntlet-journal-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char err[256];
    gt_mock_options options = {.journal_path = path};
    gt_mock_server *own = gt_mock_start(&options, err, sizeof err);
    ck_assert_ptr_nonnull(own);
    gt_mock_server *saved = server;
    server = own;
    for (int i = 0; i < 3; i++) {
        response r = post("/v1/messages", ANTHROPIC_BODY("false"));
        release(&r);
    }
    server = saved;
    gt_mock_stop(own);
    FILE *file = fopen(path, "r");
    char line[65536];
    int lines = 0;
    while (fgets(line, sizeof line, file)) {
        cJSON *entry = cJSON_Parse(line);
        ck_assert_ptr_nonnull(entry);
        ck_assert_str_eq(str_at(entry, "method"), "POST");
        ck_assert_str_eq(str_at(entry, "route"), "/v1/messages");
        ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(entry, "body"));
        cJSON_Delete(entry);
        lines++;
    }
    fclose(file);
    unlink(path);
    ck_assert_int_eq(lines, 3);
}
END_TEST

START_TEST(refuses_non_loopback_without_flag)
{
    char err[256];
    gt_mock_options options = {.host = "0.0.0.0"};
    gt_mock_server *other = gt_mock_start(&options, err, sizeof err);
    ck_assert_ptr_null(other);
    ck_assert_ptr_nonnull(strstr(err, "loopback"));
}
END_TEST

/* Parallel runs of one scenario never share a cursor. */
static void *parallel_run(void *arg)
{
    long id = (long)arg;
    char path[128];
    int *ok = malloc(sizeof *ok);
    *ok = 1;
    for (int step = 0; step < 2; step++) {
        snprintf(path, sizeof path, "/s/overloaded-then-success/par-%ld/v1/messages", id);
        response r = post(path, ANTHROPIC_BODY("false"));
        if (r.status != (step == 0 ? 529 : 200))
            *ok = 0;
        release(&r);
    }
    return ok;
}

START_TEST(parallel_runs_are_isolated)
{
    pthread_t threads[16];
    for (long i = 0; i < 16; i++)
        pthread_create(&threads[i], NULL, parallel_run, (void *)i);
    for (int i = 0; i < 16; i++) {
        void *ok;
        pthread_join(threads[i], &ok);
        ck_assert_int_eq(*(int *)ok, 1);
        free(ok);
    }
}
END_TEST

static Suite *make_suite(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    Suite *suite = suite_create("mock");
    TCase *endpoints = tcase_create("endpoints");
    tcase_add_checked_fixture(endpoints, start, stop);
    tcase_set_timeout(endpoints, 60);
    tcase_add_test(endpoints, messages_json_without_scenario);
    tcase_add_test(endpoints, header_block_bounded_by_connection_memory);
    tcase_add_test(endpoints, messages_stream_event_sequence);
    tcase_add_test(endpoints, messages_json_from_script_keeps_input);
    tcase_add_test(endpoints, count_tokens_and_models);
    tcase_add_test(endpoints, accepts_what_real_clients_send);
    tcase_add_test(endpoints, openai_json_and_stream);
    tcase_add_test(endpoints, openai_finish_reasons_and_refusal);
    tcase_add_test(endpoints, openai_error_shape);
    tcase_add_test(endpoints, anthropic_error_shapes);
    tcase_add_test(endpoints, control_routes);
    suite_add_tcase(suite, endpoints);

    TCase *sessions = tcase_create("sessions");
    tcase_add_checked_fixture(sessions, start, stop);
    tcase_set_timeout(sessions, 60);
    tcase_add_test(sessions, selection_by_path_header_and_key);
    tcase_add_test(sessions, run_ids_have_their_own_cursor);
    tcase_add_test(sessions, after_script_policies);
    tcase_add_test(sessions, deviation_is_answered_and_recorded);
    tcase_add_test(sessions, capability_400_then_retry_without_strict);
    tcase_add_test(sessions, retry_after_is_honoured);
    tcase_add_test(sessions, parallel_runs_are_isolated);
    tcase_add_test(sessions, journal_file_and_restart);
    tcase_add_test(sessions, journal_body_prints_as_cjson);
    suite_add_tcase(suite, sessions);

    TCase *faults = tcase_create("faults");
    tcase_add_checked_fixture(faults, start, stop);
    tcase_set_timeout(faults, 60);
    tcase_add_test(faults, fault_cut_streams);
    tcase_add_test(faults, fault_malformed_sse_and_raw);
    tcase_add_test(faults, fault_content_type_error_body_reset);
    tcase_add_test(faults, fault_oversized_latency_drip);
    tcase_add_test(faults, pauses_never_stall_other_connections);
    tcase_add_test(faults, client_limits_oversized_body);
    tcase_add_test(faults, notices_travel_in_a_header);
    tcase_add_test(faults, fallback_is_played_on_the_wire);
    tcase_add_test(faults, scripted_faults_are_journaled);
    tcase_add_loop_test(faults, fault_scenarios_through_the_client, 0,
                        (int)(sizeof fault_cases / sizeof fault_cases[0]));
    suite_add_tcase(suite, faults);

    TCase *robust = tcase_create("robustness");
    tcase_add_checked_fixture(robust, start, stop);
    tcase_set_timeout(robust, 60);
    tcase_add_test(robust, unknown_paths_wrong_methods_bad_bodies);
    tcase_add_test(robust, malformed_http_is_survived);
    tcase_add_test(robust, refuses_non_loopback_without_flag);
    suite_add_tcase(suite, robust);
    return suite;
}

GT_TEST_MAIN()
