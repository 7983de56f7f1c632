/* test_mock_forms.c — the mock renders a scripted answer in the form the
 * client asked for, over real HTTP (libcurl): a StructuredOutput call as a
 * call of the tool the client forced or the only tool it offered, as JSON
 * text for Anthropic output_config.format / output_format, OpenAI
 * response_format and Responses text.format; the Responses API as JSON and
 * as its SSE event stream; faults (per-turn and scripted stream faults,
 * on-wire fallbacks) in every form; the journal's answer_form; turns a
 * client's request rules out marked inexpressible; derive turns through the
 * http target, following the schema the library sends. Each test starts its own
 * server on 127.0.0.1:0. */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/mock.h"
#include "gauntlet/runner/run.h"
#include "gt_test.h"
#include "gt_test_http.h"

#define SCENARIOS "suite/data/mock"
#define SCHEMA "{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"}},\"required\":[\"cause\"]}"
#define USER_MESSAGES "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]"

static gt_mock_server *server;

static void start(void)
{
    server = gt_test_mock_start(NULL, SCENARIOS, 20);
}

static void stop(void)
{
    gt_mock_stop(server);
    server = NULL;
}

typedef gt_test_response reply;

/* POST `body` to /s/<scenario>/<run><route>. */
static reply call(const char *scenario, const char *run, const char *route, const char *body)
{
    char path[512];
    snprintf(path, sizeof path, "/s/%s/%s%s", scenario, run, route);
    return gt_test_mock_request(server, NULL, path, body, NULL);
}

/* The journal entry of `scenario/run` number `index` (a cJSON the caller frees
 * through the returned root). */
static cJSON *journal_entry(const char *scenario, const char *run, int index, cJSON **root)
{
    char session[256];
    snprintf(session, sizeof session, "%s/%s", scenario, run);
    char *text = gt_mock_journal_json(server, session);
    *root = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(*root);
    cJSON *entry = cJSON_GetArrayItem(cJSON_GetObjectItem(*root, "entries"), index);
    ck_assert_msg(entry != NULL, "no journal entry %d for %s", index, session);
    return entry;
}

static const char *str(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

static const cJSON *at(const cJSON *item, const char *path)
{
    return gt_test_json_at(item, path);
}

static const char *str_at(const cJSON *item, const char *path)
{
    const cJSON *found = at(item, path);
    return cJSON_IsString(found) ? found->valuestring : NULL;
}

/* Assert the journal's answer_form of entry `index`. */
static void assert_form(const char *scenario, const char *run, int index, const char *form, const char *why,
                        bool expressible)
{
    cJSON *root;
    cJSON *entry = journal_entry(scenario, run, index, &root);
    const cJSON *answer = cJSON_GetObjectItem(entry, "answer_form");
    ck_assert_msg(answer != NULL, "no answer_form in the journal of %s/%s", scenario, run);
    ck_assert_str_eq(str(answer, "form"), form);
    if (why)
        ck_assert_str_eq(str(answer, "why"), why);
    ck_assert_int_eq(cJSON_IsTrue(cJSON_GetObjectItem(answer, "expressible")), expressible);
    cJSON_Delete(root);
}

static bool journal_has_fault(const char *scenario, const char *run, int index, const char *fault)
{
    cJSON *root;
    cJSON *entry = journal_entry(scenario, run, index, &root);
    bool found = false;
    const cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItem(entry, "faults")) found |= strcmp(item->valuestring, fault) == 0;
    cJSON_Delete(root);
    return found;
}

/* ---- tool forms -------------------------------------------------------------- */

START_TEST(forced_tool_takes_the_call)
{
    const char *body = "{\"model\":\"claude-x\",\"max_tokens\":100," USER_MESSAGES ",\"tools\":[{\"name\":\"extract\","
                       "\"input_schema\":" SCHEMA "},{\"name\":\"other\",\"input_schema\":{}}],"
                       "\"tool_choice\":{\"type\":\"tool\",\"name\":\"extract\"}}";
    reply r = call("ok-message", "r1", "/v1/messages", body);
    ck_assert_int_eq(r.status, 200);
    cJSON *json = cJSON_Parse(r.body);
    ck_assert_str_eq(str_at(json, "content.0.type"), "tool_use");
    ck_assert_str_eq(str_at(json, "content.0.name"), "extract");
    ck_assert_str_eq(str_at(json, "content.0.input.cause"), "missing symbol");
    ck_assert_str_eq(str_at(json, "stop_reason"), "tool_use");
    cJSON_Delete(json);
    free(r.body);
    assert_form("ok-message", "r1", 0, "tool", "tool_choice", true);
    /* the same over SSE */
    char streamed[1024];
    snprintf(streamed, sizeof streamed, "%.*s,\"stream\":true}", (int)strlen(body) - 1, body);
    r = call("ok-message", "r2", "/v1/messages", streamed);
    ck_assert_ptr_nonnull(strstr(r.body, "\"name\":\"extract\""));
    ck_assert_ptr_null(strstr(r.body, "StructuredOutput"));
    ck_assert_ptr_nonnull(strstr(r.body, "input_json_delta"));
    free(r.body);
}
END_TEST

