/* responses.c — OpenAI Responses API writers (`POST /v1/responses`): a turn
 * as a `response` object, or as its SSE event stream (response.created,
 * response.in_progress, response.output_item.added, response.content_part.added,
 * response.output_text.delta / .done, response.refusal.delta / .done,
 * response.function_call_arguments.delta / .done, response.content_part.done,
 * response.output_item.done, then response.completed or response.incomplete).
 *
 * Text blocks become one `message` item with an `output_text` part each
 * (`refusal` parts for a refusal), tool calls `function_call` items whose
 * `arguments` carry the script's raw input byte for byte, thinking a
 * `reasoning` item. max_tokens and content_filter end the response
 * `incomplete` with the reason. A provider failure after the blocks (a
 * fallback played on the wire) is an `error` event and an abrupt close.
 * Errors use OpenAI's error shape (openai.c). Not for: choosing the turn
 * (server.c) or the answer form (form.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mock_impl.h"

/* SSE events with their `sequence_number`, and the offsets where each ends. */
typedef struct event_writer {
    mock_buf buf;
    size_t *ends;
    size_t count, cap;
    bool failed;
} event_writer;

static void event_open(event_writer *w, const char *type)
{
    mock_buf_addf(&w->buf, "event: %s\ndata: {\"type\":\"%s\",\"sequence_number\":%zu", type, type, w->count);
}

static void event_close(event_writer *w)
{
    mock_buf_adds(&w->buf, "}\n\n");
    if (!mock_ends_push(&w->ends, &w->count, &w->cap, w->buf.len))
        w->failed = true;
}

int mock_reply_take_events(mock_reply *reply, mock_buf *buf, size_t *ends, size_t count, bool failed,
                           bool abort_at_end)
{
    free(reply->body);
    free(reply->event_ends);
    reply->body = mock_buf_take(buf, &reply->body_len);
    reply->event_ends = ends;
    reply->event_count = count;
    if (reply->body == NULL || failed)
        return -1;
    reply->status = 200;
    reply->stream = true;
    reply->abort_at_end = abort_at_end;
    snprintf(reply->content_type, sizeof reply->content_type, "text/event-stream; charset=utf-8");
    return 0;
}

static bool stopped_by(const mock_turn *turn, const char *reason)
{
    return turn->stop_reason && strcmp(turn->stop_reason, reason) == 0;
}

/* "incomplete" with a reason, or "completed". */
static const char *incomplete_reason(const mock_turn *turn)
{
    if (stopped_by(turn, "max_tokens"))
        return "max_output_tokens";
    if (stopped_by(turn, "content_filter"))
        return "content_filter";
    return NULL;
}

/* Output items in order: the message (all text blocks) where its first text
 * block stands, every tool call and thinking block as its own item. */
typedef struct item_plan {
    const mock_block *block; /* NULL for the message item */
    size_t index;            /* output_index */
} item_plan;

static size_t plan_items(const mock_turn *turn, item_plan *items)
{
    size_t count = 0;
    bool message = false;
    for (size_t i = 0; i < turn->block_count; i++) {
        const mock_block *block = &turn->blocks[i];
        if (block->kind == MOCK_BLOCK_TEXT) {
            if (message)
                continue;
            message = true;
            items[count] = (item_plan){NULL, count};
        } else {
            items[count] = (item_plan){block, count};
        }
        count++;
    }
    return count;
}

static void add_id(mock_buf *buf, const char *prefix, const mock_request *request, size_t index)
{
    mock_buf_addf(buf, "\"%s_%s%02zx\"", prefix, request->request_id + 4, index);
}

