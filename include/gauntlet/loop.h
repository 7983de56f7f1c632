/* loop.h — the agent loop that forces the final answer through the
 * StructuredOutput tool (seed 000), and the scripts that drive it.
 *
 * The loop owns the state machine only: the caller's --json-schema checks,
 * StructuredOutput validation with every error fed back, the single enforce
 * message, attempt accounting per query (resumed history never counts,
 * retracted calls do), tombstones and late attachments, the capability-400
 * strict strip, and the terminal envelope. It talks to the model through
 * gt_loop_model (send a request, get a message, a stream of SSE bytes or a
 * provider error), so the in-process script player and an HTTP client plug
 * into the same loop. Nothing here reads the process environment: the
 * MAX_STRUCTURED_OUTPUT_RETRIES override arrives in gt_loop_config.
 * docs/loop-scripts.md is the reference for scripts, subtypes and reasons.
 * Not for: assembling streams (stream.h) or validating schemas (schema.h). */
#ifndef GAUNTLET_LOOP_H
#define GAUNTLET_LOOP_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/arena.h"
#include "gauntlet/limits.h"
#include "gauntlet/stream.h"
#include "gauntlet/value.h"

/* Texts the seed gives, used verbatim. */
#define GT_LOOP_TOOL_NAME "StructuredOutput"
#define GT_LOOP_ENFORCE_SENTINEL "[structured-output-enforce]"
#define GT_LOOP_ENFORCE_TEXT                                                                                    \
    GT_LOOP_ENFORCE_SENTINEL " You MUST call the StructuredOutput tool to provide your final response. Call this " \
                             "tool now."
#define GT_LOOP_SCHEMA_ERROR_PREFIX "Output does not match required schema: "
#define GT_LOOP_SCHEMA_NOT_JSON "--json-schema is not valid JSON"
#define GT_LOOP_SCHEMA_NOT_OBJECT "--json-schema must be a JSON object"
#define GT_LOOP_SCHEMA_INVALID "not a valid JSON Schema"
#define GT_LOOP_TOOL_SUCCESS_TEXT "Structured output provided successfully"

/* gauntlet's own default: provider errors that are retried (429, 5xx, 529,
 * overloaded) before the query fails with error_during_execution. A
 * capability 400 strip is not a retry and never uses this budget. */
#define GT_LOOP_DEFAULT_API_RETRIES 2

/* Terminal subtypes. The first four are Claude Code's; the last two are
 * gauntlet's (docs/loop-scripts.md). */
typedef enum gt_loop_subtype {
    GT_LOOP_SUCCESS = 0,                          /* "success" */
    GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES,  /* "error_max_structured_output_retries" */
    GT_LOOP_ERROR_MAX_TURNS,                      /* "error_max_turns" */
    GT_LOOP_ERROR_DURING_EXECUTION,               /* "error_during_execution" */
    GT_LOOP_ERROR_NO_STRUCTURED_OUTPUT,           /* "error_no_structured_output": required, never provided, limit not reached */
    GT_LOOP_ERROR_INVALID_JSON_SCHEMA,            /* "error_invalid_json_schema": --json-schema refused, the loop never started */
    GT_LOOP_SUBTYPE_COUNT
} gt_loop_subtype;

const char *gt_loop_subtype_name(gt_loop_subtype subtype);

/* The request's tool_choice (seed 002's table): `auto` lets the model answer
 * in text or call a tool; `any` obliges it to call one of the tools; `tool`
 * obliges it to call the named tool. A response that ignores a forcing
 * choice is not a usable answer. */
typedef enum gt_loop_tool_choice {
    GT_LOOP_TOOL_CHOICE_AUTO = 0, /* the default; sent as nothing */
    GT_LOOP_TOOL_CHOICE_ANY,
    GT_LOOP_TOOL_CHOICE_TOOL
} gt_loop_tool_choice;

/* ---- The conversation ---- */

typedef enum gt_loop_role { GT_LOOP_USER = 0, GT_LOOP_ASSISTANT } gt_loop_role;

/* One message of the conversation graph. */
typedef struct gt_loop_entry {
    gt_loop_role role;
    const char *id;        /* assistant message id (fallbacks name it), may be NULL for user entries */
    const gt_block *blocks;
    size_t block_count;
    bool is_meta;          /* the enforce message */
    bool from_history;     /* resumed before this query */
    bool tombstoned;       /* retracted by a fallback: not sent, not counted in the graph */
} gt_loop_entry;

/* ---- The model interface ---- */

/* What the loop sends. Pointers are valid during the send call only. */
typedef struct gt_loop_request {
    size_t api_attempt;             /* 1-based: every HTTP request, retries included */
    size_t model_turn;              /* 1-based: the model turn this request is for */
    const gt_loop_entry *messages;  /* the live graph (tombstoned entries left out) */
    size_t message_count;
    bool structured_output_tool;    /* StructuredOutput is in the tool set */
    const char *tool_schema_json;   /* its input_schema (the caller's schema), NULL without the tool */
    bool strict;                    /* the wire tool carries strict:true */
    bool fallback_model;            /* a fallback switched the model for this and later requests */
    gt_loop_tool_choice tool_choice; /* sent with the tools (auto: not sent) */
    const char *tool_choice_name;    /* GT_LOOP_TOOL_CHOICE_TOOL: the tool */
    const char *server_tools_json;   /* Anthropic server tools offered beside it: their definitions as comma-separated
                                        compact JSON objects (no brackets), NULL = none */
} gt_loop_request;