START_TEST(only_tool_takes_the_call_in_chat_completions)
{
    const char *body = "{\"model\":\"gpt-x\"," USER_MESSAGES ",\"tools\":[{\"type\":\"function\",\"function\":{"
                       "\"name\":\"json\",\"parameters\":" SCHEMA "}}]}";
    reply r = call("ok-message", "c1", "/v1/chat/completions", body);
    cJSON *json = cJSON_Parse(r.body);
    ck_assert_str_eq(str_at(json, "choices.0.message.tool_calls.0.function.name"), "json");
    ck_assert_ptr_nonnull(strstr(str_at(json, "choices.0.message.tool_calls.0.function.arguments"), "missing symbol"));
    ck_assert_str_eq(str_at(json, "choices.0.finish_reason"), "tool_calls");
    cJSON_Delete(json);
    free(r.body);
    assert_form("ok-message", "c1", 0, "tool", "only_tool", true);
}
END_TEST

START_TEST(structured_output_offered_is_left_alone)
{
    const char *body = "{\"model\":\"claude-x\",\"max_tokens\":100," USER_MESSAGES ",\"tools\":[{\"name\":"
                       "\"StructuredOutput\",\"input_schema\":" SCHEMA "}],\"output_config\":{\"format\":{\"type\":"
                       "\"json_schema\",\"schema\":" SCHEMA "}}}";
    reply r = call("ok-message", "s1", "/v1/messages", body);
    cJSON *json = cJSON_Parse(r.body);
    ck_assert_str_eq(str_at(json, "content.0.name"), "StructuredOutput");
    cJSON_Delete(json);
    free(r.body);
    cJSON *root;
    cJSON *entry = journal_entry("ok-message", "s1", 0, &root);
    ck_assert_ptr_null(cJSON_GetObjectItem(entry, "answer_form"));
    cJSON_Delete(root);
}
END_TEST

/* ---- JSON text forms --------------------------------------------------------- */

START_TEST(anthropic_native_format_gets_json_text)
{
    const char *formats[] = {"\"output_config\":{\"format\":{\"type\":\"json_schema\",\"schema\":" SCHEMA "}}",
                             "\"output_format\":{\"type\":\"json_schema\",\"schema\":" SCHEMA "}"};
    const char *why[] = {"output_config.format", "output_format"};
    for (int i = 0; i < 2; i++) {
        char body[2048], run[16];
        snprintf(body, sizeof body, "{\"model\":\"claude-x\",\"max_tokens\":100," USER_MESSAGES ",%s}", formats[i]);
        snprintf(run, sizeof run, "a%d", i);
        reply r = call("ok-message", run, "/v1/messages", body);
        cJSON *json = cJSON_Parse(r.body);
        ck_assert_str_eq(str_at(json, "content.0.type"), "text");
        cJSON *object = cJSON_Parse(str_at(json, "content.0.text"));
        ck_assert_str_eq(str(object, "cause"), "missing symbol");
        ck_assert_str_eq(str_at(json, "stop_reason"), "end_turn");
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(json, "content")), 1);
        cJSON_Delete(object);
        cJSON_Delete(json);
        free(r.body);
        assert_form("ok-message", run, 0, "json_text", why[i], true);
    }
    /* streamed: the JSON travels in text_delta events */
    reply r = call("ok-message", "a9", "/v1/messages",
                   "{\"model\":\"claude-x\",\"max_tokens\":100,\"stream\":true," USER_MESSAGES
                   ",\"output_config\":{\"format\":{\"type\":\"json_schema\",\"schema\":" SCHEMA "}}}");
    ck_assert_ptr_nonnull(strstr(r.body, "\"type\":\"text_delta\""));
    ck_assert_ptr_null(strstr(r.body, "tool_use"));
    ck_assert_ptr_nonnull(strstr(r.body, "\"stop_reason\":\"end_turn\""));
    free(r.body);
}
END_TEST

START_TEST(openai_response_format_gets_json_content)
{
    const char *body = "{\"model\":\"gpt-x\"," USER_MESSAGES ",\"response_format\":{\"type\":\"json_schema\","
                       "\"json_schema\":{\"name\":\"x\",\"strict\":true,\"schema\":" SCHEMA "}}}";
    reply r = call("invalid-then-valid", "o1", "/v1/chat/completions", body);
    cJSON *json = cJSON_Parse(r.body);
    /* the script's invalid object reaches the client as it is: its validation is what is judged */
    ck_assert_str_eq(str_at(json, "choices.0.message.content"), "{\"cause\":1,\"fixes\":[]}");
    ck_assert_ptr_null(at(json, "choices.0.message.tool_calls"));
    ck_assert_str_eq(str_at(json, "choices.0.finish_reason"), "stop");
    cJSON_Delete(json);
    free(r.body);
    assert_form("invalid-then-valid", "o1", 0, "json_text", "response_format", true);
}
END_TEST

/* ---- the Responses API -------------------------------------------------------- */

#define RESPONSES_FORMAT "\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"x\",\"strict\":true,\"schema\":" SCHEMA "}}"