static void add_part(mock_buf *buf, const mock_block *block, bool refusal, bool filled)
{
    if (refusal) {
        mock_buf_adds(buf, "{\"type\":\"refusal\",\"refusal\":");
    } else {
        mock_buf_adds(buf, "{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":");
    }
    mock_buf_add_json_string(buf, filled ? block->text : "", filled ? block->text_len : 0);
    mock_buf_adds(buf, "}");
}

/* One output item; `filled` false gives the in-progress form of
 * response.output_item.added (no content, empty arguments). */
static void add_item(mock_buf *buf, const mock_request *request, const mock_turn *turn, const item_plan *item,
                     bool filled)
{
    const char *status = !filled ? "in_progress" : incomplete_reason(turn) ? "incomplete" : "completed";
    const mock_block *block = item->block;
    if (block == NULL) {
        mock_buf_adds(buf, "{\"type\":\"message\",\"id\":");
        add_id(buf, "msg", request, item->index);
        mock_buf_addf(buf, ",\"status\":\"%s\",\"role\":\"assistant\",\"content\":[", status);
        size_t parts = 0;
        for (size_t i = 0; filled && i < turn->block_count; i++) {
            if (turn->blocks[i].kind != MOCK_BLOCK_TEXT)
                continue;
            if (parts++)
                mock_buf_adds(buf, ",");
            add_part(buf, &turn->blocks[i], stopped_by(turn, "refusal"), true);
        }
        mock_buf_adds(buf, "]}");
    } else if (block->kind == MOCK_BLOCK_TOOL_USE) {
        mock_buf_adds(buf, "{\"type\":\"function_call\",\"id\":");
        add_id(buf, "fc", request, item->index);
        mock_buf_adds(buf, ",\"call_id\":");
        mock_buf_add_json_cstr(buf, block->id);
        mock_buf_adds(buf, ",\"name\":");
        mock_buf_add_json_cstr(buf, block->name);
        mock_buf_adds(buf, ",\"arguments\":");
        mock_buf_add_json_string(buf, filled ? block->input_raw : "", filled ? block->input_len : 0);
        mock_buf_addf(buf, ",\"status\":\"%s\"}", status);
    } else {
        mock_buf_adds(buf, "{\"type\":\"reasoning\",\"id\":");
        add_id(buf, "rs", request, item->index);
        mock_buf_adds(buf, ",\"summary\":[");
        if (filled) {
            mock_buf_adds(buf, "{\"type\":\"summary_text\",\"text\":");
            mock_buf_add_json_string(buf, block->text, block->text_len);
            mock_buf_adds(buf, "}");
        }
        mock_buf_adds(buf, "]}");
    }
}

static void add_usage(mock_buf *buf, const mock_turn *turn)
{
    long in = turn->input_tokens < 0 ? 0 : turn->input_tokens;
    long out = turn->output_tokens < 0 ? 0 : turn->output_tokens;
    long cached = turn->cache_read_tokens < 0 ? 0 : turn->cache_read_tokens;
    mock_buf_addf(buf,
                  "{\"input_tokens\":%ld,\"input_tokens_details\":{\"cached_tokens\":%ld},\"output_tokens\":%ld,"
                  "\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":%ld}",
                  in, cached, out, in + out);
}

/* The response object; `done` false gives the in-progress form of
 * response.created (no output, no usage). */
static void add_response(mock_buf *buf, const mock_request *request, const mock_turn *turn, const item_plan *items,
                         size_t item_count, bool done)
{
    const char *incomplete = incomplete_reason(turn);
    mock_buf_adds(buf, "{\"id\":\"resp_");
    mock_buf_adds(buf, request->request_id + 4);
    mock_buf_addf(buf, "\",\"object\":\"response\",\"created_at\":%ld,\"status\":\"%s\",\"background\":false,"
                       "\"error\":null,\"incomplete_details\":",
                  (long)time(NULL), !done ? "in_progress" : incomplete ? "incomplete" : "completed");
    if (done && incomplete)
        mock_buf_addf(buf, "{\"reason\":\"%s\"}", incomplete);
    else
        mock_buf_adds(buf, "null");
    mock_buf_adds(buf, ",\"instructions\":null,\"max_output_tokens\":null,\"model\":");
    mock_buf_add_json_cstr(buf, turn->model ? turn->model : request->model ? request->model : "gpt-gauntlet-mock");
    mock_buf_adds(buf, ",\"output\":[");
    for (size_t i = 0; done && i < item_count; i++) {
        if (i)
            mock_buf_adds(buf, ",");
        add_item(buf, request, turn, &items[i], true);
    }
    mock_buf_adds(buf, "],\"parallel_tool_calls\":true,\"previous_response_id\":null,\"reasoning\":{\"effort\":null,"
                       "\"summary\":null},\"store\":false,\"temperature\":1.0,\"text\":{\"format\":{\"type\":\"text\"}},"
                       "\"tool_choice\":\"auto\",\"tools\":[],\"top_p\":1.0,\"truncation\":\"disabled\",\"usage\":");
    if (done)
        add_usage(buf, turn);
    else
        mock_buf_adds(buf, "null");
    mock_buf_adds(buf, ",\"user\":null,\"metadata\":{}}");
}

static int render_json(const mock_request *request, const mock_turn *turn, const item_plan *items, size_t count,
                       mock_reply *reply)
{
    mock_buf buf;
    mock_buf_init(&buf);
    add_response(&buf, request, turn, items, count, true);
    free(reply->body);
    reply->body = mock_buf_take(&buf, &reply->body_len);
    reply->status = 200;
    reply->stream = false;
    snprintf(reply->content_type, sizeof reply->content_type, "application/json");
    return reply->body ? 0 : -1;
}

