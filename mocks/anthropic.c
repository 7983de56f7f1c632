/* anthropic.c — Anthropic Messages API writers: a turn as a JSON message or as
 * the exact SSE event sequence (message_start, content_block_start, ping,
 * content_block_delta with text_delta / input_json_delta / thinking_delta,
 * content_block_stop, message_delta with stop_reason and usage, message_stop),
 * the API's error shape, count_tokens and the models list.
 *
 * Tool input is written byte for byte from the script: in a stream it travels
 * inside input_json_delta strings; in a JSON message it is spliced in as the
 * `input` value when it is one JSON value, otherwise `input` is {} and the
 * exact text rides along in `gauntlet_raw_input` (a real client ignores it).
 * Not for: choosing the turn (server.c) or faults (faults.c). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "mock_impl.h"

void mock_reply_init(mock_reply *reply)
{
    memset(reply, 0, sizeof *reply);
    reply->status = 200;
    reply->retry_after = -1;
    snprintf(reply->content_type, sizeof reply->content_type, "application/json");
    mock_faults_init(&reply->faults);
}

void mock_reply_free(mock_reply *reply)
{
    free(reply->body);
    free(reply->event_ends);
    free(reply->notices_header);
    reply->body = NULL;
    reply->event_ends = NULL;
    reply->notices_header = NULL;
}

const char *mock_anthropic_error_type(int status)
{
    switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 402: return "billing_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 405: return "invalid_request_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 504: return "timeout_error";
    case 529: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
    }
}

static int finish(mock_reply *reply, mock_buf *buf)
{
    free(reply->body);
    reply->body = mock_buf_take(buf, &reply->body_len);
    return reply->body ? 0 : -1;
}

int mock_anthropic_error(mock_reply *reply, int status, const char *type, const char *message,
                         const char *request_id)
{
    mock_buf buf;
    mock_buf_init(&buf);
    reply->status = status;
    reply->stream = false;
    snprintf(reply->content_type, sizeof reply->content_type, "application/json");
    mock_buf_adds(&buf, "{\"type\":\"error\",\"error\":{\"type\":");
    mock_buf_add_json_cstr(&buf, type ? type : mock_anthropic_error_type(status));
    mock_buf_adds(&buf, ",\"message\":");
    mock_buf_add_json_cstr(&buf, message ? message : "error");
    mock_buf_adds(&buf, "}");
    if (request_id) {
        mock_buf_adds(&buf, ",\"request_id\":");
        mock_buf_add_json_cstr(&buf, request_id);
    }
    mock_buf_adds(&buf, "}");
    return finish(reply, &buf);
}

/* True when `raw` is one JSON value a strict client parser (JSON.parse) takes:
 * then it can be spliced into a message body as it is. */
static bool splices_cleanly(const char *raw, size_t len)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return false;
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    gt_parse_error error;
    gt_value *value = gt_parse(arena, raw, len, &options, &error);
    gt_arena_free(arena);
    return value != NULL || error.reason == GT_SYNTAX_DUPLICATE_KEY;
}

static const char *model_of(const mock_request *request, const mock_turn *turn)
{
    if (turn && turn->model)
        return turn->model;
    return request->model ? request->model : "claude-gauntlet-mock";
}

static long tokens(long value)
{
    return value < 0 ? 0 : value;
}

static void add_usage(mock_buf *buf, const mock_turn *turn, bool start)
{
    mock_buf_adds(buf, "{\"input_tokens\":");
    mock_buf_add_int(buf, tokens(turn->input_tokens));
    mock_buf_adds(buf, ",\"cache_creation_input_tokens\":");
    mock_buf_add_int(buf, tokens(turn->cache_creation_tokens));
    mock_buf_adds(buf, ",\"cache_read_input_tokens\":");
    mock_buf_add_int(buf, tokens(turn->cache_read_tokens));
    mock_buf_adds(buf, ",\"output_tokens\":");
    mock_buf_add_int(buf, start ? (turn->output_tokens > 0 ? 1L : 0L) : tokens(turn->output_tokens));
    mock_buf_adds(buf, ",\"service_tier\":\"standard\"}");
}