START_TEST(responses_json_text_and_function_call)
{
    reply r = call("ok-message", "j1", "/v1/responses", "{\"model\":\"gpt-x\",\"input\":\"hi\"," RESPONSES_FORMAT "}");
    ck_assert_int_eq(r.status, 200);
    cJSON *json = cJSON_Parse(r.body);
    ck_assert_str_eq(str_at(json, "object"), "response");
    ck_assert_str_eq(str_at(json, "status"), "completed");
    ck_assert_str_eq(str_at(json, "output.0.type"), "message");
    ck_assert_str_eq(str_at(json, "output.0.content.0.type"), "output_text");
    ck_assert_ptr_nonnull(strstr(str_at(json, "output.0.content.0.text"), "\"cause\":\"missing symbol\""));
    ck_assert(cJSON_IsNumber(at(json, "usage.total_tokens")));
    cJSON_Delete(json);
    free(r.body);
    assert_form("ok-message", "j1", 0, "json_text", "text.format", true);

    r = call("ok-message", "j2", "/v1/responses",
             "{\"model\":\"gpt-x\",\"input\":\"hi\",\"tools\":[{\"type\":\"function\",\"name\":\"answer\","
             "\"parameters\":" SCHEMA "}],\"tool_choice\":{\"type\":\"function\",\"name\":\"answer\"}}");
    json = cJSON_Parse(r.body);
    ck_assert_str_eq(str_at(json, "output.0.type"), "function_call");
    ck_assert_str_eq(str_at(json, "output.0.name"), "answer");
    ck_assert_str_eq(str_at(json, "output.0.call_id"), "toolu_1");
    ck_assert_ptr_nonnull(strstr(str_at(json, "output.0.arguments"), "link libm"));
    cJSON_Delete(json);
    free(r.body);
}
END_TEST

START_TEST(responses_event_stream)
{
    reply r = call("ok-message", "e1", "/v1/responses",
                   "{\"model\":\"gpt-x\",\"input\":\"hi\",\"stream\":true," RESPONSES_FORMAT "}");
    ck_assert_int_eq(r.status, 200);
    const char *order[] = {"event: response.created",           "event: response.in_progress",
                           "event: response.output_item.added", "event: response.content_part.added",
                           "event: response.output_text.delta", "event: response.output_text.done",
                           "event: response.content_part.done", "event: response.output_item.done",
                           "event: response.completed"};
    const char *from = r.body;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *found = strstr(from, order[i]);
        ck_assert_msg(found != NULL, "missing or out of order: %s in %s", order[i], r.body);
        from = found + 1;
    }
    ck_assert_ptr_nonnull(strstr(r.body, "\"sequence_number\":8"));
    free(r.body);
}
END_TEST

START_TEST(responses_refusal_and_max_tokens)
{
    reply r = call("openai-refusal", "f1", "/v1/responses", "{\"model\":\"gpt-x\",\"input\":\"hi\"," RESPONSES_FORMAT "}");
    cJSON *json = cJSON_Parse(r.body);
    ck_assert_str_eq(str_at(json, "output.0.content.0.type"), "refusal");
    ck_assert_str_eq(str_at(json, "output.0.content.0.refusal"), "I'm sorry, I cannot help with that.");
    cJSON_Delete(json);
    free(r.body);
    /* a refusal is expressible even when the format is forced */
    assert_form("openai-refusal", "f1", 0, "json_text", "text.format", true);
    r = call("max-tokens", "f2", "/v1/responses", "{\"model\":\"gpt-x\",\"input\":\"hi\"," RESPONSES_FORMAT "}");
    json = cJSON_Parse(r.body);
    ck_assert_str_eq(str_at(json, "status"), "incomplete");
    ck_assert_str_eq(str_at(json, "incomplete_details.reason"), "max_output_tokens");
    ck_assert_str_eq(str_at(json, "output.0.content.0.text"), "{\"cause\": \"missing sym");
    cJSON_Delete(json);
    free(r.body);
    r = call("max-tokens", "f3", "/v1/responses",
             "{\"model\":\"gpt-x\",\"input\":\"hi\",\"stream\":true," RESPONSES_FORMAT "}");
    ck_assert_ptr_nonnull(strstr(r.body, "event: response.incomplete"));
    ck_assert_ptr_null(strstr(r.body, "event: response.completed"));
    free(r.body);
}
END_TEST

START_TEST(responses_tool_outputs_answer_the_call)
{
    const char *first = "{\"model\":\"gpt-x\",\"input\":\"hi\",\"tools\":[{\"type\":\"function\",\"name\":\"answer\","
                        "\"parameters\":" SCHEMA "}]}";
    reply r = call("invalid-then-valid", "t1", "/v1/responses", first);
    free(r.body);
    r = call("invalid-then-valid", "t1", "/v1/responses",
             "{\"model\":\"gpt-x\",\"input\":[{\"role\":\"user\",\"content\":\"hi\"},{\"type\":\"function_call\","
             "\"call_id\":\"toolu_1\",\"name\":\"answer\",\"arguments\":\"{}\"},{\"type\":\"function_call_output\","
             "\"call_id\":\"toolu_1\",\"output\":\"cause: expected string\"}],\"tools\":[{\"type\":\"function\","
             "\"name\":\"answer\",\"parameters\":" SCHEMA "}]}");
    cJSON *json = cJSON_Parse(r.body);
    ck_assert_str_eq(str_at(json, "output.0.call_id"), "toolu_2");
    cJSON_Delete(json);
    free(r.body);
    cJSON *root;
    cJSON *entry = journal_entry("invalid-then-valid", "t1", 1, &root);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(entry, "deviations")), 0);
    cJSON_Delete(root);
    assert_form("invalid-then-valid", "t1", 1, "tool", "only_tool", true);
}
END_TEST

