/* mock_impl.h — the mock server's private model, shared by the mocks/ sources.
 *
 * A scenario is a list of turns loaded once from script JSON and then
 * read-only (shared by every session that plays it, reference-counted). A
 * turn is provider-neutral: content blocks with raw tool input text, a stop
 * reason and usage, or a provider error, or raw bytes; each writer
 * (anthropic.c, openai.c) renders it into a mock_reply, and faults.c serves
 * that reply with the turn's faults applied. Scenarios are loop scripts
 * (scenario.c) played by the loop layer's own player (server.c). Not for: HTTP parsing (server.c)
 * or the journal's storage (journal.c). */
#ifndef GT_MOCK_IMPL_H
#define GT_MOCK_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/runner/mock.h"
#include "mock_buf.h"

struct cJSON;

/* ---- scenarios and rendered turns ------------------------------------------ */

typedef enum mock_block_kind { MOCK_BLOCK_TEXT = 0, MOCK_BLOCK_TOOL_USE, MOCK_BLOCK_THINKING } mock_block_kind;

typedef struct mock_block {
    mock_block_kind kind;
    char *text;      /* text / thinking */
    size_t text_len;
    char *id, *name; /* tool_use */
    char *input_raw; /* tool_use input, exact raw text (may be invalid JSON) */
    size_t input_len;
    char *signature; /* thinking */
} mock_block;

/* Per-turn fault injection (docs/mock-server.md "faults"). -1 / NULL = off. */
typedef struct mock_faults {
    int latency_ms;            /* sleep before the status line */
    int drip_bytes;            /* serve the body `drip_bytes` at a time ... */
    int drip_interval_ms;      /* ... sleeping this long between pieces */
    long cut_after_bytes;      /* close the connection after N body bytes */
    int cut_after_event;       /* streams: close after K complete events */
    int malformed_after_event; /* streams: insert `malformed_line` after event K (0 = first) */
    char *malformed_line;
    char *content_type;        /* override the Content-Type */
    bool reset;                /* TCP reset instead of any response */
    long oversized_bytes;      /* pad the body with N extra bytes */
    int status;                /* override the HTTP status (with `body`: any error) */
    char *body;                /* replace the body */
    int retry_after;           /* add retry-after: N (seconds) */
    bool no_request_id;        /* omit request-id headers */
} mock_faults;

/* What a turn demands of the request it answers; a miss is a deviation. */
typedef struct mock_expect {
    int stream;              /* -1 any, 0 must not stream, 1 must stream */
    int strict;              /* -1 any, 0 no strict tool/format, 1 strict present */
    char *contains;          /* the body must contain this text */
    bool tool_results;       /* answer every tool_use of the previous turn (default true) */
} mock_expect;

/* One assistant response as the writers render it (pointers borrowed). */
typedef struct mock_turn {
    mock_block *blocks;
    size_t block_count;
    const char *stop_reason; /* Anthropic names: end_turn, tool_use, max_tokens, refusal, ...; NULL = none */
    const char *model;       /* NULL = echo the request's model */
    const char *message_id;  /* NULL = derived from the request id */
    long input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens; /* <0 = 0 */
    bool fail_after_blocks;  /* streams: every block completes, then an overloaded_error event ends the
                                stream instead of message_delta/message_stop (a provider-side fallback) */
} mock_turn;

/* What the server does with a request it cannot match to a turn. */
typedef struct mock_fallback {
    bool serve;           /* serve the scripted turn anyway (default) */
    int status;           /* otherwise answer this error */
    char *type, *message;
} mock_fallback;

/* What the mock answers once a session has played every turn of its script
 * (docs/mock-server.md "after_script"). */
typedef enum mock_after_script {
    MOCK_AFTER_END_TURN_TEXT = 0, /* a short plain text, stop_reason end_turn (default) */
    MOCK_AFTER_REPEAT_LAST,       /* the script's last response turn again */
    MOCK_AFTER_ERROR_400          /* 400 invalid_request_error naming the exhausted script */
} mock_after_script;

/* The text of the end_turn message answered past the end of a script. */
#define MOCK_AFTER_SCRIPT_TEXT "I have nothing further to add."

/* The mock's additions to one script turn (docs/mock-server.md), read from
 * the script JSON and stripped before the loop layer loads it. */
typedef struct mock_turn_ext {
    mock_faults faults;
    mock_expect expect;
    bool cut;             /* a stream with a `cut`: the connection closes abruptly after its bytes */
    char *error_body;     /* error turns: the exact body to send */
} mock_turn_ext;

/* A scenario: one loop script (docs/loop-scripts.md) plus the mock's
 * extensions. Immutable once loaded; sessions hold references. */
typedef struct mock_scenario {
    char *name;
    char *script_json;    /* the script without mock extensions, for gt_loop_script_load */
    size_t script_len;
    struct gt_loop_script *script; /* loaded once; sessions play it read-only, each from its own cursor
                                      (gt_loop_script_play_at), so a session costs no copy of it */
    char *default_schema; /* the case's schema when the script gives none, or NULL */
    char *provider;       /* the script's "provider", or NULL */
    char *model;          /* the script's "model", or NULL */
    mock_turn_ext *turns; /* one per script turn */
    size_t turn_count;
    mock_fallback on_deviation;
    char *side_tool;      /* requests without a tool of this name are side requests */
    char *side_text;      /* the text answered to side requests */
    mock_after_script after_script;
    int refs;             /* atomic */
} mock_scenario;

/* Load a scenario from script JSON: a loop script, or a corpus case carrying
 * one under "script" (its "schema" then is the default schema, unless
 * `default_schema` is given). refs = 1. NULL with `err` filled. */
