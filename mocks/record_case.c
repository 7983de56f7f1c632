/* record_case.c — a recorded conversation as a replay script and as a case
 * with the reference's verdict (docs/record.md).
 *
 * The replay script serves the recorded bytes: an SSE answer as a raw `sse`
 * stream turn, a JSON answer as a `message` turn (what the loop reads) whose
 * `faults.body` is the recorded body (what the mock sends), an error as an
 * `error` turn with the recorded body. The case's script is the same
 * conversation in the form the reference loop plays: the answer form the
 * request asked for (a forced or only tool, Anthropic's output format, a
 * response_format) is mapped back to a StructuredOutput call, the inverse of
 * the mock's answer forms (docs/mock-server.md), and the reference loop is
 * run on it in process to get the expectation.
 * Not for: HTTP (record.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gauntlet/client.h"
#include "gauntlet/loop.h"
#include "gauntlet/stream.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/util.h"
#include "record_impl.h"

void rec_exchange_free(rec_exchange *exchange)
{
    if (exchange == NULL)
        return;
    free(exchange->path);
    free(exchange->request);
    free(exchange->answer);
    free(exchange);
}

typedef enum { API_OTHER, API_MESSAGES, API_CHAT, API_RESPONSES } rec_api;

static bool path_ends(const char *path, const char *suffix)
{
    size_t len = strcspn(path, "?"), slen = strlen(suffix);
    return len >= slen && strncmp(path + len - slen, suffix, slen) == 0;
}

static rec_api api_of(const char *path)
{
    return path_ends(path, "/v1/messages")           ? API_MESSAGES
           : path_ends(path, "/v1/chat/completions") ? API_CHAT
           : path_ends(path, "/v1/responses")        ? API_RESPONSES
                                                     : API_OTHER;
}

static bool is_sse(const rec_exchange *x)
{
    return strncasecmp(x->content_type, "text/event-stream", 17) == 0;
}

static const char *str_at(const cJSON *object, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* ---- conversation grouping ---- */

static cJSON *messages_of(const rec_exchange *x)
{
    cJSON *body = cJSON_Parse(x->request);
    cJSON *messages = cJSON_DetachItemFromObjectCaseSensitive(body, api_of(x->path) == API_RESPONSES ? "input"
                                                                                                    : "messages");
    cJSON_Delete(body);
    if (!cJSON_IsArray(messages)) {
        cJSON_Delete(messages);
        return NULL;
    }
    return messages;
}

static void strip_cache_control(cJSON *node)
{
    if (cJSON_IsObject(node))
        cJSON_DeleteItemFromObjectCaseSensitive(node, "cache_control");
    for (cJSON *child = node ? node->child : NULL; child; child = child->next)
        strip_cache_control(child);
}

/* The messages as compared for a continuation: cache_control markers and
 * system messages (Claude Code rewrites its own between requests) left out,
 * a string content as the one text block it stands for. */
static void normalise_messages(cJSON *messages)
{
    strip_cache_control(messages);
    cJSON *m = messages ? messages->child : NULL;
    while (m) {
        cJSON *next = m->next;
        const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
        cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
        if (cJSON_IsString(role) && strcmp(role->valuestring, "system") == 0) {
            cJSON_Delete(cJSON_DetachItemViaPointer(messages, m));
        } else if (cJSON_IsString(content)) {
            cJSON *blocks = cJSON_CreateArray();
            cJSON *block = cJSON_CreateObject();
            cJSON_AddStringToObject(block, "type", "text");
            cJSON_AddStringToObject(block, "text", content->valuestring);
            cJSON_AddItemToArray(blocks, block);
            cJSON_ReplaceItemInObjectCaseSensitive(m, "content", blocks);
        }
        m = next;
    }
}

/* An answer the client cannot use as a reply: the request is sent again. */
static bool unusable(const rec_exchange *x)
{
    if (x->status != 200 || x->cut || x->unreachable)
        return true;
    if (is_sse(x))
        return strstr(x->answer, "message_stop") == NULL && strstr(x->answer, "[DONE]") == NULL &&
               strstr(x->answer, "response.completed") == NULL && strstr(x->answer, "response.incomplete") == NULL;
    return false;
}

/* The next `data:` event of an SSE text at *cursor (before `end`), parsed;
 * NULL when there is none left. Moves *cursor past it. */
static cJSON *next_event(const char **cursor, const char *end)
{
    while (*cursor < end) {
        const char *line = *cursor, *next = memchr(line, '\n', (size_t)(end - line));
        size_t line_len = next ? (size_t)(next - line) : (size_t)(end - line);
        *cursor = next ? next + 1 : end;
        cJSON *event = line_len > 5 && strncmp(line, "data:", 5) == 0 ? cJSON_ParseWithLength(line + 5, line_len - 5)
                                                                      : NULL;
        if (event)
            return event;
    }
    return NULL;
}

/* The id of the response a Responses answer carries (a JSON `response`
 * object's, or the last one a stream's events name) into `out`; false when
 * it has none. */
static bool response_id_of(const rec_exchange *x, char *out, size_t out_len)
{
    out[0] = '\0';
    if (!is_sse(x)) {
        cJSON *body = cJSON_ParseWithLength(x->answer, x->answer_len);
        if (str_at(body, "id"))
            snprintf(out, out_len, "%s", str_at(body, "id"));
        cJSON_Delete(body);
        return out[0] != '\0';
    }
    const char *cursor = x->answer;
    for (cJSON *event; (event = next_event(&cursor, x->answer + x->answer_len)) != NULL; cJSON_Delete(event))
        if (str_at(cJSON_GetObjectItemCaseSensitive(event, "response"), "id"))
            snprintf(out, out_len, "%s", str_at(cJSON_GetObjectItemCaseSensitive(event, "response"), "id"));
    return out[0] != '\0';
}

/* A Responses request that names `previous_response_id` continues `last`
 * when that is the id of `last`'s answer, or when it repeats `last`'s
 * request (the same previous_response_id and input) after an unusable
 * answer: 1 or 0. -1 when `next` names none (compare the inputs instead). */
