/* openai.c — OpenAI Chat Completions writers: a turn as a chat.completion or
 * as chat.completion.chunk SSE ending in `data: [DONE]`, with tool_calls,
 * finish_reason (stop, length, tool_calls, content_filter), refusal, usage,
 * and OpenAI's error shape. Tool arguments are strings, so the script's raw
 * input text reaches the client byte for byte. Not for: choosing the turn
 * (server.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mock_impl.h"

const char *mock_openai_error_type(int status)
{
    switch (status) {
    case 401: return "invalid_request_error";
    case 403: return "permission_error";
    case 404: return "invalid_request_error";
    case 429: return "rate_limit_exceeded";
    default: return status >= 500 ? "server_error" : "invalid_request_error";
    }
}

static int finish(mock_reply *reply, mock_buf *buf)
{
    free(reply->body);
    reply->body = mock_buf_take(buf, &reply->body_len);
    return reply->body ? 0 : -1;
}

int mock_openai_error(mock_reply *reply, int status, const char *type, const char *message)
{
    mock_buf buf;
    mock_buf_init(&buf);
    reply->status = status;
    reply->stream = false;
    snprintf(reply->content_type, sizeof reply->content_type, "application/json");
    mock_buf_adds(&buf, "{\"error\":{\"message\":");
    mock_buf_add_json_cstr(&buf, message ? message : "error");
    mock_buf_adds(&buf, ",\"type\":");
    mock_buf_add_json_cstr(&buf, type ? type : mock_openai_error_type(status));
    mock_buf_adds(&buf, ",\"param\":null,\"code\":");
    mock_buf_add_json_cstr(&buf, status == 401 ? "invalid_api_key" : status == 429 ? "rate_limit_exceeded" : NULL);
    mock_buf_adds(&buf, "}}");
    return finish(reply, &buf);
}

static const char *finish_reason(const mock_turn *turn)
{
    const char *stop = turn->stop_reason ? turn->stop_reason : "end_turn";
    if (strcmp(stop, "max_tokens") == 0)
        return "length";
    if (strcmp(stop, "tool_use") == 0)
        return "tool_calls";
    if (strcmp(stop, "content_filter") == 0)
        return "content_filter";
    return "stop";
}

/* Text of the message: every text block, concatenated. */
static void add_text(mock_buf *buf, const mock_turn *turn)
{
    mock_buf text;
    mock_buf_init(&text);
    for (size_t i = 0; i < turn->block_count; i++)
        if (turn->blocks[i].kind == MOCK_BLOCK_TEXT)
            mock_buf_add(&text, turn->blocks[i].text, turn->blocks[i].text_len);
    mock_buf_add_json_string(buf, text.data ? text.data : "", text.len);
    mock_buf_free(&text);
}

static bool has_text(const mock_turn *turn)
{
    for (size_t i = 0; i < turn->block_count; i++)
        if (turn->blocks[i].kind == MOCK_BLOCK_TEXT)
            return true;
    return false;
}

/* A refusal turn (stop_reason "refusal"): message.refusal carries the text
 * blocks, content stays null. */
static bool is_refusal(const mock_turn *turn)
{
    return turn->stop_reason && strcmp(turn->stop_reason, "refusal") == 0;
}

static void add_refusal_text(mock_buf *buf, const mock_turn *turn)
{
    add_text(buf, turn);
}

static void add_head(mock_buf *buf, const mock_request *request, const mock_turn *turn, const char *object)
{
    mock_buf_adds(buf, "{\"id\":\"chatcmpl-");
    mock_buf_adds(buf, request->request_id + 4);
    mock_buf_addf(buf, "\",\"object\":\"%s\",\"created\":%ld,\"model\":", object, (long)time(NULL));
    mock_buf_add_json_cstr(buf, turn->model ? turn->model : request->model ? request->model : "gpt-gauntlet-mock");
    mock_buf_adds(buf, ",\"system_fingerprint\":\"fp_gauntlet\"");
}

