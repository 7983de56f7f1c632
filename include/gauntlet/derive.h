/* derive.h — model answers computed from a schema (schema-derived faults).
 *
 * A loop script turn may name an operator instead of a literal answer
 * (`{"derive": "schema-echo"}`, docs/loop-scripts.md "Derived turns"): the
 * answer is then computed from the schema — the script's own when the
 * reference plays it in process, the one the client actually sent when the
 * mock server plays it (docs/mock-server.md). The answer is a StructuredOutput
 * call whose input is the derived text; `cut-at` makes it a stream cut at a
 * structural boundary of a valid instance (or a max_tokens answer holding
 * that prefix). Not for: choosing the answer form (the mock's form.c) or
 * generating corpus variants (runner/explore). */
#ifndef GAUNTLET_DERIVE_H
#define GAUNTLET_DERIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/arena.h"
#include "gauntlet/loop.h"
#include "gauntlet/value.h"

typedef enum gt_derive_op {
    GT_DERIVE_SCHEMA_ECHO = 0,   /* "schema-echo": the schema's own JSON as the answer (vercel/ai#7386) */
    GT_DERIVE_NESTED_AS_STRING,  /* "nested-as-string": a valid instance whose first nested object/array member is
                                    sent as a JSON string */
    GT_DERIVE_LOOSE_PLACEHOLDER, /* "loose-placeholder": required members only, placeholder values of the right
                                    type, ignoring enum/const/pattern/format/min and max bounds (anthropics/claude-code#76901) */
    GT_DERIVE_CUT_AT,            /* "cut-at": a valid instance cut at a structural boundary */
    GT_DERIVE_ENUM_CASE,         /* "enum-case": a valid instance with its first enum string in another letter case */
    GT_DERIVE_VALID,             /* "valid": a minimal valid instance (the retry turn) */
    GT_DERIVE_OP_COUNT
} gt_derive_op;

/* Where `cut-at` cuts the instance's compact JSON text. */
typedef enum gt_derive_boundary {
    GT_DERIVE_INSIDE_STRING = 0, /* "inside_string": after the first character of the nth string value */
    GT_DERIVE_BETWEEN_MEMBERS,   /* "between_members": right after the nth comma between object members */
    GT_DERIVE_BEFORE_CLOSE       /* "before_close": before the nth closing brace (default: the root's, the last) */
} gt_derive_boundary;

/* The placeholder a loose-placeholder answer gives every required string. */
#define GT_DERIVE_PLACEHOLDER_TEXT "test"
/* $ref / nesting depth the generator follows before it gives up (a recursive schema). */
#define GT_DERIVE_MAX_DEPTH 32

/* One derive turn as a script names it. Strings point into the script. */
typedef struct gt_derive_spec {
    gt_derive_op op;
    gt_derive_boundary at;   /* cut-at */
    size_t nth;              /* cut-at: 1-based; 0 = the default (1, or the last brace for before_close) */
    bool max_tokens;         /* cut-at "end": "max_tokens" (a complete response holding the prefix, stop_reason
                                max_tokens) instead of "cut" (a stream that ends after the prefix) */
    const char *message_id;  /* the message's id */
    const char *tool_use_id; /* the StructuredOutput call's id */
} gt_derive_spec;

/* "schema-echo", ... ; NULL for an unknown op. */
const char *gt_derive_op_name(gt_derive_op op);
/* The op named `name`, or -1. */
int gt_derive_op_from_name(const char *name);
/* "inside_string", "between_members", "before_close". */
const char *gt_derive_boundary_name(gt_derive_boundary at);
int gt_derive_boundary_from_name(const char *name);

/* Read a turn's "derive" member: an operator name, or an object
 * {"op", "at"?, "nth"?, "end"?, "id"?}. Ids default to `message_id` and
 * `tool_use_id` (the caller's defaults, kept by pointer). 0, or -1 with
 * `field` (the member at fault, "" for the value itself) and `err` filled. */
int gt_derive_spec_read(const gt_value *value, const char *message_id, const char *tool_use_id, gt_derive_spec *spec,
                        char *field, size_t field_len, char *err, size_t err_len);

/* The derived input text for `schema_json`: malloc'd into `*text` (`*len`).
 * 0; 1 when the operator cannot apply to this schema (no enum for enum-case,
 * no nested member, no such boundary, no valid instance found, a schema that
 * is not an object), with the reason in `why`; -1 when out of memory. */
int gt_derive_text(const gt_derive_spec *spec, const char *schema_json, size_t schema_len, char **text, size_t *len,
                   char *why, size_t why_len);

/* The reply of a derive turn against `schema_json`: a message with one
 * StructuredOutput call carrying the derived text, or for cut-at a stream
 * in `provider`'s grammar (model name `model`) ending right after the
 * prefix, or a max_tokens message. Memory from `arena`; `reply->turn` is
 * `turn`. Returns as gt_derive_text. */
int gt_derive_reply(const gt_derive_spec *spec, const char *schema_json, size_t schema_len, size_t turn,
                    gt_stream_provider provider, const char *model, gt_arena *arena, gt_loop_reply *reply, char *why,
                    size_t why_len);

/* The derive operator of script turn `index` (the script keeps the answer it
 * resolved against its own schema), or NULL when the turn is not derived. */
const gt_derive_spec *gt_loop_script_turn_derive(const gt_loop_script *script, size_t index);

#endif
