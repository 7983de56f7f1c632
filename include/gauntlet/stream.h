/* stream.h — the stream layer: SSE bytes -> one assembled assistant message.
 *
 * Partial JSON is not invalid, it is unfinished. The assembler concatenates
 * `text_delta` and `input_json_delta` (Anthropic Messages) or `content` and
 * `tool_calls[].function.arguments` deltas (OpenAI Chat Completions chunks),
 * and parses a tool input exactly once, after a valid terminal event
 * (`message_stop` / `data: [DONE]`). A stream that ends anywhere before that
 * event is quarantined (`stream_truncated`): no partial object and no tool
 * input ever leaves this module (only the started blocks' ids and names, so
 * the loop can tombstone the calls). `stop_reason` refusal and max_tokens are
 * classified before anything is parsed. docs/loop-scripts.md lists the
 * reason codes. Not for: running tools or the agent loop (loop.h). */
#ifndef GAUNTLET_STREAM_H
#define GAUNTLET_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "gauntlet/value.h"

/* Which event grammar a stream speaks. */
typedef enum gt_stream_provider {
    GT_PROVIDER_ANTHROPIC = 0, /* event: message_start ... message_stop */
    GT_PROVIDER_OPENAI         /* data: {chat.completion.chunk} ... data: [DONE] */
} gt_stream_provider;

/* "anthropic" / "openai"; gt_stream_provider_from_name returns -1 when unknown. */
const char *gt_stream_provider_name(gt_stream_provider provider);
int gt_stream_provider_from_name(const char *name);

/* Outcome of one assistant response (stream or not). Stable snake_case codes
 * via gt_stream_reason_code; reports use them as the stream gate's reason. */
typedef enum gt_stream_reason {
    GT_STREAM_OK = 0,
    GT_STREAM_TRUNCATED,        /* "stream_truncated": input ended before the terminal event */
    GT_STREAM_REFUSAL,          /* "refusal": stop_reason refusal / finish_reason content_filter / delta.refusal */
    GT_STREAM_MAX_TOKENS,       /* "max_tokens_truncated": stop_reason max_tokens / finish_reason length */
    GT_STREAM_EMPTY_CONTENT,    /* "empty_content": a complete response with no text and no tool call */
    GT_STREAM_SSE_BAD_JSON,     /* "sse_bad_json": an event's data is not one JSON object */
    GT_STREAM_SSE_BAD_EVENT,    /* "sse_bad_event": event name and data.type disagree, a field has the wrong type, a delta of the wrong kind */
    GT_STREAM_SSE_OUT_OF_ORDER, /* "sse_out_of_order": an event the protocol does not allow here (delta before start, data after the terminal event, ...) */
    GT_STREAM_PROVIDER_ERROR,   /* "stream_error": the provider sent an error event mid-stream */
    GT_STREAM_OUT_OF_MEMORY,    /* "out_of_memory": an error, never a verdict on the stream */
    GT_STREAM_REASON_COUNT
} gt_stream_reason;

const char *gt_stream_reason_code(gt_stream_reason reason);
/* True for the faults of the transport rather than the model's answer: a cut
 * stream, malformed SSE, an error event mid-stream. Seed 000 recovers from
 * them by tombstoning the partial message and sending the request again;
 * refusal, max_tokens and empty content are the model's answer and are not. */
bool gt_stream_reason_is_transport(gt_stream_reason reason);
/* Reason for a code string, or -1 when unknown. */
int gt_stream_reason_from_code(const char *code);

/* ---- The message model shared by the stream and loop layers ---- */

typedef enum gt_block_type {
    GT_BLOCK_TEXT = 0,
    GT_BLOCK_TOOL_USE,
    GT_BLOCK_TOOL_RESULT, /* user side: the result of a tool_use */
    GT_BLOCK_THINKING     /* kept for the transcript, never parsed */
} gt_block_type;

typedef struct gt_block {
    gt_block_type type;
    const char *text; /* TEXT, THINKING: the text; TOOL_RESULT: the result content */
    size_t text_len;
    const char *id;          /* TOOL_USE: tool_use id; TOOL_RESULT: the tool_use id it answers */
    const char *name;        /* TOOL_USE: tool name */
    const char *input_text;  /* TOOL_USE: raw input JSON text exactly as received (may be invalid) */
    size_t input_len;
    bool is_error;           /* TOOL_RESULT */
    /* TOOL_USE, filled by gt_message_parse_inputs: */
    bool input_parsed;       /* the parse ran */
    const gt_value *input;   /* the parsed input, NULL when input_text is not one JSON value */
    gt_parse_error input_error;
    /* TOOL_USE in scripts: what a non-StructuredOutput tool returns. */
    const char *scripted_result; /* NULL = "ok" */
    bool scripted_is_error;
} gt_block;

/* Token usage of one response; absent figures are 0. */
typedef struct gt_usage {
    long long input_tokens;
    long long output_tokens;
    long long cache_creation_input_tokens;
    long long cache_read_input_tokens;
} gt_usage;

/* One assistant response. All memory lives in the arena that built it. */
typedef struct gt_message {
    const char *id;
    gt_block *blocks;
    size_t block_count;
    const char *stop_reason; /* Anthropic spelling: end_turn, tool_use, max_tokens, refusal, stop_sequence, ...; NULL = none */
    gt_usage usage;
} gt_message;

/* Parse every tool_use input of `message` once (gt_parse, default options).
 * A failure is recorded in the block, never returned. Returns 0, or -1 when
 * out of memory. */
int gt_message_parse_inputs(gt_message *message, gt_arena *arena);

/* The stop_reason of a turn the server paused (a long-running server tool):
 * the client sends the response back as it is to let the model continue. */