static int chain_continues(const rec_exchange *last, const rec_exchange *next)
{
    cJSON *now = cJSON_Parse(next->request), *before = cJSON_Parse(last->request);
    const char *previous = str_at(now, "previous_response_id");
    int continues = previous ? 0 : -1;
    char id[256];
    if (previous && !unusable(last))
        continues = response_id_of(last, id, sizeof id) && strcmp(id, previous) == 0;
    else if (previous && str_at(before, "previous_response_id") &&
             strcmp(str_at(before, "previous_response_id"), previous) == 0)
        continues = cJSON_Compare(cJSON_GetObjectItemCaseSensitive(before, "input"),
                                  cJSON_GetObjectItemCaseSensitive(now, "input"), true);
    cJSON_Delete(now);
    cJSON_Delete(before);
    return continues;
}

bool rec_continues(const rec_exchange *last, const rec_exchange *next)
{
    if (strcmp(last->path, next->path) != 0 || api_of(next->path) == API_OTHER)
        return false;
    int chained = api_of(next->path) == API_RESPONSES ? chain_continues(last, next) : -1;
    if (chained >= 0)
        return chained == 1;
    cJSON *before = messages_of(last), *now = messages_of(next);
    bool continues = false;
    if (before && now) {
        normalise_messages(before);
        normalise_messages(now);
        int n_before = cJSON_GetArraySize(before), n_now = cJSON_GetArraySize(now);
        bool prefix = n_now >= n_before;
        for (int i = 0; prefix && i < n_before; i++)
            prefix = cJSON_Compare(cJSON_GetArrayItem(before, i), cJSON_GetArrayItem(now, i), true);
        if (prefix && n_now == n_before)
            continues = unusable(last);
        else if (prefix && !unusable(last)) {
            const cJSON *reply = cJSON_GetArrayItem(now, n_before);
            const char *role = str_at(reply, "role"), *type = str_at(reply, "type");
            continues = (role && strcmp(role, "assistant") == 0) || (type && strcmp(type, "function_call") == 0);
        }
    }
    cJSON_Delete(before);
    cJSON_Delete(now);
    return continues;
}

bool rec_same_request(const rec_exchange *recorded, const char *path, const char *request)
{
    if (strcmp(recorded->path, path) != 0)
        return false;
    cJSON *a = cJSON_Parse(recorded->request), *b = cJSON_Parse(request);
    bool same = a && b ? cJSON_Compare(a, b, true) : !a && !b && strcmp(recorded->request, request) == 0;
    cJSON_Delete(a);
    cJSON_Delete(b);
    return same;
}

static char *read_text(const char *dir, const char *name, const char *suffix, char *err, size_t err_len)
{
    char path[2200];
    size_t len;
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, suffix);
    return gt_read_file(path, &len, err, err_len);
}

/* The answer bytes a replay turn serves: faults.body, stream.sse or error.body. */
static const char *turn_answer(const cJSON *turn)
{
    const char *body = str_at(cJSON_GetObjectItemCaseSensitive(turn, "faults"), "body");
    if (body == NULL)
        body = str_at(cJSON_GetObjectItemCaseSensitive(turn, "stream"), "sse");
    if (body == NULL)
        body = str_at(cJSON_GetObjectItemCaseSensitive(turn, "error"), "body");
    return body;
}

int rec_load_conversation(const char *dir, const char *name, rec_exchange ***out, cJSON **infos, char *err,
                          size_t err_len)
{
    char *index_text = read_text(dir, name, "exchange.txt", err, err_len);
    char *script_text = index_text ? read_text(dir, name, "scenario.json", err, err_len) : NULL;
    cJSON *index = cJSON_Parse(index_text), *script = cJSON_Parse(script_text);
    bool read = index_text && script_text;
    free(index_text);
    free(script_text);
    cJSON *exchanges = cJSON_DetachItemFromObjectCaseSensitive(index, "exchanges");
    const cJSON *turns = cJSON_GetObjectItemCaseSensitive(script, "turns");
    int count = cJSON_GetArraySize(exchanges);
    int result = -1;
    rec_exchange **list = NULL;
    if (script == NULL || index == NULL || !cJSON_IsArray(exchanges) || count != cJSON_GetArraySize(turns)) {
        if (script && index)
            snprintf(err, err_len, "%s/%s: exchange.txt and scenario.json do not list the same exchanges", dir, name);
        else if (read)
            snprintf(err, err_len, "%s/%s: not a recording (not JSON)", dir, name);
        goto done;
    }
    list = calloc((size_t)count + 1, sizeof *list);
    for (int i = 0; list && i < count; i++) {
        const cJSON *info = cJSON_GetArrayItem(exchanges, i);
        const char *answer = turn_answer(cJSON_GetArrayItem(turns, i));
        const char *path = str_at(info, "path"), *request = str_at(info, "request_body");
        rec_exchange *x = calloc(1, sizeof *x);
        if (x == NULL || answer == NULL || path == NULL || request == NULL) {
            snprintf(err, err_len, "%s/%s: exchange %d has no path, request or answer", dir, name, i + 1);
            free(x);
            for (int k = 0; k < i; k++)
                rec_exchange_free(list[k]);
            free(list);
            list = NULL;
            goto done;
        }
        x->path = strdup(path);
        x->request = strdup(request);
        x->answer = strdup(answer);
        x->answer_len = strlen(answer);
        x->status = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(info, "status"));
        snprintf(x->content_type, sizeof x->content_type, "%s", str_at(info, "content_type") ? str_at(info, "content_type") : "");
        snprintf(x->response_headers, sizeof x->response_headers, "%s",
                 str_at(info, "response_headers") ? str_at(info, "response_headers") : "");
        x->cut = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(info, "cut"));
        x->over_limit = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(info, "answer_cut_at_limit"));
        x->unreachable = cJSON_GetObjectItemCaseSensitive(info, "upstream_error") != NULL;
        list[i] = x;
    }
    if (list) {
        *out = list;
        *infos = exchanges;
        exchanges = NULL;
        result = count;
    } else if (err[0] == '\0') {
        snprintf(err, err_len, "out of memory");
    }
