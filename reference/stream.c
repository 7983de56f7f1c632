/* stream.c — assemble one assistant message from an SSE event stream.
 *
 * Two grammars: the Anthropic Messages event stream (message_start,
 * content_block_start/delta/stop, message_delta, message_stop) and OpenAI
 * Chat Completions chunks ending in `data: [DONE]`. Each event is checked
 * against the protocol's order; the first fault is sticky and names the
 * event. Tool inputs are buffers of partial JSON that are never looked at
 * until a valid terminal event has arrived: then the response is classified
 * (refusal, max_tokens, empty) and only a usable one has its inputs parsed.
 * Not for: SSE framing (sse.c) or running tools (loop.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/limits.h"
#include "gauntlet/stream.h"

static const char *const reason_codes[GT_STREAM_REASON_COUNT] = {
    [GT_STREAM_OK] = "ok",
    [GT_STREAM_TRUNCATED] = "stream_truncated",
    [GT_STREAM_REFUSAL] = "refusal",
    [GT_STREAM_MAX_TOKENS] = "max_tokens_truncated",
    [GT_STREAM_EMPTY_CONTENT] = "empty_content",
    [GT_STREAM_SSE_BAD_JSON] = "sse_bad_json",
    [GT_STREAM_SSE_BAD_EVENT] = "sse_bad_event",
    [GT_STREAM_SSE_OUT_OF_ORDER] = "sse_out_of_order",
    [GT_STREAM_PROVIDER_ERROR] = "stream_error",
    [GT_STREAM_OUT_OF_MEMORY] = "out_of_memory",
};

const char *gt_stream_reason_code(gt_stream_reason reason)
{
    return (unsigned)reason < GT_STREAM_REASON_COUNT ? reason_codes[reason] : "unknown";
}

int gt_stream_reason_from_code(const char *code)
{
    for (int i = 0; code != NULL && i < GT_STREAM_REASON_COUNT; i++)
        if (strcmp(code, reason_codes[i]) == 0)
            return i;
    return -1;
}

bool gt_stream_reason_is_transport(gt_stream_reason reason)
{
    switch (reason) {
    case GT_STREAM_TRUNCATED:
    case GT_STREAM_SSE_BAD_JSON:
    case GT_STREAM_SSE_BAD_EVENT:
    case GT_STREAM_SSE_OUT_OF_ORDER:
    case GT_STREAM_PROVIDER_ERROR: return true;
    default: return false;
    }
}

const char *gt_stream_provider_name(gt_stream_provider provider)
{
    return provider == GT_PROVIDER_OPENAI ? "openai" : "anthropic";
}

int gt_stream_provider_from_name(const char *name)
{
    if (name != NULL && strcmp(name, "anthropic") == 0)
        return GT_PROVIDER_ANTHROPIC;
    if (name != NULL && strcmp(name, "openai") == 0)
        return GT_PROVIDER_OPENAI;
    return -1;
}

/* ---- message helpers ---- */

int gt_message_parse_inputs(gt_message *message, gt_arena *arena)
{
    for (size_t i = 0; i < message->block_count; i++) {
        gt_block *block = &message->blocks[i];
        if (block->type != GT_BLOCK_TOOL_USE || block->input_parsed)
            continue;
        block->input = gt_parse(arena, block->input_text ? block->input_text : "", block->input_len, NULL,
                                &block->input_error);
        block->input_parsed = true;
        if (block->input == NULL && block->input_error.reason == GT_SYNTAX_OUT_OF_MEMORY)
            return -1;
    }
    return 0;
}

gt_stream_reason gt_message_classify(const gt_message *message)
{
    const char *stop = message->stop_reason;
    if (stop != NULL && strcmp(stop, "refusal") == 0)
        return GT_STREAM_REFUSAL;
    if (stop != NULL && (strcmp(stop, "max_tokens") == 0 || strcmp(stop, "model_context_window_exceeded") == 0))
        return GT_STREAM_MAX_TOKENS;
    if (stop != NULL && strcmp(stop, GT_STOP_PAUSE_TURN) == 0)
        return GT_STREAM_OK; /* a paused turn may hold only server-tool blocks: it is resumed, not judged */
    for (size_t i = 0; i < message->block_count; i++) {
        const gt_block *block = &message->blocks[i];
        if (block->type == GT_BLOCK_TOOL_USE || (block->type == GT_BLOCK_TEXT && block->text_len > 0))
            return GT_STREAM_OK;
    }
    return GT_STREAM_EMPTY_CONTENT;
}

