/* client.c — the reference HTTP model (client.h): gt_loop_model over libcurl.
 *
 * One curl easy handle per client, reused so connections stay alive. A
 * request body is built from the loop's live graph; the response is handed
 * back as the wire gave it: SSE bytes untouched (a cut stays a cut: the
 * stream layer, not this file, decides what a truncated stream means), JSON
 * messages with each tool input's raw text (the exact bytes of the `input`
 * value, or the mock's lossless `gauntlet_raw_input`), errors with status,
 * type and message. The loop retries at once; this file makes the retry wait
 * (retry-after / retry-after-ms, else exponential backoff). Not for: loop
 * decisions (loop.c), assembling streams (stream.c). */
#include "gauntlet/client.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "gauntlet/parse.h"

#define STRUCTURED_OUTPUT_DESCRIPTION                                                                          \
    "Use this tool to return your final response in the requested structured format. You MUST call this tool " \
    "exactly once at the end of your response to provide the structured output."

/* Append a string literal (its length counted by the compiler). */
#define APPEND(buffer, literal) gt_buffer_append((buffer), (literal), sizeof(literal) - 1)

struct gt_client {
    gt_client_options options;
    char *base_url;   /* owned copy, no trailing slash */
    char *model;
    char *api_key;
    char *system;
    CURL *curl;
    gt_client_stats stats;
    long long not_before_ms; /* monotonic: the next request waits until then */
    int consecutive_errors;
};

/* ---- small helpers -------------------------------------------------------- */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long long ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static char *copy_str(const char *text)
{
    if (text == NULL)
        return NULL;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (copy)
        memcpy(copy, text, len + 1);
    return copy;
}

static void json_string(gt_buffer *out, const char *text, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    APPEND(out, "\"");
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        gt_buffer_append(out, text + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': APPEND(out, "\\\""); break;
        case '\\': APPEND(out, "\\\\"); break;
        case '\n': APPEND(out, "\\n"); break;
        case '\r': APPEND(out, "\\r"); break;
        case '\t': APPEND(out, "\\t"); break;
        default: {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            gt_buffer_append(out, esc, 6);
        }
        }
    }
    gt_buffer_append(out, text + run, len - run);
    APPEND(out, "\"");
}

static void json_cstr(gt_buffer *out, const char *text)
{
    if (text == NULL)
        APPEND(out, "null");
    else
        json_string(out, text, strlen(text));
}

/* True when `len` bytes are exactly one JSON object a provider would accept. */
static bool is_json_object(const char *text, size_t len)
{
    if (text == NULL)
        return false;
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return false;
    gt_parse_error error;
    gt_value *value = gt_parse(arena, text, len, NULL, &error);
    bool ok = value != NULL && value->type == GT_OBJECT;
    gt_arena_free(arena);
    return ok;
}

/* ---- request bodies -------------------------------------------------------- */

static const char *block_text(const gt_block *block, size_t *len)
{
    *len = block->text ? block->text_len : 0;
    return block->text ? block->text : "";
}

static void anthropic_content(gt_buffer *out, const gt_loop_entry *entry)
{
    APPEND(out, "[");
    size_t written = 0;
    for (size_t i = 0; i < entry->block_count; i++) {
        const gt_block *block = &entry->blocks[i];
        size_t len;
        const char *text;
        switch (block->type) {
        case GT_BLOCK_TEXT:
            text = block_text(block, &len);
            if (len == 0)
                continue;
            gt_buffer_appendf(out, "%s{\"type\":\"text\",\"text\":", written++ ? "," : "");
            json_string(out, text, len);
            APPEND(out, "}");
            break;
        case GT_BLOCK_TOOL_USE:
            gt_buffer_appendf(out, "%s{\"type\":\"tool_use\",\"id\":", written++ ? "," : "");
            json_cstr(out, block->id ? block->id : "toolu_unknown");
            APPEND(out, ",\"name\":");
            json_cstr(out, block->name ? block->name : GT_LOOP_TOOL_NAME);
            APPEND(out, ",\"input\":");
            if (is_json_object(block->input_text, block->input_len))
                gt_buffer_append(out, block->input_text, block->input_len);
            else
                APPEND(out, "{}");
            APPEND(out, "}");
            break;
        case GT_BLOCK_TOOL_RESULT:
            text = block_text(block, &len);
            gt_buffer_appendf(out, "%s{\"type\":\"tool_result\",\"tool_use_id\":", written++ ? "," : "");
            json_cstr(out, block->id ? block->id : "toolu_unknown");
            APPEND(out, ",\"content\":");
            json_string(out, text, len);
            if (block->is_error)
                APPEND(out, ",\"is_error\":true");
            APPEND(out, "}");
            break;
        case GT_BLOCK_THINKING:
            continue; /* thinking needs the provider's signature; the loop never parses it */
        }
    }
    if (written == 0)
        APPEND(out, "{\"type\":\"text\",\"text\":\"(no content)\"}");
    APPEND(out, "]");
}