#define GT_STOP_PAUSE_TURN "pause_turn"

/* Classify a complete response before anything in it is parsed: refusal and
 * max_tokens first, then empty content (a pause_turn response is usable even
 * when empty). GT_STREAM_OK when usable. */
gt_stream_reason gt_message_classify(const gt_message *message);

/* ---- SSE: raw bytes -> events (WHATWG "server-sent events" framing) ---- */

/* One dispatched event. `type` is the `event:` field (has_type false when the
 * block had none); `data` the data lines joined with "\n". Pointers are valid
 * only during the callback. `offset` is the byte offset of the block's first
 * line, `index` the 0-based number of the event. */
typedef struct gt_sse_event {
    const char *type;
    size_t type_len;
    bool has_type;
    const char *data;
    size_t data_len;
    bool has_data;
    size_t offset;
    size_t index;
} gt_sse_event;

/* Called for every event block that carried an `event:`, `data:` or an
 * unknown field line (comment-only and id/retry-only blocks are skipped).
 * Return 0 to go on; anything else stops the parser and is returned by feed. */
typedef int (*gt_sse_handler)(void *user, const gt_sse_event *event);

typedef struct gt_sse_parser gt_sse_parser;

/* Create a parser. Returns NULL when out of memory; free with gt_sse_parser_free. */
gt_sse_parser *gt_sse_parser_new(gt_sse_handler handler, void *user);
void gt_sse_parser_free(gt_sse_parser *parser);

/* Feed the next bytes (any split: a line, a CRLF, a UTF-8 sequence may be cut
 * between calls). Returns 0, the handler's non-zero value (the parser then
 * ignores further input), or -1 when out of memory. */
int gt_sse_parser_feed(gt_sse_parser *parser, const char *bytes, size_t len);

/* True when bytes after the last dispatched event are pending: an unfinished
 * line or a block not yet closed by a blank line. At end of input such an
 * event was never delivered (a cut stream). */
bool gt_sse_parser_pending(const gt_sse_parser *parser);

/* ---- Assembly ---- */

typedef struct gt_stream_result {
    gt_stream_reason reason;
    gt_message *message;  /* the assembled message (arena); for refusal and max_tokens too, NULL otherwise */
    gt_message *partial;  /* a transport fault (gt_stream_reason_is_transport): the blocks started before it,
                             tool_use blocks with id and name but never an input (input_text NULL), so the
                             loop can tombstone the calls without acting on the partial object; else NULL */
    gt_usage usage;       /* usage seen so far, also for a quarantined stream (it was paid for) */
    size_t event_count;   /* events dispatched */
    size_t event_index;   /* the event at fault (sse_* reasons), else event_count */
    char detail[200];     /* one human line */
} gt_stream_result;

typedef struct gt_stream gt_stream;

/* Start assembling one response. Values and the message are allocated in
 * `arena` (which must outlive the result). Returns NULL when out of memory;
 * free with gt_stream_free. */
gt_stream *gt_stream_new(gt_stream_provider provider, gt_arena *arena);
void gt_stream_free(gt_stream *stream);

/* Feed raw SSE bytes. Returns 0, or -1 when out of memory. A protocol fault is
 * sticky and reported by gt_stream_finish; later bytes are ignored. */
int gt_stream_feed(gt_stream *stream, const char *bytes, size_t len);

/* End of input: classify and, only when the terminal event arrived and the
 * response is usable, parse the tool inputs. Fills `result`; returns its reason. */
gt_stream_reason gt_stream_finish(gt_stream *stream, gt_stream_result *result);

/* One call: new + feed + finish + free. */
gt_stream_reason gt_stream_assemble(gt_stream_provider provider, const char *bytes, size_t len, gt_arena *arena,
                                    gt_stream_result *result);

/* ---- Rendering (the script player and the mock server) ---- */

/* A growable byte buffer (malloc'd). */
typedef struct gt_buffer {
    char *data;
    size_t len, cap;
    bool failed; /* an append ran out of memory */
} gt_buffer;
void gt_buffer_append(gt_buffer *buffer, const char *bytes, size_t len);
void gt_buffer_appendf(gt_buffer *buffer, const char *format, ...) __attribute__((format(printf, 2, 3)));
void gt_buffer_free(gt_buffer *buffer);

/* Append one SSE event exactly as servers send it: "event: TYPE\n" (omitted
 * when type is NULL) then one "data: " line per line of `data`, then "\n". */
void gt_sse_write_event(gt_buffer *out, const char *type, const char *data, size_t data_len);

/* The canonical event sequence of `message` for `provider`, as a JSON array of
 * event objects ({"event": name or null, "data": object or "[DONE]"}) built
 * in `arena`: message_start, per block start / deltas of at most
 * `chunk_bytes` bytes (0 = 16) / stop, message_delta, message_stop (Anthropic),
 * or role chunk, content / tool_call chunks, finish chunk, usage chunk, [DONE]
 * (OpenAI). Returns NULL when out of memory. */
gt_value *gt_stream_events_from_message(const gt_message *message, gt_stream_provider provider, size_t chunk_bytes,
                                        const char *model, gt_arena *arena);

/* Serialise an event array (as above; an item may also be a bare data
 * object, its event name then taken from data.type for Anthropic) to SSE
 * text appended to `out`. A string `data` is written verbatim ("[DONE]").
 * When `event_ends` is not NULL it receives, per event, the offset in `out`
 * just after that event's blank line. Returns 0, or -1 when an item has
 * neither an object nor a string as data (the index goes to *bad_index). */
int gt_stream_render_events(const gt_value *events, gt_stream_provider provider, gt_buffer *out, size_t *event_ends,
                            size_t *bad_index);

#endif