/* ---- assembly state ---- */

typedef struct pending_block {
    gt_block_type type;
    bool ignored; /* a block type we do not assemble (server tools, ...) */
    char *id, *name;
    gt_buffer text;  /* text / thinking / refusal */
    gt_buffer input; /* partial JSON, untouched until the end */
    char *start_input; /* content_block_start's input, used when no delta came */
    int openai_index;  /* OpenAI tool_calls[].index */
} pending_block;

struct gt_stream {
    gt_stream_provider provider;
    gt_arena *arena;   /* results */
    gt_arena *scratch; /* one event's parsed data; reset per event */
    gt_sse_parser *sse;
    gt_stream_reason fault; /* sticky */
    size_t fault_event;
    char detail[200];
    bool started, terminal, out_of_memory;
    int open_block; /* Anthropic: index of the open block, -1 none */
    pending_block *blocks;
    size_t block_count, block_cap;
    char *message_id;
    char *stop_reason;
    bool refused; /* OpenAI delta.refusal */
    int text_block; /* OpenAI: index of the text block, -1 none */
    gt_usage usage;
    size_t events;
};

static int stream_fail(gt_stream *stream, gt_stream_reason reason, size_t event, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static int stream_fail(gt_stream *stream, gt_stream_reason reason, size_t event, const char *format, ...)
{
    if (stream->fault == GT_STREAM_OK) {
        stream->fault = reason;
        stream->fault_event = event;
        va_list args;
        va_start(args, format);
        vsnprintf(stream->detail, sizeof stream->detail, format, args);
        va_end(args);
    }
    return 1;
}

static pending_block *block_add(gt_stream *stream, gt_block_type type)
{
    if (stream->block_count == stream->block_cap) {
        size_t cap = stream->block_cap ? stream->block_cap * 2 : 4;
        pending_block *grown = realloc(stream->blocks, cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        stream->blocks = grown;
        stream->block_cap = cap;
    }
    pending_block *block = &stream->blocks[stream->block_count++];
    memset(block, 0, sizeof *block);
    block->type = type;
    block->openai_index = -1;
    return block;
}

static const gt_value *member(const gt_value *object, const char *key)
{
    return object != NULL && object->type == GT_OBJECT ? gt_value_get(object, key, strlen(key)) : NULL;
}

static const char *string_member(const gt_value *object, const char *key)
{
    const gt_value *value = member(object, key);
    return value != NULL && value->type == GT_STRING ? value->u.str.chars : NULL;
}

static bool is_null_or_absent(const gt_value *value)
{
    return value == NULL || value->type == GT_NULL;
}

/* Integer member >= 0, or -1 when absent or not one. */
static long long count_member(const gt_value *object, const char *key)
{
    const gt_value *value = member(object, key);
    if (value == NULL || !gt_value_is_integer(value) || value->u.num.number < 0)
        return -1;
    return gt_number_clamp(value->u.num.number, 0, GT_COUNT_MAX);
}

static char *dup_string(gt_stream *stream, const char *text)
{
    if (text == NULL)
        return NULL;
    char *copy = strdup(text);
    if (copy == NULL)
        stream->out_of_memory = true;
    return copy;
}

static void usage_from(gt_usage *usage, const gt_value *object)
{
    long long figure;
    if ((figure = count_member(object, "input_tokens")) >= 0)
        usage->input_tokens = figure;
    if ((figure = count_member(object, "output_tokens")) >= 0)
        usage->output_tokens = figure;
    if ((figure = count_member(object, "cache_creation_input_tokens")) >= 0)
        usage->cache_creation_input_tokens = figure;
    if ((figure = count_member(object, "cache_read_input_tokens")) >= 0)
        usage->cache_read_input_tokens = figure;
}

/* ---- Anthropic ---- */

static int anthropic_block_start(gt_stream *stream, const gt_value *data, size_t event)
{
    long long index = count_member(data, "index");
    const gt_value *content = member(data, "content_block");
    const char *type = string_member(content, "type");
    if (index < 0 || type == NULL)
        return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event,
                           "content_block_start needs an integer index and content_block.type");
    if (stream->open_block >= 0)
        return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event,
                           "content_block_start %lld while block %d is still open", index, stream->open_block);
    if ((size_t)index != stream->block_count)
        return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event,
                           "content_block_start index %lld, expected %zu", index, stream->block_count);
    gt_block_type block_type = GT_BLOCK_TEXT;
    bool ignored = false;
    if (strcmp(type, "text") == 0)
        block_type = GT_BLOCK_TEXT;
    else if (strcmp(type, "tool_use") == 0)
        block_type = GT_BLOCK_TOOL_USE;
    else if (strcmp(type, "thinking") == 0 || strcmp(type, "redacted_thinking") == 0)
        block_type = GT_BLOCK_THINKING;
    else
        ignored = true;
    pending_block *block = block_add(stream, block_type);
    if (block == NULL) {
        stream->out_of_memory = true;
        return 1;
    }
    block->ignored = ignored;
    stream->open_block = (int)index;
    if (block_type == GT_BLOCK_TOOL_USE && !ignored) {
        const char *id = string_member(content, "id"), *name = string_member(content, "name");
        if (id == NULL || name == NULL)
            return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "a tool_use block needs a string id and name");
        block->id = dup_string(stream, id);
        block->name = dup_string(stream, name);
        const gt_value *input = member(content, "input");
        if (input != NULL) {
            char *json = gt_value_to_json(input, NULL);
            if (json == NULL)
                stream->out_of_memory = true;
            block->start_input = json;
        }
    } else if (block_type == GT_BLOCK_TEXT && !ignored) {
        const char *text = string_member(content, "text");
        if (text != NULL)
            gt_buffer_append(&block->text, text, member(content, "text")->u.str.len);
    }
    return 0;
}