static void schema_or_object(gt_buffer *out, const char *schema)
{
    if (schema && is_json_object(schema, strlen(schema)))
        gt_buffer_append(out, schema, strlen(schema));
    else
        APPEND(out, "{\"type\":\"object\"}");
}

static void anthropic_body(const gt_client *client, const gt_loop_request *request, gt_buffer *out)
{
    APPEND(out, "{\"model\":");
    json_cstr(out, client->model);
    gt_buffer_appendf(out, ",\"max_tokens\":%ld,\"stream\":%s", client->options.max_tokens,
                      client->options.stream ? "true" : "false");
    if (client->system) {
        APPEND(out, ",\"system\":");
        json_cstr(out, client->system);
    }
    APPEND(out, ",\"messages\":[");
    size_t written = 0;
    for (size_t i = 0; i < request->message_count; i++) {
        const gt_loop_entry *entry = &request->messages[i];
        if (entry->tombstoned)
            continue;
        gt_buffer_appendf(out, "%s{\"role\":\"%s\",\"content\":", written++ ? "," : "",
                          entry->role == GT_LOOP_USER ? "user" : "assistant");
        anthropic_content(out, entry);
        APPEND(out, "}");
    }
    APPEND(out, "]");
    if (request->structured_output_tool) {
        APPEND(out, ",\"tools\":[{\"name\":\"" GT_LOOP_TOOL_NAME "\",\"description\":");
        json_cstr(out, STRUCTURED_OUTPUT_DESCRIPTION);
        APPEND(out, ",\"input_schema\":");
        schema_or_object(out, request->tool_schema_json);
        if (request->strict)
            APPEND(out, ",\"strict\":true");
        APPEND(out, "}");
        if (request->server_tools_json) {
            APPEND(out, ",");
            gt_buffer_append(out, request->server_tools_json, strlen(request->server_tools_json));
        }
        APPEND(out, "]");
        if (request->tool_choice == GT_LOOP_TOOL_CHOICE_ANY)
            APPEND(out, ",\"tool_choice\":{\"type\":\"any\"}");
        else if (request->tool_choice == GT_LOOP_TOOL_CHOICE_TOOL) {
            APPEND(out, ",\"tool_choice\":{\"type\":\"tool\",\"name\":");
            json_cstr(out, request->tool_choice_name ? request->tool_choice_name : GT_LOOP_TOOL_NAME);
            APPEND(out, "}");
        }
    }
    APPEND(out, "}");
}

static void openai_body(const gt_client *client, const gt_loop_request *request, gt_buffer *out)
{
    APPEND(out, "{\"model\":");
    json_cstr(out, client->model);
    gt_buffer_appendf(out, ",\"max_completion_tokens\":%ld,\"stream\":%s", client->options.max_tokens,
                      client->options.stream ? "true" : "false");
    if (client->options.stream)
        APPEND(out, ",\"stream_options\":{\"include_usage\":true}");
    APPEND(out, ",\"messages\":[");
    size_t written = 0;
    if (client->system) {
        APPEND(out, "{\"role\":\"system\",\"content\":");
        json_cstr(out, client->system);
        APPEND(out, "}");
        written++;
    }
    for (size_t i = 0; i < request->message_count; i++) {
        const gt_loop_entry *entry = &request->messages[i];
        if (entry->tombstoned)
            continue;
        if (entry->role == GT_LOOP_USER) {
            gt_buffer text = {0};
            for (size_t b = 0; b < entry->block_count; b++) {
                const gt_block *block = &entry->blocks[b];
                size_t len;
                const char *t = block_text(block, &len);
                if (block->type == GT_BLOCK_TOOL_RESULT) {
                    gt_buffer_appendf(out, "%s{\"role\":\"tool\",\"tool_call_id\":", written++ ? "," : "");
                    json_cstr(out, block->id ? block->id : "call_unknown");
                    APPEND(out, ",\"content\":");
                    json_string(out, t, len);
                    APPEND(out, "}");
                } else if (block->type == GT_BLOCK_TEXT) {
                    if (text.len)
                        gt_buffer_append(&text, "\n\n", 2);
                    gt_buffer_append(&text, t, len);
                }
            }
            if (text.len > 0) {
                gt_buffer_appendf(out, "%s{\"role\":\"user\",\"content\":", written++ ? "," : "");
                json_string(out, text.data, text.len);
                APPEND(out, "}");
            }
            gt_buffer_free(&text);
            continue;
        }
        gt_buffer text = {0};
        size_t calls = 0;
        for (size_t b = 0; b < entry->block_count; b++)
            if (entry->blocks[b].type == GT_BLOCK_TEXT) {
                size_t len;
                const char *t = block_text(&entry->blocks[b], &len);
                gt_buffer_append(&text, t, len);
            }
        gt_buffer_appendf(out, "%s{\"role\":\"assistant\",\"content\":", written++ ? "," : "");
        if (text.len > 0)
            json_string(out, text.data, text.len);
        else
            APPEND(out, "null");
        gt_buffer_free(&text);
        for (size_t b = 0; b < entry->block_count; b++) {
            const gt_block *block = &entry->blocks[b];
            if (block->type != GT_BLOCK_TOOL_USE)
                continue;
            if (calls++ == 0)
                APPEND(out, ",\"tool_calls\":[");
            else
                APPEND(out, ",");
            APPEND(out, "{\"id\":");
            json_cstr(out, block->id ? block->id : "call_unknown");
            APPEND(out, ",\"type\":\"function\",\"function\":{\"name\":");
            json_cstr(out, block->name ? block->name : GT_LOOP_TOOL_NAME);
            APPEND(out, ",\"arguments\":");
            json_string(out, block->input_text ? block->input_text : "{}", block->input_text ? block->input_len : 2);
            APPEND(out, "}}");
        }
        if (calls)
            APPEND(out, "]");
        APPEND(out, "}");
    }
    APPEND(out, "]");
    if (request->structured_output_tool) {
        APPEND(out, ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"" GT_LOOP_TOOL_NAME
                    "\",\"description\":");
        json_cstr(out, STRUCTURED_OUTPUT_DESCRIPTION);
        APPEND(out, ",\"parameters\":");
        schema_or_object(out, request->tool_schema_json);
        if (request->strict)
            APPEND(out, ",\"strict\":true");
        APPEND(out, "}}]");
        if (request->tool_choice == GT_LOOP_TOOL_CHOICE_ANY)
            APPEND(out, ",\"tool_choice\":\"required\"");
        else if (request->tool_choice == GT_LOOP_TOOL_CHOICE_TOOL) {
            APPEND(out, ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":");
            json_cstr(out, request->tool_choice_name ? request->tool_choice_name : GT_LOOP_TOOL_NAME);
            APPEND(out, "}}");
        }
    }
    APPEND(out, "}");
}

