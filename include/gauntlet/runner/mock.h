/* mock.h — the mock model server: scripted, adversarial model behaviour over
 * real HTTP (Anthropic Messages API and OpenAI Chat Completions, JSON and SSE).
 *
 * A server owns everything it serves: scenarios (scripts), one cursor per
 * session (scenario + run id) and the request journal. There is no global
 * mutable state, so a test may run several servers side by side. The server
 * binds 127.0.0.1 unless the caller explicitly allows another address.
 * Selection rules, script fields and the journal format: docs/mock-server.md.
 * Not for: judging what a client did (the runner compares the journal and
 * the client's envelope with a case's expectation). */
#ifndef GAUNTLET_MOCK_H
#define GAUNTLET_MOCK_H

#include <stdbool.h>
#include <stddef.h>

/* Default cap on one request body (413 above it): 32 MiB, more than any
 * real structured-output request carries. */
#define GT_MOCK_DEFAULT_MAX_BODY (32u * 1024u * 1024u)
/* In-memory journal cap per server (entries); the oldest are dropped first and
 * counted, so a long benchmark never grows memory. The --journal file gets
 * every entry. */
#define GT_MOCK_DEFAULT_JOURNAL_ENTRIES 20000u
/* Sessions (cursors) kept at once; past it a new session evicts the least
 * recently used one (O(1), never a rescan), whose next request starts the
 * scenario over. */
#define GT_MOCK_MAX_SESSIONS 65536u
/* Connections (slowloris): an idle connection (no byte either way) is closed
 * after GT_MOCK_CONNECTION_TIMEOUT_S, and a connection that has not sent a
 * whole request head GT_MOCK_REQUEST_HEAD_TIMEOUT_MS after its accept (or
 * after its last response) is closed however it trickles. One non-loopback
 * client address may hold at most GT_MOCK_MAX_CONNECTIONS_PER_IP at once;
 * loopback clients all share 127.0.0.1 / ::1, so they are not capped per
 * address (one leaky local client would lock every other local client out);
 * everyone together holds at most GT_MOCK_MAX_CONNECTIONS.
 * A connection over a limit is closed at accept. The idle timeout is above
 * GT_MOCK_MAX_DELAY_MS so that a scripted latency never trips it (the head
 * deadline never runs while a reply is being played). */
#define GT_MOCK_CONNECTION_TIMEOUT_S 65u
#define GT_MOCK_REQUEST_HEAD_TIMEOUT_MS 10000u
#define GT_MOCK_MAX_CONNECTIONS_PER_IP 256u
#define GT_MOCK_MAX_CONNECTIONS 2048u
/* Event-loop threads serving all connections (one per processor, at least
 * two): a thread per connection cost a context switch per request, the
 * mock's biggest cost under load (bench/mock). A fault's pause parks its
 * connection instead of sleeping in one of them. */
#define GT_MOCK_MAX_EVENT_THREADS 16u
/* libmicrohttpd's memory pool per connection (request line, headers, read
 * buffer; bodies stream past it into the handler): a bigger header block is
 * answered 431. The pool is cleared between the requests of a kept-alive
 * connection, so it stays small: 256 KiB cost a tenth of the server's CPU in
 * memset under wrk, 64 KiB a thirtieth; 32 KiB (libmicrohttpd's own default)
 * took the server's CPU per request from 10.1-11.1 us to 9.7-9.9 us (session
 * 19, three runs each). Headers of 24 KB still pass: more than Node's http
 * server takes by default (16 KiB). */
#define GT_MOCK_CONNECTION_MEMORY (32u * 1024u)
/* Longest delay a script may ask for (latency, drip interval): 60 s, so a
 * typo never hangs a test run. */
#define GT_MOCK_MAX_DELAY_MS 60000

/* What one session may cost, whatever its scenario's size: sessions share
 * their scenario's script (read-only, owned by the scenario table) and hold
 * only a cursor, the tool ids to answer and their key (suite/test_bounds.c
 * measures it). */
#define GT_MOCK_MAX_SESSION_BYTES (256u * 1024u)

typedef struct gt_mock_options {
    const char *host;          /* address to bind; NULL = "127.0.0.1" */
    unsigned port;             /* 0 = an ephemeral port */
    bool allow_remote;         /* required to bind anything but a loopback address */
    const char *corpus_dir;    /* load loop/stream cases and *.scenario.json below it; NULL = none */
    const char *journal_path;  /* append every request as one JSON line; NULL = memory only */
    size_t max_body;           /* 0 = GT_MOCK_DEFAULT_MAX_BODY */
    size_t journal_entries;    /* 0 = GT_MOCK_DEFAULT_JOURNAL_ENTRIES */
    bool quiet_journal_bodies; /* journal bodies only for scripted sessions (benchmarks) */
    size_t max_sessions;       /* 0 = GT_MOCK_MAX_SESSIONS */
    unsigned head_timeout_ms;  /* 0 = GT_MOCK_REQUEST_HEAD_TIMEOUT_MS */
} gt_mock_options;

typedef struct gt_mock_server gt_mock_server;