/* ---- faults in every form ------------------------------------------------------- */

START_TEST(turn_faults_apply_in_every_form)
{
    /* fault-cut-event: cut after 2 events, whatever the rendering */
    reply r = call("fault-cut-event", "x1", "/v1/responses",
                   "{\"model\":\"gpt-x\",\"input\":\"hi\",\"stream\":true," RESPONSES_FORMAT "}");
    ck_assert_int_ne(r.code, CURLE_OK);
    ck_assert_ptr_nonnull(strstr(r.body, "event: response.in_progress"));
    ck_assert_ptr_null(strstr(r.body, "response.output_item.added"));
    free(r.body);
    ck_assert(journal_has_fault("fault-cut-event", "x1", 0, "cut"));
    r = call("fault-cut-event", "x2", "/v1/messages",
             "{\"model\":\"c\",\"max_tokens\":9,\"stream\":true," USER_MESSAGES
             ",\"output_format\":{\"type\":\"json_schema\",\"schema\":" SCHEMA "}}");
    ck_assert_int_ne(r.code, CURLE_OK);
    ck_assert_ptr_null(strstr(r.body, "message_stop"));
    free(r.body);
}
END_TEST

START_TEST(scripted_stream_faults_change_form)
{
    /* a stream cut inside a delta: the content goes out, the terminal events never do */
    reply r = call("cut-inside-delta", "y1", "/v1/responses",
                   "{\"model\":\"gpt-x\",\"input\":\"hi\",\"stream\":true," RESPONSES_FORMAT "}");
    ck_assert_int_ne(r.code, CURLE_OK);
    ck_assert_ptr_nonnull(strstr(r.body, "response.output_text.delta"));
    ck_assert_ptr_null(strstr(r.body, "response.completed"));
    free(r.body);
    ck_assert(journal_has_fault("cut-inside-delta", "y1", 0, "cut"));
    /* the same to a JSON client: a body cut short */
    r = call("cut-inside-delta", "y2", "/v1/chat/completions",
             "{\"model\":\"gpt-x\"," USER_MESSAGES ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":"
             "\"extract\",\"parameters\":" SCHEMA "}}]}");
    cJSON *json = cJSON_Parse(r.body);
    ck_assert_ptr_null(json);
    free(r.body);
    /* a forced-tool JSON client: the cut input is no JSON value, but the stream's own fault cuts the body,
     * so the case plays (it is not ruled out as a tool input a JSON body cannot carry) */
    r = call("cut-inside-delta", "y4", "/v1/messages",
             "{\"model\":\"c\",\"max_tokens\":9," USER_MESSAGES ",\"tools\":[{\"name\":\"extract\",\"input_schema\":"
             SCHEMA "}],\"tool_choice\":{\"type\":\"tool\",\"name\":\"extract\"}}");
    ck_assert_ptr_null(cJSON_Parse(r.body));
    free(r.body);
    ck_assert(journal_has_fault("cut-inside-delta", "y4", 0, "cut"));
    assert_form("cut-inside-delta", "y4", 0, "tool", "tool_choice", true);
    /* the journal says the client that did not stream got the cut JSON body; the streaming one did not */
    cJSON *root;
    cJSON *form = cJSON_GetObjectItem(journal_entry("cut-inside-delta", "y4", 0, &root), "answer_form");
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(form, "cut_json_body")));
    cJSON_Delete(root);
    form = cJSON_GetObjectItem(journal_entry("cut-inside-delta", "y1", 0, &root), "answer_form");
    ck_assert_ptr_null(cJSON_GetObjectItem(form, "cut_json_body"));
    cJSON_Delete(root);
    /* a malformed scripted stream: a malformed event in the new rendering */
    r = call("malformed-sse", "y3", "/v1/messages",
             "{\"model\":\"c\",\"max_tokens\":9,\"stream\":true," USER_MESSAGES
             ",\"tools\":[{\"name\":\"extract\",\"input_schema\":" SCHEMA "}],\"tool_choice\":{\"type\":\"tool\","
             "\"name\":\"extract\"}}");
    ck_assert_ptr_nonnull(strstr(r.body, "\"name\":\"extract\""));
    free(r.body);
    ck_assert(journal_has_fault("malformed-sse", "y3", 0, "malformed_sse"));
}
END_TEST

/* A stream scripted in OpenAI Chat's format served to an Anthropic Messages
 * client as scripted (Claude Code's request): a cut stream is its content in
 * the client's API, cut before the terminal events, as any dropped
 * connection; a protocol fault of the OpenAI format (a data line that is not
 * JSON) has no Anthropic bytes: the turn is marked inexpressible with the
 * reason, never served as an empty message cut in half. */