char *gt_client_request_body(const gt_client *client, const gt_loop_request *request)
{
    gt_buffer out = {0};
    if (client->options.provider == GT_PROVIDER_OPENAI)
        openai_body(client, request, &out);
    else
        anthropic_body(client, request, &out);
    if (out.failed || out.data == NULL) {
        gt_buffer_free(&out);
        return NULL;
    }
    gt_buffer_append(&out, "", 1); /* NUL */
    if (out.failed) {
        gt_buffer_free(&out);
        return NULL;
    }
    return out.data;
}

/* ---- raw spans of a JSON body --------------------------------------------- */

static size_t skip_ws(const char *text, size_t len, size_t at)
{
    while (at < len && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
        at++;
    return at;
}

/* End (exclusive) of the JSON value starting at `at`, or 0 when malformed. */
static size_t skip_value(const char *text, size_t len, size_t at)
{
    at = skip_ws(text, len, at);
    if (at >= len)
        return 0;
    if (text[at] == '"') {
        for (size_t i = at + 1; i < len; i++) {
            if (text[i] == '\\')
                i++;
            else if (text[i] == '"')
                return i + 1;
        }
        return 0;
    }
    if (text[at] == '{' || text[at] == '[') {
        int depth = 0;
        for (size_t i = at; i < len; i++) {
            char c = text[i];
            if (c == '"') {
                size_t end = skip_value(text, len, i);
                if (end == 0)
                    return 0;
                i = end - 1;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return 0;
    }
    size_t i = at;
    while (i < len && !strchr(",}] \t\r\n", text[i]))
        i++;
    return i > at ? i : 0;
}

/* Call `member` for each member of the object at `at`; stops when it returns
 * non-zero. Returns 0, or -1 when the text is not an object there. */
typedef int (*member_fn)(void *user, const char *key, size_t key_len, size_t value_start, size_t value_end);

static int each_member(const char *text, size_t len, size_t at, member_fn fn, void *user)
{
    at = skip_ws(text, len, at);
    if (at >= len || text[at] != '{')
        return -1;
    at = skip_ws(text, len, at + 1);
    if (at < len && text[at] == '}')
        return 0;
    while (at < len) {
        size_t key_open = at;
        size_t key_end = skip_value(text, len, at);
        if (key_end == 0 || text[at] != '"')
            return -1;
        at = skip_ws(text, len, key_end);
        if (at >= len || text[at] != ':')
            return -1;
        size_t value_start = skip_ws(text, len, at + 1);
        size_t value_end = skip_value(text, len, value_start);
        if (value_end == 0)
            return -1;
        /* the key's raw bytes between its quotes */
        size_t open = key_open + 1;
        if (fn(user, text + open, key_end - 1 - open, value_start, value_end) != 0)
            return 0;
        at = skip_ws(text, len, value_end);
        if (at < len && text[at] == ',') {
            at = skip_ws(text, len, at + 1);
            continue;
        }
        return at < len && text[at] == '}' ? 0 : -1;
    }
    return -1;
}

typedef struct input_spans {
    const char *text;
    size_t len;
    size_t content_start, content_end; /* the "content" array */
    size_t *starts, *ends;             /* per block: span of "input" (0,0 = none) */
    size_t block_count;
    size_t current;
} input_spans;

static int find_content(void *user, const char *key, size_t key_len, size_t start, size_t end)
{
    input_spans *spans = user;
    if (key_len == 7 && memcmp(key, "content", 7) == 0) {
        spans->content_start = start;
        spans->content_end = end;
    }
    return 0;
}

static int find_input(void *user, const char *key, size_t key_len, size_t start, size_t end)
{
    input_spans *spans = user;
    if (key_len == 5 && memcmp(key, "input", 5) == 0 && spans->current < spans->block_count) {
        spans->starts[spans->current] = start;
        spans->ends[spans->current] = end;
    }
    return 0;
}

/* Fill the raw `input` spans of each block of content[] in an Anthropic body. */
static void locate_inputs(input_spans *spans)
{
    if (each_member(spans->text, spans->len, 0, find_content, spans) != 0 || spans->content_end == 0)
        return;
    size_t at = skip_ws(spans->text, spans->len, spans->content_start);
    if (spans->text[at] != '[')
        return;
    at = skip_ws(spans->text, spans->len, at + 1);
    for (spans->current = 0; at < spans->content_end && spans->current < spans->block_count; spans->current++) {
        if (spans->text[at] == ']')
            break;
        size_t end = skip_value(spans->text, spans->len, at);
        if (end == 0)
            return;
        each_member(spans->text, end, at, find_input, spans);
        at = skip_ws(spans->text, spans->len, end);
        if (at < spans->len && spans->text[at] == ',')
            at = skip_ws(spans->text, spans->len, at + 1);
    }
}

/* ---- responses -------------------------------------------------------------- */

static const char *arena_copy(gt_arena *arena, const char *text, size_t len)
{
    return gt_arena_strndup(arena, text ? text : "", text ? len : 0);
}

static const char *json_str(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

static long long json_int(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(item) ? (long long)item->valuedouble : 0;
}

static gt_message *anthropic_message(const char *body, size_t len, gt_arena *arena)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return NULL;
    }
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(root, "content");
    size_t count = cJSON_IsArray(content) ? (size_t)cJSON_GetArraySize(content) : 0;
    gt_message *message = gt_arena_alloc(arena, sizeof *message);
    gt_block *blocks = gt_arena_alloc(arena, (count + 1) * sizeof *blocks);
    size_t *starts = calloc(count + 1, sizeof *starts), *ends = calloc(count + 1, sizeof *ends);
    if (message == NULL || blocks == NULL || starts == NULL || ends == NULL) {
        free(starts);
        free(ends);
        cJSON_Delete(root);
        return NULL;
    }
    memset(message, 0, sizeof *message);
    input_spans spans = {.text = body, .len = len, .starts = starts, .ends = ends, .block_count = count};
    locate_inputs(&spans);
    const char *id = json_str(root, "id");
    message->id = id ? arena_copy(arena, id, strlen(id)) : NULL;
    const char *stop = json_str(root, "stop_reason");
    message->stop_reason = stop ? arena_copy(arena, stop, strlen(stop)) : NULL;
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
    message->usage.input_tokens = json_int(usage, "input_tokens");
    message->usage.output_tokens = json_int(usage, "output_tokens");
    message->usage.cache_creation_input_tokens = json_int(usage, "cache_creation_input_tokens");
    message->usage.cache_read_input_tokens = json_int(usage, "cache_read_input_tokens");
    size_t n = 0, index = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, content)
    {
        const char *type = json_str(item, "type");
        gt_block *block = &blocks[n];
        memset(block, 0, sizeof *block);
        if (type && strcmp(type, "text") == 0) {
            const char *text = json_str(item, "text");
            block->type = GT_BLOCK_TEXT;
            block->text = arena_copy(arena, text, text ? strlen(text) : 0);
            block->text_len = text ? strlen(text) : 0;
            n++;
        } else if (type && strcmp(type, "thinking") == 0) {
            const char *text = json_str(item, "thinking");
            block->type = GT_BLOCK_THINKING;
            block->text = arena_copy(arena, text, text ? strlen(text) : 0);
            block->text_len = text ? strlen(text) : 0;
            n++;
        } else if (type && strcmp(type, "tool_use") == 0) {
            const char *tool_id = json_str(item, "id"), *name = json_str(item, "name");
            const char *raw = json_str(item, "gauntlet_raw_input");
            block->type = GT_BLOCK_TOOL_USE;
            block->id = tool_id ? arena_copy(arena, tool_id, strlen(tool_id)) : NULL;
            block->name = name ? arena_copy(arena, name, strlen(name)) : NULL;
            if (raw != NULL) {
                block->input_len = strlen(raw);
                block->input_text = arena_copy(arena, raw, block->input_len);
            } else if (ends[index] > starts[index]) {
                block->input_len = ends[index] - starts[index];
                block->input_text = arena_copy(arena, body + starts[index], block->input_len);
            } else {
                block->input_text = "{}";
                block->input_len = 2;
            }
            n++;
        }
        index++;
    }
    message->blocks = blocks;
    message->block_count = n;
    free(starts);
    free(ends);
    cJSON_Delete(root);
    return message;
}

static const char *openai_stop_reason(const char *finish)
{
    if (finish == NULL)
        return NULL;
    if (strcmp(finish, "stop") == 0)
        return "end_turn";
    if (strcmp(finish, "tool_calls") == 0 || strcmp(finish, "function_call") == 0)
        return "tool_use";
    if (strcmp(finish, "length") == 0)
        return "max_tokens";
    if (strcmp(finish, "content_filter") == 0)
        return "refusal";
    return finish;
}

static gt_message *openai_message(const char *body, size_t len, gt_arena *arena)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "choices"), 0);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(choice, "message");
    if (!cJSON_IsObject(msg)) {
        cJSON_Delete(root);
        return NULL;
    }
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls");
    size_t count = 2 + (cJSON_IsArray(calls) ? (size_t)cJSON_GetArraySize(calls) : 0);
    gt_message *message = gt_arena_alloc(arena, sizeof *message);
    gt_block *blocks = gt_arena_alloc(arena, count * sizeof *blocks);
    if (message == NULL || blocks == NULL) {
        cJSON_Delete(root);
        return NULL;
    }
    memset(message, 0, sizeof *message);
    memset(blocks, 0, count * sizeof *blocks);
    const char *id = json_str(root, "id");
    message->id = id ? arena_copy(arena, id, strlen(id)) : NULL;
    const char *stop = openai_stop_reason(json_str(choice, "finish_reason"));
    size_t n = 0;
    const char *refusal = json_str(msg, "refusal");
    const char *text = refusal ? refusal : json_str(msg, "content");
    if (refusal)
        stop = "refusal";
    if (text) {
        blocks[n].type = GT_BLOCK_TEXT;
        blocks[n].text = arena_copy(arena, text, strlen(text));
        blocks[n].text_len = strlen(text);
        n++;
    }
    const cJSON *call;
    cJSON_ArrayForEach(call, calls)
    {
        const cJSON *function = cJSON_GetObjectItemCaseSensitive(call, "function");
        const char *call_id = json_str(call, "id"), *name = json_str(function, "name");
        const char *arguments = json_str(function, "arguments");
        blocks[n].type = GT_BLOCK_TOOL_USE;
        blocks[n].id = call_id ? arena_copy(arena, call_id, strlen(call_id)) : NULL;
        blocks[n].name = name ? arena_copy(arena, name, strlen(name)) : NULL;
        blocks[n].input_text = arena_copy(arena, arguments, arguments ? strlen(arguments) : 0);
        blocks[n].input_len = arguments ? strlen(arguments) : 0;
        n++;
    }
    message->stop_reason = stop ? arena_copy(arena, stop, strlen(stop)) : NULL;
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
    message->usage.input_tokens = json_int(usage, "prompt_tokens");
    message->usage.output_tokens = json_int(usage, "completion_tokens");
    message->blocks = blocks;
    message->block_count = n;
    cJSON_Delete(root);
    return message;
}