static void add_usage(mock_buf *buf, const mock_turn *turn)
{
    long in = turn->input_tokens < 0 ? 0 : turn->input_tokens;
    long out = turn->output_tokens < 0 ? 0 : turn->output_tokens;
    mock_buf_addf(buf, "{\"prompt_tokens\":%ld,\"completion_tokens\":%ld,\"total_tokens\":%ld}", in, out, in + out);
}

static int render_message(const mock_request *request, const mock_turn *turn, mock_reply *reply)
{
    mock_buf buf;
    mock_buf_init(&buf);
    add_head(&buf, request, turn, "chat.completion");
    mock_buf_adds(&buf, ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":");
    bool refusal = is_refusal(turn);
    if (!refusal && has_text(turn))
        add_text(&buf, turn);
    else
        mock_buf_adds(&buf, "null");
    mock_buf_adds(&buf, ",\"refusal\":");
    if (refusal)
        add_refusal_text(&buf, turn);
    else
        mock_buf_adds(&buf, "null");
    size_t calls = 0;
    for (size_t i = 0; i < turn->block_count; i++) {
        const mock_block *block = &turn->blocks[i];
        if (block->kind != MOCK_BLOCK_TOOL_USE)
            continue;
        mock_buf_adds(&buf, calls++ ? "," : ",\"tool_calls\":[");
        mock_buf_adds(&buf, "{\"id\":");
        mock_buf_add_json_cstr(&buf, block->id);
        mock_buf_adds(&buf, ",\"type\":\"function\",\"function\":{\"name\":");
        mock_buf_add_json_cstr(&buf, block->name);
        mock_buf_adds(&buf, ",\"arguments\":");
        mock_buf_add_json_string(&buf, block->input_raw, block->input_len);
        mock_buf_adds(&buf, "}}");
    }
    if (calls)
        mock_buf_adds(&buf, "]");
    mock_buf_adds(&buf, "},\"logprobs\":null,\"finish_reason\":");
    mock_buf_add_json_cstr(&buf, finish_reason(turn));
    mock_buf_adds(&buf, "}],\"usage\":");
    add_usage(&buf, turn);
    mock_buf_adds(&buf, "}");
    reply->status = 200;
    reply->stream = false;
    snprintf(reply->content_type, sizeof reply->content_type, "application/json");
    return finish(reply, &buf);
}

typedef struct chunk_writer {
    mock_buf buf;
    size_t *ends;
    size_t count, cap;
    bool failed;
    const mock_request *request;
    const mock_turn *turn;
} chunk_writer;

static void chunk_end(chunk_writer *w)
{
    mock_buf_adds(&w->buf, "\n\n");
    if (!mock_ends_push(&w->ends, &w->count, &w->cap, w->buf.len))
        w->failed = true;
}

/* data: {head,"choices":[{"index":0,"delta":DELTA,"logprobs":null,"finish_reason":FR}]} */
static void chunk_open(chunk_writer *w)
{
    mock_buf_adds(&w->buf, "data: ");
    add_head(&w->buf, w->request, w->turn, "chat.completion.chunk");
    mock_buf_adds(&w->buf, ",\"choices\":[{\"index\":0,\"delta\":");
}

static void chunk_close(chunk_writer *w, const char *finish)
{
    mock_buf_adds(&w->buf, ",\"logprobs\":null,\"finish_reason\":");
    mock_buf_add_json_cstr(&w->buf, finish);
    mock_buf_adds(&w->buf, "}]}");
    chunk_end(w);
}