static void add_block_json(mock_buf *buf, const mock_block *block)
{
    switch (block->kind) {
    case MOCK_BLOCK_TEXT:
        mock_buf_adds(buf, "{\"type\":\"text\",\"text\":");
        mock_buf_add_json_string(buf, block->text, block->text_len);
        mock_buf_adds(buf, "}");
        break;
    case MOCK_BLOCK_THINKING:
        mock_buf_adds(buf, "{\"type\":\"thinking\",\"thinking\":");
        mock_buf_add_json_string(buf, block->text, block->text_len);
        mock_buf_adds(buf, ",\"signature\":");
        mock_buf_add_json_cstr(buf, block->signature ? block->signature : "");
        mock_buf_adds(buf, "}");
        break;
    case MOCK_BLOCK_TOOL_USE:
        mock_buf_adds(buf, "{\"type\":\"tool_use\",\"id\":");
        mock_buf_add_json_cstr(buf, block->id);
        mock_buf_adds(buf, ",\"name\":");
        mock_buf_add_json_cstr(buf, block->name);
        mock_buf_adds(buf, ",\"input\":");
        if (splices_cleanly(block->input_raw, block->input_len)) {
            mock_buf_add(buf, block->input_raw, block->input_len);
        } else {
            mock_buf_adds(buf, "{},\"gauntlet_raw_input\":");
            mock_buf_add_json_string(buf, block->input_raw, block->input_len);
        }
        mock_buf_adds(buf, "}");
        break;
    }
}

static void add_message_head(mock_buf *buf, const mock_request *request, const mock_turn *turn)
{
    if (turn->message_id) {
        mock_buf_adds(buf, "{\"id\":");
        mock_buf_add_json_cstr(buf, turn->message_id);
    } else {
        mock_buf_adds(buf, "{\"id\":\"msg_");
        mock_buf_adds(buf, request->request_id + 4); /* "req_" + hex */
        mock_buf_adds(buf, "\"");
    }
    mock_buf_adds(buf, ",\"type\":\"message\",\"role\":\"assistant\",\"model\":");
    mock_buf_add_json_cstr(buf, model_of(request, turn));
}

static int render_message(const mock_request *request, const mock_turn *turn, mock_reply *reply)
{
    mock_buf buf;
    mock_buf_init(&buf);
    add_message_head(&buf, request, turn);
    mock_buf_adds(&buf, ",\"content\":[");
    for (size_t i = 0; i < turn->block_count; i++) {
        if (i)
            mock_buf_adds(&buf, ",");
        add_block_json(&buf, &turn->blocks[i]);
    }
    mock_buf_adds(&buf, "],\"stop_reason\":");
    mock_buf_add_json_cstr(&buf, turn->stop_reason);
    mock_buf_adds(&buf, ",\"stop_sequence\":null,\"usage\":");
    add_usage(&buf, turn, false);
    mock_buf_adds(&buf, "}");
    reply->status = 200;
    reply->stream = false;
    snprintf(reply->content_type, sizeof reply->content_type, "application/json");
    return finish(reply, &buf);
}

/* ---- SSE ---------------------------------------------------------------- */

typedef struct sse_writer {
    mock_buf buf;
    size_t *ends;
    size_t count, cap;
    bool failed;
} sse_writer;

static void sse_end_event(sse_writer *sse)
{
    if (sse->count == sse->cap) {
        size_t cap = sse->cap ? sse->cap * 2 : 16;
        size_t *grown = realloc(sse->ends, cap * sizeof *grown);
        if (grown == NULL) {
            sse->failed = true;
            return;
        }
        sse->ends = grown;
        sse->cap = cap;
    }
    sse->ends[sse->count++] = sse->buf.len;
}

/* `event: name\ndata: ` — the caller appends the data then calls sse_close. */
static void sse_open(sse_writer *sse, const char *name)
{
    if (name) {
        mock_buf_adds(&sse->buf, "event: ");
        mock_buf_adds(&sse->buf, name);
        mock_buf_adds(&sse->buf, "\n");
    }
    mock_buf_adds(&sse->buf, "data: ");
}