gt_message *gt_client_parse_answer(gt_stream_provider provider, const char *body, size_t len, gt_arena *arena)
{
    return provider == GT_PROVIDER_OPENAI ? openai_message(body, len, arena) : anthropic_message(body, len, arena);
}

/* ---- transport -------------------------------------------------------------- */

typedef struct exchange {
    gt_buffer body;
    size_t max;
    bool too_big;
    char content_type[128];
    long retry_after_ms; /* -1 = none */
    char *notices;       /* base64 header value */
    char request_id[64];
    int provider;        /* x-gauntlet-provider, -1 = none */
    long turn;           /* x-gauntlet-turn, -1 = none */
    bool beyond_script;  /* x-gauntlet-beyond-script: true */
} exchange;

static size_t on_body(char *data, size_t size, size_t count, void *user)
{
    exchange *ex = user;
    size_t n = size * count;
    if (ex->body.len + n > ex->max) {
        ex->too_big = true;
        return 0; /* abort the transfer */
    }
    gt_buffer_append(&ex->body, data, n);
    return ex->body.failed ? 0 : n;
}

static void header_value(const char *line, size_t len, size_t name_len, char *out, size_t out_len)
{
    const char *value = line + name_len;
    size_t value_len = len - name_len;
    while (value_len > 0 && (*value == ' ' || *value == '\t'))
        value++, value_len--;
    while (value_len > 0 && (value[value_len - 1] == '\r' || value[value_len - 1] == '\n' || value[value_len - 1] == ' '))
        value_len--;
    snprintf(out, out_len, "%.*s", (int)value_len, value);
}

