/* repair.h — bounded repair of a failed output (seed 002, "带预算地修复").
 *
 * Given a gate failure, build the repair request the seed describes: the
 * original task and the unchanged trusted context, the contract (schema or
 * summary), the machine errors with field paths ("$.priority: expected
 * integer from 1 through 5") inside a delimited data block that untrusted
 * strings cannot break out of, a strict attempt maximum and the terminal
 * fallback. The loop re-checks every reply through the whole pipeline, stops
 * early when an error fingerprint repeats (`repair_stalled`), stops at the
 * maximum (`repair_exhausted`), and never repairs missing evidence or a policy
 * denial (it escalates / denies at once). Attempts, tokens, latency and
 * fingerprints are accounted for. Not for: the StructuredOutput tool loop of
 * seed 000 (loop.h), which has its own attempt rules. */
#ifndef GAUNTLET_REPAIR_H
#define GAUNTLET_REPAIR_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/pipeline.h"

/* Default attempt maximum, the first output included: seed 002 says two
 * attempts usually show whether a failure is a random format slip or a deeper
 * contract mismatch. */
#define GT_REPAIR_DEFAULT_MAX_ATTEMPTS 2
/* Hard ceiling on any configured maximum: unbounded retries burn budget and
 * amplify prompt-injection payloads (seed 002). Larger values are clamped. */
#define GT_REPAIR_MAX_ATTEMPTS 8
/* Bytes of the previous output echoed (escaped) into a request. */
#define GT_REPAIR_ECHO_LIMIT 2048u
/* Errors listed in one request; the rest are counted, not listed. */
#define GT_REPAIR_MAX_LISTED_ERRORS 20u

/* Terminal reason codes of the repair loop (docs/repair.md). missing_evidence
 * (semantic.h) and the policy gate's denials are reported unchanged. */
#define GT_REASON_REPAIR_STALLED "repair_stalled"
#define GT_REASON_REPAIR_EXHAUSTED "repair_exhausted"
#define GT_REASON_REPAIR_UNAVAILABLE "repair_unavailable"

/* The markers around every untrusted data block. Escaping guarantees that
 * '<' and '>' never appear raw inside a block, so no data can forge them. */
#define GT_REPAIR_DATA_BEGIN "<<<BEGIN UNTRUSTED DATA: "
#define GT_REPAIR_DATA_END "<<<END UNTRUSTED DATA: "

/* One machine error as the model will read it. */
typedef struct gt_repair_error {
    const char *path;    /* "$.priority" */
    const char *message; /* "expected integer from 1 through 5" */
} gt_repair_error;

typedef struct gt_repair_request_spec {
    const char *task;             /* the original task, trusted, unchanged; NULL = not given */
    const char *context_json;     /* trusted context, unchanged; NULL = none */
    const char *contract_name;    /* "support-triage-v1"; NULL = unnamed */
    const char *contract_summary; /* the schema JSON or an exact summary; NULL = none */
    const gt_repair_error *errors;
    size_t error_count;
    const char *previous; /* the untrusted output being repaired (any bytes) */
    size_t previous_len;
    int attempt;          /* the attempt this request asks for (2 = first repair) */
    int max_attempts;
    const char *fallback; /* what happens when the last attempt fails */
} gt_repair_request_spec;

/* Escape untrusted bytes for a data block: backslash, control characters,
 * DEL, '<', '>', line/paragraph separators, NEL, bidi and zero-width format
 * characters become \-escapes (\n, \u003c, \u2028 ...); invalid UTF-8 bytes
 * become \xNN. The result holds no raw line break. Malloc'd, NUL-terminated;
 * NULL when out of memory. */
char *gt_repair_escape(const char *text, size_t len, size_t *out_len);

/* Build the request text (docs/repair.md shows it). Malloc'd; `len` may be
 * NULL. NULL when out of memory. */
char *gt_repair_request_text(const gt_repair_request_spec *spec, size_t *len);

/* The errors of a failed outcome as repair errors, in gate order. Strings
 * point into `arena` (or the outcome). Returns the count, or -1 when out of
 * memory; *errors receives an arena array. */
long gt_repair_errors_of(const gt_pipeline_outcome *outcome, gt_arena *arena, gt_repair_error **errors);

