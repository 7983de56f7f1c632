/* parse_impl.h — the syntax gate's byte scans, selectable for its tests.
 *
 * gt_parse scans strings and whitespace with SSE2 on x86-64 and with
 * eight-byte words (SWAR) elsewhere. Both must give the same tree and the
 * same error (reason, offset, line, column) for every input; the suite
 * proves it by parsing the same inputs both ways (suite/test_parse.c, the
 * "scans" tests). Private to libgauntlet, its tests and bench_parse; the
 * library reads no environment variable to choose. */
#ifndef GT_PARSE_IMPL_H
#define GT_PARSE_IMPL_H

#include <stdbool.h>

#include "gauntlet/parse.h"

typedef enum gt_parse_scan {
    GT_PARSE_SCAN_DEFAULT,  /* what gt_parse does: the SIMD scans where built */
    GT_PARSE_SCAN_PORTABLE, /* the portable scans, on any machine (tests, bench_parse) */
    GT_PARSE_SCAN_SIMD      /* the SIMD scans where built (gt_parse_simd_built), else the portable ones */
} gt_parse_scan;

/* True when this build has the SIMD scans (x86-64: SSE2). */
bool gt_parse_simd_built(void);

/* gt_parse with the byte scans chosen by `scan`; everything else is the same. */
gt_value *gt_parse_with_scan(gt_arena *arena, const char *text, size_t len, const gt_parse_options *options,
                             gt_parse_error *error, gt_parse_scan scan);

#endif
