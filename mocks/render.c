/* render.c — a loop script's reply as the HTTP response a provider would send.
 *
 * The script decides what the model says; the client's request decides the
 * form: a JSON body or SSE, Anthropic or OpenAI. A scripted stream is sent
 * byte for byte when the client streams in the stream's own API (cuts and
 * malformed events included); otherwise it is assembled (stream.h) and the
 * message re-rendered, and a truncated one is sent cut short. In mirror mode
 * (the reference client's x-gauntlet-mirror) the script's own form wins, so
 * an HTTP replay sees exactly the bytes the in-process player hands the loop.
 * Not for: picking the turn (server.c) or faults (faults.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/util.h"
#include "mock_form.h"
#include "mock_render.h"

/* A gt_message as the writers' mock_turn (pointers borrowed; blocks in arena). */
static int turn_from_message(const gt_message *message, const char *model, gt_arena *arena, mock_turn *turn)
{
    memset(turn, 0, sizeof *turn);
    turn->model = model;
    if (message == NULL) {
        turn->input_tokens = turn->output_tokens = turn->cache_read_tokens = turn->cache_creation_tokens = -1;
        return 0;
    }
    turn->message_id = message->id;
    turn->stop_reason = message->stop_reason;
    turn->input_tokens = (long)message->usage.input_tokens;
    turn->output_tokens = (long)message->usage.output_tokens;
    turn->cache_read_tokens = (long)message->usage.cache_read_input_tokens;
    turn->cache_creation_tokens = (long)message->usage.cache_creation_input_tokens;
    turn->blocks = gt_arena_alloc(arena, (message->block_count + 1) * sizeof *turn->blocks);
    if (turn->blocks == NULL)
        return -1;
    for (size_t i = 0; i < message->block_count; i++) {
        const gt_block *block = &message->blocks[i];
        mock_block *out = &turn->blocks[turn->block_count];
        memset(out, 0, sizeof *out);
        switch (block->type) {
        case GT_BLOCK_TEXT:
            out->kind = MOCK_BLOCK_TEXT;
            out->text = (char *)(block->text ? block->text : "");
            out->text_len = block->text ? block->text_len : 0;
            break;
        case GT_BLOCK_THINKING:
            out->kind = MOCK_BLOCK_THINKING;
            out->text = (char *)(block->text ? block->text : "");
            out->text_len = block->text ? block->text_len : 0;
            break;
        case GT_BLOCK_TOOL_USE:
            out->kind = MOCK_BLOCK_TOOL_USE;
            out->id = (char *)(block->id ? block->id : "toolu_gauntlet");
            out->name = (char *)(block->name ? block->name : GT_LOOP_TOOL_NAME);
            out->input_raw = (char *)(block->input_text ? block->input_text : "{}");
            out->input_len = block->input_text ? block->input_len : 2;
            break;
        default:
            continue; /* tool results never appear in an assistant turn */
        }
        turn->block_count++;
    }
    return 0;
}

/* Event ends of raw SSE text: after every blank line ("\n\n", "\r\n\r\n", "\r\r"). */
static int index_events(mock_reply *reply)
{
    size_t cap = 16, count = 0;
    size_t *ends = malloc(cap * sizeof *ends);
    if (ends == NULL)
        return -1;
    const char *body = reply->body;
    for (size_t i = 0; i + 1 < reply->body_len; i++) {
        size_t end = 0;
        if (body[i] == '\n' && body[i + 1] == '\n')
            end = i + 2;
        else if (body[i] == '\n' && body[i + 1] == '\r' && i + 2 < reply->body_len && body[i + 2] == '\n')
            end = i + 3;
        else if (body[i] == '\r' && body[i + 1] == '\r')
            end = i + 2;
        if (end == 0)
            continue;
        if (count == cap) {
            size_t *grown = realloc(ends, (cap *= 2) * sizeof *ends);
            if (grown == NULL) {
                free(ends);
                return -1;
            }
            ends = grown;
        }
        ends[count++] = end;
        i = end - 1;
    }
    free(reply->event_ends);
    reply->event_ends = ends;
    reply->event_count = count;
    return 0;
}

