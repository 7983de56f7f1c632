/* shrink.h — minimising an input while a property holds (gauntlet explore,
 * docs/explore.md#shrinking): delta debugging on bytes for inputs the syntax
 * gate rejects, and on JSON structure (drop members and elements, simplify
 * values) for inputs that parse. The property is the caller's: explore's
 * keeps the disagreement between a target and the reference. */
#ifndef GT_SHRINK_H
#define GT_SHRINK_H

#include <stdbool.h>
#include <stddef.h>

/* True when `bytes` still shows what is being kept. */
typedef bool (*gt_shrink_test)(void *user, const unsigned char *bytes, size_t len);

typedef struct gt_shrink_stats {
    size_t tests;     /* calls of the test function */
    size_t max_tests; /* stop after this many (0 = GT_SHRINK_DEFAULT_TESTS) */
} gt_shrink_stats;

#define GT_SHRINK_DEFAULT_TESTS 20000

/* First whole values ({...} [...] "...") replaced by shorter ones, then
 * ddmin (Zeller & Hildebrandt): remove chunks of halving size while the test
 * holds, down to single bytes. Returns the smallest input found (malloc'd,
 * *out_len bytes; `raw` itself when nothing smaller holds), or NULL when out
 * of memory. The test is assumed to hold for `raw`. */
unsigned char *gt_shrink_bytes(const unsigned char *raw, size_t len, gt_shrink_test test, void *user,
                               gt_shrink_stats *stats, size_t *out_len);

/* For an input that is one JSON value: drop object members and array
 * elements, replace values by simpler ones ({} [] "" 0 and shorter strings),
 * testing each candidate as compact JSON, until nothing smaller holds.
 * Returns the result (malloc'd), or NULL when `raw` does not parse, or the
 * compact form of `raw` does not hold, or out of memory. */
char *gt_shrink_json(const char *raw, size_t len, gt_shrink_test test, void *user, gt_shrink_stats *stats,
                     size_t *out_len);

#endif