done:
    cJSON_Delete(exchanges);
    cJSON_Delete(index);
    cJSON_Delete(script);
    return result;
}

/* ---- answers as script messages ---- */

static void add_usage(cJSON *message, long long input, long long output, long long cache_create, long long cache_read)
{
    cJSON *usage = cJSON_AddObjectToObject(message, "usage");
    cJSON_AddNumberToObject(usage, "input_tokens", (double)(input > 0 ? input : 0));
    cJSON_AddNumberToObject(usage, "output_tokens", (double)(output > 0 ? output : 0));
    cJSON_AddNumberToObject(usage, "cache_creation_input_tokens", (double)(cache_create > 0 ? cache_create : 0));
    cJSON_AddNumberToObject(usage, "cache_read_input_tokens", (double)(cache_read > 0 ? cache_read : 0));
}

static void add_text_block(cJSON *content, const char *text)
{
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "text");
    cJSON_AddStringToObject(block, "text", text);
    cJSON_AddItemToArray(content, block);
}

static void add_tool_block(cJSON *content, const char *id, const char *name, const char *input_text, size_t len)
{
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "tool_use");
    cJSON_AddStringToObject(block, "id", id ? id : "toolu_recorded");
    cJSON_AddStringToObject(block, "name", name ? name : "");
    char *text = strndup(input_text ? input_text : "", input_text ? len : 0);
    cJSON_AddStringToObject(block, "input_text", text ? text : "");
    free(text);
    cJSON_AddItemToArray(content, block);
}

/* An assembled or parsed answer as a script message (docs/loop-scripts.md). */
static cJSON *script_message(const gt_message *m)
{
    cJSON *message = cJSON_CreateObject();
    if (m->id)
        cJSON_AddStringToObject(message, "id", m->id);
    cJSON *blocks = cJSON_AddArrayToObject(message, "content");
    for (size_t i = 0; i < m->block_count; i++) {
        const gt_block *b = &m->blocks[i];
        if (b->type == GT_BLOCK_TEXT || b->type == GT_BLOCK_THINKING) {
            char *text = strndup(b->text ? b->text : "", b->text ? b->text_len : 0);
            if (b->type == GT_BLOCK_TEXT) {
                add_text_block(blocks, text ? text : "");
            } else {
                cJSON *thinking = cJSON_CreateObject();
                cJSON_AddStringToObject(thinking, "type", "thinking");
                cJSON_AddStringToObject(thinking, "thinking", text ? text : "");
                cJSON_AddItemToArray(blocks, thinking);
            }
            free(text);
        } else if (b->type == GT_BLOCK_TOOL_USE) {
            add_tool_block(blocks, b->id, b->name, b->input_text, b->input_len);
        }
    }
    if (m->stop_reason)
        cJSON_AddStringToObject(message, "stop_reason", m->stop_reason);
    add_usage(message, m->usage.input_tokens, m->usage.output_tokens, m->usage.cache_creation_input_tokens,
              m->usage.cache_read_input_tokens);
    return message;
}

/* ---- the Responses API (no reader in the reference client: read here) ---- */

/* A Responses `response` object as a script message: output_text parts as
 * text, refusal parts as text with stop_reason refusal, function_call items
 * as tool_use (`arguments` as input_text, byte for byte), reasoning left
 * out; `incomplete` for max_output_tokens as stop_reason max_tokens (for
 * content_filter as refusal). NULL when it has no `output` array. */
static cJSON *message_from_response(const cJSON *response)
{
    const cJSON *output = cJSON_GetObjectItemCaseSensitive(response, "output");
    if (!cJSON_IsArray(output))
        return NULL;
    cJSON *message = cJSON_CreateObject();
    if (str_at(response, "id"))
        cJSON_AddStringToObject(message, "id", str_at(response, "id"));
    cJSON *blocks = cJSON_AddArrayToObject(message, "content");
    bool refused = false, called = false;
    const cJSON *item;
    cJSON_ArrayForEach(item, output)
    {
        const char *type = str_at(item, "type");
        if (type && strcmp(type, "message") == 0) {
            const cJSON *part;
            cJSON_ArrayForEach(part, cJSON_GetObjectItemCaseSensitive(item, "content"))
            {
                const char *kind = str_at(part, "type");
                if (kind && strcmp(kind, "output_text") == 0 && str_at(part, "text"))
                    add_text_block(blocks, str_at(part, "text"));
                else if (kind && strcmp(kind, "refusal") == 0 && str_at(part, "refusal")) {
                    add_text_block(blocks, str_at(part, "refusal"));
                    refused = true;
                }
            }
        } else if (type && strcmp(type, "function_call") == 0) {
            const char *arguments = str_at(item, "arguments") ? str_at(item, "arguments") : "";
            add_tool_block(blocks, str_at(item, "call_id"), str_at(item, "name"), arguments, strlen(arguments));
            called = true;
        }
    }
    const char *reason = str_at(cJSON_GetObjectItemCaseSensitive(response, "incomplete_details"), "reason");
    bool incomplete = str_at(response, "status") && strcmp(str_at(response, "status"), "incomplete") == 0;
    const char *stop = refused                                                        ? "refusal"
                       : incomplete && reason && strcmp(reason, "content_filter") == 0 ? "refusal"
                       : incomplete                                                    ? "max_tokens"
                       : called                                                        ? "tool_use"
                                                                                       : "end_turn";
    cJSON_AddStringToObject(message, "stop_reason", stop);
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(response, "usage");
    const cJSON *cached = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(usage, "input_tokens_details"), "cached_tokens");
    add_usage(message, (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(usage, "input_tokens")),
              (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(usage, "output_tokens")), 0,
              cJSON_IsNumber(cached) ? (long long)cached->valuedouble : 0);
    return message;
}

/* The response a Responses event stream ends with: the `response` of its
 * last response.completed / response.incomplete event, as a script message;
 * NULL when the stream has none (cut, failed, an error event). */