/* Start serving on a background thread. Returns the server, or NULL with
 * `err` filled (bad address, port taken, unreadable corpus). Stop and free it
 * with gt_mock_stop. */
gt_mock_server *gt_mock_start(const gt_mock_options *options, char *err, size_t err_len);

/* "http://127.0.0.1:PORT" (no trailing slash); owned by the server. */
const char *gt_mock_base_url(const gt_mock_server *server);
unsigned gt_mock_port(const gt_mock_server *server);

/* Add or replace scenario `name` from script JSON: a loop script
 * (docs/loop-scripts.md) with the mock's extensions (docs/mock-server.md), or
 * a corpus case carrying one under "script". `default_schema_json` (may be
 * NULL) is the caller's schema when the script gives none. Safe while
 * serving; a session already running keeps the script it started with.
 * Returns 0, or -1 with `err` filled when the script does not load. */
int gt_mock_add_scenario(gt_mock_server *server, const char *name, const char *script_json,
                         const char *default_schema_json, char *err, size_t err_len);

/* Load every loop/stream case with a "script" below `path` (a corpus file or
 * directory, read by the corpus loader) as a scenario named by its case id,
 * and every "*.scenario.json" file as a scenario named by its base name.
 * Returns the number loaded, or -1 with `err` filled. */
int gt_mock_load_corpus(gt_mock_server *server, const char *path, char *err, size_t err_len);

/* The loop script inside `json` (a script, or a case carrying one under
 * "script") without the mock's extensions: the text gt_loop_script_load
 * takes, so a client can run the same script's configuration. malloc'd;
 * *schema_out (may be NULL) receives the case's inline schema or NULL.
 * Returns NULL with `err` filled when the script does not load. */
char *gt_mock_script_text(const char *json, char **schema_out, char *err, size_t err_len);

/* Number of scenarios loaded. */
size_t gt_mock_scenario_count(const gt_mock_server *server);

/* The journal of one session ("scenario/run-id"; NULL = every session) as a
 * JSON document {"session":..,"entries":[...],"dropped":N}. malloc'd; caller
 * frees. NULL when out of memory. */
char *gt_mock_journal_json(gt_mock_server *server, const char *session);

/* Forget the cursor and journal of one session (NULL = all sessions). */
void gt_mock_reset(gt_mock_server *server, const char *session);

/* Requests served since start (every path, errors included). */
unsigned long gt_mock_request_count(const gt_mock_server *server);

/* Stop accepting, end streams in progress, join every thread, free. NULL is a
 * no-op. */
void gt_mock_stop(gt_mock_server *server);

/* ---- gauntlet record: the recording proxy (mocks/record.c, docs/record.md) ---- */

/* Largest request or answer body kept for the recording; an answer above it
 * is still passed through whole and its recording is marked cut. */
#define GT_RECORD_MAX_ANSWER (16u << 20)
/* Longest recording name (--name): case ids are recorded.NAME.NNNN. */
#define GT_RECORD_NAME_MAX 48

typedef struct {
    const char *host;     /* NULL = 127.0.0.1; others need allow_remote */
    unsigned port;        /* 0 = ephemeral */
    const char *upstream; /* base URL the requests are forwarded to */
    const char *out_dir;  /* created when absent; must be empty or a recording */
    const char *name;     /* NULL = recording.txt's, else out_dir's last component, sanitised */
    const char *const *redact; /* more header names or dotted JSON fields */
    size_t redact_count;
    bool allow_remote;
    bool record_errors;   /* also record an upstream that never answered (the 502 the client got) */
    bool record_missing;  /* `serve --record-missing`: answer a request out_dir holds from it, forward and
                             record the others */
} gt_record_options;

typedef struct gt_record_server gt_record_server;

/* Start the proxy; NULL with `err` filled on a bad option or a bind failure. */
gt_record_server *gt_record_start(const gt_record_options *options, char *err, size_t err_len);
/* "http://HOST:PORT" the proxy bound. */
const char *gt_record_base_url(const gt_record_server *server);
/* Exchanges written so far (a conversation of several is one scenario). */
unsigned long gt_record_exchange_count(gt_record_server *server);
/* `gauntlet gen --from` is the explorer's (runner/explore/gen.h, gt_gen_from_recording). */

/* Requests answered from the recording (record_missing). */
unsigned long gt_record_replayed_count(gt_record_server *server);
/* Begin a clean stop (SIGINT/SIGTERM): from now on a new request gets a 503
 * naming the shutdown and is neither forwarded nor recorded; the exchanges
 * already in flight go on. Returns how many are in flight. */
unsigned long gt_record_drain_begin(gt_record_server *server);
/* Exchanges in flight: accepted, and not yet answered whole and written. */
unsigned long gt_record_in_flight(gt_record_server *server);
/* Wait up to `timeout_ms` for the exchanges in flight to end; how many are
 * still in flight. */
unsigned long gt_record_drain_wait(gt_record_server *server, int timeout_ms);
/* Stop accepting, close every connection, free (an exchange still in flight
 * is cut: drain first for a clean stop). NULL is a no-op. */
void gt_record_stop(gt_record_server *server);

#endif