START_TEST(other_api_streams_keep_their_content_or_are_inexpressible)
{
    gt_mock_server *cases = gt_test_mock_start(NULL, "corpus/stream", 100);
    gt_mock_server *saved = server;
    server = cases;
    const char *messages = "{\"model\":\"c\",\"max_tokens\":9,\"stream\":true," USER_MESSAGES
                           ",\"tools\":[{\"name\":\"StructuredOutput\",\"input_schema\":" SCHEMA "}]}";
    reply r = call("stream.truncation.openai-cut-before-done", "x1", "/v1/messages", messages);
    ck_assert_int_ne(r.code, CURLE_OK); /* the connection is cut */
    ck_assert_msg(strstr(r.body, "\"content_block_stop\"") != NULL, "%s", r.body);
    ck_assert_ptr_nonnull(strstr(r.body, "\"name\":\"StructuredOutput\""));
    ck_assert_ptr_null(strstr(r.body, "message_stop"));
    free(r.body);
    ck_assert(journal_has_fault("stream.truncation.openai-cut-before-done", "x1", 0, "cut"));
    cJSON *root;
    cJSON *entry = journal_entry("stream.truncation.openai-cut-before-done", "x1", 0, &root);
    ck_assert(cJSON_IsTrue(at(entry, "answer_form.expressible")));
    cJSON_Delete(root);
    r = call("stream.malformed.bad-json-openai", "x2", "/v1/messages", messages);
    free(r.body);
    entry = journal_entry("stream.malformed.bad-json-openai", "x2", 0, &root);
    ck_assert(cJSON_IsFalse(at(entry, "answer_form.expressible")));
    ck_assert_msg(strstr(str_at(entry, "answer_form.inexpressible"), "openai stream breaks that API's stream "
                                                                      "protocol (sse_bad_json)") != NULL,
                  "%s", str_at(entry, "answer_form.inexpressible"));
    cJSON_Delete(root);
    server = saved;
    gt_mock_stop(cases);
}
END_TEST

/* An OpenAI refusal in JSON-text form is the model's explanation: the
 * script's prose (or the API's own words) in message.refusal, never the
 * answer its call carries; a scripted refusal whose only text is a JSON value
 * (an Anthropic answer) is inexpressible for an OpenAI client. */
START_TEST(openai_refusal_carries_prose_not_the_answer)
{
    gt_mock_server *cases = gt_test_mock_start(NULL, "corpus/loop/provider", 5);
    char err[256];
    ck_assert_int_gt(gt_mock_load_corpus(cases, "corpus/field/stop-reason.cases.json", err, sizeof err), 0);
    gt_mock_server *saved = server;
    server = cases;
    const char *chat = "{\"model\":\"gpt-x\"," USER_MESSAGES ",\"response_format\":{\"type\":\"json_schema\","
                       "\"json_schema\":{\"name\":\"x\",\"strict\":true,\"schema\":" SCHEMA "}}}";
    reply r = call("loop.provider.refusal-message", "r1", "/v1/chat/completions", chat);
    cJSON *json = cJSON_Parse(r.body);
    ck_assert_msg(json != NULL, "%s", r.body);
    const char *refusal = str_at(json, "choices.0.message.refusal");
    ck_assert_msg(refusal != NULL && strchr(refusal, '{') == NULL, "refusal: %s", refusal ? refusal : "(none)");
    ck_assert_str_eq(str_at(json, "choices.0.finish_reason"), "stop");
    cJSON_Delete(json);
    free(r.body);
    cJSON *root;
    cJSON *entry = journal_entry("loop.provider.refusal-message", "r1", 0, &root);
    ck_assert(cJSON_IsTrue(at(entry, "answer_form.refusal_without_answer")));
    ck_assert(cJSON_IsTrue(at(entry, "answer_form.expressible")));
    cJSON_Delete(root);
    r = call("field.anthropic-sdk-python-1850.refusal-text-not-parsed", "r2", "/v1/chat/completions", chat);
    free(r.body);
    entry = journal_entry("field.anthropic-sdk-python-1850.refusal-text-not-parsed", "r2", 0, &root);
    ck_assert(cJSON_IsFalse(at(entry, "answer_form.expressible")));
    ck_assert_ptr_nonnull(strstr(str_at(entry, "answer_form.inexpressible"), "OpenAI's refusal carries the model's"));
    cJSON_Delete(root);
    server = saved;
    gt_mock_stop(cases);
}
END_TEST

START_TEST(fallback_on_the_wire_in_responses)
{
    reply r = call("fallback-retracts", "w1", "/v1/responses",
                   "{\"model\":\"gpt-x\",\"input\":\"hi\",\"stream\":true," RESPONSES_FORMAT "}");
    ck_assert_ptr_nonnull(strstr(r.body, "response.output_item.done"));
    ck_assert_ptr_nonnull(strstr(r.body, "event: error"));
    ck_assert_ptr_null(strstr(r.body, "response.completed"));
    free(r.body);
    ck_assert(journal_has_fault("fallback-retracts", "w1", 0, "fallback"));
    r = call("fallback-retracts", "w2", "/v1/responses", "{\"model\":\"gpt-x\",\"input\":\"hi\"," RESPONSES_FORMAT "}");
    ck_assert_int_eq(r.status, 503);
    cJSON *json = cJSON_Parse(r.body);
    ck_assert_str_eq(str_at(json, "error.type"), "server_error");
    cJSON_Delete(json);
    free(r.body);
}
END_TEST

