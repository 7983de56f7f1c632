/* stream_render.c — a message as the event stream a provider would send.
 *
 * The script player and the mock server both turn "this is what the model
 * answers" into SSE bytes here, so the parser in sse.c/stream.c is always
 * fed exactly what a server emits. Deltas are cut at UTF-8 code point
 * boundaries (a provider never splits a character inside a JSON string).
 * Not for: parsing (stream.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/parse.h"
#include "gauntlet/stream.h"

#define DEFAULT_CHUNK_BYTES 16u

typedef gt_value_builder builder;

static gt_value *check(builder *b, gt_value *value)
{
    return gt_build(b, value);
}

static void put(builder *b, gt_value *object, const char *key, gt_value *value)
{
    gt_build_put(b, object, key, value);
}

static void put_cstring(builder *b, gt_value *object, const char *key, const char *text)
{
    gt_build_put_string(b, object, key, text, text ? strlen(text) : 0);
}

static gt_value *new_object(builder *b)
{
    return check(b, gt_value_new_object(b->arena));
}

static void add_event(builder *b, gt_value *events, const char *name, gt_value *data)
{
    gt_value *item = new_object(b);
    if (name != NULL)
        put_cstring(b, item, "event", name);
    else
        gt_build_put_null(b, item, "event");
    put(b, item, "data", data);
    if (item == NULL || gt_value_array_append(b->arena, events, item) != 0)
        b->failed = true;
}

/* Length of the next chunk of at most `max` bytes ending on a code point boundary. */
static size_t chunk_length(const char *text, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t cut = max;
    while (cut > 0 && ((unsigned char)text[cut] & 0xC0u) == 0x80u)
        cut--;
    if (cut == 0) { /* one code point longer than max: take it whole */
        cut = 1;
        while (cut < len && ((unsigned char)text[cut] & 0xC0u) == 0x80u)
            cut++;
    }
    return cut;
}

static void anthropic_events(builder *b, gt_value *events, const gt_message *message, size_t chunk,
                             const char *model)
{
    gt_value *data = new_object(b), *inner = new_object(b), *usage = new_object(b);
    put_cstring(b, data, "type", "message_start");
    put_cstring(b, inner, "id", message->id ? message->id : "msg_gauntlet");
    put_cstring(b, inner, "type", "message");
    put_cstring(b, inner, "role", "assistant");
    put_cstring(b, inner, "model", model ? model : "gauntlet-scripted");
    put(b, inner, "content", check(b, gt_value_new_array(b->arena)));
    gt_build_put_null(b, inner, "stop_reason");
    gt_build_put_null(b, inner, "stop_sequence");
    gt_build_put_number(b, usage, "input_tokens", message->usage.input_tokens);
    gt_build_put_number(b, usage, "cache_creation_input_tokens", message->usage.cache_creation_input_tokens);
    gt_build_put_number(b, usage, "cache_read_input_tokens", message->usage.cache_read_input_tokens);
    gt_build_put_number(b, usage, "output_tokens", message->usage.output_tokens > 0 ? 1 : 0);
    put(b, inner, "usage", usage);
    put(b, data, "message", inner);
    add_event(b, events, "message_start", data);

    for (size_t i = 0; i < message->block_count; i++) {
        const gt_block *block = &message->blocks[i];
        if (block->type == GT_BLOCK_TOOL_RESULT)
            continue;
        gt_value *start = new_object(b), *content = new_object(b);
        put_cstring(b, start, "type", "content_block_start");
        gt_build_put_number(b, start, "index", (long long)i);
        const char *delta_type = "text_delta", *field = "text";
        const char *text = block->text;
        size_t len = block->text_len;
        if (block->type == GT_BLOCK_TOOL_USE) {
            put_cstring(b, content, "type", "tool_use");
            put_cstring(b, content, "id", block->id);
            put_cstring(b, content, "name", block->name);
            put(b, content, "input", new_object(b));
            delta_type = "input_json_delta", field = "partial_json";
            text = block->input_text, len = block->input_len;
        } else if (block->type == GT_BLOCK_THINKING) {
            put_cstring(b, content, "type", "thinking");
            put_cstring(b, content, "thinking", "");
            delta_type = "thinking_delta", field = "thinking";
        } else {
            put_cstring(b, content, "type", "text");
            put_cstring(b, content, "text", "");
        }
        put(b, start, "content_block", content);
        add_event(b, events, "content_block_start", start);
        for (size_t at = 0; text != NULL && at < len;) {
            size_t piece = chunk_length(text + at, len - at, chunk);
            gt_value *delta_event = new_object(b), *delta = new_object(b);
            put_cstring(b, delta_event, "type", "content_block_delta");
            gt_build_put_number(b, delta_event, "index", (long long)i);
            put_cstring(b, delta, "type", delta_type);
            gt_build_put_string(b, delta, field, text + at, piece);
            put(b, delta_event, "delta", delta);
            add_event(b, events, "content_block_delta", delta_event);
            at += piece;
        }
        gt_value *stop = new_object(b);
        put_cstring(b, stop, "type", "content_block_stop");
        gt_build_put_number(b, stop, "index", (long long)i);
        add_event(b, events, "content_block_stop", stop);
    }

    gt_value *delta_event = new_object(b), *delta = new_object(b), *delta_usage = new_object(b);
    put_cstring(b, delta_event, "type", "message_delta");
    put_cstring(b, delta, "stop_reason", message->stop_reason ? message->stop_reason : "end_turn");
    gt_build_put_null(b, delta, "stop_sequence");
    put(b, delta_event, "delta", delta);
    gt_build_put_number(b, delta_usage, "output_tokens", message->usage.output_tokens);
    put(b, delta_event, "usage", delta_usage);
    add_event(b, events, "message_delta", delta_event);
    gt_value *stop = new_object(b);
    put_cstring(b, stop, "type", "message_stop");
    add_event(b, events, "message_stop", stop);
}