static int anthropic_block_delta(gt_stream *stream, const gt_value *data, size_t event)
{
    long long index = count_member(data, "index");
    const gt_value *delta = member(data, "delta");
    const char *type = string_member(delta, "type");
    if (index < 0 || type == NULL)
        return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event,
                           "content_block_delta needs an integer index and delta.type");
    if (stream->open_block < 0 || index != stream->open_block)
        return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event, "content_block_delta for block %lld, which is not open",
                           index);
    pending_block *block = &stream->blocks[index];
    if (block->ignored)
        return 0;
    const char *field = NULL;
    gt_buffer *into = NULL;
    if (strcmp(type, "text_delta") == 0 && block->type == GT_BLOCK_TEXT)
        field = "text", into = &block->text;
    else if (strcmp(type, "input_json_delta") == 0 && block->type == GT_BLOCK_TOOL_USE)
        field = "partial_json", into = &block->input;
    else if (strcmp(type, "thinking_delta") == 0 && block->type == GT_BLOCK_THINKING)
        field = "thinking", into = &block->text;
    else if ((strcmp(type, "signature_delta") == 0 && block->type == GT_BLOCK_THINKING) ||
             (strcmp(type, "citations_delta") == 0 && block->type == GT_BLOCK_TEXT))
        return 0;
    else
        return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "%s in a %s block", type,
                           block->type == GT_BLOCK_TOOL_USE ? "tool_use"
                           : block->type == GT_BLOCK_THINKING ? "thinking"
                                                               : "text");
    const gt_value *piece = member(delta, field);
    if (piece == NULL || piece->type != GT_STRING)
        return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "%s needs a string %s", type, field);
    gt_buffer_append(into, piece->u.str.chars, piece->u.str.len);
    return 0;
}