static cJSON *message_from_response_stream(const char *sse, size_t len)
{
    cJSON *message = NULL;
    const char *cursor = sse;
    for (cJSON *event; (event = next_event(&cursor, sse + len)) != NULL; cJSON_Delete(event)) {
        const char *type = str_at(event, "type");
        if (type && (strcmp(type, "response.completed") == 0 || strcmp(type, "response.incomplete") == 0)) {
            cJSON_Delete(message);
            message = message_from_response(cJSON_GetObjectItemCaseSensitive(event, "response"));
        } else if (type && (strcmp(type, "response.failed") == 0 || strcmp(type, "error") == 0)) {
            cJSON_Delete(message);
            message = NULL;
        }
    }
    return message;
}

/* A JSON answer as the reference client reads it (gt_client_parse_answer);
 * a Responses one by message_from_response. */
static cJSON *message_from_json_answer(const rec_exchange *x)
{
    rec_api api = api_of(x->path);
    if (api == API_RESPONSES) {
        cJSON *body = cJSON_ParseWithLength(x->answer, x->answer_len);
        cJSON *message = message_from_response(body);
        cJSON_Delete(body);
        return message;
    }
    gt_arena *arena = api == API_MESSAGES || api == API_CHAT ? gt_arena_new() : NULL;
    if (arena == NULL)
        return NULL;
    gt_message *m = gt_client_parse_answer(api == API_CHAT ? GT_PROVIDER_OPENAI : GT_PROVIDER_ANTHROPIC, x->answer,
                                           x->answer_len, arena);
    cJSON *message = m ? script_message(m) : NULL;
    gt_arena_free(arena);
    return message;
}

cJSON *rec_stream_message(const char *sse, size_t len, bool openai)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return NULL;
    gt_stream_result result;
    gt_stream_assemble(openai ? GT_PROVIDER_OPENAI : GT_PROVIDER_ANTHROPIC, sse, len, arena, &result);
    cJSON *message = result.message != NULL && !gt_stream_reason_is_transport(result.reason)
                         ? script_message(result.message)
                         : NULL;
    gt_arena_free(arena);
    return message;
}

/* The message a complete stream assembles to (refusal and max_tokens too);
 * NULL for a transport fault or another API. */
static cJSON *message_from_stream(const rec_exchange *x)
{
    rec_api api = api_of(x->path);
    if (api == API_RESPONSES)
        return message_from_response_stream(x->answer, x->answer_len);
    if (api != API_MESSAGES && api != API_CHAT)
        return NULL;
    return rec_stream_message(x->answer, x->answer_len, api == API_CHAT);
}

/* ---- the replay script ---- */

static cJSON *error_turn(const rec_exchange *x)
{
    cJSON *turn = cJSON_CreateObject();
    cJSON *error = cJSON_AddObjectToObject(turn, "error");
    long status = x->status >= 100 && x->status <= 599 ? x->status : 502;
    cJSON_AddNumberToObject(error, "status", (double)status);
    cJSON *body = cJSON_Parse(x->answer);
    const cJSON *inner = cJSON_GetObjectItemCaseSensitive(body, "error");
    if (str_at(inner, "type"))
        cJSON_AddStringToObject(error, "type", str_at(inner, "type"));
    if (str_at(inner, "message"))
        cJSON_AddStringToObject(error, "message", str_at(inner, "message"));
    cJSON_Delete(body);
    cJSON_AddStringToObject(error, "body", x->answer);
    if (x->content_type[0]) {
        cJSON *faults = cJSON_AddObjectToObject(turn, "faults");
        cJSON_AddStringToObject(faults, "content_type", x->content_type);
    }
    return turn;
}

static const char *provider_of(const rec_exchange *x)
{
    return api_of(x->path) == API_CHAT ? "openai" : "anthropic";
}

/* The provider of a case's script: OpenAI for Chat Completions and the
 * Responses API (the replay script keeps provider_of's, as recorded). */
static const char *case_provider(const rec_exchange *x)
{
    return api_of(x->path) == API_RESPONSES ? "openai" : provider_of(x);
}

/* A cut answer ends with an abrupt close after its last recorded byte. */
static void add_cut(cJSON *turn, const rec_exchange *x)
{
    if (!x->cut && !x->over_limit)
        return;
    cJSON *faults = cJSON_GetObjectItemCaseSensitive(turn, "faults");
    if (faults == NULL)
        faults = cJSON_AddObjectToObject(turn, "faults");
    cJSON_AddNumberToObject(faults, "cut_after_bytes", (double)x->answer_len);
    cJSON_AddStringToObject(turn, "note", x->over_limit ? "answer over the recording limit (GT_RECORD_MAX_ANSWER): "
                                                          "recorded up to it, replayed as cut"
                                                        : "the upstream's connection broke mid-answer");
}

/* The recorded retry-after, as the mock's faults.retry_after (seconds). */
static void add_retry_after(cJSON *turn, const rec_exchange *x)
{
    const char *at = strstr(x->response_headers, "retry-after: ");
    if (at == NULL)
        return;
    char *end;
    long seconds = strtol(at + 13, &end, 10);
    if (end == at + 13 || seconds < 0)
        return;
    cJSON *faults = cJSON_GetObjectItemCaseSensitive(turn, "faults");
    if (faults == NULL)
        faults = cJSON_AddObjectToObject(turn, "faults");
    cJSON_AddNumberToObject(faults, "retry_after", (double)seconds);
}

static cJSON *replay_turn(const rec_exchange *x)
{
    cJSON *turn = NULL;
    /* A Responses stream is served raw as the body of an `error` turn with the
     * recorded status 200 and content type: the mock re-renders every stream
     * turn for a Responses client, which would not be the recorded bytes. */
    if (x->status == 200 && is_sse(x) && api_of(x->path) != API_RESPONSES) {
        turn = cJSON_CreateObject();
        cJSON *stream = cJSON_AddObjectToObject(turn, "stream");
        cJSON_AddStringToObject(stream, "provider", provider_of(x));
        cJSON_AddStringToObject(stream, "sse", x->answer);
    } else if (x->status == 200 && !x->cut && !x->over_limit) {
        cJSON *message = message_from_json_answer(x);
        if (message) {
            turn = cJSON_CreateObject();
            cJSON_AddItemToObject(turn, "message", message);
            cJSON *faults = cJSON_AddObjectToObject(turn, "faults");
            cJSON_AddStringToObject(faults, "body", x->answer);
            if (x->content_type[0])
                cJSON_AddStringToObject(faults, "content_type", x->content_type);
        }
    }
    if (turn == NULL)
        turn = error_turn(x);
    add_cut(turn, x);
    add_retry_after(turn, x);
    return turn;
}