/* One chat.completion.chunk with a single choice. */
static gt_value *openai_chunk(builder *b, const gt_message *message, const char *model, gt_value *delta,
                              const char *finish)
{
    gt_value *chunk = new_object(b), *choices = check(b, gt_value_new_array(b->arena)), *choice = new_object(b);
    put_cstring(b, chunk, "id", message->id ? message->id : "chatcmpl-gauntlet");
    put_cstring(b, chunk, "object", "chat.completion.chunk");
    gt_build_put_number(b, chunk, "created", 0);
    put_cstring(b, chunk, "model", model ? model : "gauntlet-scripted");
    gt_build_put_number(b, choice, "index", 0);
    put(b, choice, "delta", delta);
    if (finish != NULL)
        put_cstring(b, choice, "finish_reason", finish);
    else
        gt_build_put_null(b, choice, "finish_reason");
    if (choices == NULL || choice == NULL || gt_value_array_append(b->arena, choices, choice) != 0)
        b->failed = true;
    put(b, chunk, "choices", choices);
    return chunk;
}

static void openai_events(builder *b, gt_value *events, const gt_message *message, size_t chunk, const char *model)
{
    bool refusal = message->stop_reason != NULL && strcmp(message->stop_reason, "refusal") == 0;
    gt_value *first = new_object(b);
    put_cstring(b, first, "role", "assistant");
    add_event(b, events, NULL, openai_chunk(b, message, model, first, NULL));
    int call_index = 0;
    for (size_t i = 0; i < message->block_count; i++) {
        const gt_block *block = &message->blocks[i];
        if (block->type == GT_BLOCK_TEXT) {
            for (size_t at = 0; at < block->text_len;) {
                size_t piece = chunk_length(block->text + at, block->text_len - at, chunk);
                gt_value *delta = new_object(b);
                gt_build_put_string(b, delta, refusal ? "refusal" : "content", block->text + at, piece);
                add_event(b, events, NULL, openai_chunk(b, message, model, delta, NULL));
                at += piece;
            }
        } else if (block->type == GT_BLOCK_TOOL_USE) {
            size_t at = 0;
            bool first_piece = true;
            do {
                size_t piece = block->input_len ? chunk_length(block->input_text + at, block->input_len - at, chunk) : 0;
                gt_value *delta = new_object(b), *calls = check(b, gt_value_new_array(b->arena));
                gt_value *call = new_object(b), *function = new_object(b);
                gt_build_put_number(b, call, "index", call_index);
                if (first_piece) {
                    put_cstring(b, call, "id", block->id);
                    put_cstring(b, call, "type", "function");
                    put_cstring(b, function, "name", block->name);
                }
                gt_build_put_string(b, function, "arguments", block->input_text ? block->input_text + at : "", piece);
                put(b, call, "function", function);
                if (calls == NULL || call == NULL || gt_value_array_append(b->arena, calls, call) != 0)
                    b->failed = true;
                put(b, delta, "tool_calls", calls);
                add_event(b, events, NULL, openai_chunk(b, message, model, delta, NULL));
                at += piece;
                first_piece = false;
            } while (at < block->input_len);
            call_index++;
        }
    }
    const char *stop = message->stop_reason ? message->stop_reason : "end_turn";
    const char *finish = strcmp(stop, "tool_use") == 0     ? "tool_calls"
                         : strcmp(stop, "max_tokens") == 0 ? "length"
                         : refusal                          ? "stop"
                                                            : "stop";
    add_event(b, events, NULL, openai_chunk(b, message, model, new_object(b), finish));
    gt_value *usage_chunk = openai_chunk(b, message, model, new_object(b), NULL);
    /* the usage chunk has an empty choices array */
    if (usage_chunk != NULL) {
        for (size_t i = 0; i < usage_chunk->u.obj.count; i++)
            if (strcmp(usage_chunk->u.obj.members[i].key, "choices") == 0)
                usage_chunk->u.obj.members[i].value = check(b, gt_value_new_array(b->arena));
        gt_value *usage = new_object(b), *details = new_object(b);
        long long prompt = message->usage.input_tokens + message->usage.cache_read_input_tokens;
        gt_build_put_number(b, usage, "prompt_tokens", prompt);
        gt_build_put_number(b, usage, "completion_tokens", message->usage.output_tokens);
        gt_build_put_number(b, usage, "total_tokens", prompt + message->usage.output_tokens);
        gt_build_put_number(b, details, "cached_tokens", message->usage.cache_read_input_tokens);
        put(b, usage, "prompt_tokens_details", details);
        put(b, usage_chunk, "usage", usage);
    }
    add_event(b, events, NULL, usage_chunk);
    add_event(b, events, NULL, check(b, gt_value_new_string(b->arena, "[DONE]", 6)));
}