static int anthropic_event(gt_stream *stream, const char *type, const gt_value *data, size_t event)
{
    if (stream->terminal)
        return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event, "%s after message_stop", type);
    if (strcmp(type, "ping") == 0)
        return 0;
    if (strcmp(type, "error") == 0) {
        const gt_value *error = member(data, "error");
        const char *kind = string_member(error, "type"), *message = string_member(error, "message");
        return stream_fail(stream, GT_STREAM_PROVIDER_ERROR, event, "provider error event: %s: %s",
                           kind ? kind : "unknown", message ? message : "");
    }
    if (strcmp(type, "message_start") == 0) {
        if (stream->started)
            return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event, "a second message_start");
        const gt_value *message = member(data, "message");
        if (message == NULL || message->type != GT_OBJECT)
            return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "message_start needs a message object");
        stream->started = true;
        stream->message_id = dup_string(stream, string_member(message, "id"));
        const char *stop = string_member(message, "stop_reason");
        if (stop != NULL)
            stream->stop_reason = dup_string(stream, stop);
        usage_from(&stream->usage, member(message, "usage"));
        return 0;
    }
    if (!stream->started)
        return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event, "%s before message_start", type);
    if (strcmp(type, "content_block_start") == 0)
        return anthropic_block_start(stream, data, event);
    if (strcmp(type, "content_block_delta") == 0)
        return anthropic_block_delta(stream, data, event);
    if (strcmp(type, "content_block_stop") == 0) {
        long long index = count_member(data, "index");
        if (index < 0)
            return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "content_block_stop needs an integer index");
        if (stream->open_block < 0 || index != stream->open_block)
            return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event,
                               "content_block_stop for block %lld, which is not open", index);
        stream->open_block = -1;
        return 0;
    }
    if (strcmp(type, "message_delta") == 0) {
        if (stream->open_block >= 0)
            return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event, "message_delta while block %d is open",
                               stream->open_block);
        const gt_value *delta = member(data, "delta");
        const gt_value *stop = member(delta, "stop_reason");
        if (stop != NULL && stop->type == GT_STRING) {
            free(stream->stop_reason);
            stream->stop_reason = dup_string(stream, stop->u.str.chars);
        } else if (!is_null_or_absent(stop))
            return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "message_delta stop_reason must be a string");
        usage_from(&stream->usage, member(data, "usage"));
        return 0;
    }
    if (strcmp(type, "message_stop") == 0) {
        if (stream->open_block >= 0)
            return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event, "message_stop while block %d is open",
                               stream->open_block);
        if (stream->stop_reason == NULL)
            return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event,
                               "message_stop without a stop_reason (no message_delta)");
        stream->terminal = true;
        return 0;
    }
    return 0; /* unknown event types are ignored, as the API's versioning policy asks */
}

/* ---- OpenAI ---- */

static const char *openai_stop_reason(const char *finish)
{
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

static int openai_tool_delta(gt_stream *stream, const gt_value *call, size_t event)
{
    long long index = count_member(call, "index");
    if (index < 0)
        return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "tool_calls[] needs an integer index");
    const gt_value *function = member(call, "function");
    pending_block *block = NULL;
    for (size_t i = 0; i < stream->block_count; i++)
        if (stream->blocks[i].openai_index == index)
            block = &stream->blocks[i];
    if (block == NULL) {
        int next = 0;
        for (size_t i = 0; i < stream->block_count; i++)
            if (stream->blocks[i].openai_index >= 0)
                next++;
        if (index != next)
            return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event, "tool call index %lld, expected %d", index,
                               next);
        const char *id = string_member(call, "id"), *name = string_member(function, "name");
        if (id == NULL || name == NULL)
            return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event,
                               "arguments for tool call %lld before its id and name", index);
        block = block_add(stream, GT_BLOCK_TOOL_USE);
        if (block == NULL) {
            stream->out_of_memory = true;
            return 1;
        }
        block->openai_index = (int)index;
        block->id = dup_string(stream, id);
        block->name = dup_string(stream, name);
    }
    const gt_value *arguments = member(function, "arguments");
    if (arguments != NULL && arguments->type == GT_STRING)
        gt_buffer_append(&block->input, arguments->u.str.chars, arguments->u.str.len);
    else if (!is_null_or_absent(arguments))
        return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "function.arguments must be a string");
    return 0;
}

static int openai_text(gt_stream *stream, const gt_value *piece)
{
    if (piece->u.str.len == 0)
        return 0;
    if (stream->text_block < 0) {
        pending_block *block = block_add(stream, GT_BLOCK_TEXT);
        if (block == NULL) {
            stream->out_of_memory = true;
            return 1;
        }
        stream->text_block = (int)(stream->block_count - 1);
    }
    gt_buffer_append(&stream->blocks[stream->text_block].text, piece->u.str.chars, piece->u.str.len);
    return 0;
}

