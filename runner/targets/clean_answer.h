/* clean_answer.h — is the object a black-box client returned the complete,
 * valid answer of the script turn the mock served it last?
 *
 * For the http target (target_http.c): an object that is one is nothing the
 * reference refuses *as an object* (coerced, cut, a refusal's, retracted,
 * assembled across a protocol break), so a verdict that differs over it is a
 * budget, design or protocol-strictness difference (docs/profiles.md,
 * "Verdict classes"), never `unsafe`. Not for: judging the stream itself
 * (reference/stream.c is the strict parser; this one reads leniently on
 * purpose, since the served stream is malformed on purpose). */
#ifndef GT_CLEAN_ANSWER_H
#define GT_CLEAN_ANSWER_H

#include <stdbool.h>

#include "gauntlet/value.h"

typedef enum gt_clean_kind {
    GT_CLEAN_NONE = 0, /* the object is no clean answer of the turn */
    GT_CLEAN_MESSAGE,  /* a `message` turn's (or a `from_message` stream's, uncut) StructuredOutput input */
    GT_CLEAN_STREAM    /* the input of a StructuredOutput block a raw `sse` / `events` stream closed, the
                        * stream served verbatim to its terminal event */
} gt_clean_kind;

/* Which clean answer `object` is of the script turn `turn`, served whole (a
 * 200, no transport fault: the caller checks the journal). `verbatim_stream`:
 * the request streamed on the turn's own API, so a `stream` turn's bytes
 * reached the client as scripted (docs/mock-server.md); without it a raw
 * stream turn is never clean. `schema_json` is the caller's schema; `format`
 * asserted when `assert_formats`. */
gt_clean_kind gt_clean_answer(const gt_value *turn, bool verbatim_stream, const gt_value *object,
                              const char *schema_json, bool assert_formats);

#endif