mock_scenario *mock_scenario_parse(const char *name, const char *json, const char *default_schema, char *err,
                                   size_t err_len);
void mock_scenario_retain(mock_scenario *scenario);
void mock_scenario_release(mock_scenario *scenario);

/* Read a `faults` object (NULL = none). Unknown keys are errors. */
int mock_faults_parse(const struct cJSON *json, mock_faults *faults, char *err, size_t err_len);
void mock_faults_free(mock_faults *faults);

/* ---- requests and replies ----------------------------------------------- */

typedef enum mock_api { MOCK_API_ANTHROPIC = 0, MOCK_API_OPENAI, MOCK_API_RESPONSES } mock_api;

/* The form a client asked its answer in (mock_form.h). */
typedef enum mock_form_kind {
    MOCK_FORM_AS_SCRIPTED = 0, /* the request offers StructuredOutput, or asks nothing special */
    MOCK_FORM_TOOL,            /* a StructuredOutput call becomes a call of `tool` */
    MOCK_FORM_JSON_TEXT        /* a StructuredOutput call becomes its input as JSON text content */
} mock_form_kind;

typedef struct mock_form {
    mock_form_kind kind;
    char tool[128];  /* MOCK_FORM_TOOL: the client's tool name */
    const char *why; /* the request field that decided: "tool_choice", "only_tool", "output_config.format",
                        "output_format", "response_format", "text.format" */
    bool forced;     /* the API would allow no other answer: a forced tool, a strict / native format */
} mock_form;

/* What the writers need to know about a request. */
typedef struct mock_request {
    mock_api api;
    const char *path;         /* after the /s/<scenario>/<run> prefix */
    const struct cJSON *body; /* parsed body or NULL */
    const char *model;        /* body.model or NULL */
    bool stream;
    bool include_usage;       /* OpenAI stream_options.include_usage */
    bool mirror;              /* x-gauntlet-mirror: answer in the script's own form (JSON or SSE) */
    mock_form form;           /* the answer form the client asked for */
    const char *derive_inexpressible; /* a derive turn the client's schema rules out (derive.c), or NULL */
    char request_id[40];
} mock_request;

/* A rendered response, ready for faults.c. */
typedef struct mock_reply {
    int status;
    char content_type[96];
    char *body;
    size_t body_len;
    bool stream;          /* chunked, no Content-Length */
    size_t *event_ends;   /* streams: byte offset after each event */
    size_t event_count;
    int retry_after;      /* -1 = none */
    mock_faults faults;   /* copied from the turn (strings borrowed from the scenario) */
    bool has_faults;
    bool abort_at_end;    /* close abruptly after the last byte (a scripted cut stream) */
    char *notices_header; /* x-gauntlet-notices value (malloc'd), or NULL */
    char turn_header[24]; /* x-gauntlet-turn value, or "" */
    bool beyond_script;   /* past the script's last turn (after_script): x-gauntlet-beyond-script: true */
    char provider_header[16]; /* x-gauntlet-provider: the API of verbatim stream bytes, or "" */
    char form_note[600];  /* the journal's "answer_form" object (form.c), or "" */
    const char *form_fault; /* a scripted stream's fault re-applied in another form (form.c): "cut",
                               "malformed_sse", "stream_error"; or NULL */
} mock_reply;

void mock_reply_init(mock_reply *reply);
void mock_reply_free(mock_reply *reply);
void mock_faults_init(mock_faults *faults);
bool mock_faults_any(const mock_faults *faults);

/* Render `turn` for an Anthropic request (JSON message, or SSE when the
 * request streams). 0 or -1 (out of memory). */
int mock_anthropic_render(const mock_request *request, const mock_turn *turn, mock_reply *reply);
/* An Anthropic error body: {"type":"error","error":{"type":..,"message":..},"request_id":..}. */
int mock_anthropic_error(mock_reply *reply, int status, const char *type, const char *message,
                         const char *request_id);
/* count_tokens and models bodies. */
int mock_anthropic_count_tokens(const mock_request *request, mock_reply *reply);
int mock_models_list(mock_reply *reply, const char *one_model);

/* The same for OpenAI Chat Completions (chat.completion or chunks + [DONE]). */
int mock_openai_render(const mock_request *request, const mock_turn *turn, mock_reply *reply);
int mock_openai_error(mock_reply *reply, int status, const char *type, const char *message);

/* The same for the OpenAI Responses API (a `response` object, or its
 * `response.*` SSE events); errors use mock_openai_error (responses.c). */
int mock_responses_render(const mock_request *request, const mock_turn *turn, mock_reply *reply);

/* Make `reply` an SSE response of the events in `buf` (ending at `ends`,
 * malloc'd; both taken): status 200, text/event-stream, closed abruptly at
 * the end when `abort_at_end`. -1 when `failed` or out of memory. */
int mock_reply_take_events(mock_reply *reply, mock_buf *buf, size_t *ends, size_t count, bool failed,
                           bool abort_at_end);

/* Default error type for a status in each API's vocabulary. */
const char *mock_anthropic_error_type(int status);
const char *mock_openai_error_type(int status);

/* ---- journal ------------------------------------------------------------ */

typedef struct mock_journal mock_journal;

mock_journal *mock_journal_new(const char *path, size_t max_entries, char *err, size_t err_len);
void mock_journal_free(mock_journal *journal);
/* Append one entry (a compact JSON object, copied) under `session`. */
void mock_journal_add(mock_journal *journal, const char *session, const char *entry_json, size_t len);
/* {"session":..,"entries":[..],"dropped":N}; malloc'd. */
char *mock_journal_dump(mock_journal *journal, const char *session);
void mock_journal_reset(mock_journal *journal, const char *session);

#endif
