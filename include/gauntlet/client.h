/* client.h — the reference HTTP model: the loop's gt_loop_model over libcurl.
 *
 * It turns each gt_loop_request into an Anthropic Messages or OpenAI Chat
 * Completions request (StructuredOutput as a tool, strict when the loop says
 * so), sends it to a base URL (the mock server or a real provider) and hands
 * the loop back exactly what came over the wire: a streamed body as raw SSE
 * bytes (the stream layer assembles it, so a cut stream stays cut and the
 * loop tombstones it and sends again), a JSON body as a gt_message whose tool
 * inputs keep their raw text (cut short: a retryable connection error), or a
 * provider error with its status, type and message. Backoff lives here, not
 * in the loop: after a retryable error or a cut body the next send first
 * waits for the server's retry-after (or an exponential delay). Not for: the loop's
 * decisions (loop.h) or reading the environment (the CLI passes keys in). */
#ifndef GAUNTLET_CLIENT_H
#define GAUNTLET_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/loop.h"
#include "gauntlet/stream.h"

/* Largest response body accepted (64 MiB); a bigger one is a transport error. */
#define GT_CLIENT_DEFAULT_MAX_RESPONSE (64u * 1024u * 1024u)
/* Per-request deadline. */
#define GT_CLIENT_DEFAULT_TIMEOUT_MS 120000L
/* Longest retry-after honoured; a larger value is clamped. */
#define GT_CLIENT_DEFAULT_MAX_RETRY_AFTER_MS 60000L
/* First backoff delay without retry-after; doubles per consecutive error. */
#define GT_CLIENT_DEFAULT_BACKOFF_MS 500L
#define GT_CLIENT_DEFAULT_MAX_TOKENS 4096L
#define GT_CLIENT_ANTHROPIC_VERSION "2023-06-01"

typedef struct gt_client_options {
    const char *base_url;          /* "http://127.0.0.1:8080/s/x/run1" or "https://api.anthropic.com" */
    gt_stream_provider provider;   /* which API to speak */
    bool stream;                   /* ask for SSE */
    const char *model;             /* NULL = "claude-sonnet-4-5" / "gpt-4o-mini" */
    const char *api_key;           /* NULL = send none */
    long max_tokens;               /* 0 = GT_CLIENT_DEFAULT_MAX_TOKENS */
    long timeout_ms;               /* 0 = GT_CLIENT_DEFAULT_TIMEOUT_MS */
    size_t max_response;           /* 0 = GT_CLIENT_DEFAULT_MAX_RESPONSE */
    long max_retry_after_ms;       /* 0 = GT_CLIENT_DEFAULT_MAX_RETRY_AFTER_MS; <0 = ignore retry-after */
    long backoff_ms;               /* 0 = GT_CLIENT_DEFAULT_BACKOFF_MS; <0 = no backoff */
    bool mirror;                   /* ask the gauntlet mock for the script's own form (x-gauntlet-mirror) */
    const char *prompt_system;     /* optional system prompt */
} gt_client_options;

typedef struct gt_client gt_client;

/* What one client did, for reports and tests. */
typedef struct gt_client_stats {
    size_t requests;          /* HTTP requests sent */
    size_t transport_errors;  /* no HTTP response at all (refused, reset, timeout) */
    size_t short_reads;       /* a body that ended early (a cut) */
    long long waited_ms;      /* total backoff / retry-after sleep */
    int last_status;          /* HTTP status of the last response (0 = none) */
    char last_request_id[64];
    size_t beyond_script;     /* responses the gauntlet mock marked as past its script's end
                               * (x-gauntlet-beyond-script: that run id's script was already played) */
} gt_client_stats;

/* Create a client (curl handle kept across requests). Returns NULL with `err`
 * filled on bad options or when out of memory. Free with gt_client_free. */
gt_client *gt_client_new(const gt_client_options *options, char *err, size_t err_len);
void gt_client_free(gt_client *client);

/* Bind the client as the loop's model. The client must outlive the run. */
void gt_client_model(gt_client *client, gt_loop_model *model);

const gt_client_stats *gt_client_get_stats(const gt_client *client);

/* A non-streamed answer body (Anthropic Messages, or a Chat Completions
 * choices[0]) read as the client reads it: tool inputs as the exact bytes
 * of their JSON text, an OpenAI finish_reason in the Anthropic spelling, a
 * refusal as a text block with stop_reason "refusal". Allocated in `arena`;
 * NULL when the body is not such an answer. */
gt_message *gt_client_parse_answer(gt_stream_provider provider, const char *body, size_t len, gt_arena *arena);

/* The request body the client would send for `request` (malloc'd compact
 * JSON; NULL when out of memory) — exposed for tests and `--dry-run`. */
char *gt_client_request_body(const gt_client *client, const gt_loop_request *request);

#endif
