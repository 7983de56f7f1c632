/* record_impl.h — what the recording proxy (record.c) and its case writer
 * (record_case.c) share: one recorded exchange, and the functions that turn a
 * conversation of them into a replay script, a case with the reference's
 * verdict, and the test that groups a request into a conversation.
 * Not for: the HTTP side (record.c) or the mock server (server.c). */
#ifndef GAUNTLET_MOCKS_RECORD_IMPL_H
#define GAUNTLET_MOCKS_RECORD_IMPL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* One request and its answer, after redaction (every pointer malloc'd, owned
 * by the exchange; rec_exchange_free frees them). */
typedef struct rec_exchange {
    char *path;          /* the request's path, query string included */
    char *request;       /* the request body as sent upstream, redacted ("" when none) */
    char *answer;        /* the answer's bytes as received (up to GT_RECORD_MAX_ANSWER), redacted when JSON */
    size_t answer_len;
    long status;         /* the upstream's status; 502 for an upstream that never answered */
    char content_type[256];
    char response_headers[1024]; /* retry-after, request ids: "name: value\n" each (record.c) */
    bool cut;            /* the answer ended before the upstream finished it (a broken connection) */
    bool over_limit;     /* the answer was longer than GT_RECORD_MAX_ANSWER: kept up to it, replayed as cut */
    bool unreachable;    /* no answer at all: the 502 the client got (recorded only with --record-errors) */
    bool replayed;       /* record-on-miss: already served once from the recording */
} rec_exchange;

void rec_exchange_free(rec_exchange *exchange);

/* True when `next` continues the conversation whose latest exchange is
 * `last`: same path, and its messages are `last`'s messages plus `last`'s
 * answer and more (a tool_result after a tool_use, the next user turn), or
 * exactly `last`'s messages when `last`'s answer was unusable (a retry after
 * a cut, a 5xx, a 429). cache_control markers are ignored. A Responses
 * request with `previous_response_id` continues `last` when that names
 * `last`'s answer (or repeats `last`'s request after an unusable answer). */
bool rec_continues(const rec_exchange *last, const rec_exchange *next);

/* True when `request` (redacted like the recording) to `path` is the
 * request `recorded` answered: the same path and the same JSON value
 * (member order aside), or the same bytes when it is not JSON. */
bool rec_same_request(const rec_exchange *recorded, const char *path, const char *request);

/* The exchanges of one conversation DIR/STEM.exchange.txt and
 * DIR/STEM.scenario.json hold, in order (malloc'd array of new exchanges, in
 * *out; the exchanges' infos, a new cJSON array, in *infos). Returns the
 * count, or -1 with `err` filled when the files do not read as a recording. */
int rec_load_conversation(const char *dir, const char *name, rec_exchange ***out, cJSON **infos, char *err,
                          size_t err_len);

/* The replay script of a conversation (docs/record.md): one turn per
 * exchange that `gauntlet serve` plays with the recorded status and body
 * bytes. A new cJSON object; NULL when out of memory. */
cJSON *rec_replay_script(rec_exchange *const *exchanges, size_t count);

/* The case file of the conversation replayed as scenario SCENARIO
 * (RECORDING.NNNN, or NNNN in a recording made before names) of the
 * recording RECORDING: one `gauntlet-corpus/1` case `recorded.SCENARIO`
 * whose script is the conversation in the StructuredOutput form the
 * reference loop plays, and whose expectation is the reference's verdict
 * on it. NULL with `why` filled when the conversation makes no case
 * (the request asks for no structured output, an API the reference loop
 * does not speak, a script the loop refuses). */
cJSON *rec_case_file(rec_exchange *const *exchanges, size_t count, const char *recording, const char *scenario,
                     char *why, size_t why_len);

/* The script message a complete SSE answer assembles to (Anthropic, or
 * OpenAI Chat Completions chunks); NULL for a transport fault. */
cJSON *rec_stream_message(const char *sse, size_t len, bool openai);

/* `gauntlet gen --from` lives in the explorer (runner/explore/gen_from.c). */

#endif