char *mock_notices_json(const gt_loop_reply *reply)
{
    if (reply->notice_count == 0)
        return NULL;
    mock_buf buf;
    mock_buf_init(&buf);
    mock_buf_adds(&buf, "[");
    for (size_t i = 0; i < reply->notice_count; i++) {
        const gt_loop_notice *notice = &reply->notices[i];
        if (i)
            mock_buf_adds(&buf, ",");
        if (notice->kind == GT_LOOP_NOTICE_FALLBACK) {
            mock_buf_adds(&buf, "{\"kind\":\"fallback\",\"message_id\":");
            mock_buf_add_json_cstr(&buf, notice->message_id);
        } else {
            mock_buf_adds(&buf, "{\"kind\":\"late_attachment\",\"tool_use_id\":");
            mock_buf_add_json_cstr(&buf, notice->tool_use_id);
            mock_buf_adds(&buf, ",\"input_text\":");
            mock_buf_add_json_string(&buf, notice->input_text ? notice->input_text : "",
                                     notice->input_text ? notice->input_len : 0);
        }
        mock_buf_addf(&buf, ",\"turn\":%zu}", notice->turn);
    }
    mock_buf_adds(&buf, "]");
    return mock_buf_take(&buf, NULL);
}

/* In the endpoint's API and the answer form the client asked for (form.c). */
static int render_message_turn(const mock_request *request, const mock_turn *turn, mock_reply *out)
{
    return mock_form_render(request, turn, true, out);
}

/* The id of the message `reply` carries (a stream's as assembled), or NULL. */
static const char *reply_message_id(const gt_loop_reply *reply, gt_arena *arena)
{
    if (reply->kind == GT_LOOP_REPLY_MESSAGE)
        return reply->message ? reply->message->id : NULL;
    if (reply->kind != GT_LOOP_REPLY_STREAM)
        return NULL;
    gt_stream_result assembled;
    gt_stream_assemble(reply->provider, reply->sse, reply->sse_len, arena, &assembled);
    return assembled.message ? assembled.message->id : NULL;
}

bool mock_fallback_on_wire(const gt_loop_reply *reply, gt_arena *arena)
{
    if (reply->kind == GT_LOOP_REPLY_ERROR)
        return false;
    for (size_t i = 0; i < reply->notice_count; i++) {
        const gt_loop_notice *notice = &reply->notices[i];
        if (notice->kind != GT_LOOP_NOTICE_FALLBACK)
            continue;
        if (notice->message_id == NULL)
            return true;
        const char *id = reply_message_id(reply, arena);
        if (id != NULL && strcmp(id, notice->message_id) == 0)
            return true;
    }
    return false;
}

/* A message the provider never finishes: streamed, every block and then an
 * error event; not streamed, the overload error the API answers instead of
 * the message (529 overloaded_error, OpenAI 503). */
static int render_failed_turn(const mock_request *request, mock_turn *turn, mock_reply *out)
{
    if (!request->stream)
        return request->api != MOCK_API_ANTHROPIC
                   ? mock_openai_error(out, 503, "server_error", "The server is overloaded")
                   : mock_anthropic_error(out, 529, "overloaded_error", "Overloaded", request->request_id);
    turn->fail_after_blocks = true;
    return render_message_turn(request, turn, out);
}