cJSON *rec_replay_script(rec_exchange *const *exchanges, size_t count)
{
    cJSON *script = cJSON_CreateObject();
    if (count > 0 && api_of(exchanges[0]->path) != API_OTHER && api_of(exchanges[0]->path) != API_RESPONSES)
        cJSON_AddStringToObject(script, "provider", provider_of(exchanges[0]));
    cJSON *turns = cJSON_AddArrayToObject(script, "turns");
    for (size_t i = 0; i < count; i++)
        cJSON_AddItemToArray(turns, replay_turn(exchanges[i]));
    return script;
}

/* ---- the answer form the request asked for ---- */

typedef struct {
    const char *name;      /* structured_output_tool, tool_choice, only_tool, output_config.format, ... */
    const char *tool;      /* the tool renamed to StructuredOutput (tool forms) */
    bool json_text;        /* the answer is JSON text to read as the call's input */
    bool forced;           /* the request forced the call */
    const cJSON *schema;   /* borrowed from the request; NULL: no structured output asked for */
} rec_form;

static const cJSON *tool_schema(const cJSON *tool, rec_api api)
{
    if (api == API_CHAT)
        return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tool, "function"), "parameters");
    return cJSON_GetObjectItemCaseSensitive(tool, api == API_RESPONSES ? "parameters" : "input_schema");
}

static const char *tool_name(const cJSON *tool, rec_api api)
{
    return api == API_CHAT ? str_at(cJSON_GetObjectItemCaseSensitive(tool, "function"), "name") : str_at(tool, "name");
}

static const cJSON *find_tool(const cJSON *tools, const char *name, rec_api api)
{
    const cJSON *tool;
    cJSON_ArrayForEach(tool, tools)
    {
        const char *n = tool_name(tool, api);
        if (n && name && strcmp(n, name) == 0)
            return tool;
    }
    return NULL;
}

static rec_form form_of(const cJSON *request, rec_api api, cJSON *scratch)
{
    rec_form form = {0};
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(request, "tools");
    const cJSON *so = find_tool(tools, "StructuredOutput", api);
    if (so) {
        form.name = "structured_output_tool";
        form.schema = tool_schema(so, api);
        return form;
    }
    const cJSON *choice = cJSON_GetObjectItemCaseSensitive(request, "tool_choice");
    const char *forced = NULL;
    if (api == API_MESSAGES && str_at(choice, "type") && strcmp(str_at(choice, "type"), "tool") == 0)
        forced = str_at(choice, "name");
    if (api == API_CHAT && str_at(choice, "type") && strcmp(str_at(choice, "type"), "function") == 0)
        forced = str_at(cJSON_GetObjectItemCaseSensitive(choice, "function"), "name");
    if (api == API_RESPONSES && str_at(choice, "type") && strcmp(str_at(choice, "type"), "function") == 0)
        forced = str_at(choice, "name");
    if (forced && find_tool(tools, forced, api)) {
        form.name = "tool_choice";
        form.tool = forced;
        form.forced = true;
        form.schema = tool_schema(find_tool(tools, forced, api), api);
        return form;
    }
    if (api == API_MESSAGES) {
        static const char *const places[] = {"output_config", "output_format"};
        for (int i = 0; i < 2; i++) {
            const cJSON *format = cJSON_GetObjectItemCaseSensitive(request, places[i]);
            if (i == 0)
                format = cJSON_GetObjectItemCaseSensitive(format, "format");
            const cJSON *schema = cJSON_GetObjectItemCaseSensitive(format, "schema");
            if (str_at(format, "type") && strcmp(str_at(format, "type"), "json_schema") == 0 && schema) {
                form.name = i == 0 ? "output_config.format" : "output_format";
                form.json_text = true;
                form.schema = schema;
                return form;
            }
        }
    } else {
        /* Chat Completions response_format {json_schema: {schema}}; Responses text.format {schema} */
        bool responses = api == API_RESPONSES;
        const cJSON *format = responses ? cJSON_GetObjectItemCaseSensitive(
                                              cJSON_GetObjectItemCaseSensitive(request, "text"), "format")
                                        : cJSON_GetObjectItemCaseSensitive(request, "response_format");
        const char *type = str_at(format, "type");
        const char *place = responses ? "text.format" : "response_format";
        if (type && strcmp(type, "json_schema") == 0) {
            form.name = place;
            form.json_text = true;
            form.schema = responses ? cJSON_GetObjectItemCaseSensitive(format, "schema")
                                    : cJSON_GetObjectItemCaseSensitive(
                                          cJSON_GetObjectItemCaseSensitive(format, "json_schema"), "schema");
            return form;
        }
        if (type && strcmp(type, "json_object") == 0) {
            form.name = place;
            form.json_text = true;
            cJSON *any_object = cJSON_Parse("{\"type\":\"object\"}");
            cJSON_AddItemToArray(scratch, any_object);
            form.schema = any_object;
            return form;
        }
    }
    if (cJSON_GetArraySize(tools) == 1 && tool_name(cJSON_GetArrayItem(tools, 0), api)) {
        form.name = "only_tool";
        form.tool = tool_name(cJSON_GetArrayItem(tools, 0), api);
        form.schema = tool_schema(cJSON_GetArrayItem(tools, 0), api);
    }
    return form;
}

