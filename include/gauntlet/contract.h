/* contract.h — contract names, versions, adapters and the trace record.
 *
 * An output contract has a name and a version ("support-triage-v1"). The
 * application consumes one current internal type; adapters migrate an older
 * version to it, and only during a declared compatibility window (older
 * versions accepted up to a date, then retired). Every verdict carries a trace
 * record naming the schema, prompt, model and validator versions, so a
 * regression can be tied to what changed. Not for: validating structure
 * (schema.h) — the caller validates the input version's schema first, and the
 * migrated value against the current schema. */
#ifndef GAUNTLET_CONTRACT_H
#define GAUNTLET_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/schema.h"
#include "gauntlet/value.h"

/* Longest contract name ("support-triage") gauntlet handles. */
#define GT_CONTRACT_MAX_NAME 64u

/* Member an output may carry to name its contract version
 * ("contract_version": "support-triage-v2", seed 002 exercise 4). */
#define GT_CONTRACT_VERSION_FIELD "contract_version"

/* Reason codes of the versioning step (reported at the structure gate). */
#define GT_REASON_CONTRACT_VERSION_UNKNOWN "contract_version_unknown"
#define GT_REASON_CONTRACT_VERSION_RETIRED "contract_version_retired"
#define GT_REASON_CONTRACT_NO_ADAPTER "contract_no_adapter"
#define GT_REASON_CONTRACT_ADAPTER_FAILED "contract_adapter_failed"
#define GT_REASON_CONTRACT_ADAPTER_INVALID "contract_adapter_output_invalid"

/* "support-triage-v1" as name + version. */
typedef struct gt_contract_ref {
    char name[GT_CONTRACT_MAX_NAME];
    unsigned version; /* >= 1 */
} gt_contract_ref;

/* Split "name-vN" (N >= 1, no leading zero). Returns 0, or -1 when malformed. */
int gt_contract_ref_parse(const char *text, gt_contract_ref *out);

/* Write "name-vN" into `out` (truncated, NUL-terminated). */
void gt_contract_ref_format(const gt_contract_ref *ref, char *out, size_t out_len);

/* Migrate one version up: build the newer value in `arena` from `older`
 * (already valid against its own schema). Returns 0, or -1 with `message`
 * filled when the older value cannot be represented in the newer version. */
typedef int (*gt_contract_adapter_fn)(gt_arena *arena, const gt_value *older, gt_value **newer, char *message,
                                      size_t message_len);

typedef struct gt_contract_adapter {
    const char *name;
    unsigned from_version; /* migrates from_version -> from_version + 1 */
    gt_contract_adapter_fn migrate;
} gt_contract_adapter;

/* The built-in adapters (support-triage v1 -> v2). `count` receives their
 * number. Static data: never freed. */
const gt_contract_adapter *gt_contract_builtin_adapters(size_t *count);

/* support-triage v1 -> v2: `priority` 1..5 becomes `severity` (1-2 "low",
 * 3 "medium", 4-5 "high") in the same position, and "contract_version":
 * "support-triage-v2" is added first. Every other member is kept. */
int gt_contract_support_triage_v1_to_v2(gt_arena *arena, const gt_value *older, gt_value **newer, char *message,
                                        size_t message_len);

/* JSON Schema text of a built-in contract version (support-triage-v2), or
 * NULL when gauntlet has none. Static. */
const char *gt_contract_builtin_schema(const char *name, unsigned version);

/* A contract family as the consumer declares it. */
typedef struct gt_contract {
    char name[GT_CONTRACT_MAX_NAME];
    unsigned current;          /* the internal type's version */
    unsigned oldest_accepted;  /* compatibility window: versions >= this are migrated (== current: none) */
    char accept_until[11];     /* "YYYY-MM-DD": last day older versions are accepted; "" = no end declared */
    gt_schema *current_schema; /* owned; the migrated value is validated against it (NULL = not checked) */
} gt_contract;

/* Why a declaration did not load. */
typedef struct gt_contract_problem {
    char location[64];
    char message[256];
} gt_contract_problem;

/* Load a declaration: {"name": "support-triage", "current": 2,
 * "oldest_accepted": 1, "accept_until": "2026-12-31", "current_schema": {...}}
 * (only name and current are required; without current_schema the built-in
 * schema of name-vCURRENT is used when there is one). Returns 0, or -1 with `problem`
 * filled. Release with gt_contract_clear. */
int gt_contract_load(const gt_value *declaration, gt_contract *out, gt_contract_problem *problem);
void gt_contract_clear(gt_contract *contract);

typedef enum gt_contract_status {
    GT_CONTRACT_CURRENT = 0, /* already the current version: unchanged */
    GT_CONTRACT_MIGRATED,    /* an older version inside the window, migrated */
    GT_CONTRACT_REJECTED     /* `reason` says why */
} gt_contract_status;

typedef struct gt_contract_result {
    gt_contract_status status;
    unsigned from_version;  /* version the output was read as (0 = unknown) */
    const gt_value *value;  /* the current-version value (in the caller's arena) unless rejected */
    const char *reason;     /* GT_REASON_CONTRACT_* when rejected, or the bound hit while checking the
                             * migrated value (gt_schema_failure_code_str: "schema_ref_cycle", ...) */
    char message[256];
} gt_contract_result;

/* Bring `value` to the contract's current version. The version is the
 * value's "contract_version" member when present, else `declared_version`
 * (what the prompt asked for; 0 = unknown). `today` ("YYYY-MM-DD", trusted
 * clock; NULL = window end not enforced) is compared with accept_until.
 * Adapters are the built-in ones. Returns 0 (see result->status), or -1 when
 * out of memory. */
int gt_contract_upgrade(const gt_contract *contract, const gt_value *value, unsigned declared_version,
                        const char *today, gt_arena *arena, gt_contract_result *result);

/* The trace record of one verdict: which versions produced and judged it. */
typedef struct gt_trace {
    const char *case_id;           /* or request id; may be NULL */
    const char *schema;            /* "support-triage-v1" (schema $id or contract ref) */
    const char *prompt_version;    /* "triage-prompt-7" */
    const char *model;             /* "claude-..." */
    const char *validator_version; /* "gauntlet-reference 0.1.0" */
    const char *contract_in;       /* version the output was read as, or NULL */
    const char *contract_out;      /* version consumed after migration, or NULL */
    const char *verdict;           /* "accept" | "reject" */
    const char *gate;              /* rejecting gate or NULL */
    const char *reason;            /* reason code or NULL */
} gt_trace;

/* One compact JSON object with every field (unknown ones as null), keys in a
 * fixed order: {"trace":"gauntlet-trace/1","case":..,"schema":..,
 * "prompt_version":..,"model":..,"validator":..,"contract_in":..,
 * "contract_out":..,"verdict":..,"gate":..,"reason":..}. Malloc'd; caller
 * frees. NULL when out of memory. */
char *gt_trace_to_json(const gt_trace *trace);

#endif