static int openai_chunk(gt_stream *stream, const gt_value *data, size_t event)
{
    if (member(data, "error") != NULL) {
        const gt_value *error = member(data, "error");
        const char *message = string_member(error, "message");
        return stream_fail(stream, GT_STREAM_PROVIDER_ERROR, event, "provider error chunk: %s", message ? message : "");
    }
    const gt_value *choices = member(data, "choices");
    if (choices == NULL || choices->type != GT_ARRAY)
        return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "a chunk needs a choices array");
    if (!stream->started) {
        stream->started = true;
        stream->message_id = dup_string(stream, string_member(data, "id"));
    }
    const gt_value *usage = member(data, "usage");
    if (usage != NULL && usage->type == GT_OBJECT) {
        long long prompt = count_member(usage, "prompt_tokens"), completion = count_member(usage, "completion_tokens");
        long long cached = count_member(member(usage, "prompt_tokens_details"), "cached_tokens");
        if (cached < 0)
            cached = 0;
        if (prompt >= 0)
            stream->usage.input_tokens = prompt - cached, stream->usage.cache_read_input_tokens = cached;
        if (completion >= 0)
            stream->usage.output_tokens = completion;
    }
    for (size_t c = 0; c < choices->u.arr.count; c++) {
        const gt_value *choice = choices->u.arr.items[c];
        if (count_member(choice, "index") != 0)
            return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "only choice index 0 is assembled (n=1)");
        const gt_value *delta = member(choice, "delta");
        bool has_content = false;
        if (delta != NULL && delta->type == GT_OBJECT) {
            const gt_value *content = member(delta, "content"), *refusal = member(delta, "refusal");
            const gt_value *calls = member(delta, "tool_calls");
            has_content = (content && content->type == GT_STRING && content->u.str.len) ||
                          (refusal && refusal->type == GT_STRING) || (calls && calls->type == GT_ARRAY);
            if (has_content && stream->stop_reason != NULL)
                return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event, "content after finish_reason");
            if (content != NULL && content->type == GT_STRING) {
                if (openai_text(stream, content) != 0)
                    return 1;
            } else if (!is_null_or_absent(content))
                return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "delta.content must be a string");
            if (refusal != NULL && refusal->type == GT_STRING) {
                stream->refused = true;
                if (openai_text(stream, refusal) != 0)
                    return 1;
            }
            if (calls != NULL && calls->type == GT_ARRAY) {
                for (size_t i = 0; i < calls->u.arr.count; i++)
                    if (openai_tool_delta(stream, calls->u.arr.items[i], event) != 0)
                        return 1;
            } else if (!is_null_or_absent(calls))
                return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "delta.tool_calls must be an array");
        }
        const gt_value *finish = member(choice, "finish_reason");
        if (finish != NULL && finish->type == GT_STRING) {
            if (stream->stop_reason != NULL)
                return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event, "a second finish_reason");
            stream->stop_reason = dup_string(stream, openai_stop_reason(finish->u.str.chars));
        } else if (!is_null_or_absent(finish))
            return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event, "finish_reason must be a string or null");
    }
    return 0;
}

/* ---- dispatch ---- */