typedef enum gt_loop_reply_kind {
    GT_LOOP_REPLY_MESSAGE = 0, /* a complete, non-streamed response */
    GT_LOOP_REPLY_STREAM,      /* raw SSE bytes the loop assembles (stream.h) */
    GT_LOOP_REPLY_ERROR        /* an HTTP error from the provider */
} gt_loop_reply_kind;

typedef enum gt_loop_notice_kind {
    GT_LOOP_NOTICE_FALLBACK = 0,   /* the model fell back: retract (tombstone) an assistant message */
    GT_LOOP_NOTICE_LATE_ATTACHMENT /* a structured_output attachment arrives after the fact */
} gt_loop_notice_kind;

/* Client-side events that arrive with a reply, after it. */
typedef struct gt_loop_notice {
    gt_loop_notice_kind kind;
    const char *message_id;  /* FALLBACK: the message retracted; NULL = the latest live assistant message */
    const char *tool_use_id; /* LATE_ATTACHMENT */
    const char *input_text;  /* LATE_ATTACHMENT: the object it carries (JSON text) */
    size_t input_len;
    size_t turn;             /* script turn, for the transcript */
} gt_loop_notice;

typedef struct gt_loop_reply {
    gt_loop_reply_kind kind;
    size_t turn;                  /* script turn index (transcript); any value for other models */
    gt_message *message;          /* MESSAGE: tool inputs need not be parsed yet */
    gt_stream_provider provider;  /* STREAM */
    const char *sse;
    size_t sse_len;
    int http_status;              /* ERROR */
    const char *error_type;       /* ERROR: "invalid_request_error", "overloaded_error", ... */
    const char *error_message;    /* ERROR: the provider's message */
    const gt_loop_notice *notices;
    size_t notice_count;
} gt_loop_reply;

/* The model. `send` answers one request, putting the reply's memory in
 * `arena` (owned by the loop). Returns 0, or -1 when no reply exists at all
 * (a script with no turn left, a transport failure) with `err` filled. */
typedef struct gt_loop_model {
    void *state;
    int (*send)(void *state, const gt_loop_request *request, gt_arena *arena, gt_loop_reply *reply, char *err,
                size_t err_len);
} gt_loop_model;

/* ---- Running ---- */

typedef struct gt_loop_config {
    const char *json_schema_text; /* the caller's --json-schema text, NULL = no schema */
    size_t json_schema_len;
    const char *prompt;           /* the query; NULL = "Complete the task." */
    const gt_loop_entry *history; /* resumed conversation before the query */
    size_t history_count;
    int max_attempts;             /* StructuredOutput attempts per query (default GT_LOOP_DEFAULT_MAX_ATTEMPTS) */
    int max_turns;                /* model turns per query, 0 = unlimited */
    int max_api_retries;          /* default GT_LOOP_DEFAULT_API_RETRIES */
    bool strict;                  /* send the tool with strict:true until a capability 400 says otherwise */
    bool structured_output_tool;  /* the tool stays in the tool set (false: a tool filter removed it) */
    gt_loop_tool_choice tool_choice; /* default auto */
    const char *tool_choice_name;    /* GT_LOOP_TOOL_CHOICE_TOOL: the tool the model must call */
    const char *server_tools_json;   /* the script's server_tools (tools the provider runs, e.g. web search) as
                                        comma-separated compact JSON objects, NULL = none */
} gt_loop_config;

/* Defaults: no schema, limit 5, unlimited turns, strict off, tool in the set. */
void gt_loop_config_init(gt_loop_config *config);

/* Read a MAX_STRUCTURED_OUTPUT_RETRIES value: an optionally signed decimal
 * integer, nothing else (the seed puts no minimum on it). Returns 0, or -1. */
int gt_loop_attempts_from_env(const char *text, int *out);

/* Attempt accounting of one query (the six figures of gt_accounting). */
typedef struct gt_loop_accounting {
    int attempts_used;    /* graph calls + tombstoned this query - calls before the query */
    int attempts_limit;
    int retracted;        /* StructuredOutput calls tombstoned this query */
    int enforce_messages;
    int api_attempts;     /* requests sent, capability and error retries included */
    int model_calls;      /* responses received (messages and streams, usable or not) */
} gt_loop_accounting;

/* One block the loop sent back to the model during the query, in order:
 * a tool result (StructuredOutput's verdict text, or a scripted tool's
 * result) or the enforce message. The envelope lists them as
 * gauntlet.feedback, so a case can compare the seed's texts exactly. */