static void sse_close(sse_writer *sse)
{
    mock_buf_adds(&sse->buf, "\n\n");
    sse_end_event(sse);
}


static void sse_deltas(sse_writer *sse, size_t index, const char *delta_type, const char *field, const char *text,
                       size_t len, int piece_bytes)
{
    size_t at = 0;
    do {
        size_t piece = mock_utf8_piece(text + at, len - at, piece_bytes > 0 ? (size_t)piece_bytes : 0);
        sse_open(sse, "content_block_delta");
        mock_buf_addf(&sse->buf, "{\"type\":\"content_block_delta\",\"index\":%zu,\"delta\":{\"type\":\"%s\",\"%s\":",
                      index, delta_type, field);
        mock_buf_add_json_string(&sse->buf, text + at, piece);
        mock_buf_adds(&sse->buf, "}}");
        sse_close(sse);
        at += piece;
    } while (at < len);
}

static void take_sse(sse_writer *sse, mock_reply *reply)
{
    free(reply->body);
    free(reply->event_ends);
    reply->body = mock_buf_take(&sse->buf, &reply->body_len);
    reply->event_ends = sse->ends;
    reply->event_count = sse->count;
    if (reply->body == NULL || sse->failed) {
        free(reply->body);
        reply->body = NULL;
    }
    reply->status = 200;
    reply->stream = true;
    snprintf(reply->content_type, sizeof reply->content_type, "text/event-stream; charset=utf-8");
}