static size_t on_header(char *data, size_t size, size_t count, void *user)
{
    exchange *ex = user;
    size_t n = size * count;
    char value[256];
    if (n > 13 && strncasecmp(data, "content-type:", 13) == 0) {
        header_value(data, n, 13, ex->content_type, sizeof ex->content_type);
    } else if (n > 15 && strncasecmp(data, "retry-after-ms:", 15) == 0) {
        header_value(data, n, 15, value, sizeof value);
        ex->retry_after_ms = strtol(value, NULL, 10);
    } else if (n > 12 && strncasecmp(data, "retry-after:", 12) == 0) {
        header_value(data, n, 12, value, sizeof value);
        char *end;
        double seconds = strtod(value, &end);
        if (end != value && ex->retry_after_ms < 0)
            ex->retry_after_ms = (long)(seconds * 1000.0);
    } else if (n > 11 && strncasecmp(data, "request-id:", 11) == 0) {
        header_value(data, n, 11, ex->request_id, sizeof ex->request_id);
    } else if (n > 20 && strncasecmp(data, "x-gauntlet-provider:", 20) == 0) {
        header_value(data, n, 20, value, sizeof value);
        ex->provider = gt_stream_provider_from_name(value);
    } else if (n > 16 && strncasecmp(data, "x-gauntlet-turn:", 16) == 0) {
        header_value(data, n, 16, value, sizeof value);
        ex->turn = strtol(value, NULL, 10);
    } else if (n > 25 && strncasecmp(data, "x-gauntlet-beyond-script:", 25) == 0) {
        header_value(data, n, 25, value, sizeof value);
        ex->beyond_script = strcmp(value, "true") == 0;
    } else if (n > 19 && strncasecmp(data, "x-gauntlet-notices:", 19) == 0) {
        free(ex->notices);
        ex->notices = malloc(n);
        if (ex->notices)
            header_value(data, n, 19, ex->notices, n);
    }
    return n;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decode base64 (padding optional) into a malloc'd NUL-terminated buffer. */
static char *b64_decode(const char *text, size_t *out_len)
{
    size_t len = strlen(text);
    char *out = malloc(len * 3 / 4 + 4);
    if (out == NULL)
        return NULL;
    size_t n = 0;
    unsigned bits = 0, value = 0;
    for (size_t i = 0; i < len && text[i] != '='; i++) {
        int v = b64_value(text[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        value = (value << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (char)((value >> bits) & 0xFF);
        }
    }
    out[n] = '\0';
    *out_len = n;
    return out;
}

/* The x-gauntlet-notices header (the mock's fallbacks and late attachments,
 * client-side events a real client would raise itself) as loop notices. */
static void parse_notices(const char *header, gt_arena *arena, gt_loop_reply *reply)
{
    size_t len = 0;
    char *json = b64_decode(header, &len);
    cJSON *list = json ? cJSON_ParseWithLength(json, len) : NULL;
    free(json);
    int count = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 0;
    if (count <= 0) {
        cJSON_Delete(list);
        return;
    }
    gt_loop_notice *notices = gt_arena_alloc(arena, (size_t)count * sizeof *notices);
    if (notices == NULL) {
        cJSON_Delete(list);
        return;
    }
    size_t n = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        gt_loop_notice *notice = &notices[n];
        memset(notice, 0, sizeof *notice);
        const char *kind = json_str(item, "kind");
        notice->turn = (size_t)json_int(item, "turn");
        if (kind && strcmp(kind, "fallback") == 0) {
            const char *id = json_str(item, "message_id");
            notice->kind = GT_LOOP_NOTICE_FALLBACK;
            notice->message_id = id ? arena_copy(arena, id, strlen(id)) : NULL;
        } else if (kind && strcmp(kind, "late_attachment") == 0) {
            const char *id = json_str(item, "tool_use_id"), *input = json_str(item, "input_text");
            notice->kind = GT_LOOP_NOTICE_LATE_ATTACHMENT;
            notice->tool_use_id = id ? arena_copy(arena, id, strlen(id)) : NULL;
            notice->input_len = input ? strlen(input) : 2;
            notice->input_text = input ? arena_copy(arena, input, notice->input_len) : "{}";
        } else {
            continue;
        }
        n++;
    }
    reply->notices = notices;
    reply->notice_count = n;
    cJSON_Delete(list);
}

/* Error body in either API's shape -> type and message (arena copies). */
static void parse_error_body(const char *body, size_t len, int status, gt_arena *arena, gt_loop_reply *reply)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
    const char *type = json_str(error, "type");
    const char *message = json_str(error, "message");
    if (message == NULL && cJSON_IsString(error))
        message = error->valuestring;
    if (type == NULL)
        type = status == 529 ? "overloaded_error" : status == 429 ? "rate_limit_error" : status >= 500 ? "api_error"
                                                                                                       : "invalid_request_error";
    reply->error_type = arena_copy(arena, type, strlen(type));
    if (message != NULL)
        reply->error_message = arena_copy(arena, message, strlen(message));
    else
        reply->error_message = arena_copy(arena, body ? body : "", len > 300 ? 300 : len);
    cJSON_Delete(root);
}

static bool retryable_status(int status)
{
    return status == 0 || status == 408 || status == 409 || status == 429 || status >= 500;
}

/* Set the earliest time of the next request after a retryable error. */
static void schedule_retry(gt_client *client, long retry_after_ms)
{
    client->consecutive_errors++;
    long wait;
    if (retry_after_ms >= 0 && client->options.max_retry_after_ms >= 0) {
        wait = retry_after_ms > client->options.max_retry_after_ms ? client->options.max_retry_after_ms : retry_after_ms;
    } else if (client->options.backoff_ms < 0) {
        wait = 0;
    } else {
        int shift = client->consecutive_errors - 1 < 5 ? client->consecutive_errors - 1 : 5;
        wait = client->options.backoff_ms << shift;
        if (wait > 8000)
            wait = 8000;
    }
    client->not_before_ms = now_ms() + wait;
}

/* No usable HTTP response (refused, reset, timed out, a JSON body cut
 * short): a retryable error with status 0 for the loop, after a backoff. */
static void transport_fault(gt_client *client, gt_arena *arena, gt_loop_reply *reply, const char *message)
{
    reply->kind = GT_LOOP_REPLY_ERROR;
    reply->http_status = 0;
    reply->error_type = "api_error";
    reply->error_message = arena_copy(arena, message, strlen(message));
    schedule_retry(client, -1);
}

static int client_send(void *state, const gt_loop_request *request, gt_arena *arena, gt_loop_reply *reply, char *err,
                       size_t err_len)
{
    gt_client *client = state;
    memset(reply, 0, sizeof *reply);
    long long wait = client->not_before_ms - now_ms();
    if (wait > 0) {
        sleep_ms(wait);
        client->stats.waited_ms += wait;
    }
    char *body = gt_client_request_body(client, request);
    if (body == NULL) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    char url[2048];
    size_t base_len = strlen(client->base_url);
    bool has_v1 = base_len >= 3 && strcmp(client->base_url + base_len - 3, "/v1") == 0;
    snprintf(url, sizeof url, "%s%s%s", client->base_url, has_v1 ? "" : "/v1",
             client->options.provider == GT_PROVIDER_OPENAI ? "/chat/completions" : "/messages");

    struct curl_slist *headers = NULL;
    char line[1200];
    headers = curl_slist_append(headers, "content-type: application/json");
    headers = curl_slist_append(headers, client->options.stream ? "accept: text/event-stream" : "accept: application/json");
    if (client->options.provider == GT_PROVIDER_ANTHROPIC) {
        headers = curl_slist_append(headers, "anthropic-version: " GT_CLIENT_ANTHROPIC_VERSION);
        if (client->api_key) {
            snprintf(line, sizeof line, "x-api-key: %s", client->api_key);
            headers = curl_slist_append(headers, line);
        }
    } else if (client->api_key) {
        snprintf(line, sizeof line, "authorization: Bearer %s", client->api_key);
        headers = curl_slist_append(headers, line);
    }
    if (client->options.mirror)
        headers = curl_slist_append(headers, "x-gauntlet-mirror: 1");
    snprintf(line, sizeof line, "x-gauntlet-attempt: %zu", request->api_attempt);
    headers = curl_slist_append(headers, line);

    exchange ex = {.max = client->options.max_response, .retry_after_ms = -1, .provider = -1, .turn = -1};
    CURL *curl = client->curl;
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &ex);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &ex);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, client->options.timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "gauntlet-reference-client/0.1");
    CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    free(body);
    client->stats.requests++;
    client->stats.last_status = (int)status;
    snprintf(client->stats.last_request_id, sizeof client->stats.last_request_id, "%s", ex.request_id);
    if (ex.beyond_script)
        client->stats.beyond_script++;
    if (ex.turn >= 0)
        reply->turn = (size_t)ex.turn;
    if (ex.notices) {
        parse_notices(ex.notices, arena, reply);
        free(ex.notices);
    }

    int result = 0;
    if (ex.too_big) {
        snprintf(err, err_len, "response body over the limit of %zu bytes", client->options.max_response);
        client->stats.transport_errors++;
        result = -1;
    } else if (status == 0) {
        /* no HTTP response at all: refused, reset, timed out. Retryable. */
        client->stats.transport_errors++;
        char message[300];
        snprintf(message, sizeof message, "connection error: %s", curl_easy_strerror(rc));
        transport_fault(client, arena, reply, message);
    } else if (status >= 300) {
        reply->kind = GT_LOOP_REPLY_ERROR;
        reply->http_status = (int)status;
        parse_error_body(ex.body.data, ex.body.len, (int)status, arena, reply);
        if (retryable_status((int)status))
            schedule_retry(client, ex.retry_after_ms);
    } else if (strstr(ex.content_type, "text/event-stream") != NULL) {
        /* A cut stream goes to the loop as it is (it tombstones the partial
         * message and sends again); the resend waits like any retry. */
        if (rc != CURLE_OK) {
            client->stats.short_reads++;
            schedule_retry(client, -1);
        } else
            client->consecutive_errors = 0;
        reply->kind = GT_LOOP_REPLY_STREAM;
        /* the mock names the API of stream bytes it replays verbatim */
        reply->provider = ex.provider >= 0 ? (gt_stream_provider)ex.provider : client->options.provider;
        reply->sse = arena_copy(arena, ex.body.data, ex.body.len);
        reply->sse_len = ex.body.len;
    } else if (strstr(ex.content_type, "json") != NULL) {
        if (rc != CURLE_OK)
            client->stats.short_reads++;
        gt_message *message =
            gt_client_parse_answer(client->options.provider, ex.body.data ? ex.body.data : "", ex.body.len, arena);
        if (message == NULL && rc != CURLE_OK) {
            /* a JSON body cut short is a transport fault like a reset: retryable */
            char text[300];
            snprintf(text, sizeof text, "connection error: the %zu-byte body was cut short: %s", ex.body.len,
                     curl_easy_strerror(rc));
            transport_fault(client, arena, reply, text);
        } else if (message == NULL) {
            snprintf(err, err_len, "HTTP %ld: the body is not a %s message (%zu bytes%s)", status,
                     client->options.provider == GT_PROVIDER_OPENAI ? "chat completion" : "Messages API",
                     ex.body.len, rc != CURLE_OK ? ", cut short" : "");
            result = -1;
        } else {
            reply->kind = GT_LOOP_REPLY_MESSAGE;
            reply->message = message;
            client->consecutive_errors = 0;
        }
    } else {
        snprintf(err, err_len, "HTTP %ld with unexpected content type '%s'", status,
                 ex.content_type[0] ? ex.content_type : "(none)");
        result = -1;
    }
    gt_buffer_free(&ex.body);
    return result;
}