/* Map a script message in the request's form back to a StructuredOutput call. */
static void map_message(cJSON *message, const rec_form *form, size_t turn)
{
    cJSON *content = cJSON_GetObjectItemCaseSensitive(message, "content");
    const char *stop = str_at(message, "stop_reason");
    if (form->tool) {
        cJSON *block;
        cJSON_ArrayForEach(block, content)
        {
            const char *name = str_at(block, "name");
            if (name && strcmp(name, form->tool) == 0)
                cJSON_ReplaceItemInObjectCaseSensitive(block, "name", cJSON_CreateString("StructuredOutput"));
        }
    }
    if (!form->json_text || (stop && (strcmp(stop, "refusal") == 0 || strcmp(stop, "max_tokens") == 0)))
        return;
    char *text = NULL;
    size_t len = 0;
    cJSON *block;
    cJSON_ArrayForEach(block, content)
    {
        const char *type = str_at(block, "type");
        if (type && strcmp(type, "tool_use") == 0) {
            free(text);
            return; /* a JSON-mode answer with a tool call: as it is */
        }
        const char *piece = type && strcmp(type, "text") == 0 ? str_at(block, "text") : NULL;
        if (piece) {
            char *grown = realloc(text, len + strlen(piece) + 1);
            if (grown == NULL)
                break;
            text = grown;
            memcpy(text + len, piece, strlen(piece) + 1);
            len += strlen(piece);
        }
    }
    if (text && len > 0) {
        cJSON *call = cJSON_CreateArray();
        char id[64];
        snprintf(id, sizeof id, "toolu_recorded_%zu", turn);
        add_tool_block(call, id, "StructuredOutput", text, len);
        cJSON_ReplaceItemInObjectCaseSensitive(message, "content", call);
        cJSON_DeleteItemFromObjectCaseSensitive(message, "stop_reason");
        cJSON_AddStringToObject(message, "stop_reason", "tool_use");
    }
    free(text);
}

/* ---- tool results the client sent, for the script's other tools ---- */

static void flatten_text(const cJSON *content, char *out, size_t out_len)
{
    out[0] = '\0';
    if (cJSON_IsString(content)) {
        snprintf(out, out_len, "%s", content->valuestring);
        return;
    }
    const cJSON *part;
    size_t used = 0;
    cJSON_ArrayForEach(part, content)
    {
        const char *text = str_at(part, "text");
        if (text && used < out_len)
            used += (size_t)snprintf(out + used, out_len - used, "%s", text);
    }
}

/* Give a non-StructuredOutput tool_use block of the case script the result
 * the client sent for it in a later request of the conversation. */
static void attach_results(cJSON *message, rec_exchange *const *exchanges, size_t count)
{
    cJSON *block;
    cJSON_ArrayForEach(block, cJSON_GetObjectItemCaseSensitive(message, "content"))
    {
        const char *id = str_at(block, "id"), *name = str_at(block, "name");
        if (id == NULL || name == NULL || strcmp(name, "StructuredOutput") == 0)
            continue;
        for (size_t i = 0; i < count; i++) {
            cJSON *messages = messages_of(exchanges[i]);
            const cJSON *m, *found = NULL;
            bool is_error = false;
            cJSON_ArrayForEach(m, messages)
            {
                if (str_at(m, "tool_call_id") && strcmp(str_at(m, "tool_call_id"), id) == 0)
                    found = cJSON_GetObjectItemCaseSensitive(m, "content");
                if (str_at(m, "call_id") && strcmp(str_at(m, "call_id"), id) == 0 && str_at(m, "output"))
                    found = cJSON_GetObjectItemCaseSensitive(m, "output"); /* Responses function_call_output */
                const cJSON *part, *parts = cJSON_GetObjectItemCaseSensitive(m, "content");
                if (!cJSON_IsArray(parts))
                    continue;
                cJSON_ArrayForEach(part, parts)
                {
                    if (str_at(part, "tool_use_id") && strcmp(str_at(part, "tool_use_id"), id) == 0) {
                        found = cJSON_GetObjectItemCaseSensitive(part, "content");
                        is_error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(part, "is_error"));
                    }
                }
            }
            if (found) {
                char text[8192];
                flatten_text(found, text, sizeof text);
                cJSON_AddStringToObject(block, "result", text);
                if (is_error)
                    cJSON_AddTrueToObject(block, "is_error");
                cJSON_Delete(messages);
                break;
            }
            cJSON_Delete(messages);
        }
    }
}

static cJSON *case_turn(rec_exchange *const *exchanges, size_t count, size_t index, const rec_form *form)
{
    const rec_exchange *x = exchanges[index];
    if (x->status != 200 || x->unreachable) {
        cJSON *turn = error_turn(x);
        cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(turn, "error"), "body");
        cJSON_DeleteItemFromObjectCaseSensitive(turn, "faults");
        return turn;
    }
    cJSON *turn = cJSON_CreateObject();
    bool mapped = form->tool || form->json_text;
    bool responses = api_of(x->path) == API_RESPONSES; /* no Responses grammar in the loop: read it here */
    if (is_sse(x) && !mapped && !responses) { /* the recorded bytes, judged as they are (a cut stream too) */
        cJSON *stream = cJSON_AddObjectToObject(turn, "stream");
        cJSON_AddStringToObject(stream, "provider", provider_of(x));
        cJSON_AddStringToObject(stream, "sse", x->answer);
        return turn;
    }
    cJSON *message = x->cut || x->over_limit ? NULL : is_sse(x) ? message_from_stream(x) : message_from_json_answer(x);
    if (message == NULL) { /* a cut or malformed answer: a stream that never finishes, a transport fault */
        cJSON *stream = cJSON_AddObjectToObject(turn, "stream");
        cJSON_AddStringToObject(stream, "provider", case_provider(x));
        cJSON_AddStringToObject(stream, "sse", is_sse(x) && !responses ? x->answer : "");
        return turn;
    }
    map_message(message, form, index);
    attach_results(message, exchanges, count);
    if (is_sse(x)) {
        cJSON *stream = cJSON_AddObjectToObject(turn, "stream");
        cJSON_AddStringToObject(stream, "provider", case_provider(x));
        cJSON_AddItemToObject(stream, "from_message", message);
    } else {
        cJSON_AddItemToObject(turn, "message", message);
    }
    return turn;
}

/* ---- the first request's history and prompt ---- */