static int render_stream(const mock_request *request, const mock_turn *turn, mock_reply *reply)
{
    sse_writer sse = {0};
    mock_buf_init(&sse.buf);
    sse_open(&sse, "message_start");
    mock_buf_adds(&sse.buf, "{\"type\":\"message_start\",\"message\":");
    add_message_head(&sse.buf, request, turn);
    mock_buf_adds(&sse.buf, ",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":");
    add_usage(&sse.buf, turn, true);
    mock_buf_adds(&sse.buf, "}}");
    sse_close(&sse);
    bool pinged = false;
    for (size_t i = 0; i < turn->block_count; i++) {
        const mock_block *block = &turn->blocks[i];
        sse_open(&sse, "content_block_start");
        mock_buf_addf(&sse.buf, "{\"type\":\"content_block_start\",\"index\":%zu,\"content_block\":", i);
        switch (block->kind) {
        case MOCK_BLOCK_TEXT: mock_buf_adds(&sse.buf, "{\"type\":\"text\",\"text\":\"\"}"); break;
        case MOCK_BLOCK_THINKING: mock_buf_adds(&sse.buf, "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}"); break;
        case MOCK_BLOCK_TOOL_USE:
            mock_buf_adds(&sse.buf, "{\"type\":\"tool_use\",\"id\":");
            mock_buf_add_json_cstr(&sse.buf, block->id);
            mock_buf_adds(&sse.buf, ",\"name\":");
            mock_buf_add_json_cstr(&sse.buf, block->name);
            mock_buf_adds(&sse.buf, ",\"input\":{}}");
            break;
        }
        mock_buf_adds(&sse.buf, "}");
        sse_close(&sse);
        if (!pinged) {
            sse_open(&sse, "ping");
            mock_buf_adds(&sse.buf, "{\"type\": \"ping\"}");
            sse_close(&sse);
            pinged = true;
        }
        switch (block->kind) {
        case MOCK_BLOCK_TEXT:
            sse_deltas(&sse, i, "text_delta", "text", block->text, block->text_len, 0);
            break;
        case MOCK_BLOCK_THINKING:
            sse_deltas(&sse, i, "thinking_delta", "thinking", block->text, block->text_len, 0);
            sse_open(&sse, "content_block_delta");
            mock_buf_addf(&sse.buf, "{\"type\":\"content_block_delta\",\"index\":%zu,\"delta\":{\"type\":\"signature_delta\",\"signature\":", i);
            mock_buf_add_json_cstr(&sse.buf, block->signature ? block->signature : "");
            mock_buf_adds(&sse.buf, "}}");
            sse_close(&sse);
            break;
        case MOCK_BLOCK_TOOL_USE:
            sse_deltas(&sse, i, "input_json_delta", "partial_json", block->input_raw, block->input_len, 0);
            break;
        }
        sse_open(&sse, "content_block_stop");
        mock_buf_addf(&sse.buf, "{\"type\":\"content_block_stop\",\"index\":%zu}", i);
        sse_close(&sse);
    }
    if (!pinged) {
        sse_open(&sse, "ping");
        mock_buf_adds(&sse.buf, "{\"type\": \"ping\"}");
        sse_close(&sse);
    }
    if (turn->fail_after_blocks) {
        /* what the API sends when it overloads mid-response: the message is
         * never finished, so a correct client discards it */
        sse_open(&sse, "error");
        mock_buf_adds(&sse.buf, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
        sse_close(&sse);
        take_sse(&sse, reply);
        reply->abort_at_end = true;
        return reply->body ? 0 : -1;
    }
    sse_open(&sse, "message_delta");
    mock_buf_adds(&sse.buf, "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":");
    mock_buf_add_json_cstr(&sse.buf, turn->stop_reason);
    mock_buf_adds(&sse.buf, ",\"stop_sequence\":null},\"usage\":");
    add_usage(&sse.buf, turn, false);
    mock_buf_adds(&sse.buf, "}");
    sse_close(&sse);
    sse_open(&sse, "message_stop");
    mock_buf_adds(&sse.buf, "{\"type\":\"message_stop\"}");
    sse_close(&sse);
    take_sse(&sse, reply);
    return reply->body ? 0 : -1;
}

int mock_anthropic_render(const mock_request *request, const mock_turn *turn, mock_reply *reply)
{
    return request->stream ? render_stream(request, turn, reply) : render_message(request, turn, reply);
}

int mock_anthropic_count_tokens(const mock_request *request, mock_reply *reply)
{
    /* A stable estimate: a quarter of the request body's printed size. */
    long estimate = 1;
    if (request->body) {
        char *printed = cJSON_PrintUnformatted(request->body);
        if (printed) {
            estimate = (long)(strlen(printed) / 4) + 1;
            free(printed);
        }
    }
    mock_buf buf;
    mock_buf_init(&buf);
    mock_buf_addf(&buf, "{\"input_tokens\":%ld}", estimate);
    reply->status = 200;
    return finish(reply, &buf);
}

/* One list that satisfies both SDKs: Anthropic reads type/id/display_name/
 * created_at/has_more, OpenAI reads object/id/created/owned_by. */
int mock_models_list(mock_reply *reply, const char *one_model)
{
    static const char *const models[] = {"claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "gpt-4o-mini",
                                         "gpt-4o"};
    mock_buf buf;
    mock_buf_init(&buf);
    if (one_model) {
        mock_buf_adds(&buf, "{\"type\":\"model\",\"object\":\"model\",\"id\":");
        mock_buf_add_json_cstr(&buf, one_model);
        mock_buf_adds(&buf, ",\"display_name\":");
        mock_buf_add_json_cstr(&buf, one_model);
        mock_buf_adds(&buf, ",\"created_at\":\"2025-01-01T00:00:00Z\",\"created\":1735689600,\"owned_by\":\"gauntlet\"}");
    } else {
        mock_buf_adds(&buf, "{\"object\":\"list\",\"data\":[");
        size_t n = sizeof models / sizeof models[0];
        for (size_t i = 0; i < n; i++) {
            mock_buf_addf(&buf,
                          "%s{\"type\":\"model\",\"object\":\"model\",\"id\":\"%s\",\"display_name\":\"%s\","
                          "\"created_at\":\"2025-01-01T00:00:00Z\",\"created\":1735689600,\"owned_by\":\"gauntlet\"}",
                          i ? "," : "", models[i], models[i]);
        }
        mock_buf_addf(&buf, "],\"has_more\":false,\"first_id\":\"%s\",\"last_id\":\"%s\"}", models[0], models[n - 1]);
    }
    reply->status = 200;
    return finish(reply, &buf);
}