/* Fingerprint of a failure: "gate:16 hex digits" over the gate, the reason
 * and the sorted set of (path, keyword or rule id). Messages are left out, so
 * `priority: 9` and `priority: 7` are the same failure. `out` needs 48 bytes. */
void gt_repair_fingerprint(const gt_pipeline_outcome *outcome, char *out, size_t out_len);

/* A model reply to one repair request. */
typedef struct gt_repair_reply {
    const char *raw; /* the output text; must stay valid until the next call */
    size_t len;
    long input_tokens;  /* usage as the provider reported it; -1 = unknown */
    long output_tokens;
    double latency_ms;  /* < 0: the loop measures the call itself */
} gt_repair_reply;

/* Ask the model: send `request` for attempt number `attempt` and fill
 * `reply`. Return 0, or -1 when no reply came (the loop ends with
 * repair_unavailable). */
typedef int (*gt_repair_model_fn)(void *user, int attempt, const char *request, size_t request_len,
                                  gt_repair_reply *reply);

typedef struct gt_repair_config {
    const gt_pipeline_config *pipeline; /* gates every attempt goes through */
    int max_attempts;                   /* outputs checked, the first included; 0 = default, clamped to the ceiling */
    const char *task;
    const char *context_json;
    const char *contract_name;
    const char *contract_summary;
    const char *fallback;               /* NULL = "escalate to human review" */
    gt_repair_model_fn model;           /* NULL: build the first request, send nothing */
    void *user;
} gt_repair_config;

typedef enum gt_repair_status {
    GT_REPAIR_ACCEPTED = 0, /* the first output passed every gate */
    GT_REPAIR_REPAIRED,     /* a repair attempt passed */
    GT_REPAIR_STALLED,      /* a fingerprint repeated: stopped early */
    GT_REPAIR_EXHAUSTED,    /* the attempt maximum was reached */
    GT_REPAIR_ESCALATED,    /* missing evidence or an escalating rule: never repaired */
    GT_REPAIR_DENIED,       /* the policy gate denied: deterministic, never repaired */
    GT_REPAIR_UNAVAILABLE,  /* the model sent no reply */
    GT_REPAIR_NOT_SENT      /* no model configured: the request was built, not sent */
} gt_repair_status;

/* "accepted", "repaired", "repair_stalled", ... */
const char *gt_repair_status_name(gt_repair_status status);

typedef struct gt_repair_attempt {
    int number;              /* 1 = the original output */
    bool accepted;
    gt_pipeline_gate gate;   /* failing gate when !accepted */
    char reason[64];
    char fingerprint[48];    /* "" when accepted */
    long input_tokens, output_tokens; /* -1 = unknown */
    double latency_ms;       /* 0 for the original output */
} gt_repair_attempt;

typedef struct gt_repair_result {
    gt_repair_status status;
    const char *reason;        /* terminal reason (see above); NULL when accepted or repaired */
    gt_pipeline_gate gate;     /* gate of the last failure */
    int max_attempts;          /* the maximum in force */
    int attempts_used;         /* outputs checked, the first included */
    int requests_sent;         /* repair requests the model answered or was asked */
    long input_tokens, output_tokens; /* sums over known usage */
    double latency_ms;         /* sum over repair calls */
    gt_repair_attempt attempts[GT_REPAIR_MAX_ATTEMPTS];
    char *last_request;        /* the last request built (malloc'd), or NULL */
    char *value_json;          /* the accepted value (malloc'd), or NULL */
    char message[512];         /* the last failure's first message */
} gt_repair_result;

/* Check `raw` and repair it within the budget. `outcome` (initialised by the
 * caller) holds the last attempt's gate outcome on return; values live in
 * `arena`. Returns 0, or -1 when out of memory. Release the result with
 * gt_repair_result_free. */
int gt_repair_run(const gt_repair_config *config, const char *raw, size_t len, gt_arena *arena,
                  gt_pipeline_outcome *outcome, gt_repair_result *result);

void gt_repair_result_free(gt_repair_result *result);

/* The accounting as one compact JSON object: {"status", "reason", "gate",
 * "max_attempts", "attempts_used", "requests_sent", "tokens": {"input",
 * "output"}, "latency_ms", "fingerprints": [...], "attempts": [...]}.
 * Malloc'd; NULL when out of memory. */
char *gt_repair_result_json(const gt_repair_result *result);

#endif