/* Append `block` to the history's last message when it has `role`, else to
 * a new message of that role (consecutive tool results become one user
 * message, as the loop's graph has them). Takes `block`. */
static void history_push(cJSON *history, const char *role, cJSON *block)
{
    cJSON *last = cJSON_GetArrayItem(history, cJSON_GetArraySize(history) - 1);
    if (last == NULL || strcmp(str_at(last, "role"), role) != 0) {
        last = cJSON_CreateObject();
        cJSON_AddStringToObject(last, "role", role);
        cJSON_AddArrayToObject(last, "content");
        cJSON_AddItemToArray(history, last);
    }
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(last, "content"), block);
}

static cJSON *history_text(const char *type, const char *field, const char *text)
{
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", type);
    cJSON_AddStringToObject(block, field, text);
    return block;
}

/* A tool call of the history; the request form's tool is StructuredOutput
 * there too. `input` (a value) or `input_text` (raw arguments). */
static cJSON *history_call(const char *id, const char *name, const cJSON *input, const char *input_text,
                           const rec_form *form)
{
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "tool_use");
    cJSON_AddStringToObject(block, "id", id ? id : "toolu_history");
    bool output_tool = form->tool && name && strcmp(name, form->tool) == 0;
    cJSON_AddStringToObject(block, "name", output_tool ? "StructuredOutput" : name ? name : "");
    if (input)
        cJSON_AddItemToObject(block, "input", cJSON_Duplicate(input, true));
    else
        cJSON_AddStringToObject(block, "input_text", input_text ? input_text : "");
    return block;
}

static cJSON *history_result(const char *id, const cJSON *content, bool is_error)
{
    char text[8192];
    flatten_text(content, text, sizeof text);
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "tool_result");
    cJSON_AddStringToObject(block, "tool_use_id", id ? id : "");
    cJSON_AddStringToObject(block, "content", text);
    if (is_error)
        cJSON_AddTrueToObject(block, "is_error");
    return block;
}

/* A request message on the user's side: a user message, a Chat Completions
 * `tool` message, a Responses function_call_output item. */
static bool user_side(const cJSON *m)
{
    const char *role = str_at(m, "role"), *type = str_at(m, "type");
    return (role && (strcmp(role, "user") == 0 || strcmp(role, "tool") == 0)) ||
           (type && strcmp(type, "function_call_output") == 0);
}

/* One request message (any of the three APIs) into the script's history
 * (docs/loop-scripts.md, Messages and content blocks); text goes to `prompt`
 * instead when `prompt` is not NULL (the query's own message). System and
 * developer messages, images and server tools are left out. */
static void history_add(cJSON *history, const cJSON *m, const rec_form *form, char *prompt, size_t prompt_len)
{
    const char *role = str_at(m, "role"), *type = str_at(m, "type");
    if (type && strcmp(type, "function_call") == 0) {
        history_push(history, "assistant",
                     history_call(str_at(m, "call_id"), str_at(m, "name"), NULL, str_at(m, "arguments"), form));
        return;
    }
    if (type && strcmp(type, "function_call_output") == 0) {
        history_push(history, "user", history_result(str_at(m, "call_id"), cJSON_GetObjectItemCaseSensitive(m, "output"), false));
        return;
    }
    if (role && strcmp(role, "tool") == 0) {
        history_push(history, "user",
                     history_result(str_at(m, "tool_call_id"), cJSON_GetObjectItemCaseSensitive(m, "content"), false));
        return;
    }
    if (role == NULL || (strcmp(role, "user") != 0 && strcmp(role, "assistant") != 0))
        return;
    bool assistant = strcmp(role, "assistant") == 0;
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
    size_t used = prompt ? strlen(prompt) : 0;
    if (cJSON_IsString(content) && content->valuestring[0]) {
        if (prompt)
            snprintf(prompt + used, prompt_len - used, "%s", content->valuestring);
        else
            history_push(history, role, history_text("text", "text", content->valuestring));
    }
    const cJSON *part;
    cJSON_ArrayForEach(part, (cJSON_IsArray(content) ? content : NULL))
    {
        const char *kind = str_at(part, "type");
        const char *text = str_at(part, "text");
        if (kind == NULL)
            continue;
        if (text && text[0] && (!strcmp(kind, "text") || !strcmp(kind, "input_text") || !strcmp(kind, "output_text"))) {
            if (prompt && !assistant) {
                used = strlen(prompt);
                snprintf(prompt + used, prompt_len - used, "%s", text);
            } else {
                history_push(history, role, history_text("text", "text", text));
            }
        } else if (assistant && strcmp(kind, "thinking") == 0 && str_at(part, "thinking")) {
            history_push(history, role, history_text("thinking", "thinking", str_at(part, "thinking")));
        } else if (assistant && strcmp(kind, "tool_use") == 0) {
            history_push(history, role,
                         history_call(str_at(part, "id"), str_at(part, "name"),
                                      cJSON_GetObjectItemCaseSensitive(part, "input"), "{}", form));
        } else if (!assistant && strcmp(kind, "tool_result") == 0) {
            history_push(history, role,
                         history_result(str_at(part, "tool_use_id"), cJSON_GetObjectItemCaseSensitive(part, "content"),
                                        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(part, "is_error"))));
        }
    }
    const cJSON *call; /* Chat Completions assistant tool_calls */
    cJSON_ArrayForEach(call, (assistant ? cJSON_GetObjectItemCaseSensitive(m, "tool_calls") : NULL))
    {
        const cJSON *function = cJSON_GetObjectItemCaseSensitive(call, "function");
        history_push(history, role,
                     history_call(str_at(call, "id"), str_at(function, "name"), NULL, str_at(function, "arguments"), form));
    }
}

/* The first request's conversation: every message before its last user-side
 * one becomes the script's `history` (an assistant tool call and its tool
 * result the client sent before the recording began, earlier turns), and
 * that last message's text the `prompt` (its tool results join the
 * history). When it carries no text (the request resumes after a tool
 * result), the loop's default prompt stands for the query. */