int mock_render_reply(const mock_request *request, const gt_loop_reply *reply, bool cut, bool fallback,
                      const char *error_body, const char *script_model, gt_arena *arena, mock_reply *out)
{
    snprintf(out->turn_header, sizeof out->turn_header, "%zu", reply->turn);
    /* A fallback played on the wire (real clients never see the mock's
     * headers) must not also travel as a notice. */
    gt_loop_reply header_reply = *reply;
    if (fallback)
        header_reply.notice_count = 0;
    char *notices = mock_notices_json(&header_reply);
    if (notices) {
        out->notices_header = gt_base64_encode((const unsigned char *)notices, strlen(notices));
        free(notices);
        if (out->notices_header == NULL)
            return -1;
    }
    const char *model = request->model ? request->model : script_model;
    mock_turn turn;
    switch (reply->kind) {
    case GT_LOOP_REPLY_ERROR:
        if (error_body) {
            free(out->body);
            out->body = strdup(error_body);
            out->body_len = out->body ? strlen(out->body) : 0;
            out->status = reply->http_status;
            return out->body ? 0 : -1;
        }
        if (request->api != MOCK_API_ANTHROPIC)
            return mock_openai_error(out, reply->http_status, reply->error_type, reply->error_message);
        return mock_anthropic_error(out, reply->http_status, reply->error_type, reply->error_message,
                                    request->request_id);
    case GT_LOOP_REPLY_MESSAGE: {
        if (turn_from_message(reply->message, model, arena, &turn) != 0)
            return -1;
        if (request->mirror) {
            mock_request plain = *request;
            plain.stream = false;
            return render_message_turn(&plain, &turn, out);
        }
        return fallback ? render_failed_turn(request, &turn, out) : render_message_turn(request, &turn, out);
    }
    case GT_LOOP_REPLY_STREAM: {
        if (mock_form_rerenders(request)) /* another answer form or the Responses API */
            return mock_form_render_stream(request, reply->provider, reply->sse, reply->sse_len, model, fallback,
                                           arena, out);
        bool same_api = (reply->provider == GT_PROVIDER_OPENAI) == (request->api == MOCK_API_OPENAI);
        if (request->mirror || (request->stream && same_api && !fallback)) {
            free(out->body);
            out->body = malloc(reply->sse_len + 1);
            if (out->body == NULL)
                return -1;
            memcpy(out->body, reply->sse, reply->sse_len);
            out->body[reply->sse_len] = '\0';
            out->body_len = reply->sse_len;
            mock_form_check_pause(request, reply->sse, reply->sse_len, out);
            out->status = 200;
            out->stream = true;
            out->abort_at_end = cut;
            snprintf(out->provider_header, sizeof out->provider_header, "%s",
                     gt_stream_provider_name(reply->provider));
            snprintf(out->content_type, sizeof out->content_type, "text/event-stream; charset=utf-8");
            return index_events(out);
        }
        /* another form: what a client accumulating this stream would have */
        gt_stream_result assembled;
        gt_stream_reason why = gt_stream_assemble(reply->provider, reply->sse, reply->sse_len, arena, &assembled);
        if (!same_api && !request->mirror && !fallback && why == GT_STREAM_TRUNCATED)
            /* a stream of the other API cut short: its content in the client's API, cut the same way
             * (a dropped connection happens on any API) */
            return mock_form_render_stream(request, reply->provider, reply->sse, reply->sse_len, model, false, arena,
                                           out);
        if (!same_api && !request->mirror && why >= GT_STREAM_SSE_BAD_JSON && why <= GT_STREAM_SSE_OUT_OF_ORDER) {
            /* a protocol fault of the other API's stream format: the client's API has no such bytes */
            char note[200];
            snprintf(note, sizeof note,
                     "the script's %s stream breaks that API's stream protocol (%s), which the client's %s API "
                     "cannot carry",
                     gt_stream_provider_name(reply->provider), gt_stream_reason_code(why),
                     request->api == MOCK_API_ANTHROPIC ? "Anthropic" : "OpenAI");
            mock_form_note_inexpressible(request, note, out);
        }
        if (turn_from_message(assembled.message, model, arena, &turn) != 0)
            return -1;
        if (fallback)
            return render_failed_turn(request, &turn, out);
        if (render_message_turn(request, &turn, out) != 0)
            return -1;
        if (assembled.message == NULL || assembled.reason == GT_STREAM_TRUNCATED) {
            /* the stream never finished: neither does this body */
            out->faults.cut_after_bytes = (long)(out->body_len / 2);
            out->has_faults = true;
        }
        return 0;
    }
    }
    return -1;
}