static int render_stream(const mock_request *request, const mock_turn *turn, mock_reply *reply)
{
    chunk_writer w = {.request = request, .turn = turn};
    mock_buf_init(&w.buf);
    bool refusal = is_refusal(turn);
    chunk_open(&w);
    mock_buf_adds(&w.buf, refusal ? "{\"role\":\"assistant\",\"content\":null,\"refusal\":null}"
                                  : "{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}");
    chunk_close(&w, NULL);
    size_t piece_limit = 0; /* one delta per block; scripted streams carry their own chunking */
    if (refusal) {
        mock_buf text;
        mock_buf_init(&text);
        add_refusal_text(&text, turn);
        chunk_open(&w);
        mock_buf_adds(&w.buf, "{\"refusal\":");
        mock_buf_add(&w.buf, text.data ? text.data : "\"\"", text.data ? text.len : 2);
        mock_buf_adds(&w.buf, "}");
        chunk_close(&w, NULL);
        mock_buf_free(&text);
    }
    size_t call_index = 0;
    for (size_t i = 0; i < turn->block_count; i++) {
        const mock_block *block = &turn->blocks[i];
        if (block->kind == MOCK_BLOCK_TEXT && !refusal) {
            size_t at = 0;
            do {
                size_t piece = mock_utf8_piece(block->text + at, block->text_len - at, piece_limit);
                chunk_open(&w);
                mock_buf_adds(&w.buf, "{\"content\":");
                mock_buf_add_json_string(&w.buf, block->text + at, piece);
                mock_buf_adds(&w.buf, "}");
                chunk_close(&w, NULL);
                at += piece;
            } while (at < block->text_len);
        } else if (block->kind == MOCK_BLOCK_TOOL_USE) {
            chunk_open(&w);
            mock_buf_addf(&w.buf, "{\"tool_calls\":[{\"index\":%zu,\"id\":", call_index);
            mock_buf_add_json_cstr(&w.buf, block->id);
            mock_buf_adds(&w.buf, ",\"type\":\"function\",\"function\":{\"name\":");
            mock_buf_add_json_cstr(&w.buf, block->name);
            mock_buf_adds(&w.buf, ",\"arguments\":\"\"}}]}");
            chunk_close(&w, NULL);
            size_t at = 0;
            while (at < block->input_len) {
                size_t piece = mock_utf8_piece(block->input_raw + at, block->input_len - at, piece_limit);
                chunk_open(&w);
                mock_buf_addf(&w.buf, "{\"tool_calls\":[{\"index\":%zu,\"function\":{\"arguments\":", call_index);
                mock_buf_add_json_string(&w.buf, block->input_raw + at, piece);
                mock_buf_adds(&w.buf, "}}]}");
                chunk_close(&w, NULL);
                at += piece;
            }
            call_index++;
        }
    }
    if (turn->fail_after_blocks) {
        /* a mid-stream error chunk, then the connection ends: no finish_reason, no [DONE] */
        mock_buf_adds(&w.buf, "data: {\"error\":{\"message\":\"The server is overloaded\",\"type\":\"server_error\",\"param\":null,\"code\":null}}");
        chunk_end(&w);
    } else {
        chunk_open(&w);
        mock_buf_adds(&w.buf, "{}");
        chunk_close(&w, finish_reason(turn));
    }
    if (request->include_usage && !turn->fail_after_blocks) {
        mock_buf_adds(&w.buf, "data: ");
        add_head(&w.buf, request, turn, "chat.completion.chunk");
        mock_buf_adds(&w.buf, ",\"choices\":[],\"usage\":");
        add_usage(&w.buf, turn);
        mock_buf_adds(&w.buf, "}");
        chunk_end(&w);
    }
    if (!turn->fail_after_blocks) {
        mock_buf_adds(&w.buf, "data: [DONE]");
        chunk_end(&w);
    }
    return mock_reply_take_events(reply, &w.buf, w.ends, w.count, w.failed, turn->fail_after_blocks);
}

int mock_openai_render(const mock_request *request, const mock_turn *turn, mock_reply *reply)
{
    return request->stream ? render_stream(request, turn, reply) : render_message(request, turn, reply);
}