static int on_event(void *user, const gt_sse_event *event)
{
    gt_stream *stream = user;
    stream->events = event->index + 1;
    if (stream->fault != GT_STREAM_OK || stream->out_of_memory)
        return 1;
    /* WHATWG HTML 9.2.6: a block whose data buffer is empty (no data: field,
     * an event: alone, a line that is not a field we know) is not
     * dispatched. What it breaks shows up as the next event's fault (a delta
     * for a block never started, a missing terminal event). */
    if (!event->has_data || event->data_len == 0)
        return 0;
    if (stream->provider == GT_PROVIDER_OPENAI && event->data_len == 6 && memcmp(event->data, "[DONE]", 6) == 0) {
        if (stream->terminal)
            return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event->index, "a second [DONE]");
        if (!stream->started || stream->stop_reason == NULL)
            return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event->index, "[DONE] before a finish_reason");
        stream->terminal = true;
        return 0;
    }
    gt_arena_reset(stream->scratch);
    gt_parse_error error;
    const gt_value *data = gt_parse(stream->scratch, event->data, event->data_len, NULL, &error);
    if (data == NULL) {
        if (error.reason == GT_SYNTAX_OUT_OF_MEMORY) {
            stream->out_of_memory = true;
            return 1;
        }
        return stream_fail(stream, GT_STREAM_SSE_BAD_JSON, event->index, "event %zu data is not JSON: %s (%s)",
                           event->index, gt_syntax_reason_code(error.reason), error.message);
    }
    if (data->type != GT_OBJECT)
        return stream_fail(stream, GT_STREAM_SSE_BAD_JSON, event->index, "event %zu data is %s, not an object",
                           event->index, gt_type_name(data->type));
    if (stream->provider == GT_PROVIDER_OPENAI) {
        if (stream->terminal)
            return stream_fail(stream, GT_STREAM_SSE_OUT_OF_ORDER, event->index, "a chunk after [DONE]");
        return openai_chunk(stream, data, event->index);
    }
    const char *type = string_member(data, "type");
    if (type == NULL)
        return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event->index, "event %zu data has no string type",
                           event->index);
    if (event->has_type && (strlen(type) != event->type_len || memcmp(type, event->type, event->type_len) != 0))
        return stream_fail(stream, GT_STREAM_SSE_BAD_EVENT, event->index, "event: %.*s carries data.type %s",
                           (int)(event->type_len > 60 ? 60 : event->type_len), event->type, type);
    return anthropic_event(stream, type, data, event->index);
}

gt_stream *gt_stream_new(gt_stream_provider provider, gt_arena *arena)
{
    gt_stream *stream = calloc(1, sizeof *stream);
    if (stream == NULL)
        return NULL;
    stream->provider = provider;
    stream->arena = arena;
    stream->open_block = -1;
    stream->text_block = -1;
    stream->scratch = gt_arena_new();
    stream->sse = gt_sse_parser_new(on_event, stream);
    if (stream->scratch == NULL || stream->sse == NULL) {
        gt_stream_free(stream);
        return NULL;
    }
    return stream;
}

void gt_stream_free(gt_stream *stream)
{
    if (stream == NULL)
        return;
    for (size_t i = 0; i < stream->block_count; i++) {
        pending_block *block = &stream->blocks[i];
        free(block->id);
        free(block->name);
        free(block->start_input);
        gt_buffer_free(&block->text);
        gt_buffer_free(&block->input);
    }
    free(stream->blocks);
    free(stream->message_id);
    free(stream->stop_reason);
    gt_sse_parser_free(stream->sse);
    gt_arena_free(stream->scratch);
    free(stream);
}

int gt_stream_feed(gt_stream *stream, const char *bytes, size_t len)
{
    if (stream->fault != GT_STREAM_OK || stream->out_of_memory)
        return stream->out_of_memory ? -1 : 0;
    int status = gt_sse_parser_feed(stream->sse, bytes, len);
    if (status < 0)
        stream->out_of_memory = true;
    return stream->out_of_memory ? -1 : 0;
}

static const char *arena_copy(gt_stream *stream, const char *text, size_t len)
{
    const char *copy = gt_arena_strndup(stream->arena, text ? text : "", text ? len : 0);
    if (copy == NULL)
        stream->out_of_memory = true;
    return copy;
}

/* Copy the pending blocks into an arena message (only completed blocks: a
 * stream that reached its terminal event has no other kind). */
/* The message the stream carried. With `inputs` false (a stream that failed
 * in transport) the tool_use blocks keep their id and name but no input: the
 * partial object never leaves this module. */