START_TEST(inexpressible_turns_are_marked)
{
    /* the model answers prose, but the client forced its tool: no provider sends that */
    const char *forced = "{\"model\":\"c\",\"max_tokens\":9," USER_MESSAGES ",\"tools\":[{\"name\":\"extract\","
                         "\"input_schema\":" SCHEMA "}],\"tool_choice\":{\"type\":\"tool\",\"name\":\"extract\"}}";
    reply r = call("cc-never-calls-tool", "i1", "/v1/messages", forced);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "The linker failed."));
    free(r.body);
    assert_form("cc-never-calls-tool", "i1", 0, "tool", "tool_choice", false);
    cJSON *root;
    cJSON *entry = journal_entry("cc-never-calls-tool", "i1", 0, &root);
    ck_assert_ptr_nonnull(strstr(str_at(entry, "answer_form.inexpressible"), "forced"));
    ck_assert(!cJSON_IsTrue(cJSON_GetObjectItem(entry, "side"))); /* the main loop, not a side request */
    cJSON_Delete(root);
    /* the same prose for a client that only offered a tool is a real possibility */
    r = call("cc-never-calls-tool", "i2", "/v1/messages",
             "{\"model\":\"c\",\"max_tokens\":9," USER_MESSAGES ",\"tools\":[{\"name\":\"extract\","
             "\"input_schema\":" SCHEMA "}]}");
    free(r.body);
    assert_form("cc-never-calls-tool", "i2", 0, "tool", "only_tool", true);
}
END_TEST

/* Requests the real API would answer otherwise: a 400 naming a tool field the
 * request did not carry, a pause_turn without a server tool, a complete JSON
 * text marked max_tokens, a tool schema that is not an object. */
START_TEST(mock_answers_only_what_the_api_would)
{
    const char *plain = "{\"model\":\"c\",\"max_tokens\":9," USER_MESSAGES ",\"tools\":[{\"name\":\"extract\","
                        "\"input_schema\":" SCHEMA "}],\"tool_choice\":{\"type\":\"tool\",\"name\":\"extract\"}}";
    /* the scripted 400 names tools.0.strict: inexpressible for a tool without strict, not for one with it */
    reply r = call("capability-400-then-no-strict", "a1", "/v1/messages", plain);
    ck_assert_int_eq(r.status, 400);
    free(r.body);
    cJSON *root;
    cJSON *entry = journal_entry("capability-400-then-no-strict", "a1", 0, &root);
    ck_assert_ptr_nonnull(strstr(str_at(entry, "answer_form.inexpressible"), "tools.0.strict"));
    cJSON_Delete(root);
    r = call("capability-400-then-no-strict", "a2", "/v1/messages",
             "{\"model\":\"c\",\"max_tokens\":9," USER_MESSAGES ",\"tools\":[{\"name\":\"StructuredOutput\","
             "\"strict\":true,\"input_schema\":" SCHEMA "}]}");
    ck_assert_int_eq(r.status, 400);
    free(r.body);
    entry = journal_entry("capability-400-then-no-strict", "a2", 0, &root);
    ck_assert_ptr_null(cJSON_GetObjectItem(entry, "answer_form"));
    cJSON_Delete(root);
    /* pause_turn for a client that offered no server tool */
    r = call("pause-no-server-tool", "p1", "/v1/messages", plain);
    free(r.body);
    entry = journal_entry("pause-no-server-tool", "p1", 0, &root);
    ck_assert_ptr_nonnull(strstr(str_at(entry, "answer_form.inexpressible"), "server tool"));
    cJSON_Delete(root);
    /* whatever the form: a client served as scripted (it offers StructuredOutput), as JSON and as its own
     * stream verbatim; not one that offers a server tool, nor the reference's mirror */
#define AS_SCRIPTED(extra)                                                                                          \
    "{\"model\":\"c\",\"max_tokens\":9" extra "," USER_MESSAGES ",\"tools\":[{\"name\":\"StructuredOutput\","   \
    "\"input_schema\":" SCHEMA "}"
    static const struct {
        const char *scenario, *session, *body;
        bool inexpressible;
    } pauses[] = {
        {"pause-no-server-tool", "p2", AS_SCRIPTED("") "]}", true},
        {"pause-stream-no-server-tool", "p3", AS_SCRIPTED(",\"stream\":true") "]}", true},
        {"pause-stream-no-server-tool", "p4",
         AS_SCRIPTED(",\"stream\":true") ",{\"type\":\"web_search_20250305\",\"name\":\"web_search\"}]}", false},
        {"pause-no-server-tool", "p5", AS_SCRIPTED("") ",{\"type\":\"web_search_20250305\",\"name\":\"web_search\"}]}",
         false},
    };
#undef AS_SCRIPTED
    for (size_t i = 0; i < sizeof pauses / sizeof pauses[0]; i++) {
        r = call(pauses[i].scenario, pauses[i].session, "/v1/messages", pauses[i].body);
        ck_assert_int_eq(r.status, 200);
        free(r.body);
        entry = journal_entry(pauses[i].scenario, pauses[i].session, 0, &root);
        const char *why = str_at(entry, "answer_form.inexpressible");
        ck_assert_msg(pauses[i].inexpressible ? why != NULL && strstr(why, "server tool") != NULL : why == NULL,
                      "%s: %s", pauses[i].session, why ? why : "(expressible)");
        cJSON_Delete(root);
    }
    /* a complete object marked max_tokens, asked for as JSON text: the text is cut */
    r = call("max-tokens-complete", "m1", "/v1/messages",
             "{\"model\":\"c\",\"max_tokens\":9," USER_MESSAGES
             ",\"output_config\":{\"format\":{\"type\":\"json_schema\",\"schema\":" SCHEMA "}}}");
    cJSON *json = cJSON_Parse(r.body);
    const char *text = str_at(json, "content.0.text");
    ck_assert_msg(text != NULL && strncmp(text, "{\"cause\"", 8) == 0 && strchr(text, '}') == NULL, "%s", r.body);
    ck_assert_str_eq(str_at(json, "stop_reason"), "max_tokens");
    cJSON_Delete(json);
    free(r.body);
    /* a scripted stream whose message_start carries the stop_reason, served as one JSON body: kept */
    r = call("stop-reason-in-message-start", "t1", "/v1/messages", plain);
    json = cJSON_Parse(r.body);
    ck_assert_msg(str_at(json, "stop_reason") && strcmp(str_at(json, "stop_reason"), "max_tokens") == 0, "%s", r.body);
    cJSON_Delete(json);
    free(r.body);
    /* tool schemas that are not objects: 400 in each API */
    r = call("max-tokens-complete", "s1", "/v1/messages",
             "{\"model\":\"c\",\"max_tokens\":9," USER_MESSAGES ",\"tools\":[{\"name\":\"x\",\"input_schema\":[]}]}");
    ck_assert_int_eq(r.status, 400);
    ck_assert_ptr_nonnull(strstr(r.body, "tools.0.input_schema: Input should be a valid dictionary"));
    free(r.body);
    r = call("max-tokens-complete", "s2", "/v1/chat/completions",
             "{\"model\":\"g\"," USER_MESSAGES ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"x\","
             "\"parameters\":true}}]}");
    ck_assert_int_eq(r.status, 400);
    ck_assert_ptr_nonnull(strstr(r.body, "tools.0.function.parameters"));
    free(r.body);
}
END_TEST