/* ---- lifecycle ---------------------------------------------------------------- */

gt_client *gt_client_new(const gt_client_options *options, char *err, size_t err_len)
{
    if (options == NULL || options->base_url == NULL || options->base_url[0] == '\0') {
        snprintf(err, err_len, "a base URL is required");
        return NULL;
    }
    if (strncmp(options->base_url, "http://", 7) != 0 && strncmp(options->base_url, "https://", 8) != 0) {
        snprintf(err, err_len, "the base URL must start with http:// or https://, not '%s'", options->base_url);
        return NULL;
    }
    static int global_init = 0;
    if (__atomic_exchange_n(&global_init, 1, __ATOMIC_ACQ_REL) == 0)
        curl_global_init(CURL_GLOBAL_DEFAULT);
    gt_client *client = calloc(1, sizeof *client);
    if (client == NULL) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    client->options = *options;
    if (client->options.max_tokens <= 0)
        client->options.max_tokens = GT_CLIENT_DEFAULT_MAX_TOKENS;
    if (client->options.timeout_ms <= 0)
        client->options.timeout_ms = GT_CLIENT_DEFAULT_TIMEOUT_MS;
    if (client->options.max_response == 0)
        client->options.max_response = GT_CLIENT_DEFAULT_MAX_RESPONSE;
    if (client->options.max_retry_after_ms == 0)
        client->options.max_retry_after_ms = GT_CLIENT_DEFAULT_MAX_RETRY_AFTER_MS;
    if (client->options.backoff_ms == 0)
        client->options.backoff_ms = GT_CLIENT_DEFAULT_BACKOFF_MS;
    client->base_url = copy_str(options->base_url);
    const char *model = options->model ? options->model
                        : options->provider == GT_PROVIDER_OPENAI ? "gpt-4o-mini"
                                                                  : "claude-sonnet-4-5";
    client->model = copy_str(model);
    client->api_key = copy_str(options->api_key);
    client->system = copy_str(options->prompt_system);
    client->curl = curl_easy_init();
    if (client->base_url == NULL || client->model == NULL || client->curl == NULL ||
        (options->api_key && client->api_key == NULL)) {
        gt_client_free(client);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    size_t len = strlen(client->base_url);
    while (len > 0 && client->base_url[len - 1] == '/')
        client->base_url[--len] = '\0';
    return client;
}

void gt_client_free(gt_client *client)
{
    if (client == NULL)
        return;
    if (client->curl)
        curl_easy_cleanup(client->curl);
    free(client->base_url);
    free(client->model);
    free(client->api_key);
    free(client->system);
    free(client);
}

void gt_client_model(gt_client *client, gt_loop_model *model)
{
    model->state = client;
    model->send = client_send;
}

const gt_client_stats *gt_client_get_stats(const gt_client *client)
{
    return &client->stats;
}