static gt_message *build_message(gt_stream *stream, bool inputs)
{
    gt_message *message = gt_arena_alloc(stream->arena, sizeof *message);
    if (message == NULL)
        return NULL;
    *message = (gt_message){0};
    message->blocks = gt_arena_alloc(stream->arena, (stream->block_count ? stream->block_count : 1) * sizeof(gt_block));
    if (message->blocks == NULL)
        return NULL;
    for (size_t i = 0; i < stream->block_count; i++) {
        const pending_block *pending = &stream->blocks[i];
        if (pending->ignored || pending->text.failed || pending->input.failed) {
            stream->out_of_memory = stream->out_of_memory || pending->text.failed || pending->input.failed;
            continue;
        }
        gt_block *block = &message->blocks[message->block_count++];
        memset(block, 0, sizeof *block);
        block->type = pending->type;
        block->text = arena_copy(stream, pending->text.data, pending->text.len);
        block->text_len = pending->text.len;
        if (pending->type == GT_BLOCK_TOOL_USE) {
            block->id = arena_copy(stream, pending->id, pending->id ? strlen(pending->id) : 0);
            block->name = arena_copy(stream, pending->name, pending->name ? strlen(pending->name) : 0);
            if (!inputs) {
                block->input_parsed = true; /* never: there is nothing to parse */
            } else if (pending->input.len > 0) {
                block->input_text = arena_copy(stream, pending->input.data, pending->input.len);
                block->input_len = pending->input.len;
            } else {
                /* No delta: the start event's input ({} for Anthropic), or {} for OpenAI. */
                const char *start = pending->start_input ? pending->start_input : "{}";
                block->input_text = arena_copy(stream, start, strlen(start));
                block->input_len = strlen(start);
            }
        }
    }
    if (stream->message_id != NULL)
        message->id = arena_copy(stream, stream->message_id, strlen(stream->message_id));
    const char *stop = stream->refused ? "refusal" : stream->stop_reason;
    if (stop != NULL)
        message->stop_reason = arena_copy(stream, stop, strlen(stop));
    message->usage = stream->usage;
    return stream->out_of_memory ? NULL : message;
}

gt_stream_reason gt_stream_finish(gt_stream *stream, gt_stream_result *result)
{
    memset(result, 0, sizeof *result);
    result->event_count = stream->events;
    result->event_index = stream->events;
    result->usage = stream->usage;
    if (stream->out_of_memory) {
        result->reason = GT_STREAM_OUT_OF_MEMORY;
        snprintf(result->detail, sizeof result->detail, "out of memory");
        return result->reason;
    }
    if (stream->fault != GT_STREAM_OK) {
        result->reason = stream->fault;
        result->event_index = stream->fault_event;
        snprintf(result->detail, sizeof result->detail, "%s", stream->detail);
        result->partial = build_message(stream, false);
        return result->reason;
    }
    if (!stream->terminal) {
        result->reason = GT_STREAM_TRUNCATED;
        const char *where = gt_sse_parser_pending(stream->sse) ? "inside an event" : "between events";
        snprintf(result->detail, sizeof result->detail, "the stream ended %s after %zu complete event%s, before %s",
                 where, stream->events, stream->events == 1 ? "" : "s",
                 stream->provider == GT_PROVIDER_OPENAI ? "data: [DONE]" : "message_stop");
        result->partial = build_message(stream, false);
        return result->reason;
    }
    result->message = build_message(stream, true);
    if (result->message == NULL) {
        result->reason = GT_STREAM_OUT_OF_MEMORY;
        return result->reason;
    }
    /* stop_reason first: a refusal or a cut-off response is never parsed. */
    result->reason = gt_message_classify(result->message);
    if (result->reason == GT_STREAM_OK) {
        if (gt_message_parse_inputs(result->message, stream->arena) != 0)
            result->reason = GT_STREAM_OUT_OF_MEMORY;
    } else {
        snprintf(result->detail, sizeof result->detail, "complete response classified %s (stop_reason %s)",
                 gt_stream_reason_code(result->reason),
                 result->message->stop_reason ? result->message->stop_reason : "none");
    }
    return result->reason;
}

gt_stream_reason gt_stream_assemble(gt_stream_provider provider, const char *bytes, size_t len, gt_arena *arena,
                                    gt_stream_result *result)
{
    gt_stream *stream = gt_stream_new(provider, arena);
    if (stream == NULL || gt_stream_feed(stream, bytes, len) != 0) {
        gt_stream_free(stream);
        memset(result, 0, sizeof *result);
        result->reason = GT_STREAM_OUT_OF_MEMORY;
        return result->reason;
    }
    gt_stream_reason reason = gt_stream_finish(stream, result);
    gt_stream_free(stream);
    return reason;
}