/* ---- through the http target --------------------------------------------------- */

extern const gt_target_ops gt_target_http_ops;

#define FORM_CLIENT "python3 suite/adapters/form_client.py"

/* Play corpus case `id` through `command`; the check status, the outcome and why. */
static int play_case(const char *command, const char *id, gt_outcome *outcome, char *why, size_t why_len)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_gt(gt_corpus_load(corpus, "corpus/loop"), 0);
    ck_assert_int_gt(gt_corpus_load(corpus, "corpus/stream"), 0);
    const gt_case *kase = NULL;
    for (size_t i = 0; i < gt_corpus_count(corpus); i++)
        if (strcmp(gt_corpus_case(corpus, i)->input.id, id) == 0)
            kase = gt_corpus_case(corpus, i);
    ck_assert_msg(kase != NULL, "no case %s", id);
    void *state;
    char err[512], note[1024] = "";
    ck_assert_msg(gt_target_http_ops.open(command, &state, err, sizeof err) == 0, "%s", err);
    gt_observed observed;
    memset(&observed, 0, sizeof observed);
    int status = gt_target_http_ops.check(state, &kase->input, &observed, note, sizeof note);
    *outcome = status == GT_CHECK_DONE ? gt_compare(&kase->expect, &observed, why, why_len) : GT_OUTCOME_ERROR;
    if (status != GT_CHECK_DONE)
        snprintf(why, why_len, "%s", note);
    gt_observed_clear(&observed);
    gt_target_http_ops.close(state);
    gt_corpus_free(corpus);
    return status;
}

START_TEST(libraries_get_their_form_through_the_http_target)
{
    char why[1024];
    gt_outcome outcome;
    const char *modes[] = {FORM_CLIENT " forced-tool", FORM_CLIENT " responses"};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(play_case(modes[i], "loop.attempts.first-try-valid", &outcome, why, sizeof why), GT_CHECK_DONE);
        ck_assert_msg(outcome == GT_OUTCOME_PASS, "%s: %s", modes[i], why);
        /* a lax library accepts the invalid first object: the suite catches it */
        ck_assert_int_eq(play_case(modes[i], "loop.attempts.five-invalid-default-limit", &outcome, why, sizeof why),
                         GT_CHECK_DONE);
        ck_assert_msg(outcome == GT_OUTCOME_FAIL, "%s: %s", modes[i], why);
        /* a scripted stream whose tool_use start carries the input and no delta follows: the start's
         * input is the call's input in every form (the mock once rendered it empty) */
        ck_assert_int_eq(play_case(modes[i], "stream.strength.tool-start-input-not-empty", &outcome, why, sizeof why),
                         GT_CHECK_DONE);
        ck_assert_msg(outcome == GT_OUTCOME_PASS, "%s: %s", modes[i], why);
        /* a server_tool_use's streamed input is not a call of the client's (it was once mapped to its tool) */
        ck_assert_int_eq(
            play_case(modes[i], "stream.blocks.redacted-thinking-and-server-tools", &outcome, why, sizeof why),
            GT_CHECK_DONE);
        ck_assert_msg(outcome == GT_OUTCOME_PASS, "%s: %s", modes[i], why);
    }
}
END_TEST