gt_value *gt_stream_events_from_message(const gt_message *message, gt_stream_provider provider, size_t chunk_bytes,
                                        const char *model, gt_arena *arena)
{
    builder b = {.arena = arena, .failed = false};
    gt_value *events = check(&b, gt_value_new_array(arena));
    if (events == NULL)
        return NULL;
    size_t chunk = chunk_bytes ? chunk_bytes : DEFAULT_CHUNK_BYTES;
    if (provider == GT_PROVIDER_OPENAI)
        openai_events(&b, events, message, chunk, model);
    else
        anthropic_events(&b, events, message, chunk, model);
    return b.failed ? NULL : events;
}

int gt_stream_render_events(const gt_value *events, gt_stream_provider provider, gt_buffer *out, size_t *event_ends,
                            size_t *bad_index)
{
    if (events == NULL || events->type != GT_ARRAY)
        return -1;
    for (size_t i = 0; i < events->u.arr.count; i++) {
        const gt_value *item = events->u.arr.items[i];
        const gt_value *data = item;
        const char *name = NULL;
        const gt_value *event_field = item->type == GT_OBJECT ? gt_value_get(item, "event", 5) : NULL;
        const gt_value *data_field = item->type == GT_OBJECT ? gt_value_get(item, "data", 4) : NULL;
        if (data_field != NULL) {
            data = data_field;
            if (event_field != NULL && event_field->type == GT_STRING)
                name = event_field->u.str.chars;
        } else if (provider == GT_PROVIDER_ANTHROPIC && item->type == GT_OBJECT) {
            const gt_value *type = gt_value_get(item, "type", 4);
            if (type != NULL && type->type == GT_STRING)
                name = type->u.str.chars;
        }
        if (data->type == GT_STRING) {
            gt_sse_write_event(out, name, data->u.str.chars, data->u.str.len);
        } else if (data->type == GT_OBJECT) {
            size_t len;
            char *json = gt_value_to_json(data, &len);
            if (json == NULL) {
                out->failed = true;
                return -1;
            }
            gt_sse_write_event(out, name, json, len);
            free(json);
        } else {
            if (bad_index != NULL)
                *bad_index = i;
            return -1;
        }
        if (event_ends != NULL)
            event_ends[i] = out->len;
    }
    return out->failed ? -1 : 0;
}