static void add_history_and_prompt(cJSON *script, const cJSON *request, rec_api api, const rec_form *form)
{
    const cJSON *messages = cJSON_GetObjectItemCaseSensitive(request, api == API_RESPONSES ? "input" : "messages");
    char prompt[16384] = "";
    if (cJSON_IsString(messages)) { /* Responses: the input as one string */
        cJSON_AddStringToObject(script, "prompt", messages->valuestring);
        return;
    }
    const cJSON *m, *last = NULL;
    cJSON_ArrayForEach(m, messages)
    {
        if (user_side(m))
            last = m;
    }
    cJSON *history = cJSON_CreateArray();
    cJSON_ArrayForEach(m, messages)
    {
        history_add(history, m, form, m == last ? prompt : NULL, sizeof prompt);
        if (m == last)
            break;
    }
    if (prompt[0])
        cJSON_AddStringToObject(script, "prompt", prompt);
    if (cJSON_GetArraySize(history) > 0)
        cJSON_AddItemToObject(script, "history", history);
    else
        cJSON_Delete(history);
}

/* Add the reference loop's verdict on `script` (under `schema`) to `kase`
 * as its "expect"; false with `why` filled when the loop refuses it. */
static bool rec_expect(cJSON *kase, const cJSON *script, const cJSON *schema, char *why, size_t why_len)
{
    char *script_text = cJSON_PrintUnformatted(script), *schema_text = cJSON_PrintUnformatted(schema);
    char *expect_text = script_text && schema_text ? gt_corpus_loop_expect(script_text, schema_text, why, why_len)
                                                   : NULL;
    cJSON *expect = cJSON_Parse(expect_text);
    if (expect == NULL && script_text && schema_text && expect_text)
        snprintf(why, why_len, "out of memory");
    free(script_text);
    free(schema_text);
    free(expect_text);
    if (expect)
        cJSON_AddItemToObject(kase, "expect", expect);
    return expect != NULL;
}

cJSON *rec_case_file(rec_exchange *const *exchanges, size_t count, const char *recording, const char *scenario,
                     char *why, size_t why_len)
{
    rec_api api = count ? api_of(exchanges[0]->path) : API_OTHER;
    if (api == API_OTHER) {
        snprintf(why, why_len, "no case: not an Anthropic Messages, OpenAI Chat Completions or Responses path: %s",
                 count ? exchanges[0]->path : "nothing");
        return NULL;
    }
    cJSON *request = cJSON_Parse(exchanges[0]->request);
    cJSON *scratch = cJSON_CreateArray();
    rec_form form = form_of(request, api, scratch);
    if (form.schema == NULL) {
        snprintf(why, why_len, "no case: the request asks for no structured output (no StructuredOutput tool, "
                               "forced or only tool, output format or response_format)");
        cJSON_Delete(request);
        cJSON_Delete(scratch);
        return NULL;
    }
    cJSON *file = cJSON_CreateObject();
    cJSON_AddStringToObject(file, "format", "gauntlet-corpus/1");
    cJSON_AddStringToObject(file, "description", "recorded by gauntlet record (docs/record.md)");
    cJSON *cases = cJSON_AddArrayToObject(file, "cases");
    cJSON *kase = cJSON_CreateObject();
    cJSON_AddItemToArray(cases, kase);
    char id[128], text[512];
    snprintf(id, sizeof id, "recorded.%s", scenario);
    cJSON_AddStringToObject(kase, "id", id);
    cJSON_AddStringToObject(kase, "gate", "loop");
    cJSON_AddStringToObject(kase, "category", "recorded");
    cJSON *tags = cJSON_AddArrayToObject(kase, "tags");
    cJSON_AddItemToArray(tags, cJSON_CreateString("recorded"));
    cJSON_AddStringToObject(kase, "tier", "optional");
    bool stream = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(request, "stream"));
    snprintf(text, sizeof text, "recorded %s, %zu exchange%s, %s, answer form %s%s%s", exchanges[0]->path, count,
             count == 1 ? "" : "s", stream ? "streamed" : "JSON", form.name, form.tool ? " " : "",
             form.tool ? form.tool : "");
    cJSON_AddStringToObject(kase, "description", text);
    cJSON_AddItemToObject(kase, "schema", cJSON_Duplicate(form.schema, true));
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(request, "tools");
    if (tools)
        cJSON_AddItemToObject(kase, "tools", cJSON_Duplicate(tools, true));
    cJSON *recorded = cJSON_AddObjectToObject(kase, "recorded");
    cJSON_AddStringToObject(recorded, "recording", recording);
    cJSON_AddStringToObject(recorded, "scenario", scenario);
    cJSON_AddStringToObject(recorded, "provider", case_provider(exchanges[0]));
    cJSON_AddStringToObject(recorded, "api", api == API_MESSAGES ? "messages"
                                             : api == API_CHAT   ? "chat_completions"
                                                                 : "responses");
    cJSON_AddStringToObject(recorded, "answer_form", form.name);
    if (form.tool)
        cJSON_AddStringToObject(recorded, "tool", form.tool);
    cJSON_AddBoolToObject(recorded, "stream", stream);
    cJSON_AddNumberToObject(recorded, "exchanges", (double)count);
    cJSON *script = cJSON_CreateObject();
    cJSON_AddStringToObject(script, "provider", case_provider(exchanges[0]));
    add_history_and_prompt(script, request, api, &form);
    if (form.forced) {
        cJSON *choice = cJSON_AddObjectToObject(script, "tool_choice");
        cJSON_AddStringToObject(choice, "type", "tool");
        cJSON_AddStringToObject(choice, "name", "StructuredOutput");
    }
    cJSON *turns = cJSON_AddArrayToObject(script, "turns");
    for (size_t i = 0; i < count; i++)
        cJSON_AddItemToArray(turns, case_turn(exchanges, count, i, &form));
    cJSON_AddItemToObject(kase, "script", script);
    bool ok = rec_expect(kase, script, form.schema, why, why_len);
    cJSON_Delete(request);
    cJSON_Delete(scratch);
    if (!ok) {
        cJSON_Delete(file);
        return NULL;
    }
    return file;
}