typedef struct gt_loop_feedback {
    bool tool_result;        /* a tool_result block; else a text block */
    const char *tool_use_id; /* tool_result: the call it answers */
    bool is_error;           /* tool_result: sent with is_error */
    bool meta;               /* text: the enforce message (a meta user message) */
    bool retracted;          /* a later fallback removed it from the conversation */
    const char *text;
} gt_loop_feedback;

typedef struct gt_loop_result {
    gt_loop_subtype subtype;
    bool is_error;
    /* The verdict as the suite reports it: accepted only for success WITH an
     * object; otherwise the gate ("loop" or "stream") and reason code. */
    bool accepted;
    const char *gate;
    const char *reason;
    const char **errors;         /* the envelope's error strings */
    size_t error_count;
    const gt_value *structured_output; /* the last surviving attachment, NULL when none */
    const char *result_text;     /* success only */
    int num_turns;
    gt_usage usage;              /* summed over every response */
    gt_loop_accounting accounting;
    gt_stream_reason stream_reason; /* the response that ended the query, GT_STREAM_OK otherwise */
    const char *detail;          /* one more human line (schema problem, stream detail), or NULL */
    int late_attachments_dropped;
    bool strict_stripped;        /* a capability 400 removed strict */
    const char *strict_fallback; /* strict was asked for but the schema is outside the strict subset:
                                    the fallback code (docs/wire.md); the original schema went out without strict */
    const gt_loop_feedback *feedback; /* what the loop sent back to the model, in order */
    size_t feedback_count;
    char *transcript;            /* turn by turn, malloc'd */
    gt_arena *arena;             /* owns everything above except transcript */
} gt_loop_result;

/* Run one query. Fills `result` (free with gt_loop_result_free) and returns
 * 0; -1 only when out of memory (then `result` holds what it could). */
int gt_loop_run(const gt_loop_config *config, const gt_loop_model *model, gt_loop_result *result);
void gt_loop_result_free(gt_loop_result *result);

/* The terminal envelope as one line of compact JSON (malloc'd; NULL when out
 * of memory): type, subtype, is_error, result or errors, structured_output,
 * num_turns, usage, and gauntlet's block {accounting, ...}. */
char *gt_loop_envelope_json(const gt_loop_result *result);

/* ---- Scripts (docs/loop-scripts.md) ---- */

typedef struct gt_loop_script gt_loop_script;

/* Where a script is wrong: a JSON Pointer into the script and one line. */
typedef struct gt_loop_script_problem {
    char pointer[256];
    char message[256];
} gt_loop_script_problem;

/* Load a script from JSON text. `default_schema_json` (may be NULL) is the
 * caller's schema when the script gives none (a corpus case's "schema").
 * Returns the script (free with gt_loop_script_free) or NULL with `problem`
 * filled (pointer "" = the whole text; message "out of memory" when so). */
gt_loop_script *gt_loop_script_load(const char *json, size_t len, const char *default_schema_json,
                                    gt_loop_script_problem *problem);
/* Same from an already parsed value (a corpus case's "script" member). */
gt_loop_script *gt_loop_script_from_value(const gt_value *script, const char *default_schema_json,
                                          gt_loop_script_problem *problem);
void gt_loop_script_free(gt_loop_script *script);

/* The run configuration the script describes (the caller may still change
 * it, e.g. the CLI applying the real environment). */
gt_loop_config *gt_loop_script_config(gt_loop_script *script);
/* True when the script's "env" sets `name`. */
bool gt_loop_script_sets_env(const gt_loop_script *script, const char *name);

/* A model that plays the script's turns in order, from the first (each call
 * rewinds). The script must outlive the model's use. */
void gt_loop_script_model(gt_loop_script *script, gt_loop_model *model);
/* The same player for a script shared read-only by many players (the mock's
 * sessions): the position is the caller's `*cursor` (0 = the first turn),
 * which the call moves; `script` is never written, so threads may play one
 * script at once, each with its own cursor. 0, or -1 with `err`. */
int gt_loop_script_play_at(const gt_loop_script *script, size_t *cursor, const gt_loop_request *request,
                           gt_arena *arena, gt_loop_reply *reply, char *err, size_t err_len);
/* Turns left unplayed after `cursor`. */
size_t gt_loop_script_unplayed_at(const gt_loop_script *script, size_t cursor);
/* Turns the last play left unplayed. */
size_t gt_loop_script_unplayed(const gt_loop_script *script);
size_t gt_loop_script_turn_count(const gt_loop_script *script);
/* The script's last response turn (message, stream or error) again, without
 * moving the cursor or repeating its notices: what a mock answers past the
 * end of the script under "repeat_last". 0, or -1 with `err` (no response
 * turn, out of memory). */
int gt_loop_script_replay_last(const gt_loop_script *script, gt_arena *arena, gt_loop_reply *reply, char *err,
                               size_t err_len);

/* Load, play and free in one call; `result` as gt_loop_run. Returns 0, 1 for
 * a bad script (`problem` filled), or -1 when out of memory. */
int gt_loop_run_script_text(const char *json, size_t len, const char *default_schema_json, gt_loop_result *result,
                            gt_loop_script_problem *problem);

#endif