/* The events of one message item's text parts. */
static void stream_message(event_writer *w, const mock_request *request, const mock_turn *turn, const item_plan *item)
{
    bool refusal = stopped_by(turn, "refusal");
    size_t part = 0;
    for (size_t i = 0; i < turn->block_count; i++) {
        const mock_block *block = &turn->blocks[i];
        if (block->kind != MOCK_BLOCK_TEXT)
            continue;
        const char *kind = refusal ? "refusal" : "output_text";
        const char *field = refusal ? "refusal" : "text";
        char delta_type[48], done_type[48];
        snprintf(delta_type, sizeof delta_type, "response.%s.delta", kind);
        snprintf(done_type, sizeof done_type, "response.%s.done", kind);
        event_open(w, "response.content_part.added");
        mock_buf_adds(&w->buf, ",\"item_id\":");
        add_id(&w->buf, "msg", request, item->index);
        mock_buf_addf(&w->buf, ",\"output_index\":%zu,\"content_index\":%zu,\"part\":", item->index, part);
        add_part(&w->buf, block, refusal, false);
        event_close(w);
        event_open(w, delta_type);
        mock_buf_adds(&w->buf, ",\"item_id\":");
        add_id(&w->buf, "msg", request, item->index);
        mock_buf_addf(&w->buf, ",\"output_index\":%zu,\"content_index\":%zu,\"delta\":", item->index, part);
        mock_buf_add_json_string(&w->buf, block->text, block->text_len);
        mock_buf_adds(&w->buf, refusal ? "" : ",\"logprobs\":[]");
        event_close(w);
        event_open(w, done_type);
        mock_buf_adds(&w->buf, ",\"item_id\":");
        add_id(&w->buf, "msg", request, item->index);
        mock_buf_addf(&w->buf, ",\"output_index\":%zu,\"content_index\":%zu,\"%s\":", item->index, part, field);
        mock_buf_add_json_string(&w->buf, block->text, block->text_len);
        mock_buf_adds(&w->buf, refusal ? "" : ",\"logprobs\":[]");
        event_close(w);
        event_open(w, "response.content_part.done");
        mock_buf_adds(&w->buf, ",\"item_id\":");
        add_id(&w->buf, "msg", request, item->index);
        mock_buf_addf(&w->buf, ",\"output_index\":%zu,\"content_index\":%zu,\"part\":", item->index, part);
        add_part(&w->buf, block, refusal, true);
        event_close(w);
        part++;
    }
}

static void stream_arguments(event_writer *w, const mock_request *request, const item_plan *item)
{
    const mock_block *block = item->block;
    event_open(w, "response.function_call_arguments.delta");
    mock_buf_adds(&w->buf, ",\"item_id\":");
    add_id(&w->buf, "fc", request, item->index);
    mock_buf_addf(&w->buf, ",\"output_index\":%zu,\"delta\":", item->index);
    mock_buf_add_json_string(&w->buf, block->input_raw, block->input_len);
    event_close(w);
    event_open(w, "response.function_call_arguments.done");
    mock_buf_adds(&w->buf, ",\"item_id\":");
    add_id(&w->buf, "fc", request, item->index);
    mock_buf_addf(&w->buf, ",\"output_index\":%zu,\"name\":", item->index);
    mock_buf_add_json_cstr(&w->buf, block->name);
    mock_buf_adds(&w->buf, ",\"arguments\":");
    mock_buf_add_json_string(&w->buf, block->input_raw, block->input_len);
    event_close(w);
}

static int render_stream(const mock_request *request, const mock_turn *turn, const item_plan *items, size_t count,
                         mock_reply *reply)
{
    event_writer w = {0};
    mock_buf_init(&w.buf);
    const char *starts[] = {"response.created", "response.in_progress"};
    for (size_t i = 0; i < 2; i++) {
        event_open(&w, starts[i]);
        mock_buf_adds(&w.buf, ",\"response\":");
        add_response(&w.buf, request, turn, items, count, false);
        event_close(&w);
    }
    for (size_t i = 0; i < count; i++) {
        event_open(&w, "response.output_item.added");
        mock_buf_addf(&w.buf, ",\"output_index\":%zu,\"item\":", items[i].index);
        add_item(&w.buf, request, turn, &items[i], false);
        event_close(&w);
        if (items[i].block == NULL)
            stream_message(&w, request, turn, &items[i]);
        else if (items[i].block->kind == MOCK_BLOCK_TOOL_USE)
            stream_arguments(&w, request, &items[i]);
        event_open(&w, "response.output_item.done");
        mock_buf_addf(&w.buf, ",\"output_index\":%zu,\"item\":", items[i].index);
        add_item(&w.buf, request, turn, &items[i], true);
        event_close(&w);
    }
    if (turn->fail_after_blocks) {
        /* the provider fails the response: no response.completed */
        event_open(&w, "error");
        mock_buf_adds(&w.buf, ",\"code\":\"server_error\",\"message\":\"The server is overloaded\",\"param\":null");
        event_close(&w);
    } else {
        event_open(&w, incomplete_reason(turn) ? "response.incomplete" : "response.completed");
        mock_buf_adds(&w.buf, ",\"response\":");
        add_response(&w.buf, request, turn, items, count, true);
        event_close(&w);
    }
    return mock_reply_take_events(reply, &w.buf, w.ends, w.count, w.failed, turn->fail_after_blocks);
}

int mock_responses_render(const mock_request *request, const mock_turn *turn, mock_reply *reply)
{
    item_plan *items = malloc((turn->block_count + 1) * sizeof *items);
    if (items == NULL)
        return -1;
    size_t count = plan_items(turn, items);
    int rc = request->stream ? render_stream(request, turn, items, count, reply)
                             : render_json(request, turn, items, count, reply);
    free(items);
    return rc;
}
