/* target_adapter.h — the "adapter" target: a vendor's implementation as a
 * long-lived subprocess speaking newline-delimited JSON (docs/adapter-protocol.md).
 *
 * Crashes, hangs, garbage and oversized lines of the adapter are data for the
 * report (an `error` result for that case, with evidence), never a crash of
 * the runner; the adapter is restarted for the next case. */
#ifndef GT_TARGET_ADAPTER_H
#define GT_TARGET_ADAPTER_H

#include "gauntlet/limits.h"
#include "gauntlet/runner/run.h"

#define GT_ADAPTER_PROTOCOL 1
/* Per-case response deadline unless --timeout says otherwise. */
#define GT_ADAPTER_DEFAULT_TIMEOUT_MS 10000
/* Deadline for the hello handshake after a (re)start. */
#define GT_ADAPTER_HELLO_TIMEOUT_MS 10000
/* Largest response line accepted; longer is an error for that case. */
#define GT_ADAPTER_MAX_LINE (64u * 1024u * 1024u)
/* Nesting limit of one reply line (the parser is iterative: a policy, not
 * stack safety). A reply echoes an accepted value inside its envelope; the
 * deepest value a target can accept is a loop's tool input or a wire schema
 * (GT_SCHEMA_MAX_DEPTH) or a syntax-gate value (GT_PARSE_DEFAULT_MAX_DEPTH),
 * so the limit leaves 64 levels of envelope above the deepest of them. */
#define GT_ADAPTER_REPLY_MAX_DEPTH (GT_SCHEMA_MAX_DEPTH + 64u)
_Static_assert(GT_ADAPTER_REPLY_MAX_DEPTH >= GT_PARSE_DEFAULT_MAX_DEPTH + 64u, "replies must hold any accepted value");
/* Consecutive failed starts after which the adapter is declared unavailable
 * (every remaining case is still recorded, as an error naming the cause). */
#define GT_ADAPTER_MAX_FAILED_STARTS 3
/* Lines of the adapter's stderr kept as evidence. */
#define GT_ADAPTER_STDERR_LINES 5

extern const gt_target_ops gt_target_adapter_ops;

/* Set the per-case timeout for adapters opened afterwards (the CLI's
 * --timeout; call before any run starts). */
void gt_adapter_set_timeout_ms(int timeout_ms);

/* Set the longest reply line for adapters opened afterwards (0 = the default
 * GT_ADAPTER_MAX_LINE); tests use a small one so that an oversized line is
 * detected after a few reads, whatever the machine's load. */
void gt_adapter_set_max_line(size_t bytes);

/* Read one check reply line as the adapter target does (parse, then the
 * protocol's fields into `observed`). 0, or -1 with `why`. For the fuzz
 * harness (fuzz/fuzz_adapter_reply.c) and tests. */
int gt_adapter_reply_read(const char *line, size_t len, gt_observed *observed, char *why, size_t why_len);

/* The per-case timeout in force (the reference target uses it too). */
int gt_adapter_timeout_ms(void);

#endif