START_TEST(inexpressible_cases_are_skipped_with_the_reason)
{
    char why[1024];
    gt_outcome outcome;
    /* the model first answers prose: a client that forces its tool never sees that */
    ck_assert_int_eq(play_case(FORM_CLIENT " forced-tool", "loop.enforce.text-then-enforce-then-valid", &outcome, why,
                               sizeof why),
                     GT_CHECK_SKIPPED);
    ck_assert_msg(strstr(why, "cannot be expressed for this client") != NULL && strstr(why, "tool_choice") != NULL,
                  "%s", why);
}
END_TEST

/* derive turns (docs/mock-server.md "Derived turns") through the http target: computed from the schema the
 * library sends, so a library whose converter drops every enum cannot be served enum-case */
START_TEST(derived_cases_follow_the_librarys_schema)
{
    char why[1024];
    gt_outcome outcome;
    ck_assert_int_eq(play_case(FORM_CLIENT " forced-tool", "loop.derived.valid-first-try", &outcome, why, sizeof why),
                     GT_CHECK_DONE);
    ck_assert_msg(outcome == GT_OUTCOME_PASS, "%s", why);
    /* the lax library takes the placeholder as its answer: the suite catches it */
    ck_assert_int_eq(
        play_case(FORM_CLIENT " forced-tool", "loop.derived.loose-placeholder-then-valid", &outcome, why, sizeof why),
        GT_CHECK_DONE);
    ck_assert_msg(outcome == GT_OUTCOME_FAIL, "%s", why);
    ck_assert_int_eq(play_case(FORM_CLIENT " forced-tool-no-enum", "loop.derived.enum-case-then-valid", &outcome, why,
                               sizeof why),
                     GT_CHECK_SKIPPED);
    ck_assert_msg(strstr(why, "cannot be expressed for this client") && strstr(why, "derive enum-case") &&
                      strstr(why, "no enum"),
                  "%s", why);
}
END_TEST

START_TEST(a_test_binary_is_never_given_as_gauntlet_bin)
{
    /* run.sh wrappers fall back to $GAUNTLET_BIN: were it this test binary,
     * every client would run the whole suite again (a fork bomb) */
    char why[1024];
    gt_outcome outcome;
    const char *client = "[ -n \"$GAUNTLET_BIN\" ] && { echo \"GAUNTLET_BIN=$GAUNTLET_BIN\" >&2; exit 3; }; "
                         "echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,"
                         "\"structured_output\":{}}'";
    ck_assert_msg(play_case(client, "loop.attempts.first-try-valid", &outcome, why, sizeof why) == GT_CHECK_DONE, "%s",
                  why);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("mock_forms");
    TCase *forms = tcase_create("forms");
    tcase_add_checked_fixture(forms, start, stop);
    tcase_set_timeout(forms, 60);
    tcase_add_test(forms, forced_tool_takes_the_call);
    tcase_add_test(forms, mock_answers_only_what_the_api_would);
    tcase_add_test(forms, only_tool_takes_the_call_in_chat_completions);
    tcase_add_test(forms, structured_output_offered_is_left_alone);
    tcase_add_test(forms, anthropic_native_format_gets_json_text);
    tcase_add_test(forms, openai_response_format_gets_json_content);
    suite_add_tcase(suite, forms);
    TCase *responses = tcase_create("responses");
    tcase_add_checked_fixture(responses, start, stop);
    tcase_set_timeout(responses, 60);
    tcase_add_test(responses, responses_json_text_and_function_call);
    tcase_add_test(responses, responses_event_stream);
    tcase_add_test(responses, responses_refusal_and_max_tokens);
    tcase_add_test(responses, responses_tool_outputs_answer_the_call);
    suite_add_tcase(suite, responses);
    TCase *faults = tcase_create("faults");
    tcase_add_checked_fixture(faults, start, stop);
    tcase_set_timeout(faults, 60);
    tcase_add_test(faults, turn_faults_apply_in_every_form);
    tcase_add_test(faults, scripted_stream_faults_change_form);
    tcase_add_test(faults, fallback_on_the_wire_in_responses);
    tcase_add_test(faults, inexpressible_turns_are_marked);
    tcase_add_test(faults, other_api_streams_keep_their_content_or_are_inexpressible);
    tcase_add_test(faults, openai_refusal_carries_prose_not_the_answer);
    suite_add_tcase(suite, faults);
    TCase *http = tcase_create("http target");
    tcase_set_timeout(http, 120);
    tcase_add_test(http, libraries_get_their_form_through_the_http_target);
    tcase_add_test(http, inexpressible_cases_are_skipped_with_the_reason);
    tcase_add_test(http, derived_cases_follow_the_librarys_schema);
    tcase_add_test(http, a_test_binary_is_never_given_as_gauntlet_bin);
    suite_add_tcase(suite, http);
    return suite;
}

GT_TEST_MAIN()
